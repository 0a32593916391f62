// How collectives become network flows, and how efficiently NCCL uses the
// links. A collective over a group of GPUs is replaced by a few volume-
// equivalent flows on the links a ring really crosses (one per GPU inside a
// node; one per GPU and rail across nodes), so SimGrid shares the links
// between concurrent traffic without simulating every ring step. No SimGrid.
#pragma once

#include <vector>



namespace pf {

enum class CollectiveKind { kAllReduce, kAllGather, kReduceScatter };

struct Flow {
  int src = 0, dst = 0;  // global GPU indices
  double bytes = 0;      // bytes at the link's achieved rate (see FlowBytes)
};

// Bytes each GPU sends in a ring collective over n GPUs of a `size_bytes`
// buffer: 2(n-1)/n S for all-reduce, (n-1)/n S for all-gather and
// reduce-scatter (nccl-tests bus-bandwidth convention).
double RingBytesPerGpu(CollectiveKind kind, int n, double size_bytes);

// Volume-equivalent flows of a ring collective over `group` (global GPU
// indices, GPU g on node g / gpus_per_node; the same count on every node).
// Inside one node: GPU i sends the ring volume V to the next GPU. Across m
// nodes with k GPUs each, NCCL runs k channels, one per rail: each GPU sends
// V (k-1)/k to its in-node successor and V/k to the GPU of the same local
// rank on the next node.
std::vector<Flow> RingFlows(CollectiveKind kind, const std::vector<int>& group,
                            int gpus_per_node, double size_bytes);

// Achieved fraction of line rate for large messages, per link class; the
// platform gives SimGrid links line rate x this.
double NvlinkEfficiency();
double NicEfficiency();
double PcieEfficiency();

// Fraction of a GPU's compute throughput that NCCL kernels take while a
// data-parallel collective overlaps compute on it (NCCL runs one thread
// block per channel on its own SMs and competes for HBM bandwidth).
double NcclComputeShare();

// Extra time factor (>= 1) for a collective of `message_bytes` over `ranks`
// GPUs (1 for a point-to-point send): NCCL reaches its large-message
// bandwidth only when each ring step moves a large chunk. Multiplies flow
// bytes.
double MessageSizePenalty(double message_bytes, int ranks);

}  // namespace pf

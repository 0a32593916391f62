// Ring collectives as network flows. A collective over a group of GPUs is
// replaced by a few volume-equivalent flows on the links a ring really
// crosses (one per GPU inside a node; one per GPU and rail across nodes), so
// SimGrid shares the links between concurrent traffic without simulating
// every ring step. No SimGrid.
#pragma once

#include <vector>

#include "sim/base/units.h"

namespace pf {

enum class CollectiveKind { kAllReduce, kAllGather, kReduceScatter };

struct Flow {
  int src = 0, dst = 0;  // global GPU indices
  Bytes bytes;           // what the source sends the destination
};

// Bytes each GPU sends in a ring collective over n GPUs of a `size` buffer:
// 2(n-1)/n S for all-reduce, (n-1)/n S for all-gather and reduce-scatter
// (nccl-tests bus-bandwidth convention).
Bytes RingBytesPerGpu(CollectiveKind kind, int n, Bytes size);

// Volume-equivalent flows of a ring collective over `group` (global GPU
// indices, GPU g on node g / gpus_per_node; the same count on every node).
// Inside one node: GPU i sends the ring volume V to the next GPU. Across m
// nodes with k GPUs each, NCCL runs k channels, one per rail: each GPU sends
// V (k-1)/k to its in-node successor and V/k to the GPU of the same local
// rank on the next node.
std::vector<Flow> RingFlows(CollectiveKind kind, const std::vector<int>& group,
                            int gpus_per_node, Bytes size);

}  // namespace pf

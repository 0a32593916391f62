// Collectives as network flows. A collective over a group of GPUs is
// replaced by a few volume-equivalent flows on the links it really crosses
// (one per GPU inside a node; one per GPU and rail across nodes), so
// SimGrid shares the links between concurrent traffic without simulating
// every ring step. Latency is the plan's (nccl.h), paid before the flows.
// No SimGrid.
#pragma once

#include <vector>

#include "sim/base/units.h"
#include "sim/collectives/collective.h"

namespace pf {

struct Flow {
  int src = 0, dst = 0;  // global GPU indices
  Bytes bytes;           // what the source sends the destination
};

// The shape of `group` (global GPU indices, GPU g on node g / gpus_per_node).
GroupShape ShapeOf(const std::vector<int>& group, int gpus_per_node);

// Volume-equivalent flows of `kind` run with `algorithm` over `group` (the
// same count on every node), carrying the bus bytes (collective.h):
// - ring and tree: inside one node GPU i sends V to the next GPU; across m
//   nodes with k GPUs each NCCL runs one channel per rail, so each GPU sends
//   V (k-1)/k to its in-node successor and V/k to the GPU of the same local
//   rank on the next node (a tree moves the same bytes per NIC as a ring,
//   as NCCL's tuner models it);
// - NVLS: each GPU sends its S bytes through the switch (to its successor);
// - all-to-all across nodes: each GPU sends S (k-1)/n to its in-node
//   successor and S k (m-1)/n (k S / n for each other node) to the GPU of
//   its local rank on the next node.
std::vector<Flow> CollectiveFlows(CollectiveKind kind, Algorithm algorithm, const std::vector<int>& group,
                                  int gpus_per_node, Bytes size);

}  // namespace pf

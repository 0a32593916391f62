// What a collective's group crosses on a cluster, for the collective model
// (collectives/nccl.h): the bottlenecks of the routes its flows take
// through the node topology (node_topology.h), which the platform builds
// as the same links. No SimGrid.
#pragma once

#include <vector>

#include "sim/collectives/nccl.h"
#include "sim/engine/node_topology.h"
#include "sim/spec/spec.h"

namespace pf {

// The paths of a collective over `group` (global GPU indices) on cluster
// `c` whose node topology is `topo`:
// - inside a node, the rate each hop of the ring over the group's GPUs
//   gets when all hops run at once (NVLink, a bridge, or PCIe through
//   switches, sockets and host memory);
// - across nodes, the sum over the NICs the group's GPUs use of the rate
//   a GPU's route to its NIC gets, with each hop's link latency (between
//   nodes: the NIC's, plus each further switch of the fabric on the way).
GroupPaths PathsOf(const ClusterSpec& c, const NodeTopology& topo, const std::vector<int>& group);
// The same, building the node topology first.
GroupPaths PathsOf(const ClusterSpec& c, const std::vector<int>& group);

}  // namespace pf

// What a collective's group crosses on a cluster, for the collective model
// (collectives/nccl.h). No SimGrid: the platform (platform.cc) builds the
// same links.
#pragma once

#include <vector>

#include "sim/collectives/nccl.h"
#include "sim/spec/spec.h"

namespace pf {

// The paths of a collective over `group` (global GPU indices) on cluster
// `c`: NVLink (line rate x its generation's efficiency) or PCIe inside a
// node, and the NICs of the rails its GPUs use (rail r = local rank x nics
// / gpus_per_node), with each hop's link latency.
GroupPaths PathsOf(const ClusterSpec& c, const std::vector<int>& group);

// The achieved fraction of a NIC's line rate for its kind (RDMA or TCP
// sockets; collectives/nccl.h).
double AchievedNicFraction(const NodeSpec& n);

}  // namespace pf

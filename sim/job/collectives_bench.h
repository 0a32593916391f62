// `simulate collectives`: one collective over a range of sizes on a
// cluster, simulated on SimGrid like a training step's collectives (the
// plan of collectives/nccl.h, flows on the platform's links), and reported
// as nccl-tests reports it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/collectives/collective.h"
#include "sim/spec/spec.h"

namespace pf {

struct CollectiveBench {
  ClusterSpec cluster;  // nodes = the nodes taking part
  CollectiveKind kind = CollectiveKind::kAllReduce;
  int gpus = 0;         // taking part, gpus / nodes on each node (local ranks 0..)
  std::vector<double> sizes_bytes;
  std::optional<Algorithm> algorithm;  // NCCL's choice when empty
};

struct CollectiveBenchRow {
  double size_bytes = 0;
  double time_s = 0;
  double algbw_gbps = 0;  // size / time, GB = 1e9 bytes
  double busbw_gbps = 0;  // algbw x the nccl-tests bus factor (BusBytes / size)
  Algorithm algorithm = Algorithm::kRing;
  Protocol protocol = Protocol::kSimple;
};

// Checks the bench (GPUs divide among the nodes and fit them, the
// algorithm is offered for every size): returns the problem as a message
// naming the flag, or "" when it is fine.
std::string CheckCollectiveBench(const CollectiveBench& b);

// One row per size, the collectives run one after another in one SimGrid
// run. REQUIRES: CheckCollectiveBench(b) is "".
std::vector<CollectiveBenchRow> RunCollectiveBench(const CollectiveBench& b);

// Sizes from `first` to `last` doubling, as nccl-tests -b/-e/-f 2 (at most
// 64 sizes).
std::vector<double> DoublingSizes(double first, double last);

}  // namespace pf

// The collectives Preflight simulates, the algorithms and protocols NCCL
// runs them with, and the group they run over. No SimGrid.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/base/units.h"

namespace pf {

// Same numbering as preflight::CollectiveKind (sim/proto/workload.proto);
// kSendRecv is a point-to-point transfer.
enum class CollectiveKind { kAllReduce, kAllGather, kReduceScatter, kBroadcast, kAllToAll, kSendRecv };

// NCCL's algorithms: a ring through every rank; a double binary tree across
// nodes (all-reduce only) with a chain inside each node; NVLink SHARP, where
// the NVSwitch reduces (all-reduce inside one node with an NVLS switch).
enum class Algorithm { kRing, kTree, kNvls };

// NCCL's protocols: LL (8-byte stores, half of each a flag), LL128
// (128-byte lines, 8 bytes of each a flag), Simple (bulk copies with a
// memory fence per step).
enum class Protocol { kLL, kLL128, kSimple };

const char* Name(CollectiveKind k);  // "all_reduce", ... as nccl-tests names them
const char* Name(Algorithm a);       // "ring", "tree", "nvls"
const char* Name(Protocol p);        // "LL", "LL128", "Simple"
std::optional<CollectiveKind> ParseCollectiveKind(const std::string& s);
std::optional<Algorithm> ParseAlgorithm(const std::string& s);
std::vector<std::string> CollectiveKindNames();  // every Name(CollectiveKind), in order
std::vector<std::string> AlgorithmNames();       // every Name(Algorithm), in order

// Bytes each GPU sends in a ring collective over n GPUs of a `size` buffer,
// the nccl-tests bus-bandwidth convention (busbw = this / time):
// 2(n-1)/n S for all-reduce, (n-1)/n S for all-gather, reduce-scatter and
// all-to-all, S for broadcast and send/recv.
Bytes BusBytes(CollectiveKind kind, int n, Bytes size);

// How a collective's ranks sit on the nodes: `ranks` GPUs on `nodes` nodes,
// `per_node` on each.
struct GroupShape {
  int ranks = 1, nodes = 1, per_node = 1;
};

}  // namespace pf

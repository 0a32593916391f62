#include "sim/collectives/collective.h"

#include <array>
#include <utility>

namespace pf {

namespace {
constexpr std::array<std::pair<CollectiveKind, const char*>, 6> kKinds = {{
    {CollectiveKind::kAllReduce, "all_reduce"},
    {CollectiveKind::kAllGather, "all_gather"},
    {CollectiveKind::kReduceScatter, "reduce_scatter"},
    {CollectiveKind::kBroadcast, "broadcast"},
    {CollectiveKind::kAllToAll, "alltoall"},
    {CollectiveKind::kSendRecv, "sendrecv"},
}};
constexpr std::array<std::pair<Algorithm, const char*>, 3> kAlgorithms = {{
    {Algorithm::kRing, "ring"}, {Algorithm::kTree, "tree"}, {Algorithm::kNvls, "nvls"}}};
}  // namespace

const char* Name(CollectiveKind k) {
  for (const auto& [v, name] : kKinds)
    if (v == k) return name;
  return "?";
}
const char* Name(Algorithm a) {
  for (const auto& [v, name] : kAlgorithms)
    if (v == a) return name;
  return "?";
}
const char* Name(Protocol p) {
  return p == Protocol::kLL ? "LL" : p == Protocol::kLL128 ? "LL128" : "Simple";
}

std::optional<CollectiveKind> ParseCollectiveKind(const std::string& s) {
  for (const auto& [v, name] : kKinds)
    if (s == name) return v;
  return std::nullopt;
}
std::optional<Algorithm> ParseAlgorithm(const std::string& s) {
  for (const auto& [v, name] : kAlgorithms)
    if (s == name) return v;
  return std::nullopt;
}

std::vector<std::string> CollectiveKindNames() {
  std::vector<std::string> out;
  for (const auto& [_, name] : kKinds) out.push_back(name);
  return out;
}
std::vector<std::string> AlgorithmNames() {
  std::vector<std::string> out;
  for (const auto& [_, name] : kAlgorithms) out.push_back(name);
  return out;
}

Bytes BusBytes(CollectiveKind kind, int n, Bytes size) {
  if (n <= 1) return Bytes(0);
  const double f = double(n - 1) / n;
  switch (kind) {
    case CollectiveKind::kAllReduce: return size * (2 * f);
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll: return size * f;
    case CollectiveKind::kBroadcast:
    case CollectiveKind::kSendRecv: return size;
  }
  return size;
}

}  // namespace pf

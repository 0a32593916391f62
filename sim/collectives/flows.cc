#include "sim/collectives/flows.h"

#include <map>

namespace pf {

namespace {

std::map<int, std::vector<int>> ByNode(const std::vector<int>& group, int gpus_per_node) {
  std::map<int, std::vector<int>> by_node;
  for (int g : group) by_node[g / gpus_per_node].push_back(g);
  return by_node;
}

}  // namespace

GroupShape ShapeOf(const std::vector<int>& group, int gpus_per_node) {
  GroupShape s;
  s.ranks = static_cast<int>(group.size());
  if (group.empty()) return s;
  const auto by_node = ByNode(group, gpus_per_node);
  s.nodes = static_cast<int>(by_node.size());
  s.per_node = static_cast<int>(by_node.begin()->second.size());
  return s;
}

std::vector<Flow> CollectiveFlows(CollectiveKind kind, Algorithm algorithm, const std::vector<int>& group,
                                  int gpus_per_node, Bytes size) {
  const int n = static_cast<int>(group.size());
  std::vector<Flow> flows;
  if (n <= 1) return flows;
  const Bytes v = algorithm == Algorithm::kNvls ? size : BusBytes(kind, n, size);
  const auto by_node = ByNode(group, gpus_per_node);
  if (by_node.size() == 1) {
    for (int i = 0; i < n; ++i) flows.push_back({group[i], group[(i + 1) % n], v});
    return flows;
  }
  std::vector<std::vector<int>> nodes;
  for (auto& [_, members] : by_node) nodes.push_back(members);
  const int m = static_cast<int>(nodes.size());
  if (kind == CollectiveKind::kAllToAll) {
    // Each GPU sends S / n to every rank: to its node's k - 1 others over
    // NVLink (as one flow to its successor), and k x S / n to each of the
    // m - 1 other nodes over the rail of its local rank (NCCL's PXN moves a
    // message to the GPU on the destination's rail first). The remote bytes
    // go as one flow to the next node, as a ring's do: the same bytes
    // through every NIC, and two flows per GPU rather than m.
    for (int a = 0; a < m; ++a) {
      const auto& local = nodes[a];
      const auto& next = nodes[(a + 1) % m];
      const int per = static_cast<int>(local.size());
      for (int j = 0; j < per; ++j) {
        if (per > 1) flows.push_back({local[j], local[(j + 1) % per], size * (double(per - 1) / n)});
        flows.push_back({local[j], next[j % next.size()], size * (double(per) * (m - 1) / n)});
      }
    }
    return flows;
  }
  for (int k = 0; k < m; ++k) {
    const auto& local = nodes[k];
    const auto& next = nodes[(k + 1) % m];
    const int per = static_cast<int>(local.size());
    for (int j = 0; j < per; ++j) {
      if (per > 1) flows.push_back({local[j], local[(j + 1) % per], v * double(per - 1) / per});
      flows.push_back({local[j], next[j % next.size()], v / double(per)});
    }
  }
  return flows;
}

}  // namespace pf

#include "sim/collectives/ring.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace pf {

Bytes RingBytesPerGpu(CollectiveKind kind, int n, Bytes size) {
  if (n <= 1) return Bytes(0);
  double f = double(n - 1) / n;
  return size * (kind == CollectiveKind::kAllReduce ? 2 * f : f);
}

std::vector<Flow> RingFlows(CollectiveKind kind, const std::vector<int>& group,
                            int gpus_per_node, Bytes size) {
  const int n = static_cast<int>(group.size());
  std::vector<Flow> flows;
  if (n <= 1) return flows;
  const Bytes v = RingBytesPerGpu(kind, n, size);
  std::map<int, std::vector<int>> by_node;
  for (int g : group) by_node[g / gpus_per_node].push_back(g);
  if (by_node.size() == 1) {
    for (int i = 0; i < n; ++i) flows.push_back({group[i], group[(i + 1) % n], v});
    return flows;
  }
  std::vector<std::vector<int>> nodes;
  for (auto& [_, members] : by_node) nodes.push_back(members);
  const int m = static_cast<int>(nodes.size());
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

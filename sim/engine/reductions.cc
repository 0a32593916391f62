#include "sim/engine/reductions.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "sim/engine/engine.h"

namespace pf {

namespace {

// See reductions.h: NVLink carries only collectives of one fixed set of
// GPUs per node, each inside its node, and no send between GPUs of a node.
bool NvlinkCarriesOneGroupPerNode(const Scenario& s, const preflight::Workload& w) {
  const NodeSpec& n = s.cluster.node;
  if (n.intra_kind != IntraKind::kNvswitch) return false;
  const int g = n.gpus_per_node;
  std::vector<std::vector<int>> set_of_node(s.cluster.nodes);
  std::vector<int> group, nodes;
  for (const preflight::Task& t : w.tasks()) {
    if (t.has_transfer()) {
      const auto& x = t.transfer();
      for (uint64_t l = 0; l < std::max<uint32_t>(1, x.lanes()); ++l) {
        const uint64_t src = x.src_gpu() + l * x.lane_stride(), dst = x.dst_gpu() + l * x.lane_stride();
        if (src != dst && src / g == dst / g) return false;
      }
    }
    if (!t.has_collective()) continue;
    const auto& c = t.collective();
    for (uint64_t l = 0; l < std::max<uint32_t>(1, c.lanes()); ++l) {
      group.clear(), nodes.clear();
      for (uint32_t x : c.gpus()) {
        group.push_back(static_cast<int>(x + l * c.lane_stride()));
        nodes.push_back(group.back() / g);
      }
      if (group.size() < 2) continue;
      const int node = nodes.front();
      const bool one_node = std::all_of(nodes.begin(), nodes.end(), [&](int k) { return k == node; });
      std::sort(nodes.begin(), nodes.end());
      if (!one_node && std::adjacent_find(nodes.begin(), nodes.end()) == nodes.end()) continue;  // one GPU per node
      if (!one_node || node >= int(set_of_node.size())) return false;
      std::sort(group.begin(), group.end());
      if (set_of_node[node].empty()) set_of_node[node] = group;
      else if (set_of_node[node] != group) return false;
    }
  }
  return true;
}

}  // namespace

Reductions ExactReductions(const Scenario& s, const preflight::Workload& w, const NodeTopology& topo) {
  const char* full = std::getenv(kFullSimulationEnv);
  if (full && std::string(full) == "1") return {};
  // An oversubscribed leaf's uplinks carry every lane.
  const bool shared_uplinks = s.cluster.fabric.kind == FabricKind::kFatTree && Leaves(s.cluster) > 1;
  return {!shared_uplinks && topo.LanesIndependent(), NvlinkCarriesOneGroupPerNode(s, w)};
}

}  // namespace pf

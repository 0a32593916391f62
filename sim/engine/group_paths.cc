#include "sim/engine/group_paths.h"

#include <algorithm>
#include <map>

namespace pf {

GroupPaths PathsOf(const ClusterSpec& c, const NodeTopology& topo, const std::vector<int>& group) {
  const NodeSpec& n = c.node;
  const int g = n.gpus_per_node;
  std::vector<int> local;  // the group's GPUs on its first node, in group order
  for (int x : group)
    if (x / g == group.front() / g) local.push_back(x % g);
  GroupPaths p;
  // A group with one GPU per node moves nothing inside a node; its intra
  // rate is then that of one hop alone (GPU 0 to GPU 1, or its own PCIe).
  std::vector<Route> ring;
  for (size_t k = 0; local.size() > 1 && k < local.size(); ++k)
    ring.push_back(topo.GpuToGpu(local[k], local[(k + 1) % local.size()]));
  if (ring.empty()) ring.push_back(g > 1 ? topo.GpuToGpu(0, 1) : topo.GpuToCpu(0));
  p.intra = BytesPerSecond(topo.SharedRate(ring));
  p.intra_line = n.intra_kind == IntraKind::kNvswitch ? n.intra_bandwidth : p.intra;
  p.nvls = n.nvls;
  p.intra_hop = n.intra_latency;
  // One route per NIC the group's GPUs use (its first GPU there), all at once.
  std::map<int, int> first_on_nic;
  for (int i : local) first_on_nic.emplace(topo.NicOf(i), i);
  std::vector<Route> out;
  for (const auto& [_, i] : first_on_nic) out.push_back(topo.GpuToFabric(i));
  double inter = 0;
  for (double r : topo.SharedRates(out)) inter += r;
  p.inter = BytesPerSecond(inter);
  // The farthest hop between nodes next to each other in the ring: the NIC
  // latency covers the first switch, each further one adds its latency.
  std::vector<int> nodes;
  for (int x : group)
    if (nodes.empty() || nodes.back() != x / g) nodes.push_back(x / g);
  int hops = 1;
  for (size_t k = 0; nodes.size() > 1 && k < nodes.size(); ++k)
    hops = std::max(hops, SwitchHops(c, nodes[k], nodes[(k + 1) % nodes.size()]));
  p.inter_hop = n.nic_latency + c.fabric.switch_latency * double(hops - 1);
  return p;
}

GroupPaths PathsOf(const ClusterSpec& c, const std::vector<int>& group) {
  return PathsOf(c, NodeTopology(c.node), group);
}

}  // namespace pf

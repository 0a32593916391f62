#include "sim/engine/platform.h"

#include <algorithm>
#include <string>

#include "sim/collectives/nccl.h"
#include "sim/engine/node_topology.h"
#include "sim/spec/spec.h"

namespace pf {
namespace sg = simgrid::s4u;

namespace {

// One node: every link of its topology (node_topology.h) and a route
// between each pair of endpoints: GPU <-> GPU, GPU <-> CPU (host memory),
// GPU <-> the gateway to the fabric through its NIC.
void AddNodeElements(sg::NetZone* zone, const NodeSpec& n, const NodeTopology& topo, const std::string& p,
                     simgrid::kernel::routing::NetPoint* gw, Platform& out) {
  std::vector<sg::Host*> gpus;
  for (int i = 0; i < n.gpus_per_node; ++i) {
    gpus.push_back(zone->create_host(p + "gpu" + std::to_string(i), out.gpu_speed_flops)->seal());
    out.gpus.push_back(gpus.back());
  }
  sg::Host* cpu = zone->create_host(p + "cpu", 1e9)->seal();
  out.cpus.push_back(cpu);
  std::vector<sg::Link*> links;
  for (const NodeLink& l : topo.links())
    links.push_back(zone->create_link(p + l.name, l.bandwidth)->set_latency(l.latency)->seal());
  auto route = [&](const Route& r) {
    std::vector<sg::LinkInRoute> out;
    for (int l : r) out.emplace_back(links[l]);
    return out;
  };
  auto at = [](sg::Host* h) { return h->get_netpoint(); };
  for (int i = 0; i < n.gpus_per_node; ++i) {
    for (int j = 0; j < n.gpus_per_node; ++j)
      if (i != j) zone->add_route(at(gpus[i]), at(gpus[j]), nullptr, nullptr, route(topo.GpuToGpu(i, j)), false);
    zone->add_route(at(gpus[i]), at(cpu), nullptr, nullptr, route(topo.GpuToCpu(i)), false);
    zone->add_route(at(cpu), at(gpus[i]), nullptr, nullptr, route(topo.CpuToGpu(i)), false);
    zone->add_route(at(gpus[i]), gw, nullptr, nullptr, route(topo.GpuToFabric(i)), false);
    zone->add_route(gw, at(gpus[i]), nullptr, nullptr, route(topo.FabricToGpu(i)), false);
  }
}

// One node: its GPUs, their links, its NICs and a gateway router.
sg::NetZone* BuildNode(sg::NetZone* cluster, const Scenario& s, const NodeTopology& topo, int k,
                       Platform& out, simgrid::kernel::routing::NetPoint** gateway) {
  const std::string p = "n" + std::to_string(k) + "_";
  sg::NetZone* zone = sg::create_full_zone(p + "zone");
  zone->set_parent(cluster);
  *gateway = zone->create_router(p + "gw");
  AddNodeElements(zone, s.cluster.node, topo, p, *gateway, out);
  zone->seal();
  return zone;
}

}  // namespace

Platform BuildPlatform(const Scenario& s) {
  Platform out;
  out.gpu_speed_flops = PeakFlops(s.cluster.node.gpu, s.training.precision).value();
  sg::NetZone* cluster = sg::create_star_zone("cluster");
  const NodeTopology topo(s.cluster.node);
  // The crossbar itself is non-blocking; a fat pipe per node stands for it.
  for (int k = 0; k < s.cluster.nodes; ++k) {
    simgrid::kernel::routing::NetPoint* gw = nullptr;
    sg::NetZone* node = BuildNode(cluster, s, topo, k, out, &gw);
    sg::Link* backbone = cluster->create_link("n" + std::to_string(k) + "_fabric", 1e15)
                             ->set_sharing_policy(sg::Link::SharingPolicy::FATPIPE)
                             ->seal();
    cluster->add_route(node->get_netpoint(), nullptr, gw, nullptr, {sg::LinkInRoute(backbone)}, true);
  }
  out.timer = cluster->create_host("timer", Platform::kTimerSpeed)->set_core_count(1 << 30)->seal();
  cluster->seal();
  return out;
}

}  // namespace pf

#include "sim/engine/platform.h"

#include <algorithm>
#include <string>

#include <simgrid/kernel/routing/NetZoneImpl.hpp>

#include "sim/collectives/nccl.h"
#include "sim/engine/node_topology.h"
#include "sim/spec/spec.h"

namespace pf {
namespace sg = simgrid::s4u;
namespace kernel = simgrid::kernel::routing;

namespace {

// One node: every link of its topology (node_topology.h), created in
// `links_zone` (the cluster's: SimGrid 3.32 checks a new link's name
// against every zone below the one it is created in, which made the
// 2,048-node platform take 30 s to build when each node's zone held its
// links; see also BuildPlatform), and a route
// between each pair of endpoints: GPU <-> GPU, GPU <-> CPU (host memory),
// GPU <-> the gateway to the fabric through its NIC.
void AddNodeElements(sg::NetZone* zone, sg::NetZone* links_zone, const ClusterSpec& c, const NodeTopology& topo,
                     const std::string& p, simgrid::kernel::routing::NetPoint* gw, Platform& out) {
  const NodeSpec& n = c.node;
  std::vector<sg::Host*> gpus;
  for (int i = 0; i < n.gpus_per_node; ++i) {
    gpus.push_back(zone->create_host(p + "gpu" + std::to_string(i), out.gpu_speed_flops)->seal());
    out.gpus.push_back(gpus.back());
  }
  sg::Host* cpu = zone->create_host(p + "cpu", Platform::kCpuSpeed * n.cpu.core_speed)
                     ->set_core_count(std::max(1, n.cpu.cores))
                     ->seal();
  out.cpus.push_back(cpu);
  std::vector<sg::Link*> links;
  for (const NodeLink& l : topo.links())
    links.push_back(links_zone->create_link(p + l.name, l.bandwidth)->set_latency(l.latency)->seal());
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
  zone->add_route(at(cpu), gw, nullptr, nullptr, route(topo.CpuToFabric()), false);
  zone->add_route(gw, at(cpu), nullptr, nullptr, route(topo.FabricToCpu()), false);
  // Local storage tiers: media hosts beside host memory (Platform::local_media).
  for (const StorageTier& t : c.storage) {
    if (t.shared()) continue;
    sg::Host* media = zone->create_host(p + t.name, 1e9)->seal();
    sg::Link* read = links_zone->create_link(p + t.name + "_read", t.read.value())->seal();
    sg::Link* write = links_zone->create_link(p + t.name + "_write", t.write.value())->seal();
    zone->add_route(at(media), at(cpu), nullptr, nullptr, {sg::LinkInRoute(read)}, false);
    zone->add_route(at(cpu), at(media), nullptr, nullptr, {sg::LinkInRoute(write)}, false);
    out.local_media[t.name].push_back(media);
  }
}

// One node: its GPUs, their links, its NICs and a gateway router.
sg::NetZone* BuildNode(sg::NetZone* cluster, sg::NetZone* links_zone, const Scenario& s, const NodeTopology& topo, int k,
                       Platform& out, simgrid::kernel::routing::NetPoint** gateway) {
  const std::string p = "n" + std::to_string(k) + "_";
  sg::NetZone* zone = sg::create_full_zone(p + "zone");
  zone->set_parent(cluster);
  *gateway = zone->create_router(p + "gw");
  AddNodeElements(zone, links_zone, s.cluster, topo, p, *gateway, out);
  zone->seal();
  return zone;
}

// A zone of the fabric: a star whose members reach its centre over their
// own links and which reaches its parent's centre over `up` and `down`.
struct FabricZone {
  sg::NetZone* zone = nullptr;
  simgrid::kernel::routing::NetPoint* gw = nullptr;
};

// The gateway router sits in a zone of its own: SimGrid 3.32 resolves a
// route from a member zone to a router placed directly in their common
// zone with the zone's own id, which picks another member's links
// (measured: n0 -> n2 left through n1's uplink).
FabricZone MakeFabricZone(sg::NetZone* parent, const std::string& name) {
  FabricZone z;
  z.zone = sg::create_star_zone(name);
  z.zone->set_parent(parent);
  sg::NetZone* sw = sg::create_full_zone(name + "_switch");
  sw->set_parent(z.zone);
  z.gw = sw->create_router(name + "_gw");
  sw->seal();
  z.zone->add_route(sw->get_netpoint(), nullptr, z.gw, nullptr, {}, true);
  return z;
}

// Attaches `child` (a zone with gateway `gw`) to the centre of `parent`
// over an up and a down link of `bytes_per_s` (FATPIPE when non-blocking).
void Attach(sg::NetZone* parent, sg::NetZone* child, simgrid::kernel::routing::NetPoint* gw,
            const std::string& name, double bytes_per_s, double latency_s, bool non_blocking) {
  auto link = [&](const std::string& dir) {
    sg::Link* l = parent->create_link(name + dir, bytes_per_s)->set_latency(latency_s);
    if (non_blocking) l->set_sharing_policy(sg::Link::SharingPolicy::FATPIPE);
    return l->seal();
  };
  parent->add_route(child->get_netpoint(), nullptr, gw, nullptr, {sg::LinkInRoute(link("_up"))}, false);
  parent->add_route(nullptr, child->get_netpoint(), nullptr, gw, {sg::LinkInRoute(link("_down"))}, false);
}

// Shared tiers: a zone on the fabric's core holding the servers, each
// behind its media and its own NIC (local tiers are in the nodes).
void AddStorage(sg::NetZone* cluster, const ClusterSpec& c, Platform& out) {
  for (const StorageTier& t : c.storage) {
    if (!t.shared()) continue;
    const std::string name = "storage_" + t.name;
    FabricZone z = MakeFabricZone(cluster, name);
    for (int k = 0; k < t.servers; ++k) {
      const std::string sn = name + "_server" + std::to_string(k);
      sg::NetZone* server_zone = sg::create_full_zone(sn + "_zone");
      server_zone->set_parent(z.zone);
      simgrid::kernel::routing::NetPoint* gw = server_zone->create_router(sn + "_gw");
      sg::Host* host = server_zone->create_host(sn, 1e9)->seal();
      const double nic = t.network.value() * NicEfficiency();
      // In the cluster's zone, as node links (see AddNodeElements).
      sg::Link* read = cluster->create_link(sn + "_read", t.read.value())->seal();
      sg::Link* write = cluster->create_link(sn + "_write", t.write.value())->seal();
      sg::Link* out_link = cluster->create_link(sn + "_nic_out", nic)->set_latency(t.latency.value())->seal();
      sg::Link* in_link = cluster->create_link(sn + "_nic_in", nic)->seal();
      server_zone->add_route(host->get_netpoint(), gw, nullptr, nullptr,
                             {sg::LinkInRoute(read), sg::LinkInRoute(out_link)}, false);
      server_zone->add_route(gw, host->get_netpoint(), nullptr, nullptr,
                             {sg::LinkInRoute(in_link), sg::LinkInRoute(write)}, false);
      server_zone->seal();
      Attach(z.zone, server_zone, gw, sn + "_port", 1e15, 0, true);
      out.servers[t.name].push_back({host});
    }
    z.zone->seal();
    Attach(cluster, z.zone, z.gw, name, 1e15, c.fabric.switch_latency.value(), true);
  }
}

}  // namespace

Platform BuildPlatform(const Scenario& s) {
  const ClusterSpec& c = s.cluster;
  Platform out;
  out.gpu_speed_flops = PeakFlops(c.node.gpu, s.training.precision).value();
  // SimGrid 3.32 checks each new host's and link's name, and finds a
  // sealed zone's hosts, by walking every zone attached to the root zone:
  // a platform built in place costs zones x (hosts + links), 3 s at 2,048
  // nodes. The cluster is built apart from the root (its zone holds the
  // root's models, as set_parent would copy them) and attached when
  // complete; the root holds nothing else, so no route crosses it.
  sg::NetZone* root = sg::create_full_zone("world");
  sg::NetZone* cluster = sg::create_star_zone("cluster");
  kernel::NetZoneImpl* from = root->get_impl();
  kernel::NetZoneImpl* to = cluster->get_impl();
  to->set_network_model(from->get_network_model());
  to->set_cpu_pm_model(from->get_cpu_pm_model());
  to->set_cpu_vm_model(from->get_cpu_vm_model());
  to->set_disk_model(from->get_disk_model());
  to->set_host_model(from->get_host_model());
  const NodeTopology topo(c.node);
  // Nodes sit in leaves of NodesPerLeaf (spec.h; LeafOf places them); leaves in pods of
  // LeavesPerPod under the cluster's (non-blocking) core. A level with a
  // single member is left out. A fat-tree leaf reaches the spines over
  // LeafUplinks ports shared by its nodes; everything above is
  // non-blocking. Each switch beyond the first adds switch_latency, paid
  // on the way up and on the way down.
  const int leaves = Leaves(c);
  const int per_pod = LeavesPerPod(c), pods = (leaves + per_pod - 1) / per_pod;
  const double hop = c.fabric.switch_latency.value();
  const bool oversubscribed = c.fabric.kind == FabricKind::kFatTree;
  const double uplink =
      LeafUplinks(c) * c.node.nic_bandwidth.value() * AchievedNicFraction(c.node);
  std::vector<FabricZone> pod_zones, leaf_zones;
  for (int p = 0; p < pods && pods > 1; ++p) {
    pod_zones.push_back(MakeFabricZone(cluster, "pod" + std::to_string(p)));
    Attach(cluster, pod_zones.back().zone, pod_zones.back().gw, "pod" + std::to_string(p), 1e15, hop, true);
  }
  for (int l = 0; l < leaves && leaves > 1; ++l) {
    sg::NetZone* parent = pods > 1 ? pod_zones[l / per_pod].zone : cluster;
    leaf_zones.push_back(MakeFabricZone(parent, "leaf" + std::to_string(l)));
    Attach(parent, leaf_zones.back().zone, leaf_zones.back().gw, "leaf" + std::to_string(l),
           oversubscribed ? uplink : 1e15, hop, !oversubscribed);
  }
  for (int k = 0; k < c.nodes; ++k) {
    sg::NetZone* parent = leaves > 1 ? leaf_zones[LeafOf(c, k)].zone : cluster;
    simgrid::kernel::routing::NetPoint* gw = nullptr;
    sg::NetZone* node = BuildNode(parent, cluster, s, topo, k, out, &gw);
    // Inside a leaf the switch is non-blocking; a fat pipe stands for it.
    Attach(parent, node, gw, "n" + std::to_string(k) + "_fabric", 1e15, 0, true);
  }
  AddStorage(cluster, c, out);
  for (auto& z : leaf_zones) z.zone->seal();
  for (auto& z : pod_zones) z.zone->seal();
  out.timer = cluster->create_host("timer", Platform::kTimerSpeed)->set_core_count(1 << 30)->seal();
  cluster->set_parent(root);
  root->seal();  // and the cluster in it
  return out;
}

}  // namespace pf

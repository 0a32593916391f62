#include "sim/engine/platform.h"

#include <algorithm>
#include <string>

#include "sim/collectives/nccl.h"
#include "sim/engine/group_paths.h"
#include "sim/spec/spec.h"

namespace pf {
namespace sg = simgrid::s4u;

namespace {

sg::Link* MakeLink(sg::NetZone* zone, const std::string& name, double bytes_per_s, double latency_s) {
  return zone->create_link(name, bytes_per_s)->set_latency(latency_s)->seal();
}

// The hosts and links of one node, created in this order: GPUs with their
// PCIe (and NVLink) ports, NICs, the CPU host, the PCIe root complex.
struct NodeElements {
  std::vector<sg::Host*> gpus;
  std::vector<sg::Link*> intra_out, intra_in, pcie_out, pcie_in, nic_out, nic_in;
  std::vector<sg::Link*> staging_out, staging_in;  // without GPUDirect RDMA, per NIC
  sg::Host* cpu = nullptr;
  sg::Link* root_complex = nullptr;  // PCIe nodes only
};

NodeElements MakeNodeElements(sg::NetZone* zone, const NodeSpec& n, const std::string& p,
                              Platform& out) {
  NodeElements e;
  const double intra_eff =
      n.intra_kind == IntraKind::kNvswitch ? NvlinkEfficiency(n.nvlink_gen) : PcieEfficiency();
  // On PCIe nodes the interconnect is the GPU's own PCIe link, which also
  // carries its host and NIC traffic.
  const double pcie_bw = (n.intra_kind == IntraKind::kPcie ? n.intra_bandwidth : n.host_link_bandwidth)
                             .value() * PcieEfficiency();
  for (int i = 0; i < n.gpus_per_node; ++i) {
    std::string gi = p + "gpu" + std::to_string(i);
    e.gpus.push_back(zone->create_host(gi, out.gpu_speed_flops)->seal());
    e.pcie_out.push_back(MakeLink(zone, gi + "_pcie_out", pcie_bw, n.host_link_latency.value()));
    e.pcie_in.push_back(MakeLink(zone, gi + "_pcie_in", pcie_bw, n.host_link_latency.value()));
    if (n.intra_kind == IntraKind::kNvswitch) {
      double bw = n.intra_bandwidth.value() * intra_eff;
      e.intra_out.push_back(MakeLink(zone, gi + "_nvl_out", bw, n.intra_latency.value()));
      e.intra_in.push_back(MakeLink(zone, gi + "_nvl_in", bw, 0));
    }
    out.gpus.push_back(e.gpus.back());
  }
  for (int r = 0; r < n.nics; ++r) {
    double bw = n.nic_bandwidth.value() * AchievedNicFraction(n);
    std::string nr = p + "nic" + std::to_string(r);
    e.nic_out.push_back(MakeLink(zone, nr + "_out", bw, n.nic_latency.value()));
    e.nic_in.push_back(MakeLink(zone, nr + "_in", bw, 0));
    if (!n.gpudirect_rdma) {
      const double staging = HostStagingBandwidth().value();
      e.staging_out.push_back(MakeLink(zone, nr + "_staging_out", staging, n.host_link_latency.value()));
      e.staging_in.push_back(MakeLink(zone, nr + "_staging_in", staging, n.host_link_latency.value()));
    }
  }
  // The node's host: a CPU with host memory, reached over each GPU's PCIe.
  e.cpu = zone->create_host(p + "cpu", 1e9)->seal();
  out.cpus.push_back(e.cpu);
  if (n.intra_kind == IntraKind::kPcie)
    e.root_complex = MakeLink(zone, p + "root_complex",
                              n.root_complex_bandwidth.value() * PcieEfficiency(), n.intra_latency.value());
  return e;
}

// GPU <-> GPU over NVSwitch (or PCIe through the root complex), GPU <-> CPU
// over the GPU's PCIe, GPU <-> gateway over its PCIe and its rail's NIC.
void AddNodeRoutes(sg::NetZone* zone, const NodeSpec& n, const NodeElements& e,
                   simgrid::kernel::routing::NetPoint* gw) {
  const int g = n.gpus_per_node;
  auto at = [](sg::Host* h) { return h->get_netpoint(); };
  for (int i = 0; i < g; ++i) {
    for (int j = 0; j < g; ++j) {
      if (i == j) continue;
      std::vector<sg::LinkInRoute> route;
      if (n.intra_kind == IntraKind::kNvswitch)
        route = {sg::LinkInRoute(e.intra_out[i]), sg::LinkInRoute(e.intra_in[j])};
      else
        route = {sg::LinkInRoute(e.pcie_out[i]), sg::LinkInRoute(e.root_complex),
                 sg::LinkInRoute(e.pcie_in[j])};
      zone->add_route(at(e.gpus[i]), at(e.gpus[j]), nullptr, nullptr, route, false);
    }
    zone->add_route(at(e.cpu), at(e.gpus[i]), nullptr, nullptr, {sg::LinkInRoute(e.pcie_in[i])}, false);
    zone->add_route(at(e.gpus[i]), at(e.cpu), nullptr, nullptr, {sg::LinkInRoute(e.pcie_out[i])}, false);
    // To and from the fabric: the GPU's PCIe, then (without GPUDirect
    // RDMA) the proxy's copy through host memory, then its rail's NIC.
    const int rail = i * n.nics / g;
    std::vector<sg::LinkInRoute> out = {sg::LinkInRoute(e.pcie_out[i])}, in = {sg::LinkInRoute(e.nic_in[rail])};
    if (!n.gpudirect_rdma) {
      out.push_back(sg::LinkInRoute(e.staging_out[rail]));
      in.push_back(sg::LinkInRoute(e.staging_in[rail]));
    }
    out.push_back(sg::LinkInRoute(e.nic_out[rail]));
    in.push_back(sg::LinkInRoute(e.pcie_in[i]));
    zone->add_route(at(e.gpus[i]), gw, nullptr, nullptr, out, false);
    zone->add_route(gw, at(e.gpus[i]), nullptr, nullptr, in, false);
  }
}

// One node: its GPUs, their links, its NICs and a gateway router.
sg::NetZone* BuildNode(sg::NetZone* cluster, const Scenario& s, int k, Platform& out,
                       simgrid::kernel::routing::NetPoint** gateway) {
  const std::string p = "n" + std::to_string(k) + "_";
  sg::NetZone* zone = sg::create_full_zone(p + "zone");
  zone->set_parent(cluster);
  *gateway = zone->create_router(p + "gw");
  const NodeElements e = MakeNodeElements(zone, s.cluster.node, p, out);
  AddNodeRoutes(zone, s.cluster.node, e, *gateway);
  zone->seal();
  return zone;
}

}  // namespace

Platform BuildPlatform(const Scenario& s) {
  Platform out;
  out.gpu_speed_flops = PeakFlops(s.cluster.node.gpu, s.training.precision).value();
  sg::NetZone* cluster = sg::create_star_zone("cluster");
  // The crossbar itself is non-blocking; a fat pipe per node stands for it.
  for (int k = 0; k < s.cluster.nodes; ++k) {
    simgrid::kernel::routing::NetPoint* gw = nullptr;
    sg::NetZone* node = BuildNode(cluster, s, k, out, &gw);
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

#include "sim/engine/node_topology.h"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>

#include "sim/collectives/nccl.h"
#include "sim/spec/validate.h"

namespace pf {

double AchievedNicFraction(const NodeSpec& n) {
  return n.nic_kind == NicKind::kTcp ? TcpSocketEfficiency() : NicEfficiency();
}

int NodeTopology::Add(const std::string& name, double bandwidth, double latency) {
  links_.push_back({name, bandwidth, latency});
  return static_cast<int>(links_.size()) - 1;
}

NodeTopology::NodeTopology(const NodeSpec& n) : n_(n) {
  if (auto e = CheckNodeTopology(n)) throw std::invalid_argument(e->key + ": " + e->message);
  const PcieSpec& p = n.pcie;
  const int g = n.gpus_per_node;
  const double pcie = PcieLinkRate(p.gen, p.lanes).value() * PcieEfficiency();
  gpu_switch_.assign(g, -1);
  nic_switch_.assign(n.nics, -1);
  for (int s = 0; s < static_cast<int>(p.switches.size()); ++s) {
    for (int i : p.switches[s].gpus) gpu_switch_[i] = s;
    for (int r : p.switches[s].nics) nic_switch_[r] = s;
  }
  // Without a switch a device sits on a root port; GPUs and NICs are then
  // spread over the sockets in order.
  for (int i = 0; i < g; ++i)
    gpu_socket_.push_back(gpu_switch_[i] >= 0 ? p.switches[gpu_switch_[i]].socket : i * p.sockets / g);
  for (int r = 0; r < n.nics; ++r)
    nic_socket_.push_back(nic_switch_[r] >= 0 ? p.switches[nic_switch_[r]].socket
                                               : r * p.sockets / std::max(1, n.nics));
  for (int i = 0; i < g; ++i) {
    int nic = i * n.nics / g;
    if (gpu_switch_[i] >= 0) {
      const PcieSwitch& sw = p.switches[gpu_switch_[i]];
      if (!sw.nics.empty()) {
        const int pos = static_cast<int>(std::find(sw.gpus.begin(), sw.gpus.end(), i) - sw.gpus.begin());
        nic = sw.nics[pos * sw.nics.size() / sw.gpus.size()];
      }
    }
    nic_of_.push_back(nic);
  }

  for (int i = 0; i < g; ++i) {
    const std::string gi = "gpu" + std::to_string(i);
    pcie_out_.push_back(Add(gi + "_pcie_out", pcie, p.latency.value()));
    pcie_in_.push_back(Add(gi + "_pcie_in", pcie, p.latency.value()));
    if (n.intra_kind == IntraKind::kNvswitch) {
      const double bw = n.intra_bandwidth.value() * NvlinkEfficiency(n.nvlink_gen);
      nvl_out_.push_back(Add(gi + "_nvl_out", bw, n.intra_latency.value()));
      nvl_in_.push_back(Add(gi + "_nvl_in", bw, 0));
    }
  }
  bridge_peer_.assign(g, -1);
  bridge_out_.assign(g, -1);
  for (const auto& [a, b] : n.bridges.pairs) {
    const double bw = n.bridges.bandwidth.value() * NvlinkEfficiency(n.nvlink_gen);
    bridge_peer_[a] = b, bridge_peer_[b] = a;
    bridge_out_[a] = Add("bridge" + std::to_string(a) + "_" + std::to_string(b), bw, n.intra_latency.value());
    bridge_out_[b] = Add("bridge" + std::to_string(b) + "_" + std::to_string(a), bw, n.intra_latency.value());
  }
  for (int r = 0; r < n.nics; ++r) {
    const std::string nr = "nic" + std::to_string(r);
    const double bw = n.nic_bandwidth.value() * AchievedNicFraction(n);
    nic_out_.push_back(Add(nr + "_out", bw, n.nic_latency.value()));
    nic_in_.push_back(Add(nr + "_in", bw, 0));
    if (!n.gpudirect_rdma) {
      const double staging = HostStagingBandwidth().value();
      staging_out_.push_back(Add(nr + "_staging_out", staging, p.latency.value()));
      staging_in_.push_back(Add(nr + "_staging_in", staging, p.latency.value()));
    }
  }
  const double uplink = PcieLinkRate(p.gen, p.uplink_lanes).value() * PcieEfficiency();
  for (size_t s = 0; s < p.switches.size(); ++s) {
    sw_up_.push_back(Add("switch" + std::to_string(s) + "_up", uplink, 0));
    sw_down_.push_back(Add("switch" + std::to_string(s) + "_down", uplink, 0));
  }
  if (!p.p2p)
    for (int s = 0; s < p.sockets; ++s)
      host_memory_.push_back(
          Add("socket" + std::to_string(s) + "_host_memory", p.host_memory.value(), n.intra_latency.value()));
  inter_socket_.assign(p.sockets, std::vector<int>(p.sockets, -1));
  for (int s = 0; s < p.sockets; ++s)
    for (int t = 0; t < p.sockets; ++t)
      if (s != t)
        inter_socket_[s][t] =
            Add("socket" + std::to_string(s) + "_to_" + std::to_string(t), p.inter_socket.value(), 0);
}

Route NodeTopology::Up(int sw) const { return sw < 0 ? Route{} : Route{sw_up_[sw]}; }
Route NodeTopology::Down(int sw) const { return sw < 0 ? Route{} : Route{sw_down_[sw]}; }
Route NodeTopology::Cross(int from, int to) const {
  return from == to ? Route{} : Route{inter_socket_[from][to]};
}

namespace {
void Append(Route& r, const Route& more) { r.insert(r.end(), more.begin(), more.end()); }
}  // namespace

Route NodeTopology::GpuToGpu(int i, int j) const {
  if (bridge_peer_[i] == j) return {bridge_out_[i]};
  if (n_.intra_kind == IntraKind::kNvswitch) return {nvl_out_[i], nvl_in_[j]};
  const int si = gpu_switch_[i], sj = gpu_switch_[j];
  if (n_.pcie.p2p && si >= 0 && si == sj) return {pcie_out_[i], pcie_in_[j]};
  Route r = {pcie_out_[i]};
  Append(r, Up(si));
  // Without peer-to-peer the bytes are staged in host memory (the
  // source's socket) and read from there.
  if (!n_.pcie.p2p) r.push_back(host_memory_[gpu_socket_[i]]);
  Append(r, Cross(gpu_socket_[i], gpu_socket_[j]));
  Append(r, Down(sj));
  r.push_back(pcie_in_[j]);
  return r;
}

// Host memory on GPU i's own socket (NUMA-local buffers).
Route NodeTopology::GpuToCpu(int i) const {
  Route r = {pcie_out_[i]};
  Append(r, Up(gpu_switch_[i]));
  return r;
}

Route NodeTopology::CpuToGpu(int i) const {
  Route r = Down(gpu_switch_[i]);
  r.push_back(pcie_in_[i]);
  return r;
}

Route NodeTopology::GpuToFabric(int i) const {
  const int nic = nic_of_[i], sg = gpu_switch_[i], sn = nic_switch_[nic];
  Route r = {pcie_out_[i]};
  if (n_.gpudirect_rdma) {
    if (sg < 0 || sg != sn) {
      Append(r, Up(sg));
      Append(r, Cross(gpu_socket_[i], nic_socket_[nic]));
      Append(r, Down(sn));
    }
  } else {
    // A CPU proxy copies into host memory (the GPU's socket), then the
    // NIC reads it from there.
    Append(r, Up(sg));
    r.push_back(staging_out_[nic]);
    Append(r, Cross(gpu_socket_[i], nic_socket_[nic]));
    Append(r, Down(sn));
  }
  r.push_back(nic_out_[nic]);
  return r;
}

Route NodeTopology::FabricToGpu(int i) const {
  const int nic = nic_of_[i], sg = gpu_switch_[i], sn = nic_switch_[nic];
  Route r = {nic_in_[nic]};
  if (n_.gpudirect_rdma) {
    if (sg < 0 || sg != sn) {
      Append(r, Up(sn));
      Append(r, Cross(nic_socket_[nic], gpu_socket_[i]));
      Append(r, Down(sg));
    }
  } else {
    Append(r, Up(sn));
    r.push_back(staging_in_[nic]);
    Append(r, Cross(nic_socket_[nic], gpu_socket_[i]));
    Append(r, Down(sg));
  }
  r.push_back(pcie_in_[i]);
  return r;
}

std::vector<double> NodeTopology::SharedRates(const std::vector<Route>& routes) const {
  std::map<int, int> users;
  for (const Route& r : routes)
    for (int l : r) ++users[l];
  std::vector<double> rates;
  for (const Route& r : routes) {
    double rate = std::numeric_limits<double>::infinity();
    for (int l : r) rate = std::min(rate, links_[l].bandwidth / users[l]);
    rates.push_back(rate);
  }
  return rates;
}

Route NodeTopology::CpuToFabric() const {
  Route r = Cross(0, nic_socket_[0]);
  Append(r, Down(nic_switch_[0]));
  r.push_back(nic_out_[0]);
  return r;
}

Route NodeTopology::FabricToCpu() const {
  Route r = {nic_in_[0]};
  Append(r, Up(nic_switch_[0]));
  Append(r, Cross(nic_socket_[0], 0));
  return r;
}

double NodeTopology::SharedRate(const std::vector<Route>& routes) const {
  const std::vector<double> rates = SharedRates(routes);
  return rates.empty() ? 0 : *std::min_element(rates.begin(), rates.end());
}

bool NodeTopology::LanesIndependent() const {
  if (n_.intra_kind != IntraKind::kNvswitch) return false;
  std::map<int, int> owner;  // link -> the GPU whose fabric routes use it
  for (int i = 0; i < n_.gpus_per_node; ++i)
    for (const Route& r : {GpuToFabric(i), FabricToGpu(i)})
      for (int l : r)
        if (!owner.emplace(l, i).second && owner[l] != i) return false;
  // Host-memory copies run on every GPU anyway; they must only keep off
  // the other GPUs' fabric routes.
  for (int i = 0; i < n_.gpus_per_node; ++i)
    for (const Route& r : {GpuToCpu(i), CpuToGpu(i)})
      for (int l : r)
        if (auto it = owner.find(l); it != owner.end() && it->second != i) return false;
  return true;
}

}  // namespace pf

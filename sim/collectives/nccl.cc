#include "sim/collectives/nccl.h"

#include <algorithm>
#include <cmath>

namespace pf {

// Ring all-reduce bus bandwidth for large messages over NVSwitch, per
// NVLink generation: 231.58 of 300 GB/s per direction on 8x A100 (NVLink 3;
// nccl_allreduce_1node.csv, 8 GiB) and 365.6 of 450 GB/s on 8x H200 with the
// ring algorithm (NVLink 4; nccl_misc.csv). Other generations: their mean
// (assumption: no measurement in tests/data/).
double NvlinkEfficiency(int generation) {
  constexpr double kGen3 = 0.772, kGen4 = 0.812;
  if (generation == 3) return kGen3;
  if (generation == 4) return kGen4;
  return (kGen3 + kGen4) / 2;
}
// Multi-node all-reduce: 192 of 200 GB/s per DGX A100 node (8x HDR, NVIDIA
// staff in NVIDIA/nccl issue 1576) and 84.8 of 100 GB/s (3 nodes, 4x HDR,
// NVIDIA/nccl-tests issue 119); mean of 0.96 and 0.848.
double NicEfficiency() { return (0.96 + 0.848) / 2; }
// NCCL over TCP sockets: 4-6 GB/s bus bandwidth on 100 Gb/s (12.5 GB/s)
// Ethernet, 4 nodes x 8 V100, the best settings (NVIDIA/nccl issue 450):
// 5 / 12.5. RoCE has no published figure in tests/data/: it takes
// InfiniBand's (assumption; RDMA over a lossless fabric either way).
double TcpSocketEfficiency() { return 5.0 / 12.5; }
// InfiniBand verbs without GPUDirect RDMA: about 6 GB/s of the 12 expected
// on 100 Gb/s (NVIDIA/nccl issue 465): the proxy's copy through host
// memory, not the wire, is the limit.
BytesPerSecond HostStagingBandwidth() { return BytesPerSecond(6e9); }
// Host-to-device copies (gpus.csv notes): 26 GB/s on A100 of PCIe 4.0
// x16's 31.51 GB/s per direction after 128b/130b encoding (spec.h
// PcieLinkRate), 51 on H100 of PCIe 5.0 x16's 63.02: 0.825 and 0.809.
double PcieEfficiency() {
  constexpr double kGen4x16 = 16.0 * 16 / 8 * 128 / 130, kGen5x16 = 2 * kGen4x16;  // GB/s
  return (26.0 / kGen4x16 + 51.0 / kGen5x16) / 2;
}

double NcclConstants::step_latency_s(Protocol p) const {
  switch (p) {
    case Protocol::kLL: return step_latency_ll_s;
    case Protocol::kLL128: return step_latency_ll128_s;
    case Protocol::kSimple: return step_latency_simple_s;
  }
  return step_latency_simple_s;
}

double NcclConstants::bandwidth(Protocol p) const {
  switch (p) {
    case Protocol::kLL: return ll_bandwidth;
    case Protocol::kLL128: return ll128_bandwidth;
    case Protocol::kSimple: return 1;
  }
  return 1;
}

bool Offers(Algorithm a, CollectiveKind kind, const GroupShape& shape, const GroupPaths& paths) {
  switch (a) {
    case Algorithm::kRing: return true;
    case Algorithm::kTree: return kind == CollectiveKind::kAllReduce && shape.nodes > 1;
    case Algorithm::kNvls:
      return kind == CollectiveKind::kAllReduce && shape.nodes == 1 && shape.ranks > 1 && paths.nvls;
  }
  return false;
}

namespace {

// Steps of one chunk's path: `intra` hops inside nodes and `inter` between
// them (NCCL's tuner counts them the same way, src/graph/tuning.cc).
struct Steps {
  double intra = 0, inter = 0;
};

Steps CountSteps(CollectiveKind kind, Algorithm a, const GroupShape& g) {
  const double n = g.ranks, m = g.nodes, k = g.per_node;
  if (kind == CollectiveKind::kSendRecv || kind == CollectiveKind::kAllToAll)
    return m > 1 ? Steps{0, 1} : Steps{1, 0};
  if (a == Algorithm::kTree)  // up the chain and the tree, then down
    return {2 * (k - 1), 2 * std::ceil(std::log2(m))};
  const double passes = kind == CollectiveKind::kAllReduce ? 2 : 1;
  const double inter = passes * (m - 1);
  return {passes * (n - 1) - inter, inter};
}

// Seconds the bus bytes take on the slowest class of link, uncontended
// (the flows of flows.h): inside one node each GPU sends its bus bytes to
// its neighbour; across nodes (per-1)/per of them, and the rest of the
// node's bus bytes go over its NICs.
double BandwidthSeconds(CollectiveKind kind, const GroupShape& g, const GroupPaths& p, Bytes size) {
  const double v = BusBytes(kind, g.ranks, size).value();
  if (g.nodes == 1) return v / p.intra.value();
  const double k = g.per_node;
  if (kind == CollectiveKind::kAllToAll) {  // S / n to each rank: k - 1 of them local, n - k remote
    const double n = g.ranks, s = size.value();
    return std::max(s * (k - 1) / n / p.intra.value(), k * s * (n - k) / n / p.inter.value());
  }
  return std::max(v * (k - 1) / k / p.intra.value(), v / p.inter.value());
}

}  // namespace

CollectivePlan ModelCollective(CollectiveKind kind, const GroupShape& shape, const GroupPaths& paths,
                               Bytes size, Algorithm a, Protocol p, const NcclConstants& c) {
  CollectivePlan plan;
  plan.algorithm = a;
  plan.protocol = p;
  if (shape.ranks <= 1) return plan;
  if (a == Algorithm::kNvls) {
    // Each GPU sends its S bytes to the switch and reads the reduced S back.
    plan.latency = Seconds(c.nvls_latency_s) + paths.intra_hop * 2;
    plan.bandwidth_factor = c.nvls_efficiency * paths.intra_line.value() / paths.intra.value();
    plan.time = plan.latency + Seconds(size.value() / (paths.intra_line.value() * c.nvls_efficiency));
    return plan;
  }
  const Steps s = CountSteps(kind, a, shape);
  const double step = c.step_latency_s(p);
  plan.latency = Seconds(s.intra * (step + paths.intra_hop.value()) + s.inter * (step + paths.inter_hop.value()));
  plan.bandwidth_factor = c.bandwidth(p) * (a == Algorithm::kTree ? c.tree_bandwidth : 1);
  plan.time = plan.latency + Seconds(BandwidthSeconds(kind, shape, paths, size) / plan.bandwidth_factor);
  return plan;
}

std::optional<CollectivePlan> PlanCollective(CollectiveKind kind, const GroupShape& shape,
                                             const GroupPaths& paths, Bytes size, const NcclConstants& c,
                                             std::optional<Algorithm> forced) {
  std::optional<CollectivePlan> best;
  for (Algorithm a : {Algorithm::kRing, Algorithm::kTree, Algorithm::kNvls}) {
    if ((forced && a != *forced) || !Offers(a, kind, shape, paths)) continue;
    for (Protocol p : {Protocol::kLL, Protocol::kLL128, Protocol::kSimple}) {
      if (a == Algorithm::kNvls && p != Protocol::kSimple) continue;
      CollectivePlan plan = ModelCollective(kind, shape, paths, size, a, p, c);
      if (!best || plan.time < best->time) best = plan;
    }
  }
  return best;
}

}  // namespace pf

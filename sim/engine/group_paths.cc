#include "sim/engine/group_paths.h"

#include <algorithm>

namespace pf {

GroupPaths PathsOf(const ClusterSpec& c, const std::vector<int>& group) {
  const NodeSpec& n = c.node;
  GroupPaths p;
  if (n.intra_kind == IntraKind::kNvswitch) {
    p.intra_line = n.intra_bandwidth;
    p.intra = n.intra_bandwidth * NvlinkEfficiency(n.nvlink_gen);
    p.nvls = n.nvls;
  } else {
    // GPU-to-GPU traffic crosses each GPU's PCIe link and the shared root
    // complex; a ring of k GPUs puts k flows on it.
    const double k = std::max<size_t>(1, std::min<size_t>(group.size(), n.gpus_per_node));
    p.intra_line = BytesPerSecond(std::min(n.intra_bandwidth.value(), n.root_complex_bandwidth.value() / k));
    p.intra = p.intra_line * PcieEfficiency();
  }
  p.intra_hop = n.intra_latency;
  std::vector<bool> rail(n.nics, false);
  int rails = 0;
  for (int g : group) {
    const int r = (g % n.gpus_per_node) * n.nics / n.gpus_per_node;
    if (!rail[r]) rail[r] = true, ++rails;
  }
  // Per NIC: its achieved rate, or the proxy's copy rate when slower.
  double per_nic = n.nic_bandwidth.value() * AchievedNicFraction(n);
  if (!n.gpudirect_rdma) per_nic = std::min(per_nic, HostStagingBandwidth().value());
  p.inter = BytesPerSecond(per_nic * std::max(1, rails));
  p.inter_hop = n.nic_latency;
  return p;
}

double AchievedNicFraction(const NodeSpec& n) {
  return n.nic_kind == NicKind::kTcp ? TcpSocketEfficiency() : NicEfficiency();
}

}  // namespace pf

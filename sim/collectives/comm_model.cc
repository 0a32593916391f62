#include "sim/collectives/comm_model.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace pf {

double RingBytesPerGpu(CollectiveKind kind, int n, double size_bytes) {
  if (n <= 1) return 0;
  double f = double(n - 1) / n;
  return (kind == CollectiveKind::kAllReduce ? 2 * f : f) * size_bytes;
}

std::vector<Flow> RingFlows(CollectiveKind kind, const std::vector<int>& group,
                            int gpus_per_node, double size_bytes) {
  const int n = static_cast<int>(group.size());
  std::vector<Flow> flows;
  if (n <= 1) return flows;
  const double v = RingBytesPerGpu(kind, n, size_bytes);
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
      if (per > 1) flows.push_back({local[j], local[(j + 1) % per], v * (per - 1) / per});
      flows.push_back({local[j], next[j % next.size()], v / per});
    }
  }
  return flows;
}

// Ring all-reduce bus bandwidth for large messages over NVSwitch: 231.58 of
// 300 GB/s per direction on 8x A100 (nccl_allreduce_1node.csv, 8 GiB) and
// 365.6 of 450 GB/s on 8x H100/H200 with the ring algorithm
// (nccl_misc.csv); mean of 0.772 and 0.812. NVLS in-switch reduction
// (~473 GB/s on H100) is not modelled.
double NvlinkEfficiency() { return (0.772 + 0.812) / 2; }
// Multi-node all-reduce: 192 of 200 GB/s per DGX A100 node (8x HDR, NVIDIA
// staff in NVIDIA/nccl issue 1576) and 84.8 of 100 GB/s (3 nodes, 4x HDR,
// NVIDIA/nccl-tests issue 119); mean of 0.96 and 0.848.
double NicEfficiency() { return (0.96 + 0.848) / 2; }
// Host-to-device copies: 26 of 32 GB/s on A100 (PCIe 4.0 x16) and 51 of
// 64 GB/s on H100 (PCIe 5.0) (gpus.csv notes): 0.81 and 0.80.
double PcieEfficiency() { return (26.0 / 32 + 51.0 / 64) / 2; }

// Fitted jointly with the training kernel efficiency (compute_model.cc)
// over the ten reference rows; it matters only where collectives overlap
// compute (DDP/FSDP/ZeRO buckets), i.e. the llm-foundry rows. Plausible on
// its face: NCCL runs one thread block per channel, and 8-16 channels on
// A100's 108 SMs is 7-15% of the GPU.
double NcclComputeShare() { return 0.10; }

double MessageSizePenalty(double message_bytes, int ranks) {
  // NCCL's ring moves message/ranks bytes per step, so efficiency follows the
  // per-step chunk: a message on `ranks` GPUs behaves like message x 8/ranks
  // on the 8-GPU curve below (a point-to-point send is one chunk: ranks = 1).
  message_bytes *= 8.0 / std::max(1, ranks);
  // nccl_allreduce_1node.csv bus bandwidth at each size divided by the
  // 8 GiB figure, averaged over the A100 and H100 systems:
  // A100 .156 .389 .573 .752 .957 .985 1; H100 .091 .359 .617 .837 .916 .974 1.
  static const double kSize[] = {1e6, 8e6, 33e6, 134e6, 536e6, 1073741824.0, 8589934592.0};
  static const double kShape[] = {0.124, 0.374, 0.595, 0.795, 0.936, 0.979, 1.0};
  constexpr int kN = 7;
  if (message_bytes <= 0) return 1;
  if (message_bytes <= kSize[0]) {
    // Below 1 MB time is latency-bound: keep the 1 MB time.
    return (kSize[0] / message_bytes) / kShape[0];
  }
  if (message_bytes >= kSize[kN - 1]) return 1;
  int i = 0;
  while (message_bytes > kSize[i + 1]) ++i;
  double x = std::log(message_bytes / kSize[i]) / std::log(kSize[i + 1] / kSize[i]);
  return 1 / (kShape[i] + x * (kShape[i + 1] - kShape[i]));
}

}  // namespace pf

#include "sim/collectives/nccl.h"

#include <algorithm>
#include <cmath>

namespace pf {

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

double MessageSizePenalty(Bytes message, int ranks) {
  double message_bytes = message.value();
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

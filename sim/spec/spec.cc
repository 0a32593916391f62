#include "sim/spec/spec.h"

#include <algorithm>

namespace pf {

FlopsPerSecond PeakFlops(const GpuSpec& g, Precision p) {
  switch (p) {
    case Precision::kBf16: return g.peak_bf16;
    case Precision::kFp16: return g.peak_fp16;
    case Precision::kFp8: return g.peak_fp8;
  }
  return g.peak_bf16;
}

NodeSpec WithGpus(NodeSpec n, int gpus) {
  n.gpus_per_node = gpus;
  for (PcieSwitch& sw : n.pcie.switches)
    sw.gpus.erase(std::remove_if(sw.gpus.begin(), sw.gpus.end(), [&](int g) { return g >= gpus; }),
                  sw.gpus.end());
  auto& pairs = n.bridges.pairs;
  pairs.erase(std::remove_if(pairs.begin(), pairs.end(),
                             [&](const auto& p) { return p.first >= gpus || p.second >= gpus; }),
              pairs.end());
  return n;
}

BytesPerSecond PcieLinkRate(int gen, int lanes) {
  // Transfer rate per lane (GT/s) by generation, PCI-SIG specifications.
  static const double kGtPerS[] = {0, 2.5, 5, 8, 16, 32, 64};
  const int g = gen < 1 ? 1 : gen > 6 ? 6 : gen;
  const double encoding = g <= 2 ? 8.0 / 10 : 128.0 / 130;
  return BytesPerSecond(kGtPerS[g] * 1e9 * encoding / 8 * lanes);
}

}  // namespace pf

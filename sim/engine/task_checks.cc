#include "sim/engine/task_checks.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace pf {
namespace {

// At most how much a protocol's bandwidth factor inflates a flow's bytes
// (LL on a tree: 1 / (0.5 x 0.92); collectives/nccl.h).
constexpr double kMaxBandwidthInflation = 4;

// The lanes task i runs (0 counts as 1); throws std::invalid_argument
// unless they are apart (a stride) and fit the cluster's GPUs.
uint64_t CheckLanes(int i, uint32_t lanes, uint32_t stride, uint64_t width, const Platform& p) {
  const uint64_t n = std::max<uint32_t>(1, lanes);
  if ((n > 1 && stride == 0) || n * width > p.gpus.size())
    throw std::invalid_argument("workload task " + std::to_string(i) + ": " + std::to_string(lanes) +
                                " lanes of stride " + std::to_string(stride) + " do not fit the " +
                                std::to_string(p.gpus.size()) + " GPUs");
  return n;
}

}  // namespace

simgrid::s4u::Host* GpuOf(const Platform& p, uint64_t g) {
  if (g >= p.gpus.size())
    throw std::invalid_argument("workload names GPU " + std::to_string(g) + " but the cluster has " +
                                std::to_string(p.gpus.size()));
  return p.gpus[g];
}

void CheckTask(const preflight::Task& t, int i, const Platform& p) {
  auto bad = [&](const std::string& what) {
    throw std::invalid_argument("workload task " + std::to_string(i) + ": " + what);
  };
  auto finite = [&](double x, const char* what) {
    if (!std::isfinite(x) || x < 0) bad(std::string(what) + " " + std::to_string(x) + " is not finite and >= 0");
  };
  if (t.has_compute()) {
    GpuOf(p, t.compute().gpu());
    finite(t.compute().duration_s(), "duration_s");
    finite(t.compute().duration_s() * p.gpu_speed_flops, "duration_s x GPU speed");
  } else if (t.has_collective()) {
    const auto& c = t.collective();
    finite(c.size_bytes(), "size_bytes");
    if (!preflight::CollectiveKind_IsValid(c.kind())) bad("unknown collective kind " + std::to_string(c.kind()));
    const uint64_t lanes = CheckLanes(i, c.lanes(), c.lane_stride(), c.gpus_size(), p);
    for (uint32_t g : c.gpus()) GpuOf(p, g + (lanes - 1) * c.lane_stride());
    if (!preflight::Algorithm_IsValid(c.algorithm())) bad("unknown algorithm " + std::to_string(c.algorithm()));
    // A flow carries at most twice the buffer (all-reduce), at the slowest
    // protocol's bandwidth.
    const double most = 2 * c.size_bytes() * kMaxBandwidthInflation * std::max<uint32_t>(1, c.count());
    if (!(most <= kMaxFlowBytes)) bad("flows of up to " + std::to_string(most) + " bytes");
  } else if (t.has_transfer()) {
    const auto& x = t.transfer();
    finite(x.size_bytes(), "size_bytes");
    if (!(x.size_bytes() * kMaxBandwidthInflation <= kMaxFlowBytes))
      bad("a flow of " + std::to_string(x.size_bytes()) + " bytes");
    const uint64_t lanes = CheckLanes(i, x.lanes(), x.lane_stride(), 2, p);
    GpuOf(p, x.src_gpu() + (lanes - 1) * x.lane_stride());
    GpuOf(p, x.dst_gpu() + (lanes - 1) * x.lane_stride());
  } else if (t.has_cpu()) {
    if (t.cpu().node() >= p.cpus.size())
      bad("node " + std::to_string(t.cpu().node()) + " but the cluster has " + std::to_string(p.cpus.size()));
    finite(t.cpu().core_seconds(), "core_seconds");
  } else if (t.has_io()) {
    GpuOf(p, t.io().gpu());
    finite(t.io().size_bytes(), "size_bytes");
    if (!(t.io().size_bytes() <= kMaxFlowBytes)) bad("a flow of " + std::to_string(t.io().size_bytes()) + " bytes");
  }
}

}  // namespace pf

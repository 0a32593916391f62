// Rank layout (Megatron order): GPU = t + tp * (d + dp * p) for TP rank t,
// DP rank d, pipeline stage p. The TP ranks of a group do identical work in
// lock step, so only TP rank 0 (the group's "worker") carries compute
// tasks; TP collectives span the whole group, and pipeline sends and DP
// collectives are issued once with lanes = tp.
#pragma once

#include <vector>

#include "sim/spec/spec.h"

namespace pf {

// Global GPU index of (tp rank, dp rank, stage).
inline int GpuIndex(const ParallelSpec& p, int t, int d, int stage) {
  return t + p.tp * (d + p.dp * stage);
}

// The TP group of DP rank d on `stage`.
inline std::vector<int> TpGroup(const ParallelSpec& p, int d, int stage) {
  std::vector<int> g;
  for (int t = 0; t < p.tp; ++t) g.push_back(GpuIndex(p, t, d, stage));
  return g;
}

// Under context parallelism (ContextRankView: dp counts dp x cp ranks, a
// sequence's context_group ranks adjacent), the workers of DP rank d's
// sequence on `stage`: lane 0 of its CP group.
inline std::vector<int> CpGroup(const ParallelSpec& p, int d, int stage) {
  std::vector<int> g;
  const int n = p.context_group, first = d - d % n;
  for (int c = 0; c < n && n > 1; ++c) g.push_back(GpuIndex(p, 0, first + c, stage));
  return g;
}

// Expert parallelism (ParallelSpec ep, etp()): a stage's tp x dp GPUs, in
// order, as etp x ep x expert_dp. DP rank d's EP group spans the
// ep_workers() DP ranks of its block; lane 0 is its GPUs of expert-TP rank
// 0, one every etp, and the etp lanes are offset by 1.
struct LaneGroup {
  std::vector<int> gpus;
  int lanes = 1;
};
inline LaneGroup EpGroup(const ParallelSpec& p, int d, int stage) {
  LaneGroup g;
  const int first = d - d % p.ep_workers(), base = GpuIndex(p, 0, first, stage), etp = p.etp();
  for (int i = 0; i < p.ep; ++i) g.gpus.push_back(base + etp * i);
  g.lanes = etp;
  return g;
}
// The workers holding the same experts as DP rank d on `stage` (its
// expert-data-parallel group): every ep_workers()-th DP rank from d's place
// in its block; lanes tp.
inline std::vector<int> ExpertDpGroup(const ParallelSpec& p, int d, int stage) {
  std::vector<int> g;
  const int w = p.ep_workers();
  for (int r = d % w; r < p.dp; r += w) g.push_back(GpuIndex(p, 0, r, stage));
  return g;
}

// The workers (TP rank 0) of every DP rank on `stage`: lane 0 of its DP groups.
inline std::vector<int> DpGroup(const ParallelSpec& p, int stage) {
  std::vector<int> g;
  for (int d = 0; d < p.dp; ++d) g.push_back(GpuIndex(p, 0, d, stage));
  return g;
}

}  // namespace pf

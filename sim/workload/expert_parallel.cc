#include "sim/workload/expert_parallel.h"

#include "sim/workload/rank_layout.h"

namespace pf {

int ExpertExchange::After(int last, int d, const StageCost& c, bool forward, int chunk, int micro_batch, int j,
                          int count) {
  if (count <= 0) return kNoTask;
  const auto key = std::make_tuple(d / p_.ep_workers(), forward, chunk, micro_batch, j);
  auto it = tasks_.find(key);
  if (it == tasks_.end()) {
    const LaneGroup group = EpGroup(p_, d, stage_);
    const int x = g_.Collective(forward ? "ep_all_to_all_fwd" : "ep_all_to_all_bwd", preflight::EP_COMM,
                                preflight::ALL_TO_ALL, group.gpus, c.ep_bytes, count, group.lanes);
    it = tasks_.emplace(key, x).first;
  }
  g_.Dep(it->second, last);
  return it->second;
}

}  // namespace pf

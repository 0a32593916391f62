#include "sim/workload/context_exchange.h"

#include <string>

#include "sim/workload/rank_layout.h"

namespace pf {

int ContextExchange::During(int before, int d, const StageCost& c, bool forward, int chunk, int micro_batch, int j,
                            int count) {
  const auto key = std::make_tuple(d / p_.context_group, forward, chunk, micro_batch, j);
  auto it = tasks_.find(key);
  if (it == tasks_.end())
    it = tasks_
             .emplace(key, g_.Collective(std::string("cp_kv_") + (forward ? "fwd" : "bwd"), preflight::CP_COMM,
                                         preflight::ALL_GATHER, CpGroup(p_, d, stage_), c.cp_bytes, count, p_.tp))
             .first;
  g_.Dep(it->second, before);
  return it->second;
}

}  // namespace pf

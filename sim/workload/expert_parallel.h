// Expert parallelism's token all-to-alls of one pipeline stage (Megatron-
// Core's all-to-all dispatcher): after each compute segment of a mixture
// of experts, its dispatches and combines over the EP group, one task that
// every worker of the group waits for, and which waits for each of them.
// The stage emitter (stage_emitter.h) asks for them segment by segment.
#pragma once

#include <map>
#include <tuple>

#include "sim/spec/spec.h"
#include "sim/workload/stage_cost.h"
#include "sim/workload/task_graph.h"

namespace pf {

class ExpertExchange {
 public:
  ExpertExchange(TaskGraph& g, const Scenario& s, int stage) : g_(g), p_(s.parallel), stage_(stage) {}

  // The `count` all-to-alls after segment j of (forward or backward, chunk,
  // micro-batch) of DP rank d's worker, whose previous task is `last`: the
  // group's task, made by the first of its workers to get here; kNoTask
  // when count is 0.
  int After(int last, int d, const StageCost& c, bool forward, int chunk, int micro_batch, int j, int count);

 private:
  TaskGraph& g_;
  const ParallelSpec& p_;
  const int stage_;
  std::map<std::tuple<int, bool, int, int, int>, int> tasks_;  // (block, forward, chunk, micro-batch, j)
};

}  // namespace pf

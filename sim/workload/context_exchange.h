// Context parallelism's K/V exchanges of one pipeline stage: in each
// compute segment that holds attention, one all-gather of K and V over a
// sequence's CP ranks (Llama 3's all-gather; Megatron-Core's ring moves the
// same bytes), made once for the group, which waits for each of its
// workers to reach the segment and runs beside their compute. The stage
// emitter (stage_emitter.h) asks for it segment by segment.
#pragma once

#include <map>
#include <tuple>

#include "sim/spec/spec.h"
#include "sim/workload/stage_cost.h"
#include "sim/workload/task_graph.h"

namespace pf {

class ContextExchange {
 public:
  ContextExchange(TaskGraph& g, const Scenario& s, int stage) : g_(g), p_(s.parallel), stage_(stage) {}

  // The `count` exchanges of piece j (a segment, or under EP overlap a
  // piece of one: stage_emitter.cc) of (forward or backward, chunk,
  // micro-batch) of DP rank d's worker, which waits for `before` (the task
  // before the piece): the group's task, made by the first of its workers
  // to get here.
  int During(int before, int d, const StageCost& c, bool forward, int chunk, int micro_batch, int j, int count);

 private:
  TaskGraph& g_;
  const ParallelSpec& p_;
  const int stage_;
  std::map<std::tuple<int, bool, int, int, int>, int> tasks_;  // (group, forward, chunk, micro-batch, j)
};

}  // namespace pf

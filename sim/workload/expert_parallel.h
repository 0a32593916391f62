// Expert parallelism's token exchanges of one pipeline stage: after each
// compute segment of a mixture of experts, its dispatches and combines
// over the EP group, tasks that every worker of the group waits for and
// which wait for each of them. Megatron-Core's all-to-all dispatcher is one
// NCCL all-to-all of every routed copy over the group; DeepEP (an EP group
// of whole nodes) sends each token once per destination node over RDMA,
// an all-to-all among the GPUs of each rail, and fans the copies out to
// their experts over NVLink, an all-to-all inside each node, the two
// pipelined (beside each other). The stage emitter (stage_emitter.h) asks
// for them segment by segment.
#pragma once

#include <map>
#include <tuple>
#include <vector>

#include "sim/spec/spec.h"
#include "sim/workload/stage_cost.h"
#include "sim/workload/task_graph.h"

namespace pf {

// One all-to-all of an exchange: its GPUs (lane 0), the bytes each sends,
// the lanes beside it, and its task name's stem.
struct EpCollective {
  const char* name;
  std::vector<int> gpus;
  Bytes bytes;
  int lanes = 1;
};

// The all-to-alls of DP rank d's EP group's exchange on `stage` (one
// dispatch or combine): Megatron-Core's single all-to-all, or DeepEP's
// rail all-to-all and the in-node fan-outs, which run beside each other.
std::vector<EpCollective> ExchangeCollectives(const Scenario& s, int d, int stage, const StageCost& c);

class ExpertExchange {
 public:
  ExpertExchange(TaskGraph& g, const Scenario& s, int stage) : g_(g), p_(s.parallel), stage_(stage), s_(s) {}

  // The `count` all-to-alls after piece j (a compute segment, or under EP
  // overlap a MoE layer's piece of one: stage_emitter.cc) of (forward or
  // backward, chunk, micro-batch) of DP rank d's worker, whose previous
  // task is `last`: the group's task, made by the first of its workers to
  // get here; kNoTask when count is 0.
  int After(int last, int d, const StageCost& c, bool forward, int chunk, int micro_batch, int j, int count);

  // The group's exchange tasks for one key, made once.
  std::vector<int> Exchange(int d, const StageCost& c, bool forward, int count);

 private:
  TaskGraph& g_;
  const ParallelSpec& p_;
  const int stage_;
  const Scenario& s_;
  std::map<std::tuple<int, bool, int, int, int>, std::vector<int>> tasks_;  // (block, forward, chunk, micro-batch, j)
};

}  // namespace pf

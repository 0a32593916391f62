// Compute and tensor-parallel tasks of one pipeline stage on each of its DP
// ranks, in the stage's pipeline order (schedule_1f1b.h), with the stage's
// data-parallel traffic (data_parallel.h) wired in. Records the tasks that
// connect it to the neighbouring stages in PipelineLinks.
#pragma once

#include <vector>

#include "sim/spec/spec.h"
#include "sim/workload/task_graph.h"

namespace pf {

// Task ids that connect stages. Per virtual stage, DP rank and micro-batch:
// the task whose end releases the next virtual stage (out) and the first
// task that needs the previous one (in). Per stage and DP rank: the end of
// its backward work and its optimizer step.
struct PipelineLinks {
  using PerMicroBatch = std::vector<std::vector<std::vector<int>>>;  // [vstage][dp][mb]
  PerMicroBatch fwd_out, bwd_out, fwd_in, bwd_in;
  // The worker's task just before fwd_in (kNoTask for its first): what a
  // copy on the GPU's compute stream waits for.
  PerMicroBatch before_fwd;
  std::vector<std::vector<int>> stage_end, stage_opt;  // [stage][dp]
  // Per stage: its DP gradient reduction after the pipeline flush, when it
  // has one (DeepSpeed's PipelineEngine, dp_overlap false), else kNoTask.
  std::vector<int> flush_reduce;
  PipelineLinks(const ParallelSpec& p, int micro_batches);
};

// Emits pipeline stage `stage` for every DP rank. `hidden` is one
// micro-batch's activation tensor (what a TP all-reduce carries).
void EmitStage(TaskGraph& g, const Scenario& s, int stage, int micro_batches, Bytes hidden,
               PipelineLinks& links);

}  // namespace pf

// What a simulation found: the memory verdict and, when the job fits, the
// simulated step and the job built from it. Produced by Simulate
// (sim/simulate.h), rendered by sim/report_*.cc.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/accounting/breakdown.h"
#include "sim/engine/engine.h"
#include "sim/job/bill.h"
#include "sim/job/interruptions.h"
#include "sim/job/intervals.h"
#include "sim/job/job_model.h"
#include "sim/proto/workload.pb.h"
#include "sim/model/fit_suggestions.h"
#include "sim/model/host_memory.h"
#include "sim/model/memory_model.h"
#include "sim/spec/spec.h"
#include "sim/base/units.h"

namespace pf {

// The job's checkpoints (checkpoint.h): one checkpoint's size, its copy
// to host memory and its write to the tier (each simulated on the cluster),
// the pause training takes for it, reading it back on a restart, and how
// many the job takes.
struct CheckpointResult {
  Bytes size;           // every shard together
  Seconds copy;         // GPUs -> host memory
  Seconds write;        // GPUs -> host memory -> tier, every node at once
  Seconds pause;        // exposed per checkpoint (sync: write; async: copy, plus a write outlasting the interval)
  Seconds restore;      // tier -> host memory -> GPUs
  long long count = 0;  // checkpoints over the job
  Seconds total_pause;  // count x pause, included in the job's wall clock
};

// The job in one pricing mode: its time, its bill and their intervals.
struct ModeOutcome {
  PriceMode mode = PriceMode::kOnDemand;
  JobTime time;
  Bill bill;
  std::optional<JobSpread> spread;  // when intervals are computed
};

struct StepResult {
  Seconds step_time;
  double tokens_per_step = 0;
  double tokens_per_s = 0;
  double mfu = 0;                 // model FLOPs / (step time x GPUs x dense peak)
  double hfu = 0;                 // the same with recompute FLOPs
  double scaling_efficiency = 0;  // mean busy time per GPU / step time
  Breakdown breakdown;
  long long steps = 0;            // optimizer steps for training.tokens
  // When later epochs read part of the dataset from the page cache: the
  // first epoch's step (everything from the tier) and its steps.
  std::optional<Seconds> first_epoch_step;
  long long first_epoch_steps = 0;
  Seconds wall_clock;             // the job model's (job_model.h): start-up, staging, steps, evaluation, checkpoints, interruptions
  JobTime time;                   // its parts
  std::optional<CheckpointResult> checkpoint;
  std::optional<Interruptions> interruptions;
  std::optional<Usd> cost;        // the bill's total in the scenario's mode
  std::optional<Bill> bill;
  std::vector<ModeOutcome> modes;  // every mode the price offers (spot only with a preemption rate)
  // 90% intervals of step, wall clock and cost in the scenario's mode, with
  // the two efficiencies' fitted effect on the step (intervals.h).
  std::optional<JobSpread> spread;
  std::optional<Sensitivity> sensitivity;
  int tasks = 0;
  long long flows = 0;
};

// Why the input pipeline stalls the GPUs (JudgeData, data_verdict.h).
struct DataStage {
  std::string name;       // "storage bandwidth", "request latency", "CPU decode", "copy to GPU"
  double samples_per_s;   // per data-parallel rank
};
struct DataSuggestion {
  std::string change;                  // in words
  std::vector<std::string> overrides;  // --set flags; empty when no flag does it
};
struct DataVerdict {
  std::vector<DataStage> stages;  // slowest first
  double demand = 0;               // samples/s per rank the GPUs consume without a stall
  bool stalls = false;             // the stall is over 1% of the step
  std::vector<DataSuggestion> suggestions;
};

// One simulated step as it ran: its task graph and each task's start and
// end (for a timeline, report/trace.h).
struct StepTrace {
  preflight::Workload workload;
  TaskTimes times;
};

struct Result {
  Scenario scenario;
  MemoryBreakdown memory;
  HostMemory host;                          // the fullest node's host memory
  std::vector<HostSuggestion> host_suggestions;  // when !host.fits
  std::vector<FitSuggestion> suggestions;  // when !memory.fits
  std::optional<StepResult> step;          // simulated only when it fits
  // With a data section and a simulated step: the input pipeline's
  // stages, bottleneck and suggestions (data_verdict.h).
  std::optional<DataVerdict> data;
};

}  // namespace pf

// What a simulation found: the memory verdict and, when the job fits, the
// simulated step and the job built from it. Produced by Simulate
// (sim/simulate.h), rendered by sim/report_*.cc.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/accounting/breakdown.h"
#include "sim/model/fit_suggestions.h"
#include "sim/model/memory_model.h"
#include "sim/spec/spec.h"
#include "sim/base/units.h"

namespace pf {

struct StepResult {
  Seconds step_time;
  double tokens_per_step = 0;
  double tokens_per_s = 0;
  double mfu = 0;                 // model FLOPs / (step time x GPUs x dense peak)
  double hfu = 0;                 // the same with recompute FLOPs
  double scaling_efficiency = 0;  // mean busy time per GPU / step time
  Breakdown breakdown;
  long long steps = 0;            // optimizer steps for training.tokens
  Seconds wall_clock;
  std::optional<Usd> cost;
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

struct Result {
  Scenario scenario;
  MemoryBreakdown memory;
  std::vector<FitSuggestion> suggestions;  // when !memory.fits
  std::optional<StepResult> step;          // simulated only when it fits
  // With a data section and a simulated step: the input pipeline's
  // stages, bottleneck and suggestions (data_verdict.h).
  std::optional<DataVerdict> data;
};

}  // namespace pf

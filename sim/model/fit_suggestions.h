// What to change when a job does not fit in GPU memory: single changes to
// the scenario (recompute, ZeRO, LoRA/QLoRA, micro-batch, more nodes) that
// make it fit, each as the --set flags that apply it. Plain arithmetic over
// EstimateMemory; no SimGrid.
#pragma once

#include <string>
#include <vector>

#include "sim/base/units.h"
#include "sim/spec/spec.h"

namespace pf {

// One change to the scenario that makes it fit, with the memory it gives.
struct FitSuggestion {
  std::string change;                  // in words, e.g. "ZeRO stage 3"
  std::vector<std::string> overrides;  // the --set flags that make the change
  Bytes per_gpu;
};

// Up to a handful of changes that fit, most conservative first; empty when
// the scenario already fits. Every suggestion passes Validate
// (sim/spec/validate.h), so its flags applied to the scenario's file load.
// REQUIRES: Validate(s) found no problem.
std::vector<FitSuggestion> SuggestFits(const Scenario& s);

}  // namespace pf

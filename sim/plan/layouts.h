// The layouts a plan (planner.h) and a report's alternative (alternative.h)
// try for a job on a given number of nodes.
#pragma once

#include <string>
#include <vector>

#include "sim/spec/spec.h"

namespace pf {

// Candidate layouts of `nodes` nodes of `base`'s node for the same job
// (`own_micro_batch`: the scenario's): tp and pp powers of two up to 8 and
// 16 (Megatron-LM's and the published runs' range), every ZeRO stage,
// micro-batches 1, 2, 4 and the scenario's, each recompute policy; for a
// mixture of experts each power-of-two ep dividing its experts (and the
// scenario's); the scenario's cp (dp takes the GPUs left); vp 1 (no
// interleaving); each
// without the switches of `base` its layout does not take
// (DropSwitchesOfOtherLayouts). Not validated: the caller checks each.
void Layouts(const Scenario& base, int nodes, int own_micro_batch, std::vector<Scenario>& out);

// "TP2 PP4 DP1 ZeRO-0 mb1 none" ("TP1 PP2 DP64 EP8 ZeRO-1 mb1 none" with
// expert parallelism).
std::string LayoutName(const ParallelSpec& p, int micro_batch, Recompute recompute);
// The --set flags that give a scenario whose layout is `base` the layout p
// (vp 1), with those that turn off the switches of `base` p does not take
// (DropSwitchesOfOtherLayouts).
std::vector<std::string> LayoutOverrides(const ParallelSpec& base, const ParallelSpec& p, int micro_batch,
                                         Recompute recompute);

}  // namespace pf

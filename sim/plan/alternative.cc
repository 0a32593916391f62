#include "sim/plan/alternative.h"

#include <algorithm>
#include <cmath>

#include "sim/base/error.h"
#include "sim/job/simulate.h"
#include "sim/model/host_memory.h"
#include "sim/spec/validate.h"
#include "sim/model/memory_model.h"
#include "sim/model/stack.h"
#include "sim/plan/layouts.h"
#include "sim/plan/screen.h"
#include "sim/spec/names.h"
#include "sim/spec/validate.h"
#include "sim/workload/size_estimate.h"

namespace pf {

std::optional<Alternative> FindAlternative(const Scenario& s, Seconds step) {
  std::vector<Scenario> layouts;
  Layouts(s, s.cluster.nodes, s.training.micro_batch, layouts);
  // A Hugging Face-based stack's job also on Megatron's fused kernels and
  // its layouts (the same job, another stack: model/stack.h).
  if (s.model.kind != ModelKind::kVision && EagerLayers(s.training)) {
    Scenario megatron = s;
    megatron.training.stack = Stack::kMegatron;
    megatron.training.stack_given = true;
    // As `--set training.stack=megatron` would load it: the stack's
    // defaults for the keys the file does not give.
    ApplyStackDefaults(megatron.training);
    ResolveQloraUpcast(megatron);
    Layouts(megatron, s.cluster.nodes, s.training.micro_batch, layouts);
  }
  Alternative best;
  std::vector<std::pair<Seconds, const Scenario*>> quick;  // screened step, layout
  // The second opinion costs at most about what the scenario's own
  // simulation did, twice over (at least kAlternativeBudget).
  const double budget = std::max(kAlternativeBudget.value(), 2 * EstimateSimulationSize(s).seconds);
  for (Scenario& c : layouts) {
    ++best.screened;
    // A suggestion the report would warn about is not one: at least
    // kThinHeadroom of the GPU to spare.
    if (Validate(c) || !FitsWithHeadroom(EstimateMemory(c)) || !EstimateHostMemory(c).fits) continue;
    const SimulationSize size = EstimateSimulationSize(c);
    if (size.seconds > budget || size.tasks > s.max_tasks || PastInFlightLimit(c, size)) continue;
    quick.push_back({ScreenStep(c).step, &c});
  }
  if (quick.empty()) return std::nullopt;
  const size_t k = std::min<size_t>(kAlternativeSimulated, quick.size());
  std::partial_sort(quick.begin(), quick.begin() + k, quick.end(),
                    [](const auto& a, const auto& b) { return a.first < b.first; });
  std::optional<Scenario> fastest;
  Seconds fastest_step(HUGE_VAL);
  for (size_t i = 0; i < k && quick[i].first <= kScreenSpread * quick[0].first; ++i) {
    Scenario c = *quick[i].second;
    c.intervals = false;
    ++best.simulated;
    try {
      const Result r = Simulate(c);
      if (r.step && r.step->step_time < fastest_step) fastest_step = r.step->step_time, fastest = c;
    } catch (const InputError&) {  // a second opinion never fails the scenario's own report
    }
  }
  if (!fastest || !(step.value() > kAlternativeGain * fastest_step.value())) return std::nullopt;
  const Scenario& c = *fastest;
  const ParallelSpec& p = c.parallel;
  best.layout = LayoutName(p, c.training.micro_batch, c.training.recompute);
  best.step = fastest_step;
  best.speedup = step.value() / best.step.value();
  best.overrides = LayoutOverrides(s.parallel, p, c.training.micro_batch, c.training.recompute);
  if (c.training.stack != s.training.stack) {
    best.layout += std::string(" on stack ") + ToString(c.training.stack);
    best.overrides.push_back(std::string("training.stack=") + ToString(c.training.stack));
  }
  return best;
}

}  // namespace pf

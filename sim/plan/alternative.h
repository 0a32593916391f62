// The report's second opinion on the layout: for the job as given (its
// nodes, model and recipe), every other layout (layouts.h) that validates,
// fits GPU memory with kThinHeadroom to spare and fits host memory is
// screened (screen.h), the quickest few are simulated (among those about
// as quick to simulate as the scenario), and when the fastest simulated
// step beats the scenario's by more than kAlternativeGain the report says
// so, with the --set flags.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/base/units.h"
#include "sim/spec/spec.h"

namespace pf {

// 10%: smaller differences are within the simulator's own error against
// the reference rows (README "Accuracy": within 8%).
inline constexpr double kAlternativeGain = 1.10;
// Layouts whose simulation is estimated (workload/size_estimate.h) at more
// than twice the scenario's own, and over this, are not considered.
inline constexpr Seconds kAlternativeBudget{0.5};
// The screen's closed form ranks layouts within about 10% of what SimGrid
// then finds (it leaves out contention and overlap), so the quickest
// kAlternativeSimulated screened layouts within kScreenSpread of the
// quickest are simulated and the fastest simulated one is reported.
inline constexpr int kAlternativeSimulated = 3;
inline constexpr double kScreenSpread = 1.10;

struct Alternative {
  std::string layout;                  // "TP2 PP4 DP1 ZeRO-0 mb1 none"
  Seconds step;                        // simulated
  double speedup = 0;                  // the scenario's step / this step
  long long screened = 0;              // layouts screened
  int simulated = 0;                   // of them, simulated
  std::vector<std::string> overrides;  // the --set flags
};

// REQUIRES: `step` is s's simulated step.
std::optional<Alternative> FindAlternative(const Scenario& s, Seconds step);

}  // namespace pf

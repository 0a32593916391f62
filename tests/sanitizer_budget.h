// Whether a test under the sanitizers skips a scenario: over their task
// budget (test_util.h kSanitizerTaskBudget).
#pragma once

#include "sim/workload/size_estimate.h"
#include "tests/test_util.h"

namespace pf::testing_util {

inline bool OverSanitizerBudget(const Scenario& s) {
  return Sanitized() && EstimateSimulationSize(s).tasks > kSanitizerTaskBudget;
}

}  // namespace pf::testing_util

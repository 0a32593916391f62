// The last check before printing: a real result passes, and each figure
// pushed out of its range is named with its value as an internal error.
#include <cmath>
#include <functional>
#include <stdexcept>

#include <gtest/gtest.h>

#include "sim/job/result_check.h"
#include "sim/job/simulate.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/test_util.h"

namespace pf {
namespace {

const Result& Real() {
  static const Result r = Simulate(LoadScenario(testing_util::kRoot + "/scenarios/70b_8xA800_tp8.yaml"));
  return r;
}

struct Case {
  std::string name;
  std::function<void(Result&)> spoil;
  std::string message;  // "" when the result passes
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

const double kNan = std::nan("");

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {"RealResult", [](Result&) {}, ""},
      {"NotSimulated", [](Result& r) { r.step.reset(); }, ""},
      {"MfuAboveOne", [](Result& r) { r.step->mfu = 4.8e17, r.step->hfu = 4.8e17; },
       "result check: hfu = 4.8e+17, outside [0, 1]"},
      // The figures of the real result are not spelt out: they move with the model.
      {"MfuNegative", [](Result& r) { r.step->mfu = -481; }, "result check: mfu = -481, outside [0, 0."},
      {"MfuAboveHfu", [](Result& r) { r.step->mfu = r.step->hfu * 1.01; }, "result check: mfu = "},
      {"ScalingEfficiencyTwo", [](Result& r) { r.step->scaling_efficiency = 2; },
       "result check: scaling_efficiency = 2, outside [0, 1]"},
      {"StepTimeZero", [](Result& r) { r.step->step_time = Seconds(0); },
       "result check: step_time_s = 0, outside (0, inf)"},
      {"TokensPerSecondNegative", [](Result& r) { r.step->tokens_per_s = -2346; },
       "result check: tokens_per_s = -2346, outside (0, inf)"},
      {"TokensPerSecondNan", [](Result& r) { r.step->tokens_per_s = kNan; },
       "result check: tokens_per_s = nan, outside (0, inf)"},
      {"BreakdownTwiceTheStep", [](Result& r) { r.step->breakdown.compute += r.step->step_time; },
       "result check: breakdown total = "},
      {"BreakdownPartNegative",
       [](Result& r) {
         r.step->breakdown.idle = Seconds(-1);
         r.step->breakdown.compute += Seconds(1);
       },
       "result check: breakdown.idle = -1, outside [0, inf)"},
      {"NoSteps", [](Result& r) { r.step->steps = 0; }, "result check: steps = 0, outside [1, inf)"},
      {"CostInfinite", [](Result& r) { r.step->cost = Usd(HUGE_VAL); }, "result check: cost_usd = inf, outside [0, inf)"},
      {"WallClockNan", [](Result& r) { r.step->wall_clock = Seconds(kNan); },
       "result check: wall_clock_s = nan, outside (0, inf)"},
      {"MemoryCapacityZero", [](Result& r) { r.memory.capacity = Bytes(0); },
       "result check: memory.capacity = 0, outside (0, inf)"},
      {"MemoryPartNan", [](Result& r) { r.memory.activations = Bytes(kNan); },
       "result check: memory.activations = nan, outside [0, inf)"},
  };
  return cases;
}

class ResultCheck : public ::testing::TestWithParam<Case> {};

TEST_P(ResultCheck, NamesTheFigureOutOfRange) {
  Result r = Real();
  GetParam().spoil(r);
  std::string message;
  try {
    CheckResult(r);
  } catch (const std::logic_error& e) {
    message = e.what();
  }
  EXPECT_EQ(message.substr(0, GetParam().message.size()), GetParam().message);
  EXPECT_EQ(message.empty(), GetParam().message.empty()) << message;
}

INSTANTIATE_TEST_SUITE_P(Cases, ResultCheck, ::testing::ValuesIn(Cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace pf

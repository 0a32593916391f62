// The report's faster layout (plan/alternative.h): found for the flagship
// LoRA job (TP8 across an A800's cut NVLink), its flags reproduce its
// simulated step, and none is claimed where the layout is already the
// fastest within kAlternativeGain.
#include <gtest/gtest.h>

#include "sim/job/simulate.h"
#include "sim/plan/alternative.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/test_util.h"

namespace pf {
namespace {

const std::string kPath = testing_util::kRoot + "/scenarios/70b_8xA800_tp8.yaml";

TEST(Alternative, FoundAndReproducible) {
  const Scenario s = LoadScenario(kPath);
  const Result r = Simulate(s);
  ASSERT_TRUE(r.step);
  const std::optional<Alternative> alt = FindAlternative(s, r.step->step_time);
  ASSERT_TRUE(alt);
  EXPECT_GT(alt->speedup, kAlternativeGain);
  EXPECT_GT(alt->screened, 100);
  const Result again = Simulate(LoadScenario(kPath, alt->overrides));
  ASSERT_TRUE(again.step);
  EXPECT_DOUBLE_EQ(again.step->step_time.value(), alt->step.value());
}

TEST(Alternative, NoneWhenTheLayoutIsTheFastest) {
  const Scenario s = LoadScenario(kPath);
  const std::optional<Alternative> first = FindAlternative(s, Simulate(s).step->step_time);
  ASSERT_TRUE(first);
  const Scenario best = LoadScenario(kPath, first->overrides);
  EXPECT_FALSE(FindAlternative(best, Simulate(best).step->step_time));
}

}  // namespace
}  // namespace pf

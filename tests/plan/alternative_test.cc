// The report's faster layout (plan/alternative.h): found for the flagship
// LoRA job (TP8 across an A800's cut NVLink), its flags reproduce its
// simulated step, and none is claimed where the layout is already the
// fastest within kAlternativeGain.
#include <algorithm>
#include <string>
#include <vector>

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

// A torchtune job's second opinion on Megatron's fused kernels takes
// Megatron's defaults where the file gives none (mixed precision, whole-pack
// attention), as `--set training.stack=megatron` loads them, so the
// suggestion is valid and its flags reproduce its step.
TEST(Alternative, TorchtuneJobsGetMegatronsDefaults) {
  const std::string path = testing_util::kRoot + "/tests/data/stacks/tt_llama32_3b_full_packed.yaml";
  const std::vector<std::string> recompute = {"training.recompute=full"};
  const Scenario s = LoadScenario(path, recompute);
  const std::optional<Alternative> alt = FindAlternative(s, Simulate(s).step->step_time);
  ASSERT_TRUE(alt);
  EXPECT_NE(std::find(alt->overrides.begin(), alt->overrides.end(), "training.stack=megatron"), alt->overrides.end());
  std::vector<std::string> sets = recompute;
  sets.insert(sets.end(), alt->overrides.begin(), alt->overrides.end());
  const Scenario megatron = LoadScenario(path, sets);
  EXPECT_FALSE(megatron.training.pure_bf16);
  EXPECT_FALSE(megatron.training.attends_per_sample());
  EXPECT_DOUBLE_EQ(Simulate(megatron).step->step_time.value(), alt->step.value());
}

}  // namespace
}  // namespace pf

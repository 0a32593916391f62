// Published fine-tuning and pre-training runs by training stack
// (tests/data/finetune_stacks.csv, with its sources in finetune_stacks.md),
// each simulated from its scenario in tests/data/stacks/ as
// tests/data/stack_rows.csv pairs them; and the large-scale recipes' runs
// (tests/data/recipes.csv and recipes.md, and DeepSpeed at scale from
// tests/data/deepspeed_scale.csv; scenarios in tests/data/recipes/, paired
// by tests/data/recipe_rows.csv, whose line is in the file its scenario's
// comment names). A held row's error stays within
// its band (15% for speed, 10% for memory); a known miss is pinned to the
// band it is in now, with the reason, so that a change that moves it is
// seen. The H100 speed rows, known misses left out, are the H100 rate's fit
// (calibration/hopper_fit.h); the others are in no fit. The stacks'
// mechanisms one at a time: stack_kernels_test.cc.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/calibration/published_rows.h"
#include "sim/job/simulate.h"
#include "sim/model/memory_model.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/sanitizer_budget.h"
#include "tests/test_util.h"

namespace pf {
namespace {

std::vector<PublishedRow> Rows() { return LoadPublishedRows(testing_util::kRoot); }

std::string ScenarioPath(const std::string& name, const std::string& dir = "stacks") {
  return testing_util::kRoot + "/tests/data/" + dir + "/" + name + ".yaml";
}

double Predict(const PublishedRow& row) {
  const Scenario s = LoadScenario(row.path);
  return RowFigure(row.metric, s, Simulate(s, /*force=*/true));
}

class StackReference : public ::testing::TestWithParam<PublishedRow> {};

TEST_P(StackReference, ErrorStaysInItsBand) {
  const PublishedRow& row = GetParam();
  if (testing_util::OverSanitizerBudget(LoadScenario(row.path)))
    GTEST_SKIP() << row.scenario << ": over the sanitizer suite's task budget; the normal suite holds it";
  const double error = Predict(row) / row.published - 1;
  std::cout << row.scenario << " (" << row.source << " line " << row.line << ", " << row.metric << "): published "
            << row.published << ", error " << 100 * error << "%" << (row.note.empty() ? "" : "; " + row.note)
            << "\n";
  EXPECT_GE(error, row.error_min) << row.note;
  EXPECT_LE(error, row.error_max) << row.note;
  if (row.note.empty()) {  // a held row: the bar
    EXPECT_LE(std::abs(error), IsMemoryMetric(row.metric) ? 0.10 : 0.15);
  }
}

INSTANTIATE_TEST_SUITE_P(Rows, StackReference, ::testing::ValuesIn(Rows()), [](const auto& info) {
  return testing_util::TestName(info.param.scenario + "_line" + std::to_string(info.param.line));
});

TEST(StackReference, EveryRowHasItsScenario) {
  for (const PublishedRow& row : Rows()) EXPECT_NO_THROW(LoadScenario(row.path)) << row.scenario;
  EXPECT_EQ(Rows().size(), 87u + 49u);
}

// ms-swift's Qwen3-30B-A3B SFT on two A800 nodes (finetune_stacks.csv
// line 114, 9.6 s a step), a check and not a row: natural routing whose
// imbalance is not published. Balanced, the model says about 5.0 s; with a
// busiest EP rank at 1.6x the mean load, about 7.5 s (finetune_stacks.md
// section 16). Pinned so that those notes move with the model.
TEST(StackReference, TheMsSwiftMoeCheckStaysWhereItsNotesSay) {
  const std::string path = ScenarioPath("swift_qwen3_30b_a3b_megatron_16xA800");
  const Result balanced = Simulate(LoadScenario(path));
  const Result skewed = Simulate(LoadScenario(path, {"training.expert_imbalance=1.6"}));
  ASSERT_TRUE(balanced.step && skewed.step);
  EXPECT_NEAR(balanced.step->step_time.value(), 5.04, 0.1);
  EXPECT_NEAR(skewed.step->step_time.value(), 7.47, 0.15);
}

// The Hugging Face / Unsloth ratio, which the stacks' mechanisms set and
// the unknown dataset does not: LLaMA-Factory measured 2954 vs 4007 tokens
// per GPU-second (0.737).
TEST(StackReference, UnslothOverHfIsThePublishedRatio) {
  const Result hf = Simulate(LoadScenario(ScenarioPath("lf_llama2_7b_lora_hf_fa2")));
  const Result us = Simulate(LoadScenario(ScenarioPath("lf_llama2_7b_lora_unsloth")));
  ASSERT_TRUE(hf.step && us.step);
  EXPECT_NEAR(hf.step->tokens_per_s / us.step->tokens_per_s / (2954.0 / 4007.0), 1.0, 0.06);
}

// One rung of torchtune's optimisation ladder over the one before it:
// what the rung buys, in tokens/s within 3% and in live tensors within 10%
// of the published ratios, whatever the absolute gap the rows share.
void ExpectRungRatio(const char* before, const char* after, double tokens_before, double tokens_after,
                     double gib_before, double gib_after) {
  const Result a = Simulate(LoadScenario(ScenarioPath(before)));
  const Result b = Simulate(LoadScenario(ScenarioPath(after)));
  ASSERT_TRUE(a.step && b.step);
  EXPECT_NEAR(b.step->tokens_per_s / a.step->tokens_per_s / (tokens_after / tokens_before), 1.0, 0.03) << after;
  EXPECT_NEAR(LiveTensors(b.memory).value() / LiveTensors(a.memory).value() / (gib_after / gib_before), 1.0, 0.1)
      << after;
}

// torch.compile, which the eager kernels and saved tensors the compiled
// layers drop set (lines 60 and 90): 8998 over 7075 tokens per second
// (1.272) and 51.0 over 60.0 GiB of peak active memory.
TEST(StackReference, CompileOverEagerIsThePublishedRatio) {
  ExpectRungRatio("tt_llama32_3b_full_packed", "tt_llama32_3b_full_packed_compile", 7075, 8998, 60.0, 51.0);
}

// The chunked loss (CEWithChunkedOutputLoss, compiled chunk by chunk).
TEST(StackReference, ChunkedLossOverCompiledIsThePublishedRatio) {
  ExpectRungRatio("tt_llama32_3b_full_packed_compile", "tt_llama32_3b_full_packed_chunked", 8998, 9174, 51.0, 42.9);
}

// Activation checkpointing of every layer.
TEST(StackReference, CheckpointingOverChunkedLossIsThePublishedRatio) {
  ExpectRungRatio("tt_llama32_3b_full_packed_chunked", "tt_llama32_3b_full_packed_ac", 9174, 7210, 42.9, 24.9);
}

// The optimizer stepped in the backward.
TEST(StackReference, OptimizerInBackwardOverCheckpointingIsThePublishedRatio) {
  ExpectRungRatio("tt_llama32_3b_full_packed_ac", "tt_llama32_3b_full_packed_optim_bwd", 7210, 7309, 24.9, 23.1);
}

// Activation offloading: its copies hidden beside the passes, the
// checkpoints on the host but the forward's stash.
TEST(StackReference, OffloadingOverOptimizerInBackwardIsThePublishedRatio) {
  ExpectRungRatio("tt_llama32_3b_full_packed_optim_bwd", "tt_llama32_3b_full_packed_offload", 7309, 7301, 23.1, 21.8);
}

// FlashAttention-2 over eager attention on the same stack, which the eager
// softmax chain sets (model_math.h EagerSoftmaxBytesPerScore): LLaMA-Factory
// measured 2954 vs 2392 tokens per GPU-second (1.235).
TEST(StackReference, FlashOverEagerIsThePublishedRatio) {
  const Result eager = Simulate(LoadScenario(ScenarioPath("lf_llama2_7b_lora_hf")));
  const Result fa2 = Simulate(LoadScenario(ScenarioPath("lf_llama2_7b_lora_hf_fa2")));
  ASSERT_TRUE(eager.step && fa2.step);
  EXPECT_NEAR(fa2.step->tokens_per_s / eager.step->tokens_per_s / (2954.0 / 2392.0), 1.0, 0.03);
}

}  // namespace
}  // namespace pf

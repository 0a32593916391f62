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
  EXPECT_EQ(Rows().size(), 71u + 49u);
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

// What torch.compile buys torchtune's run, which the eager kernels and
// saved tensors the compiled layers drop set, whatever the absolute gap
// the two rows share (lines 60 and 90): the ladder measured 8998 over 7075
// tokens per second (1.272) and 51.0 over 60.0 GiB of peak active memory.
TEST(StackReference, CompileOverEagerIsThePublishedRatio) {
  const Scenario eager_s = LoadScenario(ScenarioPath("tt_llama32_3b_full_packed"));
  const Scenario compiled_s = LoadScenario(ScenarioPath("tt_llama32_3b_full_packed_compile"));
  const Result eager = Simulate(eager_s), compiled = Simulate(compiled_s);
  ASSERT_TRUE(eager.step && compiled.step);
  EXPECT_NEAR(compiled.step->tokens_per_s / eager.step->tokens_per_s / (8998.0 / 7075.0), 1.0, 0.03);
  EXPECT_NEAR(LiveTensors(compiled.memory).value() / LiveTensors(eager.memory).value() / (51.0 / 60.0), 1.0, 0.1);
}

// torchtune's next two rungs, each over the one before: the chunked
// loss (CEWithChunkedOutputLoss, compiled chunk by chunk) measured 9174
// over 8998 tokens/s and 42.9 over 51.0 GiB; activation checkpointing
// every layer 7210 over 9174 and 24.9 over 42.9 GiB.
TEST(StackReference, ChunkedLossOverCompiledIsThePublishedRatio) {
  const Result compiled = Simulate(LoadScenario(ScenarioPath("tt_llama32_3b_full_packed_compile")));
  const Result chunked = Simulate(LoadScenario(ScenarioPath("tt_llama32_3b_full_packed_chunked")));
  ASSERT_TRUE(compiled.step && chunked.step);
  EXPECT_NEAR(chunked.step->tokens_per_s / compiled.step->tokens_per_s / (9174.0 / 8998.0), 1.0, 0.03);
  EXPECT_NEAR(LiveTensors(chunked.memory).value() / LiveTensors(compiled.memory).value() / (42.9 / 51.0), 1.0, 0.1);
}

TEST(StackReference, CheckpointingOverChunkedLossIsThePublishedRatio) {
  const Result chunked = Simulate(LoadScenario(ScenarioPath("tt_llama32_3b_full_packed_chunked")));
  const Result ac = Simulate(LoadScenario(ScenarioPath("tt_llama32_3b_full_packed_ac")));
  ASSERT_TRUE(chunked.step && ac.step);
  EXPECT_NEAR(ac.step->tokens_per_s / chunked.step->tokens_per_s / (7210.0 / 9174.0), 1.0, 0.03);
  EXPECT_NEAR(LiveTensors(ac.memory).value() / LiveTensors(chunked.memory).value() / (24.9 / 42.9), 1.0, 0.1);
}

// The optimizer stepped in the backward, over checkpointing: 7309 over
// 7210 tokens/s and 23.1 over 24.9 GiB.
TEST(StackReference, OptimizerInBackwardOverCheckpointingIsThePublishedRatio) {
  const Result ac = Simulate(LoadScenario(ScenarioPath("tt_llama32_3b_full_packed_ac")));
  const Result in_bwd = Simulate(LoadScenario(ScenarioPath("tt_llama32_3b_full_packed_optim_bwd")));
  ASSERT_TRUE(ac.step && in_bwd.step);
  EXPECT_NEAR(in_bwd.step->tokens_per_s / ac.step->tokens_per_s / (7309.0 / 7210.0), 1.0, 0.03);
  EXPECT_NEAR(LiveTensors(in_bwd.memory).value() / LiveTensors(ac.memory).value() / (23.1 / 24.9), 1.0, 0.1);
}

// Activation offloading over the optimizer in the backward: 7301 over
// 7309 tokens/s (its copies hidden beside the passes) and 21.8 over 23.1
// GiB (the checkpoints on the host but the forward's stash).
TEST(StackReference, OffloadingOverOptimizerInBackwardIsThePublishedRatio) {
  const Result in_bwd = Simulate(LoadScenario(ScenarioPath("tt_llama32_3b_full_packed_optim_bwd")));
  const Result offload = Simulate(LoadScenario(ScenarioPath("tt_llama32_3b_full_packed_offload")));
  ASSERT_TRUE(in_bwd.step && offload.step);
  EXPECT_NEAR(offload.step->tokens_per_s / in_bwd.step->tokens_per_s / (7301.0 / 7309.0), 1.0, 0.03);
  EXPECT_NEAR(LiveTensors(offload.memory).value() / LiveTensors(in_bwd.memory).value() / (21.8 / 23.1), 1.0, 0.1);
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

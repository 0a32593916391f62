// Packed samples and padding (training.packing, padding, sample_len,
// per_sample_attention): what the GPUs compute against the tokens the job
// counts, the attention span of a packed sample, and the memory verdict.
// Their bad values: stack_kernels_test.cc StackErrors.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/job/simulate.h"
#include "sim/model/framework_memory.h"
#include "sim/model/model_math.h"
#include "sim/model/padding.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/test_util.h"

namespace pf {
namespace {

const std::string kQwen = testing_util::kRoot + "/tests/data/stacks/qwen_7b_lora_2048.yaml";

Scenario Qwen(std::vector<std::string> sets = {}) { return LoadScenario(kQwen, sets); }

// Packed samples attending per sample (NeMo's cu_seqlens): a causal query
// sees half its sample's keys, not half the sequence's, in the kernel and in
// the model FLOPs; the default on stack nemo, refused without packing.
TEST(Packing, PerSampleAttentionSpansTheSample) {
  const std::string file = testing_util::kRoot + "/tests/data/stacks/nemo_llama2_7b_sft.yaml";
  const Scenario per_sample = LoadScenario(file), across = LoadScenario(file, {"training.per_sample_attention=false"});
  EXPECT_TRUE(per_sample.training.per_sample_attention);  // stack nemo's default
  EXPECT_EQ(per_sample.training.attention_span(), 256);
  EXPECT_EQ(across.training.attention_span(), 4096);
  auto attention_flops = [](const Scenario& s) {
    for (const Op& op : LayerOps(s.model, s.training, ShardsOf(s.parallel), Pass::kForward, false))
      if (op.kind == OpKind::kAttention) return op.flops.value();
    return 0.0;
  };
  EXPECT_NEAR(attention_flops(per_sample) / attention_flops(across), 256.0 / 4096, 1e-12);
  const double h = per_sample.model.attn_width(), L = per_sample.model.layers;
  const double gap = 3 * 4.0 * (4096 - 256) * h * L * per_sample.training.tokens_per_step();  // full-square convention
  EXPECT_NEAR(TrainingStepFlops(across.model, across.training).model.value() -
                  TrainingStepFlops(per_sample.model, per_sample.training).model.value(),
              gap, 1e-6 * gap);
  EXPECT_EQ(LoadScenario(file, {"training.stack=megatron"}).training.attention_span(), 4096);  // Megatron: across
}

// Without packing each sample padded to seq_len (Qwen's finetune.py): the
// GPUs compute the pads, the job counts only the samples' tokens.
TEST(Packing, PaddingWastesComputeOnPadTokens) {
  const Result packed = Simulate(Qwen());
  const Result padded =
      Simulate(Qwen({"training.packing=false", "training.sample_len=512", "training.padding=max_length"}));
  ASSERT_TRUE(packed.step && padded.step);
  EXPECT_NEAR(padded.step->step_time.value(), packed.step->step_time.value(), 1e-9);
  EXPECT_NEAR(padded.step->tokens_per_s / packed.step->tokens_per_s, 0.25, 1e-9);
  EXPECT_NEAR(padded.step->mfu / packed.step->mfu, 0.25, 1e-3);
  EXPECT_NEAR(double(padded.step->steps) / packed.step->steps, 4.0, 0.01);
}

// Padded to each micro-batch's longest sample (the Hugging Face stacks'
// collators): between packing and padding to seq_len, by the expected
// longest of the micro-batch's samples; one sample a micro-batch wastes
// nothing. The memory verdict keeps seq_len: a batch can reach it; as the
// lengths vary from step to step the allocator caches more (what
// nvidia-smi shows: framework_memory.h AllocationsVary), not in the total.
TEST(Packing, PaddingToTheLongestComputesTheLongestSample) {
  const std::vector<std::string> mb4 = {"training.micro_batch=4", "training.global_batch=8", "training.packing=false",
                                        "training.sample_len=512"};
  std::vector<std::string> max_length = mb4, longest = mb4;
  max_length.push_back("training.padding=max_length");
  const Scenario s = Qwen(mb4);
  ASSERT_EQ(s.training.padding, Padding::kLongest);  // stack hf's collator
  const Result lo = Simulate(s), hi = Simulate(Qwen(max_length));
  const Result packed = Simulate(Qwen({"training.micro_batch=4", "training.global_batch=8"}));
  ASSERT_TRUE(lo.step && hi.step && packed.step);
  const double expected = ExpectedLongestSample(s.training);
  EXPECT_GT(expected, 512);
  EXPECT_LT(expected, 2048);
  EXPECT_LT(lo.step->step_time.value(), hi.step->step_time.value());
  EXPECT_EQ(lo.step->tokens_per_step, hi.step->tokens_per_step);
  EXPECT_EQ(lo.memory.total.value(), hi.memory.total.value());
  EXPECT_TRUE(AllocationsVary(s));
  EXPECT_FALSE(AllocationsVary(Qwen(max_length)));
  EXPECT_GT(lo.memory.observed.value(), lo.memory.total.value());
  // Fixed shapes: nvidia-smi shows the other phase's cached blocks only.
  EXPECT_EQ(hi.memory.observed.value(), (hi.memory.total + hi.memory.phase_cache).value());
  // Roughly as the sequences' lengths (plus the per-step fixed costs).
  EXPECT_NEAR(lo.step->step_time.value() / packed.step->step_time.value(), expected / 2048, 0.1);
  const Result one = Simulate(Qwen({"training.packing=false", "training.sample_len=512"}));
  const Result one_packed = Simulate(Qwen({"training.seq_len=512"}));
  ASSERT_TRUE(one.step && one_packed.step);
  EXPECT_NEAR(one.step->step_time.value(), one_packed.step->step_time.value(), 1e-9);
}

}  // namespace
}  // namespace pf

// DoRA (training.dora, PEFT's use_dora; adapter_kernels.cc AdapterOps): each
// adapted layer's weight-side work every forward, the output's rescaling,
// the base output computed again under dropout, what it keeps for the
// backward, and where it is refused; checked on PEFT's method-comparison
// scenario (Llama-3.2-3B, LoRA r32 on q and v, pure bf16, one L40S).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/model/model_math.h"
#include "sim/model/stack_kernels.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/test_util.h"

namespace pf {
namespace {

std::string Stacks(const std::string& name) { return testing_util::kRoot + "/tests/data/stacks/" + name + ".yaml"; }

double Bytes(const std::vector<Op>& ops, const std::string& part, int* kernels = nullptr) {
  double bytes = 0;
  if (kernels) *kernels = 0;
  for (const Op& op : ops)
    if (op.name.find(part) != std::string::npos) {
      bytes += op.bytes.value();
      if (kernels) ++*kernels;
    }
  return bytes;
}

// q_proj (3,072 in, 3,072 out) under pure bf16: a 3,072 x 3,072 fp32 eye
// written, read by lora_A; the 3,072 x 3,072 fp32 product written; the bf16
// weight cast to fp32 (6 B), scaled (8), summed (12) and normed (4); then
// on each of the 4 x 221 tokens' 3,072 outputs: (mag - 1) x base (2 + 4),
// mag x lora (4 + 4), the sum (12). Backward: two kernels a multiply and
// the base output's gradients added, nothing on the weights (the norm is
// detached).
TEST(Dora, RecomputesTheWeightNormEveryForward) {
  const std::string peft = Stacks("peft_mc_llama32_3b_lora_r32_l40s");
  const Scenario lora = LoadScenario(peft), dora = LoadScenario(peft, {"training.dora=true"});
  const TrainingSpec& t = dora.training;
  ASSERT_TRUE(t.pure_bf16);
  const std::vector<Op> fwd = LayerOps(dora.model, t, 1, Pass::kForward, true);
  const std::vector<Op> bwd = LayerOps(dora.model, t, 1, Pass::kBackward, true);
  const double in = 3072, out = 3072, w = in * out, r = 32, n = t.tokens_per_micro_batch();
  EXPECT_DOUBLE_EQ(Bytes(fwd, "lora_q_dora_eye"), 4 * in * in + (4 * in * in + 4 * in * r));
  EXPECT_DOUBLE_EQ(Bytes(fwd, "lora_q_dora_lora_weight"), 4 * w);
  EXPECT_DOUBLE_EQ(Bytes(fwd, "lora_q_dora_weight_"), w * (6 + 8 + 12));
  EXPECT_DOUBLE_EQ(Bytes(fwd, "lora_q_dora_norm"), 4 * w);
  EXPECT_DOUBLE_EQ(Bytes(fwd, "lora_q_dora_base_scale"), n * out * 6);
  EXPECT_DOUBLE_EQ(Bytes(fwd, "lora_q_dora_magnitude_scale"), n * out * 8);
  EXPECT_DOUBLE_EQ(Bytes(fwd, "lora_q_dora_sum"), n * out * 12);
  // Backward: each multiply's two gradients (the magnitude's reduced over
  // the tokens), and the base output's two gradients added (it feeds the
  // sum and the rescaling); an add has no backward kernel of its own.
  int kernels = 0;
  EXPECT_DOUBLE_EQ(Bytes(bwd, "lora_q_dora", &kernels), 2 * n * out * (6 + 8) + n * out * 3 * 2);
  EXPECT_EQ(kernels, 5);
  // LoRA's own kernels are unchanged; DoRA adds 11 kernels a module forward.
  const std::vector<Op> lora_fwd = LayerOps(lora.model, lora.training, 1, Pass::kForward, true);
  EXPECT_EQ(fwd.size(), lora_fwd.size() + 2 * 11);
  // The two multiplies keep the base result (bf16) and the adapter's (fp32).
  EXPECT_DOUBLE_EQ(AdapterSavedBytesPerToken(dora.model, t, 1) - AdapterSavedBytesPerToken(lora.model, lora.training, 1),
                   (3072 + 1024) * (2 + 4));
}

// With lora_dropout the variant does not reuse the base output:
// F.linear(dropout(x), weight) runs again, a GEMM of the layer's size, and
// its input gradient backward; under autocast the eye and the product are
// cast around the 16-bit GEMMs.
TEST(Dora, DropoutComputesTheBaseOutputAgain) {
  const std::string peft = Stacks("peft_mc_llama32_3b_lora_r32_l40s");
  const Scenario dora = LoadScenario(peft, {"training.dora=true", "training.lora_dropout=0.05",
                                            "training.pure_bf16=false"});
  const double n = dora.training.tokens_per_micro_batch();
  double flops = 0;
  int casts = 0;
  for (const Op& op : LayerOps(dora.model, dora.training, 1, Pass::kForward, true)) {
    if (op.name == "lora_q_dora_base_linear") flops += op.flops.value();
    casts += op.name == "lora_q_dora_eye_cast" || op.name == "lora_q_dora_lora_weight_cast";
  }
  EXPECT_DOUBLE_EQ(flops, 2 * n * 3072 * 3072);
  EXPECT_EQ(casts, 2);
  int dgrad = 0;
  for (const Op& op : LayerOps(dora.model, dora.training, 1, Pass::kBackward, true))
    dgrad += op.name == "lora_q_dora_base_dgrad";
  EXPECT_EQ(dgrad, 1);
}

TEST(Dora, RefusedWithoutPeftAdapters) {
  const std::string peft = Stacks("peft_mc_llama32_3b_lora_r32_l40s");
  EXPECT_THROW(LoadScenario(peft, {"training.dora=true", "training.stack=unsloth"}), InputError);
  EXPECT_THROW(LoadScenario(peft, {"training.dora=true", "training.stack=torchtune"}), InputError);
  EXPECT_THROW(LoadScenario(peft, {"training.dora=maybe"}), InputError);
}

}  // namespace
}  // namespace pf

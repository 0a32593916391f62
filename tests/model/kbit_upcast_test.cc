// PEFT's k-bit preparation (model/kbit_upcast.h), the two phases of a
// recomputed step's memory (memory_model.cc StageMemory) and the Hugging
// Face loss by transformers release (model/stack.h Loss), each against the
// bytes worked out by hand.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/job/simulate.h"
#include "sim/model/kbit_upcast.h"
#include "sim/model/memory_model.h"
#include "sim/model/stack.h"
#include "sim/model/stack_kernels.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/spec/validate.h"
#include "tests/test_util.h"

namespace pf {
namespace {

using testing_util::kRoot;

// fms-acceleration's Mistral-7B QLoRA on one A100-80GB (batch 4 x 4096).
Scenario Mistral(const std::vector<std::string>& flags) {
  return LoadScenario(kRoot + "/tests/data/stacks/fms_mistral7b_qlora_bs4.yaml", flags);
}

TEST(KbitUpcast, OnlyAQloraJobOnStackHfIsPreparedSoByDefault) {
  EXPECT_EQ(Mistral({"training.qlora_upcast=all"}).training.qlora_upcast, QloraUpcast::kAll);
  // The scenario says none; the stack's default is PEFT's function as is.
  Scenario hf = LoadScenario(kRoot + "/tests/data/stacks/unsloth_ctx_llama31_8b_hf_80gb.yaml");
  EXPECT_EQ(hf.training.qlora_upcast, QloraUpcast::kAll);
  EXPECT_TRUE(ResidualUpcast(hf.training));
  EXPECT_TRUE(EdgesUpcast(hf.training));
  for (const char* stack : {"llama-factory", "unsloth", "megatron"})
    EXPECT_EQ(LoadScenario(kRoot + "/tests/data/stacks/unsloth_ctx_llama31_8b_hf_80gb.yaml",
                           {std::string("training.stack=") + stack})
                  .training.qlora_upcast,
              QloraUpcast::kNone)
        << stack;
  // LoRA keeps a 16-bit model whatever the key says.
  EXPECT_FALSE(ResidualUpcast(Mistral({"training.method=lora", "training.qlora_upcast=all"}).training));
  // Sharded QLoRA (FSDP over two GPUs): TRL skips the preparation.
  const Scenario fsdp = LoadScenario(kRoot + "/tests/data/stacks/unsloth_ctx_llama31_8b_hf_80gb.yaml",
                                     {"cluster.gpus_per_node=2", "parallel.dp=2", "parallel.zero=3",
                                      "training.global_batch=2"});
  EXPECT_EQ(fsdp.training.qlora_upcast, QloraUpcast::kNone);
}

// Scenarios the layout screen and the fit suggestions derive (another
// stack, ZeRO-3) take the default the loader would give them.
TEST(KbitUpcast, DerivedScenariosResolveTheirOwnDefault) {
  const Scenario s = LoadScenario(kRoot + "/tests/data/stacks/unsloth_ctx_llama31_8b_hf_80gb.yaml");
  ASSERT_EQ(s.training.qlora_upcast, QloraUpcast::kAll);
  Scenario megatron = s;
  megatron.training.stack = Stack::kMegatron;
  ResolveQloraUpcast(megatron);
  EXPECT_EQ(megatron.training.qlora_upcast, QloraUpcast::kNone);
  Scenario sharded = s;
  sharded.parallel.zero = 3, sharded.parallel.dp = 2;
  ResolveQloraUpcast(sharded);
  EXPECT_EQ(sharded.training.qlora_upcast, QloraUpcast::kNone);
  // A value the file gives is kept.
  Scenario given = Mistral({"training.qlora_upcast=norms"});
  given.training.stack = Stack::kMegatron;
  ResolveQloraUpcast(given);
  EXPECT_EQ(given.training.qlora_upcast, QloraUpcast::kNorms);
}

// The measured gap (kbit_upcast.h): 4.0 GiB per 16,384 tokens, the 32
// checkpointed layer inputs at 4 bytes instead of 2.
TEST(KbitUpcast, TheResidualStreamDoublesTheCheckpointedInputs) {
  // Without the runs' dropout, whose saved copies are their own term.
  const Scenario none = Mistral({"training.lora_dropout=0"}),
                 norms = Mistral({"training.qlora_upcast=norms", "training.lora_dropout=0"});
  const double tokens = 4 * 4096, h = 4096;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(norms.model, norms.training, 1, false, 0), tokens * h * 4);
  EXPECT_DOUBLE_EQ(LayerActivationBytes(none.model, none.training, 1, false, 0), tokens * h * 2);
  // Without recompute the norms' tensors and the MLP's outputs double, the
  // attention's 16-bit casts of q, k, v and its output do not. Over the
  // fused count (memory_model.cc EagerSavedBytes) the Trainer's eager code
  // keeps no dropout masks (-2h, -4h in fp32) and silu's output (2f, 4f in
  // fp32), and without the upcast each frozen norm's fp32 input copy (+2h
  // each).
  TrainingSpec a = none.training, b = norms.training;
  a.recompute = b.recompute = Recompute::kNone;
  const double f = 14336, q = 4096, kv = 1024;
  const double plain = 10 * tokens * h + 2 * tokens * (q + 2 * kv) + 2 * tokens * q + 2 * tokens * 2 * f +
                       2 * tokens * f + tokens * (-2 * h + 4 * h + 2 * f);
  const double upcast = 20 * tokens * h + 2 * tokens * (q + 2 * kv) + 2 * tokens * q + 4 * tokens * 2 * f +
                        4 * tokens * f + tokens * (-4 * h + 4 * f);
  EXPECT_DOUBLE_EQ(LayerActivationBytes(none.model, a, 1, false, 0), plain);
  EXPECT_DOUBLE_EQ(LayerActivationBytes(norms.model, b, 1, false, 0), upcast);
  // The whole job: 32 inputs of 16,384 x 4,096 elements, 2 bytes more each.
  const MemoryBreakdown m0 = EstimateMemory(none), m1 = EstimateMemory(norms);
  EXPECT_NEAR((m1.activations + m1.logits - m0.activations - m0.logits).value(),
              32 * tokens * h * 2 + std::max(0.0, LayerActivationBytes(norms.model, b, 1, false, 0) -
                                                      m1.logits.value()) -
                  std::max(0.0, plain - m0.logits.value()),
              1);
  EXPECT_EQ(m1.weights.value(), m0.weights.value());
}

TEST(KbitUpcast, AllKeepsTheEmbeddingsAndHeadInFp32AndSavesTheHeadsCast) {
  const Scenario norms = Mistral({"training.qlora_upcast=norms"}), all = Mistral({"training.qlora_upcast=all"});
  const MemoryBreakdown a = EstimateMemory(norms), b = EstimateMemory(all);
  const double edge = 2.0 * 32000 * 4096 + 4096;  // the embedding, the untied head, the final norm
  EXPECT_NEAR((b.weights - a.weights).value(), edge * 2, 1);
  EXPECT_NEAR((b.logits - a.logits).value(), 32000.0 * 4096 * 2, 1);
}

// fms-acceleration measured the upcast at 2,904 against 3,596 tokens/s at
// batch 4 and 2,987 against 3,663 at batch 8 (1.24x and 1.23x).
TEST(KbitUpcast, TheCastsSlowTheStepAsMeasured) {
  for (const auto& [batch, measured] : {std::pair{4, 3595.714 / 2903.78}, {8, 3662.639 / 2987.456}}) {
    const std::string mb = "training.micro_batch=" + std::to_string(batch);
    const std::string gb = "training.global_batch=" + std::to_string(batch);
    const Result none = Simulate(Mistral({mb, gb})), norms = Simulate(Mistral({mb, gb, "training.qlora_upcast=norms"}));
    ASSERT_TRUE(none.step && norms.step);
    EXPECT_NEAR(none.step->tokens_per_s / norms.step->tokens_per_s / measured, 1.0, 0.05) << batch;
  }
}

TEST(KbitUpcast, EachFourBitLinearCastsItsInputAndOutputAndFlashItsQkv) {
  const Scenario s = Mistral({"training.qlora_upcast=norms"});
  const BlockShape b = BlockShape::Of(s.model, s.training, 1);
  EXPECT_EQ(b.re, 4);
  EXPECT_EQ(b.e, 2);
  std::vector<Op> ops;
  UpcastCastOps(s.model, s.training, b, Pass::kForward, ops);
  // q, k, v, gate, up, down: the input in and the output out, and the
  // weight's two casts (Linear4bit computes in its fp32 input's dtype);
  // FlashAttention's q, k, v.
  ASSERT_EQ(ops.size(), 6u * 2 + 6u * 2 + 3);
  double bytes = 0;
  for (const Op& op : ops) bytes += op.bytes.value();
  const double n = 4 * 4096, h = 4096, f = 14336, q = 4096, kv = 1024;
  const double in = n * (5 * h + f), out = n * (q + 2 * kv + 2 * f + h), flash = n * (q + 2 * kv);
  const double weights = h * (q + 2 * kv) + 3 * h * f;  // not o: its input is the attention's 16-bit output
  EXPECT_NEAR(bytes, (in + out + flash) * 6 + weights * 12, 1);
  // Backward: the token casts only (the gradient reaching MatMul4Bit is
  // 16-bit already).
  std::vector<Op> bwd;
  UpcastCastOps(s.model, s.training, b, Pass::kBackward, bwd);
  EXPECT_EQ(bwd.size(), 6u * 2 + 3);
  std::vector<Op> none_ops;
  UpcastCastOps(s.model, Mistral({}).training, b, Pass::kForward, none_ops);
  EXPECT_TRUE(none_ops.empty());
}

// What transformers' causal-LM loss holds per logit (model/stack.h Loss).
TEST(HfLoss, TheTransformersReleaseSetsWhatTheLossHolds) {
  auto loss = [](const char* release) {
    std::vector<std::string> flags = {"training.stack=hf"};
    if (release) flags.push_back(std::string("training.transformers=") + release);
    return LossOf(LoadScenario(kRoot + "/scenarios/7b_lora_4x4090.yaml", flags).training);
  };
  EXPECT_EQ(loss(nullptr), Loss::kFp32Logits);  // 4.49 on: the labels shifted, not the logits
  EXPECT_EQ(loss("4.36"), Loss::kFp32InModel);
  EXPECT_EQ(loss("4.46"), Loss::kFp32ShiftedCopy);
  EXPECT_EQ(loss("4.48.1"), Loss::kFp32ShiftedCopy);
  EXPECT_EQ(loss("4.49"), Loss::kFp32Logits);
  EXPECT_EQ(loss("5.0"), Loss::kFp32Logits);
  EXPECT_DOUBLE_EQ(LogitsBytesPerElement(Loss::kFp32Logits, 2), 2 + 4 + 4);
  EXPECT_DOUBLE_EQ(LogitsBytesPerElement(Loss::kFp32ShiftedCopy, 2), 2 + 4 + 4 + 4);
  EXPECT_DOUBLE_EQ(LogitsBytesPerElement(Loss::kFp32InModel, 2), 4 + 4 + 4);
  // Other stacks run their own loss whatever the release.
  EXPECT_EQ(LossOf(Mistral({"training.stack=megatron", "training.transformers=4.46"}).training),
            Loss::kVocabParallel);
}

// The loss's working set and one recomputed layer never coexist: a long
// sequence over Llama 3's 128K vocabulary peaks at the loss.
TEST(Memory, TheLossAndTheRecomputedLayerPeakApart) {
  const Scenario s = LoadScenario(kRoot + "/tests/data/stacks/unsloth_ctx_llama31_8b_hf_80gb.yaml");
  const MemoryBreakdown m = EstimateMemory(s);
  const double held = 32.0 * 28454 * 4096 * 4;  // fp32 checkpointed inputs (qlora_upcast all)
  EXPECT_GT(m.logits.value(), m.phase_cache.value());
  EXPECT_NEAR(m.activations.value(), held, 1);  // the layer is inside the loss's share
  EXPECT_GT(m.phase_cache.value(), 0);
  // nvidia-smi would show the cached layer's blocks too, as far as the GPU
  // holds them.
  EXPECT_NEAR(m.observed.value(), std::min(m.capacity.value(), (m.total + m.phase_cache).value()), 1);
}

// Pure bf16 (training.pure_bf16): full training holds 8 B a parameter
// (bf16 weights, gradients and Adam moments, no master copy) and its foreach
// Adam moves half the bytes; PEFT's fp32 adapters run without autocast.
TEST(PureBf16, FullTrainingHoldsEightBytesAParameter) {
  auto full = [](bool pure) {
    std::vector<std::string> flags = {"training.method=full", "training.stack=fsdp"};
    if (pure) flags.push_back("training.pure_bf16=true");
    return EstimateMemory(LoadScenario(kRoot + "/scenarios/7b_lora_4x4090.yaml", flags));
  };
  const MemoryBreakdown mixed = full(false), pure = full(true);
  EXPECT_EQ(pure.weights.value(), mixed.weights.value());
  EXPECT_EQ(pure.gradients.value(), mixed.gradients.value());
  EXPECT_NEAR(pure.optimizer.value() / mixed.optimizer.value(), 4.0 / 12, 1e-12);
  EXPECT_DOUBLE_EQ(AdamBytesPerParam(OptimizerImpl::kForeach, 2, true), 42);
  EXPECT_DOUBLE_EQ(AdamBytesPerParam(OptimizerImpl::kFused, 2, true), 14);
}

TEST(PureBf16, PeftsAdaptersRunInFp32WithTheirCasts) {
  const Scenario mixed = LoadScenario(kRoot + "/tests/data/stacks/fms_mistral7b_lora_bs4.yaml",
                                      {"training.pure_bf16=false", "training.lora_dropout=0"});
  const Scenario pure = LoadScenario(kRoot + "/tests/data/stacks/fms_mistral7b_lora_bs4.yaml",
                                     {"training.lora_dropout=0"});
  ASSERT_TRUE(pure.training.pure_bf16);
  const BlockShape b = BlockShape::Of(pure.model, pure.training, 1);
  std::vector<Op> a, c;
  AdapterOps(mixed.model, mixed.training, b, TraitsOf(Stack::kHf), Pass::kForward, a);
  AdapterOps(pure.model, pure.training, b, TraitsOf(Stack::kHf), Pass::kForward, c);
  ASSERT_EQ(c.size(), a.size() + 2 * 4);  // an input and an output cast on each of q, k, v, o
  int fp32_gemms = 0;
  for (const Op& op : c) fp32_gemms += op.fp32 ? 1 : 0;
  EXPECT_EQ(fp32_gemms, 2 * 4);  // A and B of each
  // lora_A saves the fp32 cast of each adapted input: q, k, v read the
  // hidden state, o the attention's output (4,096 wide here).
  EXPECT_DOUBLE_EQ(AdapterSavedBytesPerToken(pure.model, pure.training, 1), 4.0 * 4 * 4096);
  EXPECT_DOUBLE_EQ(AdapterSavedBytesPerToken(mixed.model, mixed.training, 1), 0);
}

TEST(LoraDropout, CostsAKernelAndItsMaskPerAdaptedInput) {
  const Scenario none = Mistral({"training.lora_dropout=0"}), drop = Mistral({"training.lora_dropout=0.1"});
  const BlockShape b = BlockShape::Of(none.model, none.training, 1);
  std::vector<Op> a, c;
  AdapterOps(none.model, none.training, b, TraitsOf(Stack::kHf), Pass::kForward, a);
  AdapterOps(drop.model, drop.training, b, TraitsOf(Stack::kHf), Pass::kForward, c);
  ASSERT_EQ(c.size(), a.size() + 4);
  double extra = 0;
  for (const Op& op : c)
    if (op.name.find("_dropout") != std::string::npos) extra += op.bytes.value();
  EXPECT_NEAR(extra, 4 * 4096 * 4 * 4096 * (2 * 2 + 1), 1);  // n x in x (read, write, mask byte), 4 layers
  // The dropped copy and the mask are saved for lora_A's backward.
  EXPECT_DOUBLE_EQ(AdapterSavedBytesPerToken(drop.model, drop.training, 1), (2 + 1) * 4.0 * 4096);
}

TEST(PureBf16, PeftAdaptersNeedTheGpusFp32Rate) {
  try {
    LoadScenario(kRoot + "/tests/data/stacks/fms_mistral7b_lora_bs4.yaml", {"cluster.node.gpu=Ascend-910B"});
    FAIL() << "fp32 adapters on a GPU without an fp32 rate were accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "training.pure_bf16") << e.what();
    EXPECT_NE(std::string(e.what()).find("no fp32 rate"), std::string::npos) << e.what();
  }
}

TEST(PureBf16, NotOnAVisionModel) {
  for (const char* key : {"training.pure_bf16=true", "training.lora_dropout=0.1", "training.transformers=4.48",
                          "training.qlora_upcast=none"}) {
    try {
      LoadScenario(kRoot + "/scenarios/resnet50_1xA100.yaml", {key});
      FAIL() << key << " was accepted on a vision model";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("vision model"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace pf

// torchtune as a stack (model/stack.cc): the kernels and saved tensors its
// modules add to the Trainer's eager ones, its defaults, training.compile,
// and the messages for what it cannot run (its rows:
// stack_reference_test.cc; the stacks' shared mechanisms:
// stack_kernels_test.cc).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/model/host_memory.h"
#include "sim/model/memory_model.h"
#include "sim/model/model_math.h"
#include "sim/model/stack.h"
#include "sim/model/stack_kernels.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/workload/workload_builder.h"
#include "tests/job/stack_test_util.h"
#include "tests/test_util.h"

namespace pf {
namespace {

using testing_util::CountNamed;
using testing_util::LoadError;
using testing_util::ScenarioPath;

// torchtune (stack.cc): its modules op by op as the Trainer's, plus K and V
// repeated to the queries' width before attention and the output copied
// back (forward: Llama-3.2-3B's 1024-wide K and V read and written at
// 3072, 2 x (1024 + 3072) elements a token, and the 3072-wide output read
// and written); fused AdamW; and its defaults: pure bf16 (its dtype),
// per-sample attention over packs (FlexAttention's block-causal mask),
// micro-batches padded to their longest sample.
TEST(Torchtune, RepeatsKvAndDefaultsToItsRecipes) {
  const Scenario tt = LoadScenario(ScenarioPath("tt_llama32_3b_full_packed"));
  const Scenario hf = LoadScenario(ScenarioPath("tt_llama32_3b_full_packed"), {"training.stack=hf"});
  const double tokens = tt.training.tokens_per_micro_batch(), e = 2;
  for (Pass pass : {Pass::kForward, Pass::kBackward}) {
    const auto tt_ops = LayerOps(tt.model, tt.training, 1, pass, false);
    const auto hf_ops = LayerOps(hf.model, hf.training, 1, pass, false);
    double extra = 0;
    for (const Op& op : tt_ops)
      if (op.name.rfind("kv_repeat", 0) == 0 || op.name.rfind("attn_out_copy", 0) == 0) extra += op.bytes.value();
    EXPECT_DOUBLE_EQ(extra, tokens * (2 * (1024 + 3072) + 2 * 3072) * e);
    // RoPE in fp32 over pairs: 48 B an element of q and k forward (cast
    // 6, four multiplies 16, subtract and add 12, stack 8, cast back 6)
    // where transformers' bf16 rotate_half moves 20.
    double tt_rope = 0, hf_rope = 0;
    for (const Op& op : tt_ops)
      if (op.name.rfind("rope", 0) == 0 && op.name.rfind("rope_cache", 0) != 0) tt_rope += op.bytes.value();
    for (const Op& op : hf_ops)
      if (op.name.rfind("rope_mul", 0) == 0 || op.name.rfind("rope_neg", 0) == 0 || op.name.rfind("rope_add", 0) == 0 ||
          (op.name.rfind("rope_cat", 0) == 0 && op.bytes.value() > tokens * 4096 * e))
        hf_rope += op.bytes.value();
    const double qk = tokens * (3072 + 1024), factor = pass == Pass::kForward ? 1 : 2;
    EXPECT_DOUBLE_EQ(tt_rope, factor * 48 * qk);
    EXPECT_DOUBLE_EQ(hf_rope, factor * 20 * qk);
  }
  EXPECT_EQ(CountNamed(LayerOps(hf.model, hf.training, 1, Pass::kForward, false), "kv_repeat"), 0);
  EXPECT_EQ(TraitsOf(Stack::kTorchtune).optimizer, OptimizerImpl::kFused);
  EXPECT_TRUE(tt.training.pure_bf16);
  EXPECT_TRUE(tt.training.attends_per_sample());
  EXPECT_EQ(tt.training.padding, Padding::kLongest);
  EXPECT_FALSE(LoadScenario(ScenarioPath("tt_llama32_3b_full_packed"), {"training.precision=fp16"}).training.pure_bf16);
  EXPECT_FALSE(hf.training.pure_bf16);
}

// training.compile (torchtune's compile: True): each layer's elementwise
// ops fused (one norm kernel where eager runs eight, one RoPE kernel), the
// K and V still repeated for the attention kernel, the loss one fused pass
// (8 B a logit kept: the fp32 logits and their gradient); the layers keep
// the fused count, less the dropout masks, plus the repeated K and V and
// the output's copy: 10h + 4q + 4kv + 6f - 2h + 4(q - kv) + 2q.
TEST(Torchtune, CompileFusesItsLayers) {
  const Scenario c = LoadScenario(ScenarioPath("tt_llama32_3b_full_packed_compile"));
  const auto ops = LayerOps(c.model, c.training, 1, Pass::kForward, false);
  EXPECT_EQ(CountNamed(ops, "norm1"), 1);
  EXPECT_EQ(CountNamed(ops, "rope"), 1);
  EXPECT_EQ(CountNamed(ops, "kv_repeat"), 1);
  EXPECT_EQ(LossOf(c.training), Loss::kFp32ModelCompiled);
  EXPECT_DOUBLE_EQ(LogitsBytesPerElement(LossOf(c.training), 2), 8);
  const double sb = 4096 * 2, h = 3072, q = 3072, kv = 1024, f = 8192;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(c.model, c.training, 1, false),
                   sb * (10 * h + 4 * q + 4 * kv + 6 * f - 2 * h + 4 * (q - kv) + 2 * q));
  EXPECT_NE(LoadError("qwen_7b_lora_2048", {"training.compile=true"})
                .find("training.compile: true with stack \"hf\"; accepted: stack torchtune"),
            std::string::npos);
}

// training.loss: chunked (CEWithChunkedOutputLoss, 8 chunks): eager, each
// chunk's fp32 log-softmax kept and one chunk's fp32 gradients and 16-bit
// one at the backward's start (4 + 10/8 B a logit); compiled, the 16-bit
// chunks and one chunk's 16-bit gradient (2 + 2/8), read once forward,
// read and written backward.
TEST(Torchtune, ChunkedLossHoldsOneChunkUpcast) {
  Scenario s = LoadScenario(ScenarioPath("tt_llama32_3b_full_packed_chunked"));
  EXPECT_EQ(LossOf(s.training), Loss::kChunkedCompiled);
  EXPECT_DOUBLE_EQ(LogitsBytesPerElement(LossOf(s.training), 2), 2.25);
  EXPECT_DOUBLE_EQ(LossTrafficPerLogit(LossOf(s.training), 2, Pass::kForward), 2);
  EXPECT_DOUBLE_EQ(LossTrafficPerLogit(LossOf(s.training), 2, Pass::kBackward), 4);
  s.training.compile = false;
  EXPECT_EQ(LossOf(s.training), Loss::kFp32ModelChunked);
  EXPECT_DOUBLE_EQ(LogitsBytesPerElement(LossOf(s.training), 2), 5.25);
  EXPECT_NE(LoadError("qwen_7b_lora_2048", {"training.loss=chunked"})
                .find("training.loss: \"chunked\" with stack \"hf\", which runs its own loss; accepted: stack "
                      "torchtune (CEWithChunkedOutputLoss), or cross_entropy"),
            std::string::npos);
}

// With the gradients set to None after each step, the backward's end
// holds every gradient with the first layer's checkpoint and the layer
// recomputed from it: under checkpointing and a chunked loss that phase is
// the peak (torchtune's ladder, 24.9 GiB). And torchtune's step reads and
// writes each gradient once more to scale it by 1/tokens: 14 + 2 x 2 B a
// parameter under pure bf16.
TEST(Torchtune, BackwardEndIsThePeakUnderCheckpointing) {
  const Scenario s = LoadScenario(ScenarioPath("tt_llama32_3b_full_packed_ac"));
  const MemoryBreakdown m = EstimateMemory(s);
  TrainingSpec whole = s.training;
  whole.recompute = Recompute::kNone;
  const double layer = LayerActivationBytes(s.model, whole, 1, false);
  const double checkpoint = m.activations.value() / s.model.layers;
  EXPECT_NEAR(LiveTensors(m).value(),
              (m.weights + m.optimizer + m.gradients).value() + layer + checkpoint, 1e3);
  EXPECT_GT(m.gradients.value() + layer + checkpoint, (m.activations + m.logits).value());
  EXPECT_DOUBLE_EQ(StepBytesPerParam(s.training), 18);
}

// optimizer_in_bwd: each gradient stepped and freed as the backward
// produces it, so at most one weight matrix's gradient lives, the tied
// embedding's (128,256 x 3,072 in bf16) from the LM head's backward to
// the embedding's, beside everything else; and the recipe's own
// scale_grads and step are skipped (14 B a parameter).
TEST(Torchtune, OptimizerInBackwardKeepsOneGradient) {
  const Scenario s = LoadScenario(ScenarioPath("tt_llama32_3b_full_packed_optim_bwd"));
  const MemoryBreakdown m = EstimateMemory(s);
  EXPECT_DOUBLE_EQ(m.gradients.value(), 128256.0 * 3072 * 2);
  EXPECT_DOUBLE_EQ(m.phases_apart.value(), 0);
  EXPECT_DOUBLE_EQ(LiveTensors(m).value(), (m.weights + m.gradients + m.optimizer + m.activations + m.logits).value());
  EXPECT_DOUBLE_EQ(StepBytesPerParam(s.training), 14);
  struct Case {
    std::vector<std::string> sets;
    const char* message;
  };
  const Case cases[] = {
      {{"training.method=lora"}, "true with method \"lora\"; accepted: method full"},
      {{"training.global_batch=4"}, "true with 2 micro-batches a step, which torchtune refuses"},
      {{"cluster.gpus_per_node=2", "parallel.dp=2", "parallel.zero=3", "training.global_batch=4"},
       "true on 2 data-parallel ranks; accepted: dp 1"},
      {{"training.optimizer_in_backward=yes please"}, "is not a boolean (accepted: true, false)"},
  };
  for (const Case& c : cases)
    EXPECT_NE(LoadError("tt_llama32_3b_full_packed_optim_bwd", c.sets).find(c.message), std::string::npos)
        << c.sets[0];
  EXPECT_NE(LoadError("qwen_7b_lora_2048", {"training.optimizer_in_backward=true"})
                .find("training.optimizer_in_backward: true with stack \"hf\"; accepted: stack torchtune"),
            std::string::npos);
}

// enable_activation_offloading under checkpointing: every layer's
// checkpoint (8,192 x 3,072 in bf16) in pinned host memory, the last five
// (the forward's stash) on the GPU; one copy out beside each forward and
// one back beside each backward, of all 28 checkpoints, each joined
// before the pass counts as done.
TEST(Torchtune, OffloadedCheckpointsLiveOnTheHost) {
  const Scenario s = LoadScenario(ScenarioPath("tt_llama32_3b_full_packed_offload"));
  const double checkpoint = 8192.0 * 3072 * 2;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(s.model, s.training, 1, false), checkpoint);
  EXPECT_DOUBLE_EQ(EstimateMemory(s).activations.value(), kOffloadStash * checkpoint);
  EXPECT_DOUBLE_EQ(EstimateHostMemory(s).activations.value(), 28 * checkpoint);
  const preflight::Workload w = BuildWorkload(s);
  int out = 0, back = 0;
  for (const preflight::Task& t : w.tasks()) {
    if (t.name() != "activations_to_host" && t.name() != "activations_from_host") continue;
    ASSERT_TRUE(t.has_io());
    EXPECT_DOUBLE_EQ(t.io().size_bytes(), 28 * checkpoint);
    (t.io().direction() == preflight::Io::DEVICE_TO_HOST ? out : back) += 1;
  }
  EXPECT_EQ(out, 1);
  EXPECT_EQ(back, 1);
  EXPECT_NE(LoadError("tt_llama32_3b_full_packed_offload", {"training.recompute=none"})
                .find("training.offload_activations: true with recompute \"none\", which torchtune refuses; "
                      "accepted: recompute full"),
            std::string::npos);
  EXPECT_NE(LoadError("tt_llama32_3b_full_packed_offload", {"training.offload_activations=maybe"})
                .find("training.offload_activations: \"maybe\" is not a boolean (accepted: true, false)"),
            std::string::npos);
  EXPECT_NE(LoadError("qwen_7b_lora_2048", {"training.offload_activations=true"})
                .find("training.offload_activations: true with stack \"hf\"; accepted: stack torchtune"),
            std::string::npos);
}

// torchtune's LoRALinear keeps its adapters in the model's bf16: rank 64
// on q, v, o and the MLP of Llama-3.2-3B is 64 x (6144 + 4096 + 6144 +
// 3 x 11264) = 3,211,264 parameters a layer, with 2 B of gradient and 4 B
// of Adam moments each (PEFT's fp32 adapters would take 4 + 8).
TEST(Torchtune, AdaptersAreSixteenBit) {
  const Scenario s = LoadScenario(ScenarioPath("tt_llama32_3b_lora_packed"));
  const double adapters = 64.0 * (6144 + 4096 + 6144 + 3 * 11264) * 28;
  const MemoryBreakdown m = EstimateMemory(s);
  EXPECT_DOUBLE_EQ(m.gradients.value(), adapters * 2);
  EXPECT_DOUBLE_EQ(m.optimizer.value(), adapters * 4);
  EXPECT_DOUBLE_EQ(StepBytesPerParam(s.training), 14 + 4);
}

// What torchtune cannot run, each with its key: a name close to it, tensor
// parallelism (its recipes split no layers), data parallelism without
// FSDP2's sharding, training.compile's values.
TEST(Torchtune, RefusesWhatItsRecipesDoNotRun) {
  struct Case {
    const char* scenario;
    std::vector<std::string> sets;
    const char* message;
  };
  const Case cases[] = {
      {"nemo_llama2_70b_lora", {"training.stack=torchtun"}, "did you mean 'torchtune'"},
      {"nemo_llama2_70b_lora", {"training.stack=torchtune"}, "parallel.tp: 2 with stack \"torchtune\""},
      {"qwen_7b_full_zero3_2gpu",
       {"training.stack=torchtune", "parallel.zero=1"},
       "parallel.zero: 1 with stack \"torchtune\" on 2 data-parallel ranks, whose recipes shard with FSDP2; "
       "accepted: 3 (fsdp_reshard_after_forward true) or 2 (false), or dp 1"},
      {"tt_llama32_3b_full_packed", {"training.compile=sometimes"},
       "training.compile: \"sometimes\" is not a boolean (accepted: true, false)"},
      {"tt_llama32_3b_full_packed", {"training.pure_bf16=true", "training.precision=fp16"}, "training.pure_bf16"},
      {"tt_llama32_3b_full_packed", {"training.recompute=selective"},
       "training.recompute: \"selective\" with stack \"torchtune\", whose activation checkpointing recomputes "
       "whole layers; accepted here: none, full, or stack megatron, nemo, deepspeed or fsdp"},
      {"qwen_7b_lora_2048", {"training.recompute=selective"}, "\"selective\" with stack \"hf\""},
      {"tt_llama32_3b_full_packed", {"training.loss=chunky"},
       "training.loss: \"chunky\" is not accepted (did you mean 'chunked'?)"},
  };
  for (const Case& c : cases) EXPECT_NE(LoadError(c.scenario, c.sets).find(c.message), std::string::npos) << c.sets[0];
}

}  // namespace
}  // namespace pf

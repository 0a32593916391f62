// Per-GPU memory: what fits on an 8x 80 GB node, how ZeRO and recompute
// shrink it, and the 16 bytes per parameter of mixed-precision Adam.
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/model/fit_suggestions.h"
#include "sim/model/memory_model.h"
#include "tests/test_util.h"
#include "sim/model/model_math.h"
#include "sim/model/stack.h"
#include "sim/model/stack_kernels.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/spec/names.h"

namespace pf {
namespace {

const std::string kRoot = PREFLIGHT_SOURCE_DIR;
constexpr double kGiB = 1024.0 * 1024 * 1024;

std::string Path(const std::string& name) { return kRoot + "/scenarios/" + name; }

// A Llama-2-7B scenario file from its cluster, parallel and training
// mappings (flow style, without braces); returns its path.
std::string Write7b(const std::string& tag, const std::string& cluster, const std::string& parallel,
                    const std::string& training) {
  const std::string path = testing_util::UniqueTempPath(tag);
  std::ofstream(path) << "model: llama2-7b\n"
                      << "cluster: {" << cluster << "}\n"
                      << "parallel: {" << parallel << "}\n"
                      << "training: {" << training << "}\n";
  return path;
}

// Llama-2-7B full fine-tune, one 8x A100 80GB node, tp1 pp1 dp8.
std::string Write7bScenario() {
  return Write7b("memory_7b", "node: a100-80gb-sxm-8x, nodes: 1", "tp: 1, pp: 1, dp: 8, zero: 0",
                 "method: full, precision: bf16, seq_len: 4096, micro_batch: 1, global_batch: 64, "
                 "recompute: none, tokens: 1B");
}

double States(const MemoryBreakdown& m) {
  return (m.weights + m.gradients + m.optimizer).value();
}

// torch's foreach AdamW holds one more moment-sized tensor list while it
// steps (adamw.py _multi_tensor_adamw: torch._foreach_sqrt of exp_avg_sq),
// and the Trainer sets the gradients to None after each step, so the
// forward's tensors and the step's are two phases. fms-acceleration's
// pure-bf16 Mistral-7B peaks at 10.0 B a parameter at batch 4 and 8 alike.
TEST(Memory, ForeachAdamStepsWithATemporaryAfterTheForwardIsFreed) {
  const std::string dir = kRoot + "/tests/data/stacks/";
  const double params = CountParams(LoadScenario(dir + "fms_mistral7b_full_bs4.yaml").model).total(32);
  for (const char* file : {"fms_mistral7b_full_bs4.yaml", "fms_mistral7b_full_bs8.yaml"}) {
    const MemoryBreakdown m = EstimateMemory(LoadScenario(dir + file));
    EXPECT_DOUBLE_EQ(m.optimizer_step.value(), 2 * params) << file;
    EXPECT_NEAR(LiveTensors(m).value(), 10 * params, 1) << file;  // the step's peak
  }
  // Accumulating micro-batches, the gradients are alive in the forward too:
  // the two phases share them.
  const MemoryBreakdown ga = EstimateMemory(LoadScenario(dir + "fms_mistral7b_full_bs4.yaml", {"training.global_batch=8"}));
  EXPECT_NEAR(ga.phases_apart.value(), std::min(ga.optimizer_step, ga.activations + ga.logits).value(), 1);
  // Mixed precision: fp32 moments, a 4-byte temporary.
  EXPECT_DOUBLE_EQ(EstimateMemory(LoadScenario(dir + "fms_mistral7b_full_bs4.yaml", {"training.pure_bf16=false"}))
                       .optimizer_step.value(),
                   4 * params);
  // DeepSpeed's engine under the Trainer, and Megatron, step their fused
  // Adam: no temporary, gradients kept.
  for (std::vector<std::string> sets : {std::vector<std::string>{"training.stack=megatron", "training.pure_bf16=false"},
                                        {"cluster.gpus_per_node=2", "parallel.dp=2", "parallel.zero=1",
                                         "training.global_batch=8"}}) {
    const MemoryBreakdown m = EstimateMemory(LoadScenario(dir + "fms_mistral7b_full_bs4.yaml", sets));
    EXPECT_EQ(m.optimizer_step.value(), 0) << sets[0];
    EXPECT_EQ(m.phases_apart.value(), 0) << sets[0];
  }
}

// The Trainer's DistributedDataParallel (accelerate: gradient_as_bucket_view
// False) keeps its all-reduce buckets beside the gradients: a second copy,
// through both phases. Not under DeepSpeed ZeRO, nor on one GPU.
TEST(Memory, TrainerDdpKeepsItsBucketsBesideTheGradients) {
  const std::string file = kRoot + "/tests/data/stacks/fms_mistral7b_full_bs4.yaml";
  const std::vector<std::string> ddp = {"cluster.gpus_per_node=2", "parallel.dp=2", "training.global_batch=8"};
  const MemoryBreakdown one = EstimateMemory(LoadScenario(file));
  const MemoryBreakdown two = EstimateMemory(LoadScenario(file, ddp));
  EXPECT_EQ(one.ddp_buckets.value(), 0);
  EXPECT_DOUBLE_EQ(two.ddp_buckets.value(), two.gradients.value());
  EXPECT_NEAR((LiveTensors(two) - LiveTensors(one)).value(), two.gradients.value(), 1);
  std::vector<std::string> zero1 = ddp;
  zero1.push_back("parallel.zero=1");
  EXPECT_EQ(EstimateMemory(LoadScenario(file, zero1)).ddp_buckets.value(), 0);
}

TEST(Memory, LoraOn8xA800Fits) {
  const Scenario s = LoadScenario(Path("70b_8xA800_tp8.yaml"));
  const MemoryBreakdown m = EstimateMemory(s);
  EXPECT_TRUE(m.fits);
  EXPECT_EQ(m.capacity.value(), 81920.0 * 1024 * 1024);  // A800: 81920 MiB
  EXPECT_LE(m.total.value(), m.capacity.value());
  // Frozen bf16 weights of 70B over tp 8: ~17.2 GB.
  EXPECT_NEAR(m.weights.value(), 2 * 68976648192.0 / 8, 0.01 * m.weights.value());
  EXPECT_TRUE(SuggestFits(s).empty());
}

TEST(Memory, FullFineTuneOn8xA800DoesNotFit) {
  const Scenario s = LoadScenario(Path("70b_8xA800_full.yaml"));
  const MemoryBreakdown m = EstimateMemory(s);
  EXPECT_FALSE(m.fits);
  EXPECT_GT(m.total.value(), m.capacity.value());
  // ~1.1 TB of weights, gradients and Adam states over 8 GPUs.
  EXPECT_GT(States(m), 130e9);
}

// Every suggestion fits, and the --set flags it names reproduce it.
void CheckSuggestions(const std::string& file) {
  const Scenario s = LoadScenario(file);
  const auto fits = SuggestFits(s);
  ASSERT_FALSE(fits.empty());
  const double capacity = s.cluster.node.gpu.memory.value();
  for (const auto& f : fits) {
    SCOPED_TRACE(f.change);
    EXPECT_FALSE(f.change.empty());
    EXPECT_FALSE(f.overrides.empty());
    EXPECT_GT(f.per_gpu.value(), 0);
    EXPECT_LE(f.per_gpu.value(), capacity);
    Scenario applied;
    try {
      applied = LoadScenario(file, f.overrides);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "flags do not load: " << e.what();
      continue;
    }
    const MemoryBreakdown m = EstimateMemory(applied);
    EXPECT_TRUE(m.fits);
    EXPECT_NEAR(m.total.value(), f.per_gpu.value(), 1e-6 * capacity);
  }
}

// 70b_8xA800_full.yaml with ZeRO 1, and with or without an explicit dp.
std::string WriteZero1(bool explicit_dp) {
  std::ifstream in(Path("70b_8xA800_full.yaml"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string from = "dp: 1, zero: 0";
  text.replace(text.find(from), from.size(), explicit_dp ? "dp: 1, zero: 1" : "zero: 1");
  const std::string path = testing_util::UniqueTempPath(std::string("memory_zero1_") +
                           (explicit_dp ? "dp" : "nodp"));
  std::ofstream(path) << text;
  return path;
}

TEST(Memory, SuggestionsFitAndCanBeApplied) {
  CheckSuggestions(Path("70b_8xA800_full.yaml"));
  CheckSuggestions(WriteZero1(false));  // includes "4 nodes (dp 4)"
}

// DISABLED: the "N nodes (dp M)" suggestion gives only cluster.nodes=N, so
// with dp written in the file the flags fail validation (tp x pp x dp = 8,
// but the cluster has 32 GPUs); it should also set parallel.dp=M.
TEST(Memory, MoreNodesSuggestionAppliesWithExplicitDp) {
  CheckSuggestions(WriteZero1(true));
}

TEST(Memory, ZeroStagesShrinkFullFineTune) {
  Scenario s = LoadScenario(Write7bScenario());
  ASSERT_EQ(s.parallel.dp, 8);
  std::vector<MemoryBreakdown> by_stage;
  for (int z = 0; z <= 3; ++z) {
    s.parallel.zero = z;
    by_stage.push_back(EstimateMemory(s));
  }
  for (int z = 1; z <= 3; ++z) {
    EXPECT_LT(by_stage[z].total.value(), by_stage[z - 1].total.value()) << "stage " << z;
    EXPECT_LT(States(by_stage[z]), States(by_stage[z - 1])) << "stage " << z;
  }
  const double P = 6738415616.0;
  EXPECT_NEAR(by_stage[1].optimizer.value(), 12 * P / 8, 1);   // stage 1: optimizer / dp
  EXPECT_NEAR(by_stage[2].gradients.value(), 4 * P / 8, 1);    // stage 2: + gradients (fp32: Megatron's bf16)
  EXPECT_NEAR(by_stage[3].weights.value(), 2 * P / 8, 1);      // stage 3: + weights
  EXPECT_GT(by_stage[3].zero_buffers.value(), 0);
  EXPECT_EQ(by_stage[2].zero_buffers.value(), 0);
  // Activations do not depend on the ZeRO stage.
  EXPECT_EQ(by_stage[0].activations.value(), by_stage[3].activations.value());
}

TEST(Memory, FullRecomputeSavesActivations) {
  Scenario s = LoadScenario(Write7bScenario());
  ASSERT_EQ(s.training.recompute, Recompute::kNone);
  const MemoryBreakdown none = EstimateMemory(s);
  s.training.recompute = Recompute::kFull;
  const MemoryBreakdown full = EstimateMemory(s);
  EXPECT_LT(full.activations.value(), none.activations.value() / 4);
  EXPECT_LT(full.total.value(), none.total.value());
  EXPECT_EQ(States(full), States(none));
  // Full recompute keeps each layer's input (2 s b h bytes) plus one layer's
  // rematerialised activations, as far as they exceed the loss's working
  // set, which is freed before the first layer is recomputed; the smaller
  // of the two stays in the allocator's cache.
  const double sbh2 = 2.0 * 4096 * 1 * 4096;
  const double layer = none.activations.value() / 32;
  ASSERT_GT(full.logits.value(), 0);
  EXPECT_NEAR(full.activations.value(), 32 * sbh2 + std::max(0.0, layer - full.logits.value()),
              1e-6 * full.activations.value());
  EXPECT_NEAR(full.phase_cache.value(), std::min(layer, full.logits.value()), 1);
  EXPECT_EQ(none.phase_cache.value(), 0);
}

TEST(Memory, FullTrainingStatesAre16BytesPerParameterOr18WithFp32Gradients) {
  // tp 1, pp 1, bf16 on Megatron: exactly 2 + 4 + 12 bytes per parameter
  // (its gradient buffer is fp32: Megatron's distributed optimizer guide,
  // "bf16 param, fp32 grads", 18 bytes without sharding); on FSDP and in
  // fp16, 2 + 2 + 12.
  const Scenario s7 = LoadScenario(Write7bScenario());
  ASSERT_EQ(s7.training.stack, Stack::kMegatron);
  EXPECT_NEAR(States(EstimateMemory(s7)), 18 * 6738415616.0, 1.0);
  EXPECT_NEAR(TrainableParams(s7), 6738415616.0, 1.0);
  EXPECT_NEAR(States(EstimateMemory(LoadScenario(Write7bScenario(), {"training.stack=fsdp"}))),
              16 * 6738415616.0, 1.0);
  EXPECT_NEAR(States(EstimateMemory(LoadScenario(Write7bScenario(), {"training.precision=fp16"}))),
              16 * 6738415616.0, 1.0);
  // 70B over tp 8: 18 P / 8 (the final norm is replicated: within 1%).
  const Scenario s70 = LoadScenario(Path("70b_8xA800_full.yaml"));
  ASSERT_EQ(s70.training.stack, Stack::kMegatron);
  const double P = CountParams(s70.model).total(s70.model.layers);
  const double want = 18 * P / (s70.parallel.tp * s70.parallel.pp);
  EXPECT_NEAR(States(EstimateMemory(s70)), want, 0.01 * want);
  // Beyond the tensors: the CUDA context (400 MB + cuBLAS's 9.1 MiB), the
  // TP8 communicator's ring and tree buffers on the A800's 8 NVLinks (16
  // channels x 2 x 12 MiB), the allocator's 5% of live tensors.
  const MemoryBreakdown m = EstimateMemory(s70);
  ASSERT_EQ(s70.parallel.tp, 8);
  ASSERT_EQ(s70.parallel.dp * s70.parallel.pp, 1);
  EXPECT_NEAR(m.cuda_context.value(), 400e6 + 4096 * 1024 * 2 + 16 * 1024 * 8 + kMiB, 1.0);
  EXPECT_NEAR(m.nccl_buffers.value(), 16 * 2 * 12 * kMiB, 1.0);
  EXPECT_NEAR(m.allocator_reserve.value(), 0.05 * (m.total - m.framework).value(), 1.0);
  EXPECT_NEAR(m.framework.value(), (m.cuda_context + m.nccl_buffers + m.allocator_reserve).value(), 1.0);
}

TEST(Memory, PipelineStagesHoldInFlightActivations) {
  // 1F1B: stage 0 of pp keeps pp micro-batches alive, so splitting layers
  // by pp does not divide stage-0 activations by pp.
  Scenario s = LoadScenario(Path("megatron_39p1b_512xA100.yaml"));
  ASSERT_EQ(s.parallel.pp, 2);
  const MemoryBreakdown m = EstimateMemory(s);
  EXPECT_TRUE(m.fits);
  s.parallel.pp = 1;
  s.parallel.dp *= 2;
  const MemoryBreakdown one = EstimateMemory(s);
  EXPECT_GT(m.activations.value(), 0.9 * one.activations.value());
}


// Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large
// Transformer Models"), Table 2: activation bytes per layer for GPT-3 175B
// (a = 96 heads, h = 12288) at s = 2048, b = 1, t = 8, reproduced exactly,
// with the hidden dropout their GPT trains with (its two 1-byte masks are
// 2 of the replicated 10 sbh).
// Eager modeling code keeps more than the fused layers Korthikanti et al.
// count, as autograd saves it (memory_model.cc EagerSavedBytes), per token
// of a layer in bf16 without recompute. torchtune's Llama-3.2-3B (h 3072,
// q 3072, kv 1024, f 8192), trained in full: each RMSNorm its fp32 input
// (4h), its bf16 normalized tensor (2h) and its output (2h); q, and K and
// V repeated to q's width (2q each), FlexAttention's output and its
// contiguous copy (2q each); the MLP's gate, silu, up and product outputs
// (2f each); no dropout masks. 16h + 10q + 8f = 145,408 B, where the
// fused count is 8h + 4q + 4kv + 6f = 90,112 B (Korthikanti's 10h less the
// two dropout masks of a model that does not drop out; 10h where it does).
TEST(Memory, EagerCodeKeepsWhatAutogradSaves) {
  ModelSpec m;
  m.layers = 28, m.hidden = 3072, m.heads = 24, m.kv_heads = 8, m.ffn = 8192, m.ffn_kind = FfnKind::kSwiglu;
  TrainingSpec t;
  t.seq_len = 4096, t.micro_batch = 2, t.precision = Precision::kBf16, t.recompute = Recompute::kNone;
  t.attention = Attention::kFlash, t.method = Method::kFull;
  const double sb = 4096 * 2, h = 3072, q = 3072, kv = 1024, f = 8192;
  t.stack = Stack::kMegatron;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, t, 1, false), sb * (8 * h + 4 * q + 4 * kv + 6 * f));
  m.dropout = 0.1;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, t, 1, false), sb * (10 * h + 4 * q + 4 * kv + 6 * f));
  m.dropout = 0;
  t.stack = Stack::kTorchtune;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, t, 1, false), sb * 145408);
  EXPECT_DOUBLE_EQ(145408, 16 * h + 10 * q + 8 * f);
  // The Trainer's transformers code under FlashAttention-2 takes GQA as it
  // is and hands its output over without a copy.
  t.stack = Stack::kHf;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, t, 1, false), sb * (16 * h + 4 * q + 4 * kv + 8 * f));
  // LoRA: the norms' weights are frozen, so weight * x keeps nothing of x.
  t.method = Method::kLora;
  const double adapters = AdapterSavedBytesPerToken(m, t, 1);
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, t, 1, false), sb * (12 * h + 4 * q + 4 * kv + 8 * f + adapters));
  // Full recompute keeps the layer's input alone, whatever the code.
  t.recompute = Recompute::kFull;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, t, 1, false), sb * 2 * h);
}

// torchtune sets the gradients to None after each step as the Trainer
// does, so its forward and its step are phases apart; its fused AdamW
// needs no temporary. torchtune's own run (finetune_stacks.csv line 89)
// peaks in the forward: weights, moments, activations and the loss.
TEST(Memory, TorchtuneFreesItsGradientsAfterEachStep) {
  const MemoryBreakdown m =
      EstimateMemory(LoadScenario(kRoot + "/tests/data/stacks/tt_llama32_3b_full_packed.yaml"));
  EXPECT_EQ(m.optimizer_step.value(), 0);
  EXPECT_DOUBLE_EQ(m.phases_apart.value(), m.gradients.value());
  EXPECT_DOUBLE_EQ(LiveTensors(m).value(), (m.weights + m.optimizer + m.activations + m.logits).value());
}

TEST(Korthikanti, Table2ActivationsPerLayer) {
  ModelSpec m;
  m.layers = 96, m.hidden = 12288, m.heads = 96, m.kv_heads = 96, m.ffn = 4 * 12288;
  m.ffn_kind = FfnKind::kGelu;
  m.dropout = 0.1;
  TrainingSpec t;
  t.seq_len = 2048, t.micro_batch = 1, t.precision = Precision::kBf16;
  const double s = 2048, b = 1, h = 12288, a = 96, tp = 8, sbh = s * b * h;
  struct Row {
    Attention attention;
    Recompute recompute;
    bool sp;
    double want;
  };
  const std::vector<Row> rows = {
      {Attention::kUnfused, Recompute::kNone, false, sbh * (10 + 24 / tp + 5 * a * s / (h * tp))},  // tensor parallel
      {Attention::kUnfused, Recompute::kNone, true, sbh * (34 / tp + 5 * a * s / (h * tp))},        // + sequence parallel
      {Attention::kUnfused, Recompute::kSelective, false, sbh * (10 + 24 / tp)},  // TP + selective recompute
      {Attention::kUnfused, Recompute::kSelective, true, sbh * 34 / tp},          // TP + SP + selective
      {Attention::kFlash, Recompute::kNone, true, sbh * 34 / tp},                 // flash keeps no scores either
      {Attention::kUnfused, Recompute::kFull, false, 2 * sbh},                    // full recompute: the input
      {Attention::kUnfused, Recompute::kFull, true, 2 * sbh / tp},                // its sequence shard under SP
  };
  for (const Row& r : rows) {
    t.attention = r.attention, t.recompute = r.recompute;
    EXPECT_DOUBLE_EQ(LayerActivationBytes(m, t, 8, r.sp), r.want)
        << ToString(r.recompute) << (r.sp ? " with SP" : " without SP");
  }
  // Without dropout the masks go: 8 sbh replicated.
  m.dropout = 0;
  t.attention = Attention::kUnfused, t.recompute = Recompute::kSelective;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, t, 8, false), sbh * (8 + 24 / tp));
}

// Sequence parallelism divides the replicated 8 sbh (Llama-2 has no
// dropout, so no masks) by tp on the whole stage. Llama-2-70B's sharded
// terms are 25.5 sbh (Q 2h, K and V 2 x 2 x 1024, the projection input 2h,
// SwiGLU's up 4 x 3.5h and activation 2 x 3.5h), so with selective
// recompute at TP8 its activations fall to (8 + 25.5) / 8 over
// 8 + 25.5 / 8; the states are unchanged.
TEST(Korthikanti, SequenceParallelShrinksTheStagesActivations) {
  Scenario s = LoadScenario(Path("70b_8xA800_tp8.yaml"),
                            {"training.method=full", "training.recompute=selective", "training.micro_batch=1"});
  const MemoryBreakdown without = EstimateMemory(s);
  s.parallel.sp = true;
  const MemoryBreakdown with = EstimateMemory(s);
  EXPECT_NEAR(with.activations.value() / without.activations.value(), (33.5 / 8) / (8 + 25.5 / 8), 1e-9);
  EXPECT_EQ(with.weights.value(), without.weights.value());
}


// HSDP (FSDP HYBRID_SHARD) over 128 GPUs in groups of 8, checked by hand
// for Llama-2-7B (6,738,415,616 parameters): bf16 weights and gradients
// and 12 B of Adam state per parameter, each divided by the group's 8
// ranks instead of all 128; the activations do not change.
TEST(Hsdp, ShardsTheStatesOverItsGroupOnly) {
  const std::string path =
      Write7b("hsdp_7b", "node: a100-80gb-sxm-8x, nodes: 16", "tp: 1, pp: 1, dp: 128, zero: 3, hsdp: 8",
              "method: full, precision: bf16, seq_len: 4096, stack: fsdp, micro_batch: 2, global_batch: 256, "
              "recompute: none, tokens: 1B");
  const Scenario hsdp = LoadScenario(path);
  const Scenario full = LoadScenario(path, {"parallel.hsdp=128"});
  const double params = 6738415616.0;
  const MemoryBreakdown h = EstimateMemory(hsdp), f = EstimateMemory(full);
  EXPECT_NEAR(h.weights.value(), 2 * params / 8, 1e3);
  EXPECT_NEAR(h.gradients.value(), 2 * params / 8, 1e3);
  EXPECT_NEAR(h.optimizer.value(), 12 * params / 8, 1e3);
  EXPECT_NEAR(f.weights.value(), 2 * params / 128, 1e3);
  EXPECT_NEAR(f.optimizer.value(), 12 * params / 128, 1e3);
  EXPECT_EQ(h.activations.value(), f.activations.value());
  // 16 B x 6.74e9 / 8 = 12.6 GiB of states against 0.79 GiB fully sharded.
  EXPECT_NEAR((h.weights + h.gradients + h.optimizer).value() / kGiB, 12.55, 0.01);
}


// Context parallelism, checked by hand: Llama-2-7B at 32,768 tokens on 16
// H100s, TP4, with the distributed optimizer. CP 2 halves every
// activation term (each rank holds 16,384 of each sequence's tokens; flash
// attention keeps no scores) and shards the optimizer states over dp x cp:
// 12 B x 6.74e9 / 4 (TP) / 4 (dp x cp = 2 x 2 against dp 4 alone: the same
// 4 ranks), so the states match the CP-less layout on the same GPUs.
TEST(ContextParallel, HalvesTheActivationsAndShardsOverDpTimesCp) {
  const std::string path =
      Write7b("cp_7b", "node: h100-sxm-8x, nodes: 2", "tp: 4, cp: 2, pp: 1, dp: 2, sp: true, distributed_optimizer: true",
              "method: full, precision: bf16, seq_len: 32768, micro_batch: 1, global_batch: 8, "
              "recompute: selective, tokens: 1B");
  const Scenario cp = LoadScenario(path);
  const Scenario none = LoadScenario(path, {"parallel.cp=1", "parallel.dp=4", "training.global_batch=16"});
  const MemoryBreakdown a = EstimateMemory(cp), b = EstimateMemory(none);
  EXPECT_NEAR(a.activations.value() / b.activations.value(), 0.5, 1e-9);
  EXPECT_NEAR(a.logits.value() / b.logits.value(), 0.5, 1e-9);  // a rank's tokens' logits
  EXPECT_DOUBLE_EQ(a.optimizer.value(), b.optimizer.value());
  // (the final norm's 4,096 weights, which TP does not split, add 9 KB)
  EXPECT_NEAR(a.optimizer.value(), 12.0 * CountParams(cp.model).total(cp.model.layers) / 4 / 4, 1e5);
}

}  // namespace
}  // namespace pf

namespace pf {
namespace {

// ZeRO-3's gather buffers: FSDP holds the block being computed, the
// prefetched one and its gradients; DeepSpeed the module being computed
// and its gradients, and the next module or the prefetch bucket (5e7
// parameters), whichever is larger. GPT-3 175B in fp16: a block of
// 1.812e9 parameters, the largest module its MLP's 12288 x 49152 weights.
TEST(Memory, DeepSpeedHoldsModulesWhereFsdpHoldsBlocks) {
  const std::string file = testing_util::kRoot + "/tests/data/recipes/ds_zero3_gpt3_175b_1024xA100_mb1.yaml";
  const Scenario ds = LoadScenario(file, {});
  const Scenario fsdp = LoadScenario(file, {"training.stack=fsdp"});
  const double module = 12288.0 * 49152;
  EXPECT_DOUBLE_EQ(LargestModuleParams(ds.model, TraitsOf(ds.training.stack), 1), module);
  EXPECT_NEAR(EstimateMemory(ds).zero_buffers.value(), module * (2 + 2) + module * 2, 1);
  const double block = CountParams(fsdp.model).per_layer;
  EXPECT_NEAR(EstimateMemory(fsdp).zero_buffers.value(), block * (2 * 2 + 2), 1);
}

}  // namespace
}  // namespace pf

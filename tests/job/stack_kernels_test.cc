// The stacks' mechanisms one at a time, on the reference rows' scenarios:
// kernels and adapters by stack, the host's time per kernel, gradient and
// parameter traffic, ZeRO-3 gathers, the loss and attention by stack,
// packing and padding, and the messages for bad stack settings (the rows
// themselves: stack_reference_test.cc).
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/job/simulate.h"
#include "sim/model/compute_model.h"
#include "sim/model/framework_memory.h"
#include "sim/model/memory_model.h"
#include "sim/model/model_math.h"
#include "sim/model/stack.h"
#include "sim/model/stack_kernels.h"
#include "sim/report/report.h"
#include "sim/scenario/catalog.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/spec/names.h"
#include "sim/spec/validate.h"
#include "sim/workload/data_parallel.h"
#include "sim/workload/size_estimate.h"
#include "sim/workload/stage_cost.h"
#include "sim/workload/workload_builder.h"
#include "tests/job/stack_test_util.h"
#include "tests/test_util.h"

namespace pf {
namespace {

using testing_util::CountNamed;
using testing_util::LoadError;
using testing_util::ScenarioPath;

Scenario Qwen(std::vector<std::string> sets = {}) { return LoadScenario(ScenarioPath("qwen_7b_lora_2048"), sets); }

// Hugging Face's LlamaRMSNorm runs eight kernels, Megatron's one; both
// stacks run the same GEMM FLOPs, HF in seven projections instead of four.
TEST(StackKernels, EagerNormIsEightKernelsAndFusedOne) {
  const Scenario hf = Qwen(), meg = Qwen({"training.stack=megatron"});
  const auto hf_ops = LayerOps(hf.model, hf.training, 1, Pass::kForward, true);
  const auto meg_ops = LayerOps(meg.model, meg.training, 1, Pass::kForward, true);
  EXPECT_EQ(CountNamed(hf_ops, "norm1"), 8);
  EXPECT_EQ(CountNamed(meg_ops, "norm1"), 1);
  double hf_gemm = 0, meg_gemm = 0;
  int hf_n = 0, meg_n = 0;
  for (const Op& op : hf_ops) if (op.kind == OpKind::kGemm) { hf_gemm += op.flops.value(); ++hf_n; }
  for (const Op& op : meg_ops) if (op.kind == OpKind::kGemm) { meg_gemm += op.flops.value(); ++meg_n; }
  EXPECT_DOUBLE_EQ(hf_gemm, meg_gemm);
  EXPECT_EQ(hf_n, 7);
  EXPECT_EQ(meg_n, 4);
  // Eager RMSNorm moves (e+4)+8+4+8+(4+e)+2e = 36 bytes per element at bf16, fused 4.
  double eager = 0;
  for (const Op& op : hf_ops) if (op.name.rfind("norm1", 0) == 0) eager += op.bytes.value();
  const double n = hf.training.tokens_per_micro_batch() * hf.model.hidden;
  EXPECT_NEAR(eager / n, 36.0, 0.01);
}

// GPT-OSS's clamped gated MLP (model glu_clamp): Megatron-Core clamps and
// concatenates the halves outside its fused kernel (8 bytes an element of
// one half forward, 6 backward, on top of the fused 3 and 6); Hugging
// Face runs seven eager kernels where a SwiGLU runs two, once for each
// local expert of its Python loop (16 at EP8); a plain SwiGLU and the other
// fused stacks pay nothing more.
TEST(StackKernels, ClampedGluCostsItsUnfusedKernels) {
  const std::string oss = testing_util::kRoot + "/tests/data/recipes/mb2604_gpt_oss_120b_64xH100.yaml";
  auto activation = [](const Scenario& s, Pass pass, double* bytes) {
    int kernels = 0;
    *bytes = 0;
    for (const Op& op : LayerOps(s.model, s.training, ShardsOf(s.parallel), pass, false))
      if (op.name.find("swiglu") == 0 || op.name.find("glu_") == 0 || op.name.find("gate_") == 0 ||
          op.name.find("up_") == 0 || op.name.find("sigmoid") == 0 || op.name.find("silu") == 0) {
        ++kernels;
        *bytes += op.bytes.value();
      }
    return kernels;
  };
  Scenario meg = LoadScenario(oss);
  ASSERT_DOUBLE_EQ(meg.model.glu_clamp, 7.0);
  Scenario plain = meg;
  plain.model.glu_clamp = 0;
  const BlockShape b = BlockShape::Of(meg.model, meg.training, meg.parallel.tp);
  const double half = b.tokens * b.ffn * b.e;
  double clamped_bytes = 0, plain_bytes = 0;
  EXPECT_EQ(activation(meg, Pass::kForward, &clamped_bytes), 2);
  EXPECT_EQ(activation(plain, Pass::kForward, &plain_bytes), 1);
  EXPECT_NEAR((clamped_bytes - plain_bytes) / half, 8.0, 1e-9);
  activation(meg, Pass::kBackward, &clamped_bytes);
  activation(plain, Pass::kBackward, &plain_bytes);
  EXPECT_NEAR((clamped_bytes - plain_bytes) / half, 6.0, 1e-9);
  Scenario fsdp = meg;
  fsdp.training.stack = Stack::kFsdp;
  EXPECT_EQ(activation(fsdp, Pass::kForward, &clamped_bytes), 1);
  Scenario hf = meg, hf_plain = plain;
  hf.training.stack = hf_plain.training.stack = Stack::kHf;
  EXPECT_EQ(activation(hf, Pass::kForward, &clamped_bytes), 7 * 16);
  EXPECT_EQ(activation(hf_plain, Pass::kForward, &plain_bytes), 2 * 16);
  EXPECT_NEAR(clamped_bytes / half, 5 * 2 + 2 * 3, 1e-9);
}

// PEFT's LoRA Linear: four kernels forward (A, B, scale, add) and six
// backward per adapted layer; the fused adapters two and four.
TEST(StackKernels, PeftAdaptersAreKernelsOfTheirOwn) {
  const Scenario hf = Qwen(), us = Qwen({"training.stack=unsloth"});
  const auto f = LayerOps(hf.model, hf.training, 1, Pass::kForward, true);
  const auto b = LayerOps(hf.model, hf.training, 1, Pass::kBackward, true);
  EXPECT_EQ(CountNamed(f, "lora_"), 7 * 4);
  EXPECT_EQ(CountNamed(b, "lora_"), 7 * 6);
  EXPECT_EQ(CountNamed(LayerOps(us.model, us.training, 1, Pass::kForward, true), "lora_"), 7 * 2);
  // Targets: q and v only.
  const Scenario qv = Qwen({"training.lora_targets=[q, v]"});
  EXPECT_EQ(CountNamed(LayerOps(qv.model, qv.training, 1, Pass::kForward, true), "lora_"), 2 * 4);
  EXPECT_LT(TrainableParams(qv), TrainableParams(hf));
}

// Eager PyTorch waits for the host when kernels are short: the same layer at
// 32 tokens costs about its kernel count x the host's time per forward kernel.
TEST(StackKernels, ShortKernelsWaitForTheHost) {
  const Scenario s = Qwen({"training.seq_len=32"});
  const StageCost c = CostOfStage(s, 0);
  const auto ops = LayerOps(s.model, s.training, 1, Pass::kForward, true);
  const double host = ops.size() * HostSecondsPerForwardKernel().value();
  EXPECT_GE(c.fwd.seconds.value(), host * s.model.layers);
}

// FlashAttention-2 needs Ampere or later: on a GPU without a bf16 rate (T4,
// V100) the report says what runs instead and how it is costed.
TEST(StackKernels, AFlashKernelBeforeAmpereIsNamedForWhatRuns) {
  const std::string note = "predates FlashAttention-2 (Ampere and later): PyTorch SDPA or xformers runs";
  const Scenario t4 = LoadScenario(ScenarioPath("lf_llama2_7b_lora_hf_fa2"),
                                   {"cluster.node.gpu=T4", "training.precision=fp16"});
  const Scenario a100 = LoadScenario(ScenarioPath("lf_llama2_7b_lora_hf_fa2"));
  EXPECT_NE(RenderText(Simulate(t4)).find("T4 " + note), std::string::npos);
  EXPECT_EQ(RenderText(Simulate(a100)).find(note), std::string::npos);
}

// Where the host binds, the step says how much of compute is the GPU
// waiting for it: Qwen's 256-token LoRA row (1.2 s a step published, 0.84 s
// while the host was charged a bare op's 7 us) about a quarter, the same at
// 2048 tokens none.
TEST(StackKernels, TheStepSaysHowMuchOfComputeWaitsForTheHost) {
  const Result short_seq = Simulate(Qwen({"training.seq_len=256"}));
  const Result long_seq = Simulate(Qwen());
  ASSERT_TRUE(short_seq.step && long_seq.step);
  const Breakdown& b = short_seq.step->breakdown;
  EXPECT_GT(b.host_wait.value(), 0.2 * b.compute.value());
  EXPECT_LT(b.host_wait.value(), 0.35 * b.compute.value());
  EXPECT_EQ(long_seq.step->breakdown.host_wait.value(), 0);
  EXPECT_NE(RenderText(short_seq).find("    of which host-bound "), std::string::npos);
  EXPECT_EQ(RenderText(long_seq).find("host-bound"), std::string::npos);
  // A saved task graph keeps it.
  const Scenario s = Qwen({"training.seq_len=256"});
  const Result replayed = SimulateWorkload(s, BuildWorkload(s));
  ASSERT_TRUE(replayed.step);
  EXPECT_DOUBLE_EQ(replayed.step->breakdown.host_wait.value(), b.host_wait.value());
  // Under CUDA_LAUNCH_BLOCKING=1 every launch holds the GPU back.
  const StageCost blocking = CostOfStage(Qwen({"training.launch_blocking=true"}), 0);
  const auto ops = LayerOps(Qwen().model, Qwen().training, 1, Pass::kForward, true);
  EXPECT_GT(blocking.fwd.host_wait.value(),
            double(ops.size() * Qwen().model.layers) *
                (HostSecondsPerForwardKernel() + BlockingLaunchWaitPerKernel()).value());
}

// Megatron and NeMo accumulate and reduce bf16 (and fp8) gradients in fp32
// (Megatron-LM arguments.py, NeMo 2.0's grad_reduce_in_fp32=True); fp16
// and the other stacks keep them at the parameters' 2 bytes. The buckets
// reduce-scatter 4 bytes a parameter, the parameter gather after the
// update moves 2, and Adam reads the fp32 gradients.
TEST(StackKernels, MegatronReducesFp32GradientsAndGathersBf16Parameters) {
  TrainingSpec t;
  t.precision = Precision::kBf16;
  for (Stack st : {Stack::kMegatron, Stack::kNemo}) {
    t.stack = st;
    EXPECT_EQ(GradientBytes(t), 4);
  }
  t.precision = Precision::kFp8;
  EXPECT_EQ(GradientBytes(t), 4);
  t.precision = Precision::kFp16;
  EXPECT_EQ(GradientBytes(t), 2);
  t.precision = Precision::kBf16;
  for (Stack st : {Stack::kFsdp, Stack::kDeepspeed, Stack::kHf, Stack::kUnsloth}) {
    t.stack = st;
    EXPECT_EQ(GradientBytes(t), 2);
  }
  EXPECT_EQ(AdamBytesPerParam(OptimizerImpl::kFused, 4), 30);
  // training.grad_reduce overrides the stack's: Megatron with
  // --grad-reduce-in-bf16, FSDP with an fp32 reduce_dtype.
  t.grad_reduce = Precision::kFp32;
  EXPECT_EQ(GradientBytes(t), 4);
  t.stack = Stack::kMegatron, t.grad_reduce = Precision::kBf16;
  EXPECT_EQ(GradientBytes(t), 2);

  const Scenario s = LoadScenario(ScenarioPath("mlm_h100_gpt_1p7b_48", "recipes"));  // TP1 PP1 DP48, overlapped gather
  const double params = CostOfStage(s, 0).params;
  double reduced = 0, gathered = 0;
  const preflight::Workload w = BuildWorkload(s);
  for (const auto& task : w.tasks()) {
    if (task.name() == "dp_grad_bucket") reduced += task.collective().size_bytes();
    if (task.name() == "zero_param_gather") gathered += task.collective().size_bytes();
  }
  EXPECT_NEAR(reduced, 4 * params, 1e-6 * reduced);
  EXPECT_NEAR(gathered, 2 * params, 1e-6 * gathered);
}

// DeepSpeed fetches each Linear on its own (seven collectives per Llama
// block), FSDP a block at once.
TEST(StackKernels, DeepSpeedGathersPerModule) {
  const Scenario ds = LoadScenario(ScenarioPath("qwen_72b_lora_zero3_4gpu"));
  const Scenario fsdp = LoadScenario(ScenarioPath("qwen_72b_lora_zero3_4gpu"), {"training.stack=fsdp"});
  EXPECT_EQ(Zero3CollectivesPerLayer(ds), 7);
  EXPECT_EQ(Zero3CollectivesPerLayer(fsdp), 1);
  const Result a = Simulate(ds), b = Simulate(fsdp);
  ASSERT_TRUE(a.step && b.step);
  EXPECT_GE(a.step->breakdown.dp_comm.value(), b.step->breakdown.dp_comm.value());
}

// The ZeRO-3 gathers' distances back to the compute each waits for, in
// gathers: 1 where each fetch follows the compute that used the previous
// one, 2 where it runs a block ahead.
std::set<int> GatherLookahead(const Scenario& s) {
  const preflight::Workload w = BuildWorkload(s);
  std::vector<int> gathers;
  std::map<int, int> user;  // compute task -> the gather (its index in `gathers`) it waits for
  for (int i = 0; i < w.tasks_size(); ++i)
    if (w.tasks(i).name().rfind("zero3_gather", 0) == 0) gathers.push_back(i);
  for (int i = 0; i < w.tasks_size(); ++i) {
    if (!w.tasks(i).has_compute() || w.tasks(i).compute().gpu() != 0) continue;
    for (uint32_t d : w.tasks(i).deps()) {
      auto it = std::find(gathers.begin(), gathers.end(), int(d));
      if (it != gathers.end()) user[i] = int(it - gathers.begin());
    }
  }
  std::set<int> distances;
  for (size_t k = 0; k < gathers.size(); ++k)
    for (uint32_t d : w.tasks(gathers[k]).deps())
      if (user.count(int(d))) distances.insert(int(k) - user[int(d)]);
  return distances;
}

// DeepSpeed's fetches run in series with the compute, FSDP's one block
// ahead of it (model/stack.h Zero3GatherLookahead): in the task graph each
// gather waits for the compute that used the gather before it (DeepSpeed)
// or the one before that (FSDP); on the same job DeepSpeed's step exposes
// more of them.
TEST(StackKernels, DeepSpeedFetchesInSeriesWithTheCompute) {
  EXPECT_EQ(Zero3GatherLookahead(Zero3Gather::kPerModule), 0);
  EXPECT_EQ(Zero3GatherLookahead(Zero3Gather::kPerBlock), 1);
  const Scenario ds = LoadScenario(ScenarioPath("qwen_7b_full_zero3_2gpu"));
  const Scenario fsdp = LoadScenario(ScenarioPath("qwen_7b_full_zero3_2gpu"), {"training.stack=fsdp"});
  EXPECT_EQ(GatherLookahead(ds), std::set<int>{1});
  EXPECT_EQ(GatherLookahead(fsdp), std::set<int>{2});
  const Result a = Simulate(ds), b = Simulate(fsdp);
  ASSERT_TRUE(a.step && b.step);
  EXPECT_GT(a.step->breakdown.dp_comm.value(), 2 * b.step->breakdown.dp_comm.value());
}

// Megatron-FSDP (ZeRO-3 on the megatron and nemo stacks) gathers into the
// parameters' own buffers: its workload says so, and NCCL's share of the
// compute is taken only while its collectives run; PyTorch FSDP's and
// DeepSpeed's copies keep it through the step; without ZeRO-3 neither does.
TEST(StackKernels, MegatronFsdpTakesNcclShareOnlyWhileItsCollectivesRun) {
  const std::string path = ScenarioPath("qwen_7b_full_zero3_2gpu");
  for (const char* stack : {"megatron", "nemo"}) {
    const Scenario s = LoadScenario(path, {std::string("training.stack=") + stack});
    EXPECT_FALSE(NcclShareResident(s)) << stack;
    EXPECT_TRUE(BuildWorkload(s).zero3_zero_copy()) << stack;
  }
  for (const char* stack : {"fsdp", "deepspeed", "hf", "llama-factory"}) {
    const Scenario s = LoadScenario(path, {std::string("training.stack=") + stack});
    EXPECT_TRUE(NcclShareResident(s)) << stack;
    EXPECT_FALSE(BuildWorkload(s).zero3_zero_copy()) << stack;
  }
  EXPECT_FALSE(NcclShareResident(LoadScenario(path, {"training.stack=fsdp", "parallel.zero=2"})));
}

// A vision model under ZeRO-3 follows the same rules as a transformer:
// DeepSpeed's fetches in series with the compute and its allocator cache,
// FSDP's a block ahead and none.
TEST(StackKernels, VisionZero3FollowsTheStack) {
  const std::string resnet = testing_util::kRoot + "/scenarios/resnet50_8xA100.yaml";
  const Scenario ds = LoadScenario(resnet, {"training.stack=deepspeed", "parallel.zero=3"});
  const Scenario fsdp = LoadScenario(resnet, {"training.stack=fsdp", "parallel.zero=3"});
  EXPECT_EQ(GatherLookahead(ds), std::set<int>{1});
  EXPECT_EQ(GatherLookahead(fsdp), std::set<int>{2});
  EXPECT_TRUE(AllocationsVary(ds));
  EXPECT_FALSE(AllocationsVary(fsdp));
  EXPECT_GT(EstimateMemory(ds).allocator_cache.value(), 0);
  EXPECT_EQ(EstimateMemory(fsdp).allocator_cache.value(), 0);
  const Result a = Simulate(ds), b = Simulate(fsdp);
  ASSERT_TRUE(a.step && b.step);
  EXPECT_GT(a.step->breakdown.dp_comm.value(), b.step->breakdown.dp_comm.value());
}

// CUDA_LAUNCH_BLOCKING=1 (training.launch_blocking): each forward kernel
// costs its run time, its issue from Python and the synchronous launch's
// wait, one after the other; without it a pass of long kernels hides the
// host's time. On the layout BigScience measured it on (a 200B model, TP8
// PP10 on 80 A100, micro-batch 1; chronicles-prequel.md "dealing with JZ
// hanging": 97.20 TFLOP/s without, 91.04 with, 6.8% slower; on 160 GPUs no
// difference) the step is slower, by less than they measured.
TEST(StackKernels, LaunchBlockingAddsTheHostToEachKernel) {
  const std::string bloom = testing_util::kRoot + "/tests/data/recipes/bloom_176b_h64_tp8pp12dp4_mb2.yaml";
  const std::vector<std::string> layout = {
      "training.launch_blocking=false", "parallel.pp=1", "parallel.dp=1", "cluster.nodes=1", "model.layers=4"};
  std::vector<std::string> blocking = layout;
  blocking[0] = "training.launch_blocking=true";
  const Scenario a = LoadScenario(bloom, layout), b = LoadScenario(bloom, blocking);
  const StageCost ca = CostOfStage(a, 0), cb = CostOfStage(b, 0);
  const double per_kernel = (HostSecondsPerForwardKernel() + BlockingLaunchWaitPerKernel()).value();
  const size_t kernels = a.model.layers * LayerOps(a.model, a.training, ShardsOf(a.parallel), Pass::kForward, false).size() +
                         EmbeddingOps(a.model, a.training, a.parallel.tp, Pass::kForward).size() +
                         HeadOps(a.model, a.training, a.parallel.tp, Pass::kForward, false).size();
  EXPECT_NEAR((cb.fwd.seconds - ca.fwd.seconds).value(), per_kernel * kernels, 1e-9);
  EXPECT_GT(cb.bwd.seconds.value(), ca.bwd.seconds.value());

  const std::vector<std::string> prequel = {
      "model.layers=80", "model.hidden=14400", "model.heads=96", "model.kv_heads=96", "model.ffn=57600",
      "cluster.nodes=10", "parallel.tp=8", "parallel.pp=10", "parallel.dp=1", "training.micro_batch=1",
      "training.global_batch=512"};
  std::vector<std::string> async = prequel, sync = prequel;
  async.push_back("training.launch_blocking=false");
  sync.push_back("training.launch_blocking=true");
  const Result r_async = Simulate(LoadScenario(bloom, async)), r_sync = Simulate(LoadScenario(bloom, sync));
  ASSERT_TRUE(r_async.step && r_sync.step);
  const double slower = r_sync.step->step_time.value() / r_async.step->step_time.value();
  EXPECT_GT(slower, 1.005);
  EXPECT_LT(slower, 97.20 / 91.04);
}

// The loss: Hugging Face's fp32 copy of the logits holds 4 bytes more per
// logit than Megatron's; Unsloth's chunked loss only the 16-bit logits.
TEST(StackKernels, LossMemoryByStack) {
  const Scenario hf = Qwen(), meg = Qwen({"training.stack=megatron"}), us = Qwen({"training.stack=unsloth"});
  const double logits = hf.training.tokens_per_micro_batch() * hf.model.vocab;
  EXPECT_NEAR((EstimateMemory(hf).logits - EstimateMemory(meg).logits).value(), 4 * logits, 1);
  EXPECT_NEAR(EstimateMemory(us).logits.value(), 2 * logits, 1);
}

// The loss's HBM traffic per logit, forward and backward, at 16 bits:
// Megatron-LM's cross-entropy op by op over its fp32 copy moves 38 + 14 B
// (cast 6, max 4, subtract 8, exp 8, sum 4, divide 8; multiply 8, cast
// back 6), its fused kernels 22 + 6 B. NeMo fuses it, except under LoRA.
TEST(StackKernels, LossTrafficByStack) {
  EXPECT_EQ(LossTrafficPerLogit(Loss::kVocabParallel, 2, Pass::kForward), 38);
  EXPECT_EQ(LossTrafficPerLogit(Loss::kVocabParallel, 2, Pass::kBackward), 14);
  EXPECT_EQ(LossTrafficPerLogit(Loss::kVocabParallelFused, 2, Pass::kForward), 22);
  EXPECT_EQ(LossTrafficPerLogit(Loss::kVocabParallelFused, 2, Pass::kBackward), 6);
  TrainingSpec t;
  t.stack = Stack::kMegatron;
  EXPECT_EQ(LossOf(t), Loss::kVocabParallel);
  t.stack = Stack::kNemo;
  EXPECT_EQ(LossOf(t), Loss::kVocabParallelFused);
  t.method = Method::kLora;
  EXPECT_EQ(LossOf(t), Loss::kVocabParallel);
  // In the step: the head's loss kernels of one micro-batch.
  const Scenario meg = Qwen({"training.stack=megatron"});
  const double logits = meg.training.tokens_per_micro_batch() * meg.model.vocab;
  double bytes = 0;
  for (Pass pass : {Pass::kForward, Pass::kBackward})
    for (const Op& op : HeadOps(meg.model, meg.training, 1, pass, false))
      if (op.name.rfind("cross_entropy", 0) == 0) bytes += op.bytes.value();
  EXPECT_NEAR(bytes, 52 * logits, 1);
}

// Unfused attention's elementwise passes over the scores: Megatron's fused
// scale-mask-softmax moves 13 B per score, Hugging Face's eager code op by
// op (divide, mask, fp32 softmax, casts) 28 B each way under bf16, where
// ATen casts the scores to fp32 before the softmax, and 20 under fp16,
// whose softmax upcasts inside its kernel.
TEST(StackKernels, EagerAttentionRunsTheSoftmaxOpByOp) {
  EXPECT_EQ(EagerSoftmaxBytesPerScore(Precision::kBf16, Pass::kForward), 28);
  EXPECT_EQ(EagerSoftmaxBytesPerScore(Precision::kBf16, Pass::kBackward), 28);
  EXPECT_EQ(EagerSoftmaxBytesPerScore(Precision::kFp16, Pass::kForward), 20);
  EXPECT_EQ(EagerSoftmaxBytesPerScore(Precision::kFp16, Pass::kBackward), 20);
  EXPECT_EQ(EagerSoftmaxBytesPerScore(Precision::kFp32, Pass::kForward), 24);
  EXPECT_EQ(EagerSoftmaxBytesPerScore(Precision::kFp32, Pass::kBackward), 20);
  auto bytes = [](const Scenario& s, Pass pass) {
    double sum = 0;
    for (const Op& op : LayerOps(s.model, s.training, ShardsOf(s.parallel), pass, false))
      if (op.name == "softmax_dropout") sum += op.bytes.value();
    return sum;
  };
  const Scenario hf = Qwen({"training.attention=unfused"});
  const Scenario meg = Qwen({"training.attention=unfused", "training.stack=megatron"});
  const TrainingSpec& t = hf.training;
  const double scores = double(t.micro_batch) * hf.model.heads * t.seq_len * t.seq_len;
  ASSERT_EQ(t.precision, Precision::kBf16);
  for (Pass pass : {Pass::kForward, Pass::kBackward}) {
    EXPECT_NEAR(bytes(hf, pass), 28 * scores, 1e-6 * scores);
    EXPECT_NEAR(bytes(meg, pass), 13 * scores, 1e-6 * scores);
  }
}

// The attention kernel: Megatron and NeMo run Transformer Engine's choice
// (cuDNN on Hopper), the others FlashAttention-2, which on H100 reaches
// 0.403 of the GEMM rate to cuDNN's 0.650; on A100 both run at
// FlashAttention-2's 0.70.
TEST(StackKernels, AttentionKernelByStackAndGpu) {
  EXPECT_EQ(DefaultAttention(Stack::kMegatron), Attention::kCudnn);
  EXPECT_EQ(DefaultAttention(Stack::kNemo), Attention::kCudnn);
  EXPECT_EQ(DefaultAttention(Stack::kFsdp), Attention::kFlash);
  EXPECT_EQ(DefaultAttention(Stack::kHf), Attention::kFlash);
  const Scenario meg = LoadScenario(testing_util::kRoot + "/tests/data/recipes/mlm_h100_gpt_1p7b_48.yaml");
  EXPECT_EQ(meg.training.attention, Attention::kCudnn);  // the file names no kernel
  EXPECT_EQ(Qwen({"training.stack=megatron"}).training.attention, Attention::kFlash);  // the file says flash
  const GpuSpec& h100 = GpuCatalog().at("H100-SXM5-80GB");
  const GpuSpec& a100 = GpuCatalog().at("A100-SXM4-80GB");
  auto seconds = [&](const GpuSpec& g, Attention kernel) {
    TrainingSpec t = meg.training;
    t.attention = kernel;
    for (const Op& op : LayerOps(meg.model, t, ShardsOf(meg.parallel), Pass::kForward, false))
      if (op.kind == OpKind::kAttention) return OpTime(op, g, t.precision, meg.calibration).value();
    return 0.0;
  };
  const double flash = seconds(h100, Attention::kFlash), cudnn = seconds(h100, Attention::kCudnn);
  EXPECT_GT(cudnn, 0);
  EXPECT_GT(flash / cudnn, 1.5);  // 0.650 / 0.403 once the kernel overhead is off
  EXPECT_LT(seconds(h100, Attention::kFlash3), cudnn);
  EXPECT_DOUBLE_EQ(seconds(a100, Attention::kFlash), seconds(a100, Attention::kCudnn));
}

TEST(StackErrors, BadStacksAndPackingAreRefusedWithTheirKey) {
  struct Case {
    const char* scenario;
    const char* set;
    const char* message;
  };
  const Case cases[] = {
      {"qwen_7b_lora_2048", "training.stack=llamafactory", "did you mean 'llama-factory'"},
      {"qwen_7b_lora_2048", "training.sample_len=4096",
       "training.sample_len: 4096 tokens per sample exceed training.seq_len (2048)"},
      {"qwen_72b_lora_zero3_4gpu", "training.stack=unsloth", "trains on one GPU"},
      {"nemo_llama2_70b_lora", "training.stack=hf", "parallel.tp: 2 with stack \"hf\""},
      {"qwen_7b_full_zero3_2gpu", "training.lora_targets=[q]", "training.method is full"},
      {"qwen_7b_lora_2048", "training.lora_targets=[q, qq]", "lora_targets[1]"},
      {"qwen_7b_lora_2048", "training.lora_targets=[]", "training.lora_targets: is empty"},
      {"qwen_7b_lora_2048", "training.lora_targets=attention",
       "\"attention\" is not accepted; give all or a list of q, k, v, o, gate, up, down"},
      {"qwen_7b_lora_2048", "training.sample_len=0", "training.sample_len"},
      {"qwen_7b_lora_2048", "training.packing=sometimes", "training.packing"},
      {"qwen_7b_lora_2048", "training.grad_reduce=fp16",
       "training.grad_reduce: \"fp16\" is not accepted with precision \"bf16\": gradients are reduced in fp32 or in "
       "the parameters' bf16"},
      {"qwen_7b_lora_2048", "training.grad_reduce=fp64", "training.grad_reduce"},
      {"qwen_7b_lora_2048", "training.padding=longest",
       "training.padding: \"longest\" pads unpacked samples, but packing is true"},
      {"qwen_7b_lora_2048", "training.padding=shortest", "training.padding"},
      {"qwen_7b_lora_2048", "training.sample_len_cv=-1",
       "training.sample_len_cv: \"-1\" is not accepted: the samples' standard deviation over their mean, in [0, 4]"},
  };
  for (const Case& c : cases)
    EXPECT_NE(LoadError(c.scenario, {c.set}).find(c.message), std::string::npos) << c.set;
  EXPECT_NE(LoadError("qwen_7b_lora_2048", {"training.precision=fp32", "training.attention=unfused",
                                            "training.grad_reduce=bf16"})
                .find("\"bf16\" is not accepted with precision \"fp32\": gradients are reduced in fp32 only"),
            std::string::npos);
}

}  // namespace
}  // namespace pf

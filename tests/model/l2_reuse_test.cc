// Tensors read back through the L2 (model/l2_reuse.h): what a chain records
// for each kernel, when the DRAM is spared the read, and where it shows in
// PEFT's fp32 adapter chain on an L40S (96 MiB) and an A100 (two 20 MiB
// partitions).
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/model/compute_model.h"
#include "sim/model/l2_reuse.h"
#include "sim/model/model_math.h"
#include "sim/model/padding.h"
#include "sim/model/stack.h"
#include "sim/model/stack_kernels.h"
#include "sim/scenario/catalog.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/test_util.h"

namespace pf {
namespace {

Op Kernel(const std::string& name, double bytes) { return {name, OpKind::kMemory, Flops(0), Bytes(bytes)}; }

const Op& Named(const std::vector<Op>& ops, const std::string& name) {
  for (const Op& op : ops)
    if (op.name == name) return op;
  ADD_FAILURE() << "no kernel " << name;
  return ops.front();
}

// Each read's window is the traffic of the kernels from its writer to the
// reader; a kernel reading two tensors keeps the wider window; a read at a
// chain's start, or further back than the chain goes, has no writer in it.
TEST(L2Reuse, AChainRecordsEachReadsWindow) {
  std::vector<Op> ops;
  EagerChain chain(ops);
  chain.Launch(Kernel("cast", 60), 40);  // nothing before it in the chain
  chain.Launch(Kernel("pow", 80), 40);
  chain.Launch(Kernel("mean", 40), {{40, 1}});
  chain.Launch(Kernel("mul", 80), {{1, 1}, {40, 3}});  // mean's output and the cast's, three back
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_EQ(ops[0].l2_read, 0);
  EXPECT_EQ(ops[1].l2_read, 40);
  EXPECT_EQ(ops[1].l2_window, 60);
  EXPECT_EQ(ops[2].l2_window, 80);
  EXPECT_EQ(ops[3].l2_read, 41);
  EXPECT_EQ(ops[3].l2_window, 60 + 80 + 40);
  chain.Launch(Kernel("far", 10), {{5, 9}});  // written before the chain began: claims nothing
  EXPECT_EQ(ops[4].l2_read, 0);
}

// The DRAM serves what the L2 does not hold: the whole kernel when its
// window does not fit in one partition, or on a GPU whose L2 the catalog
// does not give.
TEST(L2Reuse, TheDramIsSparedOnlyReadsWhoseWindowFitsOnePartition) {
  GpuSpec g;
  Op op = Kernel("scale", 80e6);
  op.l2_read = 40e6;
  op.l2_window = 30e6;
  EXPECT_EQ(DramBytes(op, g).value(), 80e6);  // no L2 in the catalog
  g.l2_cache = Bytes(40.0 * (1 << 20));
  EXPECT_EQ(DramBytes(op, g).value(), 40e6);
  g.l2_partitions = 2;  // 20 MiB a partition
  EXPECT_EQ(DramBytes(op, g).value(), 80e6);
  op.l2_window = 20e6;
  EXPECT_EQ(DramBytes(op, g).value(), 40e6);
}

// PEFT's method comparison (Llama-3.2-3B, LoRA on q and v, pure bf16, 4 x 221
// tokens as padded): lora_A reads the fp32 cast of its input, written just
// before it (884 x 3072 x 6 B = 16.3 MB of traffic since), and the scale
// reads lora_B's output. On the L40S (96 MiB) both come from the L2, and on
// an A100's 20 MiB partition the cast does too; at ten times the batch
// (163 MB) neither holds it.
TEST(L2Reuse, PeftsFp32ChainIsReadBackFromTheL2) {
  const std::string peft = testing_util::kRoot + "/tests/data/stacks/peft_mc_llama32_3b_lora_r32_l40s.yaml";
  const Scenario s = PaddedView(LoadScenario(peft));
  const TrainingSpec& t = s.training;
  const double n = t.tokens_per_micro_batch(), in = 3072;
  ASSERT_EQ(n, 4 * 221);
  const std::vector<Op> fwd = LayerOps(s.model, t, 1, Pass::kForward, true);
  const Op& a = Named(fwd, "lora_q_A");
  EXPECT_DOUBLE_EQ(a.l2_read, n * in * 4);
  EXPECT_DOUBLE_EQ(a.l2_window, n * in * 6);
  const GpuSpec& l40s = s.cluster.node.gpu;
  ASSERT_EQ(l40s.name, "L40S");
  EXPECT_DOUBLE_EQ(DramBytes(a, l40s).value(), 0);
  EXPECT_DOUBLE_EQ(DramBytes(Named(fwd, "lora_q_scale"), l40s).value(), n * in * 4);  // its write
  const GpuSpec& a100 = GpuCatalog().at("A100-SXM4-80GB");
  EXPECT_DOUBLE_EQ(DramBytes(a, a100).value(), 0);
  // lora_B reads A's rank-32 output, which its bytes do not count: no claim.
  EXPECT_EQ(Named(fwd, "lora_q_B").l2_read, 0);

  const Scenario large = PaddedView(LoadScenario(peft, {"training.micro_batch=40", "training.global_batch=40"}));
  const std::vector<Op> large_fwd = LayerOps(large.model, large.training, 1, Pass::kForward, true);
  const Op& large_a = Named(large_fwd, "lora_q_A");
  EXPECT_DOUBLE_EQ(DramBytes(large_a, l40s).value(), large_a.bytes.value());
  EXPECT_DOUBLE_EQ(DramBytes(large_a, a100).value(), large_a.bytes.value());
  // The step is slower without the L2: every kernel costs at least as much.
  GpuSpec no_l2 = l40s;
  no_l2.l2_cache = Bytes(0);
  double with = 0, without = 0;
  for (const Op& op : fwd) {
    with += OpTime(op, l40s, t.precision, s.calibration).value();
    without += OpTime(op, no_l2, t.precision, s.calibration).value();
  }
  EXPECT_LT(with, 0.9 * without);
}

// Backward, the scale's backward reads the output's gradient cast to fp32
// two kernels back (autograd's cast of the add's gradient for the bf16
// result between), and the adapter's input gradient is added to the base
// layer's after that layer's gradient GEMM: not from the L2.
TEST(L2Reuse, PeftsBackwardClaimsOnlyTheGradientsJustWritten) {
  const std::string peft = testing_util::kRoot + "/tests/data/stacks/peft_mc_llama32_3b_lora_r32_l40s.yaml";
  const Scenario s = PaddedView(LoadScenario(peft));
  const double n = s.training.tokens_per_micro_batch(), out = 3072;
  const std::vector<Op> bwd = LayerOps(s.model, s.training, 1, Pass::kBackward, true);
  const Op& scale = Named(bwd, "lora_q_scale_bwd");
  EXPECT_DOUBLE_EQ(scale.l2_read, n * out * 4);
  EXPECT_DOUBLE_EQ(scale.l2_window, 2 * n * out * 6);
  EXPECT_DOUBLE_EQ(Named(bwd, "lora_q_dresult_cast").bytes.value(), n * out * 6);
  EXPECT_EQ(Named(bwd, "lora_q_dx_add").l2_read, 0);
  EXPECT_EQ(Named(bwd, "silu_bwd").l2_read, 0);  // the up projection's gradient GEMMs run between
}

// Hugging Face's LlamaRMSNorm op by op: pow reads the fp32 cast just
// written; x * rsqrt reads it again five kernels back; backward, the cast
// back to bf16 reads the gradient the weight's multiply wrote (its two
// kernels), and that multiply, first, reads the projections' (outside).
TEST(L2Reuse, TheEagerNormsChainInLaunchOrder) {
  ModelSpec m;
  m.hidden = 1000;
  m.layernorm = false;  // RMSNorm
  BlockShape b;
  b.tokens = 10;
  b.hidden = 1000;
  const double n = 10 * 1000;
  std::vector<Op> fwd, bwd;
  NormOps(m, b, TraitsOf(Stack::kHf), Pass::kForward, "norm1", fwd);
  NormOps(m, b, TraitsOf(Stack::kHf), Pass::kBackward, "norm1", bwd);
  EXPECT_EQ(Named(fwd, "norm1_pow").l2_read, n * 4);
  EXPECT_EQ(Named(fwd, "norm1_pow").l2_window, n * 6);
  const Op& mul = Named(fwd, "norm1_mul");
  EXPECT_EQ(mul.l2_read, 10 * 4 + n * 4);
  EXPECT_EQ(mul.l2_window, n * 6 + n * 8 + n * 4 + 10 * 8 + 10 * 8);
  EXPECT_EQ(Named(bwd, "norm1_mul_weight_bwd").l2_read, 0);
  EXPECT_EQ(Named(bwd, "norm1_to_bf16_bwd").l2_read, n * 2);
  EXPECT_EQ(Named(bwd, "norm1_to_bf16_bwd").l2_window, 2 * n * 4);
}

// torchtune's fp32 RoPE in Python's order, stack([re cos - im sin, im cos +
// re sin]): the stack reads the difference four kernels back, so its
// window spans the second product pair and the sum.
TEST(L2Reuse, TorchtunesRopeStacksTheDifferenceFourKernelsBack) {
  ModelSpec m;
  m.hidden = 1024;
  m.heads = 8;
  m.kv_heads = 8;
  m.position = Position::kRope;
  BlockShape b;
  b.tokens = 10;
  b.q = 1024;
  b.kv = 1024;
  const double qk = 10 * 2048;
  std::vector<Op> fwd;
  RopeOps(m, b, TraitsOf(Stack::kTorchtune), Pass::kForward, fwd);
  const Op& stack = Named(fwd, "rope_stack");
  EXPECT_EQ(stack.l2_read, qk * 4);
  EXPECT_EQ(stack.l2_window, qk * 6 + qk * 4 + qk * 4 + qk * 6);
  EXPECT_EQ(Named(fwd, "rope_mul_re_sin").l2_window, qk * 6 + 3 * qk * 4 + qk * 6);
}

// No kernel of any bundled stack row claims more from the L2 than it
// moves, forward or backward.
TEST(L2Reuse, NoKernelClaimsMoreThanItMoves) {
  for (const auto& entry : std::filesystem::directory_iterator(testing_util::kRoot + "/tests/data/stacks")) {
    const Scenario s = PaddedView(LoadScenario(entry.path().string()));
    for (Pass pass : {Pass::kForward, Pass::kBackward})
      for (const Op& op : LayerOps(s.model, s.training, s.parallel.tp, pass, true)) {
        EXPECT_LE(op.l2_read, op.bytes.value() * (1 + 1e-12)) << entry.path().filename() << " " << op.name;
        EXPECT_GE(op.l2_read, 0) << op.name;
      }
  }
}

}  // namespace
}  // namespace pf

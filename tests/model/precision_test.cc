// tf32 and fp32 training: fp32 tensors everywhere (twice the weight,
// gradient and activation bytes of mixed precision), Adam without a master
// copy, GEMMs at the tf32 tensor-core or fp32 CUDA-core peak; cards without
// bf16 tensor cores (P40) run in fp32.
#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/job/simulate.h"
#include "sim/model/memory_model.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/test_util.h"

namespace pf {
namespace {

using testing_util::kRoot;

Scenario Mpt1b(const std::vector<std::string>& more) {
  std::vector<std::string> flags = {"model=mpt-1b", "training.method=full", "parallel.zero=1",
                                    "training.attention=unfused"};
  flags.insert(flags.end(), more.begin(), more.end());
  return LoadScenario(kRoot + "/scenarios/7b_lora_4x4090.yaml", flags);
}

TEST(Precision, Fp32DoublesWeightsAndGradientsAndDropsTheMasterCopy) {
  // Without recompute every activation is held, in the precision's width.
  const MemoryBreakdown bf16 = EstimateMemory(Mpt1b({"training.precision=bf16", "training.recompute=none"}));
  const MemoryBreakdown fp32 = EstimateMemory(Mpt1b({"training.precision=fp32", "training.recompute=none"}));
  EXPECT_NEAR(fp32.weights.value() / bf16.weights.value(), 2, 1e-9);
  // Megatron keeps bf16 gradients in fp32 already; FSDP in bf16.
  EXPECT_NEAR(fp32.gradients.value() / bf16.gradients.value(), 1, 1e-9);
  const MemoryBreakdown fsdp = EstimateMemory(Mpt1b({"training.precision=bf16", "training.stack=fsdp"}));
  EXPECT_NEAR(fp32.gradients.value() / fsdp.gradients.value(), 2, 1e-9);
  // Adam: 12 B (master, m, v) per parameter in mixed precision, 8 B in
  // fp32; ZeRO-1 shards both over the 4 GPUs.
  EXPECT_NEAR(fp32.optimizer.value() / bf16.optimizer.value(), 8.0 / 12, 1e-9);
  EXPECT_NEAR(fp32.activations.value() / bf16.activations.value(), 2, 1e-9);
}

TEST(Precision, Tf32RunsAtTheTensorCoreRateAndFp32AtTheCudaCoreRate) {
  const Scenario tf32 = Mpt1b({"training.precision=tf32"});
  const Scenario fp32 = Mpt1b({"training.precision=fp32"});
  EXPECT_DOUBLE_EQ(PeakFlops(tf32.cluster.node.gpu, Precision::kTf32).value(), 82.6e12);
  EXPECT_DOUBLE_EQ(PeakFlops(fp32.cluster.node.gpu, Precision::kFp32).value(), 82.6e12);
  const Result a = Simulate(tf32), b = Simulate(Mpt1b({"training.precision=bf16"}));
  ASSERT_TRUE(a.step && b.step);
  // RTX 4090: tf32 at 82.6 of bf16's 165.2 TFLOP/s, and fp32 data: slower.
  EXPECT_GT(a.step->step_time.value(), 1.5 * b.step->step_time.value());
}

TEST(Precision, APascalCardTrainsInFp32Only) {
  const Scenario p40 = Mpt1b({"training.precision=fp32", "cluster.node.gpu=P40"});
  EXPECT_EQ(p40.cluster.node.gpu.name, "P40");
  try {
    Mpt1b({"cluster.node.gpu=P40"});
    FAIL() << "bf16 on a P40 was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("\"bf16\" has no tensor-core rate on P40"), std::string::npos) << e.what();
  }
}

TEST(Precision, FlashAttentionIsRefusedInFp32) {
  try {
    LoadScenario(kRoot + "/scenarios/7b_lora_4x4090.yaml", {"training.precision=fp32"});
    FAIL() << "flash attention in fp32 was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "training.attention");
    EXPECT_NE(std::string(e.what()).find("set attention: unfused"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pf

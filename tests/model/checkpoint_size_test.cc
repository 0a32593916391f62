// Checkpoint sizes: bytes per parameter by precision and method, Megatron-
// LM's published 1-trillion-parameter checkpoint, and who writes which
// shard under each ZeRO stage.
#include <numeric>

#include <gtest/gtest.h>

#include "sim/model/checkpoint_size.h"
#include "sim/model/memory_model.h"
#include "sim/model/model_math.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/test_util.h"

namespace pf {
namespace {

Scenario Load(const std::string& file, const std::vector<std::string>& sets = {}) {
  return LoadScenario(testing_util::kRoot + "/scenarios/" + file, sets);
}

double Sum(const std::vector<double>& xs) { return std::accumulate(xs.begin(), xs.end(), 0.0); }

// Mixed-precision Adam: 16-bit weights, fp32 master weights and two fp32
// moments, 14 bytes per parameter (the 16 of GPU memory less the 16-bit
// gradients, which no framework saves); fp32 training 12.
TEST(CheckpointSize, MixedPrecisionAdamIs14BytesPerParameter) {
  EXPECT_EQ(CheckpointBytesPerParam(Precision::kBf16), 14);
  EXPECT_EQ(CheckpointBytesPerParam(Precision::kFp16), 14);
  EXPECT_EQ(CheckpointBytesPerParam(Precision::kFp32), 12);
  const Scenario s = Load("megatron_39p1b_512xA100.yaml");
  const CheckpointSize c = SizeOfCheckpoint(s);
  EXPECT_NEAR(c.total().value(), 14 * TrainableParams(s), 1);
  EXPECT_NEAR(Sum(c.per_gpu), c.total().value(), 1e-6 * c.total().value());
}

// Narayanan et al. SC21, Section 5.10: "the trillion-parameter model has a
// checkpoint of size 13.8 terabytes".
TEST(CheckpointSize, MegatronTrillionParameterCheckpointWithin10Percent) {
  const Scenario s = Load("megatron_529p6b_2520xA100.yaml", {"model=megatron-gpt-1t", "parallel.pp=64", "cluster.nodes=384", "parallel.dp=6", "training.global_batch=3072"});
  const double tb = SizeOfCheckpoint(s).total().value() / 1e12;
  std::cout << "megatron-gpt-1t checkpoint: " << tb << " TB (published 13.8)\n";
  EXPECT_NEAR(tb / 13.8, 1.0, 0.10);
}

// LoRA saves its adapters and their optimizer state, not the frozen base.
TEST(CheckpointSize, LoraSavesTheAdaptersOnly) {
  const Scenario s = Load("70b_8xA800_tp8.yaml");
  ASSERT_NE(s.training.method, Method::kFull);
  const CheckpointSize c = SizeOfCheckpoint(s);
  EXPECT_NEAR(c.total().value(), 14 * TrainableParams(s), 1);
  EXPECT_LT(c.total().value(), 0.01 * 14 * CountParams(s.model).total(s.model.layers));
}

// Without ZeRO the first data-parallel replica writes everything; ZeRO-1
// spreads the optimizer state over every rank; ZeRO-3 the weights too.
TEST(CheckpointSize, ZeroStagesSpreadTheWriters) {
  auto writers = [](const CheckpointSize& c) {
    return std::count_if(c.per_gpu.begin(), c.per_gpu.end(), [](double b) { return b > 0; });
  };
  const std::string file = "13b_zero3_32xA800_roce.yaml";
  const CheckpointSize z0 = SizeOfCheckpoint(Load(file, {"parallel.zero=0"}));
  const CheckpointSize z1 = SizeOfCheckpoint(Load(file, {"parallel.zero=1"}));
  const CheckpointSize z3 = SizeOfCheckpoint(Load(file));
  EXPECT_EQ(writers(z0), 1);  // tp 1, pp 1: one model shard, on DP rank 0
  EXPECT_EQ(writers(z1), 32);
  EXPECT_EQ(writers(z3), 32);
  EXPECT_DOUBLE_EQ(z0.total().value(), z3.total().value());
  EXPECT_NEAR(z3.per_gpu[5], z3.total().value() / 32, 1);
  EXPECT_GT(z1.per_gpu[0], z1.per_gpu[5]);  // rank 0 also writes the weights
}

}  // namespace
}  // namespace pf

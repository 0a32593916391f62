// How fast a memory-bound kernel streams: at the fraction of the datasheet
// bandwidth measured on its GPU (topologies/gpus.yaml memory_efficiency,
// the GDDR parts), else at the HBM parts' (model/compute_model.cc).
#include <string>

#include <gtest/gtest.h>

#include "sim/model/compute_model.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/test_util.h"

namespace pf {
namespace {

Seconds StreamTime(const GpuSpec& g) {
  const Op copy{"copy", OpKind::kMemory, Flops(0), Bytes(8e9)};
  return OpTime(copy, g, Precision::kBf16, Calibration{});
}

// The same 8 GB on the same GPU with and without its measured figure: the
// ratio of the two efficiencies, nothing else.
TEST(StreamingEfficiency, AMeasuredFigureReplacesTheHbmOne) {
  const Scenario s = LoadScenario(testing_util::kRoot + "/tests/data/stacks/aa_llama2_7b_lora_ddp_2x4090.yaml");
  GpuSpec g = s.cluster.node.gpu;
  ASSERT_TRUE(g.memory_efficiency.has_value());
  EXPECT_DOUBLE_EQ(*g.memory_efficiency, 0.915);
  const double measured = StreamTime(g).value();
  g.memory_efficiency.reset();
  const double hbm = StreamTime(g).value();
  const double overhead = 4e-6;  // the kernel's fixed cost, the same in both
  EXPECT_NEAR((measured - overhead) / (hbm - overhead), 0.84 / 0.915, 1e-9);
  // 8 GB at 0.915 of 1,008 GB/s, inside a training step (0.907 of that).
  EXPECT_NEAR(measured, overhead + 8e9 / (1008e9 * 0.915 * 0.907), 1e-9);
}

// HBM parts without a measurement of their own keep 0.84; the A100 40GB's
// HBM2 has one (0.889).
TEST(StreamingEfficiency, OnlyTheMeasuredPartsCarryOne) {
  const std::string root = testing_util::kRoot + "/tests/data/stacks/";
  EXPECT_FALSE(LoadScenario(root + "qwen_7b_lora_2048.yaml").cluster.node.gpu.memory_efficiency.has_value());
  EXPECT_DOUBLE_EQ(
      *LoadScenario(root + "qwen_7b_lora_2048.yaml", {"cluster.node=a100-40gb-sxm-8x"}).cluster.node.gpu.memory_efficiency,
      0.889);
  EXPECT_DOUBLE_EQ(*LoadScenario(root + "peft_mc_llama32_3b_full_l40s.yaml").cluster.node.gpu.memory_efficiency, 0.926);
}

}  // namespace
}  // namespace pf

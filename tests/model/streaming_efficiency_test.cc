// How fast a memory-bound kernel streams: at the fraction of the datasheet
// bandwidth measured on its GPU (topologies/gpus.yaml memory_efficiency),
// else at the HBM parts' (model/compute_model.cc).
#include <string>

#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/model/compute_model.h"
#include "sim/scenario/catalog.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/test_util.h"

namespace pf {
namespace {

constexpr double kBytes = 8e9;

Seconds StreamTime(const GpuSpec& g) {
  const Op copy{"copy", OpKind::kMemory, Flops(0), Bytes(kBytes)};
  return OpTime(copy, g, Precision::kBf16, Calibration{});
}

// The same 8 GB on the same GPU with and without its measured figure: the
// ratio of the two efficiencies, nothing else. Twice the bytes take twice
// the time beyond the kernel's fixed cost, whatever that cost is.
TEST(StreamingEfficiency, AMeasuredFigureReplacesTheHbmOne) {
  GpuSpec g = GpuCatalog().at("RTX-4090");
  ASSERT_TRUE(g.memory_efficiency.has_value());
  EXPECT_DOUBLE_EQ(*g.memory_efficiency, 0.915);
  const double at_measured = StreamTime(g).value();
  const Op twice{"copy", OpKind::kMemory, Flops(0), Bytes(2 * kBytes)};
  const double fixed = 2 * at_measured - OpTime(twice, g, Precision::kBf16, Calibration{}).value();
  EXPECT_NEAR(at_measured - fixed, kBytes / (1008e9 * 0.915 * Calibration{}.training_kernel_efficiency), 1e-9);
  g.memory_efficiency.reset();
  const double at_hbm = StreamTime(g).value();
  EXPECT_NEAR((at_measured - fixed) / (at_hbm - fixed), 0.84 / 0.915, 1e-9);
}

// HBM2e/HBM3 parts and GDDR parts without a benchmark keep 0.84; the A100
// 40GB's HBM2 and the AD102 parts have theirs.
TEST(StreamingEfficiency, OnlyTheMeasuredPartsCarryOne) {
  const auto& gpus = GpuCatalog();
  for (const char* hbm : {"A100-SXM4-80GB", "H100-SXM5-80GB", "A10", "T4"})
    EXPECT_FALSE(gpus.at(hbm).memory_efficiency.has_value()) << hbm;
  EXPECT_DOUBLE_EQ(*gpus.at("A100-SXM4-40GB").memory_efficiency, 0.889);
  for (const char* ad102 : {"L40", "L40S", "L20"}) EXPECT_DOUBLE_EQ(*gpus.at(ad102).memory_efficiency, 0.926) << ad102;
}

// An inline GPU's figure is applied within 0.3 to 1 and refused outside.
TEST(StreamingEfficiency, AnInlineFigureIsAppliedWithinItsRange) {
  const std::string path = testing_util::kRoot + "/tests/data/stacks/qwen_7b_lora_2048.yaml";
  const std::string gpu = "cluster.node.gpu={name: Next-GPU, peak: {bf16: 500TFLOP/s}, memory: 96GiB, "
                          "memory_bandwidth: 3TB/s, pcie_gen: 5, sms: 120, memory_efficiency: ";
  EXPECT_DOUBLE_EQ(*LoadScenario(path, {gpu + "0.9}"}).cluster.node.gpu.memory_efficiency, 0.9);
  EXPECT_DOUBLE_EQ(*LoadScenario(path, {gpu + "0.3}"}).cluster.node.gpu.memory_efficiency, 0.3);
  EXPECT_THROW(LoadScenario(path, {gpu + "0.29}"}), InputError);
}

}  // namespace
}  // namespace pf

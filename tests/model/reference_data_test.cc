// Every model constant taken from a measurement agrees with the published
// table it cites, kept in tests/data/ with its source: the constant cannot
// drift from its data unnoticed.
#include <cmath>
#include <regex>

#include <gtest/gtest.h>

#include "sim/base/csv.h"
#include "sim/collectives/nccl.h"
#include "sim/collectives/flows.h"
#include "sim/model/compute_model.h"
#include "sim/scenario/catalog.h"
#include "tests/test_util.h"

namespace pf {
namespace {

std::string Data(const std::string& file) { return testing_util::kRoot + "/tests/data/" + file; }

// fraction_of_peak of the gemm_achievable.csv rows with `dtype`, by GPU.
std::map<std::string, double> GemmFractions(const std::string& dtype) {
  std::map<std::string, double> out;
  const std::string path = Data("gemm_achievable.csv");
  for (const CsvRow& r : ReadCsv(path))
    if (r.at("dtype") == dtype && r.at("how").rfind("max achievable", 0) == 0)
      out[r.at("gpu")] = CsvNumber(r, "fraction_of_peak", path);
  return out;
}

TEST(ReferenceData, DefaultGemmEfficiencyIsTheMeanOfTheMeasuredBf16Rows) {
  const auto bf16 = GemmFractions("bf16");
  ASSERT_EQ(bf16.size(), 4u);
  double sum = 0;
  for (const auto& [gpu, f] : bf16) sum += f;
  EXPECT_NEAR(DefaultGemmEfficiency(), sum / bf16.size(), 1e-12);
  const auto fp8 = GemmFractions("fp8");
  EXPECT_NEAR(Fp8VsBf16Gemm(), fp8.at("H100-SXM5-80GB") / bf16.at("H100-SXM5-80GB"), 1e-12);
}

// fraction_of_peak of the gemm_achievable.csv rows whose `how` starts with
// `how`, by GPU (any dtype).
std::map<std::string, double> RowsMeasured(const std::string& how) {
  std::map<std::string, double> out;
  const std::string path = Data("gemm_achievable.csv");
  for (const CsvRow& r : ReadCsv(path))
    if (r.at("how").rfind(how, 0) == 0) out[r.at("gpu")] = CsvNumber(r, "fraction_of_peak", path);
  return out;
}

// torch.matmul's best square GEMM (zzc0721/torch-performance-test-data)
// reads what stas00's maximum over shapes reads, within 3%, on the parts
// both measured: the catalog takes it where stas00 has no row.
TEST(ReferenceData, TorchMatmulRowsAgreeWithTheMaximaOverShapes) {
  const auto mamf = GemmFractions("bf16"), torch = RowsMeasured("cross-check");
  ASSERT_EQ(torch.size(), 3u);
  for (const auto& [gpu, f] : torch) EXPECT_NEAR(f / mamf.at(gpu), 1, 0.03) << gpu;
}

TEST(ReferenceData, CatalogGemmEfficienciesAreTheMeasuredRows) {
  const auto bf16 = GemmFractions("bf16"), fp8 = GemmFractions("fp8");
  const auto torch = RowsMeasured("mean over machines");
  int checked = 0;
  for (const auto& [name, gpu] : GpuCatalog()) {
    // Measured on itself, or on the same die (A800, H800, A100-40GB,
    // V100-SXM2-32GB): stas00's row, else torch.matmul's.
    const std::string& row = gpu.gemm_measured_on;
    EXPECT_EQ(gpu.gemm_efficiency.has_value(), bf16.count(row) + torch.count(row) == 1) << name;
    if (!gpu.gemm_efficiency) continue;
    EXPECT_DOUBLE_EQ(*gpu.gemm_efficiency, bf16.count(row) ? bf16.at(row) : torch.at(row)) << name;
    ++checked;
    if (gpu.gemm_efficiency_fp8) {
      EXPECT_DOUBLE_EQ(*gpu.gemm_efficiency_fp8, fp8.at(row)) << name;
    }
  }
  EXPECT_EQ(checked, 20);
}

// The H100's fitted training_rate (calibration/hopper_fit.h) is taken by
// its GH100 SXM twins at the same 700 W limit and by no other part.
TEST(ReferenceData, OnlyTheGh100SxmPartsTakeTheH100sTrainingRate) {
  const auto& catalog = GpuCatalog();
  const std::optional<double> h100 = catalog.at("H100-SXM5-80GB").training_rate;
  ASSERT_TRUE(h100.has_value());
  EXPECT_GT(*h100, 0.5);
  EXPECT_LT(*h100, 1.0);
  for (const auto& [name, gpu] : catalog) {
    if (name == "H100-SXM5-80GB" || name == "H800-SXM5-80GB" || name == "H200-SXM-141GB")
      EXPECT_EQ(gpu.training_rate, h100) << name;
    else
      EXPECT_FALSE(gpu.training_rate.has_value()) << name;
  }
}

// The catalog's attention_vs_gemm: each kernel's mean forward and backward
// rate over 4K-16K tokens (attention_kernels.csv, H100 SXM5), combined as
// the model runs them (backward 2.5x the forward's FLOPs), over the
// H100's best GEMM; the same on every Hopper part, absent elsewhere.
TEST(ReferenceData, CatalogAttentionRatiosAreTheMeasuredKernels) {
  const std::string path = Data("attention_kernels.csv");
  std::map<std::string, std::map<std::string, std::vector<double>>> rates;  // kernel -> pass -> TFLOP/s
  for (const CsvRow& r : ReadCsv(path))
    if (r.at("gpu") == "H100-SXM5-80GB") rates[r.at("kernel")][r.at("pass")].push_back(CsvNumber(r, "tflops", path));
  const GpuSpec& h100 = GpuCatalog().at("H100-SXM5-80GB");
  const double gemm = *h100.gemm_efficiency * h100.peak_bf16.value() / 1e12;
  auto ratio = [&](const std::string& kernel) {
    auto mean = [](const std::vector<double>& v) {
      double s = 0;
      for (double x : v) s += x;
      return s / v.size();
    };
    const double fwd = mean(rates.at(kernel).at("forward")), bwd = mean(rates.at(kernel).at("backward"));
    return 3.5 / (1 / fwd + 2.5 / bwd) / gemm;
  };
  int hopper = 0;
  for (const auto& [name, gpu] : GpuCatalog()) {
    if (!gpu.attention_flash) {
      EXPECT_FALSE(gpu.attention_cudnn || gpu.attention_flash3) << name;
      EXPECT_DOUBLE_EQ(AttentionVsGemm(gpu, Attention::kCudnn, Calibration{}), 0.70) << name;  // FlashAttention-2 on A100
      continue;
    }
    ++hopper;
    EXPECT_NEAR(*gpu.attention_flash, ratio("flash"), 5e-4) << name;
    EXPECT_NEAR(*gpu.attention_cudnn, ratio("cudnn"), 5e-4) << name;
    EXPECT_NEAR(*gpu.attention_flash3, ratio("flash3"), 5e-4) << name;
  }
  EXPECT_EQ(hopper, 4);  // H100, H800, H200, H20
}

// nccl-tests bus bandwidth of the 8-GPU all-reduce curve, by system and size.
std::map<std::string, std::map<double, double>> AllReduceCurves() {
  std::map<std::string, std::map<double, double>> out;
  const std::string path = Data("nccl_allreduce_1node.csv");
  for (const CsvRow& r : ReadCsv(path))
    out[r.at("system")][CsvNumber(r, "message_bytes", path)] = CsvNumber(r, "busbw_gbps", path);
  return out;
}

TEST(ReferenceData, LinkEfficienciesAreTheMeasuredFractions) {
  const auto curves = AllReduceCurves();
  const std::string misc = Data("nccl_misc.csv"), gpus = Data("gpus.csv");
  std::map<std::string, double> nvlink_bidir, host_to_device;
  const std::regex measured("host-to-device measured ([0-9.]+) GB/s");
  for (const CsvRow& r : ReadCsv(gpus)) {
    nvlink_bidir[r.at("gpu")] = std::atof(r.at("nvlink_bidir_gbps").c_str());
    std::smatch m;
    if (std::regex_search(r.at("notes"), m, measured)) host_to_device[r.at("gpu")] = std::stod(m[1]);
  }
  std::vector<double> busbw;
  for (const CsvRow& r : ReadCsv(misc)) busbw.push_back(CsvNumber(r, "busbw_gbps", misc));
  ASSERT_EQ(busbw.size(), 4u);
  // NVLink: 8x A100 at 8 GiB (300 GB/s per direction) and 8x H100 ring (450).
  const double a100 = curves.at("8x A100-SXM4-80GB (Azure ND A100 v4)").rbegin()->second /
                      (nvlink_bidir.at("A100-SXM4-80GB") / 2);
  const double h100 = busbw[0] / (nvlink_bidir.at("H100-SXM5-80GB") / 2);
  EXPECT_NEAR(NvlinkEfficiency(3), std::round(a100 * 1000) / 1000, 1e-12);  // NVLink 3
  EXPECT_NEAR(NvlinkEfficiency(4), std::round(h100 * 1000) / 1000, 1e-12);  // NVLink 4
  EXPECT_NEAR(NvlinkEfficiency(0), (NvlinkEfficiency(3) + NvlinkEfficiency(4)) / 2, 1e-12);
  // NICs: 192 of 8x 200 Gb/s = 200 GB/s, and 84.8 of 4x 200 Gb/s = 100 GB/s.
  EXPECT_NEAR(NicEfficiency(), (busbw[1] / 200 + busbw[2] / 100) / 2, 1e-12);
  // PCIe: 26 GB/s measured host-to-device on A100 (gen 4 x16: 31.5 GB/s), 51
  // on H100 (gen 5 x16: 63 GB/s), as gpus.csv notes.
  EXPECT_NEAR(PcieEfficiency(),
              (host_to_device.at("A100-SXM4-80GB") / (PcieLinkRate(4, 16).value() / 1e9) +
               host_to_device.at("H100-SXM5-80GB") / (PcieLinkRate(5, 16).value() / 1e9)) / 2,
              1e-12);
}

}  // namespace
}  // namespace pf

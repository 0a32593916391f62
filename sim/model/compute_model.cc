#include "sim/model/compute_model.h"

#include <algorithm>

namespace pf {
namespace {

// Mean fraction_of_peak of the bf16 rows of shared/reference/
// gemm_achievable.csv (A100-SXM 0.869, A100-PCIe 0.811, H100-SXM 0.803,
// B200 0.776), used for GPUs without their own measurement.
constexpr double kDefaultGemmEfficiency = (0.869 + 0.811 + 0.803 + 0.776) / 4;
// FlashAttention-2 reaches 50-73% of peak forward and 45-63% backward on
// A100 (Dao 2023, "FlashAttention-2", Sec. 4.1); relative to the best GEMM
// (0.869 there) that is about 0.70 of GEMM throughput.
constexpr double kAttentionVsGemm = 0.70;
// Achievable fraction of datasheet HBM bandwidth for streaming kernels:
// ~1.7 TB/s of 2.04 on A100-80GB and ~2.8 of 3.35 TB/s on H100 in
// device-to-device copy benchmarks (assumption from public STREAM-like runs).
constexpr double kHbmEfficiency = 0.84;
// Fixed cost per kernel: launch plus the ramp/tail of a grid that never
// fills the machine at its ends (a few microseconds on A100/H100).
constexpr double kKernelOverheadS = 4e-6;
// Sustained fraction of the isolated-kernel rates above that kernels reach
// inside a training step (clocks under sustained power, shapes less ideal
// than a benchmark's, gaps between kernels; NCCL's share of the GPU is
// modelled separately in comm_model.cc). Fitted to
// end-to-end runs together with NcclComputeShare() (comm_model.cc): least
// squares on log(predicted/published) over all 10 rows of
// megatron_sc21_table1.csv and llm_foundry_a100_80gb.csv jointly (grid
// 0.84..0.96 by 0.01 x 0..0.30 by 0.05); leaving any one row out of the fit
// moves it by at most 0.01. See README "Accuracy".
constexpr double kTrainingKernelEfficiency = 0.89;
// Adam with fp32 master weights touches ~28 bytes per parameter: reads
// master 4 + grad 2 + m 4 + v 4, writes master 4 + m 4 + v 4 + bf16 copy 2.
constexpr double kAdamBytesPerParam = 28;

}  // namespace

double GemmEfficiency(const GpuSpec& g, Precision p) {
  const double bf16 = g.gemm_efficiency.value_or(kDefaultGemmEfficiency);
  if (p != Precision::kFp8) return bf16;
  // Without an fp8 measurement, scale by the only measured fp8/bf16 ratio
  // (H100-SXM, gemm_achievable.csv: 0.709 / 0.803).
  return g.gemm_efficiency_fp8.value_or(bf16 * 0.709 / 0.803);
}

Seconds OpTime(const Op& op, const GpuSpec& g, Precision p) {
  // FP8 recipes (Transformer Engine) run the linear layers in fp8 and keep
  // attention in bf16.
  const Precision kernel = op.kind == OpKind::kAttention && p == Precision::kFp8 ? Precision::kBf16 : p;
  double eff = GemmEfficiency(g, kernel);
  if (op.kind == OpKind::kAttention) eff *= kAttentionVsGemm;
  double compute = op.flops.value() / (eff * PeakFlops(g, kernel).value());
  double memory = op.bytes.value() / (kHbmEfficiency * g.memory_bandwidth.value());
  return Seconds(kKernelOverheadS + std::max(compute, memory) / kTrainingKernelEfficiency);
}

Seconds OpsTime(const std::vector<Op>& ops, const GpuSpec& g, Precision p) {
  Seconds t;
  for (const Op& op : ops) t += OpTime(op, g, p);
  return t;
}

Seconds OptimizerTime(double params, const GpuSpec& g) {
  return Seconds(kKernelOverheadS +
                 params * kAdamBytesPerParam /
                     (kHbmEfficiency * kTrainingKernelEfficiency * g.memory_bandwidth.value()));
}

}  // namespace pf

#include "sim/model/compute_model.h"

#include <algorithm>

#include "sim/model/gemm_shape.h"
#include "sim/model/l2_reuse.h"
#include "sim/model/memory_model.h"
#include "sim/model/optimizer.h"

namespace pf {
namespace {

// FlashAttention-2 reaches 50-73% of peak forward and 45-63% backward on
// A100 (Dao 2023, "FlashAttention-2", Sec. 4.1); relative to the best GEMM
// (0.869 there) that is about 0.70 of GEMM throughput. GPUs whose catalog
// entry measures a kernel (topologies/gpus.yaml attention_vs_gemm: the
// Hopper parts) use their own ratio; the others this one.
constexpr double kFlashAttention2VsGemm = 0.70;

// Achievable fraction of datasheet HBM bandwidth for streaming kernels:
// BabelStream 5.0's copy reaches 1,709 GB/s of 2,039 on an A100-SXM4-80GB
// (0.838; ukri-bench/benchmark-BabelStream README), RRZE's gpu-stream
// 1,737 on an A100 80GB and 1,704 of 2,000 on an H100 PCIe (0.85;
// RRZE-HPC/gpu-benches gpu-stream/a100_80.txt, h100_pcie.txt). The GPUs
// whose catalog entry gives their own (memory_efficiency, where a streaming
// benchmark of the part was found: RTX 4090, RTX 3090, L40 and the AD102
// parts inferred from it, A100 40GB) use theirs; the others, GDDR parts
// included, this one.
constexpr double kHbmEfficiency = 0.84;
// Fixed cost per kernel: launch plus the ramp/tail of a grid that never
// fills the machine at its ends (a few microseconds on A100/H100).
constexpr Seconds kKernelOverhead(4e-6);

double StreamingEfficiency(const GpuSpec& g) { return g.memory_efficiency.value_or(kHbmEfficiency); }

}  // namespace

double AttentionVsGemm(const GpuSpec& g, Attention kernel, const Calibration& cal) {
  const double flash = g.attention_flash.value_or(kFlashAttention2VsGemm);
  switch (kernel) {
    // Transformer Engine runs flash-attn where cuDNN is not preferred
    // (before Hopper); no cuDNN measurement there.
    case Attention::kCudnn: return g.attention_cudnn.value_or(flash);
    case Attention::kFlash3: return g.attention_flash3.value_or(flash);  // validate_training.cc: Hopper only
    // Fitted (spec/calibration.h), or the GPU's own fit (gpus.yaml).
    case Attention::kTriton: return g.attention_triton.value_or(cal.triton_vs_flash_attention2 * flash);
    case Attention::kFlash:
    case Attention::kUnfused: break;  // unfused attention is GEMMs and memory ops
  }
  return flash;
}

double DefaultGemmEfficiency() {
  // Mean fraction_of_peak of the bf16 rows of tests/data/gemm_achievable.csv
  // (A100-SXM 0.869, A100-PCIe 0.811, H100-SXM 0.803, B200 0.776).
  return (0.869 + 0.811 + 0.803 + 0.776) / 4;
}

double Fp8VsBf16Gemm() {
  // The only GPU measured in both (H100-SXM, tests/data/gemm_achievable.csv).
  return 0.709 / 0.803;
}

double GemmEfficiency(const GpuSpec& g, Precision p) {
  // tf32 and fp32 GEMMs: no measurement in gemm_achievable.csv; assumed to
  // reach the same fraction of their own peak as bf16.
  const double bf16 = g.gemm_efficiency.value_or(DefaultGemmEfficiency());
  if (p != Precision::kFp8) return bf16;
  return g.gemm_efficiency_fp8.value_or(bf16 * Fp8VsBf16Gemm());
}

Precision KernelPrecision(const Op& op, Precision p) {
  if (op.fp32) return Precision::kFp32;
  return op.kind == OpKind::kAttention && p == Precision::kFp8 ? Precision::kBf16 : p;
}

Seconds OpTime(const Op& op, const GpuSpec& g, Precision p, const Calibration& cal) {
  const bool fp8 = KernelPrecision(op, p) == Precision::kFp8;
  return OpTime(op, g, p, cal, fp8 ? Fp8GemmShapeConstants() : GemmShapeConstants());
}

Seconds OpTime(const Op& op, const GpuSpec& g, Precision p, const Calibration& cal,
               const GemmShapeConstants& shape) {
  const Precision kernel = KernelPrecision(op, p);
  double eff = GemmEfficiency(g, kernel);
  if (op.kind == OpKind::kAttention) eff *= AttentionVsGemm(g, op.kernel, cal);
  if (op.kind == OpKind::kGemm) eff *= GemmShapeFactor(g.sms, op.m, op.n, op.k, shape);
  // Clock-bound kernels only: the HBM's rate does not follow the SM clock.
  eff *= g.training_rate.value_or(1);
  const Seconds compute = op.flops / (PeakFlops(g, kernel) * eff);
  const Seconds memory = DramBytes(op, g) / (g.memory_bandwidth * StreamingEfficiency(g));
  return kKernelOverhead + std::max(compute, memory) / cal.training_kernel_efficiency;
}

Seconds OptimizerTime(const Scenario& s, double params) {
  const GpuSpec& g = s.cluster.node.gpu;
  const TrainingSpec& t = s.training;
  // Adam with fp32 master weights, or on bf16 state, and the stack's
  // gradient scaling: bytes per parameter in stack.cc.
  // (The Trainer's embedding under an 8-bit optimizer moves fp32 moments.)
  const Bytes moved(params * StepBytesPerParam(t) + 2 * WideMomentBytes(s));
  const Seconds stream =
      kKernelOverhead + moved / (g.memory_bandwidth * (StreamingEfficiency(g) * s.calibration.training_kernel_efficiency));
  if (!BnbOptimizer(t)) return stream;
  const Seconds serial = BnbSecondsPerTensor() * double(TrainedTensors(s));
  const Bytes evicted = BnbPagedBytes(t) > 0 ? EstimateMemory(s).paged_evicted : Bytes(0);
  return stream + serial + PagedEvictionTime(s, evicted);
}

}  // namespace pf

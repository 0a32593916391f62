// Kernel time on one GPU from a roofline: a kernel takes a launch overhead
// plus the longer of its FLOPs at the GPU's achievable tensor throughput and
// its bytes at achievable HBM bandwidth, divided by the calibrated sustained
// efficiency (spec/calibration.h). Constants and their sources are in
// compute_model.cc; no SimGrid.
#pragma once

#include <vector>

#include "sim/model/gemm_shape.h"
#include "sim/model/model_math.h"
#include "sim/model/stack.h"
#include "sim/spec/spec.h"

namespace pf {

// Fraction of peak a well-tuned large GEMM reaches on `g`: the measured
// figure from gemm_achievable.csv when the catalog has one, else the mean of
// the measured bf16 fractions (DefaultGemmEfficiency); fp8 without its own
// measurement scales bf16 by Fp8VsBf16Gemm.
double GemmEfficiency(const GpuSpec& g, Precision p = Precision::kBf16);
double DefaultGemmEfficiency();
double Fp8VsBf16Gemm();

// An attention kernel's throughput over the GPU's best GEMM's: the
// catalog's measurement for this GPU and kernel, or FlashAttention-2's on
// A100 (0.70); the Triton kernel's is the GPU's fitted one or `cal`'s share
// of FlashAttention-2's.
double AttentionVsGemm(const GpuSpec& g, Attention kernel, const Calibration& cal);

// Time one kernel takes (GEMMs scaled by their shape's factor under the
// shape constants of the precision they run in, gemm_shape.h, or under
// `shape`).
Seconds OpTime(const Op& op, const GpuSpec& g, Precision p, const Calibration& cal);
Seconds OpTime(const Op& op, const GpuSpec& g, Precision p, const Calibration& cal,
               const GemmShapeConstants& shape);

// The precision a kernel runs in under the training precision `p`: FP8
// recipes (Transformer Engine) run the linear layers in fp8 and keep
// attention in bf16.
Precision KernelPrecision(const Op& op, Precision p);

// The job's Adam step over `params` parameters held on one GPU
// (memory-bound): its stack's fused or foreach Adam over its gradients, on
// fp32 state or, in pure bf16, on 16-bit parameters and moments with no
// master copy, and the stack's gradient scaling (stack.h StepBytesPerParam);
// a bitsandbytes optimizer one tensor at a time, the GPU waiting on the
// host's issue and synchronisation of each, its paged moments brought back
// from host memory where the GPU had evicted them (model/optimizer.h).
Seconds OptimizerTime(const Scenario& s, double params);

}  // namespace pf

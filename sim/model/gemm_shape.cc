#include "sim/model/gemm_shape.h"

#include <algorithm>
#include <cmath>

namespace pf {

namespace {

// Split-K: when a GEMM has fewer output tiles than SMs and a long
// reduction, cuBLAS and cuDNN split the reduction across thread blocks and
// sum the partial tiles ("Parallelized Reductions: Split K", CUTLASS
// docs/efficient_gemm.md), as convolution weight gradients (K = images x
// height x width, up to millions) need. Slices are kept at least
// kSplitKSlice long: their K term stays above 0.94, and the fitted shapes
// (K <= 8192, tests/data/gemm_shapes.csv) are never split, so the fit holds.
constexpr double kSplitKSlice = 8192;

}  // namespace

// Fitted over the 16 points of tests/data/gemm_shapes_fp8.csv (DeepGEMM's
// README tables, H800, blockwise FP8): build/calibrate --gemm, rms 6.4%;
// tests/calibration/gemm_fit_test.cc holds the shipped values to the fit.
GemmShapeConstants Fp8GemmShapeConstants() { return {1.030, 0.321, 683}; }

double GemmShapeFactor(int sms, double m, double n, double k, const GemmShapeConstants& c) {
  if (sms <= 0 || m <= 0 || n <= 0 || k <= 0) return 1;
  // cuBLAS's common CTA tile on A100/H100 is 128 x 128 (or 128 x 256).
  double tiles_per_sm = m * n / (double(sms) * 128 * 128);
  if (tiles_per_sm < 1 && k >= 2 * kSplitKSlice) {
    const double splits = std::min(std::ceil(1 / tiles_per_sm), std::floor(k / kSplitKSlice));
    tiles_per_sm *= splits;
    k /= splits;
  }
  const double fill = tiles_per_sm / (tiles_per_sm + c.tiles_half);
  const double depth = k / (k + c.k_half);
  return std::min(1.0, c.headroom * fill * depth);
}

}  // namespace pf

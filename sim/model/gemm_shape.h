// How far a GEMM of shape M x N x K falls below the best fraction of peak
// its GPU reaches (GemmEfficiency, compute_model.h): too few output tiles
// to fill every SM, or too short a reduction to amortise the tile's
// prologue and epilogue, as published GEMM sweeps show (tests/data/
// gemm_shapes.csv: 125 shapes 256-4096 on H100 from XLA's measured table,
// an A100 cuBLAS sweep 256-8192, best shapes of both). With u = M x N /
// (SMs x 128 x 128) output tiles of 128 x 128 per SM, the factor is
//   min(1, headroom x u / (u + tiles_half) x K / (K + k_half)),
// fitted by sim/calibration/gemm_fit.h (build/calibrate --gemm). FP8 GEMMs
// have constants of their own (Fp8GemmShapeConstants). No SimGrid.
#pragma once

namespace pf {

struct GemmShapeConstants {
  double headroom = 1.411;   // the smooth curve's height over the best measured fraction
  double tiles_half = 0.400; // output tiles per SM at which the fill term is one half
  double k_half = 472;       // reduction length at which the K term is one half
};

// FP8 GEMMs (E4M3 operands, bf16 output), fitted the same way to
// DeepGEMM's published H800 table (tests/data/gemm_shapes_fp8.csv: dense
// and grouped training shapes, M 1024-32768, K 512-16384). At twice the
// rate a step of the reduction takes half the time, so the tile's fixed
// prologue and epilogue weigh more: the K term is half way at a longer K
// than bf16's, and the curve rises to the measured best only on the
// largest shapes (headroom near 1). With the bf16 constants the model put
// those FP8 GEMMs 27-68% above DeepGEMM's figures wherever K <= 2048.
GemmShapeConstants Fp8GemmShapeConstants();

// The factor (0, 1] on a GPU of `sms` SMs; 1 when a dimension is unknown (0).
double GemmShapeFactor(int sms, double m, double n, double k, const GemmShapeConstants& c = GemmShapeConstants());

}  // namespace pf

// The fit behind the GEMM shape constants of model/gemm_shape.h: the
// headroom, the tiles per SM and the reduction length at which a GEMM
// reaches half its way, fitted to the published GEMM sweeps of
// tests/data/gemm_shapes.csv (A100 and H100, bf16) and, for FP8, of
// tests/data/gemm_shapes_fp8.csv (DeepGEMM on H800), each point timed as a
// training step times a kernel (OpTime with the kernel-efficiency factor 1:
// the GPU's best measured fraction x the shape factor, the roofline, the
// launch overhead). Levenberg-Marquardt (Eigen) on log(model / measured).
#pragma once

#include <string>
#include <vector>

#include "sim/model/gemm_shape.h"
#include "sim/spec/spec.h"

namespace pf {

struct GemmPoint {
  std::string gpu;  // catalog name
  double m = 0, n = 0, k = 0;
  double tflops = 0;  // measured
  Precision precision = Precision::kBf16;  // operands; the output is 16-bit
};

// The points of `root`/tests/data/gemm_shapes.csv (bf16) or, with kFp8,
// gemm_shapes_fp8.csv. Throws InputError on an unreadable table or a GPU
// the catalog lacks.
std::vector<GemmPoint> LoadGemmPoints(const std::string& root, Precision precision = Precision::kBf16);

// The model's TFLOP/s for one point under `c`.
double ModelGemmTflops(const GemmPoint& p, const GemmShapeConstants& c);

struct GemmFitResult {
  GemmShapeConstants fitted;
  GemmShapeConstants shipped;      // `fitted` as gemm_shape.h writes it
  std::vector<double> log_errors;  // log(model / measured) per point, at `fitted`
  double rms = 0;                  // of log_errors
};

GemmFitResult FitGemmShape(const std::vector<GemmPoint>& points);

// `c` as gemm_shape.h writes it: headroom and tiles_half to 0.001, k_half
// to 1.
GemmShapeConstants RoundedGemmShape(const GemmShapeConstants& c);

}  // namespace pf

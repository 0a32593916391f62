#include "sim/calibration/gemm_fit.h"

#include <cmath>

#include <Eigen/Dense>

#include "sim/base/csv.h"
#include "sim/base/error.h"
#include "sim/model/compute_model.h"
#include "sim/scenario/catalog.h"

namespace pf {

namespace {

// The constants as logs (all positive; headroom >= 1 by its meaning, kept
// there by the fit's start and checked by the test).
Eigen::Vector3d ToVec(const GemmShapeConstants& c) {
  return {std::log(c.headroom), std::log(c.tiles_half), std::log(c.k_half)};
}
GemmShapeConstants FromVec(const Eigen::Vector3d& v) {
  return {std::exp(v[0]), std::exp(v[1]), std::exp(v[2])};
}

Eigen::VectorXd Residuals(const std::vector<GemmPoint>& points, const GemmShapeConstants& c) {
  Eigen::VectorXd r(points.size());
  for (size_t i = 0; i < points.size(); ++i) r[i] = std::log(ModelGemmTflops(points[i], c) / points[i].tflops);
  return r;
}

}  // namespace

std::vector<GemmPoint> LoadGemmPoints(const std::string& root, Precision precision) {
  const std::string path =
      root + (precision == Precision::kFp8 ? "/tests/data/gemm_shapes_fp8.csv" : "/tests/data/gemm_shapes.csv");
  std::vector<GemmPoint> out;
  for (const CsvRow& r : ReadCsv(path)) {
    GemmPoint p;
    p.gpu = r.at("gpu");
    if (!GpuCatalog().count(p.gpu))
      throw InputError(Location{path, 0, 0}, "gpu", "\"" + Shown(p.gpu) + "\" is not in the GPU catalog");
    p.m = CsvNumber(r, "m", path);
    p.n = CsvNumber(r, "n", path);
    p.k = CsvNumber(r, "k", path);
    p.tflops = CsvNumber(r, "tflops", path);
    p.precision = precision;
    out.push_back(p);
  }
  return out;
}

double ModelGemmTflops(const GemmPoint& p, const GemmShapeConstants& c) {
  // An isolated benchmark: 16-bit (or FP8) operands and a 16-bit output,
  // no training-step slowdown (kernel efficiency 1, the GPU's measured
  // rates).
  GpuSpec g = GpuCatalog().at(p.gpu);
  g.training_rate.reset();
  const double operand = p.precision == Precision::kFp8 ? 1 : 2;
  const Op op{"gemm", OpKind::kGemm, Flops(2 * p.m * p.n * p.k),
              Bytes(operand * (p.m * p.k + p.k * p.n) + 2 * p.m * p.n), p.m, p.n, p.k};
  Calibration isolated;
  isolated.training_kernel_efficiency = 1;
  return op.flops.value() / OpTime(op, g, p.precision, isolated, c).value() / 1e12;
}

GemmFitResult FitGemmShape(const std::vector<GemmPoint>& points) {
  GemmFitResult best;
  double best_cost = INFINITY;
  // Levenberg-Marquardt from a few starts (the min() makes the surface
  // piecewise smooth).
  for (const GemmShapeConstants start : {GemmShapeConstants{1.2, 0.5, 300}, GemmShapeConstants{1.05, 1.0, 100},
                                         GemmShapeConstants{1.4, 0.2, 600}, GemmShapeConstants{1.02, 0.3, 900}}) {
    Eigen::Vector3d x = ToVec(start);
    Eigen::VectorXd r = Residuals(points, FromVec(x));
    double lambda = 1e-3;
    for (int iter = 0; iter < 200; ++iter) {
      Eigen::MatrixXd J(points.size(), 3);
      for (int j = 0; j < 3; ++j) {
        Eigen::Vector3d h = x;
        h[j] += 1e-6;
        J.col(j) = (Residuals(points, FromVec(h)) - r) / 1e-6;
      }
      const Eigen::Matrix3d jtj = J.transpose() * J;
      const Eigen::Vector3d g = J.transpose() * r;
      Eigen::Matrix3d a = jtj;
      a.diagonal() *= 1 + lambda;
      const Eigen::Vector3d step = a.ldlt().solve(-g);
      const Eigen::VectorXd trial = Residuals(points, FromVec(x + step));
      if (trial.squaredNorm() < r.squaredNorm()) {
        const bool converged = r.squaredNorm() - trial.squaredNorm() < 1e-12;
        x += step, r = trial, lambda /= 3;
        if (converged) break;
      } else {
        lambda *= 4;
        if (lambda > 1e8) break;
      }
    }
    if (r.squaredNorm() < best_cost) {
      best_cost = r.squaredNorm();
      best.fitted = FromVec(x);
    }
  }
  best.shipped = RoundedGemmShape(best.fitted);
  const Eigen::VectorXd r = Residuals(points, best.fitted);
  best.log_errors.assign(r.data(), r.data() + r.size());
  best.rms = std::sqrt(r.squaredNorm() / double(r.size()));
  return best;
}

GemmShapeConstants RoundedGemmShape(const GemmShapeConstants& c) {
  return {std::round(c.headroom * 1000) / 1000, std::round(c.tiles_half * 1000) / 1000, std::round(c.k_half)};
}

}  // namespace pf

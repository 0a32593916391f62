#include "sim/calibration/fit.h"

#include <cmath>

namespace pf {

FitVector ToVector(const Calibration& c) {
  return {c.training_kernel_efficiency, c.nccl_compute_share, c.triton_vs_flash_attention2};
}

Calibration FromVector(const FitVector& v) {
  Calibration c;
  c.training_kernel_efficiency = v[0];
  c.nccl_compute_share = v[1];
  c.triton_vs_flash_attention2 = v[2];
  return c;
}

const FitVector& JacobianSteps() {
  // Large enough that the step changes every affected row's step time by
  // far more than the simulator's event-time resolution, small enough that
  // the log errors stay near-linear over it.
  static const FitVector steps(0.005, 0.02, 0.02);
  return steps;
}

std::vector<Calibration> StepPoints(const Calibration& at) {
  std::vector<Calibration> out{at};
  for (int k = 0; k < kFittedConstants; ++k) {
    FitVector v = ToVector(at);
    v[k] += JacobianSteps()[k];
    out.push_back(FromVector(v));
  }
  return out;
}

Eigen::VectorXd Residuals(const std::vector<ReferenceRow>& rows, const Calibration& cal,
                          const std::function<void(const std::string&)>& progress) {
  Eigen::VectorXd r(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    if (progress) progress(rows[i].label);
    r[i] = std::log(PredictRow(rows[i], cal) / rows[i].published);
  }
  return r;
}

Eigen::MatrixXd Jacobian(const std::vector<Eigen::VectorXd>& r) {
  Eigen::MatrixXd J(r[0].size(), kFittedConstants);
  for (int k = 0; k < kFittedConstants; ++k) J.col(k) = (r[k + 1] - r[0]) / JacobianSteps()[k];
  return J;
}

FitVector GaussNewtonStep(const Eigen::VectorXd& r, const Eigen::MatrixXd& J) {
  return J.colPivHouseholderQr().solve(-r);
}

Calibration Rounded(const Calibration& c) {
  FitVector v = ToVector(c);
  for (int k = 0; k < kFittedConstants; ++k) v[k] = std::round(v[k] * 1000) / 1000;
  return FromVector(v);
}

namespace {

// Each row left out in turn: one Gauss-Newton step from the fit without it.
void LeaveOneOut(const Eigen::VectorXd& r, const Eigen::MatrixXd& J, const Calibration& fitted,
                 FitResult& out) {
  const int n = static_cast<int>(r.size());
  out.loo_errors.resize(n);
  out.loo_constants.resize(n, kFittedConstants);
  for (int i = 0; i < n; ++i) {
    Eigen::VectorXd r_rest(n - 1);
    Eigen::MatrixXd J_rest(n - 1, kFittedConstants);
    for (int j = 0, k = 0; j < n; ++j)
      if (j != i) r_rest[k] = r[j], J_rest.row(k++) = J.row(j);
    const FitVector d = GaussNewtonStep(r_rest, J_rest);
    out.loo_errors[i] = r[i] + J.row(i).dot(d);
    out.loo_constants.row(i) = (ToVector(fitted) + d).transpose();
  }
}

}  // namespace

FitResult Fit(const std::vector<ReferenceRow>& rows, const Calibration& start, int max_iterations,
              const std::function<void(const std::string&)>& progress) {
  FitResult out;
  Calibration at = start;
  Eigen::VectorXd r;
  Eigen::MatrixXd J;
  while (out.iterations < max_iterations) {
    ++out.iterations;
    std::vector<Eigen::VectorXd> res;
    for (const Calibration& p : StepPoints(at)) res.push_back(Residuals(rows, p, progress));
    r = res[0];
    J = Jacobian(res);
    const FitVector d = GaussNewtonStep(r, J);
    at = FromVector(ToVector(at) + d);
    if (d.cwiseAbs().maxCoeff() < 1e-4) break;
  }
  out.fitted = at;
  out.shipped = Rounded(at);
  out.residuals = Residuals(rows, at, progress);
  out.predicted.resize(rows.size());
  for (size_t i = 0; i < rows.size(); ++i)
    out.predicted[i] = rows[i].published * std::exp(out.residuals[i]);
  LeaveOneOut(out.residuals, J, at, out);
  return out;
}

}  // namespace pf

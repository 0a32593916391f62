#include "sim/calibration/hopper_fit.h"

#include <cmath>

#include "sim/job/simulate.h"
#include "sim/scenario/scenario_loader.h"

namespace pf {

bool KnownMechanismMiss(const PublishedRow& row) { return row.error_min > 0 || row.error_max < 0; }

std::vector<PublishedRow> HopperRows(const std::string& root) {
  std::vector<PublishedRow> out;
  for (const PublishedRow& row : LoadPublishedRows(root))
    if (!IsMemoryMetric(row.metric) && !KnownMechanismMiss(row) &&
        LoadScenario(row.path).cluster.node.gpu.name == kHopperFitGpu)
      out.push_back(row);
  return out;
}

Eigen::VectorXd HopperResiduals(const std::vector<PublishedRow>& rows, double rate,
                                const std::function<void(const std::string&)>& progress) {
  Eigen::VectorXd r(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    if (progress) progress(rows[i].scenario);
    Scenario s = LoadScenario(rows[i].path);
    s.cluster.node.gpu.training_rate = rate;
    r[i] = std::log(RowFigure(rows[i].metric, s, Simulate(s, /*force=*/true)) / rows[i].published);
  }
  return r;
}

namespace {

Eigen::VectorXd Derivative(const Eigen::VectorXd& at, const Eigen::VectorXd& stepped) {
  return (stepped - at) / kHopperRateStep;
}

}  // namespace

double HopperStep(const Eigen::VectorXd& at, const Eigen::VectorXd& stepped) {
  const Eigen::VectorXd j = Derivative(at, stepped);
  return -j.dot(at) / j.squaredNorm();
}

HopperFitResult FitHopperRate(const std::vector<PublishedRow>& rows, double start, int max_iterations,
                              const std::function<void(const std::string&)>& progress) {
  HopperFitResult out;
  double rate = start;
  Eigen::VectorXd j;
  while (out.iterations < max_iterations) {
    ++out.iterations;
    const Eigen::VectorXd at = HopperResiduals(rows, rate, progress);
    const Eigen::VectorXd stepped = HopperResiduals(rows, rate + kHopperRateStep, progress);
    j = Derivative(at, stepped);
    const double d = HopperStep(at, stepped);
    rate += d;
    if (std::abs(d) < 1e-4) break;
  }
  out.fitted = rate;
  out.shipped = std::round(rate * 1000) / 1000;
  out.residuals = HopperResiduals(rows, rate, progress);
  const int n = int(rows.size());
  out.predicted.resize(n);
  out.loo_errors.resize(n);
  out.loo_rates.resize(n);
  const double jr = j.dot(out.residuals), jj = j.squaredNorm();
  for (int i = 0; i < n; ++i) {
    out.predicted[i] = rows[i].published * std::exp(out.residuals[i]);
    // One Gauss-Newton step from the fit over the other rows.
    const double d = -(jr - j[i] * out.residuals[i]) / (jj - j[i] * j[i]);
    out.loo_rates[i] = rate + d;
    out.loo_errors[i] = out.residuals[i] + j[i] * d;
  }
  return out;
}

}  // namespace pf

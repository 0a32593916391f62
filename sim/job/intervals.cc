#include "sim/job/intervals.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <Eigen/Dense>

namespace pf {
namespace {

constexpr double kZ90 = 1.6448536269514722;  // the standard normal's 95th percentile

double Sigma(double factor) { return std::log(factor) / kZ90; }

Spread Percentiles(std::vector<double> x) {
  auto at = [&](double q) {
    const size_t k = static_cast<size_t>(std::lround(q * double(x.size() - 1)));
    std::nth_element(x.begin(), x.begin() + k, x.end());
    return x[k];
  };
  return {at(0.05), at(0.50), at(0.95)};
}

}  // namespace

Uncertainty Uncertainty::Scaled(double k) const {
  auto s = [k](double f) { return std::exp(k * std::log(f)); };
  return {s(kernel), s(network), s(failures), s(preemptions), s(spot_price)};
}

Sensitivity FitSensitivity(const double (&steps)[5], double kernel, double network) {
  const double lk = std::log(kernel), ln = std::log(network);
  Eigen::Matrix<double, 5, 3> a;
  a << 1, 0, 0, 1, lk, 0, 1, -lk, 0, 1, 0, ln, 1, 0, -ln;
  Eigen::Matrix<double, 5, 1> y;
  for (int i = 0; i < 5; ++i) y(i) = std::log(steps[i]);
  const Eigen::Vector3d fit = a.colPivHouseholderQr().solve(y);
  return {fit(1), fit(2)};
}

JobSpread SampleJob(const JobInputs& in, const Sensitivity& sens, const Uncertainty& u, bool spot,
                    const std::function<double(const JobTime&, double)>& cost) {
  std::mt19937_64 rng(kIntervalSeed);
  std::normal_distribution<double> z;
  std::vector<double> step, wall, money;
  step.reserve(kIntervalDraws), wall.reserve(kIntervalDraws), money.reserve(kIntervalDraws);
  for (int i = 0; i < kIntervalDraws; ++i) {
    // Five draws each time, used or not, so a change of one range leaves
    // the others' draws as they were.
    const double zk = z(rng), zn = z(rng), zf = z(rng), zp = z(rng), zs = z(rng);
    JobInputs d = in;
    const double scale = std::exp(sens.kernel * Sigma(u.kernel) * zk + sens.network * Sigma(u.network) * zn);
    d.step = in.step * scale;
    d.eval_batch = in.eval_batch * scale;
    d.gpu_mtbf = in.gpu_mtbf / std::exp(Sigma(u.failures) * zf);
    d.preemptions_per_hour = in.preemptions_per_hour * std::exp(Sigma(u.preemptions) * zp);
    const JobTime t = TimeJob(d);
    step.push_back(d.step.value());
    wall.push_back(t.wall.value());
    if (cost) money.push_back(cost(t, spot ? std::exp(Sigma(u.spot_price) * zs) : 1.0));
  }
  JobSpread out;
  out.step = Percentiles(step);
  out.wall = Percentiles(wall);
  if (cost) out.cost = Percentiles(money);
  return out;
}

}  // namespace pf

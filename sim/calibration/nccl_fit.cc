#include "sim/calibration/nccl_fit.h"

#include <cmath>
#include <map>

#include <Eigen/Dense>

#include "sim/base/csv.h"
#include "sim/base/error.h"
#include "sim/engine/group_paths.h"
#include "sim/scenario/scenario_loader.h"

namespace pf {

namespace {

// The bundled node each published system ran on.
const std::map<std::string, std::string>& NodeOfSystem() {
  static const std::map<std::string, std::string> m = {
      {"8x A100-SXM4-80GB (Azure ND A100 v4)", "a100-80gb-sxm-8x"},
      {"8x H100-SXM5-80GB (Azure ND H100 v5)", "h100-sxm-8x"},
  };
  return m;
}

struct Setting {
  GroupShape shape;
  GroupPaths paths;
};

Setting SettingOf(const NcclCurvePoint& p) {
  static std::map<std::string, Setting> cache;
  auto it = cache.find(p.node);
  if (it != cache.end()) return it->second;
  ClusterSpec c;
  c.node = LoadNode(p.node);
  c.nodes = 1;
  std::vector<int> group;
  for (int g = 0; g < c.node.gpus_per_node; ++g) group.push_back(g);
  Setting s{GroupShape{c.node.gpus_per_node, 1, c.node.gpus_per_node}, PathsOf(c, group)};
  return cache[p.node] = s;
}

// The fitted constants as a vector: step latencies LL, LL128, Simple; NVLS
// latency; 1 / NVLS efficiency. The model is linear in these.
constexpr int kUnknowns = 5;
Eigen::VectorXd ToVec(const NcclConstants& c) {
  Eigen::VectorXd v(kUnknowns);
  v << c.step_latency_ll_s, c.step_latency_ll128_s, c.step_latency_simple_s, c.nvls_latency_s,
      1 / c.nvls_efficiency;
  return v;
}
NcclConstants FromVec(const Eigen::VectorXd& v, NcclConstants c) {
  c.step_latency_ll_s = v[0];
  c.step_latency_ll128_s = v[1];
  c.step_latency_simple_s = v[2];
  c.nvls_latency_s = v[3];
  c.nvls_efficiency = 1 / v[4];
  return c;
}

double MeasuredSeconds(const NcclCurvePoint& p, int ranks) {
  return BusBytes(CollectiveKind::kAllReduce, ranks, Bytes(p.size_bytes)).value() / (p.busbw_gbps * 1e9);
}

// argmin |a x - b| over x >= 0 by dropping the columns that come out
// negative (they stay 0) and solving again; columns no row constrains keep
// their value in `keep`.
Eigen::VectorXd NonNegativeLeastSquares(const Eigen::MatrixXd& a, const Eigen::VectorXd& b,
                                        const Eigen::VectorXd& keep) {
  std::vector<bool> free(a.cols(), true);
  Eigen::VectorXd x = keep;
  for (int round = 0; round < a.cols(); ++round) {
    std::vector<int> cols;
    for (int k = 0; k < a.cols(); ++k)
      if (free[k] && a.col(k).norm() > 0) cols.push_back(k);
    Eigen::MatrixXd sub(a.rows(), cols.size());
    for (size_t j = 0; j < cols.size(); ++j) sub.col(j) = a.col(cols[j]);
    const Eigen::VectorXd y = sub.colPivHouseholderQr().solve(b);
    x = keep;
    bool negative = false;
    for (size_t j = 0; j < cols.size(); ++j) {
      x[cols[j]] = y[j];
      if (y[j] < 0) free[cols[j]] = false, negative = true;
    }
    for (int k = 0; k < a.cols(); ++k)
      if (!free[k]) x[k] = 0;
    if (!negative) break;
  }
  return x;
}

// Least squares on relative errors with every point run by the plan `c`
// picks for it; constants that come out negative are held at zero.
NcclConstants SolveAtPicks(const std::vector<NcclCurvePoint>& pts, const NcclConstants& c) {
  const int n = static_cast<int>(pts.size());
  Eigen::MatrixXd a(n, kUnknowns);
  Eigen::VectorXd b(n);
  const Eigen::VectorXd at = ToVec(c);
  for (int i = 0; i < n; ++i) {
    const Setting s = SettingOf(pts[i]);
    const Bytes size(pts[i].size_bytes);
    const auto plan = *PlanCollective(CollectiveKind::kAllReduce, s.shape, s.paths, size, c);
    auto time_at = [&](const Eigen::VectorXd& v) {
      return ModelCollective(CollectiveKind::kAllReduce, s.shape, s.paths, size, plan.algorithm, plan.protocol,
                             FromVec(v, c)).time.value();
    };
    // The time is affine in the unknowns: its constant part at zero (1 /
    // NVLS efficiency at 1e-300: no NVLS byte time), its coefficients from
    // unit steps; each row weighted by 1 / the measured time.
    const double w = 1 / MeasuredSeconds(pts[i], s.shape.ranks);
    Eigen::VectorXd zero = Eigen::VectorXd::Zero(kUnknowns);
    zero[4] = 1e-300;
    const double constant = time_at(zero);
    for (int k = 0; k < kUnknowns; ++k) a(i, k) = (time_at(zero + Eigen::VectorXd::Unit(kUnknowns, k)) - constant) * w;
    b[i] = 1 - constant * w;
  }
  Eigen::VectorXd x = NonNegativeLeastSquares(a, b, at);
  // 1 / NVLS efficiency held at zero would be an infinitely fast switch:
  // keep the current value instead.
  if (x[4] <= 0) x[4] = at[4];
  return FromVec(x, c);
}

double SquaredError(const std::vector<NcclCurvePoint>& pts, const NcclConstants& c) {
  double sum = 0;
  for (const auto& p : pts) sum += std::pow(ModelBusBandwidth(p, c) / p.busbw_gbps - 1, 2);
  return sum;
}

}  // namespace

std::vector<NcclCurvePoint> LoadNcclCurves(const std::string& root) {
  const std::string path = root + "/tests/data/nccl_allreduce_1node.csv";
  std::vector<NcclCurvePoint> out;
  for (const CsvRow& r : ReadCsv(path)) {
    NcclCurvePoint p;
    p.system = r.at("system");
    auto it = NodeOfSystem().find(p.system);
    if (it == NodeOfSystem().end())
      throw InputError(Location{path, 0, 0}, "system", "\"" + Shown(p.system) + "\" has no bundled node");
    p.node = it->second;
    p.size_bytes = CsvNumber(r, "message_bytes", path);
    p.busbw_gbps = CsvNumber(r, "busbw_gbps", path);
    out.push_back(p);
  }
  return out;
}

double ModelBusBandwidth(const NcclCurvePoint& p, const NcclConstants& c) {
  const Setting s = SettingOf(p);
  const auto plan = *PlanCollective(CollectiveKind::kAllReduce, s.shape, s.paths, Bytes(p.size_bytes), c);
  return BusBytes(CollectiveKind::kAllReduce, s.shape.ranks, Bytes(p.size_bytes)).value() /
         plan.time.value() / 1e9;
}

NcclFitResult FitNccl(const std::vector<NcclCurvePoint>& points) {
  NcclFitResult best;
  double best_error = INFINITY;
  // The picks can settle in a local optimum: start from per-step latencies
  // of 1, 3 and 10 us for LL, LL128 and Simple scaled by 0.3x to 10x.
  for (int step = 50; step <= 99; ++step) {
    for (double scale : {0.3, 1.0, 3.0, 10.0}) {
      NcclConstants c;
      c.ll128_bandwidth = step / 100.0;
      c.step_latency_ll_s = 1e-6 * scale;
      c.step_latency_ll128_s = 3e-6 * scale;
      c.step_latency_simple_s = 10e-6 * scale;
      c.nvls_latency_s = 30e-6 * scale;
      for (int it = 0; it < 50; ++it) {
        const NcclConstants next = SolveAtPicks(points, c);
        const bool settled = (ToVec(next) - ToVec(c)).norm() < 1e-12;
        c = next;
        if (settled) break;
      }
      const double e = SquaredError(points, c);
      if (e < best_error) best_error = e, best.fitted = c;
    }
  }
  best.shipped = RoundedNccl(best.fitted);
  for (const auto& p : points) best.relative_errors.push_back(ModelBusBandwidth(p, best.fitted) / p.busbw_gbps - 1);
  return best;
}

NcclConstants RoundedNccl(const NcclConstants& c) {
  auto us = [](double s) { return std::round(s * 1e8) / 1e8; };
  auto frac = [](double f) { return std::round(f * 1e3) / 1e3; };
  NcclConstants r = c;
  r.step_latency_ll_s = us(c.step_latency_ll_s);
  r.step_latency_ll128_s = us(c.step_latency_ll128_s);
  r.step_latency_simple_s = us(c.step_latency_simple_s);
  r.nvls_latency_s = us(c.nvls_latency_s);
  r.ll128_bandwidth = frac(c.ll128_bandwidth);
  r.nvls_efficiency = frac(c.nvls_efficiency);
  return r;
}

}  // namespace pf

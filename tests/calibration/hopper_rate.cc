// The H100's training_rate in topologies/gpus.yaml is the fit's result: one
// Gauss-Newton step from it, over every published H100 speed row of
// tests/data/ (calibration/hopper_fit.h), moves it by at most the last
// decimal it is written with (0.001). The step needs the rows' log errors
// at the shipped rate and one step above; each is its own ctest case
// (hopper_residuals_*, ctest fixtures run in parallel) writing to
// $PREFLIGHT_CALIBRATION_DIR, and hopper_fit combines them. Not run under
// the sanitizers: the rows' simulations are the normal suite's job.
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "sim/calibration/hopper_fit.h"
#include "sim/scenario/catalog.h"

namespace pf {
namespace {

std::string PointFile(int k) {
  const char* dir = std::getenv("PREFLIGHT_CALIBRATION_DIR");
  return std::string(dir ? dir : ".") + "/hopper_point_" + std::to_string(k) + ".txt";
}

double ShippedRate() { return GpuCatalog().at(kHopperFitGpu).training_rate.value_or(1); }

void EvaluatePoint(int k) {
#ifdef PREFLIGHT_SANITIZED
  GTEST_SKIP() << "the H100 rows' simulations are the normal suite's job";
#endif
  std::remove(PointFile(k).c_str());
  const Eigen::VectorXd r = HopperResiduals(HopperRows(PREFLIGHT_SOURCE_DIR), ShippedRate() + k * kHopperRateStep);
  std::ofstream out(PointFile(k));
  out.precision(17);
  for (int i = 0; i < r.size(); ++i) out << r[i] << "\n";
  ASSERT_TRUE(out.good()) << PointFile(k);
}

TEST(HopperPoint, Shipped) { EvaluatePoint(0); }
TEST(HopperPoint, Step) { EvaluatePoint(1); }

TEST(HopperFit, ShippedRateIsTheFitToThreeDecimals) {
#ifdef PREFLIGHT_SANITIZED
  GTEST_SKIP() << "the H100 rows' simulations are the normal suite's job";
#endif
  std::vector<Eigen::VectorXd> res;
  const size_t rows = HopperRows(PREFLIGHT_SOURCE_DIR).size();
  ASSERT_GE(rows, 20u);  // a fit over many runs, never one
  for (int k = 0; k < 2; ++k) {
    std::ifstream in(PointFile(k));
    std::vector<double> v;
    for (double x; in >> x;) v.push_back(x);
    ASSERT_EQ(v.size(), rows) << PointFile(k);
    res.push_back(Eigen::Map<Eigen::VectorXd>(v.data(), v.size()));
  }
  const double d = HopperStep(res[0], res[1]);
  std::cout << "fit from the shipped rate " << ShippedRate() << ": " << ShippedRate() + d << "\n";
  EXPECT_LE(std::abs(d), 0.001) << "refit " << kHopperFitGpu << " training_rate: " << ShippedRate() + d;
}

}  // namespace
}  // namespace pf

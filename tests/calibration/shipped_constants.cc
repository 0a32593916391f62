// The constants spec/calibration.h ships are the fit's result: one
// Gauss-Newton step from them, over every reference row, moves neither by
// more than the last decimal they are written with (0.001). The step needs
// the rows' log errors at three points (StepPoints); each point is its own
// ctest case (calibration_residuals_*, run in parallel as ctest fixtures)
// writing to $PREFLIGHT_CALIBRATION_DIR, and calibration_fit combines them.
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "sim/calibration/fit.h"

namespace pf {
namespace {

std::string PointFile(int k) {
  const char* dir = std::getenv("PREFLIGHT_CALIBRATION_DIR");
  return std::string(dir ? dir : ".") + "/point_" + std::to_string(k) + ".txt";
}

void EvaluatePoint(int k) {
  std::remove(PointFile(k).c_str());
  const auto rows = LoadReferenceRows(PREFLIGHT_SOURCE_DIR);
  const Eigen::VectorXd r = Residuals(rows, StepPoints(Calibration{})[k]);
  std::ofstream out(PointFile(k));
  out.precision(17);
  for (int i = 0; i < r.size(); ++i) out << r[i] << "\n";
  ASSERT_TRUE(out.good()) << PointFile(k);
}

TEST(CalibrationPoint, Shipped) { EvaluatePoint(0); }
TEST(CalibrationPoint, KernelStep) { EvaluatePoint(1); }
TEST(CalibrationPoint, ShareStep) { EvaluatePoint(2); }

TEST(Calibration, ShippedConstantsAreTheFitToThreeDecimals) {
  std::vector<Eigen::VectorXd> res;
  for (int k = 0; k < 3; ++k) {
    std::ifstream in(PointFile(k));
    std::vector<double> v;
    for (double x; in >> x;) v.push_back(x);
    ASSERT_EQ(v.size(), LoadReferenceRows(PREFLIGHT_SOURCE_DIR).size()) << PointFile(k);
    res.push_back(Eigen::Map<Eigen::VectorXd>(v.data(), v.size()));
  }
  const Eigen::Vector2d d = GaussNewtonStep(res[0], Jacobian(res));
  const Eigen::Vector2d fitted = ToVector(Calibration{}) + d;
  std::cout << "fit from the shipped constants: training_kernel_efficiency " << fitted[0]
            << ", nccl_compute_share " << fitted[1] << "\n";
  EXPECT_LE(std::abs(d[0]), 0.001) << "refit training_kernel_efficiency: " << fitted[0];
  EXPECT_LE(std::abs(d[1]), 0.001) << "refit nccl_compute_share: " << fitted[1];
}

}  // namespace
}  // namespace pf

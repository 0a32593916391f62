// The constants spec/calibration.h ships are the fit's result: one
// Gauss-Newton step from them, over every reference row, moves neither by
// more than the last decimal they are written with (0.001). The step needs
// the rows' log errors at four points (StepPoints); each point is its own
// ctest case (calibration_residuals_*, run in parallel as ctest fixtures)
// writing to $PREFLIGHT_CALIBRATION_DIR, and calibration_fit combines them.
// Not run under the sanitizers: the rows' simulations are the normal suite's
// job (as hopper_rate.cc's).
#include <cmath>
#include <iostream>

#include <gtest/gtest.h>

#include "sim/calibration/fit.h"
#include "tests/calibration/point_files.h"

namespace pf {
namespace {

std::string PointFile(int k) { return testing_points::PointFile("point", k); }

void EvaluatePoint(int k) {
#ifdef PREFLIGHT_SANITIZED
  GTEST_SKIP() << "the reference rows' simulations are the normal suite's job";
#endif
  const auto rows = LoadReferenceRows(PREFLIGHT_SOURCE_DIR);
  testing_points::WritePoint(PointFile(k), Residuals(rows, StepPoints(Calibration{})[k]));
}

TEST(CalibrationPoint, Shipped) { EvaluatePoint(0); }
TEST(CalibrationPoint, KernelStep) { EvaluatePoint(1); }
TEST(CalibrationPoint, ShareStep) { EvaluatePoint(2); }
TEST(CalibrationPoint, TritonStep) { EvaluatePoint(3); }

TEST(Calibration, ShippedConstantsAreTheFitToThreeDecimals) {
#ifdef PREFLIGHT_SANITIZED
  GTEST_SKIP() << "the reference rows' simulations are the normal suite's job";
#endif
  std::vector<Eigen::VectorXd> res;
  for (int k = 0; k <= kFittedConstants; ++k) {
    res.push_back(testing_points::ReadPoint(PointFile(k)));
    ASSERT_EQ(size_t(res.back().size()), LoadReferenceRows(PREFLIGHT_SOURCE_DIR).size()) << PointFile(k);
  }
  const FitVector d = GaussNewtonStep(res[0], Jacobian(res));
  const FitVector fitted = ToVector(Calibration{}) + d;
  std::cout << "fit from the shipped constants: training_kernel_efficiency " << fitted[0]
            << ", nccl_compute_share " << fitted[1] << ", triton_vs_flash_attention2 " << fitted[2] << "\n";
  EXPECT_LE(std::abs(d[0]), 0.001) << "refit training_kernel_efficiency: " << fitted[0];
  EXPECT_LE(std::abs(d[1]), 0.001) << "refit nccl_compute_share: " << fitted[1];
  EXPECT_LE(std::abs(d[2]), 0.001) << "refit triton_vs_flash_attention2: " << fitted[2];
}

}  // namespace
}  // namespace pf

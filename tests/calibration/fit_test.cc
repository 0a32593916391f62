// The fit machinery on problems with known answers (no simulation): a
// Gauss-Newton step solves a linear least-squares problem exactly, the
// Jacobian comes from the step points' residuals, and a row left out is
// predicted from the others.
#include <gtest/gtest.h>

#include "sim/calibration/fit.h"

namespace pf {
namespace {

TEST(CalibrationFit, GaussNewtonSolvesALinearProblem) {
  // r(theta) = A theta - b, minimum at theta* = (0.9, 0.1).
  Eigen::MatrixXd A(4, 2);
  A << 1, 0, 0, 1, 1, 1, 2, -1;
  const Eigen::Vector2d star(0.9, 0.1);
  const Eigen::VectorXd b = A * star;
  const Eigen::Vector2d theta0(0.8, 0.3);
  const Eigen::Vector2d d = GaussNewtonStep(A * theta0 - b, A);
  EXPECT_NEAR((theta0 + d - star).norm(), 0, 1e-12);
}

TEST(CalibrationFit, JacobianIsTheForwardDifferenceOfTheStepPoints) {
  Eigen::MatrixXd A(3, 2);
  A << 2, 0, 1, 3, -1, 1;
  const Calibration at;
  std::vector<Eigen::VectorXd> res;
  for (const Calibration& p : StepPoints(at)) res.push_back(A * ToVector(p));
  ASSERT_EQ(res.size(), 3u);
  EXPECT_NEAR((Jacobian(res) - A).norm(), 0, 1e-9);
  EXPECT_EQ(ToVector(StepPoints(at)[1])[0], at.training_kernel_efficiency + JacobianSteps()[0]);
  EXPECT_EQ(ToVector(StepPoints(at)[2])[1], at.nccl_compute_share + JacobianSteps()[1]);
}

TEST(CalibrationFit, RoundsToThreeDecimals) {
  Calibration c;
  c.training_kernel_efficiency = 0.88731;
  c.nccl_compute_share = 0.10516;
  EXPECT_DOUBLE_EQ(Rounded(c).training_kernel_efficiency, 0.887);
  EXPECT_DOUBLE_EQ(Rounded(c).nccl_compute_share, 0.105);
}

}  // namespace
}  // namespace pf

// The fit machinery on problems with known answers (no simulation): a
// Gauss-Newton step solves a linear least-squares problem exactly, the
// Jacobian comes from the step points' residuals, and a row left out is
// predicted from the others.
#include <gtest/gtest.h>

#include "sim/calibration/fit.h"

namespace pf {
namespace {

TEST(CalibrationFit, GaussNewtonSolvesALinearProblem) {
  // r(theta) = A theta - b, minimum at theta* = (0.9, 0.1, 0.6).
  Eigen::MatrixXd A(5, 3);
  A << 1, 0, 0, 0, 1, 0, 1, 1, 0, 2, -1, 1, 0, 0, 3;
  const FitVector star(0.9, 0.1, 0.6);
  const Eigen::VectorXd b = A * star;
  const FitVector theta0(0.8, 0.3, 0.4);
  const FitVector d = GaussNewtonStep(A * theta0 - b, A);
  EXPECT_NEAR((theta0 + d - star).norm(), 0, 1e-12);
}

TEST(CalibrationFit, JacobianIsTheForwardDifferenceOfTheStepPoints) {
  Eigen::MatrixXd A(3, 3);
  A << 2, 0, 1, 1, 3, 0, -1, 1, 2;
  const Calibration at;
  std::vector<Eigen::VectorXd> res;
  for (const Calibration& p : StepPoints(at)) res.push_back(A * ToVector(p));
  ASSERT_EQ(res.size(), 4u);
  EXPECT_NEAR((Jacobian(res) - A).norm(), 0, 1e-9);
  EXPECT_EQ(ToVector(StepPoints(at)[1])[0], at.training_kernel_efficiency + JacobianSteps()[0]);
  EXPECT_EQ(ToVector(StepPoints(at)[2])[1], at.nccl_compute_share + JacobianSteps()[1]);
  EXPECT_EQ(ToVector(StepPoints(at)[3])[2], at.triton_vs_flash_attention2 + JacobianSteps()[2]);
}

TEST(CalibrationFit, RoundsToThreeDecimals) {
  Calibration c;
  c.training_kernel_efficiency = 0.88731;
  c.nccl_compute_share = 0.10516;
  c.triton_vs_flash_attention2 = 0.61849;
  EXPECT_DOUBLE_EQ(Rounded(c).training_kernel_efficiency, 0.887);
  EXPECT_DOUBLE_EQ(Rounded(c).nccl_compute_share, 0.105);
  EXPECT_DOUBLE_EQ(Rounded(c).triton_vs_flash_attention2, 0.618);
}

}  // namespace
}  // namespace pf

// The fit behind spec/calibration.h: Gauss-Newton least squares (Eigen) on
// the log errors log(predicted / published) of the reference rows, over the
// three fitted constants, with a forward-difference Jacobian from whole
// simulations. Leave-one-out errors are linearised at the fit (one
// Gauss-Newton step without the row, using the fit's Jacobian), so they
// cost no further simulation.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "sim/calibration/reference_rows.h"
#include "sim/spec/calibration.h"

namespace pf {

// The fitted constants as a vector: (training_kernel_efficiency,
// nccl_compute_share, triton_vs_flash_attention2).
constexpr int kFittedConstants = 3;
using FitVector = Eigen::Matrix<double, kFittedConstants, 1>;
FitVector ToVector(const Calibration& c);
Calibration FromVector(const FitVector& v);

// Forward-difference steps of the Jacobian, per constant.
const FitVector& JacobianSteps();

// The points whose residuals make one Gauss-Newton step from `at`: `at`
// itself, then `at` moved by JacobianSteps() along each constant.
std::vector<Calibration> StepPoints(const Calibration& at);

// log(predicted / published) of each row at `cal`. `progress` (may be empty)
// is told each row's label as it starts.
Eigen::VectorXd Residuals(const std::vector<ReferenceRow>& rows, const Calibration& cal,
                          const std::function<void(const std::string&)>& progress = {});

// The Jacobian from the residuals at StepPoints(at), in that order.
Eigen::MatrixXd Jacobian(const std::vector<Eigen::VectorXd>& at_step_points);

// The Gauss-Newton step minimising |r + J d|^2.
FitVector GaussNewtonStep(const Eigen::VectorXd& r, const Eigen::MatrixXd& J);

struct FitResult {
  Calibration fitted;         // continuous optimum
  Calibration shipped;        // the optimum written to three decimals
  Eigen::VectorXd residuals;  // log errors at `fitted`
  Eigen::VectorXd predicted;  // the rows' figures at `fitted`
  Eigen::VectorXd loo_errors; // held-out log error of each row, linearised
  Eigen::MatrixXd loo_constants;  // rows x kFittedConstants: the constants refitted without it
  int iterations = 0;
};

// Iterates Gauss-Newton from `start` until the step is below 1e-4 in every
// constant (at most `max_iterations`).
FitResult Fit(const std::vector<ReferenceRow>& rows, const Calibration& start, int max_iterations,
              const std::function<void(const std::string&)>& progress = {});

// Written to three decimals, as spec/calibration.h holds the constants.
Calibration Rounded(const Calibration& c);

}  // namespace pf

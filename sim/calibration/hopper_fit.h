// The H100's sustained rate in a training step (GpuSpec::training_rate of
// H100-SXM5-80GB in topologies/gpus.yaml), fitted jointly over every
// published H100 run of tests/data/ that has a scenario, but for the known
// misses (KnownMechanismMiss): least squares on
// log(predicted / published), Gauss-Newton over the one constant, with a
// forward-difference derivative from whole simulations and linearised
// leave-one-out errors, as calibration/fit.h does for the Ampere
// reference rows. Memory rows are not in it (the rate moves no byte).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "sim/calibration/published_rows.h"

namespace pf {

// The fitted GPU, whose catalog entry carries the rate.
inline constexpr const char* kHopperFitGpu = "H100-SXM5-80GB";
// The derivative's forward-difference step.
inline constexpr double kHopperRateStep = 0.01;

// A row pinned to a band that excludes zero (tests/data/*_rows.csv): its
// miss is a mechanism Preflight lacks, named in its note, and no rate
// would mend it, so it is left out of the fit rather than let it pull the
// rate away from the rows whose mechanisms are modelled.
bool KnownMechanismMiss(const PublishedRow& row);

// The speed rows whose scenario runs on kHopperFitGpu, known misses left out.
std::vector<PublishedRow> HopperRows(const std::string& root);

// log(predicted / published) of each row with the GPU's training_rate set to
// `rate`. `progress` (may be empty) is told each row's scenario as it starts.
Eigen::VectorXd HopperResiduals(const std::vector<PublishedRow>& rows, double rate,
                                const std::function<void(const std::string&)>& progress = {});

// The Gauss-Newton step from the residuals at a rate and at rate + kHopperRateStep.
double HopperStep(const Eigen::VectorXd& at, const Eigen::VectorXd& stepped);

struct HopperFitResult {
  double fitted = 0;          // continuous optimum
  double shipped = 0;         // the optimum written to three decimals
  Eigen::VectorXd residuals;  // log errors at `fitted`
  Eigen::VectorXd predicted;  // the rows' figures at `fitted`
  Eigen::VectorXd loo_errors; // held-out log error of each row, linearised
  Eigen::VectorXd loo_rates;  // the rate refitted without each row
  int iterations = 0;
};

// Iterates from `start` until the step is below 1e-4 (at most `max_iterations`).
HopperFitResult FitHopperRate(const std::vector<PublishedRow>& rows, double start, int max_iterations,
                              const std::function<void(const std::string&)>& progress = {});

}  // namespace pf

// The H100's training_rate in topologies/gpus.yaml is the fit's result: one
// Gauss-Newton step from it, over every published H100 speed row of
// tests/data/ (calibration/hopper_fit.h), moves it by at most the last
// decimal it is written with (0.001). The step needs the rows' log errors
// at the shipped rate and one step above; each is its own ctest case
// (hopper_residuals_*, ctest fixtures run in parallel) writing to
// $PREFLIGHT_CALIBRATION_DIR, and hopper_fit combines them. Not run under
// the sanitizers: the rows' simulations are the normal suite's job.
#include <cmath>
#include <iostream>

#include <gtest/gtest.h>

#include "sim/calibration/hopper_fit.h"
#include "sim/scenario/catalog.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/calibration/point_files.h"

namespace pf {
namespace {

std::string PointFile(int k) { return testing_points::PointFile("hopper_point", k); }

double ShippedRate() { return GpuCatalog().at(kHopperFitGpu).training_rate.value_or(1); }

void EvaluatePoint(int k) {
#ifdef PREFLIGHT_SANITIZED
  GTEST_SKIP() << "the H100 rows' simulations are the normal suite's job";
#endif
  testing_points::WritePoint(PointFile(k),
                             HopperResiduals(HopperRows(PREFLIGHT_SOURCE_DIR), ShippedRate() + k * kHopperRateStep));
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
    res.push_back(testing_points::ReadPoint(PointFile(k)));
    ASSERT_EQ(size_t(res.back().size()), rows) << PointFile(k);
  }
  const double d = HopperStep(res[0], res[1]);
  std::cout << "fit from the shipped rate " << ShippedRate() << ": " << ShippedRate() + d << "\n";
  EXPECT_LE(std::abs(d), 0.001) << "refit " << kHopperFitGpu << " training_rate: " << ShippedRate() + d;
}

// A known miss (a band that excludes zero: a mechanism Preflight lacks)
// stays out of the fit; every other H100 speed row is in it.
TEST(HopperFit, KnownMissesAreLeftOut) {
  const std::vector<PublishedRow> fitted = HopperRows(PREFLIGHT_SOURCE_DIR);
  auto in_fit = [&](const std::string& name) {
    for (const PublishedRow& r : fitted)
      if (r.scenario == name) return true;
    return false;
  };
  int misses = 0;
  for (const PublishedRow& row : LoadPublishedRows(PREFLIGHT_SOURCE_DIR)) {
    if (IsMemoryMetric(row.metric) || LoadScenario(row.path).cluster.node.gpu.name != kHopperFitGpu) continue;
    EXPECT_EQ(in_fit(row.scenario), !KnownMechanismMiss(row)) << row.scenario;
    misses += KnownMechanismMiss(row);
  }
  EXPECT_GE(misses, 1);  // GPT-OSS 120B (recipes.csv line 51)
  EXPECT_FALSE(in_fit("mb2604_gpt_oss_120b_64xH100"));
}

}  // namespace
}  // namespace pf

// The NCCL constants collectives/nccl.h ships are the fit's result (as
// written), and the fitted model reproduces the published curves.
#include <cmath>

#include <gtest/gtest.h>

#include "sim/calibration/nccl_fit.h"

namespace pf {
namespace {

TEST(NcclFit, ShippedConstantsAreTheFit) {
  const NcclFitResult f = FitNccl(LoadNcclCurves(PREFLIGHT_SOURCE_DIR));
  const NcclConstants shipped;
  EXPECT_DOUBLE_EQ(f.shipped.step_latency_ll_s, shipped.step_latency_ll_s);
  EXPECT_DOUBLE_EQ(f.shipped.step_latency_ll128_s, shipped.step_latency_ll128_s);
  EXPECT_DOUBLE_EQ(f.shipped.step_latency_simple_s, shipped.step_latency_simple_s);
  EXPECT_DOUBLE_EQ(f.shipped.ll128_bandwidth, shipped.ll128_bandwidth);
  EXPECT_DOUBLE_EQ(f.shipped.nvls_latency_s, shipped.nvls_latency_s);
  EXPECT_DOUBLE_EQ(f.shipped.nvls_efficiency, shipped.nvls_efficiency);
  // Physical signs: latencies positive, LL < LL128 < Simple per step,
  // efficiencies fractions.
  EXPECT_GT(shipped.step_latency_ll_s, 0);
  EXPECT_LT(shipped.step_latency_ll_s, shipped.step_latency_ll128_s);
  EXPECT_LT(shipped.step_latency_ll128_s, shipped.step_latency_simple_s);
  EXPECT_GT(shipped.ll128_bandwidth, shipped.ll_bandwidth);
  EXPECT_LT(shipped.ll128_bandwidth, 1);
  EXPECT_LT(shipped.nvls_efficiency, 1);
}

TEST(NcclFit, ModelIsWithinTenPercentFrom32MBAndTwentyFiveBelow) {
  const auto points = LoadNcclCurves(PREFLIGHT_SOURCE_DIR);
  ASSERT_EQ(points.size(), 14u);
  for (const auto& p : points) {
    const double err = ModelBusBandwidth(p, NcclConstants()) / p.busbw_gbps - 1;
    EXPECT_LT(std::abs(err), p.size_bytes >= 32e6 ? 0.10 : 0.25) << p.system << " " << p.size_bytes;
  }
}

}  // namespace
}  // namespace pf

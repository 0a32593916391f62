// The GEMM shape constants (model/gemm_shape.h) are the fit over the
// published sweeps (tests/data/gemm_shapes.csv), and the fitted model
// follows them: large shapes within 11% (the worst is a community H100 run
// of 10240^3 at 720 TFLOP/s, below its own 8192^3 at 798: likely power
// throttled), the whole set within 10% rms.
#include "sim/calibration/gemm_fit.h"

#include <cmath>

#include <gtest/gtest.h>

#include "sim/model/gemm_shape.h"

namespace pf {
namespace {

const std::vector<GemmPoint>& Points() {
  static const auto points = LoadGemmPoints(PREFLIGHT_SOURCE_DIR);
  return points;
}

TEST(GemmFit, ShippedConstantsAreTheFit) {
  const GemmFitResult f = FitGemmShape(Points());
  const GemmShapeConstants shipped;
  EXPECT_DOUBLE_EQ(f.shipped.headroom, shipped.headroom);
  EXPECT_DOUBLE_EQ(f.shipped.tiles_half, shipped.tiles_half);
  EXPECT_DOUBLE_EQ(f.shipped.k_half, shipped.k_half);
  EXPECT_GE(f.fitted.headroom, 1);  // the curve may not stay below the measured best everywhere
  EXPECT_LT(f.rms, 0.10);
}

TEST(GemmFit, LargeShapesAreWithinElevenPercent) {
  int large = 0;
  for (const GemmPoint& p : Points()) {
    if (p.m * p.n * p.k < 68719476736.0) continue;  // 4096^3
    ++large;
    EXPECT_NEAR(ModelGemmTflops(p, GemmShapeConstants()) / p.tflops, 1, 0.11)
        << p.gpu << " " << p.m << "x" << p.n << "x" << p.k;
  }
  EXPECT_GE(large, 25);
}

TEST(GemmFit, SmallTilesAndShortReductionsSlowAGemmDown) {
  const GemmShapeConstants c;
  // 132 SMs (H100): a 256 x 256 output fills half an SM's tile.
  EXPECT_LT(GemmShapeFactor(132, 256, 256, 4096), 0.2);
  EXPECT_LT(GemmShapeFactor(132, 8192, 8192, 256), GemmShapeFactor(132, 8192, 8192, 4096));
  EXPECT_DOUBLE_EQ(GemmShapeFactor(132, 16384, 16384, 16384), 1);
  EXPECT_DOUBLE_EQ(GemmShapeFactor(132, 0, 0, 0), 1);  // unknown shape
  EXPECT_GT(c.headroom, 1);
}

}  // namespace
}  // namespace pf

// Whole-scenario tests against published measurements: every row of
// tests/data/megatron_sc21_table1.csv and llm_foundry_a100_80gb.csv
// (LoadReferenceRows, sim/calibration/reference_rows.h) is simulated from its
// scenario with the shipped constants and must land within 15% of the
// published figure. One test case per row; `build/calibrate` prints the
// whole table with leave-one-out errors (README "Accuracy").
#include <cmath>

#include <gtest/gtest.h>

#include "sim/calibration/reference_rows.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/sanitizer_budget.h"
#include "tests/test_util.h"

namespace pf {
namespace {

constexpr double kTolerance = 0.15;

class Reference : public ::testing::TestWithParam<ReferenceRow> {};

TEST_P(Reference, PredictionIsWithin15PercentOfThePublishedRun) {
  const ReferenceRow& row = GetParam();
  if (testing_util::OverSanitizerBudget(LoadScenario(row.scenario)))
    GTEST_SKIP() << row.scenario << ": over the sanitizer suite's task budget; the normal suite holds it";
  const double predicted = PredictRow(row, Calibration{});
  std::cout << row.label << ": " << row.metric << " published " << row.published << ", predicted "
            << predicted << " (" << 100 * (predicted / row.published - 1) << "%)\n";
  EXPECT_NEAR(predicted / row.published, 1.0, kTolerance) << row.scenario;
}

INSTANTIATE_TEST_SUITE_P(Rows, Reference,
                         ::testing::ValuesIn(LoadReferenceRows(testing_util::kRoot)),
                         [](const auto& info) { return testing_util::TestName(info.param.label); });

TEST(Reference, EveryPublishedRowIsHeld) {
  // Five Megatron SC21 rows, five llm-foundry rows at 2,048 tokens and
  // eleven at 512 to 32,768.
  EXPECT_EQ(LoadReferenceRows(testing_util::kRoot).size(), 21u);
}

}  // namespace
}  // namespace pf

// The known gaps (model/known_gaps.h) against the published runs of
// tests/data/: a row whose scenario falls in a gap is a known miss whose
// error lies in the gap's quoted range, the range is exactly the span of
// those rows' errors, and every other mixture-of-experts row on the same
// stacks is held. So the regime's boundary and its figures are the
// evidence's, and a change that mends the mechanism (or moves a row)
// fails here until the gap is rewritten or removed.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/calibration/hopper_fit.h"
#include "sim/calibration/published_rows.h"
#include "sim/job/simulate.h"
#include "sim/model/known_gaps.h"
#include "sim/report/format.h"
#include "sim/report/report.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/test_util.h"

namespace pf {
namespace {

TEST(KnownGaps, EachGapIsTheSpanOfTheKnownMissesInItAndOnlyThose) {
  double low = 1e9, high = -1e9;
  int in_gap = 0, moe_held = 0;
  KnownGap gap;
  for (const PublishedRow& row : LoadPublishedRows(testing_util::kRoot)) {
    const Scenario s = LoadScenario(row.path);
    const std::vector<KnownGap> gaps = KnownGapsOf(s);
    const bool megatron = s.training.stack == Stack::kMegatron || s.training.stack == Stack::kNemo;
    if (gaps.empty()) {
      if (s.model.moe.enabled() && megatron) {
        EXPECT_FALSE(KnownMechanismMiss(row)) << row.scenario << ": a known miss outside every gap";
        ++moe_held;
      }
      continue;
    }
    ASSERT_EQ(gaps.size(), 1u) << row.scenario;
    gap = gaps.front();
    EXPECT_TRUE(KnownMechanismMiss(row)) << row.scenario << ": held, inside the gap";
    ASSERT_EQ(row.metric, "tokens_per_s_per_gpu") << row.scenario;  // the quoted range is in throughput
    const double error = RowFigure(row.metric, s, Simulate(s, /*force=*/true)) / row.published - 1;
    low = std::min(low, error), high = std::max(high, error);
    ++in_gap;
  }
  EXPECT_EQ(in_gap, 4);    // GPT-OSS 120B and Qwen3-30B-A3B three times
  EXPECT_GE(moe_held, 7);  // Mixtral, Qwen3-235B twice, Grok-1 twice, Qwen3-30B-A3B in-node twice and with EP overlap
  EXPECT_NEAR(gap.error_low, low, 0.001);
  EXPECT_NEAR(gap.error_high, high, 0.001);
}

TEST(KnownGaps, TheReportSaysSoOnlyInTheRegime) {
  const Scenario oss = LoadScenario(testing_util::kRoot + "/tests/data/recipes/mb2604_gpt_oss_120b_64xH100.yaml");
  ASSERT_EQ(KnownGapsOf(oss).size(), 1u);
  EXPECT_NE(DescribeGap(KnownGapsOf(oss).front()).find("16 experts on each GPU under Megatron-Core, pipelined over 4"),
            std::string::npos);
  const std::string qwen = testing_util::kRoot + "/tests/data/recipes/mb2604_qwen3_30b_a3b_16xH100.yaml";
  ASSERT_EQ(KnownGapsOf(LoadScenario(qwen)).size(), 1u);
  EXPECT_NE(DescribeGap(KnownGapsOf(LoadScenario(qwen)).front()).find("8 experts on each GPU under Megatron-Core, "
                                                                     "each EP group over 2 nodes, its all-to-alls "
                                                                     "not overlapped"),
            std::string::npos);
  // The same over two nodes with its all-to-alls overlapped: none (the
  // published run is held).
  EXPECT_TRUE(KnownGapsOf(LoadScenario(qwen, {"parallel.ep_overlap=true"})).empty());
  // The same fine-grained model in-node without a pipeline: none (the
  // published runs are held).
  EXPECT_TRUE(
      KnownGapsOf(LoadScenario(testing_util::kRoot + "/tests/data/recipes/mlm_qwen3_30b_a3b_fp8_32xH100.yaml")).empty());
  EXPECT_TRUE(KnownGapsOf(LoadScenario(qwen, {"parallel.ep=8"})).empty());
  // Fewer experts a GPU (EP16 over two nodes' worth), another stack, a dense model: none.
  EXPECT_TRUE(KnownGapsOf(LoadScenario(testing_util::kRoot + "/scenarios/mixtral_8x7b_64xH100.yaml")).empty());
  EXPECT_TRUE(KnownGapsOf(LoadScenario(testing_util::kRoot + "/tests/data/recipes/mb2604_gpt_oss_120b_64xH100.yaml",
                                       {"parallel.ep=32", "parallel.pp=2"}))
                  .empty());
  EXPECT_TRUE(KnownGapsOf(LoadScenario(testing_util::kRoot + "/tests/data/recipes/mb2604_gpt_oss_120b_64xH100.yaml",
                                       {"training.stack=fsdp", "parallel.pp=1", "parallel.ep=1", "parallel.zero=3",
                                        "parallel.distributed_optimizer=false", "parallel.param_gather_overlap=false"}))
                  .empty());
  EXPECT_TRUE(KnownGapsOf(LoadScenario(testing_util::kRoot + "/scenarios/70b_8xA800.yaml")).empty());
}

// The text report turns the runs' range into this job's: its step and
// wall clock times 1 + each end.
TEST(KnownGaps, TheReportGivesTheJobsFiguresAtTheRunsRange) {
  Scenario s = LoadScenario(testing_util::kRoot + "/tests/data/recipes/mb2604_gpt_oss_120b_64xH100.yaml");
  s.intervals = false;
  const Result r = Simulate(s);
  ASSERT_TRUE(r.step);
  const KnownGap g = KnownGapsOf(s).at(0);
  const std::string text = RenderText(r, nullptr);
  const std::string want =
      "; at their range this step would take " + Duration(r.step->step_time * (1 + g.error_low)) + " to " +
      Duration(r.step->step_time * (1 + g.error_high)) + ", the job about " +
      Duration(r.step->wall_clock * (1 + g.error_low)) + " to " + Duration(r.step->wall_clock * (1 + g.error_high));
  EXPECT_NE(text.find("Known gap: " + DescribeGap(g) + want), std::string::npos) << text;
  // A dense job's report has none.
  Scenario dense = LoadScenario(testing_util::kRoot + "/scenarios/70b_8xA800.yaml");
  dense.intervals = false;
  EXPECT_EQ(RenderText(Simulate(dense), nullptr).find("Known gap"), std::string::npos);
}

}  // namespace
}  // namespace pf

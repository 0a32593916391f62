// Workload files that round-trip: every bundled scenario's workload passes
// the checks, a replay reproduces the report byte for byte and follows the
// memory verdict, saving is atomic, and a load names what it could not
// open.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "sim/job/simulate.h"
#include "sim/report/report.h"
#include "sim/workload/workload_file.h"
#include "tests/sanitizer_budget.h"
#include "tests/workload/workload_fixture.h"

namespace pf {
namespace {

namespace fs = std::filesystem;
using testing_util::Base;
using testing_util::BaseWorkload;
using testing_util::kRoot;
using testing_util::ValidationMessage;

// Every bundled scenario's own workload passes, so an emitted workload can
// always be replayed.
using testing_util::BundledScenarios;

class BundledWorkload : public ::testing::TestWithParam<std::string> {};

TEST_P(BundledWorkload, PassesTheChecks) {
  const Scenario s = LoadScenario(kRoot + "/scenarios/" + GetParam() + ".yaml");
  if (testing_util::OverSanitizerBudget(s))
    GTEST_SKIP() << GetParam() << ": over the sanitizer suite's task budget; the normal suite checks it";
  EXPECT_EQ(ValidationMessage(BuildWorkload(s), s), "");
}

INSTANTIATE_TEST_SUITE_P(Scenarios, BundledWorkload, ::testing::ValuesIn(BundledScenarios()),
                         [](const auto& info) { return testing_util::TestName(info.param); });

TEST(WorkloadReplay, ReproducesTheReportByteForByte) {
  const std::string built = RenderJson(Simulate(Base()));
  EXPECT_EQ(RenderJson(Simulate(Base())), built);  // deterministic
  const std::string path = testing_util::UniqueTempPath("replay", ".pb");
  SaveWorkload(BuildWorkload(Base()), path);
  EXPECT_EQ(RenderJson(SimulateWorkload(Base(), LoadWorkload(path, Base()))), built);
  fs::remove(path);
}

TEST(WorkloadReplay, FollowsTheMemoryVerdictLikeABuiltRun) {
  const Scenario full = LoadScenario(kRoot + "/scenarios/70b_8xA800_full.yaml");
  const Result r = SimulateWorkload(full, BuildWorkload(full));
  EXPECT_FALSE(r.memory.fits);
  EXPECT_FALSE(r.step.has_value());
  EXPECT_EQ(RenderJson(r), RenderJson(Simulate(full)));
}

TEST(WorkloadSave, ReplacesAFileWholeAndLeavesNoTemporaryFile) {
  const fs::path dir = testing_util::UniqueTempPath("save_dir", "");
  fs::create_directories(dir);
  const std::string path = (dir / "w.pb").string();
  std::ofstream(path) << std::string(1 << 20, 'x');  // an old, longer file
  SaveWorkload(BaseWorkload(), path);
  std::string bytes;
  BaseWorkload().SerializeToString(&bytes);
  EXPECT_EQ(testing_util::ReadFile(path), bytes);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  fs::remove_all(dir);
}

TEST(WorkloadSave, AFailedSaveNamesThePathAndChangesNothing) {
  const fs::path dir = testing_util::UniqueTempPath("save_fail", "");
  fs::create_directories(dir / "taken");
  try {
    SaveWorkload(BaseWorkload(), (dir / "taken").string());
    ADD_FAILURE() << "saved over a directory";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind((dir / "taken").string() + ": cannot write: ", 0), 0u) << e.what();
  }
  EXPECT_TRUE(fs::is_directory(dir / "taken"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  try {
    SaveWorkload(BaseWorkload(), (dir / "missing" / "w.pb").string());
    ADD_FAILURE() << "saved into a missing directory";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "missing" / "w.pb").string() + ": cannot write: No such file or directory");
  }
  fs::remove_all(dir);
}

TEST(WorkloadLoad, AMissingFileOrADirectoryIsNamed) {
  try {
    LoadWorkload("/nonexistent/w.pb", Base());
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent/w.pb: cannot open: No such file or directory");
  }
  try {
    LoadWorkload(kRoot, Base());
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), kRoot + ": is a directory, not a workload file");
  }
}

}  // namespace
}  // namespace pf

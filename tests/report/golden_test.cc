// Golden reports: the text and JSON report of every bundled scenario, byte
// for byte, as `simulate scenarios/NAME.yaml` prints them from the source
// tree (with the intervals and the alternative layout; a scenario above
// 8,192 GPUs without them, as --no-intervals --no-alternative prints it:
// its five simulations and the screen would take minutes under the
// sanitizers). Any change to a printed figure shows up here and must be deliberate:
// regenerate with PREFLIGHT_UPDATE_GOLDEN=1 and review the diff.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include "sim/report/report.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/job/simulate.h"
#include "sim/plan/alternative.h"
#include "sim/workload/size_estimate.h"
#include "tests/sanitizer_budget.h"
#include "tests/test_util.h"

namespace pf {
namespace {

namespace fs = std::filesystem;
using testing_util::kRoot;
using testing_util::ReadFile;

using testing_util::BundledScenarios;

void Compare(const std::string& golden, const std::string& actual) {
  if (const char* u = std::getenv("PREFLIGHT_UPDATE_GOLDEN"); u && std::string(u) == "1") {
    std::ofstream(golden, std::ios::binary) << actual;
    return;
  }
  ASSERT_TRUE(fs::exists(golden)) << golden << " is missing (PREFLIGHT_UPDATE_GOLDEN=1 writes it)";
  EXPECT_EQ(ReadFile(golden), actual) << "report differs from " << golden;
}

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, TextAndJsonReportsAreUnchanged) {
  // Paths in the report are as the user typed them: run from the tree.
  ASSERT_EQ(chdir(kRoot.c_str()), 0);
  const std::string name = GetParam();
  Scenario s = LoadScenario("scenarios/" + name + ".yaml");
  if (testing_util::OverSanitizerBudget(s))
    GTEST_SKIP() << name << ": over the sanitizer suite's task budget; the normal suite compares it";
  const bool large = s.cluster.gpus() > 8192;
  s.intervals = !large;  // as `simulate` runs it
  const Result r = Simulate(s);
  const std::optional<Alternative> alt =
      r.step && !large ? FindAlternative(s, r.step->step_time) : std::nullopt;
  Compare(kRoot + "/tests/golden/" + name + ".txt", RenderText(r, alt ? &*alt : nullptr));
  Compare(kRoot + "/tests/golden/" + name + ".json", RenderJson(r, alt ? &*alt : nullptr));
}

INSTANTIATE_TEST_SUITE_P(Scenarios, Golden, ::testing::ValuesIn(BundledScenarios()),
                         [](const auto& info) { return testing_util::TestName(info.param); });

}  // namespace
}  // namespace pf

// The size estimate bounds the real task graph from above without being
// far off, and BuildWorkload refuses a step past the budget with a message
// saying what to reduce, before building anything.
#include <filesystem>

#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/model/memory_model.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/workload/size_estimate.h"
#include "sim/workload/workload_builder.h"
#include "tests/sanitizer_budget.h"
#include "tests/test_util.h"

namespace pf {
namespace {

namespace fs = std::filesystem;

TEST(SizeEstimate, BoundsEveryBundledScenariosGraph) {
  int checked = 0;
  std::vector<fs::path> files;
  for (const char* dir : {"/scenarios", "/tests/data/recipes", "/tests/data/stacks"})
    for (const auto& e : fs::directory_iterator(testing_util::kRoot + dir)) files.push_back(e.path());
  for (const fs::path& file : files) {
    const auto& e = fs::directory_entry(file);
    for (const std::vector<std::string>& flags :
         {std::vector<std::string>{}, {"parallel.zero=2", "parallel.pp=1", "parallel.vp=1"}}) {
      Scenario s;
      try {
        s = LoadScenario(e.path().string(), flags);
      } catch (const InputError&) {
        continue;
      }
      if (s.cluster.gpus() > 1024 || testing_util::OverSanitizerBudget(s)) continue;  // keep the test fast
      const double actual = BuildWorkload(s).tasks_size();
      const double estimate = EstimateSimulationSize(s).tasks;
      EXPECT_GE(estimate, actual) << e.path();
      EXPECT_LE(estimate, 2.5 * actual + 16) << e.path();
      ++checked;
    }
  }
  EXPECT_GT(checked, 12);
}

// EP overlap cuts each pass into a piece per MoE layer; with ZeRO-2 the
// backward is cut into gradient buckets too, and the pieces divide the
// buckets' exchanges rather than multiply them (the estimate was 14x the
// graph here before).
TEST(SizeEstimate, BoundsEpOverlapPiecesUnderBuckets) {
  for (const std::vector<std::string>& flags :
       {std::vector<std::string>{"training.global_batch=64"},
        {"training.global_batch=64", "parallel.zero=2", "parallel.distributed_optimizer=false"},
        {"training.global_batch=64", "cluster.nodes=4", "parallel.pp=2", "parallel.vp=2"}}) {
    const Scenario s = LoadScenario(
        testing_util::kRoot + "/tests/data/recipes/mb2607_qwen3_30b_a3b_bf16_ep16_overlap_16xH100.yaml", flags);
    const double actual = BuildWorkload(s).tasks_size();
    const double estimate = EstimateSimulationSize(s).tasks;
    EXPECT_GE(estimate, actual) << flags.back();
    EXPECT_LE(estimate, 2.5 * actual + 16) << flags.back();
  }
}

TEST(SizeEstimate, StepPastTheBudgetIsRefusedWithWhatToReduce) {
  Scenario s = LoadScenario(testing_util::kRoot + "/scenarios/70b_8xA800_tp8.yaml",
                            {"training.global_batch=16777216"});
  const SimulationSize size = EstimateSimulationSize(s);
  EXPECT_GT(size.tasks, s.max_tasks);
  try {
    BuildWorkload(s);
    ADD_FAILURE() << "built a graph of about " << size.tasks << " tasks";
  } catch (const InputError& err) {
    const std::string m = err.what();
    EXPECT_NE(m.find("over the budget of 3e+06 tasks (--max-tasks)"), std::string::npos) << m;
    EXPECT_NE(m.find("16777216 micro-batches per step"), std::string::npos) << m;
    EXPECT_NE(m.find("raise training.micro_batch"), std::string::npos) << m;
  }
  s.max_tasks = 1e9;  // a raised budget lets the estimate through
  EXPECT_LT(EstimateSimulationSize(s).tasks, s.max_tasks);
}

}  // namespace
}  // namespace pf

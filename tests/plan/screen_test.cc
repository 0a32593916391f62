// The closed-form screen (plan/screen.h) against the simulation of the
// same step, on ZeRO-3 data parallelism on one node, where the screen's
// terms are the simulation's (no pipeline, no cross-node contention):
// DeepSpeed's gathers in series with the compute and FSDP's hidden behind
// it, both with NCCL's resident share of the GPU. Before the screen took
// that share it was 8.5-17% optimistic here. And a mixture of experts
// across nodes, within 10%.
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/job/simulate.h"
#include "sim/plan/screen.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/test_util.h"

namespace pf {
namespace {

double ScreenOverSimulated(const std::vector<std::string>& sets) {
  const Scenario s = LoadScenario(testing_util::kRoot + "/scenarios/70b_8xA800.yaml", sets);
  const Result r = Simulate(s);
  EXPECT_TRUE(r.step);
  if (!r.step) return 0;
  return ScreenStep(s).step / r.step->step_time;
}

TEST(Screen, ZeroThreeStepsAsSimulated) {
  for (const std::vector<std::string>& sets :
       {std::vector<std::string>{}, {"training.micro_batch=4"}, {"training.stack=fsdp"},
        {"training.stack=fsdp", "training.micro_batch=4"}}) {
    const double ratio = ScreenOverSimulated(sets);
    std::cout << (sets.empty() ? "the flagship" : sets.back()) << ": screen / simulated " << ratio << "\n";
    EXPECT_NEAR(ratio, 1.0, 0.05) << (sets.empty() ? "the flagship" : sets.back());
  }
}

// A mixture of experts (GPT-OSS 120B on 16 H100 nodes, EP8 in each node):
// the token all-to-alls in every slot, the routed experts' gradients over
// their expert-data-parallel group, and under ZeRO-2 every micro-batch's
// reduction. Before the screen had the three it gave 0.49 and 0.86 of the
// simulated step here (0.93 and 0.99 now), and a plan of this job
// simulated candidates its screen put 40-56% too fast.
TEST(Screen, MixtureOfExpertsStepsAsSimulated) {
  const std::string oss = testing_util::kRoot + "/tests/data/recipes/mb2604_gpt_oss_120b_64xH100.yaml";
  for (const std::vector<std::string>& sets :
       {std::vector<std::string>{"cluster.nodes=16", "parallel.zero=2", "parallel.pp=1", "parallel.dp=128",
                                 "parallel.distributed_optimizer=false"},
        {"cluster.nodes=16", "parallel.zero=1", "parallel.pp=2", "parallel.dp=64"}}) {
    const Scenario s = LoadScenario(oss, sets);
    const Result r = Simulate(s);
    ASSERT_TRUE(r.step) << sets[1];
    const double ratio = ScreenStep(s).step / r.step->step_time;
    std::cout << sets[1] << ": screen / simulated " << ratio << "\n";
    EXPECT_NEAR(ratio, 1.0, 0.1) << sets[1];
  }
}

// EP overlap (Qwen3-30B-A3B on 16 H100, EP16 over two nodes, both ways):
// the screen hides the all-to-alls behind the paired pass's compute as the
// simulation does, within 10% of the simulated step either way.
TEST(Screen, EpOverlapStepsAsSimulated) {
  const std::string qwen = testing_util::kRoot + "/tests/data/recipes/mb2607_qwen3_30b_a3b_bf16_ep16_16xH100.yaml";
  double off = 0, on = 0;
  for (const bool overlap : {false, true}) {
    Scenario s = LoadScenario(qwen, {overlap ? "parallel.ep_overlap=true" : "parallel.ep_overlap=false"});
    s.intervals = false;
    const Result r = Simulate(s);
    ASSERT_TRUE(r.step);
    const double ratio = ScreenStep(s).step / r.step->step_time;
    std::cout << (overlap ? "overlap" : "no overlap") << ": screen / simulated " << ratio << "\n";
    EXPECT_NEAR(ratio, 1.0, 0.1);
    (overlap ? on : off) = ScreenStep(s).step.value();
  }
  EXPECT_LT(on, 0.9 * off);
}

}  // namespace
}  // namespace pf

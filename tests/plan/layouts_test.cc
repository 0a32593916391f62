// The layouts a plan and a report's alternative screen (plan/layouts.h):
// on a Megatron-Core recipe (SP, TP overlap, distributed optimizer,
// parameter-gather overlap, CP 2), every candidate Validate accepts is the
// scenario its --set flags load to, including the switches its layout does
// not take; and the CP split is kept rather than every candidate refused.
// A mixture of experts' layouts try its expert parallelism too.
#include <set>
#include <tuple>

#include <gtest/gtest.h>

#include "sim/plan/layouts.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/spec/validate.h"
#include "tests/test_util.h"

namespace pf {
namespace {

const std::string kPath = testing_util::kRoot + "/tests/data/recipes/dgxc_llama3_70b_bf16_64xH100.yaml";

TEST(Layouts, EveryValidCandidateIsWhatItsFlagsLoad) {
  const Scenario base = LoadScenario(kPath);
  ASSERT_EQ(base.parallel.cp, 2);
  ASSERT_TRUE(base.parallel.distributed_optimizer && base.parallel.sp && base.parallel.tp_overlap &&
              base.parallel.param_gather_overlap);
  std::vector<Scenario> layouts;
  Layouts(base, base.cluster.nodes, base.training.micro_batch, layouts);
  std::set<std::tuple<int, int, int>> seen;  // tp, pp, zero: the flags that vary the switches
  int valid = 0, zero_other_than_1 = 0, tp1 = 0;
  for (const Scenario& c : layouts) {
    if (Validate(c)) continue;
    ++valid;
    const ParallelSpec& p = c.parallel;
    EXPECT_EQ(p.cp, 2);
    if (!seen.insert({p.tp, p.pp, p.zero}).second) continue;
    zero_other_than_1 += p.zero != 1;
    tp1 += p.tp == 1;
    const std::vector<std::string> flags =
        LayoutOverrides(base.parallel, p, c.training.micro_batch, c.training.recompute);
    const Scenario loaded = LoadScenario(kPath, flags);
    const ParallelSpec& q = loaded.parallel;
    const std::string at = LayoutName(p, c.training.micro_batch, c.training.recompute);
    EXPECT_EQ(std::tie(q.tp, q.pp, q.dp, q.cp, q.zero), std::tie(p.tp, p.pp, p.dp, p.cp, p.zero)) << at;
    EXPECT_EQ(q.distributed_optimizer, p.distributed_optimizer) << at;
    EXPECT_EQ(q.param_gather_overlap, p.param_gather_overlap) << at;
    EXPECT_EQ(q.sp, p.sp) << at;
    EXPECT_EQ(q.tp_overlap, p.tp_overlap) << at;
  }
  // The switches are really dropped somewhere, and kept where they apply.
  EXPECT_GT(valid, 100);
  EXPECT_GT(zero_other_than_1, 0);
  EXPECT_GT(tp1, 0);
}

// A mixture of experts (GPT-OSS 120B, 128 experts, EP8 in the scenario):
// the layouts try each power-of-two EP that divides the experts, the name
// says it, and the flags load it.
TEST(Layouts, AMixtureOfExpertsTriesEachExpertParallelism) {
  const std::string oss = testing_util::kRoot + "/tests/data/recipes/mb2604_gpt_oss_120b_64xH100.yaml";
  const Scenario base = LoadScenario(oss);
  ASSERT_EQ(base.parallel.ep, 8);
  std::vector<Scenario> layouts;
  Layouts(base, base.cluster.nodes, base.training.micro_batch, layouts);
  std::set<int> eps;
  for (const Scenario& c : layouts) {
    if (Validate(c)) continue;
    const ParallelSpec& p = c.parallel;
    if (!eps.insert(p.ep).second) continue;
    const std::string at = LayoutName(p, c.training.micro_batch, c.training.recompute);
    EXPECT_EQ(at.find(" EP"), p.ep > 1 ? at.find(" ZeRO") - (" EP" + std::to_string(p.ep)).size() : std::string::npos)
        << at;
    const Scenario loaded =
        LoadScenario(oss, LayoutOverrides(base.parallel, p, c.training.micro_batch, c.training.recompute));
    EXPECT_EQ(loaded.parallel.ep, p.ep) << at;
    EXPECT_EQ(loaded.parallel.dp, p.dp) << at;
  }
  // 64 GPUs: EP 1 to 64 validate (128 experts), not only the scenario's 8.
  EXPECT_EQ(eps, (std::set<int>{1, 2, 4, 8, 16, 32, 64}));
}

TEST(Layouts, SwitchesAreDroppedOnlyWhereTheLayoutDoesNotTakeThem) {
  ParallelSpec p;
  p.tp = 4, p.zero = 1, p.sp = p.tp_overlap = p.distributed_optimizer = p.param_gather_overlap = true;
  ParallelSpec kept = p;
  EXPECT_TRUE(DropSwitchesOfOtherLayouts(kept).empty());
  EXPECT_TRUE(kept.sp && kept.tp_overlap && kept.distributed_optimizer && kept.param_gather_overlap);
  ParallelSpec z2 = p;
  z2.zero = 2;
  EXPECT_EQ(DropSwitchesOfOtherLayouts(z2), std::vector<std::string>{"parallel.distributed_optimizer=false"});
  EXPECT_TRUE(z2.param_gather_overlap);
  ParallelSpec z3tp1 = p;
  z3tp1.zero = 3, z3tp1.tp = 1;
  EXPECT_EQ(DropSwitchesOfOtherLayouts(z3tp1),
            (std::vector<std::string>{"parallel.distributed_optimizer=false", "parallel.param_gather_overlap=false",
                                      "parallel.tp_overlap=false", "parallel.sp=false"}));
  EXPECT_FALSE(z3tp1.sp || z3tp1.tp_overlap || z3tp1.distributed_optimizer || z3tp1.param_gather_overlap);
  // EP overlap: expert parallelism, the interleaved schedule under a
  // pipeline, no full recompute (Megatron-Core's rules).
  ParallelSpec ep;
  ep.ep = 8, ep.ep_overlap = true;
  ParallelSpec e = ep;
  EXPECT_TRUE(DropSwitchesOfOtherLayouts(e, Recompute::kSelective).empty());
  e.pp = 2, e.vp = 2;
  EXPECT_TRUE(DropSwitchesOfOtherLayouts(e).empty());
  ParallelSpec no_ep = ep, plain_pipeline = ep, full = ep;
  no_ep.ep = 1, plain_pipeline.pp = 2;
  const std::vector<std::string> off = {"parallel.ep_overlap=false"};
  EXPECT_EQ(DropSwitchesOfOtherLayouts(no_ep), off);
  EXPECT_EQ(DropSwitchesOfOtherLayouts(plain_pipeline), off);
  EXPECT_EQ(DropSwitchesOfOtherLayouts(full, Recompute::kFull), off);
  EXPECT_FALSE(no_ep.ep_overlap || plain_pipeline.ep_overlap || full.ep_overlap);
}

}  // namespace
}  // namespace pf

// Validate works on a Scenario without YAML and names the key path of the
// first problem, so sweeps, plans and suggestions can check what they make.
#include <gtest/gtest.h>

#include "sim/scenario/scenario_loader.h"
#include "sim/spec/names.h"
#include "sim/spec/validate.h"
#include "tests/test_util.h"

namespace pf {
namespace {

Scenario Base() { return LoadScenario(testing_util::kRoot + "/scenarios/70b_8xA800_tp8.yaml"); }

TEST(Validate, BundledScenarioIsValid) { EXPECT_FALSE(Validate(Base()).has_value()); }

TEST(Validate, NamesTheKeyPathOfTheFirstProblem) {
  struct Case {
    void (*edit)(Scenario&);
    std::string key, message;
  };
  const std::vector<Case> cases = {
      {[](Scenario& s) { s.parallel.tp = 6; }, "parallel.tp", "6 does not divide attention heads (64)"},
      {[](Scenario& s) { s.parallel.pp = 96, s.parallel.tp = 1, s.parallel.dp = 1, s.cluster.nodes = 12; }, "parallel.pp",
       "96 stages for 80 layers: every stage needs at least one layer"},
      {[](Scenario& s) { s.parallel.pp = 2, s.parallel.tp = 4, s.parallel.stage_layers = {40, 30, 10}; },
       "parallel.stage_layers", "lists 3 stages, but pp = 2"},
      {[](Scenario& s) { s.parallel.pp = 2, s.parallel.tp = 4, s.parallel.stage_layers = {80, 0}; },
       "parallel.stage_layers", "stage 1 holds 0 layers: every stage and model chunk needs at least one layer"},
      {[](Scenario& s) { s.parallel.pp = 2, s.parallel.tp = 4, s.parallel.vp = 4, s.parallel.stage_layers = {77, 3}; },
       "parallel.stage_layers", "stage 1 holds 3 layers, fewer than its vp = 4 model chunks: every stage and model chunk needs at least one layer"},
      {[](Scenario& s) { s.parallel.tp = 1, s.parallel.dp = 8, s.parallel.sp = true; }, "parallel.sp",
       "true needs tensor parallelism (tp = 1): sequence parallelism splits the work a TP group repeats on every "
       "rank; set parallel.tp above 1 or drop sp"},
      {[](Scenario& s) { s.parallel.param_gather_overlap = true; }, "parallel.param_gather_overlap",
       "true needs optimizer states sharded over the DP ranks (zero: 1 or 2, or distributed_optimizer: true); with zero: 0 "
       "there is no parameter all-gather after the step"},
      {[](Scenario& s) { s.parallel.tp = 1, s.parallel.dp = 8, s.parallel.hsdp = 4; }, "parallel.hsdp",
       "4 shards within groups of 4 DP ranks (FSDP HYBRID_SHARD) and needs zero: 3 (zero is 0)"},
      {[](Scenario& s) { s.parallel.tp = 1, s.parallel.dp = 8, s.parallel.zero = 3, s.parallel.hsdp = 3; },
       "parallel.hsdp", "3 does not divide the DP ranks (dp = 8); accepted: a divisor of dp, such as the GPUs of a node"},
      {[](Scenario& s) { s.parallel.tp_overlap = true; }, "parallel.tp_overlap",
       "true overlaps the reduce-scatters and all-gathers of sequence parallelism with the GEMMs (Megatron "
       "--tp-comm-overlap needs --sequence-parallel); set parallel.sp: true"},
      {[](Scenario& s) { s.parallel.tp = 4, s.parallel.cp = 4; }, "parallel.dp",
       "tp x cp x pp x dp = 4 x 4 x 1 x 1 = 16, but the cluster has 8 GPUs (1 nodes x 8)"},
      {[](Scenario& s) { s.parallel.tp = 1, s.parallel.cp = 8, s.training.stack = Stack::kHf; }, "parallel.cp",
       "8 with stack \"hf\", which splits no layers (data parallel with DeepSpeed ZeRO or FSDP only); accepted: 1, "
       "or stack megatron, nemo or deepspeed"},
      {[](Scenario& s) { s.parallel.vp = 2; }, "parallel.vp", "2 model chunks need pipeline parallelism (pp = 1)"},
      {[](Scenario& s) { s.parallel.dp = 2; }, "parallel.dp", "tp x pp x dp = 8 x 1 x 2 = 16, but the cluster has 8 GPUs (1 nodes x 8)"},
      {[](Scenario& s) { s.training.global_batch = 63, s.training.micro_batch = 2; },
       "training.global_batch", "63 is not a multiple of micro_batch x dp = 2 x 1 = 2"},
      {[](Scenario& s) { s.cluster.nodes = 4096; }, "cluster.nodes",
       "4096 nodes x 8 GPUs = 32768 GPUs; Preflight simulates up to 16384"},
      {[](Scenario& s) { s.parallel.zero = 4; }, "parallel", "tp, pp, vp, cp and dp must be at least 1 and zero in 0..3"},
  };
  for (const Case& c : cases) {
    Scenario s = Base();
    c.edit(s);
    const auto e = Validate(s);
    ASSERT_TRUE(e.has_value()) << c.key;
    EXPECT_EQ(e->key, c.key);
    EXPECT_EQ(e->message, c.message);
  }
}

// FSDP shards gradients under a pipeline (torchtitan, Llama 3); DeepSpeed's
// pipeline engine and Megatron do not, and nobody shards weights there.
TEST(Validate, ZeroTwoWithAPipelineOnlyOnFsdp) {
  Scenario s = Base();
  s.parallel.tp = 4, s.parallel.pp = 2, s.parallel.dp = 1, s.parallel.zero = 2;
  s.training.stack = Stack::kFsdp;
  EXPECT_FALSE(Validate(s).has_value());
  s.training.stack = Stack::kMegatron;
  ASSERT_TRUE(Validate(s).has_value());
  EXPECT_EQ(Validate(s)->key, "parallel.zero");
  s.training.stack = Stack::kFsdp, s.parallel.zero = 3;
  ASSERT_TRUE(Validate(s).has_value());
  EXPECT_EQ(Validate(s)->key, "parallel.zero");
}

TEST(Validate, DerivedDataParallelismMustDivideTheGpus) {
  Scenario s = Base();
  s.parallel.dp_auto = true;
  s.parallel.tp = 4;
  ResolveDataParallel(s);
  EXPECT_EQ(s.parallel.dp, 2);
  EXPECT_FALSE(Validate(s).has_value());
  s.cluster.node = WithGpus(s.cluster.node, 6);
  const auto e = Validate(s);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->key, "parallel");
  EXPECT_EQ(e->message, "tp x pp = 4 does not divide the 6 GPUs");
}

TEST(Names, EveryEnumRoundTripsThroughItsSpelling) {
  for (const auto& name : Spellings<Method>()) EXPECT_EQ(ToString(*FromString<Method>(name)), name);
  for (const auto& name : Spellings<Recompute>())
    EXPECT_EQ(ToString(*FromString<Recompute>(name)), name);
  EXPECT_FALSE(FromString<Precision>("bf17").has_value());
  EXPECT_STREQ(ToString(IntraKind::kPcie), "pcie");
}

}  // namespace
}  // namespace pf

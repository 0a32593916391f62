// DeepSpeed's PipelineEngine in the task graph: the gradients all-reduced
// once after the flush, in the BF16_Optimizer's fp32 copies under bf16,
// and the tied embedding's sync around that reduce.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/job/simulate.h"
#include "sim/model/model_math.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/workload/stage_cost.h"
#include "sim/workload/workload_builder.h"
#include "tests/test_util.h"

namespace pf {
namespace {

int Count(const preflight::Workload& w, const std::string& name) {
  int n = 0;
  for (const auto& t : w.tasks()) n += t.name() == name;
  return n;
}

// DeepSpeed's PipelineEngine (model/stack.h): the gradients all-reduced
// once after the flush, not bucket by bucket; under bf16 the
// BF16_Optimizer's fp32 copies (4 bytes a parameter), into which each
// micro-batch's backward adds its gradients.
TEST(Workload, DeepSpeedPipelineAllReducesFp32GradientsAfterTheFlush) {
  const std::string file = testing_util::kRoot + "/scenarios/megatron_1p7b_32xA100.yaml";
  const std::vector<std::string> sets = {"parallel.pp=2", "parallel.dp=16", "parallel.zero=1",
                                         "parallel.dp_overlap=true", "training.stack=deepspeed",
                                         "training.precision=bf16", "training.recompute=none"};
  const Scenario ds = LoadScenario(file, sets);
  const preflight::Workload w = BuildWorkload(ds);
  EXPECT_EQ(Count(w, "dp_grad_bucket"), 0);
  EXPECT_EQ(Count(w, "dp_grad_all_reduce_after_flush"), 2);  // one per stage
  const StageCost c = CostOfStage(ds, 0);
  for (const auto& t : w.tasks())
    if (t.name() == "dp_grad_all_reduce_after_flush" && t.collective().gpus(0) == 0) {
      EXPECT_EQ(t.collective().kind(), preflight::ALL_REDUCE);
      EXPECT_DOUBLE_EQ(t.collective().size_bytes(), 4 * c.params);
    }
  // The tied embedding's gradient: the BF16_Optimizer's fp32 copy, all-reduced
  // by ReduceTiedGrads before ReduceGrads (pipeline.cc).
  const double embedding = double(ds.model.vocab) * ds.model.hidden / ds.parallel.tp;
  std::vector<int> syncs;
  for (int i = 0; i < w.tasks_size(); ++i)
    if (w.tasks(i).name() == "embedding_grad_sync") {
      EXPECT_DOUBLE_EQ(w.tasks(i).collective().size_bytes(), 4 * embedding);
      syncs.push_back(i);
    }
  ASSERT_EQ(syncs.size(), size_t(ds.parallel.dp));
  int flush_waits = 0;
  for (const auto& t : w.tasks())
    if (t.name() == "dp_grad_all_reduce_after_flush")
      for (uint32_t d : t.deps()) flush_waits += std::count(syncs.begin(), syncs.end(), int(d));
  EXPECT_EQ(flush_waits, 2 * ds.parallel.dp);  // both stages wait for every DP rank's sync
  // Megatron on the same layout reduces bucket by bucket in the last backward.
  std::vector<std::string> megatron = sets;
  megatron.back() = "training.stack=megatron";
  megatron.push_back("training.recompute=none");
  const Scenario mg = LoadScenario(file, megatron);
  EXPECT_GT(Count(BuildWorkload(mg), "dp_grad_bucket"), 0);
  // The fp32 accumulation: a cast and an add, 18 bytes a parameter each
  // micro-batch's backward.
  EXPECT_GT(c.bwd.seconds.value(), CostOfStage(mg, 0).bwd.seconds.value() +
                                       0.95 * 18 * c.params / (ds.cluster.node.gpu.memory_bandwidth.value() * 0.84));
}

// With one DP rank there is no reduce after the flush; the tied
// embedding's sync still runs before both stages' optimizers (an internal
// error before: the sync waited on the missing reduce).
TEST(Workload, DeepSpeedPipelineWithOneDataParallelRank) {
  const Scenario s = LoadScenario(testing_util::kRoot + "/scenarios/megatron_1p7b_32xA100.yaml",
                                  {"cluster.nodes=1", "cluster.gpus_per_node=2", "parallel.pp=2", "parallel.dp=1",
                                   "parallel.zero=1", "training.stack=deepspeed", "training.precision=bf16"});
  ASSERT_TRUE(TiedEmbeddingCopies(s.model, s.parallel));
  const preflight::Workload w = BuildWorkload(s);
  EXPECT_EQ(Count(w, "embedding_grad_sync"), 1);
  EXPECT_EQ(Count(w, "dp_grad_all_reduce_after_flush"), 0);
  const Result r = Simulate(s);
  ASSERT_TRUE(r.step);
  EXPECT_GT(r.step->step_time.value(), 0);
}

}  // namespace
}  // namespace pf

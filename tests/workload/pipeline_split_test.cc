// Uneven pipeline stages: the default split (one layer fewer on the stages
// at the ends), explicit stage_layers, model chunks, and the cost and
// memory of each stage following its own layer count.
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/model/memory_model.h"
#include "sim/model/model_math.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/spec/validate.h"
#include "sim/workload/stage_cost.h"
#include "tests/test_util.h"

namespace pf {
namespace {

std::vector<int> Split(int layers, int pp, std::vector<int> given = {}) {
  ModelSpec m;
  m.layers = layers;
  ParallelSpec p;
  p.pp = pp;
  p.stage_layers = std::move(given);
  std::vector<int> out;
  for (int i = 0; i < pp; ++i) out.push_back(LayersOfStage(m, p, i));
  return out;
}

TEST(PipelineSplit, EvenWhenPpDividesTheLayers) {
  EXPECT_EQ(Split(80, 4), (std::vector<int>{20, 20, 20, 20}));
}

// Llama 3 405B (Dubey et al. 2024, Sec. 3.3.2): 126 layers on 16 stages,
// one fewer on the first and the last.
TEST(PipelineSplit, Llama3On16StagesTakesOneLayerOffEachEnd) {
  std::vector<int> want(16, 8);
  want.front() = want.back() = 7;
  EXPECT_EQ(Split(126, 16), want);
}

// BLOOM-176B on Megatron-DeepSpeed: 70 layers on 12 stages, the embedding
// and the head each counted as a layer: 5, 6 x 10, 5.
TEST(PipelineSplit, BloomOn12Stages) {
  std::vector<int> want(12, 6);
  want.front() = want.back() = 5;
  EXPECT_EQ(Split(70, 12), want);
}

// The shortfall is taken from the ends inward: first, last, second, ...
TEST(PipelineSplit, ShortfallTakenFromTheEndsInward) {
  EXPECT_EQ(Split(80, 3), (std::vector<int>{26, 27, 27}));
  EXPECT_EQ(Split(17, 4), (std::vector<int>{4, 4, 5, 4}));  // stages 0, 3, 1 short
  EXPECT_EQ(Split(5, 5), (std::vector<int>{1, 1, 1, 1, 1}));
}

TEST(PipelineSplit, ExplicitStageLayersWin) {
  EXPECT_EQ(Split(80, 3, {30, 30, 20}), (std::vector<int>{30, 30, 20}));
}

// Model chunks split their stage's layers; the first chunks take the
// remainder (virtual stage v is chunk v / pp of stage v % pp).
TEST(PipelineSplit, ModelChunksSplitTheirStage) {
  ModelSpec m;
  m.layers = 126;
  ParallelSpec p;
  p.pp = 16, p.vp = 2;
  EXPECT_EQ(LayersOfVirtualStage(m, p, 0), 4);   // stage 0 (7 layers), chunk 0
  EXPECT_EQ(LayersOfVirtualStage(m, p, 16), 3);  // stage 0, chunk 1
  EXPECT_EQ(LayersOfVirtualStage(m, p, 1), 4);   // stage 1 (8 layers), chunk 0
  EXPECT_EQ(LayersOfVirtualStage(m, p, 17), 4);
  EXPECT_EQ(MaxLayersOfStage(m, p), 8);
}

std::string Write405b(const std::string& stage_layers) {
  const std::string path = testing_util::UniqueTempPath("split_405b");
  std::ofstream(path) << "model: llama3.1-405b\n"
                         "cluster: {node: h100-sxm-8x, nodes: 16}\n"
                         "parallel: {tp: 8, pp: 16, dp: 1" + stage_layers + "}\n"
                         "training: {method: full, precision: bf16, seq_len: 8192,\n"
                         "           micro_batch: 1, global_batch: 16, recompute: none, tokens: 1B}\n";
  return path;
}

TEST(PipelineSplit, EachStageCostsItsOwnLayers) {
  const Scenario s = LoadScenario(Write405b(""));
  ASSERT_FALSE(Validate(s).has_value());
  const StageCost first = CostOfStage(s, 0), middle = CostOfStage(s, 1);
  EXPECT_EQ(first.layers, 7);
  EXPECT_EQ(middle.layers, 8);
  // The middle stage's 8 layers against the first stage's 7 and its embedding
  // (a lookup): 8/7 of the layer work, within the embedding's share.
  EXPECT_NEAR(middle.fwd.flops / first.fwd.flops, 8.0 / 7, 0.01);
  // Stage 0 also holds the 2.1B-parameter embedding (128256 x 16384 / 8 per rank).
  EXPECT_NEAR(middle.params, first.params / 7 * 8 - 128256.0 * 16384 / 8 * 8 / 7, 1e6);
}

// 1F1B: stage i keeps pp - i micro-batches in flight. Stage 0 holds 16 x 7
// = 112 layer-micro-batches of activations, stage 1 15 x 8 = 120: the
// fullest GPU is stage 1, not an end.
TEST(PipelineSplit, FullestStageCanBeInTheMiddle) {
  const Scenario s = LoadScenario(Write405b(""));
  EXPECT_EQ(EstimateMemory(s).stage, 1);
  // 21 layers on the first stage (16 x 21 = 336) move the peak there.
  const Scenario moved = LoadScenario(Write405b(", stage_layers: [21, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7]"));
  ASSERT_FALSE(Validate(moved).has_value());
  EXPECT_EQ(EstimateMemory(moved).stage, 0);
  EXPECT_GT(EstimateMemory(moved).activations.value(), EstimateMemory(s).activations.value() * 2.5);
}

}  // namespace
}  // namespace pf

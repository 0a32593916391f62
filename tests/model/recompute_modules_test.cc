// Megatron-Core's selective recompute modules (training.recompute_modules):
// what each frees of a layer's activations, what each repeats in the
// backward, and the scenario keys' refusals.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/model/memory_model.h"
#include "sim/model/model_math.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/spec/names.h"
#include "sim/spec/validate.h"
#include "sim/workload/stage_cost.h"
#include "tests/test_util.h"

namespace pf {
namespace {

const std::string kRoot = PREFLIGHT_SOURCE_DIR;
const std::string kGptOss = kRoot + "/tests/data/recipes/mb2604_gpt_oss_120b_64xH100.yaml";

TrainingSpec Selective(unsigned modules) {
  TrainingSpec t;
  t.seq_len = 4096, t.micro_batch = 1, t.precision = Precision::kBf16;
  t.recompute = Recompute::kSelective;
  t.recompute_modules = modules;
  return t;
}

ModelSpec Llama7b() {
  ModelSpec m;
  m.layers = 32, m.hidden = 4096, m.heads = 32, m.kv_heads = 32, m.ffn = 11008;
  m.ffn_kind = FfnKind::kSwiglu;
  return m;
}

constexpr unsigned kCore = Bit(RecomputeModule::kCoreAttn);

// Each output-discarding module frees exactly its tensors: the norms'
// outputs (the QKV and MLP inputs, 2 x 2sbh, divided by tp under sequence
// parallelism); a dense layer's "mlp" its up output and activation output
// (SwiGLU: 2sb x 2f + 2sb x f, sharded by tp).
TEST(RecomputeModules, EachFreesItsOwnActivations) {
  const ModelSpec m = Llama7b();
  const double sb = 4096, h = 4096, f = 11008;
  const double base = LayerActivationBytes(m, Selective(kCore), 1, false);
  const double norms = LayerActivationBytes(m, Selective(kCore | Bit(RecomputeModule::kLayernorm)), 1, false);
  EXPECT_DOUBLE_EQ(base - norms, 4 * sb * h);
  const double sp_base = LayerActivationBytes(m, Selective(kCore), 4, true);
  const double sp_norms = LayerActivationBytes(m, Selective(kCore | Bit(RecomputeModule::kLayernorm)), 4, true);
  EXPECT_DOUBLE_EQ(sp_base - sp_norms, 4 * sb * h / 4);
  const double mlp = LayerActivationBytes(m, Selective(kCore | Bit(RecomputeModule::kMlp)), 2, false);
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, Selective(kCore), 2, false) - mlp, (2 * sb * 2 * f + 2 * sb * f) / 2);
  // Without the attention core the scores of unfused attention stay too.
  TrainingSpec unfused = Selective(Bit(RecomputeModule::kLayernorm));
  unfused.attention = Attention::kUnfused;
  TrainingSpec unfused_core = Selective(kCore | Bit(RecomputeModule::kLayernorm));
  unfused_core.attention = Attention::kUnfused;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, unfused, 1, false) - LayerActivationBytes(m, unfused_core, 1, false),
                   5.0 * 32 * 4096 * 4096);
}

// moe_act frees the routed experts' activation output (top_k copies of
// expert_ffn per token), not the shared expert's; mla_up_proj MLA's Q, K, V.
TEST(RecomputeModules, ExpertActivationAndMlaUpProjection) {
  const Scenario ds = LoadScenario(kRoot + "/tests/data/recipes/mlm_qwen3_30b_a3b_bf16_32xH100.yaml",
                                   {"model={hf_config: deepseek-v2-lite}", "training.recompute=selective"});
  const ModelSpec& m = ds.model;
  const double sb = 4096.0 * ds.training.micro_batch;
  const TrainingSpec core = Selective(kCore);
  const double act = LayerActivationBytes(m, Selective(kCore | Bit(RecomputeModule::kMoeAct)), 1, false, 1);
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, core, 1, false, 1) - act, 2 * sb * 6 * 1408);  // top 6 of 1408
  const double qkv = LayerActivationBytes(m, Selective(kCore | Bit(RecomputeModule::kMlaUpProj)), 1, false, 1);
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, core, 1, false, 1) - qkv,
                   2 * sb * (m.q_dim() + 2 * KvDimPerRank(m, 1)));
  // The backward repeats the up-projections and RoPE; without a query
  // latent (V2-Lite) the query's projection is one of them.
  TrainingSpec up = ds.training;
  up.recompute_modules = Bit(RecomputeModule::kMlaUpProj);
  std::vector<std::string> again;
  for (const Op& op : SelectiveRecomputed(m, up, LayerOps(m, up, ShardsOf(ds.parallel), Pass::kForward, false)))
    again.push_back(op.name);
  EXPECT_EQ(again, (std::vector<std::string>{"q_proj", "kv_up", "rope"}));
}

// The backward repeats the listed modules' forward ops: by default the
// attention core alone (as recompute selective always did), with the norms
// their two kernels, with moe_act the routed share of the activation.
TEST(RecomputeModules, TheBackwardRepeatsWhatIsListed) {
  const Scenario s = LoadScenario(kGptOss);
  const ModelSpec& m = s.model;
  TrainingSpec t = s.training;
  const std::vector<Op> fwd = LayerOps(m, t, ShardsOf(s.parallel), Pass::kForward, false);
  auto names = [](const std::vector<Op>& ops) {
    std::vector<std::string> out;
    for (const Op& op : ops) out.push_back(op.name);
    return out;
  };
  t.recompute_modules = kCore;
  for (const Op& op : SelectiveRecomputed(m, t, fwd)) EXPECT_EQ(op.kind, OpKind::kAttention) << op.name;
  t.recompute_modules = Bit(RecomputeModule::kLayernorm) | Bit(RecomputeModule::kMoeAct);
  const std::vector<Op> again = SelectiveRecomputed(m, t, fwd);
  const std::vector<std::string> got = names(again);
  EXPECT_EQ(std::count(got.begin(), got.end(), "norm1"), 1);
  EXPECT_EQ(std::count(got.begin(), got.end(), "norm2"), 1);
  for (const Op& op : again) {
    EXPECT_NE(op.kind, OpKind::kAttention);
    if (op.name == "swiglu") {
      for (const Op& whole : fwd) {
        if (whole.name == "swiglu") {
          EXPECT_DOUBLE_EQ(op.bytes.value(), whole.bytes.value());  // no shared expert
        }
      }
    }
  }
  // Nothing is repeated unless recompute is selective.
  t.recompute = Recompute::kNone;
  EXPECT_TRUE(SelectiveRecomputed(m, t, fwd).empty());
}

// GPT-OSS 120B's recipe (layernorm, moe_act): fewer activations, a longer
// backward than the attention core alone, and both named in the report.
TEST(RecomputeModules, TheRecipeTradesMemoryForBackwardTime) {
  const Scenario recipe = LoadScenario(kGptOss);
  ASSERT_TRUE(recipe.training.recompute_modules_given);
  const Scenario core = LoadScenario(kGptOss, {"training.recompute_modules=[core_attn]"});
  EXPECT_LT(EstimateMemory(recipe).activations.value(), 0.8 * EstimateMemory(core).activations.value());
  EXPECT_GT(CostOfStage(recipe, 1).bwd.seconds.value(), CostOfStage(core, 1).bwd.seconds.value());
  EXPECT_EQ(CostOfStage(recipe, 1).fwd.seconds.value(), CostOfStage(core, 1).fwd.seconds.value());
}

std::string Refusal(const std::string& path, const std::vector<std::string>& overrides) {
  try {
    const Scenario s = LoadScenario(path, overrides);
    if (auto e = Validate(s)) return e->key + ": " + e->message;
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(RecomputeModules, RefusalsNameTheKeyAndWhatIsAccepted) {
  EXPECT_NE(Refusal(kGptOss, {"training.recompute_modules=[mla_up_proj]"})
                .find("training.recompute_modules: lists mla_up_proj, but gpt-oss-120b has no multi-head latent "
                      "attention; accepted: core_attn, layernorm, mlp, moe_act"),
            std::string::npos);
  EXPECT_NE(Refusal(kRoot + "/scenarios/70b_8xA800_full.yaml",
                    {"training.recompute=selective", "training.recompute_modules=[moe_act]"})
                .find("lists moe_act, but llama2-70b has no experts"),
            std::string::npos);
  EXPECT_NE(Refusal(kGptOss, {"training.recompute_modules=[mlp]"}).find("is a mixture of experts"), std::string::npos);
  EXPECT_NE(Refusal(kGptOss, {"training.recompute_modules=[moe_ac]"}).find("did you mean 'moe_act'?"),
            std::string::npos);
  EXPECT_NE(Refusal(kGptOss, {"training.recompute_modules=moe_act"}).find("is not a list"), std::string::npos);
  // Under another recompute, or off Megatron-Core, the list is not used (as
  // in Megatron-Core; selective is the attention core elsewhere), so a sweep
  // may vary training.recompute or the stack around it.
  EXPECT_EQ(Refusal(kGptOss, {"training.recompute=full"}), "(accepted)");
  const Scenario fsdp = LoadScenario(kGptOss, {"training.stack=fsdp", "parallel.pp=1", "parallel.ep=1",
                                               "parallel.zero=3", "parallel.distributed_optimizer=false",
                                               "parallel.param_gather_overlap=false"});
  EXPECT_TRUE(fsdp.training.recomputes(RecomputeModule::kCoreAttn));
  EXPECT_FALSE(fsdp.training.recomputes(RecomputeModule::kLayernorm));
}

}  // namespace
}  // namespace pf

// Transformer arithmetic, 1F1B order and collective flows checked against
// closed forms (shared/reference/formulas.md) and hand-computed numbers.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/collectives/nccl.h"
#include "sim/model/model_math.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/workload/schedule_1f1b.h"

namespace pf {
namespace {

const std::string kRoot = PREFLIGHT_SOURCE_DIR;

Scenario Load(const std::string& name) { return LoadScenario(kRoot + "/scenarios/" + name); }

const char* const kMegatron[] = {"megatron_1p7b_32xA100.yaml", "megatron_7p5b_128xA100.yaml",
                                 "megatron_39p1b_512xA100.yaml", "megatron_145p6b_1536xA100.yaml",
                                 "megatron_529p6b_2520xA100.yaml"};

// P = 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h)), s = max_seq (learned positions).
TEST(ModelMath, MegatronGptParamsMatchSc21Formula) {
  for (const char* file : kMegatron) {
    SCOPED_TRACE(file);
    const ModelSpec m = Load(file).model;
    const double l = m.layers, h = m.hidden, V = m.vocab, s = m.max_seq;
    const double formula = 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h));
    const ParamCount p = CountParams(m);
    // The SC21 formula leaves out the final LayerNorm (weight + bias = 2h).
    EXPECT_EQ(p.final_norm, 2 * h);
    EXPECT_EQ(p.lm_head, 0);  // tied embeddings
    EXPECT_NEAR(p.total(m.layers) - p.final_norm, formula, 1e-9 * formula);
    EXPECT_NEAR(p.total(m.layers), formula, 1e-5 * formula);
  }
}

TEST(ModelMath, MegatronParamsMatchTheirNames) {
  const std::map<std::string, double> billions = {
      {"megatron_1p7b_32xA100.yaml", 1.7}, {"megatron_7p5b_128xA100.yaml", 7.5},
      {"megatron_39p1b_512xA100.yaml", 39.1}, {"megatron_145p6b_1536xA100.yaml", 145.6},
      {"megatron_529p6b_2520xA100.yaml", 529.6}};
  for (const auto& [file, b] : billions) {
    const ModelSpec m = Load(file).model;
    EXPECT_NEAR(CountParams(m).total(m.layers) / 1e9, b, 0.03 * b) << file;  // 1.7B: 1.65B
  }
}

ModelSpec Llama(int layers, int hidden, int heads, int kv_heads, int ffn) {
  ModelSpec m;
  m.name = "llama";
  m.layers = layers, m.hidden = hidden, m.heads = heads, m.kv_heads = kv_heads, m.ffn = ffn;
  m.ffn_kind = FfnKind::kSwiglu;
  m.vocab = 32000;
  m.position = Position::kRope;
  m.max_seq = 4096;
  m.layernorm = false;
  return m;
}

TEST(ModelMath, Llama2ParamCounts) {
  // Hand count, Llama-2-7B: 32 x (4h^2 + 3hf + 2h) + 2Vh + h = 6,738,415,616.
  const ModelSpec l7 = Llama(32, 4096, 32, 32, 11008);
  EXPECT_EQ(CountParams(l7).total(32), 6738415616.0);
  EXPECT_NEAR(CountParams(l7).total(32), 6.74e9, 0.005 * 6.74e9);
  // Llama-2-70B (GQA, 8 KV heads): 80 x 855,654,400 + 2Vh + h = 68,976,648,192.
  const ModelSpec l70 = Llama(80, 8192, 64, 8, 28672);
  EXPECT_EQ(CountParams(l70).per_layer, 855654400.0);
  EXPECT_EQ(CountParams(l70).total(80), 68976648192.0);
  // The bundled model files give the same.
  const ModelSpec bundled = Load("70b_8xA800_tp8.yaml").model;
  EXPECT_EQ(CountParams(bundled).total(bundled.layers), 68976648192.0);
}

// F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) with full recompute (hardware);
// the model FLOPs have no recompute forward of the layers: 72 B s l h^2 (1 +
// s/(6h)) + 6 B s V h = 72 B s l h^2 (1 + s/(6h) + V/(12 l h)).
TEST(ModelMath, GptStepFlopsMatchSc21Formula) {
  for (const char* file : kMegatron) {
    SCOPED_TRACE(file);
    const Scenario sc = Load(file);
    const ModelSpec& m = sc.model;
    TrainingSpec t = sc.training;
    ASSERT_EQ(t.recompute, Recompute::kFull);
    const double B = t.global_batch, s = t.seq_len, l = m.layers, h = m.hidden, V = m.vocab;
    const double hw = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
    const double model = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
    StepFlops f = TrainingStepFlops(m, t);
    EXPECT_NEAR(f.hardware.value(), hw, 1e-9 * hw);
    EXPECT_NEAR(f.model.value(), model, 1e-9 * model);
    t.recompute = Recompute::kNone;
    StepFlops none = TrainingStepFlops(m, t);
    EXPECT_NEAR(none.hardware.value(), model, 1e-9 * model);
    EXPECT_EQ(none.model.value(), f.model.value());
    t.recompute = Recompute::kSelective;  // attention only: 4 B s^2 h l extra
    EXPECT_NEAR(TrainingStepFlops(m, t).hardware.value(), model + 4 * B * s * s * h * l,
                1e-9 * model);
  }
}

TEST(ModelMath, LoraNeedsFewerFlopsThanFullTraining) {
  const Scenario sc = Load("70b_8xA800_tp8.yaml");
  TrainingSpec t = sc.training;
  ASSERT_EQ(t.method, Method::kLora);
  const StepFlops lora = TrainingStepFlops(sc.model, t);
  t.method = Method::kFull;
  const StepFlops full = TrainingStepFlops(sc.model, t);
  EXPECT_LT(lora.model.value(), full.model.value());
  EXPECT_LT(lora.hardware.value(), full.hardware.value());
  // Frozen weights skip the weight-gradient GEMMs: roughly 2/3 of full.
  EXPECT_NEAR(lora.model.value() / full.model.value(), 2.0 / 3, 0.05);
}

TEST(Schedule1F1B, Stage0Of4With8MicroBatches) {
  const std::vector<PipeOp> order = OneFOneBOrder(0, 4, 8);
  // F0 F1 F2 | F3 B0 F4 B1 F5 B2 F6 B3 F7 B4 | B5 B6 B7
  const std::vector<std::pair<bool, int>> want = {
      {true, 0},  {true, 1},  {true, 2},  {true, 3},  {false, 0}, {true, 4},
      {false, 1}, {true, 5},  {false, 2}, {true, 6},  {false, 3}, {true, 7},
      {false, 4}, {false, 5}, {false, 6}, {false, 7}};
  ASSERT_EQ(order.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(order[i].forward, want[i].first) << i;
    EXPECT_EQ(order[i].micro_batch, want[i].second) << i;
  }
}

TEST(Schedule1F1B, EveryMicroBatchOnceForwardThenBackward) {
  for (int stages : {1, 2, 4, 8})
    for (int stage = 0; stage < stages; ++stage)
      for (int mb : {1, 2, 3, 8, 16}) {
        SCOPED_TRACE(testing::Message() << stage << "/" << stages << " m=" << mb);
        const auto order = OneFOneBOrder(stage, stages, mb);
        ASSERT_EQ(order.size(), size_t(2 * mb));
        std::vector<int> fwd_at(mb, -1), bwd_at(mb, -1);
        for (size_t i = 0; i < order.size(); ++i) {
          auto& at = order[i].forward ? fwd_at : bwd_at;
          ASSERT_EQ(at[order[i].micro_batch], -1) << "twice: " << order[i].micro_batch;
          at[order[i].micro_batch] = int(i);
        }
        for (int k = 0; k < mb; ++k) EXPECT_LT(fwd_at[k], bwd_at[k]) << k;
        // Warm-up: min(p - i - 1, m) forwards before the first backward.
        EXPECT_EQ(bwd_at[0], std::min(stages - stage - 1, mb - 1) + 1);
      }
}

}  // namespace
}  // namespace pf

namespace pf {
namespace {

double FlashForwardFlops(const ModelSpec& m, const TrainingSpec& t) {
  for (const Op& op : LayerOps(m, t, 1, Pass::kForward, false))
    if (op.name == "flash_attn") return op.flops.value();
  return 0;
}

// Sliding-window attention (Mistral 7B's 4096): a query sees the window,
// not the sequence, once the sequence is longer. FlashAttention's causal
// kernel skips the masked half and the blocks before the window: on
// average w - w^2 / (2s) keys a query, against s / 2 without a window.
TEST(ModelMath, SlidingWindowBoundsTheKeysAQuerySees) {
  ModelSpec m = Llama(32, 4096, 32, 8, 14336);
  TrainingSpec t;
  t.seq_len = 32768, t.micro_batch = 1, t.global_batch = 1;
  const double full = FlashForwardFlops(m, t);
  const double full_model = ForwardFlopsPerToken(m, t.seq_len).layer_attention;
  m.window = 4096;
  EXPECT_DOUBLE_EQ(FlashForwardFlops(m, t) / full, (4096 - 4096.0 * 4096 / (2 * 32768)) / (32768 / 2.0));
  EXPECT_DOUBLE_EQ(ForwardFlopsPerToken(m, t.seq_len).layer_attention, 4.0 * 4096 * 4096);
  EXPECT_DOUBLE_EQ(full_model, 4.0 * 32768 * 4096);
  t.seq_len = 4096;  // within the window: nothing changes
  const double inside = FlashForwardFlops(m, t);
  m.window = 0;
  EXPECT_DOUBLE_EQ(inside, FlashForwardFlops(m, t));
}

// GPT-OSS alternates banded and dense layers (window_share 0.5): layers
// are costed alike, each at the mean of the two, in the kernel and in the
// model FLOPs.
TEST(ModelMath, AWindowOnAShareOfTheLayersCostsTheMean) {
  ModelSpec m = Llama(36, 2880, 64, 8, 2880);
  m.head_size = 64;
  TrainingSpec t;
  t.seq_len = 4096, t.micro_batch = 1, t.global_batch = 1;
  const double dense = FlashForwardFlops(m, t), dense_model = ForwardFlopsPerToken(m, t.seq_len).layer_attention;
  m.window = 128;
  const double banded = FlashForwardFlops(m, t), banded_model = ForwardFlopsPerToken(m, t.seq_len).layer_attention;
  EXPECT_LT(banded, dense / 10);
  m.window_share = 0.5;
  EXPECT_DOUBLE_EQ(FlashForwardFlops(m, t), (dense + banded) / 2);
  EXPECT_DOUBLE_EQ(ForwardFlopsPerToken(m, t.seq_len).layer_attention, (dense_model + banded_model) / 2);
}

}  // namespace
}  // namespace pf

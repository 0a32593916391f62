// Hugging Face configs (model: {hf_config: ...}): every bundled config.json
// loads and gives its model's published parameter count within 0.5% (a
// mixture of experts its active count too), an architecture whose
// attention is not modelled and an unknown one are refused naming the
// entry, a missing field names the file and the field, and a config given
// by path is read relative to the scenario.
#include <cstdio>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/model/model_math.h"
#include "sim/scenario/hf_config.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/test_util.h"

namespace pf {
namespace {

const std::string kScenario = testing_util::kRoot + "/scenarios/70b_8xA800_tp8.yaml";

// Published totals: the "Model size" each model's Hugging Face Hub page
// prints from its safetensors metadata (3 significant figures; Yi-34B to
// 5, from the Open LLM Leaderboard's request file, which reads the same
// metadata). models/hf/PARAMS.md has each with its exact count from the
// config and notes.
const std::map<std::string, double> kPublished = {
    {"llama-2-7b", 6.74e9},           {"llama-2-13b", 13.0e9},        {"llama-2-70b", 69.0e9},
    {"llama-3-8b", 8.03e9},           {"llama-3-70b", 70.6e9},        {"llama-3.1-8b", 8.03e9},
    {"llama-3.1-70b", 70.6e9},        {"llama-3.1-405b", 406e9},      {"qwen2-7b", 7.62e9},
    {"qwen2-72b", 72.7e9},            {"qwen2.5-7b", 7.62e9},         {"qwen2.5-14b", 14.8e9},
    {"qwen2.5-32b", 32.8e9},          {"qwen2.5-72b", 72.7e9},        {"mistral-7b-v0.1", 7.24e9},
    {"yi-6b", 6.06e9},                {"yi-34b", 34.389e9},           {"baichuan2-7b-base", 7.51e9},
    {"baichuan2-13b-base", 13.9e9},   {"chatglm3-6b", 6.24e9},        {"deepseek-llm-7b-base", 6.91e9},
    {"deepseek-llm-67b-base", 67.4e9},
    // Mixtures of experts (the Hub's sizes, as above).
    {"mixtral-8x7b-v0.1", 46.7e9},    {"qwen3-30b-a3b", 30.5e9},      {"qwen3-235b-a22b", 235e9},
    {"qwen2-57b-a14b", 57.4e9},       {"deepseek-v2-lite", 15.7e9},
    // DeepSeek-V3: its README ("671B total parameters with 37B activated
    // for each token"; the main model, without the multi-token-prediction
    // module: 14B on the Hub, 11.5B of its own beside the shared embedding
    // and head, README_WEIGHTS.md).
    {"deepseek-v3", 671e9},
    // GPT-OSS: its model card's Table 1 (arXiv 2508.10925; the Hub's size
    // counts the MXFP4 blocks as bytes).
    {"gpt-oss-120b", 116.83e9},       {"gpt-oss-20b", 20.91e9},
};

// Parameters one token uses, as published: Jiang et al. 2024 ("Mixtral of
// Experts", Sec. 2: 13B active, 12.9B in Table 1's note); the Qwen3 model
// cards ("30.5B in total and 3.3B activated", "235B in total and 22B
// activated"), whose 2 significant figures allow the 2% band.
// DeepSeek's model card ("16B total params, 2.4B active params") counts
// them without the input embedding (a lookup, not a matmul), as GPT-OSS's
// Table 1 does ("Unembedding parameters are counted towards active, but
// not embeddings": 5.13B and 3.61B).
const std::map<std::string, double> kPublishedActive = {
    {"mixtral-8x7b-v0.1", 12.9e9}, {"qwen3-30b-a3b", 3.3e9}, {"qwen3-235b-a22b", 22e9}, {"deepseek-v3", 37e9}};
const std::map<std::string, double> kPublishedActiveWithoutEmbedding = {
    {"deepseek-v2-lite", 2.4e9}, {"gpt-oss-120b", 5.13e9}, {"gpt-oss-20b", 3.61e9}};

Scenario WithModel(const std::string& model) {
  // A layout every bundled model splits over: one GPU's worth of TP.
  return LoadScenario(kScenario, {"model={hf_config: " + model + "}", "parallel.tp=1", "parallel.dp=8",
                                  "training.global_batch=64", "training.method=full"});
}

std::string Refusal(const std::vector<std::string>& overrides) {
  try {
    LoadScenario(kScenario, overrides);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

// `config` written to `path` as a model's config.json, full fine-tuning:
// the refusal, or "(accepted)".
std::string ConfigRefusal(const std::string& path, const std::string& config) {
  std::ofstream(path) << config;
  return Refusal({"model={hf_config: " + path + "}", "training.method=full"});
}

TEST(HfConfig, EveryBundledConfigGivesItsPublishedParameterCount) {
  int checked = 0;
  for (const std::string& name : BundledHfConfigs()) {
    ASSERT_TRUE(kPublished.count(name)) << name << " has no published count in this test";
    const ModelSpec m = WithModel(name).model;
    const double params = CountParams(m).total(m.layers);
    EXPECT_NEAR(params / kPublished.at(name), 1, 0.005) << name << ": " << params;
    if (kPublishedActive.count(name)) {
      EXPECT_NEAR(CountParams(m).active(m.layers) / kPublishedActive.at(name), 1, 0.02) << name;
    }
    if (kPublishedActiveWithoutEmbedding.count(name)) {
      EXPECT_NEAR((CountParams(m).active(m.layers) - CountParams(m).embedding) /
                      kPublishedActiveWithoutEmbedding.at(name), 1, 0.03)
          << name;
    }
    ++checked;
  }
  EXPECT_GE(checked, 29);
}

TEST(HfConfig, MixtureOfExpertsFieldsMapToTheModel) {
  const ModelSpec mixtral = WithModel("mixtral-8x7b-v0.1").model;  // num_local_experts of intermediate_size
  EXPECT_EQ(mixtral.moe.experts, 8);
  EXPECT_EQ(mixtral.moe.top_k, 2);
  EXPECT_EQ(mixtral.moe.expert_ffn, 14336);
  EXPECT_EQ(mixtral.moe.shared_experts, 0);
  const ModelSpec q3 = WithModel("qwen3-30b-a3b").model;  // num_experts of moe_intermediate_size, head_dim
  EXPECT_EQ(q3.moe.experts, 128);
  EXPECT_EQ(q3.moe.top_k, 8);
  EXPECT_EQ(q3.moe.expert_ffn, 768);
  EXPECT_EQ(q3.head_dim(), 128);
  EXPECT_DOUBLE_EQ(q3.q_dim(), 32 * 128.0);  // wider than hidden (2048)
  const ModelSpec q2 = WithModel("qwen2-57b-a14b").model;  // one shared expert
  EXPECT_EQ(q2.moe.shared_experts, 1);
  EXPECT_EQ(q2.moe.shared_ffn, 20480);
  // DeepSeek-V2-Lite: MLA without query compression, 2 shared experts, the
  // first layer dense (intermediate_size).
  const ModelSpec ds = WithModel("deepseek-v2-lite").model;
  EXPECT_EQ(ds.mla.kv_lora, 512);
  EXPECT_EQ(ds.mla.q_lora, 0);
  EXPECT_EQ(ds.mla.qk_nope + ds.mla.qk_rope, 192);
  EXPECT_EQ(ds.mla.v, 128);
  EXPECT_DOUBLE_EQ(ds.q_dim(), 16 * 192.0);
  EXPECT_DOUBLE_EQ(ds.v_dim(), 16 * 128.0);
  EXPECT_EQ(ds.moe.experts, 64);
  EXPECT_EQ(ds.moe.top_k, 6);
  EXPECT_EQ(ds.moe.shared_experts, 2);
  EXPECT_EQ(ds.moe.shared_ffn, 1408);
  EXPECT_EQ(ds.moe.dense_layers, 1);
  EXPECT_EQ(ds.ffn, 10944);
  EXPECT_FALSE(ds.moe.group_limited());  // n_group 1, topk_group 1
  // DeepSeek-V3: query compression, 3 dense layers, and its node-limited
  // routing (n_group 8, topk_group 4).
  const ModelSpec v3 = WithModel("deepseek-v3").model;
  EXPECT_EQ(v3.mla.q_lora, 1536);
  EXPECT_EQ(v3.moe.experts, 256);
  EXPECT_EQ(v3.moe.shared_experts, 1);
  EXPECT_EQ(v3.moe.dense_layers, 3);
  EXPECT_EQ(v3.moe.groups, 8);
  EXPECT_EQ(v3.moe.group_topk, 4);
  EXPECT_TRUE(v3.moe.group_limited());
  // GPT-OSS: Mixtral's fields, a head_dim of its own (64 heads of 64 at
  // hidden 2880) and a 128-token window on the half of the layers that
  // layer_types calls "sliding_attention".
  const ModelSpec oss = WithModel("gpt-oss-120b").model;
  EXPECT_EQ(oss.moe.experts, 128);
  EXPECT_EQ(oss.moe.top_k, 4);
  EXPECT_EQ(oss.moe.expert_ffn, 2880);
  EXPECT_EQ(oss.moe.shared_experts, 0);
  EXPECT_DOUBLE_EQ(oss.q_dim(), 64 * 64.0);
  EXPECT_EQ(oss.window, 128);
  EXPECT_DOUBLE_EQ(oss.window_share, 0.5);
  EXPECT_DOUBLE_EQ(oss.glu_clamp, 7.0);  // swiglu_limit
  EXPECT_EQ(WithModel("gpt-oss-20b").model.moe.experts, 32);
  EXPECT_DOUBLE_EQ(WithModel("qwen3-30b-a3b").model.glu_clamp, 0);
}

TEST(HfConfig, FieldsMapToTheModel) {
  const ModelSpec glm = WithModel("chatglm3-6b").model;  // ChatGLM's own field names
  EXPECT_EQ(glm.layers, 28);
  EXPECT_EQ(glm.kv_heads, 2);
  EXPECT_EQ(glm.ffn, 13696);
  EXPECT_EQ(glm.vocab, 65024);
  const ModelSpec b13 = WithModel("baichuan2-13b-base").model;  // ALiBi
  EXPECT_EQ(b13.position, Position::kAlibi);
  const ModelSpec l3 = WithModel("llama-3.1-8b").model;
  EXPECT_EQ(l3.kv_heads, 8);
  EXPECT_EQ(l3.ffn_kind, FfnKind::kSwiglu);
  EXPECT_FALSE(l3.layernorm);
  EXPECT_FALSE(l3.tied_embeddings);
  EXPECT_EQ(WithModel("mistral-7b-v0.1").model.window, 4096);  // sliding_window
  EXPECT_EQ(WithModel("qwen2-7b").model.window, 0);             // use_sliding_window: false
}

TEST(HfConfig, BadConfigsAreRefused) {
  EXPECT_NE(Refusal({"model={hf_config: llama-2-7}"}).find("(did you mean 'llama-2-7b'?)"), std::string::npos);
  // A config of our own: missing a field, an unknown architecture.
  const std::string path = testing_util::UniqueTempPath("hf", ".json");
  std::ofstream(path) << "{\n  \"architectures\": [\"LlamaForCausalLM\"],\n  \"hidden_size\": 4096,\n"
                         "  \"num_attention_heads\": 32,\n  \"intermediate_size\": 11008,\n  \"vocab_size\": 32000,\n"
                         "  \"max_position_embeddings\": 4096\n}\n";
  const std::string missing = Refusal({"model={hf_config: " + path + "}"});
  EXPECT_NE(missing.find(path + ":1:1: missing required key 'num_hidden_layers'"), std::string::npos) << missing;
  std::ofstream(path) << "{\n  \"architectures\": [\"JambaForCausalLM\"]\n}\n";
  const std::string jamba = Refusal({"model={hf_config: " + path + "}"});
  EXPECT_NE(jamba.find(path + ":2:21: architectures[0]: \"JambaForCausalLM\" is a mixture of experts whose "
                             "attention or layers Preflight does not model (attention clipping, Mamba layers"),
            std::string::npos)
      << jamba;
  const std::string topk =
      ConfigRefusal(path, "{\n  \"architectures\": [\"MixtralForCausalLM\"],\n  \"hidden_size\": 4096,\n"
                          "  \"num_hidden_layers\": 32,\n  \"num_attention_heads\": 32,\n  \"intermediate_size\": 14336,\n"
                          "  \"vocab_size\": 32000,\n  \"max_position_embeddings\": 32768,\n  \"num_local_experts\": 8,\n"
                          "  \"num_experts_per_tok\": 9\n}\n");
  EXPECT_NE(topk.find(path + ":10:26: num_experts_per_tok: 9 exceeds the 8 experts (num_local_experts)"),
            std::string::npos)
      << topk;
  // GPT-OSS's layer_types: one entry a layer, each of the two kinds.
  const std::string oss = "{\n  \"architectures\": [\"GptOssForCausalLM\"],\n  \"hidden_size\": 2880,\n"
                          "  \"num_hidden_layers\": 2,\n  \"num_attention_heads\": 64,\n  \"head_dim\": 64,\n"
                          "  \"num_key_value_heads\": 8,\n  \"intermediate_size\": 2880,\n  \"vocab_size\": 201088,\n"
                          "  \"max_position_embeddings\": 131072,\n  \"num_local_experts\": 32,\n"
                          "  \"num_experts_per_tok\": 4,\n  \"sliding_window\": 128,\n";
  const std::string count = ConfigRefusal(path, oss + "  \"layer_types\": [\"sliding_attention\"]\n}\n");
  EXPECT_NE(count.find(path + ":14:18: layer_types: lists 1 layers, not num_hidden_layers (2)"), std::string::npos)
      << count;
  const std::string kind =
      ConfigRefusal(path, oss + "  \"layer_types\": [\"sliding_attention\", \"chunked_attention\"]\n}\n");
  EXPECT_NE(kind.find(path + ":14:40: layer_types[1]: \"chunked_attention\" is not accepted (accepted: "
                      "sliding_attention, full_attention)"),
            std::string::npos)
      << kind;
  // GPT-OSS's clamp limit must be one.
  const std::string limit = ConfigRefusal(path, oss + "  \"swiglu_limit\": -1\n}\n");
  EXPECT_NE(limit.find(path + ":14:19: swiglu_limit: -1 is not a clamp limit (accepted: above 0, below 1e6)"),
            std::string::npos)
      << limit;
  // A hidden dropout (ChatGLM's hidden_dropout) must be a probability.
  const std::string dropout = ConfigRefusal(path, oss + "  \"hidden_dropout\": 1.5\n}\n");
  EXPECT_NE(dropout.find(path + ":14:21: hidden_dropout: 1.5 is not a dropout probability (accepted: at least 0, below 1)"),
            std::string::npos)
      << dropout;
  // Every layer dense: the window is dropped rather than printed unused.
  std::ofstream(path) << oss << "  \"layer_types\": [\"full_attention\", \"full_attention\"]\n}\n";
  const ModelSpec dense = WithModel(path).model;
  EXPECT_EQ(dense.window, 0);
  EXPECT_DOUBLE_EQ(dense.window_share, 1);
  // DeepSeek's expert groups: a divisor of the experts, and enough of them
  // for a token's experts.
  const std::string ds = "{\n  \"architectures\": [\"DeepseekV3ForCausalLM\"],\n  \"hidden_size\": 1024,\n"
                         "  \"num_hidden_layers\": 4,\n  \"num_attention_heads\": 8,\n  \"intermediate_size\": 4096,\n"
                         "  \"vocab_size\": 32000,\n  \"max_position_embeddings\": 4096,\n  \"n_routed_experts\": 32,\n"
                         "  \"num_experts_per_tok\": 8,\n  \"moe_intermediate_size\": 512,\n  \"kv_lora_rank\": 128,\n"
                         "  \"qk_nope_head_dim\": 64,\n  \"qk_rope_head_dim\": 32,\n  \"v_head_dim\": 64,\n";
  const std::string groups = ConfigRefusal(path, ds + "  \"n_group\": 3,\n  \"topk_group\": 1\n}\n");
  EXPECT_NE(groups.find(path + ":16:14: n_group: 3 groups do not divide the 32 experts (accepted: a divisor of 32)"),
            std::string::npos)
      << groups;
  const std::string half = ConfigRefusal(path, ds + "  \"n_group\": 8,\n  \"topk_group\": null\n}\n");
  EXPECT_NE(half.find(path + ":17:17: topk_group:"), std::string::npos) << half;
  std::ofstream(path) << ds << "  \"n_group\": 8,\n  \"topk_group\": 2,\n  \"topk_method\": \"greedy\"\n}\n";
  EXPECT_FALSE(WithModel(path).model.moe.group_limited());  // transformers' greedy top-k ignores the groups
  const std::string few = ConfigRefusal(path, ds + "  \"n_group\": 8,\n  \"topk_group\": 1\n}\n");
  EXPECT_NE(few.find(path + ":17:17: topk_group: 1 of 8 groups of 4 experts each hold 4, fewer than the 8 experts a "
                            "token is routed to (accepted: at least 2)"),
            std::string::npos)
      << few;
  std::ofstream(path) << "{\n  \"architectures\": [\"GPT2LMHeadModel\"]\n}\n";
  const std::string arch = Refusal({"model={hf_config: " + path + "}"});
  EXPECT_NE(arch.find(path + ":2:21: architectures[0]: \"GPT2LMHeadModel\" is not a supported architecture"),
            std::string::npos)
      << arch;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace pf

// Hugging Face configs (model: {hf_config: ...}): every bundled config.json
// loads and gives its model's published parameter count within 0.5%, a
// mixture of experts and an unknown architecture are refused naming the
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
};

Scenario WithModel(const std::string& model) {
  // A layout every bundled model splits over: one GPU's worth of TP.
  return LoadScenario(kScenario, {"model={hf_config: " + model + "}", "parallel.tp=1", "parallel.dp=8",
                                  "training.global_batch=64"});
}

std::string Refusal(const std::vector<std::string>& overrides) {
  try {
    LoadScenario(kScenario, overrides);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(HfConfig, EveryBundledConfigGivesItsPublishedParameterCount) {
  int checked = 0;
  for (const std::string& name : BundledHfConfigs()) {
    if (name.find("mixtral") != std::string::npos) continue;  // refused below
    ASSERT_TRUE(kPublished.count(name)) << name << " has no published count in this test";
    const ModelSpec m = WithModel(name).model;
    const double params = CountParams(m).total(m.layers);
    EXPECT_NEAR(params / kPublished.at(name), 1, 0.005) << name << ": " << params;
    ++checked;
  }
  EXPECT_GE(checked, 22);
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
}

TEST(HfConfig, BadConfigsAreRefused) {
  EXPECT_NE(Refusal({"model={hf_config: mixtral-8x7b-v0.1}"})
                .find("mixtral-8x7b-v0.1.json:3:5: architectures[0]: \"MixtralForCausalLM\" is a mixture of experts"),
            std::string::npos);
  EXPECT_NE(Refusal({"model={hf_config: llama-2-7}"}).find("(did you mean 'llama-2-7b'?)"), std::string::npos);
  // A config of our own: missing a field, an unknown architecture.
  const std::string path = testing_util::UniqueTempPath("hf", ".json");
  std::ofstream(path) << "{\n  \"architectures\": [\"LlamaForCausalLM\"],\n  \"hidden_size\": 4096,\n"
                         "  \"num_attention_heads\": 32,\n  \"intermediate_size\": 11008,\n  \"vocab_size\": 32000,\n"
                         "  \"max_position_embeddings\": 4096\n}\n";
  const std::string missing = Refusal({"model={hf_config: " + path + "}"});
  EXPECT_NE(missing.find(path + ":1:1: missing required key 'num_hidden_layers'"), std::string::npos) << missing;
  std::ofstream(path) << "{\n  \"architectures\": [\"GPT2LMHeadModel\"]\n}\n";
  const std::string arch = Refusal({"model={hf_config: " + path + "}"});
  EXPECT_NE(arch.find(path + ":2:21: architectures[0]: \"GPT2LMHeadModel\" is not a supported architecture"),
            std::string::npos)
      << arch;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace pf

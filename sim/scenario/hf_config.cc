#include "sim/scenario/hf_config.h"

#include <algorithm>
#include <filesystem>

#include "sim/scenario/catalog.h"
#include "sim/scenario/spec_parsers.h"

namespace pf {
namespace {

namespace fs = std::filesystem;

enum class Family { kLlama, kBaichuan, kChatGlm, kMixtral, kQwen2Moe, kQwen3Moe, kDeepseek, kGptOss };

// Causal LMs whose layers are Llama's: pre-norm RMSNorm, rotary positions,
// grouped-query attention, a SwiGLU MLP (Yi and DeepSeek-LLM publish
// LlamaForCausalLM configs).
const std::vector<std::string> kLlamaLike = {"LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM"};
const std::vector<std::string> kBaichuan = {"BaichuanForCausalLM"};
const std::vector<std::string> kChatGlm = {"ChatGLMModel", "ChatGLMForConditionalGeneration"};
// Mixtures of experts on Llama's layers (spec.h MoeSpec): Mixtral's
// num_local_experts of intermediate_size; Qwen-MoE's num_experts of
// moe_intermediate_size and one shared expert of
// shared_expert_intermediate_size.
const std::vector<std::string> kMixtral = {"MixtralForCausalLM"};
const std::vector<std::string> kQwen2Moe = {"Qwen2MoeForCausalLM"};
// Qwen3's: Qwen-MoE's fields without the shared expert, with a head_dim of
// its own (and RMSNorms on q and k, whose cost is negligible).
const std::vector<std::string> kQwen3Moe = {"Qwen3MoeForCausalLM"};
// DeepSeek-V2/V3: multi-head latent attention and DeepSeekMoE (shared
// experts of moe_intermediate_size, the first first_k_dense_replace layers
// dense of intermediate_size), and the group-limited routing of n_group
// and topk_group. V3's multi-token-prediction module is not modelled.
const std::vector<std::string> kDeepseek = {"DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM"};
// GPT-OSS: Mixtral's fields (num_local_experts of intermediate_size) with a
// head_dim of its own and layer_types alternating banded ("sliding_
// attention", sliding_window wide) and dense layers. Its attention sinks
// (one logit a head) and the biases of its projections and experts
// (0.03% of the 120B's parameters) are left out; its clamped SwiGLU costs
// a SwiGLU (openai/gpt-oss-120b config.json; model card, arXiv 2508.10925,
// Sec. 2.1).
const std::vector<std::string> kGptOss = {"GptOssForCausalLM"};
// Mixtures of experts whose attention or layers Preflight does not model:
// DBRX's clipped fused QKV, Jamba's Mamba layers.
const std::vector<std::string> kMoe = {"DbrxForCausalLM", "JambaForCausalLM"};

bool In(const std::vector<std::string>& names, const std::string& x) {
  return std::find(names.begin(), names.end(), x) != names.end();
}

Family FamilyOf(const YamlView& config) {
  if (!config.Has("architectures"))
    config.Fail("missing required key 'architectures': not a Hugging Face causal-LM config.json");
  const std::vector<YamlView> items = config.Get("architectures").Items(8);
  if (items.empty()) config.Get("architectures").Fail("is empty: name the model class (e.g. LlamaForCausalLM)");
  const YamlView& a = items.front();
  const std::string arch = a.Name(128);
  if (In(kLlamaLike, arch)) return Family::kLlama;
  if (In(kBaichuan, arch)) return Family::kBaichuan;
  if (In(kChatGlm, arch)) return Family::kChatGlm;
  if (In(kMixtral, arch)) return Family::kMixtral;
  if (In(kQwen2Moe, arch)) return Family::kQwen2Moe;
  if (In(kQwen3Moe, arch)) return Family::kQwen3Moe;
  if (In(kDeepseek, arch)) return Family::kDeepseek;
  if (In(kGptOss, arch)) return Family::kGptOss;
  std::vector<std::string> all = kLlamaLike;
  for (const auto* more : {&kBaichuan, &kChatGlm, &kMixtral, &kQwen2Moe, &kQwen3Moe, &kDeepseek, &kGptOss})
    all.insert(all.end(), more->begin(), more->end());
  if (In(kMoe, arch))
    a.Fail("\"" + arch + "\" is a mixture of experts whose attention or layers Preflight does not model "
           "(attention clipping, Mamba layers; supported: " +
           [&] {
             std::string s;
             for (const auto& x : all) s += (s.empty() ? "" : ", ") + x;
             return s;
           }() +
           ")");
  a.Fail("\"" + Shown(arch) + "\" is not a supported architecture" + SuggestionSuffix(arch.substr(0, 64), all));
}

int IntField(const YamlView& c, const char* key, long long max) { return static_cast<int>(c.Get(key).Int(1, max)); }

// num_experts_per_tok, at most the `experts` that `experts_key` gives.
int TopK(const YamlView& c, int experts, const std::string& experts_key) {
  const int k = IntField(c, "num_experts_per_tok", 1 << 12);
  if (k > experts)
    c.Get("num_experts_per_tok").Fail(std::to_string(k) + " exceeds the " + std::to_string(experts) + " experts (" +
                                      experts_key + ")");
  return k;
}

void ParseHfDeepseek(const YamlView& c, ModelSpec& m) {
  MoeSpec& x = m.moe;
  x.experts = IntField(c, "n_routed_experts", 1 << 12);
  x.top_k = TopK(c, x.experts, "n_routed_experts");
  x.expert_ffn = IntField(c, "moe_intermediate_size", 1 << 22);
  x.shared_experts = c.Has("n_shared_experts") ? static_cast<int>(c.Get("n_shared_experts").Int(0, 1 << 8)) : 0;
  x.shared_ffn = x.expert_ffn;
  x.dense_layers = c.Has("first_k_dense_replace")
                       ? static_cast<int>(c.Get("first_k_dense_replace").Int(0, m.layers - 1)) : 0;
  // Group-limited routing, unless the config's router ignores the groups
  // (transformers' DeepSeek-V2 "greedy" top-k; V2-Lite's n_group is 1
  // anyway). Either key given asks for both.
  auto given = [&](const char* key) { return c.Has(key) && c.Get(key).IsScalar(); };
  const bool greedy = given("topk_method") && c.Get("topk_method").Str() == "greedy";
  if (!greedy && (given("n_group") || given("topk_group"))) ParseExpertGroups(c, "n_group", "topk_group", x);
  if (c.Has("moe_layer_freq") && c.Get("moe_layer_freq").Int(1, 1 << 14) != 1)
    c.Get("moe_layer_freq").Fail("is not 1: dense layers between the sparse ones are not modelled (accepted: 1)");
  MlaSpec& a = m.mla;
  a.q_lora = c.Has("q_lora_rank") && c.Get("q_lora_rank").IsScalar() ? IntField(c, "q_lora_rank", 1 << 16) : 0;
  a.kv_lora = IntField(c, "kv_lora_rank", 1 << 16);
  a.qk_nope = IntField(c, "qk_nope_head_dim", 1 << 12);
  a.qk_rope = IntField(c, "qk_rope_head_dim", 1 << 12);
  a.v = IntField(c, "v_head_dim", 1 << 12);
}

// The share of layers whose layer_types entry is "sliding_attention" (the
// others "full_attention"), one entry a layer; 0 banded layers leave none.
double WindowShare(const YamlView& c, int layers) {
  const YamlView types = c.Get("layer_types");
  const std::vector<YamlView> items = types.Items(1 << 14);
  if (int(items.size()) != layers)
    types.Fail("lists " + std::to_string(items.size()) + " layers, not num_hidden_layers (" + std::to_string(layers) +
               ")");
  int banded = 0;
  for (const YamlView& t : items)
    if (t.Choice({"sliding_attention", "full_attention"}) == "sliding_attention") ++banded;
  return double(banded) / layers;
}

// Every layer sparse: Qwen-MoE's decoder_sparse_step 1 and no mlp_only_layers.
MoeSpec ParseHfMoe(const YamlView& c, bool qwen, const ModelSpec& m) {
  MoeSpec x;
  x.experts = IntField(c, qwen ? "num_experts" : "num_local_experts", 1 << 12);
  x.top_k = TopK(c, x.experts, qwen ? "num_experts" : "num_local_experts");
  x.expert_ffn = qwen ? IntField(c, "moe_intermediate_size", 1 << 22) : m.ffn;
  if (qwen && c.Has("shared_expert_intermediate_size")) {
    x.shared_experts = 1;
    x.shared_ffn = IntField(c, "shared_expert_intermediate_size", 1 << 22);
  }
  if (qwen && c.Has("decoder_sparse_step") && c.Get("decoder_sparse_step").Int(1, 1 << 14) != 1)
    c.Get("decoder_sparse_step").Fail("is not 1: dense layers between the sparse ones are not modelled (accepted: 1)");
  if (qwen && c.Has("mlp_only_layers") && !c.Get("mlp_only_layers").Items(1 << 14).empty())
    c.Get("mlp_only_layers").Fail("lists dense layers, which are not modelled in a mixture of experts (accepted: [])");
  return x;
}

}  // namespace

std::vector<std::string> BundledHfConfigs() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(DataDir() + "/models/hf", ec))
    if (e.is_regular_file(ec) && !e.is_symlink(ec) && e.path().extension() == ".json")
      out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

ModelSpec ParseHfConfig(const YamlView& c, const std::string& name) {
  const Family family = FamilyOf(c);
  ModelSpec m;
  m.name = name;
  m.ffn_kind = FfnKind::kSwiglu;
  m.layernorm = false;  // RMSNorm
  m.position = Position::kRope;
  // The same bounds as a model file (spec_parsers.cc ParseModel).
  if (family == Family::kChatGlm) {
    m.layers = IntField(c, "num_layers", 1 << 14);
    m.hidden = IntField(c, "hidden_size", 1 << 20);
    m.heads = IntField(c, "num_attention_heads", 1 << 16);
    const bool mqa = c.Has("multi_query_attention") && c.Get("multi_query_attention").Bool();
    m.kv_heads = mqa ? IntField(c, "multi_query_group_num", m.heads) : m.heads;
    m.ffn = IntField(c, "ffn_hidden_size", 1 << 22);
    m.vocab = IntField(c, "padded_vocab_size", 1 << 24);
    m.max_seq = IntField(c, "seq_length", 1 << 24);
    if (c.Has("rmsnorm") && !c.Get("rmsnorm").Bool()) m.layernorm = true;
  } else {
    m.layers = IntField(c, "num_hidden_layers", 1 << 14);
    m.hidden = IntField(c, "hidden_size", 1 << 20);
    m.heads = IntField(c, "num_attention_heads", 1 << 16);
    m.kv_heads = c.Has("num_key_value_heads") ? IntField(c, "num_key_value_heads", m.heads) : m.heads;
    m.ffn = IntField(c, "intermediate_size", 1 << 22);
    m.vocab = IntField(c, "vocab_size", 1 << 24);
    if (c.Has("hidden_act")) c.Get("hidden_act").Choice({"silu", "swiglu"});  // a gated SiLU MLP
    // Baichuan2-13B's config states no positions: its modelling code uses
    // ALiBi (Baichuan2 technical report, Sec. 2.4); the 7B states rotary's
    // max_position_embeddings.
    if (family == Family::kBaichuan && !c.Has("max_position_embeddings")) {
      m.position = Position::kAlibi;
      m.max_seq = IntField(c, "model_max_length", 1 << 24);
    } else {
      m.max_seq = IntField(c, "max_position_embeddings", 1 << 24);
    }
  }
  m.tied_embeddings = c.Has("tie_word_embeddings") && c.Get("tie_word_embeddings").Bool();
  if (family == Family::kMixtral || family == Family::kQwen2Moe || family == Family::kQwen3Moe ||
      family == Family::kGptOss)
    m.moe = ParseHfMoe(c, family == Family::kQwen2Moe || family == Family::kQwen3Moe, m);
  if (family == Family::kDeepseek) ParseHfDeepseek(c, m);
  // GPT-OSS clamps its gated MLP's halves (transformers GptOssConfig:
  // swiglu_limit = 7.0 when the file does not say).
  if (family == Family::kGptOss) {
    m.glu_clamp = c.Has("swiglu_limit") ? c.Get("swiglu_limit").Number() : 7.0;
    if (!(m.glu_clamp > 0 && m.glu_clamp < 1e6))
      c.Get("swiglu_limit").Fail(c.Get("swiglu_limit").Str() + " is not a clamp limit (accepted: above 0, below 1e6)");
  }
  // The hidden dropout where the file gives one (ChatGLM's hidden_dropout;
  // the other families' configs state attention dropout only, 0).
  if (c.Has("hidden_dropout") && c.Get("hidden_dropout").IsScalar()) {
    m.dropout = c.Get("hidden_dropout").Number();
    if (!(m.dropout >= 0 && m.dropout < 1))
      c.Get("hidden_dropout").Fail(c.Get("hidden_dropout").Str() + " is not a dropout probability (accepted: at least 0, below 1)");
  }
  if (family != Family::kChatGlm && c.Has("head_dim") && c.Get("head_dim").IsScalar()) {
    const int d = IntField(c, "head_dim", 1 << 12);
    if (d * m.heads != m.hidden) m.head_size = d;
  }
  // Sliding-window attention: Mistral's sliding_window; Qwen's only with
  // use_sliding_window true.
  if (family != Family::kChatGlm && c.Has("sliding_window") && c.Get("sliding_window").IsScalar() &&
      (!c.Has("use_sliding_window") || c.Get("use_sliding_window").Bool()))
    m.window = IntField(c, "sliding_window", 1 << 24);
  if (m.window > 0 && c.Has("layer_types")) {
    const double share = WindowShare(c, m.layers);
    if (share > 0)
      m.window_share = share;
    else
      m.window = 0;  // every layer dense: no window to print
  }
  if (m.head_size == 0 && m.hidden % m.heads != 0)
    c.Get("num_attention_heads").Fail(std::to_string(m.heads) + " does not divide hidden_size (" + std::to_string(m.hidden) + ")");
  if (m.heads % m.kv_heads != 0)
    c.Find(family == Family::kChatGlm ? "multi_query_group_num" : "num_key_value_heads")
        .Fail(std::to_string(m.kv_heads) + " does not divide num_attention_heads (" + std::to_string(m.heads) + ")");
  return m;
}

ModelSpec ResolveHfModel(const YamlView& v) {
  v.ExpectKeys({"hf_config", "name"});
  YamlView at = v.Get("hf_config");
  const std::string given = at.Name(4096);
  std::string path;
  const std::vector<std::string> bundled = BundledHfConfigs();
  if (std::find(bundled.begin(), bundled.end(), given) != bundled.end()) {
    path = DataDir() + "/models/hf/" + given + ".json";
  } else {
    fs::path p(given);
    // Relative to the scenario file's folder (from --set: the working directory).
    const Location where = at.location();
    if (p.is_relative() && where.file.rfind("--set", 0) != 0) p = fs::path(where.file).parent_path() / p;
    std::error_code ec;
    if (!fs::is_regular_file(p, ec))
      at.Fail("\"" + Shown(given) + "\" is neither a bundled config" + SuggestionSuffix(given.substr(0, 64), bundled) +
              " nor a config.json file (" + p.string() + ")");
    path = p.string();
  }
  auto src = std::make_shared<YamlSource>(YamlSource{path, {}, {}});
  const std::string name = v.Has("name") ? v.Get("name").Name() : fs::path(path).stem().string();
  return ParseHfConfig(YamlView(LoadYamlFile(path), "", src), name);
}

}  // namespace pf

#include "sim/scenario_loader.h"

#include <filesystem>
#include <limits>

#include "sim/catalog.h"
#include "sim/spec_parsers.h"
#include "sim/yaml_view.h"

namespace pf {
namespace {

constexpr long long kMaxInt = std::numeric_limits<int>::max();

// Applies one "a.b.c=value" override to `root`, creating mappings on the way.
void ApplyOverride(YAML::Node root, const std::string& flag, YamlSource& source) {
  const std::string where = "--set " + flag;
  size_t eq = flag.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError({where}, "", "expected KEY=VALUE, e.g. --set parallel.tp=4");
  std::string key = flag.substr(0, eq), value = flag.substr(eq + 1);
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t dot = key.find('.', start);
    parts.push_back(key.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  YAML::Node value_node;
  try {
    value_node = YAML::Load(value);
  } catch (const YAML::Exception& e) {
    throw InputError({where}, key, "malformed value: " + e.msg);
  }
  // yaml-cpp nodes are handles: walk with fresh handles, never reassign one.
  std::vector<YAML::Node> chain{root};
  std::string path;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    path += (i ? "." : "") + parts[i];
    YAML::Node next = chain.back()[parts[i]];
    if (next && !next.IsMap())
      throw InputError({where}, path,
                       "\"" + (next.IsScalar() ? next.Scalar() : std::string("a list")) +
                           "\" is not a mapping; set it as a whole or write it inline");
    chain.push_back(next);
  }
  chain.back()[parts.back()] = value_node;
  source.overrides[key] = where;
}

// An inline mapping, or the name of a bundled catalog file parsed with
// `parse` (errors inside it point at that file).
template <class Spec>
Spec Resolve(const YamlView& v, const char* what, std::string (*path_of)(const std::string&),
             std::vector<std::string> (*bundled)(),
             Spec (*parse)(const YamlView&, const std::string&)) {
  if (v.IsMap()) return parse(v, std::string("inline ") + what);
  std::string name = v.Str();
  const std::string path = path_of(name);
  if (!std::filesystem::exists(path))
    v.Fail("unknown " + std::string(what) + " \"" + name + "\"" + SuggestionSuffix(name, bundled()));
  auto src = std::make_shared<YamlSource>(YamlSource{path, {}});
  return parse(YamlView(LoadYamlFile(path), "", src), name);
}

ModelSpec ResolveModel(const YamlView& v) {
  return Resolve<ModelSpec>(v, "model", ModelPath, BundledModels, ParseModel);
}

NodeSpec ResolveNode(const YamlView& v) {
  return Resolve<NodeSpec>(v, "node topology", NodePath, BundledNodes, ParseNode);
}

ClusterSpec ParseCluster(const YamlView& v) {
  v.ExpectKeys({"node", "nodes", "gpus_per_node"});
  ClusterSpec c;
  c.node = ResolveNode(v.Get("node"));
  c.nodes = v.Get("nodes").Int(1, 1 << 20);
  if (v.Has("gpus_per_node"))  // fewer GPUs of the same box, never more
    c.node.gpus_per_node = v.Get("gpus_per_node").Int(1, c.node.gpus_per_node);
  return c;
}

TrainingSpec ParseTraining(const YamlView& v) {
  v.ExpectKeys({"method", "precision", "seq_len", "micro_batch", "global_batch", "recompute",
                "attention", "tokens", "lora_rank"});
  TrainingSpec t;
  std::string method = v.Get("method").Choice({"full", "lora", "qlora"});
  t.method = method == "full" ? Method::kFull : method == "lora" ? Method::kLora : Method::kQlora;
  std::string prec = v.Get("precision").Choice({"bf16", "fp16", "fp8"});
  t.precision = prec == "bf16" ? Precision::kBf16 : prec == "fp16" ? Precision::kFp16
                                                                  : Precision::kFp8;
  t.seq_len = v.Get("seq_len").Int(1, kMaxInt);
  t.micro_batch = v.Get("micro_batch").Int(1, kMaxInt);
  t.global_batch = v.Get("global_batch").Int(1, kMaxInt);
  if (v.Has("recompute")) {
    std::string r = v.Get("recompute").Choice({"none", "selective", "full"});
    t.recompute = r == "none" ? Recompute::kNone : r == "selective" ? Recompute::kSelective
                                                                    : Recompute::kFull;
  }
  if (v.Has("attention"))
    t.attention = v.Get("attention").Choice({"flash", "unfused"}) == "flash" ? Attention::kFlash
                                                                              : Attention::kUnfused;
  t.tokens = v.Get("tokens").Quantity(Dimension::kCount);
  if (v.Has("lora_rank")) t.lora_rank = v.Get("lora_rank").Int(1, 65536);
  return t;
}

PriceSpec ParsePrice(const YamlView& v) {
  v.ExpectKeys({"per_gpu_hour", "per_node_hour", "source"});
  PriceSpec p;
  if (v.Has("per_gpu_hour")) p.per_gpu_hour = v.Get("per_gpu_hour").AsUsd();
  if (v.Has("per_node_hour")) p.per_node_hour = v.Get("per_node_hour").AsUsd();
  if (p.per_gpu_hour && p.per_node_hour)
    v.Get("per_node_hour").Fail("give per_gpu_hour or per_node_hour, not both");
  if (!p.per_gpu_hour && !p.per_node_hour) v.Fail("needs per_gpu_hour or per_node_hour");
  return p;
}

std::string Str(long long x) { return std::to_string(x); }

// Cross-field checks: the layout must divide the model and the GPUs.
void Validate(Scenario& s, const YamlView& root) {
  const ModelSpec& m = s.model;
  ParallelSpec& p = s.parallel;
  YamlView par = root.Get("parallel");
  const int gpus = s.cluster.gpus();
  // SimGrid's platform build grows with the zones: 18 s at 16,384 GPUs
  // (shared/SIMGRID_NOTES.md); larger clusters need a grouped model first.
  constexpr int kMaxGpus = 16384;
  if (gpus > kMaxGpus)
    root.Get("cluster").Get("nodes").Fail(Str(s.cluster.nodes) + " nodes x " +
                                          Str(s.cluster.node.gpus_per_node) + " GPUs = " + Str(gpus) +
                                          " GPUs; Preflight simulates up to " + Str(kMaxGpus));
  if (m.heads % p.tp != 0)
    par.Get("tp").Fail(Str(p.tp) + " does not divide attention heads (" + Str(m.heads) + ")");
  if (p.tp % m.kv_heads != 0 && m.kv_heads % p.tp != 0)
    par.Get("tp").Fail(Str(p.tp) + " and the KV heads (" + Str(m.kv_heads) +
                       ") must divide one another");
  if (m.layers % p.pp != 0)
    par.Get("pp").Fail(Str(p.pp) + " does not divide the layers (" + Str(m.layers) + ")");
  if (p.vp > 1 && p.pp == 1)
    par.Get("vp").Fail(Str(p.vp) + " model chunks need pipeline parallelism (pp = 1)");
  if (m.layers % (p.pp * p.vp) != 0)
    par.Get("vp").Fail("pp x vp = " + Str(p.pp) + " x " + Str(p.vp) + " = " + Str(p.pp * p.vp) +
                       " does not divide the layers (" + Str(m.layers) + ")");
  if (!par.Has("dp")) {
    if (gpus % (p.tp * p.pp) != 0)
      par.Fail("tp x pp = " + Str(p.tp * p.pp) + " does not divide the " + Str(gpus) + " GPUs");
    p.dp = gpus / (p.tp * p.pp);
  } else if (p.tp * p.pp * p.dp != gpus) {
    par.Get("dp").Fail("tp x pp x dp = " + Str(p.tp) + " x " + Str(p.pp) + " x " + Str(p.dp) +
                       " = " + Str(p.tp * p.pp * p.dp) + ", but the cluster has " + Str(gpus) +
                       " GPUs (" + Str(s.cluster.nodes) + " nodes x " +
                       Str(s.cluster.node.gpus_per_node) + ")");
  }
  if (p.zero >= 2 && p.pp > 1)
    par.Get("zero").Fail("ZeRO stage " + Str(p.zero) +
                         " shards gradients across micro-batches and cannot be combined with "
                         "pipeline parallelism (pp = " + Str(p.pp) + "); use zero: 0 or 1");
  if (p.zero >= 2 && !p.dp_overlap)
    par.Get("dp_overlap").Fail("false cannot be combined with ZeRO stage " + Str(p.zero) +
                               ", which reduces gradients during every backward");
  YamlView tr = root.Get("training");
  const TrainingSpec& t = s.training;
  if (t.global_batch % (t.micro_batch * p.dp) != 0)
    tr.Get("global_batch").Fail(Str(t.global_batch) + " is not a multiple of micro_batch x dp = " +
                                Str(t.micro_batch) + " x " + Str(p.dp) + " = " +
                                Str(t.micro_batch * p.dp));
  if (p.vp > 1 && t.micro_batches_per_step(p.dp) % p.pp != 0)
    par.Get("vp").Fail("the interleaved schedule needs micro-batches per step (" +
                       Str(t.micro_batches_per_step(p.dp)) + ") to be a multiple of pp (" +
                       Str(p.pp) + ")");
  if (m.position == Position::kLearned && t.seq_len > m.max_seq)
    tr.Get("seq_len").Fail(Str(t.seq_len) + " exceeds the model's learned position table (" +
                           Str(m.max_seq) + ")");
  const GpuSpec& g = s.cluster.node.gpu;
  FlopsPerSecond peak = t.precision == Precision::kBf16 ? g.peak_bf16
                        : t.precision == Precision::kFp16 ? g.peak_fp16 : g.peak_fp8;
  if (peak.value() <= 0)
    tr.Get("precision").Fail("\"" + std::string(ToString(t.precision)) + "\" has no tensor-core " +
                             "rate on " + g.name + " (see topologies/gpus.yaml)");
}

}  // namespace

Scenario LoadScenario(const std::string& path, const std::vector<std::string>& overrides) {
  auto source = std::make_shared<YamlSource>(YamlSource{path, {}});
  YAML::Node doc = LoadYamlFile(path);
  if (!doc.IsMap()) throw InputError({path}, "", "expected a mapping of scenario keys");
  for (const auto& o : overrides) ApplyOverride(doc, o, *source);
  YamlView root(doc, "", source);
  root.ExpectKeys({"name", "description", "model", "cluster", "parallel", "training", "price"});
  Scenario s;
  s.file = path;
  s.name = root.Has("name") ? root.Get("name").Str()
                            : std::filesystem::path(path).stem().string();
  s.model = ResolveModel(root.Get("model"));
  s.cluster = ParseCluster(root.Get("cluster"));
  YamlView par = root.Get("parallel");
  par.ExpectKeys({"tp", "pp", "vp", "dp", "zero", "dp_overlap"});
  s.parallel.tp = par.Has("tp") ? par.Get("tp").Int(1, 1 << 16) : 1;
  s.parallel.pp = par.Has("pp") ? par.Get("pp").Int(1, 1 << 16) : 1;
  s.parallel.vp = par.Has("vp") ? par.Get("vp").Int(1, 1 << 10) : 1;
  if (par.Has("dp")) s.parallel.dp = par.Get("dp").Int(1, 1 << 24);
  s.parallel.zero = par.Has("zero") ? par.Get("zero").Int(0, 3) : 0;
  if (par.Has("dp_overlap")) s.parallel.dp_overlap = par.Get("dp_overlap").Bool();
  s.training = ParseTraining(root.Get("training"));
  if (root.Has("price")) s.price = ParsePrice(root.Get("price"));
  Validate(s, root);
  return s;
}

const char* ToString(Method m) {
  return m == Method::kFull ? "full" : m == Method::kLora ? "lora" : "qlora";
}
const char* ToString(Precision p) {
  return p == Precision::kBf16 ? "bf16" : p == Precision::kFp16 ? "fp16" : "fp8";
}
const char* ToString(Recompute r) {
  return r == Recompute::kNone ? "none" : r == Recompute::kSelective ? "selective" : "full";
}

}  // namespace pf

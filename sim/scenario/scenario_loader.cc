#include "sim/scenario/scenario_loader.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <regex>

#include "sim/model/data_costs.h"
#include "sim/base/io.h"
#include "sim/scenario/catalog.h"
#include "sim/scenario/hf_config.h"
#include "sim/scenario/job_parser.h"
#include "sim/scenario/offers.h"
#include "sim/scenario/checkpoint_parser.h"
#include "sim/scenario/data_parser.h"
#include "sim/scenario/fabric_parser.h"
#include "sim/scenario/storage_parser.h"
#include "sim/scenario/overrides.h"
#include "sim/spec/validate.h"
#include "sim/scenario/spec_parsers.h"
#include "sim/scenario/yaml_view.h"

namespace pf {
namespace {

// An inline mapping, or the name of a bundled catalog file parsed with
// `parse` (errors inside it point at that file). A name resolves only to
// one of `bundled()` (regular files listed in the data folder), so no name
// can reach a file elsewhere.
template <class Spec>
Spec Resolve(const YamlView& v, const char* what, std::string (*path_of)(const std::string&),
             std::vector<std::string> (*bundled)(),
             Spec (*parse)(const YamlView&, const std::string&)) {
  if (v.IsMap()) return parse(v, std::string("inline ") + what);
  const std::string name = v.Name();
  const std::vector<std::string> names = bundled();
  if (std::find(names.begin(), names.end(), name) == names.end())
    v.Fail("unknown " + std::string(what) + " \"" + Shown(name) + "\"" +
           SuggestionSuffix(name.substr(0, 64), names) + "; write a custom one inline as a mapping");
  const std::string path = path_of(name);
  auto src = std::make_shared<YamlSource>(YamlSource{path, {}, {}});
  return parse(YamlView(LoadYamlFile(path), "", src), name);
}

ModelSpec ResolveModel(const YamlView& v) {
  if (v.IsMap() && v.Has("hf_config")) return ResolveHfModel(v);
  return Resolve<ModelSpec>(v, "model", ModelPath, BundledModels, ParseModel);
}

NodeSpec ResolveNode(const YamlView& v) {
  return Resolve<NodeSpec>(v, "node topology", NodePath, BundledNodes, ParseNode);
}

ClusterSpec ParseCluster(const YamlView& v);
void GraftBundledNode(YAML::Node doc, const std::vector<std::string>& overrides, YamlSource& source,
                      const std::string& at);

// A catalog document named on the command line: the path of a bundled
// entry (`names`, `path_of`) or of a YAML file, read as a mapping with
// `overrides` applied (`before_each` runs before each, e.g. a graft).
struct NamedDocument {
  std::string path;
  YAML::Node doc;
  std::shared_ptr<YamlSource> source;
};
NamedDocument LoadNamedDocument(const std::string& name_or_path, const std::string& flag, const char* what,
                                const std::vector<std::string>& names, std::string (*path_of)(const std::string&),
                                const std::vector<std::string>& overrides,
                                const std::function<void(NamedDocument&, const std::string&)>& before_each) {
  const bool bundled = std::find(names.begin(), names.end(), name_or_path) != names.end();
  std::error_code ec;
  if (!bundled && !std::filesystem::is_regular_file(name_or_path, ec))
    throw InputError(Location{flag, 0, 0}, "",
                     "\"" + Shown(name_or_path) + "\" is neither a bundled " + what +
                         SuggestionSuffix(name_or_path.substr(0, 64), names) + " nor a YAML file");
  NamedDocument d;
  d.path = bundled ? path_of(name_or_path) : name_or_path;
  d.source = std::make_shared<YamlSource>(YamlSource{d.path, {}, {}});
  d.doc = LoadYamlFile(d.path);
  if (!d.doc.IsMap()) throw InputError(Location{d.path, 0, 0}, "", std::string("expected a mapping of ") + what + " keys");
  for (const auto& o : overrides) {
    if (before_each) before_each(d, o);
    ApplyOverride(d.doc, o, *d.source);
  }
  return d;
}

}  // namespace

NodeSpec LoadNode(const std::string& name_or_path, const std::string& flag,
                  const std::vector<std::string>& overrides) {
  NamedDocument d = LoadNamedDocument(name_or_path, flag, "node topology", BundledNodes(), NodePath, overrides, {});
  return ParseNode(YamlView(d.doc, "", d.source), std::filesystem::path(d.path).stem().string());
}

ClusterSpec LoadCluster(const std::string& name_or_path, const std::string& flag,
                        const std::vector<std::string>& overrides) {
  NamedDocument d = LoadNamedDocument(name_or_path, flag, "cluster", BundledClusters(), ClusterPath, overrides,
                                      [](NamedDocument& doc, const std::string& o) {
                                        GraftBundledNode(doc.doc, {"cluster." + o}, *doc.source, "node");
                                      });
  ClusterSpec c = ParseCluster(YamlView(d.doc, "", d.source));
  if (c.name.empty()) c.name = std::filesystem::path(d.path).stem().string();
  return c;
}

bool IsClusterFile(const std::string& name_or_path) {
  const std::vector<std::string> names = BundledClusters();
  if (std::find(names.begin(), names.end(), name_or_path) != names.end()) return true;
  const std::vector<std::string> nodes = BundledNodes();
  if (std::find(nodes.begin(), nodes.end(), name_or_path) != nodes.end()) return false;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(name_or_path, ec)) return false;
  const YAML::Node doc = LoadYamlFile(name_or_path);
  return doc.IsMap() && doc["node"] && doc["nodes"];
}

namespace {

ClusterSpec ParseCluster(const YamlView& v) {
  if (!v.IsMap())
    v.Fail("unknown cluster \"" + Shown(v.Str()) + "\"" + SuggestionSuffix(v.Str().substr(0, 64), BundledClusters()) +
           "; or write {node, nodes} as a mapping");
  v.ExpectKeys({"name", "source", "node", "nodes", "gpus_per_node", "fabric", "storage", "notes"});
  ClusterSpec c;
  if (v.Has("name")) c.name = v.Get("name").Name();
  if (v.Has("source")) v.Get("source").Name(4096);  // text, checked, not used
  c.node = ResolveNode(v.Get("node"));
  c.nodes = v.Get("nodes").Int(1, kMaxGpus);
  if (v.Has("gpus_per_node"))  // fewer GPUs of the same box, never more
    c.node = WithGpus(c.node, v.Get("gpus_per_node").Int(1, c.node.gpus_per_node));
  if (v.Has("fabric")) c.fabric = ParseFabric(v.Get("fabric"), c);
  if (v.Has("storage")) c.storage = ParseStorage(v.Get("storage"));
  return c;
}

ParallelSpec ParseParallel(const YamlView& par) {
  par.ExpectKeys({"tp", "pp", "vp", "dp", "zero", "dp_overlap", "offload", "offload_params", "stage_layers", "sp",
                  "distributed_optimizer", "param_gather_overlap", "hsdp", "tp_overlap", "cp", "ep", "expert_tp", "ep_dispatcher",
                  "ep_overlap"});
  ParallelSpec p;
  p.tp = par.Has("tp") ? par.Get("tp").Int(1, 1 << 16) : 1;
  p.pp = par.Has("pp") ? par.Get("pp").Int(1, 1 << 16) : 1;
  p.vp = par.Has("vp") ? par.Get("vp").Int(1, 1 << 10) : 1;
  p.cp = par.Has("cp") ? par.Get("cp").Int(1, 1 << 10) : 1;
  p.ep = par.Has("ep") ? par.Get("ep").Int(1, 1 << 16) : 1;
  if (par.Has("expert_tp")) p.expert_tp = par.Get("expert_tp").Int(1, 1 << 16);
  if (par.Has("ep_dispatcher")) p.dispatcher = par.Get("ep_dispatcher").Enum<Dispatcher>();
  if (par.Has("ep_overlap")) p.ep_overlap = par.Get("ep_overlap").Bool();
  if (par.Has("stage_layers"))
    for (const YamlView& n : par.Get("stage_layers").Items(1 << 14))
      p.stage_layers.push_back(static_cast<int>(n.Int(0, 1 << 14)));
  p.dp_auto = !par.Has("dp");
  if (!p.dp_auto) p.dp = par.Get("dp").Int(1, 1 << 24);
  p.zero = par.Has("zero") ? par.Get("zero").Int(0, 3) : 0;
  if (par.Has("sp")) p.sp = par.Get("sp").Bool();
  if (par.Has("tp_overlap")) p.tp_overlap = par.Get("tp_overlap").Bool();
  // Megatron's distributed optimizer is ZeRO stage 1; with another zero
  // given, Validate refuses the pair.
  if (par.Has("distributed_optimizer") && (p.distributed_optimizer = par.Get("distributed_optimizer").Bool()) &&
      !par.Has("zero"))
    p.zero = 1;
  if (par.Has("hsdp")) p.hsdp = static_cast<int>(par.Get("hsdp").Int(1, 1 << 24));
  if (par.Has("param_gather_overlap")) p.param_gather_overlap = par.Get("param_gather_overlap").Bool();
  if (par.Has("dp_overlap")) p.dp_overlap = par.Get("dp_overlap").Bool();
  if (par.Has("offload")) p.offload = par.Get("offload").Enum<Offload>();
  if (par.Has("offload_params")) p.offload_params = par.Get("offload_params").Bool();
  return p;
}

// A transformers release as MAJOR.MINOR (a patch level allowed): 4.30 or
// later, kept as 4.x's minor (5.x as 100 + minor).
int ParseTransformersRelease(const YamlView& v) {
  const std::string text = v.Str();
  // Digits only: MAJOR (one digit), MINOR (one or two, no leading zero),
  // an optional PATCH (up to four).
  static const std::regex kRelease(R"(([4-9])\.([1-9][0-9]?|0)(\.[0-9]{1,4})?)");
  std::smatch m;
  const bool read = std::regex_match(text, m, kRelease);
  const int major = read ? std::stoi(m[1]) : 0, minor = read ? std::stoi(m[2]) : 0;
  if (!read || (major == 4 && minor < 30))
    v.Fail("\"" + text + "\" is not accepted: a Hugging Face transformers release such as 4.48 (4.30 or later)");
  return major == 4 ? minor : 100 * (major - 4) + minor;
}

// A vision model trains on images: no seq_len, and the job's length is
// `images` (each image counts as one "token" of the step arithmetic).
TrainingSpec ParseTraining(const YamlView& v, bool vision) {
  v.ExpectKeys({"method", "precision", "seq_len", "micro_batch", "global_batch", "recompute",
                "attention", "tokens", "images", "epochs", "lora_rank", "lora_targets", "stack", "packing", "sample_len",
                "padding", "sample_len_cv", "per_sample_attention", "capacity_factor", "expert_imbalance", "grad_reduce",
                "launch_blocking", "recompute_modules", "transformers", "qlora_upcast", "pure_bf16",
                "lora_dropout", "compile", "loss", "optimizer_in_backward", "offload_activations", "optimizer",
                "group_by_length", "dora"});
  if (vision) {
    for (const char* key : {"seq_len", "tokens", "attention", "lora_rank", "lora_targets", "packing", "sample_len",
                            "padding", "sample_len_cv", "per_sample_attention", "transformers", "qlora_upcast",
                            "pure_bf16", "lora_dropout", "compile", "loss", "optimizer_in_backward",
                            "offload_activations", "group_by_length", "dora"})
      if (v.Has(key)) v.Get(key).Fail("given, but the model is a vision model (images, not token sequences)");
  } else if (v.Has("images")) {
    v.Get("images").Fail("given, but the model is a transformer: training.tokens sets the job's length");
  }
  TrainingSpec t;
  t.method = v.Get("method").Enum<Method>();
  t.precision = v.Get("precision").Enum<Precision>();
  // Bounds with room beyond any published run: 4M-token sequences, 64K
  // sequences per micro-batch, 16M per step (Llama 3 405B: 8K-128K tokens,
  // 16M tokens per step).
  t.seq_len = vision ? 1 : static_cast<int>(v.Get("seq_len").Int(1, 1 << 22));
  t.micro_batch = v.Get("micro_batch").Int(1, 1 << 16);
  t.global_batch = v.Get("global_batch").Int(1, 1 << 24);
  if (v.Has("recompute")) t.recompute = v.Get("recompute").Enum<Recompute>();
  if (v.Has("recompute_modules")) {
    const YamlView modules = v.Get("recompute_modules");
    std::string names;
    for (const std::string& name : Spellings<RecomputeModule>()) names += (names.empty() ? "" : ", ") + name;
    if (modules.IsScalar()) modules.Fail("\"" + modules.Str() + "\" is not a list; give a list of " + names);
    t.recompute_modules = 0;
    for (const YamlView& item : modules.Items(NamesOf(RecomputeModule{}).size()))
      t.recompute_modules |= Bit(item.Enum<RecomputeModule>());
    if (t.recompute_modules == 0) modules.Fail("is empty; give a list of " + names);
    t.recompute_modules_given = true;
  }
  if (v.Has("attention")) {
    t.attention = v.Get("attention").Enum<Attention>();
    t.attention_given = true;
  }
  // The job's length: tokens (images), or epochs of the dataset
  // (data.size, converted once the data section is read).
  const char* length = vision ? "images" : "tokens";
  if (v.Has("epochs") && v.Has(length))
    v.Get("epochs").Fail(std::string("give ") + length + " or epochs, not both");
  if (v.Has("epochs")) {
    t.epochs = v.Get("epochs").Number();
    if (!(t.epochs > 0 && t.epochs <= 1e6))
      v.Get("epochs").Fail("\"" + v.Get("epochs").Str() + "\" must be a number of passes over the dataset in (0, 1e6]");
  } else {
    t.job_tokens = v.Get(length).Quantity(Dimension::kCount);
  }
  if (v.Has("lora_rank")) t.lora_rank = v.Get("lora_rank").Int(1, 65536);
  if (v.Has("lora_targets")) {
    const YamlView targets = v.Get("lora_targets");
    std::string names;
    for (const std::string& name : Spellings<LoraTarget>()) names += (names.empty() ? "" : ", ") + name;
    const std::string accepted = "give all or a list of " + names;
    if (targets.IsScalar() && targets.Str() == "all") {
      t.lora_targets = kAllLoraTargets;
    } else {
      if (targets.IsScalar()) targets.Fail("\"" + targets.Str() + "\" is not accepted; " + accepted);
      t.lora_targets = 0;
      for (const YamlView& item : targets.Items(NamesOf(LoraTarget{}).size()))
        t.lora_targets |= Bit(item.Enum<LoraTarget>());
      if (t.lora_targets == 0) targets.Fail("is empty; " + accepted);
    }
  }
  if (v.Has("stack")) {
    t.stack = v.Get("stack").Enum<Stack>();
    t.stack_given = true;
  }
  ApplyStackDefaults(t);  // the keys below, where given, override them
  if (v.Has("per_sample_attention")) {
    t.per_sample_attention = v.Get("per_sample_attention").Bool();
    t.per_sample_attention_given = true;
  }
  if (v.Has("packing")) t.packing = v.Get("packing").Bool();
  if (v.Has("launch_blocking")) t.launch_blocking = v.Get("launch_blocking").Bool();
  if (v.Has("compile")) t.compile = v.Get("compile").Bool();
  if (v.Has("loss")) t.loss = v.Get("loss").Enum<LossChoice>();
  if (v.Has("optimizer_in_backward")) t.optimizer_in_backward = v.Get("optimizer_in_backward").Bool();
  if (v.Has("optimizer")) t.optimizer = v.Get("optimizer").Enum<OptimizerChoice>();
  if (v.Has("offload_activations")) t.offload_activations = v.Get("offload_activations").Bool();
  if (v.Has("transformers")) t.transformers = ParseTransformersRelease(v.Get("transformers"));
  if (v.Has("pure_bf16")) {
    t.pure_bf16 = v.Get("pure_bf16").Bool();
    t.pure_bf16_given = true;
  }
  if (v.Has("lora_dropout")) {
    t.lora_dropout = v.Get("lora_dropout").Number();
    if (!(t.lora_dropout >= 0 && t.lora_dropout < 1))
      v.Get("lora_dropout").Fail("\"" + v.Get("lora_dropout").Str() +
                                 "\" is not accepted: a dropout probability in [0, 1) (PEFT's lora_dropout; 0: none)");
  }
  if (v.Has("qlora_upcast")) {
    t.qlora_upcast = v.Get("qlora_upcast").Enum<QloraUpcast>();
    t.qlora_upcast_given = true;
  }
  if (v.Has("padding")) {
    t.padding = v.Get("padding").Enum<Padding>();
    t.padding_given = true;
  }
  if (v.Has("sample_len_cv")) {
    t.sample_len_cv = v.Get("sample_len_cv").Number();
    if (!(t.sample_len_cv >= 0 && t.sample_len_cv <= 4))
      v.Get("sample_len_cv").Fail("\"" + v.Get("sample_len_cv").Str() +
                                  "\" is not accepted: the samples' standard deviation over their mean, in [0, 4]");
  }
  if (v.Has("dora")) t.dora = v.Get("dora").Bool();
  if (v.Has("group_by_length")) {
    const YamlView g = v.Get("group_by_length");
    const std::string raw = g.Str();
    if (raw == "true" || raw == "yes" || raw == "false" || raw == "no") {
      t.group_by_length = g.Bool() ? kTrainerLengthGroups : 0;
    } else {
      char* end = nullptr;
      const long n = std::strtol(raw.c_str(), &end, 10);
      if (raw.empty() || *end != '\0' || raw.find('\0') != std::string::npos || n < 2 || n > 10000)
        g.Fail("\"" + Shown(raw) +
               "\" is not accepted: false (samples in random order), true (the Trainer's group_by_length: mega-batches "
               "of 50 steps' batches sorted by length) or the micro-batches a sorted group holds, an integer from 2 to "
               "10000");
      t.group_by_length = static_cast<int>(n);
    }
  }
  if (v.Has("grad_reduce")) t.grad_reduce = v.Get("grad_reduce").Enum<Precision>();
  // A mixture of experts' routing (spec.h): GShard and Switch train with
  // capacity factors of 1 to 2; beyond the expert count every token fits.
  if (v.Has("capacity_factor")) {
    t.capacity_factor = v.Get("capacity_factor").Number();
    if (!(t.capacity_factor == 0 || (t.capacity_factor >= 1 && t.capacity_factor <= 64)))
      v.Get("capacity_factor").Fail("\"" + v.Get("capacity_factor").Str() +
                                    "\" is not accepted: 0 (dropless) or a factor in [1, 64] on each expert's mean share");
  }
  if (v.Has("expert_imbalance")) {
    t.expert_imbalance = v.Get("expert_imbalance").Number();
    if (!(t.expert_imbalance >= 1 && t.expert_imbalance <= 64))
      v.Get("expert_imbalance").Fail("\"" + v.Get("expert_imbalance").Str() +
                                     "\" is not accepted: the busiest expert rank's tokens over the mean, in [1, 64]");
  }
  if (v.Has("sample_len")) {
    t.sample_len = static_cast<int>(v.Get("sample_len").Int(1, 1 << 22));
    if (t.sample_len > t.seq_len)
      v.Get("sample_len").Fail(std::to_string(t.sample_len) + " tokens per sample exceed training.seq_len (" +
                               std::to_string(t.seq_len) + "); accepted: 1 to " + std::to_string(t.seq_len) +
                               (t.packing ? " (packing fills each sequence with whole samples)"
                                          : " (each sample is padded to seq_len)"));
  }
  return t;
}

// A dataset smaller than one of its samples (data.size against
// data.sample_bytes, or seq_len x data.bytes_per_token) is a typo, not a
// job: refused before its epoch is counted in fractions of a sample. A
// dataset of no given size (0) is one of unknown size.
void CheckDatasetHoldsASample(const Scenario& s, const YamlView& data) {
  if (!s.data.enabled || !(s.data.size.value() > 0)) return;
  const Bytes one = CostOfSample(s).stored;
  if (s.data.size < one)
    data.Get("size").Fail(ShortNumber(s.data.size.value()) + " bytes hold less than one sample of " +
                          ShortNumber(one.value()) +
                          " bytes (data.sample_bytes, or training.seq_len x data.bytes_per_token): give the whole "
                          "dataset's size");
}

// Tokens (images) in `epochs` passes over data.size: samples stored in
// it (data_costs.h's bytes per stored sample) x tokens per sample.
double JobTokensOfEpochs(const Scenario& s, const YamlView& at) {
  if (!s.data.enabled || !(s.data.size.value() > 0))
    at.Fail("epochs need the dataset's size: add data: {tier, format, size, ...}");
  const double samples = std::floor(s.data.size.value() / CostOfSample(s).stored.value());
  const double tokens = s.training.epochs * samples * s.training.seq_len;
  if (!(tokens >= 1 && tokens <= 1e16))
    at.Fail(ShortNumber(s.training.epochs) + " epochs of " + ShortNumber(samples) + " samples make " +
            ShortNumber(tokens) + " tokens; accepted: 1 to 1e16");
  return tokens;
}

// A cluster named from the bundle (cluster: h100-ib-rail-128node) is copied
// into the document in its place, so --set cluster.nodes=64 lands in it
// and errors point at the line of the cluster file.
void GraftBundledCluster(YAML::Node doc, YamlSource& source) {
  if (!doc["cluster"].IsScalar()) return;
  const std::string name = doc["cluster"].Scalar();
  const std::vector<std::string> names = BundledClusters();
  if (std::find(names.begin(), names.end(), name) == names.end()) return;  // refused when read
  YAML::Node cluster = LoadYamlFile(ClusterPath(name));
  if (!cluster.IsMap()) return;
  if (!cluster["name"]) cluster["name"] = name;
  doc["cluster"] = cluster;
  source.grafts["cluster"] = ClusterPath(name);
  // A --set cluster=NAME, and any earlier --set cluster.*: the keys are now
  // the file's.
  for (auto it = source.overrides.begin(); it != source.overrides.end();)
    it = it->first == "cluster" || it->first.rfind("cluster.", 0) == 0 ? source.overrides.erase(it) : std::next(it);
}

// When an override patches a key of a node named from the bundle
// (--set cluster.node.nics.bandwidth=100Gbps), copies that node's file into
// the document in its place, so the override lands in it and every error
// still points at the line of the file it came from.
void GraftBundledNode(YAML::Node doc, const std::vector<std::string>& overrides, YamlSource& source,
                      const std::string& at) {
  const bool patches_node = std::any_of(overrides.begin(), overrides.end(), [](const std::string& o) {
    return o.rfind("cluster.node.", 0) == 0;
  });
  // `at` is "cluster.node" in a scenario, "node" in a cluster file.
  YAML::Node cluster = at == "node" ? doc : YAML::Node(doc["cluster"]);
  if (!patches_node || !cluster.IsMap() || !cluster["node"].IsScalar()) return;
  const std::string name = cluster["node"].Scalar();
  const std::vector<std::string> names = BundledNodes();
  if (std::find(names.begin(), names.end(), name) == names.end()) return;  // refused when read
  YAML::Node node = LoadYamlFile(NodePath(name));
  if (!node.IsMap()) return;
  if (!node["name"]) node["name"] = name;
  cluster["node"] = node;
  source.grafts[at] = NodePath(name);
  source.overrides.erase(at);
}

}  // namespace

Scenario LoadScenario(const std::string& path, const std::vector<std::string>& overrides) {
  auto source = std::make_shared<YamlSource>(YamlSource{path, {}, {}});
  YAML::Node doc = LoadYamlFile(path);
  if (!doc.IsMap()) throw InputError({path}, "", "expected a mapping of scenario keys");
  // A bundled cluster or node is grafted before each override that may
  // patch it (--set cluster=NAME may name one, later flags patch it).
  for (const auto& o : overrides) {
    GraftBundledCluster(doc, *source);
    GraftBundledNode(doc, {o}, *source, "cluster.node");
    ApplyOverride(doc, o, *source);
  }
  GraftBundledCluster(doc, *source);
  YamlView root(doc, "", source);
  root.ExpectKeys({"name", "description", "model", "cluster", "parallel", "training", "price", "data",
                   "checkpoint", "interruptions", "job"});
  Scenario s;
  s.file = path;
  s.name = root.Has("name") ? root.Get("name").Name()
                            : std::filesystem::path(path).stem().string();
  if (root.Has("description")) root.Get("description").Name(4096);  // text, checked, not used
  s.model = ResolveModel(root.Get("model"));
  s.cluster = ParseCluster(root.Get("cluster"));
  s.parallel = ParseParallel(root.Get("parallel"));
  s.training = ParseTraining(root.Get("training"), s.model.kind == ModelKind::kVision);
  if (root.Has("price")) s.price = ParsePrice(root.Get("price"), s.cluster);
  if (root.Has("data")) {
    s.data = ParseData(root.Get("data"));
    CheckDatasetHoldsASample(s, root.Get("data"));
  }
  if (root.Has("checkpoint")) s.checkpoint = ParseCheckpoint(root.Get("checkpoint"));
  if (root.Has("interruptions")) s.interruptions = ParseInterruptions(root.Get("interruptions"), s.cluster.node.gpus_per_node);
  if (root.Has("job")) s.job = ParseJob(root.Get("job"));
  if (s.training.epochs > 0) s.training.job_tokens = JobTokensOfEpochs(s, root.Get("training").Get("epochs"));
  ResolveDataParallel(s);
  ResolveQloraUpcast(s);
  if (auto e = Validate(s)) throw InputError(root.Find(e->key).location(), e->key, e->message);
  return s;
}

}  // namespace pf

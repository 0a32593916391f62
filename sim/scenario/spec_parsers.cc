#include "sim/scenario/spec_parsers.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "sim/model/vision.h"
#include "sim/scenario/catalog.h"
#include "sim/scenario/pcie_parser.h"

namespace pf {

// The most a GEMM's measured rate may exceed the datasheet peak by
// (clocks above the rated boost; the catalog's highest is 1.122).
constexpr double kMostGemmEfficiency = 1.25;
namespace {

std::string NameOr(const YamlView& v, const std::string& fallback) {
  return v.Has("name") ? v.Get("name").Name() : fallback;
}
}  // namespace

namespace {

// A vision model's input, classes and blocks (model/vision.h), its shapes
// checked by the model's own arithmetic.
ModelSpec ParseVisionModel(const YamlView& v, const std::string& default_name) {
  v.ExpectKeys({"name", "kind", "source", "input", "classes", "blocks"});
  ModelSpec m;
  m.kind = ModelKind::kVision;
  m.name = NameOr(v, default_name);
  VisionSpec& x = m.vision;
  x.name = m.name;
  const YamlView in = v.Get("input");
  in.ExpectKeys({"height", "width", "channels"});
  x.height = static_cast<int>(in.Get("height").Int(1, 1 << 16));
  x.width = static_cast<int>(in.Get("width").Int(1, 1 << 16));
  x.channels = static_cast<int>(in.Get("channels").Int(1, 1 << 12));
  x.classes = static_cast<int>(v.Get("classes").Int(1, 1 << 24));
  std::vector<std::string> ops;
  for (VisionOp op : {VisionOp::kConv, VisionOp::kMaxPool, VisionOp::kBottleneck, VisionOp::kAvgPool,
                      VisionOp::kLinear, VisionOp::kPatchEmbed, VisionOp::kEncoderBlock, VisionOp::kLayerNorm})
    ops.push_back(VisionOpName(op));
  for (const YamlView& b : v.Get("blocks").Items(4096)) {
    b.ExpectKeys({"op", "repeat", "out", "kernel", "stride", "relu", "width", "patch", "hidden", "heads", "mlp"});
    VisionBlock block;
    const std::string op = b.Get("op").Choice(ops);
    block.op = static_cast<VisionOp>(std::find(ops.begin(), ops.end(), op) - ops.begin());
    auto count = [&](const char* key, int& field, long long lo) {
      if (b.Has(key)) field = static_cast<int>(b.Get(key).Int(lo, 1 << 20));
    };
    count("repeat", block.repeat, 1);
    count("out", block.out, 1);
    count("kernel", block.kernel, 1);
    count("stride", block.stride, 1);
    count("width", block.width, 1);
    count("patch", block.patch, 1);
    count("hidden", block.hidden, 1);
    count("heads", block.heads, 1);
    count("mlp", block.mlp, 1);
    if (b.Has("relu")) block.relu = b.Get("relu").Bool();
    x.blocks.push_back(block);
  }
  try {
    ValidateVision(x);
  } catch (const std::invalid_argument& e) {
    v.Get("blocks").Fail(e.what());
  }
  return m;
}

}  // namespace

MlaSpec ParseMla(const YamlView& v) {
  v.ExpectKeys({"q_lora", "kv_lora", "qk_nope", "qk_rope", "v"});
  MlaSpec a;
  a.q_lora = v.Has("q_lora") ? v.Get("q_lora").Int(1, 1 << 16) : 0;
  a.kv_lora = v.Get("kv_lora").Int(1, 1 << 16);
  a.qk_nope = v.Get("qk_nope").Int(1, 1 << 12);
  a.qk_rope = v.Get("qk_rope").Int(1, 1 << 12);
  a.v = v.Get("v").Int(1, 1 << 12);
  return a;
}

void ParseExpertGroups(const YamlView& v, const std::string& groups_key, const std::string& topk_key, MoeSpec& x) {
  const YamlView g = v.Get(groups_key), k = v.Get(topk_key);  // Get fails naming a missing key
  x.groups = g.Int(1, x.experts);
  if (x.experts % x.groups != 0)
    g.Fail(std::to_string(x.groups) + " groups do not divide the " + std::to_string(x.experts) +
           " experts (accepted: a divisor of " + std::to_string(x.experts) + ")");
  x.group_topk = k.Int(1, x.groups);
  const int per = x.experts / x.groups, reach = x.group_topk * per;
  if (x.top_k > reach)
    k.Fail(std::to_string(x.group_topk) + " of " + std::to_string(x.groups) + " groups of " + std::to_string(per) +
           " experts each hold " + std::to_string(reach) + ", fewer than the " + std::to_string(x.top_k) +
           " experts a token is routed to (accepted: at least " + std::to_string((x.top_k + per - 1) / per) + ")");
}

MoeSpec ParseMoe(const YamlView& v, const ModelSpec& m) {
  v.ExpectKeys({"experts", "top_k", "expert_ffn", "shared_experts", "shared_ffn", "dense_layers", "groups",
                "group_topk"});
  MoeSpec x;
  x.experts = v.Get("experts").Int(1, 1 << 12);
  x.top_k = v.Get("top_k").Int(1, 1 << 12);
  if (x.top_k > x.experts)
    v.Get("top_k").Fail(std::to_string(x.top_k) + " experts per token exceed the " + std::to_string(x.experts) +
                        " experts; accepted: 1 to " + std::to_string(x.experts));
  x.expert_ffn = v.Has("expert_ffn") ? v.Get("expert_ffn").Int(1, 1 << 22) : m.ffn;
  x.shared_experts = v.Has("shared_experts") ? v.Get("shared_experts").Int(0, 1 << 8) : 0;
  x.shared_ffn = v.Has("shared_ffn") ? v.Get("shared_ffn").Int(1, 1 << 22) : x.expert_ffn;
  if (v.Has("dense_layers")) x.dense_layers = v.Get("dense_layers").Int(0, m.layers - 1);
  if (v.Has("groups") || v.Has("group_topk")) ParseExpertGroups(v, "groups", "group_topk", x);
  if (m.bias) v.Fail("a mixture of experts with bias: true is not modelled (its experts have no biases); set bias: false");
  return x;
}

ModelSpec ParseModel(const YamlView& v, const std::string& default_name) {
  if (v.Has("kind") && v.Get("kind").Choice({"transformer", "vision"}) == "vision")
    return ParseVisionModel(v, default_name);
  v.ExpectKeys({"name", "kind", "source", "layers", "hidden", "heads", "kv_heads", "ffn", "ffn_kind",
                "vocab", "tied_embeddings", "position", "max_seq", "norm", "bias", "moe", "head_dim", "window", "window_share", "glu_clamp", "dropout", "mla"});
  ModelSpec m;
  m.name = NameOr(v, default_name);
  // Bounds far beyond published models (Llama 3 405B: 126 layers, hidden
  // 16384, 128 heads, FFN 53248, vocabulary 128256), so that products stay
  // exact in 64 bits.
  m.layers = v.Get("layers").Int(1, 1 << 14);
  m.hidden = v.Get("hidden").Int(1, 1 << 20);
  m.heads = v.Get("heads").Int(1, 1 << 16);
  m.kv_heads = v.Has("kv_heads") ? v.Get("kv_heads").Int(1, m.heads) : m.heads;
  if (v.Has("head_dim")) m.head_size = v.Get("head_dim").Int(1, 1 << 12);
  if (v.Has("window")) m.window = v.Get("window").Int(1, 1 << 24);
  if (v.Has("window_share")) {
    const YamlView share = v.Get("window_share");
    if (!v.Has("window")) share.Fail("needs a window: the share of the layers that attend through it");
    m.window_share = share.Number();
    if (!(m.window_share > 0 && m.window_share <= 1))
      share.Fail(share.Str() + " is not a share of the layers (accepted: above 0, at most 1)");
  }
  if (m.head_size == 0 && m.hidden % m.heads != 0)
    v.Get("heads").Fail(std::to_string(m.heads) + " does not divide hidden (" + std::to_string(m.hidden) +
                        "); give head_dim when the heads are not hidden / heads wide");
  if (m.heads % m.kv_heads != 0)
    v.Get("kv_heads").Fail(std::to_string(m.kv_heads) + " does not divide heads (" +
                           std::to_string(m.heads) + ")");
  m.ffn = v.Get("ffn").Int(1, 1 << 22);
  m.ffn_kind = v.Get("ffn_kind").Enum<FfnKind>();
  m.vocab = v.Get("vocab").Int(1, 1 << 24);
  m.tied_embeddings = v.Get("tied_embeddings").Bool();
  m.position = v.Get("position").Enum<Position>();
  m.max_seq = v.Get("max_seq").Int(1, 1 << 24);
  m.layernorm = v.Get("norm").Choice({"rmsnorm", "layernorm"}) == "layernorm";
  m.bias = v.Has("bias") && v.Get("bias").Bool();
  if (v.Has("glu_clamp")) {
    const YamlView clamp = v.Get("glu_clamp");
    if (m.ffn_kind != FfnKind::kSwiglu)
      clamp.Fail("clamps a gated MLP's halves; ffn_kind is not swiglu (accepted: with ffn_kind: swiglu)");
    m.glu_clamp = clamp.Number();
    if (!(m.glu_clamp > 0 && m.glu_clamp < 1e6))
      clamp.Fail(clamp.Str() + " is not a clamp limit (accepted: above 0, below 1e6; GPT-OSS: 7)");
  }
  if (v.Has("dropout")) {
    const YamlView p = v.Get("dropout");
    m.dropout = p.Number();
    if (!(m.dropout >= 0 && m.dropout < 1))
      p.Fail(p.Str() + " is not a dropout probability (accepted: at least 0, below 1; Megatron-LM's GPT: 0.1)");
  }
  if (v.Has("moe")) m.moe = ParseMoe(v.Get("moe"), m);
  if (v.Has("mla")) m.mla = ParseMla(v.Get("mla"));
  return m;
}

GpuSpec ParseGpu(const YamlView& v, const std::string& name) {
  v.ExpectKeys({"name", "peak", "memory", "memory_bandwidth", "nvlink", "pcie_gen", "sms",
                "gemm_efficiency", "gemm_efficiency_fp8", "gemm_measured_on", "attention_vs_gemm", "training_rate",
                "l2_cache", "l2_partitions", "memory_efficiency", "source", "notes"});
  GpuSpec g;
  g.name = name;
  YamlView peak = v.Get("peak");
  peak.ExpectKeys({"bf16", "fp16", "fp8", "fp32", "tf32"});
  auto rate = [&](const char* k) {
    return peak.Has(k) ? peak.Get(k).AsFlopsRate() : FlopsPerSecond(0);
  };
  g.peak_bf16 = rate("bf16");
  g.peak_fp16 = rate("fp16");
  g.peak_fp8 = rate("fp8");
  g.peak_tf32 = rate("tf32");
  g.peak_fp32 = rate("fp32");
  g.memory = v.Get("memory").AsBytes();
  g.memory_bandwidth = v.Get("memory_bandwidth").AsBandwidth();
  if (v.Has("memory_efficiency")) {
    const YamlView e = v.Get("memory_efficiency");
    g.memory_efficiency = e.Number();
    if (!(*g.memory_efficiency >= 0.3 && *g.memory_efficiency <= 1))
      e.Fail("\"" + e.Str() + "\" is not a fraction of memory_bandwidth a streaming kernel reaches (accepted: 0.3 to 1)");
  }
  if (v.Has("nvlink")) g.nvlink_bidir = v.Get("nvlink").AsBandwidth();
  g.pcie_gen = v.Get("pcie_gen").Int(1, 7);
  g.sms = v.Get("sms").Int(1, 100000);
  if (v.Has("l2_cache")) {
    g.l2_cache = v.Get("l2_cache").AsBytes();
    if (!(g.l2_cache.value() >= 1024 && g.l2_cache.value() <= 4.0 * (1 << 30)))
      v.Get("l2_cache").Fail("\"" + v.Get("l2_cache").Str() + "\" is not an L2 cache size (accepted: 1KiB to 4GiB)");
  }
  if (v.Has("l2_partitions")) g.l2_partitions = v.Get("l2_partitions").Int(1, 16);
  g.gemm_measured_on = v.Has("gemm_measured_on") ? v.Get("gemm_measured_on").Name() : name;
  // A GEMM's measured rate over the datasheet peak exceeds 1 on GeForce
  // cards, whose clocks run above their rated boost (topologies/gpus.yaml:
  // the RTX 3090 reaches 1.078 of its 71 TFLOP/s, the RTX 5090 1.122);
  // training_rate is a share of those rates.
  for (const char* key : {"gemm_efficiency", "gemm_efficiency_fp8", "training_rate"}) {
    if (!v.Has(key)) continue;
    double e = v.Get(key).Number();
    const double most = std::string(key) == "training_rate" ? 1 : kMostGemmEfficiency;
    if (!(e > 0 && e <= most))
      v.Get(key).Fail("\"" + v.Get(key).Str() + "\" must be in (0, " + (std::ostringstream() << most).str() + "]");
    const std::string k = key;
    (k == "gemm_efficiency" ? g.gemm_efficiency : k == "gemm_efficiency_fp8" ? g.gemm_efficiency_fp8 : g.training_rate) = e;
  }
  if (v.Has("attention_vs_gemm")) {
    const YamlView a = v.Get("attention_vs_gemm");
    a.ExpectKeys({"flash", "cudnn", "flash3", "triton"});
    const std::pair<const char*, std::optional<double>*> kernels[] = {{"flash", &g.attention_flash},
                                                                       {"cudnn", &g.attention_cudnn},
                                                                       {"flash3", &g.attention_flash3},
                                                                       {"triton", &g.attention_triton}};
    for (const auto& [key, ratio] : kernels) {
      if (!a.Has(key)) continue;
      const double r = a.Get(key).Number();
      if (!(r > 0 && r <= 1)) a.Get(key).Fail("\"" + a.Get(key).Str() + "\" must be in (0, 1]: the kernel's throughput over the best GEMM's");
      *ratio = r;
    }
  }
  return g;
}

CpuSpec ParseCpuModel(const YamlView& v, const std::string& name) {
  v.ExpectKeys({"name", "cores", "core_speed", "source", "notes"});
  CpuSpec c;
  c.name = name;
  c.cores = v.Get("cores").Int(1, 1024);
  c.core_speed = v.Get("core_speed").Number();
  if (!(c.core_speed > 0.01 && c.core_speed < 100))
    v.Get("core_speed").Fail("\"" + v.Get("core_speed").Str() + "\" must be in (0.01, 100): a core's speed relative to the reference core");
  return c;
}

// A node's `cpu`: a catalog CPU by name (with the node's pcie.sockets), or
// inline {name, cores (per node), core_speed}.
CpuSpec ParseNodeCpu(const YamlView& v, int sockets) {
  if (v.IsMap()) return ParseCpuModel(v, v.Has("name") ? v.Get("name").Name(64) : "inline CPU");
  const std::string name = v.Name();
  const auto& catalog = CpuCatalog();
  auto it = catalog.find(name);
  if (it == catalog.end()) {
    std::vector<std::string> names;
    for (const auto& [k, _] : catalog) names.push_back(k);
    v.Fail("unknown CPU \"" + Shown(name) + "\"" + SuggestionSuffix(name.substr(0, 64), names) +
           "; or write {name, cores, core_speed} inline");
  }
  CpuSpec c = it->second;
  c.cores *= sockets;
  return c;
}

NodeSpec ParseNode(const YamlView& v, const std::string& default_name) {
  v.ExpectKeys({"name", "source", "gpu", "gpus_per_node", "interconnect", "pcie", "nvlink_bridges",
                "nics", "cpu_memory", "cpu", "notes"});
  NodeSpec n;
  n.name = NameOr(v, default_name);
  YamlView gpu = v.Get("gpu");
  if (gpu.IsMap()) {  // a GPU of the user's own, with the catalog's keys and a name
    n.gpu = ParseGpu(gpu, gpu.Has("name") ? gpu.Get("name").Name(64) : "inline GPU");
    n.gpus_per_node = v.Get("gpus_per_node").Int(1, 1024);
  } else {
  std::string gpu_name = gpu.Name();
  const auto& catalog = GpuCatalog();
  auto it = catalog.find(gpu_name);
  if (it == catalog.end()) {
    std::vector<std::string> names;
    for (const auto& [k, _] : catalog) names.push_back(k);
    gpu.Fail("unknown GPU \"" + Shown(gpu_name) + "\"" + SuggestionSuffix(gpu_name.substr(0, 64), names));
  }
  n.gpu = it->second;
  n.gpus_per_node = v.Get("gpus_per_node").Int(1, 1024);
  }

  YamlView ic = v.Get("interconnect");
  ic.ExpectKeys({"kind", "bandwidth", "latency", "nvlink_gen", "nvls"});
  n.intra_kind = ic.Get("kind").Enum<IntraKind>();
  if (ic.Has("nvlink_gen")) n.nvlink_gen = ic.Get("nvlink_gen").Int(1, 9);
  if (ic.Has("nvls")) n.nvls = ic.Get("nvls").Bool();
  if (n.nvls && n.intra_kind != IntraKind::kNvswitch)
    ic.Get("nvls").Fail("true, but NVLS (in-switch reduction) needs kind: nvswitch");
  // On a PCIe node GPUs meet over their PCIe links (the pcie section).
  if (n.intra_kind == IntraKind::kNvswitch) n.intra_bandwidth = ic.Get("bandwidth").AsBandwidth();
  else if (ic.Has("bandwidth"))
    ic.Get("bandwidth").Fail("given, but a PCIe node's GPUs meet over their PCIe links: set pcie.gen and pcie.lanes");
  n.intra_latency = ic.Get("latency").AsSeconds(true);

  YamlView nics = v.Get("nics");
  nics.ExpectKeys({"count", "bandwidth", "latency", "kind", "gpudirect_rdma"});
  n.nics = nics.Get("count").Int(1, 64);
  if (nics.Has("kind")) n.nic_kind = nics.Get("kind").Enum<NicKind>();
  if (nics.Has("gpudirect_rdma")) n.gpudirect_rdma = nics.Get("gpudirect_rdma").Bool();
  if (n.nic_kind == NicKind::kTcp && n.gpudirect_rdma && nics.Has("gpudirect_rdma"))
    nics.Get("gpudirect_rdma").Fail("true, but TCP sockets cannot write GPU memory (set false or kind: roce)");
  if (n.nic_kind == NicKind::kTcp) n.gpudirect_rdma = false;
  n.nic_bandwidth = nics.Get("bandwidth").AsBandwidth();
  n.nic_latency = nics.Get("latency").AsSeconds(true);
  if (v.Has("cpu_memory")) n.cpu_memory = v.Get("cpu_memory").AsBytes();
  n.pcie = ParsePcie(v.Get("pcie"), n);
  if (v.Has("nvlink_bridges")) n.bridges = ParseBridges(v.Get("nvlink_bridges"), n);
  if (v.Has("cpu")) n.cpu = ParseNodeCpu(v.Get("cpu"), n.pcie.sockets);
  return n;
}

}  // namespace pf

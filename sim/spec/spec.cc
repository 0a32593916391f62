#include "sim/spec/spec.h"

#include <algorithm>
#include <cmath>

namespace pf {

Attention DefaultAttention(Stack stack) {
  return stack == Stack::kMegatron || stack == Stack::kNemo ? Attention::kCudnn : Attention::kFlash;
}

FlopsPerSecond PeakFlops(const GpuSpec& g, Precision p) {
  switch (p) {
    case Precision::kBf16: return g.peak_bf16;
    case Precision::kFp16: return g.peak_fp16;
    case Precision::kFp8: return g.peak_fp8;
    case Precision::kTf32: return g.peak_tf32;
    case Precision::kFp32: return g.peak_fp32;
  }
  return g.peak_bf16;
}

bool OnHfTrainer(Stack stack) {
  return stack == Stack::kHf || stack == Stack::kLlamaFactory || stack == Stack::kUnsloth;
}

bool OnHfTrainerWithPeft(Stack stack) { return stack == Stack::kHf || stack == Stack::kLlamaFactory; }

// torchtune's padded_collate_sft pads each batch to its longest sample
// (torchtune/data/_collate.py @ 1814feb1), as the Trainer's collators do.
Padding DefaultPadding(Stack stack) {
  return OnHfTrainer(stack) || stack == Stack::kTorchtune ? Padding::kLongest : Padding::kMaxLength;
}

bool DefaultPerSampleAttention(Stack stack) { return stack == Stack::kNemo || stack == Stack::kTorchtune; }

void ApplyStackDefaults(TrainingSpec& t) {
  if (!t.attention_given) t.attention = DefaultAttention(t.stack);
  if (!t.per_sample_attention_given) t.per_sample_attention = DefaultPerSampleAttention(t.stack);
  if (!t.pure_bf16_given) t.pure_bf16 = DefaultPureBf16(t.stack, t.precision);
  if (!t.padding_given) t.padding = DefaultPadding(t.stack);
  if (!t.qlora_upcast_given) t.qlora_upcast = DefaultQloraUpcast(t.stack);
}

int MinDataParallelZero(Stack stack) { return stack == Stack::kTorchtune ? 2 : 0; }

bool DefaultPureBf16(Stack stack, Precision precision) {
  return stack == Stack::kTorchtune && precision == Precision::kBf16;
}

QloraUpcast DefaultQloraUpcast(Stack stack) { return stack == Stack::kHf ? QloraUpcast::kAll : QloraUpcast::kNone; }

double ElementBytes(Precision p) { return p == Precision::kTf32 || p == Precision::kFp32 ? 4 : 2; }

NodeSpec WithGpus(NodeSpec n, int gpus) {
  n.gpus_per_node = gpus;
  for (PcieSwitch& sw : n.pcie.switches)
    sw.gpus.erase(std::remove_if(sw.gpus.begin(), sw.gpus.end(), [&](int g) { return g >= gpus; }),
                  sw.gpus.end());
  auto& pairs = n.bridges.pairs;
  pairs.erase(std::remove_if(pairs.begin(), pairs.end(),
                             [&](const auto& p) { return p.first >= gpus || p.second >= gpus; }),
              pairs.end());
  return n;
}

int NodesPerLeaf(const ClusterSpec& c) {
  const FabricSpec& f = c.fabric;
  if (f.radix <= 0) return std::max(1, c.nodes);
  if (f.kind == FabricKind::kRail) return std::max(1, f.radix / 2);
  const int node_ports = static_cast<int>(f.radix * f.oversubscription / (f.oversubscription + 1));
  return std::max(1, node_ports / std::max(1, c.node.nics));
}

int Leaves(const ClusterSpec& c) { return std::max(1, (c.nodes + NodesPerLeaf(c) - 1) / NodesPerLeaf(c)); }

int LeafOf(const ClusterSpec& c, int node) {
  return c.fabric.placement == Placement::kSpread ? node % Leaves(c) : node / NodesPerLeaf(c);
}

int LeavesPerPod(const ClusterSpec& c) {
  return c.fabric.levels >= 3 && c.fabric.radix > 0 ? std::max(1, c.fabric.radix / 2) : Leaves(c);
}

int LeafUplinks(const ClusterSpec& c) {
  if (c.fabric.kind != FabricKind::kFatTree) return 0;
  const double node_ports = double(NodesPerLeaf(c)) * c.node.nics;
  return static_cast<int>(std::ceil(node_ports / std::max(1.0, c.fabric.oversubscription) - 1e-9));
}

int SwitchHops(const ClusterSpec& c, int a, int b) {
  if (a == b) return 0;
  const int la = LeafOf(c, a), lb = LeafOf(c, b);
  if (la == lb) return 1;
  return la / LeavesPerPod(c) == lb / LeavesPerPod(c) ? 3 : 5;
}

BytesPerSecond PcieLinkRate(int gen, int lanes) {
  // Transfer rate per lane (GT/s) by generation, PCI-SIG specifications.
  static const double kGtPerS[] = {0, 2.5, 5, 8, 16, 32, 64};
  const int g = gen < 1 ? 1 : gen > 6 ? 6 : gen;
  const double encoding = g <= 2 ? 8.0 / 10 : 128.0 / 130;
  return BytesPerSecond(kGtPerS[g] * 1e9 * encoding / 8 * lanes);
}

int LayerCount(const ModelSpec& m) {
  if (m.kind == ModelKind::kTransformer) return m.layers;
  int n = 0;
  for (const VisionBlock& b : m.vision.blocks) n += b.repeat;
  return n;
}

int LayersOfStage(const ModelSpec& m, const ParallelSpec& p, int stage) {
  if (!p.stage_layers.empty()) return p.stage_layers.at(static_cast<size_t>(stage));
  const int pp = std::max(1, p.pp);
  const int most = (m.layers + pp - 1) / pp;
  const int short_stages = most * pp - m.layers;  // stages holding one layer fewer
  // Ends inward: stage 0, pp-1, 1, pp-2, ... is the k-th stage taken.
  const int k = std::min(stage, pp - 1 - stage) * 2 + (stage > pp - 1 - stage ? 1 : 0);
  return k < short_stages ? most - 1 : most;
}

int LayersOfVirtualStage(const ModelSpec& m, const ParallelSpec& p, int vstage) {
  const int pp = std::max(1, p.pp), vp = std::max(1, p.vp);
  const int held = LayersOfStage(m, p, vstage % pp), chunk = vstage / pp;
  return held / vp + (chunk < held % vp ? 1 : 0);
}

int DenseLayersOfVirtualStage(const ModelSpec& m, const ParallelSpec& p, int vstage) {
  if (!m.moe.enabled() || m.moe.dense_layers <= 0) return 0;
  int first = 0;  // the model's layers before this chunk (virtual stages are in model order)
  for (int v = 0; v < vstage; ++v) first += LayersOfVirtualStage(m, p, v);
  const int last = first + LayersOfVirtualStage(m, p, vstage);
  return std::max(0, std::min(last, m.moe.dense_layers) - first);
}

int MaxLayersOfStage(const ModelSpec& m, const ParallelSpec& p) {
  int most = 0;
  for (int i = 0; i < std::max(1, p.pp); ++i) most = std::max(most, LayersOfStage(m, p, i));
  return most;
}

std::vector<std::string> DropSwitchesOfOtherLayouts(ParallelSpec& p, Recompute recompute) {
  std::vector<std::string> flags;
  auto drop = [&flags](bool& on, bool applies, const char* key) {
    if (!on || applies) return;
    on = false;
    flags.push_back(std::string("parallel.") + key + "=false");
  };
  drop(p.distributed_optimizer, p.zero == 1, "distributed_optimizer");
  drop(p.param_gather_overlap, p.zero == 1 || p.zero == 2, "param_gather_overlap");
  drop(p.tp_overlap, p.tp > 1, "tp_overlap");
  drop(p.ep_overlap, p.ep > 1 && (p.pp == 1 || p.vp > 1) && recompute != Recompute::kFull, "ep_overlap");
  drop(p.sp, p.tp > 1, "sp");
  return flags;
}

Scenario ContextRankView(const Scenario& s) {
  Scenario v = s;
  const int cp = std::max(1, s.parallel.cp);
  if (cp == 1) return v;
  v.parallel.dp = s.parallel.dp * cp;
  v.parallel.cp = 1;
  v.parallel.context_group = cp;
  if (v.parallel.hsdp > 0) v.parallel.hsdp *= cp;  // a shard group spans its sequences' CP ranks
  v.training.seq_len = s.training.seq_len / cp;
  v.training.global_batch = s.training.global_batch * cp;
  if (v.training.sample_len > 0) v.training.sample_len = std::max(1, s.training.sample_len / cp);
  return v;
}

}  // namespace pf

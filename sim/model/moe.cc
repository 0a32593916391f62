#include "sim/model/moe.h"

#include <algorithm>
#include <cmath>

namespace pf {

int FfnMatrices(const ModelSpec& m) { return m.ffn_kind == FfnKind::kSwiglu ? 3 : 2; }

ModelSpec DenseBlockOf(const ModelSpec& m) {
  ModelSpec dense = m;
  dense.moe = MoeSpec{};
  return dense;
}

double MlpParams(const ModelSpec& m) {
  const double h = m.hidden, per = FfnMatrices(m) * h;
  if (!m.moe.enabled()) return per * m.ffn;
  const MoeSpec& x = m.moe;
  return h * x.experts + per * (double(x.experts) * x.expert_ffn + double(x.shared_experts) * x.shared_ffn);
}

double RoutedExpertParams(const ModelSpec& m) {
  if (!m.moe.enabled()) return 0;
  return FfnMatrices(m) * double(m.hidden) * m.moe.experts * m.moe.expert_ffn;
}

double ActiveMlpParams(const ModelSpec& m) {
  if (!m.moe.enabled()) return MlpParams(m);
  const MoeSpec& x = m.moe;
  const double h = m.hidden;
  return h * x.experts +
         FfnMatrices(m) * h * (double(x.top_k) * x.expert_ffn + double(x.shared_experts) * x.shared_ffn);
}

double MlpWidth(const ModelSpec& m, const TrainingSpec& t) {
  if (!m.moe.enabled()) return m.ffn;
  const MoeSpec& x = m.moe;
  return double(x.top_k) * x.expert_ffn * t.expert_load() + double(x.shared_experts) * x.shared_ffn;
}

namespace {

Op Gemm(std::string name, double m, double k, double n, double e) {
  return {std::move(name), OpKind::kGemm, Flops(2 * m * k * n), Bytes(e * (m * k + k * n + m * n)), m, n, k};
}

// An MLP of width f split by `split` on `tokens` tokens: up (and gate) by
// columns, down by rows.
void Mlp(const ModelSpec& m, const std::string& name, double tokens, double f, int split, double e, bool separate,
         std::vector<Op>& ops) {
  const double h = m.hidden, w = f / split;
  const bool swiglu = m.ffn_kind == FfnKind::kSwiglu;
  if (!separate) {
    ops.push_back(Gemm(name + "_up", tokens, h, swiglu ? 2 * w : w, e));
  } else {
    if (swiglu) ops.push_back(Gemm(name == "mlp" ? "gate_proj" : name + "_gate", tokens, h, w, e));
    ops.push_back(Gemm(name == "mlp" ? "up_proj" : name + "_up", tokens, h, w, e));
  }
  ops.push_back(Gemm(name + "_down", tokens, w, h, e));
}

}  // namespace

double RoutedCopies(const ModelSpec& m, const TrainingSpec& t, const LayerShards& p, double tokens) {
  if (!m.moe.enabled()) return 0;
  return tokens * (p.expert_tp == 1 ? 1.0 / p.tp : 1.0) * m.moe.top_k * t.expert_load();
}

std::vector<Op> MlpGemms(const ModelSpec& m, const TrainingSpec& t, const LayerShards& p, double tokens, double e,
                         bool separate) {
  std::vector<Op> ops;
  if (!m.moe.enabled()) {
    Mlp(m, "mlp", tokens, m.ffn, p.tp, e, separate, ops);
    return ops;
  }
  const MoeSpec& x = m.moe;
  // The router's logits on the rank's tokens (sequence parallel: 1/tp).
  ops.push_back(Gemm("router", tokens / p.tp, m.hidden, x.experts, e));
  // The routed tokens the GPU's experts compute: its EP group's tokens x
  // top_k x load spread over the experts, each local expert taking its
  // share (with expert_tp = tp every TP rank sees its group's tokens and a
  // 1/tp slice of each expert; with 1, a GPU its own tokens' share, whole).
  const int local = x.experts / p.ep;
  const double per_expert = RoutedCopies(m, t, p, tokens) / local;
  for (int i = 0; i < local; ++i) Mlp(m, "expert", per_expert, x.expert_ffn, p.expert_tp, e, false, ops);
  if (x.shared_experts > 0) Mlp(m, "shared_expert", tokens, double(x.shared_experts) * x.shared_ffn, p.tp, e, false, ops);
  return ops;
}

void PermuteOps(const ModelSpec& m, const TrainingSpec& t, const LayerShards& p, Pass pass, bool eager,
                std::vector<Op>& ops) {
  if (!m.moe.enabled()) return;
  // The GPU's own tokens (seq_len / tp of each sequence under sequence
  // parallelism) and their routed copies, each read and written once.
  const double e = ActivationBytes(t.precision), h = m.hidden;
  const double tokens = t.tokens_per_micro_batch() / p.tp;
  const double copies = tokens * m.moe.top_k * t.expert_load();
  const double once = e * h * (tokens + copies);
  const double k = pass == Pass::kBackward ? 2 : 1;
  if (!eager) {
    ops.push_back({"moe_permute", OpKind::kMemory, Flops(0), Bytes(k * once)});
    ops.push_back({"moe_unpermute", OpKind::kMemory, Flops(0), Bytes(k * once)});
    return;
  }
  const double logits = tokens * m.moe.experts * 4;  // fp32 router probabilities
  for (const char* op : {"router_softmax", "router_topk", "router_one_hot"})
    ops.push_back({op, OpKind::kMemory, Flops(0), Bytes(k * 2 * logits)});
  const int local = m.moe.experts / p.ep;
  for (int i = 0; i < local; ++i) {
    ops.push_back({"expert_index", OpKind::kMemory, Flops(0), Bytes(k * once / local)});
    ops.push_back({"expert_index_add", OpKind::kMemory, Flops(0), Bytes(k * once / local)});
  }
}

namespace {

// C(n - c, k) / C(n, k): the chance that k of n experts drawn without
// replacement miss c given ones.
double Misses(double n, double c, int k) {
  double p = 1;
  for (int i = 0; i < k; ++i) p *= std::max(0.0, n - c - i) / (n - i);
  return p;
}

// The hypergeometric chance that j of the `have` groups of `total` are
// among `drawn` drawn.
double Drawn(int total, int have, int drawn, int j) {
  auto choose = [](int n, int r) {
    if (r < 0 || r > n) return 0.0;
    return std::exp(std::lgamma(n + 1.0) - std::lgamma(r + 1.0) - std::lgamma(n - r + 1.0));
  };
  return choose(have, j) * choose(total - have, drawn - j) / choose(total, drawn);
}

}  // namespace

double NodesPerToken(const MoeSpec& x, int nodes) {
  if (nodes <= 1) return 1;
  const double E = x.experts;
  const int G = x.groups;
  const bool nested = G > 0 && (G % nodes == 0 || nodes % G == 0);
  if (!x.group_limited() || !nested) return nodes * (1 - Misses(E, E / nodes, x.top_k));
  // A node holds `have` whole groups (G a multiple of nodes) or a share of
  // one (nodes a multiple of G), `per` experts of each; the token's k
  // experts come from its group_topk groups' pool.
  const int have = G >= nodes ? G / nodes : 1;
  const double per = std::min(E / G, E / nodes), pool = x.group_topk * E / G;
  double none_here = 0;
  for (int j = 0; j <= std::min(have, x.group_topk); ++j)
    none_here += Drawn(G, have, x.group_topk, j) * Misses(pool, j * per, x.top_k);
  return nodes * (1 - none_here);
}

Bytes DispatchBytes(const ModelSpec& m, const TrainingSpec& t, const ParallelSpec& p) {
  if (!m.moe.enabled()) return Bytes(0);
  return Bytes(t.tokens_per_micro_batch() / p.tp * m.moe.top_k * t.expert_load() * m.hidden *
               ActivationBytes(t.precision));
}

}  // namespace pf

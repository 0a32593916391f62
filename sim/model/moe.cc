#include "sim/model/moe.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/model/kbit_upcast.h"

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
  // The block's hidden states are the residual stream's type (fp32 under
  // model/kbit_upcast.h), and so are the copies indexed out of them.
  const double re = ResidualBytes(t);
  const double indexed = re * h * (tokens + copies);
  const int local = m.moe.experts / p.ep;
  for (int i = 0; i < local; ++i) {
    ops.push_back({"expert_index", OpKind::kMemory, Flops(0), Bytes(k * indexed / local)});
    ops.push_back({"expert_index_add", OpKind::kMemory, Flops(0), Bytes(k * indexed / local)});
    if (pass != Pass::kBackward) continue;
    // hidden_states[None, top_x]'s backward (derivatives.yaml: index_backward
    // into grad.new_zeros(self.sizes())) fills a zero tensor the size of the
    // whole block input for each expert, and autograd adds each into the
    // input's gradient (InputBuffer::accumulate: read both, write one).
    ops.push_back({"expert_index_grad_zeros", OpKind::kMemory, Flops(0), Bytes(re * h * tokens)});
    ops.push_back({"expert_grad_accumulate", OpKind::kMemory, Flops(0), Bytes(3 * re * h * tokens)});
  }
}

namespace {

// C(n - c, k) / C(n, k): the chance that k of n experts drawn without
// replacement miss c given ones (0 when fewer than k are left).
double Misses(double n, double c, int k) {
  double p = 1;
  for (int i = 0; i < k; ++i) p *= n - i > 0 ? std::max(0.0, n - c - i) / (n - i) : 0.0;
  return p;
}

double Choose(int n, int r) {
  if (r < 0 || r > n) return 0;
  return std::exp(std::lgamma(n + 1.0) - std::lgamma(r + 1.0) - std::lgamma(n - r + 1.0));
}

// The chance that a token's experts miss node `node` of `nodes` under
// group-limited routing: the node overlaps `whole` groups entirely and up
// to two others in part (the groups and the nodes' experts are both runs
// of consecutive experts); over how many of each the token's group_topk
// groups include, its k experts come from their pool and miss the node's
// share of it.
double MissesNode(const MoeSpec& x, int nodes, int node) {
  const double E = x.experts, per_group = E / x.groups, per_node = E / nodes;
  const double lo = node * per_node, hi = lo + per_node;
  int whole = 0;
  std::vector<double> part;  // the node's experts in each group it shares
  for (int g = static_cast<int>(lo / per_group); g < x.groups && g * per_group < hi; ++g) {
    const double in = std::min(hi, (g + 1) * per_group) - std::max(lo, g * per_group);
    if (in >= per_group) ++whole;
    else if (in > 0) part.push_back(in);
  }
  const int touching = whole + static_cast<int>(part.size());
  const double pool = x.group_topk * per_group;
  double miss = 0;
  for (unsigned mask = 0; mask < (1u << part.size()); ++mask) {
    double share = 0;
    int chosen = 0;
    for (size_t i = 0; i < part.size(); ++i)
      if (mask & (1u << i)) share += part[i], ++chosen;
    for (int j = 0; j <= whole; ++j) {
      const double p = Choose(whole, j) * Choose(x.groups - touching, x.group_topk - j - chosen) /
                       Choose(x.groups, x.group_topk);
      if (p > 0) miss += p * Misses(pool, share + j * per_group, x.top_k);
    }
  }
  return miss;
}

}  // namespace

double NodesPerToken(const MoeSpec& x, int nodes) {
  if (nodes <= 1) return 1;
  const double E = x.experts;
  if (!x.group_limited() || x.top_k > x.group_topk * (E / x.groups))
    return nodes * (1 - Misses(E, E / nodes, x.top_k));
  double reached = 0;
  for (int n = 0; n < nodes; ++n) reached += 1 - MissesNode(x, nodes, n);
  return reached;
}

Bytes DispatchBytes(const ModelSpec& m, const TrainingSpec& t, const ParallelSpec& p) {
  if (!m.moe.enabled()) return Bytes(0);
  return Bytes(t.tokens_per_micro_batch() / p.tp * m.moe.top_k * t.expert_load() * m.hidden *
               ActivationBytes(t.precision));
}

}  // namespace pf

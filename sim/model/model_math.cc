#include "sim/model/model_math.h"

#include "sim/model/kbit_upcast.h"
#include "sim/model/moe.h"
#include "sim/model/stack_kernels.h"
#include "sim/model/vision.h"

#include <algorithm>

namespace pf {
namespace {

double KvDim(const ModelSpec& m) { return double(m.kv_heads) * m.head_dim(); }

// A block's attention weights: Q, K, V and the output projection, or MLA's
// down- and up-projections (DeepSeek-V2's modeling: q_a_proj + its norm +
// q_b_proj, or q_proj; kv_a_proj_with_mqa + kv_a_layernorm; kv_b_proj;
// o_proj).
double AttentionParams(const ModelSpec& m) {
  const double h = m.hidden;
  if (!m.mla.enabled()) return 2 * h * m.q_dim() + 2 * h * KvDim(m);
  const MlaSpec& a = m.mla;
  const double q = a.q_lora > 0 ? h * a.q_lora + a.q_lora + double(a.q_lora) * m.q_dim() : h * m.q_dim();
  const double kv = h * (a.kv_lora + a.qk_rope) + a.kv_lora + double(a.kv_lora) * m.heads * (a.qk_nope + a.v);
  return q + kv + m.v_dim() * h;
}


// Bytes read and written by C = A (m x k) * B (k x n), elements of e bytes.
Op Gemm(std::string name, double m, double k, double n, double e) {
  return {std::move(name), OpKind::kGemm, Flops(2 * m * k * n), Bytes(e * (m * k + k * n + m * n)), m, n, k};
}

// The backward GEMMs of forward C = A (m x k) * B (k x n): the input
// gradient dA = dC (m x n) * B^T, output m x k reduced over n, and the
// weight gradient dB = A^T * dC, output k x n reduced over m.
Op Dgrad(const Op& f) { return {f.name + "_dgrad", OpKind::kGemm, f.flops, f.bytes, f.m, f.k, f.n}; }
Op Wgrad(const Op& f) { return {f.name + "_wgrad", OpKind::kGemm, f.flops, f.bytes, f.k, f.n, f.m}; }
Op Memory(std::string name, double bytes) {
  return {std::move(name), OpKind::kMemory, Flops(0), Bytes(bytes)};
}

// MLA's GEMMs on one TP rank (Megatron-Core's MLA: the down-projections
// replicated, the up-projections and the output split by heads).
std::vector<Op> MlaGemms(const ModelSpec& m, double tokens, int tp, double e) {
  const MlaSpec& a = m.mla;
  const double h = m.hidden;
  std::vector<Op> g;
  if (a.q_lora > 0) {
    g.push_back(Gemm("q_down", tokens, h, a.q_lora, e));
    g.push_back(Gemm("q_up", tokens, a.q_lora, m.q_dim() / tp, e));
  } else {
    g.push_back(Gemm("q_proj", tokens, h, m.q_dim() / tp, e));
  }
  g.push_back(Gemm("kv_down", tokens, h, a.kv_lora + a.qk_rope, e));
  g.push_back(Gemm("kv_up", tokens, a.kv_lora, double(m.heads) / tp * (a.qk_nope + a.v), e));
  g.push_back(Gemm("attn_proj", tokens, m.v_dim() / tp, h, e));
  return g;
}

// The forward GEMMs of one block on one TP rank (Megatron column/row split:
// QKV and MLP-up split by columns, projection and MLP-down by rows). With
// separate projections (Hugging Face's q_proj, k_proj, v_proj, gate_proj,
// up_proj) each is a GEMM of its own.
// The MLP's GEMMs are moe.h's MlpGemms (a dense MLP or the experts).
std::vector<Op> LayerGemms(const ModelSpec& m, const TrainingSpec& t, const LayerShards& shards, double tokens,
                           double e, bool separate) {
  const int tp = shards.tp;
  const double h = m.hidden, q = m.q_dim() / tp, kv_rank = KvDimPerRank(m, tp);
  std::vector<Op> g;
  if (m.mla.enabled())
    g = MlaGemms(m, tokens, tp, e);
  else if (!separate)
    g = {Gemm("qkv", tokens, h, q + 2 * kv_rank, e), Gemm("attn_proj", tokens, q, h, e)};
  else
    g = {Gemm("q_proj", tokens, h, q, e), Gemm("k_proj", tokens, h, kv_rank, e),
         Gemm("v_proj", tokens, h, kv_rank, e), Gemm("attn_proj", tokens, q, h, e)};
  for (Op& op : MlpGemms(m, t, shards, tokens, e, separate)) g.push_back(std::move(op));
  return g;
}

}  // namespace

std::vector<AdaptedLinear> BaseLinears(const ModelSpec& m, const TrainingSpec& t, int tp) {
  const double h = m.hidden, q = m.q_dim() / tp, o = m.v_dim() / tp, kv = KvDimPerRank(m, tp);
  std::vector<AdaptedLinear> all = {{LoraTarget::kQ, h, q}, {LoraTarget::kK, h, kv}, {LoraTarget::kV, h, kv},
                                    {LoraTarget::kO, o, h}};
  auto mlp = [&](double f, double copies, double share) {
    for (LoraTarget x : {LoraTarget::kGate, LoraTarget::kUp})
      all.push_back({x, h, f, copies, share});
    all.push_back({LoraTarget::kDown, f, h, copies, share});
  };
  if (!m.moe.enabled()) {
    mlp(double(m.ffn) / tp, 1, 1);
  } else {
    const MoeSpec& x = m.moe;
    mlp(double(x.expert_ffn) / tp, x.experts, x.top_k * t.expert_load() / x.experts);
    if (x.shared_experts > 0) mlp(double(x.shared_experts) * x.shared_ffn / tp, 1, 1);
  }
  std::vector<AdaptedLinear> out;
  for (const AdaptedLinear& l : all)
    if (l.target != LoraTarget::kGate || m.ffn_kind == FfnKind::kSwiglu) out.push_back(l);
  return out;
}

std::vector<AdaptedLinear> AdaptedLinears(const ModelSpec& m, const TrainingSpec& t, int tp) {
  std::vector<AdaptedLinear> out;
  for (const AdaptedLinear& l : BaseLinears(m, t, tp))
    if (t.lora_targets & Bit(l.target)) out.push_back(l);
  return out;
}

double AdapterWidthPerLayer(const ModelSpec& m, const TrainingSpec& t) {
  double sum = 0;
  for (const AdaptedLinear& l : AdaptedLinears(m, t, 1)) sum += l.copies * (l.in + l.out);
  return sum;
}

double AdapterTokenWidthPerLayer(const ModelSpec& m, const TrainingSpec& t) {
  double sum = 0;
  for (const AdaptedLinear& l : AdaptedLinears(m, t, 1)) sum += l.copies * l.token_share * (l.in + l.out);
  return sum;
}

double KvDimPerRank(const ModelSpec& m, int tp) {
  // MLA: every head's own key and value, (qk + v) / 2 wide on average.
  if (m.mla.enabled()) return double(m.heads) / tp * (m.mla.qk_nope + m.mla.qk_rope + m.mla.v) / 2;
  return std::max(1.0, double(m.kv_heads) / tp) * m.head_dim();
}

double ActivationBytes(Precision p) {
  // bf16/fp16 activations; FP8 recipes (Transformer Engine) keep activations
  // and weights in bf16 outside the GEMM inputs; tf32/fp32 in fp32.
  return ElementBytes(p);
}

ParamCount CountParams(const ModelSpec& m) {
  const double h = m.hidden, kv = KvDim(m), f = m.ffn, q = m.q_dim();
  ParamCount p;
  double attention = AttentionParams(m);
  double mlp = MlpParams(m);
  double biases = m.bias ? (q + 2 * kv) + h + (FfnMatrices(m) - 1) * f + h : 0;  // a dense MLP's (validate.cc)
  double norm = m.layernorm ? 2 * h : h;
  p.per_layer = attention + mlp + biases + 2 * norm;
  p.routed_per_layer = RoutedExpertParams(m);
  p.active_per_layer = p.per_layer - mlp + ActiveMlpParams(m);
  if (m.moe.enabled() && m.moe.dense_layers > 0) {
    const ModelSpec dense = DenseBlockOf(m);
    p.dense_layers = m.moe.dense_layers;
    p.dense_per_layer = p.per_layer - mlp + MlpParams(dense);
  }
  p.embedding = double(m.vocab) * h + (m.position == Position::kLearned ? double(m.max_seq) * h : 0);
  p.lm_head = m.tied_embeddings ? 0 : double(m.vocab) * h;
  p.final_norm = norm;
  return p;
}

bool TiedEmbeddingCopies(const ModelSpec& m, const ParallelSpec& p) {
  return m.tied_embeddings && p.pp > 1;
}

StageParams ParamsPerTpRank(const ModelSpec& m, const ParallelSpec& p, int vstage) {
  const ParamCount pc = CountParams(m);
  const int vstages = p.pp * p.vp;
  StageParams s;
  s.layer_count = LayersOfVirtualStage(m, p, vstage);
  s.dense_count = DenseLayersOfVirtualStage(m, p, vstage);
  const int sparse = s.layer_count - s.dense_count;
  s.experts = pc.routed_per_layer / (double(p.ep) * p.etp()) * sparse;
  s.layers = ((pc.per_layer - pc.routed_per_layer) * sparse + pc.dense_per_layer * s.dense_count) / p.tp + s.experts;
  if (vstage == 0) s.embedding = pc.embedding / p.tp;
  if (vstage == vstages - 1) {
    s.head = (TiedEmbeddingCopies(m, p) ? pc.embedding : pc.lm_head) / p.tp;
    s.final_norm = pc.final_norm;
  }
  return s;
}

TokenFlops ForwardFlopsPerToken(const ModelSpec& m, int seq_len) {
  const double h = m.hidden;
  TokenFlops t;
  // A mixture of experts' top_k; with dense first layers the mean over
  // the layers (so that x layers is the model's).
  const double k = m.moe.enabled() ? m.moe.dense_layers : 0, L = m.layers;
  const ModelSpec dense = DenseBlockOf(m);
  const double mlp = ((L - k) * ActiveMlpParams(m) + k * ActiveMlpParams(dense)) / L;
  const double latent_norms = m.mla.enabled() ? m.mla.kv_lora + m.mla.q_lora : 0;  // weights, not matmuls
  t.layer_matmul = 2 * (AttentionParams(m) - latent_norms + mlp);
  t.layer_attention = 4.0 * m.keys_seen(seq_len) * m.attn_width();  // QK^T and AV, full square (or band, with a window)
  t.lm_head = 2.0 * m.vocab * h;
  return t;
}

StepFlops TrainingStepFlops(const ModelSpec& m, const TrainingSpec& t) {
  if (m.kind == ModelKind::kVision) {  // forward 2 FLOPs per MAC, backward twice that; no recompute
    const Flops step(3 * 2 * CountVision(m.vision).forward_macs * double(t.global_batch));
    return {step, step};
  }
  // Attention over the span a query sees: its sample's under per-sample
  // attention, else the sequence's.
  const TokenFlops f = ForwardFlopsPerToken(m, t.attention_span());
  const double tokens = double(t.global_batch) * t.seq_len;
  const double matmul = f.layer_matmul * m.layers + f.lm_head;
  const double attention = f.layer_attention * m.layers;
  double per_token;
  if (t.method == Method::kFull) {
    per_token = 3 * (matmul + attention);  // backward = 2x forward
  } else {
    // Frozen base: backward computes activation gradients only (1x matmul),
    // attention has no weights so its backward stays 2x; plus adapters.
    per_token = 2 * matmul + 3 * attention + 3 * 2.0 * t.lora_rank * AdapterTokenWidthPerLayer(m, t) * m.layers;
  }
  double recompute = 0;
  if (t.recompute == Recompute::kFull) recompute = (f.layer_matmul + f.layer_attention) * m.layers;
  if (t.recompute == Recompute::kSelective) {  // the attention core, and the matmul FLOPs of the modules listed
    if (t.recomputes(RecomputeModule::kCoreAttn)) recompute = f.layer_attention * m.layers;
    const std::vector<Op> fwd = LayerOps(m, t, LayerShards(1), Pass::kForward, t.method != Method::kFull);
    double all = 0, again = 0;
    for (const Op& op : fwd)
      if (op.kind == OpKind::kGemm && op.m > 0) all += op.flops.value();
    for (const Op& op : SelectiveRecomputed(m, t, fwd))  // plain GEMMs (the attention core's are counted above)
      if (op.kind == OpKind::kGemm && op.m > 0) again += op.flops.value();
    recompute += all > 0 ? f.layer_matmul * m.layers * again / all : 0;
  }
  if (t.recompute == Recompute::kSelectiveOp) {  // the matmul FLOPs of the ones it recomputes
    const std::vector<Op> fwd = LayerOps(m, t, LayerShards(1), Pass::kForward, t.method != Method::kFull);
    double all = 0, again = 0;
    for (const Op& op : fwd)
      if (op.kind == OpKind::kGemm && op.m > 0) all += op.flops.value();
    for (const Op& op : OpCheckpointRecomputed(fwd))
      if (op.kind == OpKind::kGemm) again += op.flops.value();
    recompute = all > 0 ? f.layer_matmul * m.layers * again / all : 0;
  }
  // The model learns from the useful tokens; the GPUs also compute the pads
  // of unpacked sequences.
  const double useful = t.tokens_per_step();
  return {Flops(per_token * useful), Flops((per_token + recompute) * tokens)};
}

Bytes HiddenStateBytes(const ModelSpec& m, const TrainingSpec& t) {
  return Bytes(t.tokens_per_micro_batch() * m.hidden * ActivationBytes(t.precision));
}

namespace {

// The attention core of one block: FlashAttention, or unfused scores,
// softmax/dropout and values.
// `context`: the rank's queries are 1/context of the sequence and attend to
// all of its keys (context parallelism with causal load balancing: each
// rank does 1/context of the whole sequence's attention).
void AttentionOps(const ModelSpec& m, const TrainingSpec& t, int tp, int context, bool bwd, std::vector<Op>& ops) {
  const double e = ActivationBytes(t.precision);
  const double b = t.micro_batch, s = t.seq_len, h = m.attn_width(), keys = double(t.seq_len) * context;
  const double tokens = b * s;
  const double bsh = tokens * h;
  const double heads = double(m.heads) / tp;
  const double mem_factor = bwd ? 2.0 : 1.0;
  if (t.attention != Attention::kUnfused) {
    // FlashAttention (Dao 2022): causal kernels skip the masked half, and
    // with a sliding window w the blocks before it (a query sees on average
    // S/2 keys, or w - w^2/(2S) once S > w, on the window's share of the
    // layers); the backward runs 5 matmuls to
    // the forward's 2 (2.5x).
    // Packed samples attending per sample see their own sample's keys
    // (variable-length kernel; spec.h attention_span).
    // (Under context parallelism the rank's view divides seq_len and
    // sample_len by `context`; keys are the whole sequence's.)
    const double span = t.attends_per_sample() ? std::min(keys, double(t.sample_len) * context) : keys;
    const double banded = m.window - double(m.window) * m.window / (2 * span);
    const double seen = m.window > 0 && m.window < span ? m.window_share * banded + (1 - m.window_share) * 0.5 * span
                                                        : 0.5 * span;
    double fwd = 4 * b * s * seen * h / tp;
    double qkvo = e * tokens * (2 * h / tp + 2 * KvDimPerRank(m, tp) * context);
    Op op{bwd ? "flash_attn_bwd" : "flash_attn", OpKind::kAttention, Flops(bwd ? 2.5 * fwd : fwd),
          Bytes(mem_factor * qkvo)};
    op.kernel = t.attention;
    ops.push_back(op);
    return;
  }
  // Unfused: scores and AV as batched GEMMs over the full square, softmax,
  // mask and dropout over b x heads x s x s elements: 7 bytes written and
  // 6 read per element (Korthikanti et al. 2022 store 5 of them), in
  // Megatron's fused scale-mask-softmax.
  double score = 2 * b * s * keys * h / tp;
  double score_bytes = e * b * heads * s * keys;
  const double elementwise = EagerLayers(t)
                                 ? EagerSoftmaxBytesPerScore(t.precision, bwd ? Pass::kBackward : Pass::kForward) / e
                                 : 13.0 / 2.0;
  int copies = bwd ? 2 : 1;
  for (int i = 0; i < copies; ++i) {
    ops.push_back({"attn_scores", OpKind::kGemm, Flops(score), Bytes(score_bytes + 2 * e * bsh / tp)});
    ops.push_back({"attn_values", OpKind::kGemm, Flops(score), Bytes(score_bytes + 2 * e * bsh / tp)});
  }
  ops.push_back(Memory("softmax_dropout", elementwise * score_bytes));
}

}  // namespace

double EagerSoftmaxBytesPerScore(Precision precision, Pass pass) {
  // Eager Hugging Face attention (Llama's "eager", transformers 4.3x) runs
  // the chain op by op over scores of e bytes: divide by sqrt(d) (read and
  // write e), add the mask (e + e), softmax in fp32, cast back; dropout at
  // p = 0 returns its input (ATen's _dropout_impl). ATen's softmax with
  // dtype=float32 upcasts inside its kernel only for fp16 (SoftMax.cpp:
  // the half_to_float path); bf16 scores are cast first (read 2, write 4)
  // and the softmax runs on fp32 (4 + 4). The backward reverses each cast,
  // runs the fp32 softmax's (read grad and output 4 + 4, write 4, or e into
  // fp16 directly) and the divide's (e + e).
  const double e = ActivationBytes(precision);
  if (e >= 4) return pass == Pass::kForward ? 6 * e : 5 * e;  // no casts: divide, mask, softmax; 3e + 2e back
  const bool fused_upcast = precision == Precision::kFp16;
  if (pass == Pass::kForward)  // divide, mask, [cast], softmax, cast back
    return 4 * e + (fused_upcast ? e + 4 : (e + 4) + 8) + (4 + e);
  // cast back's backward, softmax backward, [cast's backward], divide's
  return (e + 4) + (fused_upcast ? 8 + e : 12 + (4 + e)) + 2 * e;
}

namespace {

// What the recipe adds to a block: FP8 casts (LoRA adapters and NF4
// dequantisation are stack kernels, stack_kernels.h).
void RecipeOps(const ModelSpec& m, const TrainingSpec& t, const LayerShards& p, bool bwd, std::vector<Op>& ops) {
  if (t.precision != Precision::kFp8) return;
  // FP8 GEMMs take FP8 operands: Transformer Engine casts each GEMM's
  // activation input (forward) and incoming gradient (backward) from bf16.
  // Hopper's FP8 tensor cores take only the TN layout, so the weight
  // gradient needs both operands transposed: TE's fused cast-transpose
  // writes the row-wise and the column-wise copy in one pass, reading 2 B
  // and writing 1 B twice per element (transformer_engine/common/transpose/
  // cast_transpose.cu; Micikevicius et al. 2022, "FP8 Formats for Deep
  // Learning"). Weights are cast once per step, ignored.
  constexpr double kCastTransposeBytes = 4;
  const int tp = p.tp;
  const double h = m.hidden;
  const double tokens = t.tokens_per_micro_batch();
  const double q = m.q_dim() / tp;
  const double attn_in = tokens * (h + q), attn_grads = tokens * ((q + 2 * KvDimPerRank(m, tp)) + h);
  const double gate = m.ffn_kind == FfnKind::kSwiglu ? 2 : 1;
  double mlp_in = tokens * (h + m.ffn / tp), mlp_grads = tokens * (gate * m.ffn / tp + h);
  if (m.moe.enabled()) {
    // The experts cast their routed copies of the tokens (moe.h
    // RoutedCopies), each of hidden in and expert_ffn / expert_tp wide; the
    // shared experts cast the tokens once, split by tp.
    const MoeSpec& x = m.moe;
    const double routed = RoutedCopies(m, t, p, tokens);
    const double w = double(x.expert_ffn) / p.expert_tp, shared = double(x.shared_experts) * x.shared_ffn / tp;
    mlp_in = routed * (h + w) + (x.shared_experts > 0 ? tokens * (h + shared) : 0);
    mlp_grads = routed * (gate * w + h) + (x.shared_experts > 0 ? tokens * (gate * shared + h) : 0);
  }
  ops.push_back(Memory("fp8_cast", kCastTransposeBytes * (bwd ? attn_grads + mlp_grads : attn_in + mlp_in)));
}

}  // namespace

LayerShards ShardsOf(const ParallelSpec& p) {
  LayerShards x(p.tp, p.sp, p.context_group);
  x.ep = p.ep;
  x.expert_tp = p.etp();
  return x;
}

namespace {

// Whether the policy of OpCheckpointRecomputed keeps op `i` of `fwd`.
std::vector<bool> OpCheckpointKeeps(const std::vector<Op>& fwd) {
  std::vector<bool> keep(fwd.size(), false);
  int matmuls = 0;
  for (size_t i = 0; i < fwd.size(); ++i) {
    if (fwd[i].kind == OpKind::kAttention) keep[i] = true;
    if (fwd[i].kind == OpKind::kGemm && fwd[i].m > 0) keep[i] = ++matmuls % 2 == 1;
  }
  return keep;
}

}  // namespace

std::vector<Op> OpCheckpointRecomputed(const std::vector<Op>& fwd) {
  const std::vector<bool> keep = OpCheckpointKeeps(fwd);
  std::vector<Op> out;
  for (size_t i = 0; i < fwd.size(); ++i)
    if (!keep[i]) out.push_back(fwd[i]);
  return out;
}

std::vector<Op> SelectiveRecomputed(const ModelSpec& m, const TrainingSpec& t, const std::vector<Op>& fwd) {
  std::vector<Op> out;
  if (t.recompute != Recompute::kSelective) return out;
  auto in = [](const std::string& name, std::initializer_list<const char*> names) {
    for (const char* n : names)
      if (name == n) return true;
    return false;
  };
  const bool dense = !m.moe.enabled();
  // The routed experts' share of the activation kernel (moe.h MlpWidth).
  const double routed = dense ? 0 : m.moe.top_k * double(m.moe.expert_ffn) * t.expert_load() / MlpWidth(m, t);
  for (const Op& op : fwd) {
    const bool activation = in(op.name, {"swiglu", "gelu", "glu_clamp"});
    if ((t.recomputes(RecomputeModule::kCoreAttn) &&
         (op.kind == OpKind::kAttention || in(op.name, {"attn_scores", "attn_values", "softmax_dropout"}))) ||
        (t.recomputes(RecomputeModule::kLayernorm) && in(op.name, {"norm1", "norm2"})) ||
        // MLA's up-projections and RoPE; without a query latent the query's
        // projection is among them (Megatron-Core's qkv_up_proj_and_rope_apply).
        (t.recomputes(RecomputeModule::kMlaUpProj) && m.mla.enabled() &&
         (in(op.name, {"q_up", "kv_up", "rope"}) || (m.mla.q_lora == 0 && op.name == "q_proj"))) ||
        (t.recomputes(RecomputeModule::kMlp) && dense && (activation || in(op.name, {"mlp_up", "mlp_down"})))) {
      out.push_back(op);
    } else if (t.recomputes(RecomputeModule::kMoeAct) && !dense && activation) {
      Op share = op;
      share.flops = Flops(op.flops.value() * routed);
      share.bytes = Bytes(op.bytes.value() * routed);
      out.push_back(share);
    }
  }
  return out;
}

double OpCheckpointKeptMatmulOutputs(const std::vector<Op>& fwd) {
  const std::vector<bool> keep = OpCheckpointKeeps(fwd);
  double elements = 0;
  for (size_t i = 0; i < fwd.size(); ++i)
    if (keep[i] && fwd[i].kind == OpKind::kGemm) elements += fwd[i].m * fwd[i].n;
  return elements;
}

std::vector<Op> LayerOps(const ModelSpec& m, const TrainingSpec& t, LayerShards shards, Pass pass, bool frozen) {
  const int tp = shards.tp;
  const StackTraits st = TraitsOf(t);
  const BlockShape shape = BlockShape::Of(m, t, tp);
  BlockShape norm_shape = shape;  // sequence-parallel norms see their rank's tokens
  norm_shape.tokens *= shards.token_share();
  const double e = shape.e;
  const double tokens = shape.tokens;
  const double bsh = tokens * m.hidden * shards.token_share();  // the residual adds
  const bool bwd = pass == Pass::kBackward;
  // Elementwise kernels move about twice the bytes in backward (read the
  // saved input and the incoming gradient, write the outgoing gradient).
  const double mem_factor = bwd ? 2.0 : 1.0;
  // Under model/kbit_upcast.h the rotary embedding, the MLP activation and
  // the adapters' adds run on the fp32 outputs of the 4-bit linears.
  BlockShape wide = shape;
  wide.e = shape.re;
  const double re = shape.re;
  std::vector<Op> ops;
  NormOps(m, norm_shape, st, pass, "norm1", ops);
  for (Op g : LayerGemms(m, t, shards, tokens, e, st.separate_projections)) {
    if (!bwd) { ops.push_back(g); continue; }
    ops.push_back(Dgrad(g));
    if (!frozen) ops.push_back(Wgrad(g));
  }
  RopeOps(m, wide, st, pass, ops);
  KvRepeatOps(shape, st, pass, ops);
  AttentionOps(m, t, tp, shards.context, bwd, ops);
  // The residual adds: the stream read and written, the branch's output read
  // (and a dropout mask's byte where the model drops out); the attention's
  // branch is 16-bit.
  const double mask = m.dropout > 0 ? 1 : 0;
  ops.push_back(Memory("residual1", mem_factor * bsh * (2 * re + e + mask)));
  NormOps(m, norm_shape, st, pass, "norm2", ops);
  // Hugging Face's sparse MoE blocks (Mixtral, Qwen2/3-MoE, GPT-OSS) loop
  // over the local experts in Python, each running its own activation.
  const int loops = m.moe.enabled() ? m.moe.experts / std::max(1, shards.ep) + (m.moe.shared_experts > 0 ? 1 : 0) : 1;
  ActivationOps(m, wide, st, pass, ops, loops);
  PermuteOps(m, t, shards, pass, st.kernels == Kernels::kEager, ops);
  ops.push_back(Memory("residual2", mem_factor * bsh * (3 * re + mask)));
  RecipeOps(m, t, shards, bwd, ops);
  Nf4DequantOps(m, t, shape, ops);
  AdapterOps(m, t, wide, st, pass, ops);
  UpcastCastOps(m, t, shape, pass, ops);
  return ops;
}

std::vector<Op> EmbeddingOps(const ModelSpec& m, const TrainingSpec& t, int, Pass pass) {
  const double e = ActivationBytes(t.precision);
  const double bsh = t.tokens_per_micro_batch() * m.hidden;
  if (pass == Pass::kBackward && t.method != Method::kFull) return {};
  return {Memory(pass == Pass::kForward ? "embedding" : "embedding_grad", 2 * bsh * e)};
}

std::vector<Op> HeadOps(const ModelSpec& m, const TrainingSpec& t, int tp, Pass pass, bool frozen) {
  const double e = ActivationBytes(t.precision);
  const double tokens = t.tokens_per_micro_batch();
  Op logits = Gemm("logits", tokens, m.hidden, double(m.vocab) / tp, e);
  // An fp32 LM head (model/kbit_upcast.h): autocast casts it to 16 bits at
  // each forward.
  const Op head_cast = Memory("head_weight_cast", EdgesUpcast(t) ? double(m.vocab) / tp * m.hidden * (4 + e) : 0);
  // Softmax cross-entropy over the vocabulary shard, as the stack runs it
  // (stack_kernels.h LossTrafficPerLogit).
  const double loss_bytes = tokens * double(m.vocab) / tp * LossTrafficPerLogit(LossOf(t), e, pass);
  if (pass == Pass::kForward && EdgesUpcast(t))
    return {Memory("final_norm", 2 * tokens * m.hidden * e), head_cast, logits, Memory("cross_entropy", loss_bytes)};
  if (pass == Pass::kForward) return {Memory("final_norm", 2 * tokens * m.hidden * e), logits,
                                      Memory("cross_entropy", loss_bytes)};
  std::vector<Op> ops{Memory("cross_entropy_bwd", loss_bytes), Dgrad(logits)};
  if (!frozen) ops.push_back(Wgrad(logits));
  return ops;
}

}  // namespace pf

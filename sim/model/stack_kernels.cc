#include "sim/model/stack_kernels.h"

#include <algorithm>

#include "sim/model/eager_kernels.h"
#include "sim/model/kbit_upcast.h"
#include "sim/model/moe.h"

#include "sim/spec/names.h"

namespace pf {

BlockShape BlockShape::Of(const ModelSpec& m, const TrainingSpec& t, int tp) {
  BlockShape b;
  b.tp = tp;
  b.tokens = t.tokens_per_micro_batch();
  b.hidden = m.hidden;
  b.q = m.q_dim() / tp;
  b.kv = KvDimPerRank(m, tp);
  b.ffn = MlpWidth(m, t) / tp;  // a mixture of experts: its routed tokens' share
  b.e = ActivationBytes(t.precision);
  b.re = ResidualBytes(t);
  return b;
}

void NormOps(const ModelSpec& m, const BlockShape& b, const StackTraits& st, Pass pass, const char* name,
             std::vector<Op>& ops) {
  // The norm reads and writes the residual stream's type (fp32 under
  // model/kbit_upcast.h, whose casts to and from fp32 are then no-ops that
  // launch nothing).
  const double n = b.tokens * b.hidden, e = b.re;
  const double factor = pass == Pass::kBackward ? 2.0 : 1.0;
  if (st.kernels == Kernels::kFused || m.layernorm) {  // torch's layer_norm is one native kernel
    ops.push_back(KernelOp(name, factor * 2 * n * e));
    return;
  }
  const std::string s = name;
  const bool upcast = b.re != b.e;
  const double t = b.tokens;
  std::vector<EagerStep> steps;
  if (!upcast) steps.push_back({s + "_to_fp32", n * (e + 4), {}, {}, n * 4});
  steps.push_back({s + "_pow", n * 8, {upcast ? 0 : n * 4}, {}, n * 4});
  steps.push_back({s + "_mean", n * 4, {n * 4}, {}, t * 4});
  steps.push_back({s + "_add_eps", t * 8, {t * 4}, {}, t * 4});
  steps.push_back({s + "_rsqrt", t * 8, {t * 4}, {}, t * 4});
  // x * rsqrt: and the fp32 cast, 5 kernels back.
  steps.push_back({s + "_mul", n * 8, {t * 4}, {upcast ? 0 : n * 4, 5}, n * 4});
  if (!upcast) steps.push_back({s + "_to_bf16", n * (4 + e), {n * 4}, {}, n * e});
  steps.push_back({s + "_mul_weight", n * 2 * e, {n * e}});
  EagerSteps(ops, pass, steps);
}

void RopeOps(const ModelSpec& m, const BlockShape& b, const StackTraits& st, Pass pass, std::vector<Op>& ops) {
  if (m.position != Position::kRope) return;
  const double e = b.e, qk = b.tokens * (b.q + b.kv);
  const double factor = pass == Pass::kBackward ? 2.0 : 1.0;
  if (st.kernels == Kernels::kFused) {
    ops.push_back(KernelOp("rope", factor * 2 * qk * e));
    return;
  }
  if (st.rope_fp32_pairs) {
    // Per element of q and k: the cast up (e + 4 B), four multiplies each
    // over a half (read a strided fp32 half, write one: 4 B of the whole),
    // the subtract and the add (two halves read, one written: 6 B each),
    // the stack (8 B) and the cast back (4 + e); the table of cos and sin
    // is gathered for the positions (4 B a rotated pair), not recomputed.
    if (pass == Pass::kForward) ops.push_back(KernelOp("rope_cache_gather", b.tokens * m.head_dim() * 4));
    const double half = qk * 2;  // one fp32 half
    // In Python's order: torch.stack([re * cos - im * sin, im * cos + re *
    // sin]), each half read from the cast (torchtune
    // modules/position_embeddings.py).
    EagerSteps(ops, pass,
               {{"rope_to_fp32", qk * (e + 4)},
                {"rope_mul_re_cos", qk * 4, {half}},
                {"rope_mul_im_sin", qk * 4, {half, 2}},
                {"rope_sub", qk * 6, {2 * half, 2}},
                {"rope_mul_im_cos", qk * 4, {half, 4}},
                {"rope_mul_re_sin", qk * 4, {half, 5}},
                {"rope_add", qk * 6, {2 * half, 2}},
                {"rope_stack", qk * 8, {2 * half, 4}, {}, qk * 4},  // the difference 4 back, the sum 1
                {"rope_to_bf16", qk * (4 + e), {qk * 4}}});
    return;
  }
  if (pass == Pass::kForward) {  // LlamaRotaryEmbedding per layer: inv_freq x positions, cat, cos, sin, casts
    const double table = b.tokens * m.head_dim() * 4;
    for (const char* k : {"rope_freqs", "rope_cat", "rope_cos", "rope_sin", "rope_cos_cast", "rope_sin_cast"})
      ops.push_back(KernelOp(k, table));
  }
  // q * cos + rotate_half(q) * sin: neg reads q's second half, cat it and
  // q's first half, the add both products (q x cos four kernels back).
  // Backward the add launches nothing: the products' gradients read the
  // attention's.
  EagerSteps(ops, pass,
             {{"rope_mul_cos", qk * 2 * e},
              {"rope_neg", qk * e, {}, {}, qk * e / 2},
              {"rope_cat", qk * 2 * e, {qk * e / 2}, {}, qk * e},
              {"rope_mul_sin", qk * 2 * e, {qk * e}},
              {"rope_add", qk * 3 * e, {qk * e}, {qk * e, 4}}});
}

void KvRepeatOps(const BlockShape& b, const StackTraits& st, Pass pass, std::vector<Op>& ops) {
  if (!st.repeats_kv) return;
  const std::string suffix = pass == Pass::kBackward ? "_bwd" : "";
  if (b.q > b.kv) ops.push_back(KernelOp("kv_repeat" + suffix, b.tokens * 2 * (b.kv + b.q) * b.e));
  ops.push_back(KernelOp("attn_out_copy" + suffix, b.tokens * 2 * b.q * b.e));
}

void ActivationOps(const ModelSpec& m, const BlockShape& b, const StackTraits& st, Pass pass,
                   std::vector<Op>& ops, int loops) {
  const double e = b.e;
  const double factor = pass == Pass::kBackward ? 2.0 : 1.0;
  const bool swiglu = m.ffn_kind == FfnKind::kSwiglu;
  const bool clamped = swiglu && m.glu_clamp > 0;
  if (st.kernels == Kernels::kFused || !swiglu) {  // nn.GELU is one native kernel
    const double act = b.tokens * b.ffn;
    ops.push_back(KernelOp(swiglu ? "swiglu" : "gelu", factor * (swiglu ? 3 : 2) * act * e));
    // GPT-OSS's clamped halves on Megatron-Core (stack.h glu_clamp_unfused):
    // forward two clamps, each reading and writing a half, and a cat reading
    // and writing both (8 act e); backward each clamp's gradient reads the
    // incoming gradient and its input and writes one (6 act e; the cat's
    // gradient is a view).
    if (clamped && st.glu_clamp_unfused)
      ops.push_back(KernelOp("glu_clamp", (pass == Pass::kBackward ? 6 : 8) * act * e));
    return;
  }
  const int n = std::max(1, loops);
  const double act = b.tokens * b.ffn / n;
  for (int loop = 0; loop < n; ++loop) {
    if (clamped) {
      // transformers' GptOssExperts (modeling_gpt_oss.py): gate and up
      // sliced from the projection, gate.clamp(max=limit),
      // up.clamp(-limit, limit), glu = gate * torch.sigmoid(gate * alpha),
      // (up + 1) * glu: seven kernels where a SwiGLU runs two.
      const double a = act * e;
      // In Python's order; backward claims no reuse (the products' inputs
      // fan out).
      EagerSteps(ops, pass,
                 {{"gate_clamp", 2 * a},
                  {"up_clamp", 2 * a},
                  {"gate_alpha", 2 * a, {a, 2}},
                  {"sigmoid", 2 * a, {a}},
                  {"gate_mul_sigmoid", 3 * a, {2 * a, 4}},  // the sigmoid (1 back) and the clamped gate (4)
                  {"up_plus_one", 2 * a, {a, 4}},
                  {"glu_mul_up", 3 * a, {2 * a, 2}}});
    } else {
      // act_fn(gate_proj(x)) * up_proj(x): the up projection's GEMM runs
      // between the two (outside the chain), and backward its gradient
      // GEMMs between the product's backward and the SiLU's.
      EagerSteps(ops, pass, {{"silu", act * 2 * e}, {"gate_mul_up", act * 3 * e}});
    }
  }
}

void Nf4DequantOps(const ModelSpec& m, const TrainingSpec& t, const BlockShape& b, std::vector<Op>& ops) {
  if (t.method != Method::kQlora) return;
  // bitsandbytes' dequantize_4bit (and Unsloth's fast_dequantize, which
  // calls the same kernels) on every 4-bit base weight each time its
  // linear runs, adapted or not: QLoRA quantizes every linear layer but the
  // LM head (transformers' get_keys_to_not_convert), the frozen ones too.
  // Forward, and again in backward for the input gradient (bitsandbytes
  // MatMul4Bit.backward: grad_A = grad_output @ dequantize_4bit(B).t()).
  // With double quantization (memory_model.cc: 4.127 bits) each call first
  // dequantizes the 8-bit absmax (a byte read and an fp32 written per
  // 64-weight block) and adds its offset (functional.py dequantize_4bit:
  // quant_state.nested), then expands the weights: 0.5 B read and 2 B
  // written per parameter. A mixture of experts dequantizes every local
  // expert's weights, in Hugging Face's loop or Unsloth's alike, and its
  // router.
  for (const FourBitWeight& w : FourBitWeights(m, t, b.tp)) {
    const double blocks = w.params / 64;
    ops.push_back(KernelOp(w.name + "_absmax_dequant", blocks * (1 + 4)));
    ops.push_back(KernelOp(w.name + "_absmax_offset", blocks * 8));
    ops.push_back(KernelOp(w.name + "_nf4_dequant", 2.5 * w.params));
  }
}

std::vector<FourBitWeight> FourBitWeights(const ModelSpec& m, const TrainingSpec& t, int tp) {
  std::vector<FourBitWeight> out;
  for (const AdaptedLinear& l : BaseLinears(m, t, tp))
    for (int copy = 0; copy < l.copies; ++copy)
      out.push_back({ToString(l.target), l.in * l.out, l.target == LoraTarget::kO});
  if (m.moe.enabled()) out.push_back({"router", double(m.hidden) * m.moe.experts, false});
  return out;
}

double LossTrafficPerLogit(Loss loss, double e, Pass pass) {
  const bool fwd = pass == Pass::kForward;
  switch (loss) {
    // megatron/core/tensor_parallel/cross_entropy.py (Megatron-LM @ f2e5db40),
    // one kernel per line: forward .float() (read e, write 4), max (read 4),
    // -= max (4 + 4), exp out= (4 + 4), sum (read 4), div_ (4 + 4); backward
    // mul_ by the incoming gradient (4 + 4) and the .float()'s gradient back
    // to 16 bits (read 4, write e).
    case Loss::kVocabParallel: return fwd ? e + 4 + 4 + 8 + 8 + 4 + 8 : 8 + 4 + e;
    // megatron/core/fusions/fused_cross_entropy.py: the same ops in three
    // jit-fused forward kernels (cast with max, subtract-exp-sum, divide) and
    // one backward kernel (read the softmax, write the 16-bit gradient).
    case Loss::kVocabParallelFused: return fwd ? (e + 4) + 8 + 8 : 4 + e;
    case Loss::kTorchSoftmax: return e + 4 + 4;  // logits read, fp32 softmax written and read back
    case Loss::kFp32Logits: return e + 4 + 4 + 4;  // plus the fp32 copy written and read
    // Plus the shifted fp32 copy written and read (and in backward the
    // slice's gradient, zero-filled and copied into).
    case Loss::kFp32ShiftedCopy:
    case Loss::kFp32InModel: return e + 4 + 4 + 4 + 8;
    case Loss::kFp32Model: return e + 4 + 4 + 4;   // the model's cast, then as kFp32Logits
    // The model's cast (e + 4), then Inductor's kernel: forward the logits
    // read once (an online log-sum-exp), backward read and the gradient
    // written, and the cast's gradient back to e bytes.
    case Loss::kFp32ModelCompiled: return fwd ? e + 4 + 4 : 4 + 4 + 4 + e;
    // Per chunk, the loss's own cast (e + 4), then as kFp32Model.
    case Loss::kFp32ModelChunked: return e + 4 + 4 + 4;
    // Per chunk, Inductor's kernel: forward the 16-bit logits read once,
    // backward read again and their 16-bit gradient written.
    case Loss::kChunkedCompiled: return fwd ? e : e + e;
    case Loss::kChunked: return e;                 // the 16-bit logits read once
  }
  return e + 4 + 4;
}

double LogitsBytesPerElement(Loss loss, double e) {
  switch (loss) {
    case Loss::kVocabParallel:
    case Loss::kVocabParallelFused:
    case Loss::kTorchSoftmax: return e + 4;       // the logits and their fp32 softmax
    case Loss::kFp32Logits: return e + 4 + 4;     // plus the fp32 copy of the logits
    case Loss::kFp32ShiftedCopy: return e + 4 + 4 + 4;  // plus the shifted fp32 copy
    case Loss::kFp32InModel: return 4 + 4 + 4;    // the fp32 logits, the shifted copy, the log-softmax
    // The fp32 log-softmax the loss keeps, and at the backward's start its
    // incoming gradient (nll_loss_backward's zero-filled scatter) and its
    // outgoing one (_log_softmax_backward_data), every layer still alive;
    // the fp32 logits are freed once the log-softmax has read them (the
    // recipe's `del logits`).
    case Loss::kFp32Model: return 4 + 4 + 4;
    // Compiled: the fp32 logits it saves and, in the backward, their
    // gradient.
    case Loss::kFp32ModelCompiled: return 4 + 4;
    // Every chunk's fp32 log-softmax, and at the backward's start one
    // chunk's incoming and outgoing fp32 gradients (kFp32Model's, by chunk)
    // and the 16-bit one its cast hands the LM head; the 16-bit logits are
    // freed (the recipe's `del logits`: nothing saves them).
    case Loss::kFp32ModelChunked: return 4 + (4 + 4 + e) / kLossChunks;
    // The 16-bit chunks the compiled kernels save, and one chunk's 16-bit
    // gradient at a time.
    case Loss::kChunkedCompiled: return e + e / kLossChunks;
    case Loss::kChunked: return e;                // only the 16-bit logits
  }
  return e + 4;
}

}  // namespace pf

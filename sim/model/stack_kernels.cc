#include "sim/model/stack_kernels.h"

#include <algorithm>

#include "sim/model/kbit_upcast.h"
#include "sim/model/l2_reuse.h"
#include "sim/model/moe.h"

#include "sim/spec/names.h"

namespace pf {
namespace {

Op Kernel(std::string name, double bytes, double flops = 0) {
  return {std::move(name), OpKind::kMemory, Flops(flops), Bytes(bytes)};
}

// Eager PyTorch's backward of an elementwise op: autograd computes a
// gradient for each input it needs (derivatives.yaml: mul's backward is two
// muls, pow's a pow and a mul), each reading the saved tensors and the
// incoming gradient: two kernels moving twice the forward's bytes.
void EagerKernel(EagerChain& chain, Pass pass, const std::string& name, double bytes, FreshRead fresh = {}) {
  if (pass == Pass::kForward) {
    chain.Launch(Kernel(name, bytes), {fresh});
    return;
  }
  chain.Launch(Kernel(name + "_bwd", bytes), {fresh});
  chain.Launch(Kernel(name + "_bwd2", bytes), {{fresh.bytes, fresh.back + 1}});
}

// One elementwise op of an eager chain, in launch order: its forward
// bytes; what it reads that ops launched just before it in the chain wrote
// (model/l2_reuse.h; nothing where its input comes from outside the chain:
// a GEMM, the residual stream); and `grad`, the bytes of its output's
// gradient that the next op's backward writes just before this op's
// backward reads it (0 where the next op does not read this one's output,
// or its backward launches no kernel: an add's passes the gradient on).
struct EagerStep {
  std::string name;
  double bytes = 0;
  FreshRead fresh = {}, also = {};
  double grad = 0;
};

// Eager ops in order: forward one kernel each; backward in reverse, each
// op's two kernels (EagerKernel) reading the incoming gradient the next
// op's backward has just written.
void EagerSteps(std::vector<Op>& ops, Pass pass, const std::vector<EagerStep>& steps) {
  EagerChain chain(ops);
  if (pass == Pass::kForward) {
    for (const EagerStep& s : steps) chain.Launch(Kernel(s.name, s.bytes), {s.fresh, s.also});
    return;
  }
  for (size_t k = steps.size(); k-- > 0;) EagerKernel(chain, pass, steps[k].name, steps[k].bytes, {steps[k].grad, 2});
}

}  // namespace

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
    ops.push_back(Kernel(name, factor * 2 * n * e));
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
    ops.push_back(Kernel("rope", factor * 2 * qk * e));
    return;
  }
  if (st.rope_fp32_pairs) {
    // Per element of q and k: the cast up (e + 4 B), four multiplies each
    // over a half (read a strided fp32 half, write one: 4 B of the whole),
    // the subtract and the add (two halves read, one written: 6 B each),
    // the stack (8 B) and the cast back (4 + e); the table of cos and sin
    // is gathered for the positions (4 B a rotated pair), not recomputed.
    if (pass == Pass::kForward) ops.push_back(Kernel("rope_cache_gather", b.tokens * m.head_dim() * 4));
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
      ops.push_back(Kernel(k, table));
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
  if (b.q > b.kv) ops.push_back(Kernel("kv_repeat" + suffix, b.tokens * 2 * (b.kv + b.q) * b.e));
  ops.push_back(Kernel("attn_out_copy" + suffix, b.tokens * 2 * b.q * b.e));
}

void ActivationOps(const ModelSpec& m, const BlockShape& b, const StackTraits& st, Pass pass,
                   std::vector<Op>& ops, int loops) {
  const double e = b.e;
  const double factor = pass == Pass::kBackward ? 2.0 : 1.0;
  const bool swiglu = m.ffn_kind == FfnKind::kSwiglu;
  const bool clamped = swiglu && m.glu_clamp > 0;
  if (st.kernels == Kernels::kFused || !swiglu) {  // nn.GELU is one native kernel
    const double act = b.tokens * b.ffn;
    ops.push_back(Kernel(swiglu ? "swiglu" : "gelu", factor * (swiglu ? 3 : 2) * act * e));
    // GPT-OSS's clamped halves on Megatron-Core (stack.h glu_clamp_unfused):
    // forward two clamps, each reading and writing a half, and a cat reading
    // and writing both (8 act e); backward each clamp's gradient reads the
    // incoming gradient and its input and writes one (6 act e; the cat's
    // gradient is a view).
    if (clamped && st.glu_clamp_unfused)
      ops.push_back(Kernel("glu_clamp", (pass == Pass::kBackward ? 6 : 8) * act * e));
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

namespace {

// PEFT's DoRA (tuners/lora/dora.py DoraLinearLayer.forward and
// variants.py DoraLinearVariant.forward @ 5d602fdb), each call a kernel.
// The adapters are fp32 (autocast_adapter_dtype). lora.Linear casts the
// input to their fp32 with autocast or without (_cast_input_dtype), so
// DoRA's weight-side tensors are fp32; bnb's 4-bit Linear casts it only
// without autocast (lora/bnb.py), so under QLoRA with autocast they stay
// 16-bit. Every forward, after the input's cast and dropout and before
// lora_A(x): lora_weight = lora_B(lora_A(eye(in))).T, an in x in fp32
// identity through both adapters (under autocast cast to 16 bits first,
// and the 16-bit product cast to the input's type after); the base weight
// in the input's type (dequantized first under QLoRA); s x lora_weight,
// the sum and its norm per output row, detached (no backward: DoRA's Sec.
// 4.3), and magnitude / norm. Then on the outputs, against fp32
// magnitudes: (mag_norm_scale - 1) x base_result and mag_norm_scale x
// lora_result, x scaling (LoRA's scale kernel), their sum, added to the
// result; backward, each multiply's gradient for each input (the
// magnitude's reduced over the tokens) and, where the base output feeds
// both the sum and the rescaling, its two gradients added. Under autocast
// the fp32 sum is cast back to 16 bits. With lora_dropout the base result
// is not reused: F.linear(dropout(x), weight) runs again, with its input
// gradient (added to the adapter's) backward.
struct Dora {
  const TrainingSpec& t;
  const BlockShape& b;
  const AdaptedLinear& l;
  const std::string& name;
  double n, e;  // tokens; the adapter path's element bytes
  bool fp32;    // PEFT's fp32 adapters without autocast
  bool x_fp32() const { return !(t.method == Method::kQlora && !fp32); }
  double g() const { return fp32 ? 4 : b.e; }         // the adapter GEMMs' output bytes
  double wd() const { return x_fp32() ? 4 : b.e; }     // the weight side's element bytes
  double out() const { return n * l.out; }
  // The recomputed base output under dropout, in the input's type (fp32
  // without autocast); else the layer's own, 16-bit.
  double base_e() const { return t.lora_dropout > 0 && fp32 ? 4 : b.e; }

  void Gemm(EagerChain& chain, const std::string& k, double bytes, double f, FreshRead fresh = {}) const {
    Op op = Kernel(k, bytes, f);
    op.fp32 = fp32;
    chain.Launch(op, {fresh});
  }

  // The weight side, every forward.
  void Weight(EagerChain& chain) const {
    const double w = l.in * l.out, r = t.lora_rank, in = l.in;
    const bool qlora = t.method == Method::kQlora;
    chain.Launch(Kernel(name + "_dora_eye", 4 * in * in));
    if (!fp32) chain.Launch(Kernel(name + "_dora_eye_cast", in * in * (4 + b.e)), 4 * in * in);
    Gemm(chain, name + "_dora_eye_A", g() * in * in + g() * in * r, 2 * in * in * r, {g() * in * in});
    Gemm(chain, name + "_dora_lora_weight", g() * w, 2 * w * r);  // reads the rank-r product (not in its bytes)
    if (g() != wd()) chain.Launch(Kernel(name + "_dora_lora_weight_cast", w * (g() + wd())), g() * w);
    const int product = chain.Next() - 1;  // s x lora_weight reads it after the weight's dequantization and cast
    if (qlora) chain.Launch(Kernel(name + "_dora_dequant", 2.5 * w));
    if (wd() != b.e) chain.Launch(Kernel(name + "_dora_weight_cast", w * (b.e + wd())), qlora ? b.e * w : 0);
    chain.Launch(Kernel(name + "_dora_weight_scale", 2 * wd() * w), {{wd() * w, chain.Back(product)}});
    const bool weight_fresh = qlora || wd() != b.e;  // the weight's cast or dequantized copy, two back
    chain.Launch(Kernel(name + "_dora_weight_sum", 3 * wd() * w), {{wd() * w}, {weight_fresh ? wd() * w : 0, 2}});
    chain.Launch(Kernel(name + "_dora_norm", wd() * w), wd() * w);
    chain.Launch(Kernel(name + "_dora_magnitude", 12 * l.out), 4 * l.out);  // two fp32 vectors read, one written
  }

  // After lora_B, before LoRA's scale: the base output recomputed under
  // dropout, its rescaling and the adapter output's (which reads lora_B's,
  // written `lora_b` launches back).
  void Outputs(EagerChain& chain, Pass pass, int lora_b) const {
    const bool bwd = pass == Pass::kBackward;
    const double w = l.in * l.out;
    if (t.lora_dropout > 0 && !bwd)
      Gemm(chain, name + "_dora_base_linear", n * g() * (l.in + l.out) + g() * w, 2 * n * w);
    EagerKernel(chain, pass, name + "_dora_base_scale", out() * (base_e() + 4));
    EagerKernel(chain, pass, name + "_dora_magnitude_scale", out() * (e + 4),
                bwd ? FreshRead{} : FreshRead{n * l.out * e, chain.Back(lora_b)});
    if (bwd && t.lora_dropout <= 0) chain.Launch(Kernel(name + "_dora_base_grad_add", out() * 3 * b.e));
    if (t.lora_dropout > 0 && bwd) {
      Gemm(chain, name + "_dora_base_dgrad", n * g() * (l.in + l.out) + g() * w, 2 * n * w);
      chain.Launch(Kernel(name + "_dora_dx_add", n * l.in * 3 * wd()), n * l.in * g());
    }
  }

  // After LoRA's scale: the sum of the two rescaled outputs (the base's
  // written three launches back), and its cast back under autocast.
  void Sum(EagerChain& chain, Pass pass) const {
    const bool bwd = pass == Pass::kBackward;
    if (!bwd) chain.Launch(Kernel(name + "_dora_sum", out() * 12), {{4 * out()}, {4 * out(), 3}});
    if (!fp32 && x_fp32())
      chain.Launch(Kernel(name + (bwd ? "_dora_dout_cast" : "_dora_out_cast"), out() * (4 + b.e)), bwd ? 0 : 4 * out());
  }
};

}  // namespace

void AdapterOps(const ModelSpec& m, const TrainingSpec& t, const BlockShape& b, const StackTraits& st,
                Pass pass, std::vector<Op>& ops) {
  if (t.method == Method::kFull) return;
  const bool bwd = pass == Pass::kBackward;
  const double r = t.lora_rank;
  // PEFT keeps its adapters in fp32 (autocast_adapter_dtype); without
  // autocast (pure_bf16) it casts each input to fp32 and runs the adapter
  // there, on the CUDA cores, and casts the sum back (peft tuners/lora
  // layer.py Linear.forward: x = self._cast_input_dtype(x,
  // lora_A.weight.dtype) ... result.to(torch_result_dtype)).
  const bool fp32 = PeftAdaptersInFp32(t) && st.adapters == Adapters::kPeft;
  const double e = fp32 ? 4 : b.e;  // the adapter path's element bytes
  for (const AdaptedLinear& l : AdaptedLinears(m, t, b.tp))
    for (int copy = 0; copy < l.copies; ++copy) {  // each expert's adapter on its tokens
    const double n = b.tokens * l.token_share;
    const std::string name = std::string("lora_") + ToString(l.target);
    // x*A then *B: 2 r (in + out) FLOPs per token forward, twice that
    // backward (input and weight gradients of both).
    const double flops = 2 * n * r * (l.in + l.out) * (bwd ? 2 : 1);
    // Each adapted layer's kernels in launch order, each claiming what the
    // kernels just before it wrote (model/l2_reuse.h); the base layer's
    // output and input gradient are written before the chain.
    EagerChain chain(ops);
    const double x = n * l.in * e, y = n * l.out * e;  // the adapter path's input and output
    const bool dora = t.dora && st.adapters == Adapters::kPeft;
    const Dora d{t, b, l, name, n, e, fp32};
    if (t.method == Method::kQlora && st.adapters == Adapters::kPeft && !bwd)
      chain.Launch(Kernel(name + "_clone", 2 * n * l.out * b.e));  // peft lora/bnb.py Linear4bit: result = result.clone()
    // Forward the input cast to fp32 (and the output back after the add).
    // Backward the output's gradient cast to fp32; then autograd casts the
    // add's fp32 gradient for the bf16 result back to bf16 (engine.cpp
    // validate_outputs), and the input gradient back after the adapter.
    if (fp32 && !bwd) chain.Launch(Kernel(name + "_x_cast", n * l.in * (4 + b.e)));
    if (fp32 && bwd) {
      chain.Launch(Kernel(name + "_dout_cast", n * l.out * (4 + b.e)));
      chain.Launch(Kernel(name + "_dresult_cast", n * l.out * (4 + b.e)), {{y, 1}});
    }
    // PEFT's nn.Dropout on the adapter's input (lora_dropout): reads it and
    // writes the dropped copy and its mask (a byte), backward the gradient
    // through the mask.
    if (t.lora_dropout > 0 && !bwd) chain.Launch(Kernel(name + "_dropout", n * l.in * (2 * e + 1)), fp32 ? x : 0);
    if (st.adapters == Adapters::kFused) {
      // A reads x; B's product is added onto the base output in place
      // (addmm): forward reads x and reads and writes the output; backward
      // reads the output gradient twice and x, and adds into dx.
      const double bytes = bwd ? n * e * (2 * l.out + 3 * l.in) : n * e * (l.in + 2 * l.out);
      const int kernels = bwd ? 4 : 2;
      for (int k = 0; k < kernels; ++k) chain.Launch(Kernel(name, bytes / kernels, flops / kernels));
      if (t.lora_dropout > 0 && bwd) chain.Launch(Kernel(name + "_dropout_bwd", n * l.in * (2 * e + 1)));
      continue;
    }
    // PEFT lora.Linear: result + lora_B(lora_A(dropout(x))) * scaling, each
    // a kernel (lora_dropout 0, PEFT's and LLaMA-Factory's default, makes
    // dropout an Identity). Forward: A reads x, B writes out, the scale
    // reads and writes out, the add reads two and writes one. Backward: the
    // scale, B's two and A's two gradient GEMMs, and dx accumulated (after
    // the base layer's input gradient, outside the chain).
    auto gemm = [&](const std::string& k, double bytes, double f, FreshRead fresh = {}) {
      Op op = Kernel(k, bytes, f);
      op.fp32 = fp32;
      chain.Launch(op, {fresh});
    };
    if (!bwd) {
      if (dora) d.Weight(chain);  // between the input's cast and lora_A
      const bool input_fresh = !dora && (fp32 || t.lora_dropout > 0);  // the cast's or the dropout's output
      gemm(name + "_A", n * e * l.in, flops / 2, {input_fresh ? x : 0});
      gemm(name + "_B", n * e * l.out, flops / 2);  // reads A's rank-r output (not in its bytes)
      const int lora_b = chain.Next() - 1;
      if (dora) d.Outputs(chain, pass, lora_b);
      // x scaling reads lora_B's output, or DoRA's rescaled one; the add
      // it, or DoRA's sum (at most the e bytes an element their bytes
      // count).
      chain.Launch(Kernel(name + "_scale", n * e * 2 * l.out), y);
      if (dora) d.Sum(chain, pass);
      chain.Launch(Kernel(name + "_add", n * e * 3 * l.out), y);
      if (fp32) chain.Launch(Kernel(name + "_out_cast", n * l.out * (4 + b.e)), y);
    } else {
      if (dora) d.Sum(chain, pass);
      chain.Launch(Kernel(name + "_scale_bwd", n * e * 2 * l.out), {{fp32 ? y : 0, 2}});  // the fp32 gradient, cast 2 back
      const int scaled = chain.Next() - 1;
      if (dora) d.Outputs(chain, pass, 0);
      gemm(name + "_B_dgrad", n * e * l.out, flops / 4, {dora ? 0 : y, chain.Back(scaled)});
      gemm(name + "_B_wgrad", n * e * l.out, flops / 4, {dora ? 0 : y, chain.Back(scaled)});
      gemm(name + "_A_wgrad", n * e * l.in, flops / 4);
      gemm(name + "_A_dgrad", n * e * l.in, flops / 4);
      if (t.lora_dropout > 0) chain.Launch(Kernel(name + "_dropout_bwd", n * l.in * (2 * e + 1)), x);
      if (fp32) chain.Launch(Kernel(name + "_dx_cast", n * l.in * (4 + b.e)), x);
      chain.Launch(Kernel(name + "_dx_add", n * e * 3 * l.in));
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
    ops.push_back(Kernel(w.name + "_absmax_dequant", blocks * (1 + 4)));
    ops.push_back(Kernel(w.name + "_absmax_offset", blocks * 8));
    ops.push_back(Kernel(w.name + "_nf4_dequant", 2.5 * w.params));
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

bool PeftAdaptersInFp32(const TrainingSpec& t) {
  return t.pure_bf16 && t.method != Method::kFull && OnHfTrainerWithPeft(t.stack);
}

double AdapterSavedBytesPerToken(const ModelSpec& m, const TrainingSpec& t, int tp) {
  if (t.method == Method::kFull) return 0;
  const bool fp32 = PeftAdaptersInFp32(t);
  const double e = ActivationBytes(t.precision), adapter_e = fp32 ? 4.0 : e;
  double bytes = 0;
  for (const AdaptedLinear& l : AdaptedLinears(m, t, tp)) {
    const double share = l.copies * l.token_share;
    // lora_A saves what it read: the dropped copy (and dropout its mask) or
    // the fp32 cast of the input; otherwise the layer's own input, counted
    // with the layer.
    if (fp32 || t.lora_dropout > 0) bytes += share * l.in * (adapter_e + (t.lora_dropout > 0 ? 1 : 0));
    // DoRA's two output multiplies keep the base result (fp32 where it is
    // recomputed without autocast) and the adapter's.
    if (t.dora) bytes += share * l.out * ((t.lora_dropout > 0 && fp32 ? 4.0 : e) + adapter_e);
  }
  return bytes;
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

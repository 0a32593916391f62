// PEFT's LoRA adapters (and DoRA) and the fused adapters of Megatron,
// torchtune and Unsloth, kernel by kernel in launch order (the
// declarations are in stack_kernels.h with the rest of a block's kernels).
#include <string>

#include "sim/model/eager_kernels.h"
#include "sim/model/stack_kernels.h"
#include "sim/spec/names.h"

namespace pf {
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
    Op op = KernelOp(k, bytes, f);
    op.fp32 = fp32;
    chain.Launch(op, {fresh});
  }

  // The weight side, every forward.
  void Weight(EagerChain& chain) const {
    const double w = l.in * l.out, r = t.lora_rank, in = l.in;
    const bool qlora = t.method == Method::kQlora;
    chain.Launch(KernelOp(name + "_dora_eye", 4 * in * in));
    if (!fp32) chain.Launch(KernelOp(name + "_dora_eye_cast", in * in * (4 + b.e)), 4 * in * in);
    Gemm(chain, name + "_dora_eye_A", g() * in * in + g() * in * r, 2 * in * in * r, {g() * in * in});
    Gemm(chain, name + "_dora_lora_weight", g() * w, 2 * w * r);  // reads the rank-r product (not in its bytes)
    if (g() != wd()) chain.Launch(KernelOp(name + "_dora_lora_weight_cast", w * (g() + wd())), g() * w);
    const int product = chain.Next() - 1;  // s x lora_weight reads it after the weight's dequantization and cast
    if (qlora) chain.Launch(KernelOp(name + "_dora_dequant", 2.5 * w));
    if (wd() != b.e) chain.Launch(KernelOp(name + "_dora_weight_cast", w * (b.e + wd())), qlora ? b.e * w : 0);
    chain.Launch(KernelOp(name + "_dora_weight_scale", 2 * wd() * w), {{wd() * w, chain.Back(product)}});
    const bool weight_fresh = qlora || wd() != b.e;  // the weight's cast or dequantized copy, two back
    chain.Launch(KernelOp(name + "_dora_weight_sum", 3 * wd() * w), {{wd() * w}, {weight_fresh ? wd() * w : 0, 2}});
    chain.Launch(KernelOp(name + "_dora_norm", wd() * w), wd() * w);
    chain.Launch(KernelOp(name + "_dora_magnitude", 12 * l.out), 4 * l.out);  // two fp32 vectors read, one written
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
    if (bwd && t.lora_dropout <= 0) chain.Launch(KernelOp(name + "_dora_base_grad_add", out() * 3 * b.e));
    if (t.lora_dropout > 0 && bwd) {
      Gemm(chain, name + "_dora_base_dgrad", n * g() * (l.in + l.out) + g() * w, 2 * n * w);
      chain.Launch(KernelOp(name + "_dora_dx_add", n * l.in * 3 * wd()), n * l.in * g());
    }
  }

  // After LoRA's scale: the sum of the two rescaled outputs (the base's
  // written three launches back), and its cast back under autocast.
  void Sum(EagerChain& chain, Pass pass) const {
    const bool bwd = pass == Pass::kBackward;
    if (!bwd) chain.Launch(KernelOp(name + "_dora_sum", out() * 12), {{4 * out()}, {4 * out(), 3}});
    if (!fp32 && x_fp32())
      chain.Launch(KernelOp(name + (bwd ? "_dora_dout_cast" : "_dora_out_cast"), out() * (4 + b.e)), bwd ? 0 : 4 * out());
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
      chain.Launch(KernelOp(name + "_clone", 2 * n * l.out * b.e));  // peft lora/bnb.py Linear4bit: result = result.clone()
    // Forward the input cast to fp32 (and the output back after the add).
    // Backward the output's gradient cast to fp32; then autograd casts the
    // add's fp32 gradient for the bf16 result back to bf16 (engine.cpp
    // validate_outputs), and the input gradient back after the adapter.
    if (fp32 && !bwd) chain.Launch(KernelOp(name + "_x_cast", n * l.in * (4 + b.e)));
    if (fp32 && bwd) {
      chain.Launch(KernelOp(name + "_dout_cast", n * l.out * (4 + b.e)));
      chain.Launch(KernelOp(name + "_dresult_cast", n * l.out * (4 + b.e)), {{y, 1}});
    }
    // PEFT's nn.Dropout on the adapter's input (lora_dropout): reads it and
    // writes the dropped copy and its mask (a byte), backward the gradient
    // through the mask.
    if (t.lora_dropout > 0 && !bwd) chain.Launch(KernelOp(name + "_dropout", n * l.in * (2 * e + 1)), fp32 ? x : 0);
    if (st.adapters == Adapters::kFused) {
      // A reads x; B's product is added onto the base output in place
      // (addmm): forward reads x and reads and writes the output; backward
      // reads the output gradient twice and x, and adds into dx.
      const double bytes = bwd ? n * e * (2 * l.out + 3 * l.in) : n * e * (l.in + 2 * l.out);
      const int kernels = bwd ? 4 : 2;
      for (int k = 0; k < kernels; ++k) chain.Launch(KernelOp(name, bytes / kernels, flops / kernels));
      if (t.lora_dropout > 0 && bwd) chain.Launch(KernelOp(name + "_dropout_bwd", n * l.in * (2 * e + 1)));
      continue;
    }
    // PEFT lora.Linear: result + lora_B(lora_A(dropout(x))) * scaling, each
    // a kernel (lora_dropout 0, PEFT's and LLaMA-Factory's default, makes
    // dropout an Identity). Forward: A reads x, B writes out, the scale
    // reads and writes out, the add reads two and writes one. Backward: the
    // scale, B's two and A's two gradient GEMMs, and dx accumulated (after
    // the base layer's input gradient, outside the chain).
    auto gemm = [&](const std::string& k, double bytes, double f, FreshRead fresh = {}) {
      Op op = KernelOp(k, bytes, f);
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
      chain.Launch(KernelOp(name + "_scale", n * e * 2 * l.out), y);
      if (dora) d.Sum(chain, pass);
      chain.Launch(KernelOp(name + "_add", n * e * 3 * l.out), y);
      if (fp32) chain.Launch(KernelOp(name + "_out_cast", n * l.out * (4 + b.e)), y);
    } else {
      if (dora) d.Sum(chain, pass);
      chain.Launch(KernelOp(name + "_scale_bwd", n * e * 2 * l.out), {{fp32 ? y : 0, 2}});  // the fp32 gradient, cast 2 back
      const int scaled = chain.Next() - 1;
      if (dora) d.Outputs(chain, pass, 0);
      gemm(name + "_B_dgrad", n * e * l.out, flops / 4, {dora ? 0 : y, chain.Back(scaled)});
      gemm(name + "_B_wgrad", n * e * l.out, flops / 4, {dora ? 0 : y, chain.Back(scaled)});
      gemm(name + "_A_wgrad", n * e * l.in, flops / 4);
      gemm(name + "_A_dgrad", n * e * l.in, flops / 4);
      if (t.lora_dropout > 0) chain.Launch(KernelOp(name + "_dropout_bwd", n * l.in * (2 * e + 1)), x);
      if (fp32) chain.Launch(KernelOp(name + "_dx_cast", n * l.in * (4 + b.e)), x);
      chain.Launch(KernelOp(name + "_dx_add", n * e * 3 * l.in));
    }
    }
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
}  // namespace pf

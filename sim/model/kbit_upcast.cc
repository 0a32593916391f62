#include "sim/model/kbit_upcast.h"

#include <string>

#include "sim/model/stack.h"

namespace pf {

bool ResidualUpcast(const TrainingSpec& t) {
  return t.method == Method::kQlora && t.qlora_upcast != QloraUpcast::kNone && ActivationBytes(t.precision) == 2;
}

bool EdgesUpcast(const TrainingSpec& t) { return ResidualUpcast(t) && t.qlora_upcast == QloraUpcast::kAll; }

double ResidualBytes(const TrainingSpec& t) { return ResidualUpcast(t) ? 4.0 : ActivationBytes(t.precision); }

void UpcastCastOps(const ModelSpec& m, const TrainingSpec& t, const BlockShape& b, Pass pass,
                   std::vector<Op>& ops) {
  if (!ResidualUpcast(t)) return;
  const double cast = 4 + b.e;  // read one width, write the other
  const std::string suffix = pass == Pass::kBackward ? "_bwd" : "";
  auto kernel = [&](const std::string& name, double elements) {
    ops.push_back({name + suffix, OpKind::kMemory, Flops(0), Bytes(b.tokens * elements * cast)});
  };
  // Each 4-bit linear fed the fp32 stream: its input down, its output up.
  struct Linear {
    const char* name;
    double in, out;
  };
  // A mixture of experts: each expert a token reaches (top_k of them, and
  // the shared ones) casts its own copy in and out; b.ffn already spans
  // them.
  const double copies = m.moe.enabled() ? m.moe.top_k * t.expert_load() + m.moe.shared_experts : 1;
  std::vector<Linear> linears{{"q", b.hidden, b.q}, {"k", b.hidden, b.kv}, {"v", b.hidden, b.kv}};
  if (m.ffn_kind == FfnKind::kSwiglu) linears.push_back({"gate", b.hidden * copies, b.ffn});
  linears.push_back({"up", b.hidden * copies, b.ffn});
  linears.push_back({"down", b.ffn, b.hidden * copies});
  for (const Linear& l : linears) {
    kernel(std::string("upcast_") + l.name + "_in", l.in);
    kernel(std::string("upcast_") + l.name + "_out", l.out);
  }
  // The weights of the linears fed fp32: bitsandbytes' Linear4bit takes
  // its compute dtype from its first input when that is fp32 or bf16 (bnb
  // 0.43.3 nn/modules.py set_compute_type: "we switch to this type for
  // speed and stability"), so q, k, v, gate, up, down and a router compute
  // in fp32; o_proj's input is the attention's 16-bit output. MatMul4Bit
  // then casts the dequantized 16-bit weight to fp32
  // (autograd/_functions.py: F.dequantize_4bit(B, quant_state).to(A.dtype))
  // and autocast casts it back to 16 bits for the matmul: read 2 and write
  // 4, then read 4 and write 2 bytes a parameter, on every local expert's
  // weights. Forward and recompute only: the backward's grad_output is
  // already 16-bit (its .to(grad_output.dtype) copies nothing).
  if (pass == Pass::kForward) {
    auto weight = [&](const std::string& name, double params) {
      ops.push_back({"upcast_" + name + "_w_to_fp32", OpKind::kMemory, Flops(0), Bytes(params * (b.e + 4))});
      ops.push_back({"upcast_" + name + "_w_autocast", OpKind::kMemory, Flops(0), Bytes(params * (4 + b.e))});
    };
    for (const FourBitWeight& w : FourBitWeights(m, t, b.tp))
      if (!w.attention_input) weight(w.name, w.params);
  }
  if (t.attention != Attention::kUnfused)  // FlashAttention takes 16-bit q, k, v
    for (const auto& [name, width] : {std::pair<const char*, double>{"q", b.q}, {"k", b.kv}, {"v", b.kv}})
      kernel(std::string("flash_cast_") + name, width);
}

}  // namespace pf

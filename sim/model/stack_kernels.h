// The kernels of a transformer block that depend on the training stack
// (model/stack.h): norms, rotary embeddings, the MLP activation, LoRA
// adapters and NF4 dequantisation, fused or op by op. model_math.cc's
// LayerOps calls these for every block; each Op is one kernel launch.
#pragma once

#include <string>
#include <vector>

#include "sim/model/model_math.h"
#include "sim/model/stack.h"

namespace pf {

// The shape one block's elementwise kernels see on one TP rank.
struct BlockShape {
  int tp = 1;
  double tokens = 0;  // micro_batch x seq_len (pads included)
  double hidden = 0, q = 0, kv = 0, ffn = 0;  // q, kv, ffn: this rank's shards
  double e = 2;       // activation bytes per element
  double re = 2;      // the residual stream's and the norms' (4 under model/kbit_upcast.h)
  static BlockShape Of(const ModelSpec& m, const TrainingSpec& t, int tp);
};

// A norm before attention or the MLP: one fused kernel (LayerNorm in any
// stack, RMSNorm in Megatron/TE/Unsloth), or Hugging Face's LlamaRMSNorm
// op by op: to(float32), pow(2), mean, add eps, rsqrt, mul, to(bf16), mul
// by the weight (modeling_llama.py).
void NormOps(const ModelSpec& m, const BlockShape& b, const StackTraits& st, Pass pass, const char* name,
             std::vector<Op>& ops);
// Rotary embeddings on q and k: one fused kernel (Megatron/apex
// fused_apply_rotary_pos_emb, Unsloth's fast_rope_embedding), or HF's
// q * cos + rotate_half(q) * sin (mul, neg, cat, mul, add for each of q and
// k) after recomputing cos and sin in every layer, or torchtune's fp32
// pairs (StackTraits::rope_fp32_pairs: cast, four multiplies, subtract,
// add, stack, cast back). Nothing without RoPE.
void RopeOps(const ModelSpec& m, const BlockShape& b, const StackTraits& st, Pass pass, std::vector<Op>& ops);
// A stack that repeats K and V before attention (StackTraits::repeats_kv):
// forward, each of K and V read at its width and written at the queries'
// (expand + flatten copies), and the kernel's output copied to the
// projection's layout; backward, expand's gradient summed back over the
// repeats for each of K and V, and the output's gradient copied back.
void KvRepeatOps(const BlockShape& b, const StackTraits& st, Pass pass, std::vector<Op>& ops);
// The MLP activation: fused SwiGLU / GeLU, or HF's act_fn(gate) * up.
// `loops`: how many times eager code runs it a layer, each on its share of
// the bytes (Hugging Face's sparse MoE blocks call each expert's MLP in a
// Python loop: one per local expert, and one for the shared experts).
void ActivationOps(const ModelSpec& m, const BlockShape& b, const StackTraits& st, Pass pass,
                   std::vector<Op>& ops, int loops = 1);
// LoRA adapters on the linear layers training.lora_targets names (Hu et
// al. 2021; all linear layers as QLoRA, Dettmers et al. 2023).
void AdapterOps(const ModelSpec& m, const TrainingSpec& t, const BlockShape& b, const StackTraits& st,
                Pass pass, std::vector<Op>& ops);

// The weights of one block on one TP rank that QLoRA keeps in 4 bits:
// every linear layer (model_math.h BaseLinears), a mixture of experts'
// once per expert, and its router (an nn.Linear, which transformers'
// bitsandbytes integration quantizes too; only the LM head is kept).
// `attention_input`: o_proj's, fed the attention's 16-bit output.
struct FourBitWeight {
  std::string name;
  double params = 0;
  bool attention_input = false;
};
std::vector<FourBitWeight> FourBitWeights(const ModelSpec& m, const TrainingSpec& t, int tp);

// QLoRA: each 4-bit base weight's NF4 dequantisation before its matmul,
// every linear layer of the block whether adapted or not (with double
// quantization's two small kernels first). Nothing for other methods.
void Nf4DequantOps(const ModelSpec& m, const TrainingSpec& t, const BlockShape& b, std::vector<Op>& ops);

// PEFT's adapters (kept in fp32 by autocast_adapter_dtype) running in fp32
// without autocast: pure_bf16 LoRA or QLoRA on the Trainer's stacks (hf,
// llama-factory); torchtune (fsdp) keeps its adapters in the model's dtype,
// Unsloth runs its own.
bool PeftAdaptersInFp32(const TrainingSpec& t);

// Bytes per token one block's adapters save beyond the block's own
// tensors: with lora_dropout the dropped copy of each adapted layer's input
// and its mask, and without autocast (pure_bf16) PEFT's fp32 cast of it.
double AdapterSavedBytesPerToken(const ModelSpec& m, const TrainingSpec& t, int tp);

// HBM bytes per logit element the loss moves in `pass`: Megatron's
// vocabulary-parallel cross-entropy op by op over an fp32 copy (52 B
// forward and backward at 16 bits) or fused (28 B); a softmax that reads
// the logits and writes and reads back an fp32 softmax; Hugging Face's
// fp32 copy adds 4 B written and read; Unsloth's chunked kernel reads the
// 16-bit logits once.
double LossTrafficPerLogit(Loss loss, double e, Pass pass);
// Bytes per logit element the loss holds: the 16-bit logits plus what the
// loss adds (model/stack.h Loss).
double LogitsBytesPerElement(Loss loss, double e);

}  // namespace pf

// PEFT's preparation of a 4-bit model for training, as Hugging Face's
// QLoRA recipe runs it, and what it does to a block: its norms in fp32 make
// the residual stream fp32, and every 4-bit linear layer then casts its
// input down and its output back up. Only QLoRA jobs (method qlora at 16
// bits) are prepared so.
//
// prepare_model_for_kbit_training (huggingface/peft src/peft/utils/other.py
// @ c1a876f: "cast all non INT8 parameters to fp32") is what TRL's
// SFTTrainer calls on a 4-bit model given a LoRA config, what QLoRA's
// qlora.py and most QLoRA tutorials call, and what TRL then partly undoes
// (trl/trainer/sft_trainer.py peft_module_casting_to_bf16, trl 0.13: the
// embeddings and LM head back to bf16, "norm" modules kept in fp32). With
// fp32 norm weights, LlamaRMSNorm returns weight * x in fp32; each
// bitsandbytes Linear4bit then computes in fp32, the dtype of its first
// input (bnb 0.43.3 nn/modules.py set_compute_type), under autocast's bf16
// matmul, and returns its output in the input's type (out.to(inp_dtype)),
// so q, k, v, gate, up and down come out fp32 and from the first MLP on
// the residual stream is fp32;
// FlashAttention-2 casts q, k and v back to 16 bits (transformers'
// flash-attention path warns: "The input hidden states seems to be silently
// casted in float32, this might be related to the fact you have upcasted
// embedding or layer norm layers in float32").
//
// Measured (foundation-model-stack/fms-acceleration, scripts/benchmarks/
// refs/a100_80gb.csv @ 876e2ed, transformers 4.48.1, peft 0.13.2, bnb
// 0.43.3; Mistral-7B, LoRA r16 on q/k/v/o, 4096-token packed sequences,
// gradient checkpointing, one A100-80GB): through TRL ("baseline-peft-bnb")
// 2,904 and 2,987 tokens/s with 19.2 and 34.5 GiB peak allocated at batch 4
// and 8; with the same 4-bit model prepared without the upcast
// ("accelerated-peft-bnb", whose plugin says the upcast makes "the
// activations ... constantly downcasted, resulting in greatly reduced
// throughput") 3,596 and 3,663 tokens/s with 15.2 and 26.5 GiB. The memory
// gap, 4.0 GiB per 16,384 tokens, is the 32 checkpointed layer inputs at 4
// bytes instead of 2 (32 x 4,096 x 2 B = 256 KiB a token).
//
// training.qlora_upcast says which preparation a job had: `all` (PEFT's
// function as is, stack hf's default: QLoRA's qlora.py, the PEFT and
// bitsandbytes guides; the embeddings and LM head stay fp32 too), `norms`
// (TRL's SFTTrainer) or `none` (LLaMA-Factory, whose upcast_layernorm
// defaults to false, src/llamafactory/hparams/model_args.py; Unsloth;
// fms-acceleration's plugin).
//
// Under `all` the embedding's fp32 output starts the stream in fp32, and
// the LM head's fp32 weight is cast to 16 bits by autocast at each forward
// (read 4, write 2 bytes a parameter); the copy is saved for the head's
// input gradient, so it is held through the loss. Unsloth's published
// context limits for Hugging Face + FlashAttention-2 (unslothai/unsloth
// README @ e3162dc5, "Context length benchmarks": Llama-3.1-8B QLoRA, all
// linear layers, rank 32, batch 1) put the fixed share of the memory
// where this does: out of memory on an 8 GB GPU at any length.
#pragma once

#include <vector>

#include "sim/model/model_math.h"
#include "sim/model/stack_kernels.h"

namespace pf {

// Bytes per element of the residual stream of this job's blocks: 4 under
// the upcast (a 16-bit QLoRA job whose qlora_upcast is all or norms), else
// the activations' (precision's) bytes.
double ResidualBytes(const TrainingSpec& t);
bool ResidualUpcast(const TrainingSpec& t);
// Under qlora_upcast `all`: the embedding and LM head in fp32.
bool EdgesUpcast(const TrainingSpec& t);

// The casts the upcast adds to one block in `pass` on a one-rank shape:
// forward, each 4-bit linear fed fp32 (q, k, v, gate, up, down) casts its
// input to 16 bits and its output to fp32, and FlashAttention casts q, k, v
// down again; backward, each cast's gradient is cast back (ToCopyBackward),
// one kernel of the same bytes. A cast reads 4 and writes 2 bytes an
// element or the reverse. o_proj reads the attention's 16-bit output and
// casts nothing.
void UpcastCastOps(const ModelSpec& m, const TrainingSpec& t, const BlockShape& b, Pass pass,
                   std::vector<Op>& ops);

}  // namespace pf

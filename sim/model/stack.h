// What each training stack (training.stack) changes in a step, as
// mechanisms rather than one multiplier: which kernels are fused, how LoRA
// adapters run, how fast the host dispatches kernels, how the optimizer
// runs, how ZeRO-3 gathers parameters, how the loss handles the logits.
// The constants and their sources are in stack.cc; the kernels each
// mechanism emits are in stack_kernels.h. No SimGrid, no timing.
#pragma once

#include "sim/base/units.h"
#include "sim/spec/spec.h"

namespace pf {

// A block's elementwise work: hand-fused kernels (Megatron/Transformer
// Engine, Unsloth's Triton kernels, torch.compile), or the Hugging Face
// modeling code run op by op in eager PyTorch (one kernel per tensor op).
enum class Kernels { kFused, kEager };
// LoRA adapters: computed with the base GEMM's output in place (NeMo's
// adapters, Unsloth's addmm), or as PEFT modules (lora_A, lora_B, scale and
// add as kernels of their own around every adapted Linear).
enum class Adapters { kFused, kPeft };
// Adam: one multi-tensor kernel per bucket (Apex/TE FusedAdam, DeepSpeed
// FusedAdam, torch fused=True), or torch's default foreach AdamW (one
// kernel per elementwise op over every tensor).
enum class OptimizerImpl { kFused, kForeach };
// ZeRO-3: one all-gather per block (FSDP's FlatParameter of a wrapped
// transformer layer), or one per submodule (DeepSpeed's fetch_sub_module).
enum class Zero3Gather { kPerBlock, kPerModule };
// The loss: Megatron's vocabulary-parallel cross-entropy op by op over an
// fp32 copy of the logits (its default), the same in three fused kernels
// (--cross-entropy-loss-fusion; NeMo 2.0's default), a softmax over the
// 16-bit logits read once and an fp32 softmax written and read back (the
// FSDP recipes' torch cross-entropy), an fp32 copy of the logits first
// (Hugging Face CausalLM's logits.float()), or a chunked fused kernel that
// never holds them whole (Unsloth's fast cross-entropy).
// Hugging Face's loss by transformers release (training.transformers):
// kFp32Logits from 4.49, whose ForCausalLMLoss shifts the labels instead of
// the logits (huggingface/transformers PR 35646, merged 2025-01-13: "removing
// unnecessary contiguous() call to reduce memory overhead");
// kFp32ShiftedCopy in 4.46-4.48, whose ForCausalLMLoss upcasts the logits
// the model still holds and copies them shifted
// (logits[..., :-1, :].contiguous()); kFp32InModel before 4.46, where
// LlamaForCausalLM.forward upcast them itself (logits = logits.float(), the
// 16-bit ones freed) before the same shifted copy. kFp32Model: the model
// returns fp32 logits (torchtune's TransformerDecoder: self.output(h)
// .float(), the 16-bit ones freed) and the recipe shifts the labels, so
// torch's cross-entropy holds its fp32 log-softmax alone; compiled
// (kFp32ModelCompiled), one fused pass forward and, from the logits it
// saves, one backward that writes their gradient. kFp32ModelChunked:
// torchtune's CEWithChunkedOutputLoss (training.loss: chunked), the model's
// 16-bit logits in kLossChunks chunks, each upcast and reduced by torch's
// cross-entropy, which keeps each chunk's fp32 log-softmax; compiled
// (kChunkedCompiled: training.compile_loss compiles compute_cross_entropy
// alone), each chunk's upcast and reduction one kernel that saves the
// 16-bit chunk and, in the backward, writes its 16-bit gradient.
enum class Loss {
  kVocabParallel,
  kVocabParallelFused,
  kTorchSoftmax,
  kFp32Logits,
  kFp32ShiftedCopy,
  kFp32InModel,
  kFp32Model,
  kFp32ModelCompiled,
  kFp32ModelChunked,
  kChunkedCompiled,
  kChunked
};
// CEWithChunkedOutputLoss's num_output_chunks, its default and every
// recipe config's (torchtune/modules/loss/ce_chunked_output_loss.py @
// 1814feb1).
constexpr int kLossChunks = 8;
// Gradients under a pipeline schedule: reduced bucket by bucket as the last
// backward completes them (Megatron's DDP, FSDP), or, by DeepSpeed's
// PipelineEngine, all-reduced after the flush (its ReduceGrads
// instruction), from the BF16_Optimizer's fp32 gradient copies under bf16,
// which accumulate each micro-batch's bf16 gradients.
enum class PipelineGrads { kBucketed, kAfterFlush };

struct StackTraits {
  Kernels kernels = Kernels::kFused;
  Adapters adapters = Adapters::kFused;
  OptimizerImpl optimizer = OptimizerImpl::kFused;
  Zero3Gather gather = Zero3Gather::kPerBlock;
  Loss loss = Loss::kVocabParallel;
  // q, k, v (and gate, up) as separate Linear layers (Hugging Face
  // modeling code) instead of one fused QKV (MLP-up) GEMM.
  bool separate_projections = false;
  PipelineGrads pipeline_grads = PipelineGrads::kBucketed;
  // Megatron-Core's DDP under bf16 (and fp8, whose parameters are bf16):
  // gradients accumulated across micro-batches and reduced over data
  // parallelism in an fp32 buffer (main_grad), not in the parameters' type.
  bool fp32_grads = false;
  // ZeRO-3 that gathers into and reduces from the parameters' and
  // gradients' own storage (Megatron-FSDP's ParamAndGradBuffer), rather than
  // copying them into and out of communication buffers around every
  // collective (PyTorch FSDP, DeepSpeed). See NcclShareResident.
  bool zero3_zero_copy = false;
  // Megatron-Core's GPT-OSS activation (megatron/core/fusions/
  // fused_bias_geglu.py weighted_bias_quick_geglu_impl) clamps the two
  // halves and concatenates them in eager ops before its fused kernel.
  bool glu_clamp_unfused = false;
  // A GQA model's K and V repeated to every query head before the
  // attention kernel, whichever it is, and the kernel's (batch, heads,
  // seq, dim) output copied back for the output projection: torchtune's
  // MultiHeadAttention (torchtune/modules/attention.py @ 1814feb1,
  // k.unsqueeze(2).expand(...).flatten(1, 2) and
  // output.transpose(1, 2).contiguous()).
  bool repeats_kv = false;
  // Rotary embeddings computed in fp32 over the interleaved pairs of each
  // head, as torchtune's RotaryPositionalEmbeddings and Llama3ScaledRoPE do
  // (torchtune/modules/position_embeddings.py, models/llama3_1/
  // _position_embeddings.py @ 1814feb1): x.float() viewed as pairs, four
  // multiplies of a half by the cached cos or sin, a subtract and an add,
  // torch.stack of the two halves and the cast back, every op on fp32.
  bool rope_fp32_pairs = false;
  // The gradients scaled by a pass of their own before the optimizer
  // step: torchtune's training.scale_grads(model, 1 / num_tokens), one
  // p.grad *= scaler per parameter (torchtune/training/_grad_scaler.py,
  // recipes/full_finetune_single_device.py @ 1814feb1), where the Trainer
  // and Megatron scale the loss instead.
  bool scales_gradients = false;
  // The gradients' norm clipped before the step, as the Trainer does by
  // default (TrainingArguments.max_grad_norm = 1.0; Trainer._inner_training_loop
  // -> accelerator.clip_grad_norm_ -> torch.nn.utils.clip_grad_norm_):
  // torch._foreach_norm reads every gradient, then torch._foreach_mul_ by
  // the clamped coefficient reads and writes each, whether or not it clips
  // (torch/nn/utils/clip_grad.py _clip_grads_with_norm_): 3 gradient
  // elements moved a trained parameter. Under DeepSpeed ZeRO the engine
  // clips its own partitions instead (a norm read and a scale), taken as
  // the same 3 elements of each local parameter. Megatron's and NeMo's
  // clip_grad_norm_fp32 also reads every gradient for the norm (and scales
  // only when it clips): not counted, at most about 0.1% of their steps
  // here (Megatron-LM 1.7B on 32 A100s: 6.9 GB read in 3.5 s).
  bool clips_gradients = false;
};

// DeepSpeed's PipelineEngine reduces the gradients of this job after the
// pipeline flush (pp > 1 on a kAfterFlush stack, full training).
bool ReducesAfterFlush(const Scenario& s);
// Bytes per gradient element it all-reduces: the BF16_Optimizer's fp32
// copies under bf16, else the training precision's.
double FlushReduceBytes(const Scenario& s);
const StackTraits& TraitsOf(Stack stack);
// The job's stack as it runs: its stack's traits, with the block's kernels
// fused where training.compile compiles the layers.
StackTraits TraitsOf(const TrainingSpec& t);
// The loss the job runs: its stack's, except that NeMo's LoRA recipes turn
// the loss fusion off.
Loss LossOf(const TrainingSpec& t);
// Whether the block runs as eager modeling code, op by op (Kernels::kEager).
bool EagerLayers(const TrainingSpec& t);
// Whether a GQA model's K and V are materialised at every query head's
// width before attention: by the stack (StackTraits::repeats_kv), or by
// eager code's unfused attention (transformers' repeat_kv before its
// matmuls).
bool RepeatsKv(const TrainingSpec& t);

// Host time eager PyTorch spends issuing one kernel: a forward op from
// Python with the model code around it (module calls, views, argument
// parsing, dispatcher, autograd recording, launch), and a backward op from
// the C++ autograd engine (dispatcher and launch). A pass whose kernels are
// shorter than this waits for the host.
Seconds HostSecondsPerForwardKernel();
Seconds HostSecondsPerBackwardKernel();
// Under CUDA_LAUNCH_BLOCKING=1 each launch also waits for its kernel to end
// and for the host to learn of it: the synchronous launch's latency less
// the asynchronous one's.
Seconds BlockingLaunchWaitPerKernel();

// Bytes per element of the gradients the job accumulates, keeps in memory
// and reduces over data parallelism: training.grad_reduce's when given,
// else 4 on a stack with fp32_grads under bf16 or fp8, else the training
// precision's.
double GradientBytes(const TrainingSpec& t);

// Bytes of HBM traffic per trainable parameter of one Adam step, reading
// gradients of grad_bytes each.
double AdamBytesPerParam(OptimizerImpl impl, double grad_bytes, bool pure_bf16 = false);
// torchtune's LoRALinear holds its adapters in the model's dtype (the
// recipe's `dtype: bf16`, torchtune/modules/peft/lora.py @ 1814feb1): in
// pure bf16 they, their gradients and Adam's moments are 16-bit, where
// PEFT keeps its adapters in fp32.
bool Bf16Adapters(const TrainingSpec& t);
// Whether the trained parameters are 16-bit, with no fp32 master copy: the
// whole model's under pure bf16, or torchtune's adapters.
bool Bf16TrainedParams(const TrainingSpec& t);
// The job's step, per trainable parameter: its stack's Adam over its
// gradients (pure bf16 under full training) and, where the stack scales
// the gradients first (StackTraits::scales_gradients), that pass's read
// and write of each gradient (not with the step in the backward, whose
// recipe skips it).
double StepBytesPerParam(const TrainingSpec& t);

// Linear layers (each its own ZeRO-3 fetch under DeepSpeed) in one block.
int LinearModulesPerBlock(const ModelSpec& m, const StackTraits& traits);

// Parameters of the largest of those fetches (a mixture of experts' sparse
// block is one, all its experts), held on one of `tp` ranks.
double LargestModuleParams(const ModelSpec& m, const StackTraits& traits, int tp);

// DeepSpeed's default stage3_prefetch_bucket_size, in parameters
// (deepspeed/runtime/zero/config.py: 50,000,000).
inline constexpr double kDeepSpeedPrefetchBucket = 5e7;

// DeepSpeed's default stage3_max_reuse_distance, in parameters (config.py:
// 1,000,000,000): a released module's parameters stay gathered when the
// trace uses them again within this many parameters' fetches.
inline constexpr double kDeepSpeedReuseDistance = 1e9;

// Layers of parameters a ZeRO-3 gather may fetch ahead of the compute that
// uses them: one for FSDP (the next block's all-gather runs while this one
// computes), none for DeepSpeed's per-module fetches, whose all-gathers
// run in series with the compute (the reasons and sources in stack.cc).
int Zero3GatherLookahead(Zero3Gather gather);

// Whether DeepSpeed ZeRO-3 gathers each block's parameters a third time in
// the backward (for the recomputed forward and then again for the backward
// proper): full recompute on a per-module stack whose block holds more
// parameters (per TP rank) than the reuse distance, so that the recomputed
// forward's fetches are released before the backward reuses them
// (partitioned_param_coordinator.py __params_to_release).
bool RegathersForBackward(const Scenario& s);

// Whether NCCL's share of each GPU's compute (calibration
// nccl_compute_share) is taken through the whole step rather than only
// while a data-parallel collective moves data: ZeRO-3 over dp > 1 on a
// stack that copies into and out of communication buffers (the reasons in
// stack.cc).
bool NcclShareResident(const Scenario& s);

}  // namespace pf

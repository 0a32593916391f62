#include "sim/model/stack.h"

#include <algorithm>

#include "sim/model/model_math.h"
#include "sim/model/optimizer.h"

namespace pf {

const StackTraits& TraitsOf(Stack stack) {
  // Megatron-LM and NeMo (Megatron-Core): fused LayerNorm/RMSNorm, RoPE,
  // bias-SwiGLU and bias-dropout-add kernels, fused QKV and MLP-up GEMMs,
  // vocabulary-parallel cross-entropy, FusedAdam in the distributed
  // optimizer, LoRA as ParallelLinearAdapter added onto the base output.
  // Megatron-LM runs the loss op by op unless --cross-entropy-loss-fusion
  // is given (TransformerConfig.cross_entropy_loss_fusion = False); NeMo
  // 2.0's GPTConfig turns the fusion on (nemo/collections/llm/gpt/model/
  // base.py, cross_entropy_loss_fusion: bool = True).
  // Both keep fp32 gradients under bf16: Megatron-LM's arguments.py sets
  // accumulate_allreduce_grads_in_fp32 for bf16 unless --grad-reduce-in-bf16
  // is given ("accumulate and all-reduce gradients in fp32 for bfloat16
  // data type"), and param_and_grad_buffer.py then makes the gradient buffer
  // torch.float; NeMo 2.0's and Megatron-Bridge's recipes pass
  // DistributedDataParallelConfig(grad_reduce_in_fp32=True).
  // Their ZeRO-3 is Megatron-FSDP (NcclShareResident below).
  static const StackTraits megatron = [] {
    StackTraits t;
    t.fp32_grads = true;
    t.zero3_zero_copy = true;
    t.glu_clamp_unfused = true;
    return t;
  }();
  static const StackTraits nemo = [] {
    StackTraits t{Kernels::kFused, Adapters::kFused, OptimizerImpl::kFused, Zero3Gather::kPerBlock,
                  Loss::kVocabParallelFused, false};
    t.fp32_grads = true;
    t.zero3_zero_copy = true;
    t.glu_clamp_unfused = true;
    return t;
  }();
  // Megatron-DeepSpeed and DeepSpeed's own engine: Megatron's kernels, but
  // ZeRO-3 fetches parameters submodule by submodule
  // (partitioned_param_coordinator.py fetch_sub_module, all_gather_coalesced
  // per module), and under a pipeline the PipelineEngine's schedule
  // (runtime/pipe/schedule.py TrainSchedule: ReduceTiedGrads, ReduceGrads,
  // OptimizerStep after the last micro-batch) all-reduces the gradients
  // after the flush; with bf16, _exec_reduce_grads -> _bf16_reduce_grads
  // all-reduces "the optimizer's FP32 grads" (runtime/pipe/engine.py), the
  // BF16_Optimizer's fp32 copies into which each micro-batch's bf16
  // gradients are accumulated (runtime/bf16_optimizer.py; PP + bf16 runs
  // ZeRO stage 0 or 1 only).
  static const StackTraits deepspeed{Kernels::kFused,          Adapters::kFused,     OptimizerImpl::kFused,
                                     Zero3Gather::kPerModule,  Loss::kVocabParallel, false,
                                     PipelineGrads::kAfterFlush};
  // PyTorch FSDP recipes (llm-foundry, fms-fsdp, torchtitan): fused or
  // compiled block kernels, one all-gather per wrapped block, torch's
  // default foreach AdamW, adapters (torchtune) as modules of their own.
  static const StackTraits fsdp{Kernels::kFused, Adapters::kPeft, OptimizerImpl::kForeach,
                                Zero3Gather::kPerBlock, Loss::kTorchSoftmax, false};
  // Hugging Face Trainer + PEFT (and LLaMA-Factory, which drives it): the
  // transformers modeling code op by op, PEFT's LoRA modules, foreach
  // AdamW, DeepSpeed ZeRO under the Trainer, logits upcast to fp32
  // (LlamaForCausalLM: logits = logits.float(), transformers 4.3x-4.45;
  // ForCausalLMLoss keeps the upcast after that).
  static const StackTraits hf = [] {
    StackTraits t{Kernels::kEager, Adapters::kPeft, OptimizerImpl::kForeach, Zero3Gather::kPerModule,
                  Loss::kFp32Logits, true};
    t.clips_gradients = true;
    return t;
  }();
  // Unsloth: the Hugging Face model with Triton RMSNorm, RoPE and SwiGLU
  // kernels, LoRA through addmm onto the base output, chunked fast
  // cross-entropy; still HF's separate projections.
  static const StackTraits unsloth = [] {
    StackTraits t{Kernels::kFused, Adapters::kFused, OptimizerImpl::kForeach, Zero3Gather::kPerModule,
                  Loss::kChunked, true};
    t.clips_gradients = true;
    return t;
  }();
  // torchtune (pytorch/torchtune @ 1814feb1, v0.4): its own modules run op
  // by op (RMSNorm upcast to fp32, RoPE in fp32, SwiGLU as
  // w2(silu(w1(x)) * w3(x)), separate q/k/v and w1/w3 projections), LoRA
  // as LoRALinear (lora_a and lora_b beside the base F.linear, scaled and
  // added: PEFT's shape), torch's AdamW with fused=True (every recipe
  // config: recipes/configs/llama3_1/8B_full.yaml, 8B_lora.yaml,
  // llama3_2/3B_full.yaml, ...), FSDP2 sharding each transformer layer
  // (training.shard_model), fp32 logits from the model into torch's
  // cross-entropy with the labels shifted, and K and V repeated before
  // attention.
  static const StackTraits torchtune = [] {
    StackTraits t{Kernels::kEager, Adapters::kPeft, OptimizerImpl::kFused, Zero3Gather::kPerBlock,
                  Loss::kFp32Model, true};
    t.repeats_kv = true;
    t.rope_fp32_pairs = true;
    t.scales_gradients = true;
    return t;
  }();
  switch (stack) {
    case Stack::kMegatron: return megatron;
    case Stack::kNemo: return nemo;
    case Stack::kDeepspeed: return deepspeed;
    case Stack::kFsdp: return fsdp;
    case Stack::kHf:
    case Stack::kLlamaFactory: return hf;
    case Stack::kUnsloth: return unsloth;
    case Stack::kTorchtune: return torchtune;
  }
  return megatron;
}

Loss LossOf(const TrainingSpec& t) {
  // NeMo 2.0's fine-tuning recipes set cross_entropy_loss_fusion = False
  // under LoRA ("some settings currently do not function correctly with
  // LoRA", nemo/collections/llm/recipes/llama31_8b.py and the others).
  if (t.stack == Stack::kNemo && t.method != Method::kFull) return Loss::kVocabParallel;
  // torchtune compiles its loss with its layers (training.compile_loss).
  if (t.stack == Stack::kTorchtune && t.loss == LossChoice::kChunked)
    return t.compile ? Loss::kChunkedCompiled : Loss::kFp32ModelChunked;
  if (t.stack == Stack::kTorchtune && t.compile) return Loss::kFp32ModelCompiled;
  const Loss loss = TraitsOf(t.stack).loss;
  if (loss == Loss::kFp32Logits && t.transformers > 0 && t.transformers < 49)
    return t.transformers >= 46 ? Loss::kFp32ShiftedCopy : Loss::kFp32InModel;
  return loss;
}

StackTraits TraitsOf(const TrainingSpec& t) {
  StackTraits st = TraitsOf(t.stack);
  if (t.compile) st.kernels = Kernels::kFused;
  return st;
}

bool EagerLayers(const TrainingSpec& t) { return TraitsOf(t).kernels == Kernels::kEager; }

bool RepeatsKv(const TrainingSpec& t) {
  return TraitsOf(t.stack).repeats_kv || (EagerLayers(t) && t.attention == Attention::kUnfused);
}

// What the host spends per forward kernel in real model code: the op
// itself from Python (pytorch/pytorch issue 41383: ~5 us for a tiny
// elementwise op, ~7 us with requires_grad) plus the Python around it
// (nn.Module calls, views and reshapes that launch nothing, hooks).
// Measured where a forward pass is host-bound, as step time / kernels:
// gpt-fast's eager Llama-2-7B decodes 25.5 tokens/s on an A100, "heavily
// CPU overhead bound" (pytorch.org/blog/accelerating-generative-ai-2;
// model.py @ 32971d3: ~55 kernels a layer, ~1785 a token) = 22 us a
// kernel; Hugging Face's Llama-2-7B eager (transformers 4.35, A100 80GB
// PCIe) 33.41 ms a token at batch 1, flat to batch 32 (huggingface/
// transformers issue 29651; ~49 kernels a layer, ~1600 a token) = 21 us.
// Both under no_grad: 21.5 us, plus issue 41383's 2 us of autograd
// recording in a training forward.
Seconds HostSecondsPerForwardKernel() { return Seconds(23.5e-6); }
// The autograd engine runs backward ops from C++: ~1 us of dispatcher (the
// same issue: "using c++ API would take about a microsecond") plus a raw
// cuLaunchKernel of ~3 us (meta-pytorch/tritonbench PR 1017: 3.0-3.3 us).
Seconds HostSecondsPerBackwardKernel() { return Seconds(4e-6); }
// CSCS's kernel-latency check on A100 (reframe-hpc/reframe
// cscs-checks/microbenchmarks/gpu/kernel_latency/kernel_latency.py,
// ault:amda100 references): an empty kernel launched and waited for takes
// 9.65 us, launched without waiting 2.7 us.
Seconds BlockingLaunchWaitPerKernel() { return Seconds(9.65e-6 - 2.7e-6); }

double GradientBytes(const TrainingSpec& t) {
  if (t.grad_reduce) return ElementBytes(*t.grad_reduce);
  const bool half = t.precision == Precision::kBf16 || t.precision == Precision::kFp8;
  return half && TraitsOf(t.stack).fp32_grads ? 4 : ElementBytes(t.precision);
}

double AdamBytesPerParam(OptimizerImpl impl, double grad_bytes, bool pure_bf16) {
  // Fused: read master 4 + grad + m 4 + v 4, write master 4 + m 4 + v 4
  // + 16-bit copy 2 (compute_model.cc); pure_bf16: the bf16 parameter and
  // moments read and written, no master and no copy.
  if (impl == OptimizerImpl::kFused) return pure_bf16 ? 12 + grad_bytes : 26 + grad_bytes;
  // torch/optim/adamw.py _multi_tensor_adamw, one foreach op at a time over
  // fp32 state and fp32 (autocast master) gradients: param.mul_ 8, exp_avg
  // lerp_ 12, exp_avg_sq mul_ 8 and addcmul_ 16, sqrt 8, div_ 8, add_(eps)
  // 8, param.addcdiv_ 16; the same ops on bf16 tensors move half.
  return pure_bf16 ? 42 : 84;
}

bool Bf16Adapters(const TrainingSpec& t) {
  return t.method != Method::kFull && t.pure_bf16 && t.stack == Stack::kTorchtune;
}

bool Bf16TrainedParams(const TrainingSpec& t) {
  return t.method == Method::kFull ? t.pure_bf16 : Bf16Adapters(t);
}

double StepBytesPerParam(const TrainingSpec& t) {
  const StackTraits& st = TraitsOf(t.stack);
  const double g = GradientBytes(t);
  const bool bf16_params = Bf16TrainedParams(t);
  // The passes over the gradients before the step: torchtune's scaling
  // (a read and a write) and the Trainer's clipping (three).
  const double pre_step = (st.scales_gradients && !t.optimizer_in_backward ? 2 * g : 0) + (st.clips_gradients ? 3 * g : 0);
  // bitsandbytes' kernel reads the parameter (fp32 under autocast), its
  // gradient and both moments, and writes the three back
  // (optimizer_update_8bit_blockwise, optimizer_update_32bit).
  if (BnbOptimizer(t)) return 2 * (bf16_params ? 2 : 4) + g + 2 * BnbMomentBytes(t) + pre_step;
  return AdamBytesPerParam(st.optimizer, g, bf16_params) + pre_step;
}

bool ReducesAfterFlush(const Scenario& s) {
  return TraitsOf(s.training.stack).pipeline_grads == PipelineGrads::kAfterFlush && s.parallel.pp > 1 &&
         s.training.method == Method::kFull && s.parallel.zero < 2;
}

double FlushReduceBytes(const Scenario& s) {
  return s.training.precision == Precision::kBf16 ? 4 : ElementBytes(s.training.precision);
}

int LinearModulesPerBlock(const ModelSpec& m, const StackTraits& traits) {
  const int mlp = m.ffn_kind == FfnKind::kSwiglu ? 3 : 2;
  // A mixture of experts' sparse block is one ZeRO-3 leaf module, fetched
  // whole with all its experts: deepspeed.utils.set_z3_leaf_modules, which
  // LLaMA-Factory's add_z3_leaf_module sets for every MoE model it trains
  // (model_utils/moe.py) and without which ZeRO-3 fails on MoE models
  // (DeepSpeed PR #4966).
  if (m.moe.enabled()) return (traits.separate_projections ? 4 : 2) + 1;
  // q, k, v, o and the MLP's; fused: QKV, o, MLP-up (gate+up) and down.
  return traits.separate_projections ? 4 + mlp : 4;
}

// FSDP prefetches the next wrapped block's FlatParameter while the current
// one computes (BackwardPrefetch.BACKWARD_PRE, forward_prefetch / the
// implicit forward prefetch of FSDP2), one block ahead.
// DeepSpeed's coordinator (partitioned_param_coordinator.py
// fetch_sub_module, the same in v0.6.2 and today) gathers a module's
// parameters at its pre-forward hook and waits for them there; only then,
// and only once it holds a complete trace of the step's module order, does
// it prefetch, at most stage3_prefetch_bucket_size (5e7) elements but at
// least one parameter, and nothing while the gathered parameters exceed
// stage3_max_live_parameters (1e9 by default). Where the code would
// prefetch one module ahead, the measurements still show the gathers in
// series with the compute: "the kernel operations in default stream are not starting until
// the allgathers have completed" (a profile in DeepSpeed issue #1069, where
// ZeRO-3 ran 19.5 TFLOP/s per GPU against ZeRO-2's 44.7); a 5B BERT's
// forward took 480 ms under ZeRO-3 against 60 ms under ZeRO-2 on 8 A100s
// over NVLink (#1174); "the all gathers are not overlapping and they are
// very fragmented" (#5047, 2024). Modelled as no lookahead: each layer's
// fetches start after the previous layer's compute. An empirical choice,
// not the code's reading, checked on the seven DeepSpeed ZeRO-3 rows of
// tests/data (stack_rows.csv, recipe_rows.csv): their mean |error| goes
// from 32% (four too fast by 23-81%) to 12%, six of seven within 15%. Against
// it: Falcon-7B at 4k tokens on 8 A100s stepped in 2.86 s under ZeRO-3
// and 2.93 s under FSDP (#3901), where the gathers are small beside the
// compute either way.
int Zero3GatherLookahead(Zero3Gather gather) { return gather == Zero3Gather::kPerBlock ? 1 : 0; }

bool RegathersForBackward(const Scenario& s) {
  const TrainingSpec& t = s.training;
  if (TraitsOf(t.stack).gather != Zero3Gather::kPerModule || t.recompute != Recompute::kFull) return false;
  if (s.model.kind != ModelKind::kTransformer) return false;
  return CountParams(s.model).per_layer / s.parallel.tp > kDeepSpeedReuseDistance;
}

// PyTorch FSDP copies each block's parameters into a flat buffer before
// its all-gather and out of it after (FSDP2's all-gather copy-in and
// split_with_sizes copy-out), and each gradient into one before its
// reduce-scatter; DeepSpeed's coordinator does the like per module. Those
// copies, the ranks' skew that keeps an NCCL kernel waiting on its SMs for
// its peers, and the hooks around them run through the whole step: the
// engine takes NCCL's share for all of it (engine/runner.cc
// ResidentShadows), and the fit of nccl_compute_share over llm-foundry's
// FSDP rows (spec/calibration.h) rests on that. Megatron-FSDP instead
// gathers into and reduces from the parameters' own storage: "Zero copy
// communication is achieved by reorganizing the storage of parameters and
// main grad with ParamAndGradBuffer class", and with its NCCL user buffers
// (nccl_ub, which Megatron-Bridge's performance recipes turn on for it) "an
// SM-efficient NCCL algorithm" (NVIDIA/Megatron-LM megatron/core/
// distributed/fsdp/src/README.md, 2025). Its collectives take their share
// only while they run, as the distributed optimizer's do; the smaller share
// of a user-buffer NCCL is not published and not modelled.
bool NcclShareResident(const Scenario& s) {
  return s.parallel.zero == 3 && s.parallel.dp > 1 && !TraitsOf(s.training.stack).zero3_zero_copy;
}

double LargestModuleParams(const ModelSpec& m, const StackTraits& traits, int tp) {
  const double h = m.hidden, q = double(m.q_dim()) / tp, o = double(m.v_dim()) / tp, kv = KvDimPerRank(m, tp);
  const bool swiglu = m.ffn_kind == FfnKind::kSwiglu;
  double largest = traits.separate_projections ? std::max({h * q, h * kv, o * h}) : h * (q + 2 * kv);
  largest = std::max(largest, o * h);
  if (m.moe.enabled()) {
    const MoeSpec& x = m.moe;
    const double expert = (swiglu ? 3 : 2) * h * double(x.expert_ffn) / tp;
    return std::max(largest, x.experts * expert + (swiglu ? 3 : 2) * h * double(x.shared_experts) * x.shared_ffn / tp);
  }
  const double f = double(m.ffn) / tp;
  const double up = traits.separate_projections || !swiglu ? h * f : 2 * h * f;
  return std::max({largest, up, f * h});
}

}  // namespace pf

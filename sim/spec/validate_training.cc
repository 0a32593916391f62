#include "sim/spec/validate_training.h"

#include <string>

#include "sim/spec/names.h"

namespace pf {
namespace {

std::string Str(long long x) { return std::to_string(x); }

}  // namespace

std::optional<SpecError> CheckTrainingOnHardware(const Scenario& s) {
  const ModelSpec& m = s.model;
  const TrainingSpec& t = s.training;
  if (m.kind == ModelKind::kVision) {
    if (t.optimizer != OptimizerChoice::kAdamw)
      return SpecError{"training.optimizer", "\"" + std::string(ToString(t.optimizer)) +
                                                 "\" with a vision model; accepted: adamw (bitsandbytes' optimizers "
                                                 "are modelled on the language-model stacks hf, llama-factory, "
                                                 "unsloth and torchtune)"};
    if (PeakFlops(s.cluster.node.gpu, t.precision).value() <= 0)
      return SpecError{"training.precision", "\"" + std::string(ToString(t.precision)) +
                                                 "\" has no tensor-core rate on " + s.cluster.node.gpu.name};
    return {};
  }
  if (s.data.enabled && (s.data.format == DataFormat::kJpeg || s.data.format == DataFormat::kRaw))
    return SpecError{"data.format", std::string("\"") + ToString(s.data.format) + "\" holds images; " + m.name +
                                        " reads text: text or tokens"};
  if (m.position == Position::kLearned && t.seq_len > m.max_seq)
    return SpecError{"training.seq_len", Str(t.seq_len) +
                                             " exceeds the model's learned position table (" +
                                             Str(m.max_seq) + ")"};
  const GpuSpec& g = s.cluster.node.gpu;
  if (t.method != Method::kFull && t.lora_rank > m.hidden)
    return SpecError{"training.lora_rank", Str(t.lora_rank) + " exceeds the model's hidden size (" +
                                               Str(m.hidden) + ")"};
  if (ElementBytes(t.precision) == 4 && t.attention != Attention::kUnfused)
    return SpecError{"training.attention", std::string(ToString(t.attention)) +
                                               (t.attention_given ? "" : " (the stack's default)") +
                                               " runs in fp16/bf16 only; with \"" +
                                               std::string(ToString(t.precision)) + "\" set attention: unfused"};
  if (t.grad_reduce) {
    // fp32, or the parameters' own 16-bit type (fp8 trains bf16 parameters).
    const Precision own = t.precision == Precision::kFp8 ? Precision::kBf16 : t.precision;
    const bool half = ElementBytes(t.precision) == 2;
    if (*t.grad_reduce != Precision::kFp32 && !(half && *t.grad_reduce == own))
      return SpecError{"training.grad_reduce",
                       "\"" + std::string(ToString(*t.grad_reduce)) + "\" is not accepted with precision \"" +
                           ToString(t.precision) + "\": gradients are reduced in fp32" +
                           (half ? std::string(" or in the parameters' ") + ToString(own) : std::string(" only"))};
  }
  if (t.padding_given && t.packing)
    return SpecError{"training.padding", std::string("\"") + ToString(t.padding) +
                                             "\" pads unpacked samples, but packing is true (each sequence is filled with "
                                             "whole samples); accepted: set packing: false, or drop padding"};
  if (t.group_by_length != 0 && (t.packing || t.padding != Padding::kLongest))
    return SpecError{"training.group_by_length",
                     std::string("sorts unpacked samples to pad each micro-batch to a near neighbour, but ") +
                         (t.packing ? "packing is true (each sequence is filled with whole samples)"
                                    : std::string("padding is max_length") +
                                          (t.padding_given ? "" : " (stack " + std::string(ToString(t.stack)) +
                                                                      "'s default)") +
                                          ", every sample padded to seq_len") +
                         "; accepted: false, or packing: false with padding: longest"};
  if (t.group_by_length == kTrainerLengthGroups && !OnHfTrainer(t.stack))
    return SpecError{"training.group_by_length",
                     "true is the Hugging Face Trainer's LengthGroupedSampler, which stack \"" +
                         std::string(ToString(t.stack)) +
                         "\" does not run; accepted: false, an integer (the micro-batches a sorted group holds), or "
                         "stack hf, llama-factory or unsloth"};
  if (t.per_sample_attention_given && t.per_sample_attention && (!t.packing || !VariableLength(t.attention)))
    return SpecError{"training.per_sample_attention",
                     std::string("true needs packed samples and a fused attention kernel (variable-length FlashAttention or cuDNN); here ") +
                         (!t.packing ? std::string("packing is false (each sample has its sequence to itself)")
                                     : "attention is " + std::string(ToString(t.attention)) + ", which has no variable-length form") +
                         "; accepted: false, or packing: true with attention flash, cudnn or flash3"};
  if (t.attention == Attention::kFlash3 && !g.attention_flash3)
    return SpecError{"training.attention", "\"flash3\" (FlashAttention-3) runs on Hopper GPUs only (H100, H800, H200, H20), not on " +
                                               g.name + "; accepted here: flash, cudnn, triton, unfused"};
  if (PeakFlops(g, t.precision).value() <= 0)
    return SpecError{"training.precision", "\"" + std::string(ToString(t.precision)) +
                                               "\" has no tensor-core rate on " + g.name +
                                               " (see topologies/gpus.yaml)"};
  return {};
}

// CUDA_LAUNCH_BLOCKING=1 (training.launch_blocking): every NCCL call
// returns only once its collective is done, so no collective overlaps the
// compute. Preflight models it for jobs whose collectives already run in
// series with the compute: no overlapped gradient reduction (DeepSpeed's
// PipelineEngine reduces after the flush, model/stack.h
// ReducesAfterFlush), no ZeRO-2/3 reduce-scatters in the backward, no
// overlapped parameter gather, TP overlap, ring attention or offload.
std::optional<SpecError> CheckLaunchBlocking(const Scenario& s, int dp) {
  const TrainingSpec& t = s.training;
  const ParallelSpec& p = s.parallel;
  if (!t.launch_blocking) return {};
  const bool after_flush = t.stack == Stack::kDeepspeed && p.pp > 1 && t.method == Method::kFull && p.zero < 2;
  std::string overlap;
  if (dp > 1 && p.zero >= 2)
    overlap = "ZeRO stage " + Str(p.zero) + " reduce-scatters the gradients during the backward";
  else if (dp > 1 && p.dp_overlap && !after_flush)
    overlap = "parallel.dp_overlap is true (the gradient all-reduce runs beside the backward)";
  else if (p.param_gather_overlap)
    overlap = "parallel.param_gather_overlap is true";
  else if (p.tp_overlap)
    overlap = "parallel.tp_overlap is true";
  else if (p.cp > 1)
    overlap = "parallel.cp is " + Str(p.cp) + " (ring attention exchanges K and V beside the attention)";
  else if (p.offload != Offload::kNone)
    overlap = std::string("parallel.offload is ") + ToString(p.offload) + " (copies beside the compute)";
  if (overlap.empty()) return {};
  return SpecError{"training.launch_blocking",
                   "true makes every NCCL collective end before the next kernel starts, which Preflight models where "
                   "no collective overlaps the compute; here " + overlap +
                       "; accepted: false, or a job whose collectives run in series (parallel.dp_overlap: false, zero "
                       "0 or 1, no param_gather_overlap, tp_overlap, cp or offload)"};
}

namespace {

// Megatron-Core's --recompute-modules, which apply (as there) under
// selective recompute only, and only on its stacks, so that a sweep or a
// plan may vary training.recompute or the stack around them: each module
// one the model has (transformer_config.py refuses mla_up_proj without MLA
// and moe_act without experts).
std::optional<SpecError> CheckRecomputeModules(const Scenario& s) {
  const TrainingSpec& t = s.training;
  const ModelSpec& m = s.model;
  if (!t.recompute_modules_given || !t.recompute_modules_apply()) return {};
  const std::string key = "training.recompute_modules";
  if (t.recomputes(RecomputeModule::kMlaUpProj) && !m.mla.enabled())
    return SpecError{key, "lists mla_up_proj, but " + m.name +
                              " has no multi-head latent attention; accepted: core_attn, layernorm, mlp" +
                              (m.moe.enabled() ? ", moe_act" : "")};
  if (t.recomputes(RecomputeModule::kMoeAct) && !m.moe.enabled())
    return SpecError{key, "lists moe_act, but " + m.name + " has no experts; accepted: core_attn, layernorm, mlp" +
                              std::string(m.mla.enabled() ? ", mla_up_proj" : "")};
  if (t.recomputes(RecomputeModule::kMlp) && m.moe.enabled() && m.moe.dense_layers == 0)
    return SpecError{key, "lists mlp (a dense layer's MLP), but every layer of " + m.name +
                              " is a mixture of experts; accepted: core_attn, layernorm, moe_act" +
                              std::string(m.mla.enabled() ? ", mla_up_proj" : "")};
  return {};
}

}  // namespace

// What each training stack can run (model/stack.h): the Hugging Face
// Trainer (and LLaMA-Factory on it) and Unsloth split no layers, so they
// train data-parallel only, under DeepSpeed ZeRO or FSDP; open-source
// Unsloth trains on one GPU; LoRA targets only mean something for LoRA.
std::optional<SpecError> CheckTrainingStack(const Scenario& s) {
  const TrainingSpec& t = s.training;
  const ParallelSpec& p = s.parallel;
  const bool hf = OnHfTrainer(t.stack);
  const bool torchtune = t.stack == Stack::kTorchtune;
  if ((hf || torchtune) && (p.tp > 1 || p.pp > 1 || p.cp > 1))
    return SpecError{p.tp > 1 ? "parallel.tp" : p.pp > 1 ? "parallel.pp" : "parallel.cp",
                     Str(p.tp > 1 ? p.tp : p.pp > 1 ? p.pp : p.cp) + " with stack \"" + ToString(t.stack) +
                         "\", which splits no layers (data parallel with DeepSpeed ZeRO or FSDP only); "
                         "accepted: 1, or stack megatron, nemo or deepspeed"};
  // torchtune's distributed recipes shard every layer with FSDP2
  // (training.shard_model, fsdp_reshard_after_forward: ZeRO 3 when true,
  // 2 when false); only its single-device recipes run without.
  if (p.dp > 1 && p.zero < MinDataParallelZero(t.stack))
    return SpecError{"parallel.zero", Str(p.zero) + " with stack \"torchtune\" on " + Str(p.dp) +
                                          " data-parallel ranks, whose recipes shard with FSDP2; accepted: 3 "
                                          "(fsdp_reshard_after_forward true) or 2 (false), or dp 1"};
  if (t.stack == Stack::kUnsloth && s.cluster.gpus() > 1)
    return SpecError{"cluster", Str(int(s.cluster.gpus())) +
                                    " GPUs with stack \"unsloth\", which trains on one GPU (open-source "
                                    "Unsloth); accepted: gpus_per_node 1 on 1 node, or stack hf / llama-factory"};
  if (t.method == Method::kFull && t.lora_targets != kAllLoraTargets)
    return SpecError{"training.lora_targets", "given, but training.method is full (every weight trains)"};
  // Pure bf16 is a PyTorch-level choice (the model's dtype without
  // autocast); Megatron, NeMo and DeepSpeed keep an fp32 master copy.
  if (t.pure_bf16 && (t.precision != Precision::kBf16 || !(hf || torchtune || t.stack == Stack::kFsdp)))
    return SpecError{"training.pure_bf16",
                     t.precision != Precision::kBf16
                         ? std::string("true with precision \"") + ToString(t.precision) +
                               "\"; accepted: with precision bf16 (bf16 parameters and Adam moments, no master copy)"
                         : std::string("true with stack \"") + ToString(t.stack) +
                               "\", which keeps an fp32 master copy; accepted: stacks hf, llama-factory, unsloth, fsdp, torchtune"};
  // PEFT's fp32 adapters run at the GPU's fp32 rate.
  if (t.pure_bf16 && t.method != Method::kFull && OnHfTrainerWithPeft(t.stack) &&
      !(PeakFlops(s.cluster.node.gpu, Precision::kFp32).value() > 0))
    return SpecError{"training.pure_bf16", "true with LoRA on " + s.cluster.node.gpu.name +
                                               ", which has no fp32 rate in topologies/gpus.yaml for PEFT's fp32 "
                                               "adapters; accepted: false, or a GPU with an fp32 rate"};
  // Without autocast nothing casts the fp32 stream of PEFT's k-bit
  // preparation back down: bitsandbytes' Linear4bit computes in its input's
  // fp32 (nn/modules.py set_compute_type) and every base matmul runs at the
  // fp32 rate, which is not modelled.
  if (t.pure_bf16 && t.method == Method::kQlora && t.qlora_upcast != QloraUpcast::kNone)
    return SpecError{"training.pure_bf16",
                     std::string("true with QLoRA prepared with qlora_upcast \"") + ToString(t.qlora_upcast) +
                         "\": without autocast the fp32 residual stream makes every 4-bit linear compute in fp32, "
                         "which is not modelled; accepted: pure_bf16 false, or qlora_upcast none"};
  // Per-layer torch.compile as torchtune runs it; the Trainer's
  // torch_compile compiles the whole model with graph breaks, not modelled,
  // and the other stacks' kernels are fused already.
  if (t.compile && !torchtune)
    return SpecError{"training.compile", std::string("true with stack \"") + ToString(t.stack) +
                                             "\"; accepted: stack torchtune (its per-layer compile: "
                                             "training.compile_model and compile_loss)"};
  // torchtune's loss component; the other stacks' losses are theirs
  // (model/stack.h LossOf).
  if (t.loss == LossChoice::kChunked && !torchtune)
    return SpecError{"training.loss", std::string("\"chunked\" with stack \"") + ToString(t.stack) +
                                          "\", which runs its own loss; accepted: stack torchtune "
                                          "(CEWithChunkedOutputLoss), or cross_entropy"};
  // torchtune's optimizer_in_bwd: its full fine-tuning recipes only (the
  // LoRA recipes have no such key), which refuse gradient accumulation;
  // modelled on one device, where the steps in the backward take the GPU
  // time the step after it would.
  if (t.optimizer_in_backward) {
    const char* key = "training.optimizer_in_backward";
    if (!torchtune)
      return SpecError{key, std::string("true with stack \"") + ToString(t.stack) +
                                "\"; accepted: stack torchtune (its optimizer_in_bwd)"};
    if (t.method != Method::kFull)
      return SpecError{key, std::string("true with method \"") + ToString(t.method) +
                                "\"; accepted: method full (torchtune's LoRA recipes step after the backward)"};
    if (p.dp > 1)
      return SpecError{key, "true on " + Str(p.dp) +
                                " data-parallel ranks; accepted: dp 1 (modelled for the single-device recipe)"};
    if (const int accumulated = t.micro_batches_per_step(p.dp); accumulated > 1)
      return SpecError{key, "true with " + Str(accumulated) +
                                " micro-batches a step, which torchtune refuses (\"Please set "
                                "gradient_accumulation_steps=1, or optimizer_in_bwd=False\"); accepted: "
                                "global_batch = micro_batch x dp"};
  }
  // bitsandbytes' optimizers where the user picks the optimizer: the
  // Trainer's optim (without DeepSpeed ZeRO, whose engine wraps and shards
  // the optimizer it is given) and torchtune's single-device recipes ("For
  // single device recipes, we also support bitsandbytes",
  // docs/source/tutorials/memory_optimizations.rst @ 1814feb1; its
  // data-parallel recipes shard with FSDP2, ZeRO 2 or 3, refused here).
  if (t.optimizer != OptimizerChoice::kAdamw) {
    const std::string value = "\"" + std::string(ToString(t.optimizer)) + "\"";
    if (!hf && !torchtune)
      return SpecError{"training.optimizer", value + " with stack \"" + ToString(t.stack) +
                                                 "\", which steps its own Adam; accepted: adamw, or stack hf, "
                                                 "llama-factory, unsloth (the Trainer's optim) or torchtune"};
    if (p.zero > 0 || p.offload != Offload::kNone)
      return SpecError{"training.optimizer", value + " with ZeRO stage " + Str(p.zero) +
                                                 (p.offload != Offload::kNone ? " and offload" : "") +
                                                 ", whose engine shards or offloads its own optimizer; accepted: "
                                                 "adamw, or parallel.zero 0 without offload"};
  }
  // torchtune's activation offloading, which its recipes allow only with
  // activation checkpointing ("enable_activation_offloading should only
  // be True when enable_activation_checkpointing is True").
  if (t.offload_activations && (!torchtune || t.recompute != Recompute::kFull))
    return SpecError{"training.offload_activations",
                     !torchtune ? std::string("true with stack \"") + ToString(t.stack) +
                                      "\"; accepted: stack torchtune (its enable_activation_offloading)"
                                : std::string("true with recompute \"") + ToString(t.recompute) +
                                      "\", which torchtune refuses; accepted: recompute full"};
  if (t.lora_dropout > 0 && t.method == Method::kFull)
    return SpecError{"training.lora_dropout", "given, but training.method is full (no adapters)"};
  if (t.dora && t.method == Method::kFull)
    return SpecError{"training.dora", "true, but training.method is full (no adapters); accepted: method lora or qlora"};
  if (t.dora && !OnHfTrainerWithPeft(t.stack))
    return SpecError{"training.dora", "true with stack \"" + std::string(ToString(t.stack)) +
                                          "\", whose adapters are not PEFT's; accepted: stack hf or llama-factory "
                                          "(PEFT's use_dora)"};
  // The Trainer's gradient_checkpointing (and LLaMA-Factory's and
  // Unsloth's on it) and torchtune's activation checkpointing recompute
  // whole layers; none offers Megatron's attention-core recompute.
  if (t.recompute == Recompute::kSelective && (OnHfTrainer(t.stack) || t.stack == Stack::kTorchtune))
    return SpecError{"training.recompute", "\"selective\" with stack \"" + std::string(ToString(t.stack)) +
                                               "\", whose activation checkpointing recomputes whole layers; "
                                               "accepted here: none, full, or stack megatron, nemo, deepspeed "
                                               "or fsdp"};
  if (t.recompute == Recompute::kSelectiveOp && t.stack != Stack::kFsdp)
    return SpecError{"training.recompute", "\"selective_op\" (torchtitan's op-level selective checkpointing) with stack \"" +
                                               std::string(ToString(t.stack)) +
                                               "\", which has no such policy; accepted here: none, selective, full, "
                                               "or stack fsdp"};
  return CheckRecomputeModules(s);
}

}  // namespace pf

// How a scenario trains, as plain structs: the method, precision, batch,
// recompute, attention kernel, training stack and packing of its step.
// Part of the spec stage (spec.h includes it); no YAML, no SimGrid.
#pragma once

#include <optional>

#include <algorithm>

#include "sim/spec/sample_lengths.h"

namespace pf {

enum class Method { kFull, kLora, kQlora };
// Tensor-core precision of the GEMMs. bf16/fp16/fp8 train with mixed
// precision (16-bit weights, gradients and activations, fp32 master weights
// and Adam moments); tf32 and fp32 keep everything in fp32 (tf32 runs the
// GEMMs on tensor cores, fp32 on CUDA cores: P40, V100 without AMP).
enum class Precision { kBf16, kFp16, kFp8, kTf32, kFp32 };
// Activation recompute: none; selective (Korthikanti et al. 2022: the
// attention core); selective_op (torchtitan's op-level policy,
// model_math.h OpCheckpointRecomputed); full (the whole block).
enum class Recompute { kNone, kSelective, kSelectiveOp, kFull };
// What selective recompute repeats under Megatron-Core (--recompute-modules
// with --recompute-granularity selective; TransformerConfig
// recompute_modules, default ["core_attn"]): the attention core; the two
// norms, the routed experts' activation and MLA's up-projections with RoPE,
// which Megatron-Core checkpoints without their outputs (freed once used,
// recomputed for the backward); and a dense layer's MLP.
enum class RecomputeModule { kCoreAttn, kLayernorm, kMoeAct, kMlaUpProj, kMlp };
// The attention kernel: FlashAttention-2 (the flash-attn 2 package,
// PyTorch SDPA's flash backend), cuDNN's fused attention (Transformer
// Engine's choice on Hopper and later), FlashAttention-3 (Hopper only),
// the Triton FlashAttention of 2022-23 (flash-attn's flash_attn_triton.py
// on the pre-MLIR Triton, which MosaicML's llm-foundry ran as attn_impl:
// triton), or unfused batched GEMMs with a materialised softmax.
enum class Attention { kFlash, kCudnn, kFlash3, kTriton, kUnfused };
// Whether the kernel attends over packed samples each to itself (cu_seqlens):
// FlashAttention-2/3 and cuDNN do; the Triton kernel "doesn't support
// different sequence lengths in a batch" (flash_attn_triton.py @ eff9fe6b),
// and unfused attention materialises the whole square.
inline bool VariableLength(Attention a) { return a != Attention::kUnfused && a != Attention::kTriton; }
// The training stack that runs the step (model/stack.h says what each one
// changes: kernel fusion, LoRA adapters, host dispatch, optimizer, ZeRO-3
// gathers, the loss and its memory).
enum class Stack { kMegatron, kNemo, kDeepspeed, kFsdp, kHf, kLlamaFactory, kUnsloth, kTorchtune };
// What a QLoRA job's preparation leaves in fp32 of the 16-bit parameters
// (model/kbit_upcast.h): all of them, the embeddings and LM head with the
// norms (PEFT's prepare_model_for_kbit_training), the norms only (TRL's
// SFTTrainer, which casts the embeddings and LM head back), or none
// (LLaMA-Factory's default, Unsloth, a model prepared without the upcast).
enum class QloraUpcast { kAll, kNorms, kNone };
// How unpacked samples are padded: each to seq_len (HF padding="max_length",
// Qwen's finetune.py), or each micro-batch to its longest sample (HF
// DataCollatorWithPadding and DataCollatorForSeq2Seq, LLaMA-Factory, TRL
// without packing, torchtune's padded_collate_sft).
enum class Padding { kMaxLength, kLongest };
// The cross-entropy torchtune's recipe runs (its `loss` component): torch's
// over the whole fp32 logits (torch.nn.CrossEntropyLoss), or
// CEWithChunkedOutputLoss, which has the model return its logits in 8
// chunks of the sequence and upcasts and reduces one chunk at a time
// (torchtune/modules/loss/ce_chunked_output_loss.py @ 1814feb1).
enum class LossChoice { kCrossEntropy, kChunked };
// The optimizer's implementation where the stack lets the user pick one
// (the Trainer's `optim`, torchtune's `optimizer._component_`): the stack's
// own AdamW (fused or foreach, model/stack.h), or bitsandbytes' AdamW with
// 8-bit block-wise quantised moments, either in PyTorch's allocator or
// paged (CUDA unified memory, evicted to the host when the GPU runs out),
// or its paged AdamW with fp32 moments (model/optimizer.h).
enum class OptimizerChoice { kAdamw, kAdamw8bit, kPagedAdamw8bit, kPagedAdamw32bit };

// The linear layers of a block LoRA can adapt (gate exists in SwiGLU MLPs).
enum class LoraTarget { kQ, kK, kV, kO, kGate, kUp, kDown };
constexpr unsigned kAllLoraTargets = 0x7f;
constexpr unsigned Bit(LoraTarget t) { return 1u << static_cast<unsigned>(t); }
constexpr unsigned Bit(RecomputeModule m) { return 1u << static_cast<unsigned>(m); }

// training.group_by_length: true, the Trainer's LengthGroupedSampler.
inline constexpr int kTrainerLengthGroups = -1;

struct TrainingSpec {
  Method method = Method::kFull;
  Precision precision = Precision::kBf16;
  int seq_len = 0;
  int micro_batch = 0;
  int global_batch = 0;  // sequences per optimizer step
  Recompute recompute = Recompute::kNone;
  // Under recompute selective on Megatron-Core (stack megatron or nemo):
  // the modules repeated, a bit per RecomputeModule (its default: the
  // attention core, which is what selective means on any other stack).
  unsigned recompute_modules = Bit(RecomputeModule::kCoreAttn);
  bool recompute_modules_given = false;  // false: the default, not printed
  bool recompute_modules_apply() const {
    return recompute == Recompute::kSelective && (stack == Stack::kMegatron || stack == Stack::kNemo);
  }
  bool recomputes(RecomputeModule x) const {
    if (recompute != Recompute::kSelective) return false;
    const unsigned modules = recompute_modules_apply() ? recompute_modules : Bit(RecomputeModule::kCoreAttn);
    return (modules & Bit(x)) != 0;
  }
  Attention attention = Attention::kFlash;
  bool attention_given = false;  // false: the stack's kernel (DefaultAttention)
  double job_tokens = 0;  // tokens the whole job trains on (YAML: tokens)
  int lora_rank = 16;
  // The linear layers LoRA adapts, a bit per LoraTarget (all by default, as
  // QLoRA; NeMo's default is attention_qkv only).
  unsigned lora_targets = kAllLoraTargets;
  Stack stack = Stack::kMegatron;
  bool stack_given = false;  // false: the default, stated as such in the report
  // Samples packed into full sequences (Megatron, NeMo, TRL packing=True), or
  // one sample per sequence, padded as `padding` says.
  bool packing = true;
  int sample_len = 0;     // average tokens per sample (0: seq_len)
  Padding padding = Padding::kMaxLength;
  bool padding_given = false;  // false: the stack's (DefaultPadding)
  // Spread of the samples' lengths, their standard deviation over their
  // mean (the coefficient of variation of a log-normal; model/padding.h):
  // what padding to the longest of a micro-batch wastes. Default: Stanford
  // Alpaca's, a log-normal through its histogram's mode (~85 LLaMA tokens)
  // and its 98th percentile (256: "MAX_LENGTH of 256 fully covers about 98%
  // of the training data"; tloen/alpaca-lora lengths.ipynb and issue #9):
  // log-sd 0.442, so sd/mean = sqrt(exp(0.442^2) - 1) = 0.46.
  double sample_len_cv = 0.46;
  // Unpacked samples grouped by length before they are batched: the
  // samples of every group_by_length micro-batches sorted by length and cut
  // into micro-batches of neighbours, so each pads to a near neighbour
  // rather than to a random sample (PEFT's method-comparison BucketIterator:
  // 20). 0: random order. kTrainerLengthGroups (`true`): the Trainer's
  // group_by_length (model/padding.h LengthGroupSamples).
  int group_by_length = 0;
  // Packed samples attend only within themselves, by a variable-length
  // attention kernel over the samples' boundaries (NeMo's packed SFT passes
  // cu_seqlens to TEDotProductAttention, qkv_format "thd"), instead of
  // across the whole packed sequence (plain concatenation, Megatron's
  // pre-training default). Default: on for stack nemo.
  bool per_sample_attention = false;
  bool per_sample_attention_given = false;
  // CUDA_LAUNCH_BLOCKING=1 in the job's environment (a debugging switch,
  // and BigScience's workaround for hangs in BLOOM's training): every
  // kernel launch, NCCL's included, returns only once the kernel is done,
  // so the host's time to issue each kernel adds to the GPU's instead of
  // hiding under the kernels before it, and no collective overlaps the
  // compute (validate_training.cc accepts it only where none would).
  bool launch_blocking = false;
  // The Hugging Face transformers release the hf and llama-factory stacks
  // run, as minor version of 4.x (5.0 and later: 100 + minor), which sets
  // what its causal-LM loss holds (model/stack.h LossOf); 0: the current
  // behaviour (4.49 and later).
  int transformers = 0;
  QloraUpcast qlora_upcast = QloraUpcast::kNone;  // the stack's (DefaultQloraUpcast) unless given
  // 16-bit parameters without automatic mixed precision (Trainer with
  // torch_dtype=bfloat16 and no --bf16, LLaMA-Factory's pure_bf16,
  // torchtune's dtype: bf16): no fp32 master copy, Adam's moments in bf16,
  // and PEFT's adapters, which it keeps in fp32 (autocast_adapter_dtype,
  // peft >= 0.12), run in fp32.
  bool pure_bf16 = false;  // the stack's (DefaultPureBf16) unless given
  bool pure_bf16_given = false;
  // torch.compile over each transformer layer and the loss (torchtune's
  // `compile: True`: training.compile_model compiles every layer of
  // model.layers, training.compile_loss the loss function): Inductor fuses
  // each layer's elementwise ops into a few kernels and AOTAutograd's
  // partitioner saves what the fused layers save, recomputing the cheap
  // ops in the backward.
  bool compile = false;
  // torchtune's loss component (LossChoice); other stacks run their own.
  LossChoice loss = LossChoice::kCrossEntropy;
  // torchtune's optimizer_in_bwd: an optimizer per parameter, stepped by a
  // post-accumulate-grad hook as soon as the backward has produced that
  // parameter's gradient, which is then set to None
  // (training.register_optim_in_bwd_hooks; recipes/
  // full_finetune_single_device.py @ 1814feb1, which then skips its own
  // scale_grads and step). No gradient accumulation.
  bool optimizer_in_backward = false;
  // Which AdamW steps (OptimizerChoice); the stack's own unless given.
  OptimizerChoice optimizer = OptimizerChoice::kAdamw;
  // torchtune's enable_activation_offloading (training.OffloadActivations,
  // torchtune/training/_activation_offloading.py @ 1814feb1): every saved
  // tensor of the model's forward of 1 KB or more copied to pinned host
  // memory on a side stream as the forward saves it and brought back,
  // a layer ahead, for the backward; the recipe requires activation
  // checkpointing, so what travels is the layers' checkpoints. The GPU
  // keeps the forward's stash of the last kOffloadStash tensors.
  bool offload_activations = false;
  // LoRA's dropout on each adapted layer's input (PEFT's lora_dropout;
  // 0 makes it an Identity).
  double lora_dropout = 0;
  // DoRA (PEFT's use_dora, LLaMA-Factory's use_dora): each adapted layer's
  // output rescaled by a trained magnitude over the norm of W + s B A,
  // recomputed every forward (model/adapter_kernels.cc, struct Dora).
  bool dora = false;
  bool qlora_upcast_given = false;
  double epochs = 0;      // when the job is given in epochs of data.size (job_tokens follows)
  // The type gradients accumulate in and are reduced over data parallelism
  // in (training.grad_reduce: Megatron's --grad-reduce-in-bf16, NeMo's
  // optim.grad_sync_dtype, FSDP's MixedPrecision reduce_dtype); absent: the
  // stack's (stack.h GradientBytes).
  std::optional<Precision> grad_reduce;
  // A mixture of experts' routing, as the step's busiest expert rank sees
  // it: with capacity_factor c > 0 every expert's buffer is padded to c x
  // its mean share of tokens and tokens past it are dropped (GShard,
  // DeepSpeed-MoE, Megatron --moe-pad-expert-input-to-capacity); with 0
  // (dropless, Megatron's default) the busiest EP rank computes
  // expert_imbalance x the mean, and the all-to-all waits for it.
  double capacity_factor = 0;
  double expert_imbalance = 1;
  // Tokens per token the busiest expert rank computes: c, or the imbalance.
  double expert_load() const { return capacity_factor > 0 ? capacity_factor : expert_imbalance; }
  // Sequences per micro-batch x micro-batches per step x dp = global_batch.
  int micro_batches_per_step(int dp) const {
    return static_cast<int>(global_batch / (static_cast<long long>(micro_batch) * dp));
  }
  // The tokens a query's attention spans: its sample's when packed samples
  // attend per sample (sample_len; uniform lengths assumed), else the
  // whole sequence's.
  bool attends_per_sample() const {
    return packing && per_sample_attention && VariableLength(attention) && sample_len > 0 && sample_len < seq_len;
  }
  int attention_span() const { return attends_per_sample() ? sample_len : seq_len; }
  // Tokens one micro-batch carries through one pipeline (micro_batch x seq_len).
  double tokens_per_micro_batch() const { return double(micro_batch) * seq_len; }
  // Whether the stack's packer keeps samples whole and takes them in order,
  // so that each pack ends with a gap the next sample did not fit into:
  // torchtune's PackedDataset (torchtune/datasets/_packed.py @ 1814feb1,
  // split_across_pack=False for SFT). Megatron's and TRL's (up to 0.15)
  // concatenate and split; TRL's best-fit-decreasing, LLaMA-Factory's
  // knapsack and NeMo's first-fit packers leave gaps of a few
  // tokens, taken as none.
  bool packs_leave_gaps() const {
    return packing && stack == Stack::kTorchtune && sample_len > 0 && sample_len < seq_len;
  }
  // Tokens a sequence carries that the model learns from: all of them when
  // packed (less each pack's end gap where packs_leave_gaps: spec/
  // sample_lengths.h ExpectedPackFill), one sample's (sample_len) when each
  // sample is padded (to seq_len, or to its micro-batch's longest:
  // model/padding.h PaddedView).
  double useful_tokens_per_sequence() const {
    if (packs_leave_gaps()) return ExpectedPackFill(seq_len, sample_len, sample_len_cv);
    return packing || sample_len <= 0 ? double(seq_len) : double(std::min(sample_len, seq_len));
  }
  // Tokens one optimizer step trains on (global_batch x useful tokens per
  // sequence; the GPUs compute global_batch x seq_len, pads included).
  double tokens_per_step() const { return double(global_batch) * useful_tokens_per_sequence(); }
};

}  // namespace pf

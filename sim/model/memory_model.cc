#include "sim/model/memory_model.h"

#include <algorithm>

#include "sim/model/framework_memory.h"
#include "sim/model/kbit_upcast.h"
#include "sim/model/model_math.h"
#include "sim/model/moe.h"
#include "sim/model/optimizer.h"
#include "sim/model/stack.h"
#include "sim/model/stack_kernels.h"
#include "sim/model/vision.h"

namespace pf {
namespace {

// Mixed-precision Adam: 2 B weights + 2 B gradients + 12 B optimizer state
// (fp32 master copy, momentum, variance) per trainable parameter (Rajbhandari
// et al. 2020, "ZeRO", Sec. 3.1: K = 12). In tf32/fp32 the weights and
// gradients are fp32 (4 B each) and Adam keeps momentum and variance only
// (8 B): the same 16 B per parameter.
double OptimizerBytes(Precision p) { return ElementBytes(p) == 4 ? 8 : 12; }
// NF4 with double quantization: 4.127 bits per parameter (Dettmers et al.
// 2023, "QLoRA", Sec. 3).
constexpr double kNf4Bytes = 4.127 / 8;
// Gradient elements a ZeRO-Offload GPU holds before they go to host memory:
// one reduce bucket, zero_optimization.reduce_bucket_size 5e8 as the
// Hugging Face DeepSpeed guide configures it (transformers
// docs/source/en/deepspeed.md, ZeRO-2 and ZeRO-3 examples).
constexpr double kOffloadBucketElements = 5e8;

// 16-bit bytes a token of one layer keeps, replicated over TP ranks (the
// norms) and sharded (the rest).
struct EagerSaved {
  double replicated = 0;
  double sharded = 0;
};

// What eager modeling code (model/stack.h Kernels::kEager: the Hugging Face
// Trainer's transformers layers, torchtune's modules) keeps for backward
// beyond the fused layers Korthikanti et al. count, in 16-bit bytes per
// token of one layer; autograd saves an operand only for the inputs that
// need a gradient (derivatives.yaml, mul: self's gradient needs other).
//  * RMSNorm (transformers' LlamaRMSNorm, torchtune's RMSNorm) upcasts its
//    input, hidden_states.to(torch.float32), and pow and the multiply by
//    rsqrt keep that fp32 copy: 4 B where the formula keeps the 2 B input.
//    Under method full the norm's weight trains, so weight * x.to(bf16)
//    keeps the bf16 normalized tensor too: 2 B more. Two norms a layer.
//    (Under PEFT's fp32 residual stream the input is already fp32 and the
//    casts are no-ops: the formula's doubled terms hold, ResidualUpcast.)
//  * SwiGLU as act_fn(gate_proj(x)) * up_proj(x) (LlamaMLP, torchtune's
//    FeedForward): silu keeps its input, the multiply keeps silu's output
//    and the up projection's: one f-wide tensor more than a fused SwiGLU.
//  * Attention that repeats a GQA model's K and V to every query head
//    before the kernel keeps the repeated copies: transformers' repeat_kv
//    on its eager and SDPA paths (not FlashAttention-2's, which takes GQA
//    as it is), torchtune's MultiHeadAttention always (k.unsqueeze(2)
//    .expand(...).flatten(1, 2), torchtune/modules/attention.py @ 1814feb1,
//    before SDPA or FlexAttention). Their output, in (batch, heads, seq,
//    dim), is copied by .transpose(1, 2).contiguous() for the output
//    projection, which keeps the copy while the kernel keeps its own.
EagerSaved EagerSavedBytes(const ModelSpec& m, const TrainingSpec& t) {
  EagerSaved saved;
  if (t.recompute == Recompute::kFull || t.recompute == Recompute::kSelectiveOp) return saved;
  const double h = m.hidden, q = m.q_dim(), kv = KvDimPerRank(m, 1);
  const double upcast = ResidualUpcast(t) ? 2.0 : 1.0;
  if (EagerLayers(t)) {
    if (!ResidualUpcast(t)) saved.replicated += 2 * (2 * h + (t.method == Method::kFull ? 2 * h : 0));
    // silu's output is the MLP outputs' type (fp32 from PEFT's upcast
    // 4-bit layers).
    if (m.ffn_kind == FfnKind::kSwiglu) saved.sharded += upcast * 2 * MlpWidth(m, t);
  }
  // The repeated K and V are the attention kernel's inputs, which it keeps,
  // compiled or not.
  if (RepeatsKv(t)) saved.sharded += 2 * 2 * (q - kv);
  if (TraitsOf(t.stack).repeats_kv && t.attention != Attention::kUnfused) saved.sharded += 2 * q;
  return saved;
}

}  // namespace

// Activation bytes one layer saves for backward, per micro-batch, on one TP
// rank (Korthikanti et al. 2022, Sec. 4, generalised to GQA and SwiGLU):
// 10 sbh the TP ranks replicate (norm and dropout inputs, the dropout
// masks), which sequence parallelism divides by tp too, plus the sharded
// terms. For GPT (kv = h, ffn = 4h, GeLU) this is their Table 2:
// sbh (10 + 24/t + 5as/(ht)) with TP, sbh (34/t + 5as/(ht)) with TP + SP,
// dropping 5as/(ht) with selective recompute, and 2sbh (2sbh/t with SP)
// for the one input full recompute keeps.
double LayerActivationBytes(const ModelSpec& m, const TrainingSpec& t, int tp, bool sp, int expert_tp) {
  const double s = t.seq_len, b = t.micro_batch, h = m.hidden, f = MlpWidth(m, t);
  const double kv_rank = KvDimPerRank(m, tp);
  const double sb = s * b;
  // The formula counts 16-bit tensors; tf32/fp32 tensors take twice the
  // bytes (its 1-byte dropout masks are doubled too: a slight overcount).
  const double width = ElementBytes(t.precision) / 2;
  const double replicated_share = sp ? 1.0 / tp : 1.0;
  // PEFT's fp32 norms (model/kbit_upcast.h) double the residual stream's
  // tensors (the layer's input, the norms' inputs and outputs) and the
  // 4-bit MLP's outputs; q, k, v are saved as FlashAttention's 16-bit casts.
  const double upcast = ResidualUpcast(t) ? 2.0 : 1.0;
  if (t.recompute == Recompute::kFull) return upcast * width * 2 * sb * h * replicated_share;  // the layer input only
  if (t.recompute == Recompute::kSelectiveOp) {
    // The block's input, the matmul outputs the policy keeps and the
    // attention output (model_math.h OpCheckpointRecomputed).
    LayerShards shards(tp, sp);
    if (expert_tp > 0) shards.expert_tp = expert_tp;
    const auto fwd = LayerOps(m, t, shards, Pass::kForward, t.method != Method::kFull);
    return width * 2 * (sb * h * replicated_share + OpCheckpointKeptMatmulOutputs(fwd) + sb * m.q_dim() / tp);
  }
  // 2 norms' inputs, QKV and MLP inputs, and the 2 hidden dropouts' masks
  // where the model drops out (ModelSpec::dropout; the formula's 1-byte
  // masks, doubled with the stream).
  double replicated = upcast * (m.dropout > 0 ? 10 : 8) * sb * h * replicated_share;
  // Megatron-Core's output-discarding recompute (training_spec.h
  // RecomputeModule) frees the norms' outputs (the QKV and MLP inputs), the
  // routed experts' activation output and MLA's up-projected Q, K, V once
  // used; its "mlp" keeps a dense MLP's input only.
  if (t.recomputes(RecomputeModule::kLayernorm)) replicated -= 4 * sb * h * replicated_share;
  double up = m.ffn_kind == FfnKind::kSwiglu ? 2 * f : f;
  const double q = m.q_dim();
  const bool qkv_again = m.mla.enabled() && t.recomputes(RecomputeModule::kMlaUpProj);
  const bool mlp_again = !m.moe.enabled() && t.recomputes(RecomputeModule::kMlp);
  const double act_again =
      m.moe.enabled() && t.recomputes(RecomputeModule::kMoeAct) ? m.moe.top_k * double(m.moe.expert_ffn) * t.expert_load() : 0;
  double sharded = (qkv_again ? 0 : 2 * sb * (q + 2 * kv_rank * tp))  // Q, K, V
                   + 2 * sb * q                                        // projection input
                   + (mlp_again ? 0 : upcast * (2 * sb * up + 2 * sb * (f - act_again)));  // MLP-up output, activation output
  // A mixture of experts keeps its experts' input: the routed copies of
  // the tokens, top_k x load per token (Megatron's permuted tokens), its
  // TP group's on each rank (expert_tp = tp) or its own (expert_tp = 1).
  if (m.moe.enabled()) {
    const double copies = m.moe.top_k * t.expert_load();
    sharded += upcast * 2 * sb * h * copies * ((expert_tp > 0 ? expert_tp : tp) == 1 ? 1.0 : double(tp));
  }
  // LoRA's dropout and PEFT's fp32 inputs (stack_kernels.h).
  sharded += sb * AdapterSavedBytesPerToken(m, t, tp) * tp / width;
  // Eager modeling code keeps more than Megatron's fused layers (above).
  const EagerSaved eager = EagerSavedBytes(m, t);
  replicated += eager.replicated * sb * replicated_share;
  sharded += eager.sharded * sb;
  double scores = 0;
  // Megatron's fused softmax keeps its output, the dropout mask and output
  // (5 B a score); eager Hugging Face code the fp32 softmax output and its
  // cast back (4 + 2, or 4 alone at 4-byte scores; dropout at p = 0 keeps
  // nothing).
  const bool scores_kept = t.recompute == Recompute::kNone ||
                           (t.recompute == Recompute::kSelective && !t.recomputes(RecomputeModule::kCoreAttn));
  if (t.attention == Attention::kUnfused && scores_kept) {
    const double e = ActivationBytes(t.precision);
    const double per_score = EagerLayers(t) ? (e >= 4 ? 4.0 : 4.0 + e) : 5.0;
    scores = per_score * m.heads * s * s * b;
  }
  return width * (replicated + (sharded + scores) / tp);
}

namespace {

// Whether the gradients are freed after each step, so that the forward
// and the step are phases apart (below): the Trainer's model.zero_grad()
// (torch 2.x's set_to_none=True default) and torchtune's
// optimizer.zero_grad(set_to_none=True) (recipes/full_finetune_single_device.py
// @ 1814feb1); without ZeRO, whose engines keep their gradient buffers.
bool GradientsFreedAfterStep(const Scenario& sc) {
  const Stack s = sc.training.stack;
  return sc.parallel.zero == 0 && (OnHfTrainerWithPeft(s) || s == Stack::kTorchtune);
}

// Bytes per trained parameter of foreach AdamW's temporary during the
// step. torch.optim's multi-tensor AdamW (adamw.py _multi_tensor_adamw,
// torch 2.4) computes the denominator as a new tensor list,
// exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs), while the
// weights, gradients and both moments are alive: one more copy of a moment
// (torch.optim's docs: foreach "uses ~ sizeof(params) more peak memory").
// The moments are the parameter's dtype: 2 B under pure bf16, 4 B where
// the trained weights are fp32 (autocast's master weights, PEFT's fp32
// adapters). Only where the Trainer's default optimizer steps
// (optim="adamw_torch": torch.optim.AdamW, foreach on CUDA): stacks hf and
// llama-factory without DeepSpeed ZeRO, whose engine steps its own fused
// Adam. The FSDP recipes differ (llm-foundry's DecoupledAdamW loops over
// the parameters, TorchTitan's AdamW is fused), Unsloth's guides pick
// bitsandbytes' 8-bit AdamW (training.optimizer: adamw_8bit), and
// bitsandbytes steps a tensor at a time: none of them holds this
// temporary.
// Measured: fms-acceleration's full fine-tune of Mistral-7B in pure bf16
// on one A100 peaks at 72.43 GB allocated at batch 4 and batch 8 alike
// (refs/a100_80gb.csv @ 876e2ed), 10.0 B a parameter: weights, gradients,
// two moments and this temporary at 2 B each.
double ForeachAdamTemp(const Scenario& sc) {
  const TrainingSpec& t = sc.training;
  if (!OnHfTrainerWithPeft(t.stack) || sc.parallel.zero >= 1 || BnbOptimizer(t)) return 0;
  return t.method == Method::kFull && t.pure_bf16 ? 2 : 4;
}

// Whether the gradients also sit in DistributedDataParallel's buckets: the
// Trainer (stacks hf, llama-factory, unsloth) data-parallel without
// DeepSpeed ZeRO wraps the model in torch DDP through accelerate, whose
// gradient_as_bucket_view defaults to False, so the all-reduce buckets are
// a copy of the gradients kept from step to step (torch's DDP
// documentation: a bucket view "can reduce peak memory usage, where the
// saved memory size will be equal to the total gradients size"; accelerate
// DistributedDataParallelKwargs gradient_as_bucket_view = False). Megatron
// and NeMo accumulate into their contiguous buffer, DeepSpeed and FSDP
// into their own.
bool DdpBuckets(const Scenario& sc) {
  return OnHfTrainer(sc.training.stack) && sc.parallel.dp > 1 && sc.parallel.zero == 0;
}

// Optimizer state bytes per trained parameter: mixed precision's fp32
// master copy (OptimizerBytes less the two fp32 moments; none in tf32 and
// fp32, whose weights are the master) and the moments; with 16-bit
// parameters (stack.h Bf16TrainedParams: pure bf16, torchtune's adapters)
// no master and the moments in the parameters' dtype, 2 B each. A
// bitsandbytes optimizer updates the parameters themselves with moments of
// its own (model/optimizer.h).
double StateBytesPerParam(const TrainingSpec& t) {
  const bool bf16_params = Bf16TrainedParams(t);
  const double master = bf16_params ? 0 : OptimizerBytes(t.precision) - 8;
  if (BnbOptimizer(t)) return master + BnbMomentBytes(t);
  return bf16_params ? 4 : OptimizerBytes(t.precision);
}

// A paged bitsandbytes optimizer's moments of `trained` parameters move
// out of PyTorch's allocator into unified memory (optimizer.h PagedShare),
// the embedding's fp32 ones with them (the absmax blocks stay).
void PageStates(const Scenario& sc, double trained, MemoryBreakdown& r) {
  const double per_param = BnbPagedBytes(sc.training);
  const Bytes paged(trained * PagedShare(sc) * per_param +
                    (per_param > 0 ? Fp32MomentParams(sc) * (8 - per_param) : 0));
  r.optimizer -= paged;
  r.paged_optimizer = paged;
}

// Weights, gradients and optimizer states of `stage`, per GPU, by method,
// precision and ZeRO stage.
void StatesMemory(const Scenario& sc, int stage, MemoryBreakdown& r) {
  const ModelSpec& m = sc.model;
  const ParallelSpec& p = sc.parallel;
  const TrainingSpec& t = sc.training;
  // Parameters resident on this stage (all its model chunks), per TP rank.
  double layer_params = 0, edge_params = 0, experts = 0;
  for (int chunk = 0; chunk < p.vp; ++chunk) {
    const StageParams sp = ParamsPerTpRank(m, p, chunk * p.pp + stage);
    layer_params += sp.layers;
    edge_params += sp.edges();
    experts += sp.experts;
  }
  const int layers = LayersOfStage(m, p, stage);
  const double base = layer_params + edge_params;
  const double dp = p.shard_ranks();  // HSDP shards over its group only
  const double e = ElementBytes(t.precision);
  if (t.method == Method::kFull) {
    // Routed experts are replicated on expert_dp GPUs only (expert
    // parallelism), which shard their states (Megatron's distributed
    // optimizer; MoE refuses ZeRO-3, validate.cc).
    const double edp = p.ep > 1 ? p.expert_dp() : dp;
    auto sharded = [&](double per_param, bool shard) {
      return shard ? (base - experts) * per_param / dp + experts * per_param / edp : base * per_param;
    };
    r.weights = Bytes(base * e / (p.zero >= 3 ? dp : 1));
    r.gradients = Bytes(sharded(GradientBytes(t), p.zero >= 2));  // fp32 under Megatron's bf16 (stack.h)
    // pure_bf16: Adam's two moments in bf16, no master copy (8 B a
    // parameter with the weights and gradients).
    r.optimizer = Bytes(sharded(StateBytesPerParam(t), p.zero >= 1) + WideMomentBytes(sc));
    PageStates(sc, base, r);
    r.optimizer_step = Bytes(sharded(ForeachAdamTemp(sc), p.zero >= 1));
    // Stepped in the backward, each gradient lives from its accumulation
    // to its step: one weight matrix at a time, the largest the
    // vocabulary's, whose gradient a tied embedding holds from the LM
    // head's backward to the embedding's (autograd sums the two uses
    // before the hook fires).
    if (t.optimizer_in_backward) r.gradients = Bytes(double(m.vocab) * m.hidden / p.tp * GradientBytes(t));
    if (p.offload != Offload::kNone) {
      // ZeRO-Offload (Ren et al. 2021, Sec. 4): gradients go to host memory
      // bucket by bucket and the optimizer states live there; the GPU keeps
      // one reduce bucket. ZeRO-Infinity with offload_params keeps only the
      // layers being computed (zero_buffers).
      r.optimizer = Bytes(0);
      r.gradients = std::min(r.gradients, Bytes(kOffloadBucketElements * e));
      if (p.offload_params) r.weights = Bytes(0);
    }
    return;
  }
  // QLoRA's embeddings and LM head stay 16-bit, or fp32 as PEFT's k-bit
  // preparation leaves them (model/kbit_upcast.h).
  const double edge_bytes = EdgesUpcast(t) ? 4 : e;
  const double frozen = t.method == Method::kQlora ? layer_params * kNf4Bytes + edge_params * edge_bytes
                                                   : base * e;
  const double adapters = t.lora_rank * AdapterWidthPerLayer(m, t) * layers / p.tp;
  r.weights = Bytes(frozen / (p.zero >= 3 ? dp : 1) + adapters * e);
  // torchtune's 16-bit adapters (stack.h Bf16Adapters): 16-bit gradients
  // and two 16-bit moments, 8 B a parameter with the weight. PEFT's fp32
  // adapters under pure bf16, 4 + 4 + 8, are mixed precision's 2 + 2 + 12.
  const bool bf16 = Bf16Adapters(t);
  r.gradients = Bytes(adapters * (bf16 ? e : GradientBytes(t)));
  r.optimizer = Bytes(adapters * StateBytesPerParam(t) / (p.zero >= 1 ? dp : 1));
  PageStates(sc, adapters, r);
  r.optimizer_step = Bytes(adapters * ForeachAdamTemp(sc) / (p.zero >= 1 ? dp : 1));
  if (p.offload != Offload::kNone) r.optimizer = r.optimizer_step = Bytes(0);  // the adapters' states in host memory
}

// What a stage's activations take: those held for backward, and the one
// layer full (or selective_op) recompute rematerialises at a time.
struct StageActivations {
  double held = 0, layer = 0;
};

// 1F1B: stage i holds the activations of its warm-up forwards + 1 at peak:
// pp - i micro-batches, or with vp model chunks (pp - i - 1) x 2 +
// (vp - 1) x pp + 1 chunk-micro-batches of the stage's layers / vp each.
StageActivations ActivationMemory(const Scenario& sc, int stage) {
  const ModelSpec& m = sc.model;
  const ParallelSpec& p = sc.parallel;
  const TrainingSpec& t = sc.training;
  const int micro_batches = t.micro_batches_per_step(p.dp);
  const double chunk_layers = double(LayersOfStage(m, p, stage)) / p.vp;
  const int in_flight = p.vp == 1 ? std::min(p.pp - stage, micro_batches)
                                  : std::min((p.pp - stage - 1) * 2 + (p.vp - 1) * p.pp + 1,
                                             micro_batches * p.vp);
  // A mixture of experts' dense first layers keep a dense block's share.
  int dense_layers = 0;
  for (int chunk = 0; chunk < p.vp; ++chunk) dense_layers += DenseLayersOfVirtualStage(m, p, chunk * p.pp + stage);
  const ModelSpec dense = DenseBlockOf(m);
  const double held = LayersOfStage(m, p, stage);
  const double per_layer = held > 0 ? ((held - dense_layers) * LayerActivationBytes(m, t, p.tp, p.sp, p.etp()) +
                                       dense_layers * LayerActivationBytes(dense, t, p.tp, p.sp, p.etp())) / held
                                    : 0;
  StageActivations act;
  act.held = per_layer * chunk_layers * in_flight;
  // Offloaded, the GPU keeps the forward's stash (kOffloadStash); the
  // backward brings a layer back ahead of the one it computes, within it.
  if (t.offload_activations) act.held = std::min(act.held, per_layer * kOffloadStash);
  if (t.recompute == Recompute::kFull || t.recompute == Recompute::kSelectiveOp) {
    TrainingSpec no_recompute = t;
    no_recompute.recompute = Recompute::kNone;
    // One layer rematerialised (selective_op: what it recomputes of one).
    const double whole = LayerActivationBytes(m, no_recompute, p.tp, p.sp, p.etp());
    act.layer = t.recompute == Recompute::kFull ? whole
                                                : std::max(0.0, whole - LayerActivationBytes(m, t, p.tp, p.sp, p.etp()));
  }
  return act;
}

// The terms beyond the tensors of `r` (framework_memory.h), the total, the
// verdict against the GPU and what nvidia-smi shows.
void AddFrameworkMemory(const Scenario& sc, MemoryBreakdown& r) {
  const Bytes live = LiveTensors(r);
  const FrameworkMemory f = EstimateFrameworkMemory(sc, live);
  r.cuda_context = f.cuda_context;
  r.nccl_buffers = f.nccl_buffers;
  r.allocator_reserve = f.allocator_reserve;
  r.framework = f.total();
  r.total = live + r.framework;
  r.capacity = sc.cluster.node.gpu.memory;
  r.fits = r.total <= r.capacity;
  // Paged states take what the GPU has left; the driver evicts the rest
  // to host memory (bitsandbytes docs: paging "only becomes active if you
  // run out of GPU memory").
  const Bytes resident = std::clamp(r.capacity - r.total, Bytes(0), r.paged_optimizer);
  r.paged_evicted = r.paged_optimizer - resident;
  r.total += resident;
  // The allocator's cache as far as the GPU holds it, none where the job
  // does not fit.
  r.observed = r.fits ? std::min(r.capacity, r.total + f.allocator_cache + r.phase_cache) : r.total;
  r.allocator_cache = r.observed - r.total;
}

// A vision model, data-parallel: the same states per parameter; the
// activations its kernels keep for backward (model/vision.h) for one
// micro-batch; under ZeRO-3 the whole model gathered at once (its layers
// are small).
MemoryBreakdown VisionMemory(const Scenario& sc) {
  const ParallelSpec& p = sc.parallel;
  const TrainingSpec& t = sc.training;
  const VisionCounts c = CountVision(sc.model.vision);
  const double e = ElementBytes(t.precision), dp = p.shard_ranks();
  MemoryBreakdown r;
  r.weights = Bytes(c.params * e / (p.zero >= 3 ? dp : 1));
  r.gradients = Bytes(c.params * GradientBytes(t) / (p.zero >= 2 ? dp : 1));
  r.optimizer = Bytes(c.params * OptimizerBytes(t.precision) / (p.zero >= 1 ? dp : 1));
  r.activations = Bytes(c.activation_elements * e * t.micro_batch);
  if (p.zero >= 3 && p.dp > 1) r.zero_buffers = Bytes(c.params * e);
  AddFrameworkMemory(sc, r);
  return r;
}

MemoryBreakdown StageMemory(const Scenario& sc, int stage) {
  const ModelSpec& m = sc.model;
  const ParallelSpec& p = sc.parallel;
  const TrainingSpec& t = sc.training;
  MemoryBreakdown r;
  r.stage = stage;
  StatesMemory(sc, stage, r);
  const StageActivations act = ActivationMemory(sc, stage);
  if (stage == p.pp - 1) {  // bf16 logits + fp32 softmax/gradient over the vocabulary shard
    r.logits = Bytes(t.tokens_per_micro_batch() * m.vocab / p.tp * LogitsBytesPerElement(LossOf(t), 2));
    // An fp32 LM head's 16-bit copy, saved from its forward to its
    // backward (model/kbit_upcast.h).
    if (EdgesUpcast(t)) r.logits += Bytes(double(m.vocab) * m.hidden / p.tp * 2);
  }
  // The loss's tensors are freed with the LM head's backward, before the
  // first layer is recomputed: the two never coexist, and the step's peak
  // holds the larger. The rematerialised layer counts by what it adds
  // beyond the loss.
  r.activations = Bytes(act.held + std::max(0.0, act.layer - r.logits.value()));
  r.phase_cache = Bytes(std::min(act.layer, r.logits.value()));
  if (p.zero >= 3 && p.dp > 1) {
    const StackTraits& st = TraitsOf(t.stack);
    const double w = LayerWeightBytes(t.method, t.precision), g = ElementBytes(t.precision);
    if (st.gather == Zero3Gather::kPerModule && m.kind == ModelKind::kTransformer) {
      // DeepSpeed's fetch_sub_module: the module being computed and what
      // is prefetched after it, parameters in trace order up to the
      // prefetch bucket but at least the next one
      // (partitioned_param_coordinator.py), and the module's gradients
      // (none for a frozen base).
      const double module = LargestModuleParams(m, st, p.tp);
      const double grads = t.method == Method::kFull ? g : 0;
      const double ahead = std::min(std::max(module, kDeepSpeedPrefetchBucket), CountParams(m).total(m.layers) / p.tp);
      r.zero_buffers = Bytes(module * (w + grads) + ahead * w);
    } else {  // the layer being computed, the prefetched one, its gradients
      r.zero_buffers = Bytes(CountParams(m).per_layer / p.tp * (2 * w + g));
    }
  }
  if (DdpBuckets(sc)) r.ddp_buckets = r.gradients;
  // torch's optimizer loop (GradientsFreedAfterStep): zero_grad(
  // set_to_none=True) after each step frees the gradients, and the
  // backward has freed the activations, the loss and the gathered layers
  // before the step. The forward and loss phase
  // holds the activations, the loss and the gathered layers (and, from the
  // second accumulated micro-batch on, the gradients); the step holds the
  // gradients and its temporary. fms-acceleration's pure-bf16 Mistral-7B
  // peaks at 72.43 GB at batch 4 and 8 alike: the step's. Between the two,
  // the backward's end holds every gradient and the first layer's tensors
  // (its saved activations, or its checkpoint and the layer recomputed
  // from it): the peak under full recompute with a small loss, where the
  // forward holds little (torchtune's ladder, "+ Activation
  // Checkpointing": 24.9 GiB, of which 24.0 the weights, gradients and
  // moments).
  if (GradientsFreedAfterStep(sc) && !t.optimizer_in_backward) {
    const Bytes forward = r.activations + r.logits + r.zero_buffers;
    const Bytes accumulated = t.micro_batches_per_step(p.dp) > 1 ? r.gradients : Bytes(0);
    const Bytes step = r.gradients + r.optimizer_step;
    const int layers = std::max(1, LayersOfStage(m, p, stage));
    const Bytes backward_end = r.gradients + Bytes(act.layer + act.held / layers);
    r.phases_apart =
        forward + r.gradients + r.optimizer_step - std::max({forward + accumulated, step, backward_end});
  }
  AddFrameworkMemory(sc, r);
  return r;
}

}  // namespace

double OffloadedActivationBytes(const Scenario& s) {
  if (!s.training.offload_activations) return 0;
  const ParallelSpec& p = s.parallel;
  double most = 0;
  for (int stage = 0; stage < p.pp; ++stage)
    most = std::max(most, LayersOfStage(s.model, p, stage) *
                              LayerActivationBytes(s.model, s.training, p.tp, p.sp, p.etp()));
  return most;
}

Bytes OptimizerStates(const Scenario& s) {
  const TrainingSpec& t = s.training;
  return Bytes(TrainableParams(s) * StateBytesPerParam(t) + WideMomentBytes(s));
}

double LayerWeightBytes(Method m, Precision p) { return m == Method::kQlora ? kNf4Bytes : ElementBytes(p); }

double TrainableParams(const Scenario& s) {
  if (s.model.kind == ModelKind::kVision) return CountVision(s.model.vision).params;
  if (s.training.method == Method::kFull) return CountParams(s.model).total(s.model.layers);
  return s.training.lora_rank * AdapterWidthPerLayer(s.model, s.training) * s.model.layers;
}

Bytes LiveTensors(const MemoryBreakdown& m) {
  return m.weights + m.gradients + m.optimizer + m.activations + m.logits + m.zero_buffers + m.ddp_buckets +
         m.optimizer_step - m.phases_apart;
}

MemoryBreakdown EstimateMemory(const Scenario& s) {
  if (s.model.kind == ModelKind::kVision) return VisionMemory(s);
  if (s.parallel.cp > 1) return EstimateMemory(ContextRankView(s));  // 1/cp of each sequence per rank
  // The first stage holds the most activations, the last the logits, and
  // with an uneven split a middle stage may hold the most layers.
  MemoryBreakdown worst = StageMemory(s, 0);
  for (int stage = 1; stage < s.parallel.pp; ++stage) {
    MemoryBreakdown m = StageMemory(s, stage);
    if (m.total > worst.total) worst = m;
  }
  return worst;
}

}  // namespace pf

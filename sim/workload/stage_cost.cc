#include "sim/workload/stage_cost.h"

#include "sim/model/compute_model.h"
#include "sim/model/memory_model.h"
#include "sim/model/model_math.h"
#include "sim/model/moe.h"
#include "sim/model/stack.h"
#include "sim/model/vision.h"

namespace pf {
namespace {

// A pass's kernels on the GPU; eager PyTorch issues them one by one from
// the host, so a pass of many short kernels takes the host's time instead
// (model/stack.h), and under CUDA_LAUNCH_BLOCKING=1 both, one after the
// other.
Work Measure(const std::vector<Op>& ops, const Scenario& s, Pass pass = Pass::kForward) {
  Work w;
  for (const Op& op : ops) {
    w.seconds += OpTime(op, s.cluster.node.gpu, s.training.precision, s.calibration);
    w.flops += op.flops;
  }
  const Seconds host = (pass == Pass::kForward ? HostSecondsPerForwardKernel() : HostSecondsPerBackwardKernel()) *
                       double(ops.size());
  // CUDA_LAUNCH_BLOCKING=1: the host issues each kernel only after the one
  // before has ended, and waits for each.
  if (s.training.launch_blocking) {
    w.host_wait = host + BlockingLaunchWaitPerKernel() * double(ops.size());
    w.seconds = w.seconds + w.host_wait;
  } else if (host > w.seconds) {
    w.host_wait = host - w.seconds;
    w.seconds = host;
  }
  return w;
}

// One layer's backward, with the forward work recompute repeats in it:
// the whole layer (full), the attention core and the modules listed
// (selective: model_math.h SelectiveRecomputed) or what torchtitan's
// op-level policy does not keep (selective_op).
Work LayerBackward(const Scenario& s, const ModelSpec& m, const std::vector<Op>& fwd_ops, Work fwd, bool frozen) {
  const TrainingSpec& t = s.training;
  Work bwd = Measure(LayerOps(m, t, ShardsOf(s.parallel), Pass::kBackward, frozen), s, Pass::kBackward);
  if (t.recompute == Recompute::kFull) return bwd + fwd;
  if (t.recompute == Recompute::kSelective) return bwd + Measure(SelectiveRecomputed(m, t, fwd_ops), s);
  if (t.recompute == Recompute::kSelectiveOp) return bwd + Measure(OpCheckpointRecomputed(fwd_ops), s);
  return bwd;
}

// Megatron: an all-reduce after attention and after the MLP, forward and
// backward (the f/g operators; with sequence parallelism each is a
// reduce-scatter and an all-gather, emitted in pairs); recompute repeats the forward ones; the
// vocabulary-parallel embedding adds one on the first stage and the
// column-parallel LM head's input gradient one in backward on the last.
// With whole experts on each GPU (expert_tp 1) and no shared experts, a
// mixture of experts' MLP has no TP collectives: the token all-to-all
// replaces them.
void TensorParallelCounts(const Scenario& s, bool first, bool last, StageCost& c) {
  if (s.parallel.tp <= 1) return;
  const MoeSpec& moe = s.model.moe;
  // Collectives per layer: 2, or 1 in a sparse layer without TP inside it.
  const int sparse = c.layers - c.dense_layers;
  const int per_stage = moe.enabled() && s.parallel.etp() == 1 && moe.shared_experts == 0 ? sparse + 2 * c.dense_layers
                                                                                         : 2 * c.layers;
  c.tp_fwd = per_stage + (first ? 1 : 0);
  // Recompute repeats the forward's collectives; torchtitan's op-level
  // policy keeps reduce-scatter outputs (_save_list), so under sequence
  // parallelism it repeats the all-gather half of each pair.
  int again = 0;
  if (s.training.recompute == Recompute::kFull) again = per_stage;
  if (s.training.recompute == Recompute::kSelectiveOp) again = s.parallel.sp ? (per_stage + 1) / 2 : per_stage;
  // Megatron-Core's "mlp" module repeats each dense MLP's forward, its
  // collective (or all-gather and reduce-scatter pair) included.
  if (s.training.recomputes(RecomputeModule::kMlp)) again += moe.enabled() ? c.dense_layers : c.layers;
  c.tp_bwd = per_stage + again + (last ? 1 : 0);
}

// A mixture of experts over ep > 1 ranks (Megatron-Core's all-to-all token
// dispatcher): each layer's forward dispatches its tokens to their experts
// and combines the results back, the backward sends their gradients the
// same two ways, and full recompute repeats the forward's.
void ExpertCounts(const Scenario& s, StageCost& c) {
  const ParallelSpec& p = s.parallel;
  if (!s.model.moe.enabled() || p.ep <= 1) return;
  const int sparse = c.layers - c.dense_layers;
  c.ep_fwd = 2 * sparse;
  // The token all-to-alls are not among what torchtitan's op-level policy keeps.
  const bool repeats = s.training.recompute == Recompute::kFull || s.training.recompute == Recompute::kSelectiveOp;
  c.ep_bwd = 2 * sparse + (repeats ? 2 * sparse : 0);
  c.ep_bytes = DispatchBytes(s.model, s.training, p);
}

// A vision model's whole network, forward and backward, for one
// micro-batch of images, cut into LayerCount layers of equal weights for
// the data-parallel emitter (buckets, ZeRO-3 gathers).
StageCost VisionCost(const Scenario& s) {
  const VisionSpec& v = s.model.vision;
  const double e = ElementBytes(s.training.precision);
  StageCost c;
  c.layers = LayerCount(s.model);
  c.fwd = Measure(VisionOps(v, s.training.micro_batch, e, Pass::kForward), s);
  c.bwd = Measure(VisionOps(v, s.training.micro_batch, e, Pass::kBackward), s, Pass::kBackward);
  c.params = CountVision(v).params;
  c.layer_weights = c.params / c.layers;
  return c;
}

}  // namespace

StageCost CostOfStage(const Scenario& s, int vstage) {
  if (s.model.kind == ModelKind::kVision) return VisionCost(s);
  const ModelSpec& m = s.model;
  const TrainingSpec& t = s.training;
  const ParallelSpec& p = s.parallel;
  const bool frozen = t.method != Method::kFull;
  const int vstages = p.pp * p.vp;
  const bool first = vstage == 0, last = vstage == vstages - 1;
  const StageParams held = ParamsPerTpRank(m, p, vstage);
  StageCost c;
  c.layers = held.layer_count;
  c.dense_layers = held.dense_count;
  // A mixture of experts' dense first layers (DeepSeek) cost as a dense
  // block; the rest as the model's.
  auto add_layers = [&](const ModelSpec& model, int n) {
    if (n <= 0) return;
    const std::vector<Op> fwd_ops = LayerOps(model, t, ShardsOf(p), Pass::kForward, frozen);
    const Work fwd_layer = Measure(fwd_ops, s);
    c.fwd = c.fwd + fwd_layer * n;
    c.bwd = c.bwd + LayerBackward(s, model, fwd_ops, fwd_layer, frozen) * n;
  };
  const ModelSpec dense = DenseBlockOf(m);
  add_layers(m, c.layers - held.dense_count);
  add_layers(dense, held.dense_count);
  if (first) {
    c.fwd = c.fwd + Measure(EmbeddingOps(m, t, p.tp, Pass::kForward), s);
    c.bwd = c.bwd + Measure(EmbeddingOps(m, t, p.tp, Pass::kBackward), s, Pass::kBackward);
  }
  if (last) {
    c.fwd = c.fwd + Measure(HeadOps(m, t, p.tp, Pass::kForward, frozen), s);
    c.bwd = c.bwd + Measure(HeadOps(m, t, p.tp, Pass::kBackward, frozen), s, Pass::kBackward);
  }
  c.layer_weights = CountParams(m).per_layer / p.tp;
  if (t.offload_activations) c.offload_bytes = Bytes(c.layers * LayerActivationBytes(m, t, p.tp, p.sp, p.etp()));
  c.params = frozen ? t.lora_rank * AdapterWidthPerLayer(m, t) * c.layers / p.tp : held.total();
  if (!frozen && p.ep > 1) c.expert_params = held.experts;
  // DeepSpeed's BF16_Optimizer under a pipeline (stack.h): after each
  // micro-batch's backward, update_hp_grads adds every parameter's bf16
  // gradient into its fp32 copy as `hp_grad.data.add_(lp.grad.data.to(
  // hp_grad.dtype))` (runtime/bf16_optimizer.py @ v0.6.2 32d9797): a cast
  // (read 2, write 4 bytes a parameter) and an add (read 4 + 4, write 4),
  // two kernels issued from a Python loop.
  if (ReducesAfterFlush(s) && t.precision == Precision::kBf16)
    c.bwd = c.bwd + Measure({{"bf16_optimizer_grad_to_fp32", OpKind::kMemory, Flops(0), Bytes(6 * c.params)},
                             {"bf16_optimizer_grad_add", OpKind::kMemory, Flops(0), Bytes(12 * c.params)}},
                            s);
  TensorParallelCounts(s, first, last, c);
  ExpertCounts(s, c);
  if (p.context_group > 1) {  // ring attention's K/V exchange, as Llama 3's all-gather of K and V
    c.cp_fwd = c.layers;
    c.cp_bwd = 2 * c.layers + (t.recompute == Recompute::kFull ? c.layers : 0);
    c.cp_bytes = Bytes(t.tokens_per_micro_batch() * p.context_group * 2 * KvDimPerRank(m, p.tp) *
                       ActivationBytes(t.precision));
  }
  return c;
}

}  // namespace pf

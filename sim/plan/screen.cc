#include "sim/plan/screen.h"

#include <algorithm>
#include <vector>

#include "sim/collectives/flows.h"
#include "sim/collectives/nccl.h"
#include "sim/engine/group_paths.h"
#include "sim/engine/node_topology.h"
#include "sim/model/compute_model.h"
#include "sim/model/memory_model.h"
#include "sim/model/model_math.h"
#include "sim/model/padding.h"
#include "sim/model/stack.h"
#include "sim/workload/data_parallel.h"
#include "sim/workload/expert_parallel.h"
#include "sim/workload/rank_layout.h"
#include "sim/workload/stage_cost.h"

namespace pf {
namespace {

// The uncontended time of one collective of `kind` and `size` over `group`.
Seconds CollectiveTime(const Scenario& s, CollectiveKind kind, const std::vector<int>& group, Bytes size) {
  if (group.size() < 2 || size.value() <= 0) return Seconds(0);
  const NodeTopology topo(s.cluster.node);
  const auto plan = PlanCollective(kind, ShapeOf(group, s.cluster.node.gpus_per_node),
                                   PathsOf(s.cluster, topo, group), size);
  return plan ? plan->time : Seconds(0);
}

// One token exchange of a mixture of experts (a dispatch or a combine),
// blocking as Megatron-Core's dispatcher is: its all-to-alls run beside
// each other, uncontended; 0 without expert parallelism.
Seconds ExchangeTime(const Scenario& s, int stage, const StageCost& c) {
  if (c.ep_fwd + c.ep_bwd == 0) return Seconds(0);
  Seconds t;
  for (const EpCollective& x : ExchangeCollectives(s, 0, stage, c))
    t = std::max(t, CollectiveTime(s, CollectiveKind::kAllToAll, x.gpus, x.bytes));
  return t;
}

}  // namespace

ScreenEstimate ScreenStep(const Scenario& s) {
  // The sequences the step computes (model/padding.h); copied only then.
  if (PadsToLongest(s.training)) return ScreenStep(PaddedView(s));
  const ParallelSpec& p = s.parallel;
  const TrainingSpec& t = s.training;
  const int micro_batches = t.micro_batches_per_step(p.dp);
  const Bytes hidden = HiddenStateBytes(s.model, t);
  const double e = ElementBytes(t.precision);
  const Seconds tp_all_reduce = CollectiveTime(s, CollectiveKind::kAllReduce, TpGroup(p, 0, 0), hidden);
  const Seconds send = p.pp > 1 ? CollectiveTime(s, CollectiveKind::kSendRecv,
                                                 {GpuIndex(p, 0, 0, 0), GpuIndex(p, 0, 0, 1)}, hidden / p.tp)
                                : Seconds(0);
  // Per stage, all its model chunks for one micro-batch: the slowest sets
  // 1F1B's slot. Trained parameters (gradients) and held weights (ZeRO-3
  // gathers: every weight, frozen or not) of the fullest stage.
  Seconds slot, last_backward;
  double most_params = 0, most_weights = 0, most_experts = 0;
  // Under ZeRO-3 with copied buffers NCCL shares every GPU through the
  // step, as the engine simulates it (model/stack.h NcclShareResident): the
  // compute runs at 1 - nccl_compute_share of its speed.
  const double resident = NcclShareResident(s) ? 1 / (1 - s.calibration.nccl_compute_share) : 1;
  for (int stage = 0; stage < p.pp; ++stage) {
    Seconds work;
    double params = 0, weights = 0, experts = 0;
    for (int chunk = 0; chunk < p.vp; ++chunk) {
      const int vstage = chunk * p.pp + stage;
      const StageCost c = CostOfStage(s, vstage);
      const Seconds compute = (c.fwd.seconds + c.bwd.seconds) * resident;
      const Seconds exchanges = ExchangeTime(s, stage, c) * double(c.ep_fwd + c.ep_bwd);
      // EP overlap runs them beside the paired pass's compute, taking the
      // dispatcher's share of the GPU while they do (stage_emitter.cc
      // EmitTogether); what the compute cannot cover stays exposed.
      const Seconds exposed = p.ep_overlap ? std::max(Seconds(0), exchanges - compute) +
                                                 exchanges * s.calibration.nccl_compute_share
                                           : exchanges;
      work += compute + tp_all_reduce * double(c.tp_fwd + c.tp_bwd) + exposed;
      last_backward = std::max(last_backward, c.bwd.seconds * resident);
      params += c.params, experts += c.expert_params;
      weights += s.model.kind == ModelKind::kVision ? c.params : ParamsPerTpRank(s.model, p, vstage).total();
    }
    slot = std::max(slot, work);
    if (params > most_params) most_experts = experts;
    most_params = std::max(most_params, params), most_weights = std::max(most_weights, weights);
  }
  ScreenEstimate est;
  const double slots = micro_batches + p.pp - 1;
  const Seconds pipeline = (slot + send * 2.0) * slots;
  est.compute = slot * double(micro_batches);
  est.bubble = (slot + send * 2.0) * double(p.pp - 1);
  // Data-parallel gradient traffic of the fullest stage, lane 0's group.
  Seconds dp;
  if (p.dp > 1) {
    const std::vector<int> group = DpGroup(p, 0);
    const Bytes grads(most_params * GradientBytes(t));
    if (p.zero >= 3) {  // per micro-batch the weights gathered forward and backward, the gradients reduce-scattered
      // One collective per layer (FSDP) or per Linear (DeepSpeed), each
      // with its latency.
      // DeepSpeed's backward fetches twice under RegathersForBackward, and
      // its gathers run in series with the compute (Zero3GatherLookahead);
      // FSDP's hide behind it, as the reduce-scatters do.
      // Over the shard group (HSDP's, or all DP ranks), at the bytes the
      // weights are held in (QLoRA's 4-bit base: LayerWeightBytes).
      const double n = double(Zero3CollectivesPerLayer(s)) * std::max(1, s.model.layers);
      const double fetches = RegathersForBackward(s) ? 3 : 2;
      const std::vector<int> shard(group.begin(), group.begin() + std::min<size_t>(group.size(), p.shard_ranks()));
      const double held = LayerWeightBytes(t.method, t.precision);
      const Seconds gathers =
          CollectiveTime(s, CollectiveKind::kAllGather, shard, Bytes(most_weights * held / n)) * (fetches * n);
      const Seconds scatters = CollectiveTime(s, CollectiveKind::kReduceScatter, shard, Bytes(grads.value() / n)) * n;
      const double mb = micro_batches;
      dp = Zero3GatherLookahead(TraitsOf(t.stack).gather) > 0
               ? std::max(Seconds(0), (gathers + scatters) * mb - est.compute)
               : gathers * mb + std::max(Seconds(0), scatters * mb - est.compute);
    } else {
      // The dense gradients over the DP group, a mixture of experts' routed
      // experts' over their expert-data-parallel group; ZeRO-2 reduces them
      // after every micro-batch's backward, the others once, after the last
      // (workload/data_parallel.cc).
      const CollectiveKind kind = p.zero >= 1 ? CollectiveKind::kReduceScatter : CollectiveKind::kAllReduce;
      const Bytes expert_grads(most_experts * GradientBytes(t));
      const Seconds reduce = CollectiveTime(s, kind, group, grads - expert_grads) +
                             CollectiveTime(s, kind, ExpertDpGroup(p, 0, 0), expert_grads);
      if (p.zero == 2)
        dp = p.dp_overlap ? std::max(Seconds(0), reduce * double(micro_batches) - est.compute)
                          : reduce * double(micro_batches);
      else
        dp = p.dp_overlap ? std::max(Seconds(0), reduce - last_backward) : reduce;
      if ((p.zero == 1 || p.zero == 2) && !p.param_gather_overlap)  // else hidden in the next forward
        dp += CollectiveTime(s, CollectiveKind::kAllGather, group, Bytes(most_params * e));
    }
  }
  const Seconds optimizer =
      OptimizerTime(s, most_params / (p.zero >= 1 ? p.dp : 1));
  est.exposed_comm = dp;
  est.step = pipeline + dp + optimizer;
  return est;
}

}  // namespace pf

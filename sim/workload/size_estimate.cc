#include "sim/workload/size_estimate.h"

#include <algorithm>
#include <cmath>

#include "sim/model/memory_model.h"
#include "sim/model/model_math.h"
#include "sim/model/padding.h"
#include "sim/model/stack.h"
#include "sim/workload/data_parallel.h"

namespace pf {
namespace {

// Measured on this project's 2-core machine (README "Performance"), one
// core: the 1,024-GPU GPT-3 step (145,912 tasks) in 0.40-0.47 s and the
// 2,520-GPU 529.6B step (524,519 tasks) in 2.1 s: 3-4 us per task, 5 us
// kept. Resident memory 74 MB and 180 MB: about 300 B per task on top of
// a 35 MB process; 400 B kept.
constexpr double kSecondsPerTask = 5e-6;
constexpr double kBytesPerTask = 400;
constexpr double kBaseBytes = 35e6;
// The platform's build and route look-ups grow superlinearly with the
// GPUs: the 16,384-GPU GPT-3 step (215,280 tasks) took 1.45-1.51 s here,
// about 0.4 s of it beyond the per-task cost.
constexpr double kPlatformSecondsAt16k = 0.5;
constexpr double kPlatformExponent = 2;
// SimGrid scans the activities in flight at each completion (engine
// runner.cc): a data-parallel collective over R ranks keeps R flows in
// flight, so wide collectives cost flows x flows-in-flight scans. The
// 1.7B GPT in data parallelism alone, two collectives a step, measured
// here: 4,096 GPUs 0.54 s, 8,192 GPUs 2.07 s, 16,384 GPUs 7.0 s (5.4e8
// scans): 13 ns a scan.
constexpr double kSecondsPerScan = 13e-9;

// Gradient buckets of the largest model chunk, as the data-parallel emitter
// cuts them (data_parallel.h: kBucketBytes of parameters each, at most one
// per layer).
double Buckets(const Scenario& s) {
  const ParallelSpec& p = s.parallel;
  const int vstages = p.pp * p.vp;
  double params = TrainableParams(s) / vstages / p.tp;
  if (s.training.method == Method::kFull && s.model.kind == ModelKind::kTransformer)
    params = std::max(ParamsPerTpRank(s.model, p, 0).total(),
                      ParamsPerTpRank(s.model, p, vstages - 1).total());
  const double layers = double(LayerCount(s.model)) / vstages;
  return std::max(1.0, std::min(layers, std::ceil(Bytes(params * ElementBytes(s.training.precision)) / kBucketBytes)));
}

}  // namespace

SimulationSize EstimateSimulationSize(const Scenario& job) {
  // The sequences as long as their padding makes them (model/padding.h).
  if (PadsToLongest(job.training)) return EstimateSimulationSize(PaddedView(job));
  // Context parallelism: the step is built as its ranks see it (spec.h).
  const Scenario view = ContextRankView(job);
  const Scenario& s = view;
  const ParallelSpec& p = s.parallel;
  const double M = s.training.micro_batches_per_step(p.dp);
  const double V = p.vp, L = LayerCount(s.model);
  const bool zero3 = p.zero == 3 && p.dp > 1;
  // Compute segments per worker: one per forward, one per backward plus a
  // bucket segment per layer where gradients are reduced during it; one per
  // layer under ZeRO-3. Each segment may carry a TP collective.
  // (DeepSpeed's pipeline engine reduces after the flush instead: stack.h.)
  const double reducing = p.dp <= 1 || zero3 ? 0 : p.zero == 2 ? M : p.dp_overlap && !ReducesAfterFlush(s) ? 1 : 0;
  // The first forward is cut by bucket too when the parameter gather
  // overlaps it (data_parallel.cc Segments).
  const double gathering = !zero3 && p.dp > 1 && p.param_gather_overlap && (p.zero == 1 || p.zero == 2) ? 1 : 0;
  const double segments = zero3 ? 2 * M * L : 2 * M * V + (reducing + gathering) * V * Buckets(s);
  // The optimizer: one kernel, or offloaded (offload.h) a copy out, CPU
  // Adam and a copy back, with NVMe a read and a write of the states.
  const double optimizer = p.offload == Offload::kNone ? 1 : p.offload == Offload::kCpu ? 3 : 5;
  // Per segment under TP: an all-reduce, or sequence parallelism's
  // reduce-scatter and all-gather, and with the GEMMs' overlap a join
  // (stage_emitter.cc).
  const double tp_tasks = p.tp <= 1 ? 0 : (p.sp ? 2 : 1) + (p.tp_overlap ? 1 : 0);
  // EP overlap joins each forward with the backward beside it (about one
  // per micro-batch and chunk: stage_emitter.cc EmitTogether), and cuts
  // each pass into a piece per MoE layer, each with its exchange.
  const double moe_layers = s.model.moe.enabled() ? std::max(0.0, L - s.model.moe.dense_layers) : 0;
  const double pieces = p.ep_overlap ? std::max(1.0, std::ceil(moe_layers / (p.pp * V))) : 1;
  const double ep_joins = p.ep_overlap ? M * V : 0;
  // Past each pass's first, each with an exchange and its share of the
  // pass's TP collectives (stage_emitter.cc Collectives).
  const double more_pieces = 2 * M * V * (pieces - 1);
  // torchtune's activation offloading: a copy and a join per pass
  // (stage_emitter.cc Offload).
  const double offload = s.training.offload_activations ? 2 * 2 * M * V : 0;
  const double per_worker = (segments + more_pieces) * (1 + tp_tasks) + optimizer + ep_joins + offload;
  // ZeRO-3: three per layer and micro-batch in each shard group (HSDP:
  // dp / hsdp of them), and HSDP's all-reduce across the groups per layer
  // and shard rank (data_parallel.cc EmitZero3).
  const double shard_groups = zero3 ? double(p.dp) / p.shard_ranks() : 1;
  // Otherwise the gradient buckets' reductions, and the parameter gather:
  // one after the optimizer, or with its overlap one per bucket
  // (data_parallel.cc EmitParamGather).
  const double dp_collectives = zero3 ? 3 * M * L * shard_groups + (shard_groups > 1 ? L * p.shard_ranks() : 0)
                                      : (reducing + gathering) * V * Buckets(s) + 2;
  const double sends = 2 * (p.pp * V - 1) * p.dp * M;
  SimulationSize out;
  const double loader = s.data.enabled ? 3 * M * p.dp : 0;  // read, decode, copy per micro-batch
  // Expert parallelism (expert_parallel.h): per EP group and segment an
  // all-to-all, or DeepEP's rail exchange, one per node and a join per
  // worker; the experts' reductions and gathers per expert-DP group.
  double experts = 0;
  if (s.model.moe.enabled() && p.ep > 1) {
    const double groups = double(p.dp) / p.ep_workers(), nodes = double(p.ep) / s.cluster.node.gpus_per_node;
    const bool deepep = p.dispatcher == Dispatcher::kDeepEp && nodes >= 2;
    const double exchanges = segments + more_pieces;  // one per segment or piece
    experts = p.pp * (groups * exchanges * (deepep ? 1 + nodes : 1) + (deepep ? p.dp * exchanges : 0) +
                      p.ep_workers() * (reducing * V + 1));
  }
  out.tasks = p.pp * (p.dp * per_worker + dp_collectives) + sends + p.dp + loader + experts;
  const double gpus = s.cluster.gpus();
  // Every stage's data-parallel group runs its collectives one after
  // another (one NCCL stream), all stages at once: p.pp x p.dp flows in flight.
  const double dp_flows = p.pp * dp_collectives * p.dp;
  out.scans = dp_flows * (p.pp * p.dp);
  // Context parallelism (stage_emitter.cc): each compute segment that
  // holds attention carries one K/V exchange per CP group (a flow per rank
  // and TP lane) and a join per worker; every group's at once, in flight
  // as one lane's (where the engine runs every lane, tp x more).
  if (p.context_group > 1) {
    const double groups = double(p.dp) / p.context_group;
    out.tasks += p.pp * segments * (groups + p.dp);
    out.scans += p.pp * segments * groups * p.context_group * p.tp * (p.pp * p.dp);
  }
  out.memory_bytes = kBaseBytes + kBytesPerTask * out.tasks;
  out.seconds = kSecondsPerTask * out.tasks + kSecondsPerScan * out.scans +
                kPlatformSecondsAt16k * std::pow(gpus / 16384.0, kPlatformExponent);
  out.driver = zero3 ? "ZeRO-3 gathers and reduce-scatters every layer for each of the " +
                           std::to_string(int(M)) + " micro-batches per step: raise "
                           "training.micro_batch or lower training.global_batch"
                     : std::to_string(int(M)) + " micro-batches per step for each of " +
                           std::to_string(p.pp * p.dp) + " TP groups (pp x dp): raise "
                           "training.micro_batch or lower training.global_batch";
  return out;
}

}  // namespace pf

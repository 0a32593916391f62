#include "sim/workload/data_parallel.h"

#include <algorithm>
#include <cmath>

#include "sim/model/compute_model.h"
#include "sim/model/memory_model.h"
#include "sim/workload/offload.h"
#include "sim/workload/rank_layout.h"

namespace pf {
DataParallelEmitter::DataParallelEmitter(TaskGraph& g, const Scenario& s, int stage,
                                         const std::vector<StageCost>& chunks, int micro_batches)
    : g_(g), s_(s), p_(s.parallel), stage_(stage), chunks_(chunks), micro_batches_(micro_batches),
      group_(DpGroup(s.parallel, stage)), zero3_(s.parallel.zero == 3 && s.parallel.dp > 1),
      scatter_(chunks.size(), std::vector<std::vector<int>>(micro_batches)) {
  for (const StageCost& c : chunks_) stage_params_ += c.params, stage_experts_ += c.expert_params;
  if (zero3_) EmitZero3();
  else EmitBuckets();
  if (ReducesExperts()) EmitExpertReductions();
  if (ParamGatherOverlapped()) EmitParamGather();
  if (p_.dp > 1 && !zero3_ && p_.zero < 2 && ReducesAfterFlush(s_))  // DeepSpeed's PipelineEngine (stack.h)
    late_reduce_ = g_.Collective("dp_grad_all_reduce_after_flush", preflight::DP_COMM, preflight::ALL_REDUCE, group_,
                                 Bytes((stage_params_ - stage_experts_) * FlushReduceBytes(s_)), 1, p_.tp);
  else if (p_.dp > 1 && !zero3_ && p_.zero < 2 && !p_.dp_overlap)
    late_reduce_ = g_.Collective("dp_grad_reduce", preflight::DP_COMM, DpKind(), group_,
                                 Bytes((stage_params_ - stage_experts_) * GradientBytes(s_.training)), 1, p_.tp);
}

int Zero3CollectivesPerLayer(const Scenario& s) {
  const StackTraits& st = TraitsOf(s.training.stack);
  if (st.gather == Zero3Gather::kPerBlock || s.model.kind == ModelKind::kVision) return 1;
  return LinearModulesPerBlock(s.model, st);
}

preflight::CollectiveKind DataParallelEmitter::DpKind() const {
  return p_.zero >= 1 ? preflight::REDUCE_SCATTER : preflight::ALL_REDUCE;
}

Bytes DataParallelEmitter::GradBytes(int chunk) const {
  return Bytes((chunks_[chunk].params - chunks_[chunk].expert_params) * GradientBytes(s_.training));
}

Bytes DataParallelEmitter::ParamBytes(int chunk) const {
  return Bytes((chunks_[chunk].params - chunks_[chunk].expert_params) * ElementBytes(s_.training.precision));
}

Bytes DataParallelEmitter::ExpertGradBytes(int chunk) const {
  return Bytes(chunks_[chunk].expert_params * GradientBytes(s_.training));
}

bool DataParallelEmitter::ReducesExperts() const { return stage_experts_ > 0 && p_.expert_dp() > 1; }

// Megatron-Core keeps the routed experts' gradients in buckets of their own,
// reduced over the expert-data-parallel group (the GPUs holding the same
// experts, rank_layout.h ExpertDpGroup): one collective per group and chunk
// after the chunk's backward, in the micro-batches the dense buckets reduce
// in (with dp_overlap false or DeepSpeed's pipeline, after the last one's
// backward).
void DataParallelEmitter::EmitExpertReductions() {
  expert_reduce_.assign(chunks_.size(), std::vector<std::vector<int>>(micro_batches_));
  const int groups = p_.ep_workers();
  std::vector<int> prev(groups, kNoTask);
  for (int mb = 0; mb < micro_batches_; ++mb) {
    const bool late = !p_.dp_overlap || ReducesAfterFlush(s_);  // after the last backward
    if (!(ReducesIn(mb) || (late && mb == micro_batches_ - 1))) continue;
    for (size_t k = 0; k < chunks_.size(); ++k)
      for (int r = 0; r < groups; ++r) {
        int x = g_.Collective("ep_expert_grad_reduce", preflight::DP_COMM, DpKind(), ExpertDpGroup(p_, r, stage_),
                              ExpertGradBytes(k), 1, p_.tp);
        g_.Dep(x, prev[r]);
        expert_reduce_[k][mb].push_back(prev[r] = x);
      }
  }
}

int DataParallelEmitter::Buckets(int chunk) const {
  const int by_size = int(std::ceil(ParamBytes(chunk) / kBucketBytes));
  return std::max(1, std::min(chunks_[chunk].layers, by_size));
}

bool DataParallelEmitter::ReducesIn(int micro_batch) const {
  if (p_.dp <= 1 || zero3_ || ReducesAfterFlush(s_)) return false;
  if (p_.zero == 2) return true;
  return p_.dp_overlap && micro_batch == micro_batches_ - 1;
}

// Per micro-batch: each layer's forward gather, then per layer its backward
// gather and gradient reduce-scatter, over each shard group (all DP ranks,
// or HSDP's groups of hsdp). Gathers run one after another on their stream
// in compute order, and so do the reduce-scatters. Under HSDP each layer's
// reduced shard is then all-reduced across the groups after the last
// micro-batch's backward (FSDP HYBRID_SHARD), rank q of every group together.
void DataParallelEmitter::EmitZero3() {
  const StageCost& c = chunks_[0];  // ZeRO-3 implies pp = vp = 1
  const Bytes layer_bytes(c.layer_weights * LayerWeightBytes(s_.training.method, s_.training.precision));
  const Bytes grad_bytes(c.params / c.layers * GradientBytes(s_.training));
  // FSDP gathers a wrapped block in one collective; DeepSpeed fetches each
  // Linear of it on its own, one collective (and its latency) per module
  // (model/stack.h).
  const int modules = Zero3CollectivesPerLayer(s_);
  // DeepSpeed under full recompute with blocks past its reuse distance
  // fetches a block for its recomputed forward and again for its backward
  // (model/stack.h RegathersForBackward): twice the backward's gathers.
  const int backward_fetches = RegathersForBackward(s_) ? 2 : 1;
  shard_size_ = p_.shard_ranks();
  for (int k = 0; k < p_.dp / shard_size_; ++k) {
    Shard sh;
    sh.gpus.assign(group_.begin() + k * shard_size_, group_.begin() + (k + 1) * shard_size_);
    sh.gather_f.resize(micro_batches_), sh.gather_b.resize(micro_batches_), sh.scatter.resize(micro_batches_);
    auto gather = [&](const char* name, int fetches) {
      int x = g_.Collective(name, preflight::DP_COMM, preflight::ALL_GATHER, sh.gpus, layer_bytes / double(modules),
                            modules * fetches, p_.tp);
      g_.Dep(x, sh.chain.empty() ? kNoTask : sh.chain.back());
      sh.chain.push_back(x);
      return x;
    };
    int prev_rs = kNoTask;
    for (int mb = 0; mb < micro_batches_; ++mb) {
      for (int j = 0; j < c.layers; ++j) sh.gather_f[mb].push_back(gather("zero3_gather_fwd", 1));
      for (int j = 0; j < c.layers; ++j) {
        sh.gather_b[mb].push_back(gather("zero3_gather_bwd", backward_fetches));
        int rs = g_.Collective("zero3_reduce_scatter", preflight::DP_COMM, preflight::REDUCE_SCATTER,
                               sh.gpus, grad_bytes / double(modules), modules, p_.tp);
        g_.Dep(rs, prev_rs);
        sh.scatter[mb].push_back(prev_rs = rs);
      }
    }
    shards_.push_back(std::move(sh));
  }
  if (shards_.size() < 2) return;
  std::vector<int> prev(shard_size_, kNoTask), across;
  for (int j = 0; j < c.layers; ++j)
    for (int q = 0; q < shard_size_; ++q) {
      across.clear();
      for (const Shard& sh : shards_) across.push_back(sh.gpus[q]);
      int x = g_.Collective("hsdp_replica_all_reduce", preflight::DP_COMM, preflight::ALL_REDUCE, across,
                            grad_bytes / double(shard_size_), 1, p_.tp);
      for (const Shard& sh : shards_) g_.Dep(x, sh.scatter.back()[j]);
      g_.Dep(x, prev[q]);
      replica_reduce_.push_back(prev[q] = x);
    }
}

void DataParallelEmitter::EmitBuckets() {
  for (size_t k = 0; k < chunks_.size(); ++k)
    for (int mb = 0; mb < micro_batches_; ++mb)
      if (ReducesIn(mb))
        for (int b = 0; b < Buckets(k); ++b)
          scatter_[k][mb].push_back(g_.Collective("dp_grad_bucket", preflight::DP_COMM, DpKind(),
                                                  group_, GradBytes(k) / Buckets(k), 1, p_.tp));
}

bool DataParallelEmitter::ParamGatherOverlapped() const {
  return p_.param_gather_overlap && p_.dp > 1 && (p_.zero == 1 || p_.zero == 2);
}

// Megatron --overlap-param-gather: the all-gather of the parameters the last
// step updated, bucket by bucket on the DP stream, each bucket before the
// first forward's segment that uses it; in steady state it runs during the
// step's first forward rather than after the optimizer.
void DataParallelEmitter::EmitParamGather() {
  int prev = kNoTask;
  for (size_t k = 0; k < chunks_.size(); ++k) {
    param_gather_.emplace_back();
    for (int b = 0; b < Buckets(k); ++b) {
      int x = g_.Collective("zero_param_gather", preflight::DP_COMM, preflight::ALL_GATHER, group_,
                            ParamBytes(k) / Buckets(k), 1, p_.tp);
      g_.Dep(x, prev);
      param_gather_.back().push_back(prev = x);
    }
  }
}

int DataParallelEmitter::Segments(bool forward, int chunk, int micro_batch) const {
  if (zero3_) return chunks_[0].layers;
  if (forward) return micro_batch == 0 && ParamGatherOverlapped() ? Buckets(chunk) : 1;
  return ReducesIn(micro_batch) ? Buckets(chunk) : 1;
}

void DataParallelEmitter::BeforeSegment(int task, int d, bool forward, int chunk, int micro_batch, int j,
                                        int segment) {
  if (forward && micro_batch == 0 && !param_gather_.empty()) g_.Dep(task, param_gather_[chunk][j]);
  if (!zero3_) return;
  Shard& sh = shards_[d / shard_size_];
  g_.Dep(task, (forward ? sh.gather_f : sh.gather_b)[micro_batch][j]);
  // The gather that many layers ahead waits for this compute to finish
  // (model/stack.h Zero3GatherLookahead): with one layer of lookahead the
  // next layer's gather runs beside this compute, with none after it.
  const size_t ahead = 1 + Zero3GatherLookahead(TraitsOf(s_.training.stack).gather);
  if (size_t(segment) + ahead < sh.chain.size()) g_.Dep(sh.chain[segment + ahead], task);
}

void DataParallelEmitter::AfterSegment(int last, int d, bool forward, int chunk, int micro_batch, int j) {
  if (forward) return;
  if (!expert_reduce_.empty() && !expert_reduce_[chunk][micro_batch].empty() &&
      j == Segments(false, chunk, micro_batch) - 1)
    g_.Dep(expert_reduce_[chunk][micro_batch][d % p_.ep_workers()], last);
  if (zero3_) {
    g_.Dep(shards_[d / shard_size_].scatter[micro_batch][j], last);
    return;
  }
  if (scatter_[chunk][micro_batch].empty()) return;
  const int bucket = scatter_[chunk][micro_batch][j];
  g_.Dep(bucket, last);
  // NCCL runs the collectives of one communicator in the order they are
  // issued, on one stream: each gradient bucket starts after the one issued
  // before it (in the order the backward completes them, which every DP
  // rank shares). ZeRO-3's reduce-scatters are chained when emitted.
  if (issued_.insert(bucket).second) {
    g_.Dep(bucket, last_bucket_);
    last_bucket_ = bucket;
  }
}

int DataParallelEmitter::Optimizer(int gpu, int d, int last) {
  if (late_reduce_ != kNoTask) g_.Dep(late_reduce_, last);
  // Routed experts' states are sharded over their expert-DP group.
  const double experts = ReducesExperts() ? stage_experts_ : 0;
  const double params = p_.zero >= 1 ? (stage_params_ - experts) / p_.shard_ranks() + experts / p_.expert_dp()
                                     : stage_params_;
  TaskSpan o;
  if (p_.offload == Offload::kNone) {
    o.first = o.last = g_.Compute(gpu, "optimizer",
                                  {OptimizerTime(s_, params),
                                   Flops(0), Seconds(0)},
                                  preflight::OPTIMIZER);
  } else {
    o = EmitOffloadedStep(g_, s_, gpu, params);
  }
  g_.Dep(o.first, last);
  g_.Dep(o.first, late_reduce_);
  for (const auto& per_chunk : scatter_)
    for (const auto& per_mb : per_chunk)
      for (int x : per_mb) g_.Dep(o.first, x);
  if (zero3_)
    for (const auto& per_mb : shards_[d / shard_size_].scatter)
      for (int x : per_mb) g_.Dep(o.first, x);
  for (int x : replica_reduce_) g_.Dep(o.first, x);
  for (const auto& per_mb : expert_reduce_)
    for (const auto& groups : per_mb)
      if (!groups.empty()) g_.Dep(o.first, groups[d % p_.ep_workers()]);
  return o.last;
}

void DataParallelEmitter::Finish(const std::vector<int>& optimizers) {
  if (p_.dp <= 1 || (p_.zero != 1 && p_.zero != 2) || ParamGatherOverlapped()) return;
  const double experts = ReducesExperts() ? stage_experts_ : 0;
  int ag = g_.Collective("zero_param_gather", preflight::DP_COMM, preflight::ALL_GATHER, group_,
                         Bytes((stage_params_ - experts) * ElementBytes(s_.training.precision)), 1, p_.tp);
  for (int o : optimizers) g_.Dep(ag, o);
  if (experts <= 0) return;
  for (int r = 0; r < p_.ep_workers(); ++r) {  // each expert-DP group gathers its experts
    int x = g_.Collective("ep_expert_param_gather", preflight::DP_COMM, preflight::ALL_GATHER,
                          ExpertDpGroup(p_, r, stage_), Bytes(experts * ElementBytes(s_.training.precision)), 1,
                          p_.tp);
    for (int d = r; d < p_.dp; d += p_.ep_workers()) g_.Dep(x, optimizers[d]);
  }
}

}  // namespace pf

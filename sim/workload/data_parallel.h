// Data-parallel traffic of one pipeline stage, shared by its DP ranks:
// gradient buckets reduced during the backward that completes them
// (parallel.dp_overlap; every micro-batch under ZeRO-2) or in one
// collective after the pipeline flush, the optimizer step on each worker,
// the ZeRO-1/2 parameter all-gather after it, and ZeRO-3's per-layer
// all-gathers (one layer of prefetch under FSDP, none under DeepSpeed) and
// reduce-scatters. The stage
// emitter (stage_emitter.h) asks how to cut each compute op into segments
// and calls the hooks below as it emits them.
#pragma once

#include <unordered_set>
#include <vector>

#include "sim/spec/spec.h"
#include "sim/workload/stage_cost.h"
#include "sim/workload/task_graph.h"

namespace pf {

// PyTorch DDP's default gradient bucket (bucket_cap_mb = 25).
constexpr Bytes kBucketBytes(25e6);
// Buckets are cut by the parameters' bytes (spec.h ElementBytes: bf16/fp16
// 2 bytes, tf32/fp32 4); gathered parameters travel at that size, and
// gradients at the stack's (stack.h GradientBytes: fp32 under Megatron's
// bf16).

// ZeRO-3's all-gathers (and reduce-scatters) per layer: 1 for FSDP, one per
// Linear for DeepSpeed's per-submodule fetch.
int Zero3CollectivesPerLayer(const Scenario& s);

class DataParallelEmitter {
 public:
  // Emits the stage's shared collectives. `chunks` are the stage's model
  // chunks' costs (chunk k is virtual stage k x pp + stage).
  DataParallelEmitter(TaskGraph& g, const Scenario& s, int stage,
                      const std::vector<StageCost>& chunks, int micro_batches);

  // Segments the forward or backward of (chunk, micro-batch) is cut into:
  // one per ZeRO-3 layer gather, one per gradient bucket reduced in it, and
  // with an overlapped parameter gather one per bucket in the first forward.
  int Segments(bool forward, int chunk, int micro_batch) const;
  // Compute segment `task` (the j-th of its op; the worker's segment-th
  // overall) waits for its ZeRO-3 gather, and the gather two segments ahead
  // waits for it (FSDP's default prefetch of one layer; under DeepSpeed the
  // next segment's, model/stack.h Zero3GatherLookahead); in the first
  // forward it waits for its bucket of the overlapped parameter gather.
  // `d` is the worker's DP rank (its HSDP shard group's collectives).
  void BeforeSegment(int task, int d, bool forward, int chunk, int micro_batch, int j, int segment);
  // The bucket reduced after segment j of a backward waits for its last
  // task `last` (compute or TP collective).
  void AfterSegment(int last, int d, bool forward, int chunk, int micro_batch, int j);
  // The optimizer step of the worker on `gpu` (DP rank d), after its last
  // task and the stage's reductions. Returns its task.
  int Optimizer(int gpu, int d, int last);
  // The ZeRO-1/2 parameter all-gather after every worker's optimizer
  // (nothing when it overlaps the next step's forward).
  void Finish(const std::vector<int>& optimizers);
  // The stage's gradient reduction after the flush (kNoTask if none).
  int LateReduce() const { return late_reduce_; }

 private:
  preflight::CollectiveKind DpKind() const;  // reduce-scatter under ZeRO, else all-reduce
  Bytes GradBytes(int chunk) const;   // the dense parameters' gradients (experts' apart under EP)
  Bytes ParamBytes(int chunk) const;  // and those parameters (gathered after the update; buckets)
  Bytes ExpertGradBytes(int chunk) const;
  bool ReducesExperts() const;
  int Buckets(int chunk) const;
  bool ReducesIn(int micro_batch) const;
  void EmitZero3();
  void EmitBuckets();
  void EmitParamGather();
  void EmitExpertReductions();
  bool ParamGatherOverlapped() const;

  TaskGraph& g_;
  const Scenario& s_;
  const ParallelSpec& p_;
  const int stage_;
  const std::vector<StageCost>& chunks_;
  const int micro_batches_;
  const std::vector<int> group_;  // the stage's DP group (lane 0)
  const bool zero3_;
  double stage_params_ = 0;       // trainable parameters per TP rank, all chunks
  // [chunk][micro-batch][segment]: the reduction after that backward segment.
  std::vector<std::vector<std::vector<int>>> scatter_;
  // ZeRO-3: one shard group's collectives (all DP ranks, or an HSDP group).
  struct Shard {
    std::vector<int> gpus;                                // its DP ranks' workers
    std::vector<std::vector<int>> gather_f, gather_b, scatter;  // [micro-batch][layer]
    std::vector<int> chain;  // its gathers in the order compute uses them
  };
  std::vector<Shard> shards_;
  int shard_size_ = 1;                   // DP ranks per shard group
  std::vector<int> replica_reduce_;      // HSDP: gradient all-reduces across the groups
  std::vector<std::vector<int>> param_gather_;  // overlapped: [chunk][bucket]
  // Expert parallelism: each chunk's routed-expert gradients, reduced over
  // each expert-DP group after its backward: [chunk][micro-batch][group].
  std::vector<std::vector<std::vector<int>>> expert_reduce_;
  double stage_experts_ = 0;  // routed-expert parameters per GPU, all chunks
  int late_reduce_ = kNoTask;      // reduction after the pipeline flush
  std::unordered_set<int> issued_;  // buckets already on the stream
  int last_bucket_ = kNoTask;       // the last bucket issued on the stream
};

}  // namespace pf

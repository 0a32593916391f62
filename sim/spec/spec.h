// The scenario as plain structs: everything the workload builder and the
// engine need, in SI units. LoadScenario (sim/scenario/scenario_loader.h)
// fills it from YAML; Validate (sim/spec/validate.h) checks it without YAML,
// so sweeps, plans and suggestions can check candidates they make. Enum
// spellings live in sim/spec/names.h. No YAML and no SimGrid here.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/base/units.h"
#include "sim/spec/calibration.h"
#include "sim/spec/cluster_spec.h"
#include "sim/spec/model_spec.h"
#include "sim/spec/training_spec.h"

namespace pf {

enum class Offload { kNone, kCpu, kNvme };
// How expert parallelism moves tokens (Megatron-Core --moe-token-dispatcher-
// type): an NCCL all-to-all sending every routed copy of a token to its
// expert's GPU, or DeepEP's kernels (--moe-enable-deepep), which send a
// token over RDMA once per destination node and fan it out to the node's
// experts over NVLink (deepseek-ai/DeepEP README, "normal kernels").
enum class Dispatcher { kAllToAll, kDeepEp };

struct ParallelSpec {
  int tp = 1, pp = 1, dp = 1;
  // Context parallelism (Megatron-Core --context-parallel-size, ring
  // attention; Llama 3 trains 128K tokens with CP16): each sequence split
  // over cp ranks, which exchange K and V for attention.
  int cp = 1;
  // Set by ContextRankView only (cp is then 1 and dp is dp x cp): the CP
  // ranks a rank's sequence spans, the factor on its attention's keys.
  int context_group = 1;
  // dp was not given: it is GPUs / (tp x pp) (ResolveDataParallel, validate.h).
  bool dp_auto = false;
  int vp = 1;    // model chunks per pipeline stage (interleaved 1F1B when > 1)
  // Transformer layers on each pipeline stage, first to last (Megatron's
  // --decoder-first/last-pipeline-num-layers, DeepSpeed's partition); empty:
  // the default split of LayersOfStage.
  std::vector<int> stage_layers;
  int zero = 0;  // ZeRO stage 0..3 (3 = FSDP FULL_SHARD)
  // Sequence parallelism (Korthikanti et al. 2022; Megatron
  // --sequence-parallel): within a TP group the norms, dropouts and their
  // activations are split along the sequence, and each TP all-reduce becomes
  // a reduce-scatter plus an all-gather of the same bytes.
  bool sp = false;
  // TP communication overlapped with the GEMMs (Megatron --tp-comm-overlap,
  // Transformer Engine userbuffers): with sequence parallelism, each
  // segment's reduce-scatters and all-gathers run beside its compute, whose
  // GPU they share as DP collectives do (calibration nccl_compute_share).
  bool tp_overlap = false;
  // Megatron's distributed optimizer (--use-distributed-optimizer): the
  // optimizer states and fp32 master weights sharded over the DP ranks,
  // gradients reduce-scattered and the updated parameters all-gathered:
  // ZeRO stage 1, which it sets.
  bool distributed_optimizer = false;
  // Megatron --overlap-param-gather: with sharded optimizer states (ZeRO
  // 1/2), the updated parameters are all-gathered bucket by bucket during
  // the next step's first forward instead of after the optimizer step.
  bool param_gather_overlap = false;
  // FSDP HYBRID_SHARD (HSDP): with zero 3, parameters, gradients and
  // optimizer states sharded over groups of `hsdp` DP ranks (a node, say)
  // and replicated across the dp / hsdp groups, whose gradients are
  // all-reduced; 0: sharded over all dp ranks (FULL_SHARD).
  int hsdp = 0;
  // The DP ranks the ZeRO stage shards over: hsdp under HSDP, else dp.
  int shard_ranks() const { return zero == 3 && hsdp > 0 ? hsdp : dp; }
  // Expert parallelism (Megatron-Core --expert-model-parallel-size): a
  // mixture of experts' routed experts split over ep ranks, which exchange
  // tokens all-to-all before and after them. A stage's tp x dp GPUs hold
  // the experts as expert_tp x ep x (the rest: the expert-data-parallel
  // replicas), GPU by GPU in that order (Megatron's expert rank order).
  int ep = 1;
  // Tensor parallelism inside each expert (--expert-tensor-parallel-size):
  // tp (0, the default, as Megatron before 2024) or 1 (each expert whole on
  // one GPU; its EP group then spans the TP ranks).
  int expert_tp = 0;
  int etp() const { return expert_tp > 0 ? expert_tp : tp; }
  Dispatcher dispatcher = Dispatcher::kAllToAll;
  // Megatron-Core's EP communication overlap (--overlap-moe-expert-parallel-
  // comm; Megatron-Bridge comm_overlap.overlap_moe_expert_parallel_comm, its
  // recipes' moe_a2a_overlap): the combined 1F1B schedule runs the forward
  // of one micro-batch with the backward of another, layer by layer, each
  // one's token all-to-alls beside the other's compute, whose GPU the
  // dispatcher's kernels share as DP collectives do.
  bool ep_overlap = false;
  // DP ranks (workers) one EP group spans: ep x etp / tp.
  int ep_workers() const { return ep * etp() / tp; }
  // Replicas of each expert among a stage's GPUs, which reduce its
  // gradients and shard its optimizer states: tp x dp / (ep x etp).
  int expert_dp() const { return tp * dp / (ep * etp()); }
  // Data-parallel gradient reduction starts bucket by bucket during the
  // last backward (PyTorch DDP, FSDP, Megatron --overlap-grad-reduce) rather
  // than after it (Megatron-LM before 2023).
  bool dp_overlap = true;
  // ZeRO-Offload / ZeRO-Infinity (DeepSpeed): the optimizer states and the
  // gradients live in host memory (cpu) or on the node's local NVMe tier
  // (nvme), Adam runs on the CPU; with offload_params (ZeRO-3) the
  // parameters too.
  Offload offload = Offload::kNone;
  bool offload_params = false;
};

// How samples are stored, which sets the CPU work per sample and the read
// pattern (model/data_costs.h):
// - jpeg: one compressed image per file (ImageFolder): decode + augment.
// - raw: one decoded image or array per file: augment only.
// - text: raw text (JSON lines) read in large chunks and tokenised on the
//   fly.
// - tokens: pre-tokenised shards read in large chunks (Megatron's indexed
//   datasets, MosaicML streaming): collate only.
enum class DataFormat { kJpeg, kRaw, kText, kTokens };

// The dataset and the PyTorch-style DataLoader feeding each data-parallel
// rank: `workers` processes per GPU, `prefetch` batches each in flight.
// Absent (enabled false): inputs cost nothing (synthetic data), as
// published throughput benchmarks usually measure.
struct DataSpec {
  bool enabled = false;
  std::string tier;            // the cluster storage tier holding the dataset
  DataFormat format = DataFormat::kTokens;
  Bytes size;                  // the whole dataset (0: not stated; no page-cache hits)
  Bytes sample_bytes;          // stored bytes per sample (jpeg, raw)
  double bytes_per_token = 0;  // stored bytes per token (text, tokens)
  int workers = 4;             // per GPU
  int prefetch = 2;            // batches per worker (torch prefetch_factor)
  bool pinned = true;          // pin_memory: copies go straight from pinned buffers
  std::optional<Seconds> cpu_per_sample;  // a measured cost on this node's CPU, overriding the model
  Bytes read_size;             // text, tokens: bytes per read request (0: the model's)
  // Not from YAML: the step simulated is one of the first epoch (nothing
  // in the page cache yet) rather than of a later one.
  bool first_epoch = false;
};

// Periodic checkpoints of the training state to a storage tier: every
// `every` of wall clock or every `every_steps` optimizer steps (exactly one
// set). Synchronous: training pauses while every rank writes its shard.
// Asynchronous: training pauses only for the copy to host memory; the
// write to the tier runs behind the following steps.
struct CheckpointSpec {
  bool enabled = false;
  std::string tier;
  Seconds every;        // 0 when every_steps is set
  long long every_steps = 0;
  bool async = false;
  long long keep = 0;   // the newest checkpoints kept on the tier (0: all, the frameworks' default)
};

// What interrupts a long job: hardware failures (each GPU fails on average
// once per `gpu_mtbf`) and spot preemptions (`preemptions_per_hour` for the
// job), each costing `restart` (re-provisioning and restarting) plus the
// checkpoint's restore and the work since the last checkpoint.
struct InterruptionSpec {
  bool enabled = false;
  Seconds gpu_mtbf;
  double preemptions_per_hour = 0;
  Seconds restart;
};

// How nodes are paid for: by the hour on demand, by the hour at a spot
// price that may be preempted, or reserved for whole terms (a monthly
// rental, an AWS Capacity Block booked by the day).
enum class PriceMode { kOnDemand, kSpot, kReserved };

// One pricing mode's rate, per node-hour (a per-GPU price is converted at
// load, times the node's GPUs).
struct Rate {
  Usd per_node_hour;
  bool per_gpu = false;   // stated per GPU-hour (for the report)
  double term_hours = 0;  // reserved: billed in whole terms of this many hours; 0: by the hour
  bool example = false;   // a user-editable example, not a published price
  std::string source;     // where the figure comes from, with its date
};

// What a storage tier costs (per GB = 1e9 bytes; a month = 730 hours, a
// year's 8,760 / 12, as cloud bills prorate it).
struct StoragePrice {
  Usd per_gb_month;   // capacity held
  Usd get_per_1k;     // read requests
  Usd put_per_1k;     // write requests
  Usd egress_per_gb;  // bytes read out of the tier that leave its provider
  bool example = false;
  std::string source;
};

// The scenario's prices: an offer of the instance catalog
// (topologies/offers.yaml) with the modes it has, or one explicit rate.
struct PriceSpec {
  bool enabled = false;
  std::string offer;     // "" for an explicit price
  std::string provider;  // the offer's (or "")
  std::string region;
  PriceMode mode = PriceMode::kOnDemand;
  std::vector<std::pair<PriceMode, Rate>> modes;  // the offer's modes; explicit: the one given
  std::vector<std::pair<std::string, StoragePrice>> storage;  // by the cluster's tier name
  const Rate& rate() const { return *Find(mode); }
  const Rate* Find(PriceMode m) const {
    for (const auto& [k, r] : modes)
      if (k == m) return &r;
    return nullptr;
  }
  const StoragePrice* Tier(const std::string& tier) const {
    for (const auto& [k, p] : storage)
      if (k == tier) return &p;
    return nullptr;
  }
};

// The job around the steps: provisioning and start-up before the first
// step, staging the dataset onto its tier, and periodic evaluation.
struct JobSpec {
  Seconds startup;         // provisioning, image pull, process start, before the first step
  std::string stage_from;  // a tier the dataset is copied from onto data.tier first; "" none
  long long eval_every_steps = 0;  // 0: no evaluation
  int eval_batches = 0;            // global batches of forward passes per evaluation
};

// The task budget BuildWorkload keeps to unless --max-tasks says otherwise
// (Scenario::max_tasks).
inline constexpr double kDefaultMaxTasks = 3e6;

struct Scenario {
  std::string name;
  std::string file;
  ModelSpec model;
  ClusterSpec cluster;
  ParallelSpec parallel;
  TrainingSpec training;
  PriceSpec price;
  JobSpec job;
  DataSpec data;
  CheckpointSpec checkpoint;
  InterruptionSpec interruptions;
  Calibration calibration;  // fitted constants (calibration.h); not from YAML
  // Largest task graph BuildWorkload builds (sim/workload/size_estimate.h):
  // about 1.5 GB and a minute on a 2-core machine. Not from YAML; the
  // command line's --max-tasks sets it.
  double max_tasks = kDefaultMaxTasks;
  // Compute prediction intervals (job/intervals.h): four more simulations
  // of the step. Not from YAML; `simulate` sets it (--no-intervals clears
  // it), sweeps and plans leave it off.
  bool intervals = false;
};

// Layers the step's emitters cut a model into: a transformer's blocks, a
// vision model's blocks with their repeats (gradient buckets and ZeRO-3
// gathers follow them).
int LayerCount(const ModelSpec& m);
// Context parallelism as the rest of the model sees it: each of a
// sequence's cp ranks holds seq_len / cp of its tokens, so a CP job is laid
// out and costed as dp x cp data-parallel ranks (adjacent ranks of a
// sequence after the TP ranks, GPU = t + tp x (c + cp x (d + dp x stage)))
// each training its share of global_batch x cp sequences of seq_len / cp
// tokens: gradients reduced and ZeRO states sharded over dp x cp, as
// Megatron's data-parallel-with-context group. Only attention (each query
// against the whole sequence's keys: parallel.cp stays as that factor) and
// the exchange of K and V see the whole sequence. cp = 1: `s` unchanged.
Scenario ContextRankView(const Scenario& s);

// After a change of p's ZeRO stage, tp, pp or ep, or of the recompute
// (a fit suggestion's, a screened layout's), turns off the switches that
// layout does not take: distributed_optimizer (it is ZeRO stage 1),
// param_gather_overlap (ZeRO 1 or 2), sp and tp_overlap (tp above 1),
// ep_overlap (ep above 1, vp above 1 under a pipeline, no full recompute). Returns the --set flags that turn
// the same switches off in the scenario file ("parallel.sp=false"), one for
// each that was on; none when p takes all of its switches.
std::vector<std::string> DropSwitchesOfOtherLayouts(ParallelSpec& p, Recompute recompute = Recompute::kNone);

// Transformer layers on pipeline stage `stage` (0..pp-1): stage_layers when
// given; else layers / pp, and when pp does not divide the layers, one
// fewer on the stages at the ends, which also carry the embedding and the
// LM head (Llama 3 405B: 126 layers on 16 stages as 7, 8 x 14, 7; Dubey et
// al. 2024, Sec. 3.3.2), taken first, last, second, second to last, ...
int LayersOfStage(const ModelSpec& m, const ParallelSpec& p, int stage);
// Layers of virtual stage `vstage` (0..pp x vp - 1): model chunk vstage / pp
// of stage vstage % pp, its stage's layers split evenly over the vp chunks
// (the first chunks take one more when vp does not divide them).
int LayersOfVirtualStage(const ModelSpec& m, const ParallelSpec& p, int vstage);
// Of those, a mixture of experts' dense first layers (MoeSpec dense_layers).
int DenseLayersOfVirtualStage(const ModelSpec& m, const ParallelSpec& p, int vstage);
// The most layers any stage holds.
int MaxLayersOfStage(const ModelSpec& m, const ParallelSpec& p);

// Dense tensor peak of `g` for the training precision (0 when the GPU has
// no tensor-core rate for it).
FlopsPerSecond PeakFlops(const GpuSpec& g, Precision p);

// The attention kernel a stack runs unless training.attention says:
// Megatron-LM and NeMo run Transformer Engine's DotProductAttention, which
// picks cuDNN's fused attention on Hopper and later (TE v1.4 attention.py:
// "Select FusedAttention on sm90 and FlashAttention on others for
// performance"); the other stacks call flash-attn 2 or PyTorch SDPA.
Attention DefaultAttention(Stack stack);
// Whether Hugging Face's Trainer drives the stack (hf, llama-factory,
// unsloth): its collators, its torch optimizer and its DDP.
bool OnHfTrainer(Stack stack);
// The Trainer with PEFT's own modules and its default optimizer, adamw_torch
// (hf, llama-factory; Unsloth runs its own adapters and 8-bit AdamW).
bool OnHfTrainerWithPeft(Stack stack);
// How a stack pads unpacked samples unless training.padding says: the
// Hugging Face-based stacks to each micro-batch's longest sample (their
// collators' default, padding=True), the others to seq_len.
Padding DefaultPadding(Stack stack);
// PEFT's prepare_model_for_kbit_training as is on stack hf; none elsewhere.
QloraUpcast DefaultQloraUpcast(Stack stack);
// Whether packed samples attend per sample unless training.per_sample_attention
// says: on NeMo (its packed SFT's cu_seqlens) and torchtune (its
// PackedDataset's block-causal mask through FlexAttention).
bool DefaultPerSampleAttention(Stack stack);
// Pure bf16 unless training.pure_bf16 says: torchtune's `dtype: bf16` is the
// model's dtype, without autocast or an fp32 master copy (its recipes'
// training.get_dtype and set_default_dtype); mixed precision elsewhere.
bool DefaultPureBf16(Stack stack, Precision precision);
// The lowest ZeRO stage a stack runs data-parallel with: torchtune's
// distributed recipes shard with FSDP2 (2 without resharding after the
// forward, 3 with); the others 0 (plain data parallelism).
int MinDataParallelZero(Stack stack);
// Sets every stack-dependent training key the scenario does not give to its
// stack's default (attention, per-sample attention, pure bf16, padding,
// QLoRA's upcast before ResolveQloraUpcast): as loading the file with
// `training.stack` set would. The loader calls it once the stack is known;
// a second opinion on another stack calls it after switching.
void ApplyStackDefaults(TrainingSpec& t);

// Bytes per element of weights, gradients and activations: 2 with mixed
// precision, 4 in tf32/fp32.
double ElementBytes(Precision p);

// Line rate of a PCIe link per direction: generation `gen` (1..6) with
// `lanes` lanes, after line encoding (8b/10b to gen 2, 128b/130b from
// gen 3; gen 6 counted as gen 5 x 2): gen 4 x16 = 31.5 GB/s.
BytesPerSecond PcieLinkRate(int gen, int lanes);

}  // namespace pf

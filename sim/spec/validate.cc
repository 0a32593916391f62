#include "sim/spec/validate.h"

#include <algorithm>
#include <initializer_list>

#include "sim/spec/names.h"
#include "sim/spec/validate_training.h"

namespace pf {
namespace {

std::string Str(long long x) { return std::to_string(x); }

// Products of counts in 64 bits: each factor is below 2^25 (the loader's
// bounds), so none of these can wrap.
long long Product(std::initializer_list<long long> factors) {
  long long p = 1;
  for (long long f : factors) p *= f;
  return p;
}

// Each check returns the problem it finds; Validate runs them in order.
using Check = std::optional<SpecError>;

Check Cluster(const Scenario& s) {
  const int gpus = s.cluster.gpus();
  if (gpus > kMaxGpus)
    return SpecError{"cluster.nodes", Str(s.cluster.nodes) + " nodes x " +
                                          Str(s.cluster.node.gpus_per_node) + " GPUs = " +
                                          Str(gpus) + " GPUs; Preflight simulates up to " +
                                          Str(kMaxGpus)};
  return {};
}

// Indices in [0, count), each at most once across `seen`.
Check Indices(const std::vector<int>& xs, int count, std::vector<bool>& seen, const std::string& key,
              const char* what) {
  for (int x : xs) {
    if (x < 0 || x >= count)
      return SpecError{key, std::string(what) + " " + Str(x) + " outside 0.." + Str(count - 1)};
    if (seen[x]) return SpecError{key, std::string(what) + " " + Str(x) + " listed twice"};
    seen[x] = true;
  }
  return {};
}

// `key` names one of the cluster's storage tiers.
Check TierNamed(const Scenario& s, const std::string& tier, const std::string& key) {
  std::string names;
  for (const StorageTier& t : s.cluster.storage) {
    if (t.name == tier) return {};
    names += (names.empty() ? "" : ", ") + t.name;
  }
  return SpecError{key, "\"" + tier + "\" is not a storage tier of the cluster (" +
                            (names.empty() ? std::string("it declares none: add cluster.storage") : "tiers: " + names) +
                            ")"};
}

// The job section, and a spot price's preemptions.
Check JobAround(const Scenario& s) {
  if (s.price.enabled && s.price.mode == PriceMode::kSpot &&
      !(s.interruptions.enabled && s.interruptions.preemptions_per_hour > 0))
    return SpecError{"price.mode", "spot nodes are preempted: give the rate as interruptions.preemptions_per_hour "
                                   "(e.g. 0.05, one every 20 h), with a checkpoint section to resume from"};
  const std::string& from = s.job.stage_from;
  if (from.empty()) return {};
  if (!s.data.enabled || !(s.data.size.value() > 0))
    return SpecError{"job.stage_from", "staging copies the dataset onto data.tier: give data: {tier, size, ...}"};
  if (auto e = TierNamed(s, from, "job.stage_from")) return e;
  if (from == s.data.tier)
    return SpecError{"job.stage_from", "\"" + from + "\" is data.tier itself: stage from another tier"};
  return {};
}

// A page cache lives in the node's host memory: it cannot hold more.
Check PageCacheFits(const Scenario& s) {
  const Bytes ram = s.cluster.node.cpu_memory;
  for (size_t i = 0; i < s.cluster.storage.size(); ++i) {
    const StorageTier& t = s.cluster.storage[i];
    if (t.kind == StorageKind::kPageCache && ram.value() > 0 && t.capacity > ram)
      return SpecError{"cluster.storage[" + std::to_string(i) + "].capacity",
                       std::to_string(static_cast<long long>(t.capacity.value() / kGiB)) +
                           " GiB of page cache is more than the node's host memory (cpu_memory " +
                           std::to_string(static_cast<long long>(ram.value() / kGiB)) + " GiB)"};
  }
  return {};
}

// The data section reads from one of the cluster's tiers, and its workers
// run on the node's CPU.
Check Data(const Scenario& s) {
  const DataSpec& d = s.data;
  if (!d.enabled) return {};
  if (auto e = TierNamed(s, d.tier, "data.tier")) return e;
  if (s.cluster.node.cpu.cores < 1)
    return SpecError{"data", "the node (" + s.cluster.node.name +
                                 ") declares no cpu for the loader's workers: add cpu: NAME "
                                 "(topologies/cpus.yaml) or cpu: {name, cores, core_speed} to it"};
  return {};
}

// ZeRO-Offload needs ZeRO's sharded optimizer (DeepSpeed: stages 1-3), the
// parameters ZeRO-3, and NVMe a local NVMe tier on the nodes.
Check Offloading(const Scenario& s) {
  const ParallelSpec& p = s.parallel;
  if (p.offload == Offload::kNone) {
    if (p.offload_params) return SpecError{"parallel.offload_params", "true, but parallel.offload is none: set it to cpu or nvme"};
    return {};
  }
  if (p.zero < 1)
    return SpecError{"parallel.offload", std::string("\"") + ToString(p.offload) +
                                             "\" needs ZeRO stage 1, 2 or 3 (DeepSpeed offloads ZeRO's optimizer shards): set parallel.zero"};
  if (p.offload_params && p.zero != 3)
    return SpecError{"parallel.offload_params", "true needs ZeRO stage 3 (parameters are sharded only there)"};
  if (s.model.kind == ModelKind::kVision)
    return SpecError{"parallel.offload", "is for transformers; a vision model's states fit its GPUs"};
  if (p.offload == Offload::kNvme &&
      std::none_of(s.cluster.storage.begin(), s.cluster.storage.end(),
                   [](const StorageTier& t) { return t.kind == StorageKind::kLocalNvme; }))
    return SpecError{"parallel.offload", "\"nvme\" needs a local_nvme tier in cluster.storage"};
  return {};
}

}  // namespace

std::optional<SpecError> CheckNodeTopology(const NodeSpec& n) {
  const PcieSpec& p = n.pcie;
  const std::string k = "cluster.node.";
  if (n.gpus_per_node < 1 || n.nics < 1)
    return SpecError{k + "gpus_per_node", "a node needs at least one GPU and one NIC"};
  if (p.gen < 1 || p.gen > 6 || p.lanes < 1 || p.uplink_lanes < 1 || p.sockets < 1)
    return SpecError{k + "pcie", "generation 1..6, and at least one lane and one socket"};
  if (n.nic_bandwidth.value() <= 0 || (n.intra_kind == IntraKind::kNvswitch && n.intra_bandwidth.value() <= 0))
    return SpecError{k + "nics.bandwidth", "every link needs a bandwidth above zero"};
  if (p.sockets > 1 && p.inter_socket.value() <= 0)
    return SpecError{k + "pcie.inter_socket", "needs a bandwidth above zero with more than one socket"};
  if (!p.p2p && p.host_memory.value() <= 0)
    return SpecError{k + "pcie.host_memory", "needs a bandwidth above zero without peer-to-peer"};
  std::vector<bool> gpus(n.gpus_per_node), nics(n.nics);
  for (const PcieSwitch& sw : p.switches) {
    if (sw.socket < 0 || sw.socket >= p.sockets)
      return SpecError{k + "pcie.switches", "socket " + Str(sw.socket) + " outside 0.." + Str(p.sockets - 1)};
    if (auto e = Indices(sw.gpus, n.gpus_per_node, gpus, k + "pcie.switches", "GPU")) return e;
    if (auto e = Indices(sw.nics, n.nics, nics, k + "pcie.switches", "NIC")) return e;
  }
  for (int g = 0; g < n.gpus_per_node && !p.switches.empty(); ++g)
    if (!gpus[g]) return SpecError{k + "pcie.switches", "GPU " + Str(g) + " is behind no switch"};
  std::vector<bool> bridged(n.gpus_per_node);
  for (const auto& [a, b] : n.bridges.pairs) {
    if (n.intra_kind != IntraKind::kPcie)
      return SpecError{k + "nvlink_bridges", "bridges join GPUs of a PCIe node"};
    if (auto e = Indices({a, b}, n.gpus_per_node, bridged, k + "nvlink_bridges", "GPU")) return e;
    if (n.bridges.bandwidth.value() <= 0)
      return SpecError{k + "nvlink_bridges.bandwidth", "needs a bandwidth above zero"};
  }
  return {};
}

namespace {

Check ModelSplit(const Scenario& s) {
  const ModelSpec& m = s.model;
  const ParallelSpec& p = s.parallel;
  if (m.heads % p.tp != 0)
    return SpecError{"parallel.tp",
                     Str(p.tp) + " does not divide attention heads (" + Str(m.heads) + ")"};
  if (p.tp % m.kv_heads != 0 && m.kv_heads % p.tp != 0)
    return SpecError{"parallel.tp", Str(p.tp) + " and the KV heads (" + Str(m.kv_heads) +
                                        ") must divide one another"};
  if (p.vp > 1 && p.pp == 1)
    return SpecError{"parallel.vp",
                     Str(p.vp) + " model chunks need pipeline parallelism (pp = 1)"};
  if (!p.stage_layers.empty()) {
    if (static_cast<long long>(p.stage_layers.size()) != p.pp)
      return SpecError{"parallel.stage_layers", "lists " + Str(p.stage_layers.size()) +
                                                    " stages, but pp = " + Str(p.pp)};
    long long sum = 0;
    std::string terms;
    for (int n : p.stage_layers) sum += n, terms += (terms.empty() ? "" : " + ") + Str(n);
    if (sum != m.layers)
      return SpecError{"parallel.stage_layers", terms + " = " + Str(sum) + " layers, but the model has " +
                                                    Str(m.layers)};
  } else if (p.pp > m.layers) {
    return SpecError{"parallel.pp", Str(p.pp) + " stages for " + Str(m.layers) +
                                        " layers: every stage needs at least one layer"};
  }
  for (int stage = 0; stage < p.pp; ++stage) {
    const int held = LayersOfStage(m, p, stage);
    if (held < p.vp)
      return SpecError{p.stage_layers.empty() ? "parallel.vp" : "parallel.stage_layers",
                       "stage " + Str(stage) + " holds " + Str(held) + " layers" +
                           (p.vp > 1 ? ", fewer than its vp = " + Str(p.vp) + " model chunks" : std::string()) +
                           ": every stage and model chunk needs at least one layer"};
  }
  return {};
}

Check GpuCount(const Scenario& s) {
  const ParallelSpec& p = s.parallel;
  const long long gpus = s.cluster.gpus();
  // The model-parallel ranks of one replica; cp appears only when given.
  const bool cp = p.cp > 1;
  const long long tp_pp = Product({p.tp, p.cp, p.pp});
  const std::string names = cp ? "tp x cp x pp" : "tp x pp";
  const std::string sizes = Str(p.tp) + (cp ? " x " + Str(p.cp) : "") + " x " + Str(p.pp);
  if (p.dp_auto) {
    if (gpus % tp_pp != 0)
      return SpecError{"parallel", names + " = " + Str(tp_pp) + " does not divide the " +
                                       Str(gpus) + " GPUs"};
  } else if (tp_pp * p.dp != gpus) {
    return SpecError{"parallel.dp",
                     names + " x dp = " + sizes + " x " + Str(p.dp) +
                         " = " + Str(tp_pp * p.dp) + ", but the cluster has " + Str(gpus) +
                         " GPUs (" + Str(s.cluster.nodes) + " nodes x " +
                         Str(s.cluster.node.gpus_per_node) + ")"};
  }
  return {};
}

// Context parallelism splits each sequence into 2 x cp chunks (a rank takes
// one from each end, balancing the causal mask: Megatron-Core, Llama 3).
Check ContextSplit(const Scenario& s) {
  const ParallelSpec& p = s.parallel;
  if (p.cp <= 1) return {};
  if (s.model.kind == ModelKind::kVision)
    return SpecError{"parallel.cp", Str(p.cp) + " splits token sequences; a vision model has none (accepted: 1)"};
  if (s.training.seq_len % (2 * p.cp) != 0)
    return SpecError{"parallel.cp", Str(p.cp) + " does not split training.seq_len (" + Str(s.training.seq_len) +
                                        ") into 2 x cp = " + Str(2 * p.cp) +
                                        " equal chunks (causal load balancing); accepted: cp with seq_len a multiple of 2 x cp"};
  return {};
}

Check Sharding(const ParallelSpec& p, Stack stack) {
  if (p.tp_overlap && !p.sp)
    return SpecError{"parallel.tp_overlap", "true overlaps the reduce-scatters and all-gathers of sequence "
                                            "parallelism with the GEMMs (Megatron --tp-comm-overlap needs "
                                            "--sequence-parallel); set parallel.sp: true"};
  if (p.hsdp > 0 && p.zero != 3)
    return SpecError{"parallel.hsdp", Str(p.hsdp) + " shards within groups of " + Str(p.hsdp) +
                                          " DP ranks (FSDP HYBRID_SHARD) and needs zero: 3 (zero is " + Str(p.zero) + ")"};
  if (p.hsdp > 0 && p.dp % p.hsdp != 0)
    return SpecError{"parallel.hsdp", Str(p.hsdp) + " does not divide the DP ranks (dp = " + Str(p.dp) +
                                          "); accepted: a divisor of dp, such as the GPUs of a node"};
  if (p.distributed_optimizer && p.zero != 1)
    return SpecError{"parallel.distributed_optimizer",
                     "true is ZeRO stage 1, the optimizer states sharded over the DP ranks; it cannot be combined "
                     "with zero: " + Str(p.zero) + " (drop one of the two)"};
  if (p.param_gather_overlap && p.zero != 1 && p.zero != 2)
    return SpecError{"parallel.param_gather_overlap",
                     "true needs optimizer states sharded over the DP ranks (zero: 1 or 2, or distributed_optimizer: "
                     "true); with zero: " + Str(p.zero) + " there is no parameter all-gather after the step"};
  if (p.sp && p.tp == 1)
    return SpecError{"parallel.sp", "true needs tensor parallelism (tp = 1): sequence parallelism splits the "
                                    "work a TP group repeats on every rank; set parallel.tp above 1 or drop sp"};
  // PyTorch FSDP shards gradients under a pipeline schedule too (FSDP2 +
  // PipelineSchedule in torchtitan; Llama 3, Dubey et al. 2024 Sec.
  // 3.3.2): each micro-batch's backward reduce-scatters its gradients.
  // DeepSpeed's pipeline engine and Megatron's distributed optimizer do not.
  if (p.zero >= 2 && p.pp > 1 && !(p.zero == 2 && stack == Stack::kFsdp))
    return SpecError{"parallel.zero",
                     "ZeRO stage " + Str(p.zero) +
                         " shards gradients across micro-batches and cannot be combined with "
                         "pipeline parallelism (pp = " + Str(p.pp) + ") on this stack; use zero: 0 or 1 (zero: 2 "
                         "with pp runs on stack fsdp)"};
  if (p.zero >= 2 && !p.dp_overlap)
    return SpecError{"parallel.dp_overlap", "false cannot be combined with ZeRO stage " +
                                                Str(p.zero) +
                                                ", which reduces gradients during every backward"};
  return {};
}

// A mixture of experts and its expert parallelism (spec.h ParallelSpec ep,
// expert_tp): Megatron-Core's rules.
Check Experts(const Scenario& s, int dp) {
  const ParallelSpec& p = s.parallel;
  const MoeSpec& moe = s.model.moe;
  const TrainingSpec& t = s.training;
  if (!moe.enabled()) {
    if (p.ep > 1)
      return SpecError{"parallel.ep", Str(p.ep) + " splits a mixture of experts' experts over GPUs; " + s.model.name +
                                          " has none (accepted: 1, or a model with moe: {experts, top_k})"};
    if (p.expert_tp > 0 || p.dispatcher != Dispatcher::kAllToAll || p.ep_overlap)
      return SpecError{p.expert_tp > 0                          ? "parallel.expert_tp"
                       : p.dispatcher != Dispatcher::kAllToAll ? "parallel.ep_dispatcher"
                                                               : "parallel.ep_overlap",
                       "given, but " + s.model.name + " has no experts (drop it)"};
    if (t.capacity_factor > 0 || t.expert_imbalance != 1)
      return SpecError{t.capacity_factor > 0 ? "training.capacity_factor" : "training.expert_imbalance",
                       "given, but " + s.model.name + " has no experts to route tokens to (drop it)"};
    return {};
  }
  if (moe.experts % p.ep != 0) {
    std::string divisors;
    for (int k = 1; k <= moe.experts; ++k)
      if (moe.experts % k == 0) divisors += (divisors.empty() ? "" : ", ") + Str(k);
    return SpecError{"parallel.ep", Str(p.ep) + " does not divide the model's " + Str(moe.experts) +
                                        " experts; accepted: " + divisors};
  }
  if (p.tp % p.etp() != 0)
    return SpecError{"parallel.expert_tp", Str(p.etp()) + " does not divide tp (" + Str(p.tp) +
                                               "); accepted: 1 or a divisor of tp"};
  if (Product({p.ep, p.etp()}) % p.tp != 0)
    return SpecError{"parallel.ep", Str(p.ep) + " x expert_tp " + Str(p.etp()) + " = " + Str(Product({p.ep, p.etp()})) +
                                        " GPUs per EP group is not a multiple of tp (" + Str(p.tp) +
                                        "): an EP group holds whole TP groups; accepted: ep a multiple of tp / expert_tp"};
  if (Product({dp, p.cp}) % p.ep_workers() != 0)
    return SpecError{"parallel.ep", Str(p.ep) + " expert ranks span " + Str(p.ep_workers()) +
                                        " data-parallel ranks, which do not divide the " + Str(Product({dp, p.cp})) +
                                        " of the layout (dp" + (p.cp > 1 ? " x cp" : "") +
                                        "); accepted: ep x expert_tp / tp dividing them"};
  const int per_node = s.cluster.node.gpus_per_node;
  if (p.dispatcher == Dispatcher::kDeepEp && p.etp() != 1)
    return SpecError{"parallel.ep_dispatcher", "\"deepep\" sends whole tokens to whole experts, but expert_tp is " +
                                                   Str(p.etp()) + "; set parallel.expert_tp: 1"};
  if (p.dispatcher == Dispatcher::kDeepEp && p.ep > per_node && p.ep % per_node != 0)
    return SpecError{"parallel.ep_dispatcher", "\"deepep\" forwards tokens within whole nodes, but ep " + Str(p.ep) +
                                                   " is not a multiple of the node's " + Str(per_node) +
                                                   " GPUs; accepted: ep up to " + Str(per_node) + " or a multiple of it"};
  if (p.tp > 1 && !p.sp)
    return SpecError{"parallel.sp", "false, but a mixture of experts with tensor parallelism (tp = " + Str(p.tp) +
                                        ") needs sequence parallelism (Megatron-Core: each TP rank routes its own "
                                        "tokens); set parallel.sp: true"};
  // ZeRO-3 gathers a sparse block whole (every expert), and LoRA adapts
  // every expert's linears, as DeepSpeed, FSDP and PEFT do without expert
  // parallelism; with it neither is modelled.
  if (p.zero == 3 && p.ep > 1)
    return SpecError{"parallel.zero", "3 with expert parallelism (ep = " + Str(p.ep) +
                                          ") is not modelled (expert weights sharded over their own groups); accepted: "
                                          "zero 0 to 2, or ep 1"};
  if (p.ep_overlap) {
    // Megatron-Core's rules (megatron/core/transformer/transformer_config.py
    // __post_init__ and megatron/training/arguments.py, as of Megatron-LM
    // 2a75ac12, the submodule of Megatron-Bridge 067f987df; the Bridge's
    // own check, src/megatron/bridge/training/comm_overlap.py, adds no rule).
    if (p.ep <= 1)
      return SpecError{"parallel.ep_overlap", "true overlaps expert parallelism's all-to-alls, but ep is 1; "
                                              "accepted: ep above 1, or ep_overlap false"};
    if (t.stack != Stack::kMegatron && t.stack != Stack::kNemo)
      return SpecError{"parallel.ep_overlap", std::string("true is Megatron-Core's combined 1F1B schedule; stack \"") +
                                                  ToString(t.stack) + "\" has none (accepted: stack megatron or nemo)"};
    if (p.pp > 1 && p.vp <= 1)
      return SpecError{"parallel.ep_overlap", "true with a pipeline (pp = " + Str(p.pp) +
                                                  ") needs the interleaved schedule (Megatron-Core); set parallel.vp "
                                                  "above 1, or pp 1"};
    if (t.recompute == Recompute::kFull)
      return SpecError{"parallel.ep_overlap", "true cannot be combined with training.recompute: full (Megatron-Core "
                                              "refuses it); accepted: recompute none or selective"};
  }
  if (t.method != Method::kFull && p.ep > 1)
    return SpecError{"training.method", std::string("\"") + ToString(t.method) + "\" with expert parallelism (ep = " +
                                            Str(p.ep) + ") is not modelled; accepted: full, or ep 1"};
  return {};
}

Check Batch(const Scenario& s, int dp) {
  const ParallelSpec& p = s.parallel;
  const TrainingSpec& t = s.training;
  const long long per_step = Product({t.micro_batch, dp});
  if (t.global_batch % per_step != 0)
    return SpecError{"training.global_batch",
                     Str(t.global_batch) + " is not a multiple of micro_batch x dp = " +
                         Str(t.micro_batch) + " x " + Str(dp) + " = " + Str(per_step)};
  if (p.vp > 1 && t.micro_batches_per_step(dp) % p.pp != 0)
    return SpecError{"parallel.vp", "the interleaved schedule needs micro-batches per step (" +
                                        Str(t.micro_batches_per_step(dp)) +
                                        ") to be a multiple of pp (" + Str(p.pp) + ")"};
  return {};
}

// A vision model trains data-parallel (its layers are too small to split),
// fully, on images.
Check Vision(const Scenario& s) {
  const ParallelSpec& p = s.parallel;
  if (p.tp != 1 || p.pp != 1 || p.vp != 1)
    return SpecError{p.tp != 1 ? "parallel.tp" : p.pp != 1 ? "parallel.pp" : "parallel.vp",
                     "must be 1 for a vision model (" + s.model.name + "), which trains data-parallel only"};
  if (s.training.method != Method::kFull)
    return SpecError{"training.method", std::string("\"") + ToString(s.training.method) +
                                            "\" is for transformers; a vision model trains full"};
  if (s.data.enabled && s.data.format != DataFormat::kJpeg && s.data.format != DataFormat::kRaw)
    return SpecError{"data.format", std::string("\"") + ToString(s.data.format) +
                                        "\" holds text; a vision model reads images: jpeg or raw"};
  return {};
}

}  // namespace

std::optional<SpecError> Validate(const Scenario& s) {
  const ParallelSpec& p = s.parallel;
  if (p.tp < 1 || p.pp < 1 || p.vp < 1 || p.cp < 1 || (!p.dp_auto && p.dp < 1) || p.zero < 0 || p.zero > 3)
    return SpecError{"parallel", "tp, pp, vp, cp and dp must be at least 1 and zero in 0..3"};
  if (s.cluster.nodes < 1 || s.cluster.node.gpus_per_node < 1)
    return SpecError{"cluster", "needs at least one node of at least one GPU"};
  if (s.training.micro_batch < 1 || s.training.global_batch < 1 || s.training.seq_len < 1)
    return SpecError{"training", "seq_len, micro_batch and global_batch must be at least 1"};
  if (auto e = Cluster(s)) return e;
  if (auto e = CheckNodeTopology(s.cluster.node)) return e;
  if (s.model.kind == ModelKind::kVision) {
    if (auto e = Vision(s)) return e;
  } else if (auto e = ModelSplit(s)) {
    return e;
  }
  if (auto e = GpuCount(s)) return e;
  if (auto e = ContextSplit(s)) return e;
  if (auto e = Sharding(p, s.training.stack)) return e;
  const int dp = p.dp_auto ? static_cast<int>(s.cluster.gpus() / Product({p.tp, p.cp, p.pp})) : p.dp;
  if (auto e = Batch(s, dp)) return e;
  if (auto e = Experts(s, dp)) return e;
  if (auto e = CheckLaunchBlocking(s, dp)) return e;
  if (auto e = CheckTrainingOnHardware(s)) return e;
  if (s.model.kind != ModelKind::kVision)
    if (auto e = CheckTrainingStack(s)) return e;
  if (auto e = PageCacheFits(s)) return e;
  if (auto e = Data(s)) return e;
  if (auto e = Offloading(s)) return e;
  if (s.interruptions.enabled && !s.checkpoint.enabled)
    return SpecError{"interruptions", "need a checkpoint section: an interruption loses the work since the last "
                                      "checkpoint (add checkpoint: {tier, every})"};
  if (s.checkpoint.enabled)
    if (auto e = TierNamed(s, s.checkpoint.tier, "checkpoint.tier")) return e;
  if (auto e = JobAround(s)) return e;
  return {};
}

void ResolveQloraUpcast(Scenario& s) {
  if (s.training.qlora_upcast_given) return;
  // Sharded QLoRA is not prepared with the upcast: TRL's SFTTrainer skips
  // prepare_model_for_kbit_training there ("one should never call
  // peft_module_casting_to_bf16 or prepare_model_for_kbit_training when
  // doing QLoRA + FSDP / DS-Zero3").
  s.training.qlora_upcast = s.parallel.zero >= 3 && s.parallel.dp > 1 ? QloraUpcast::kNone
                                                                       : DefaultQloraUpcast(s.training.stack);
}

void ResolveDataParallel(Scenario& s) {
  ParallelSpec& p = s.parallel;
  const long long gpus = s.cluster.gpus(), tp_pp = Product({p.tp, p.cp, p.pp});
  if (p.dp_auto && tp_pp > 0 && gpus % tp_pp == 0) p.dp = static_cast<int>(gpus / tp_pp);
}

}  // namespace pf

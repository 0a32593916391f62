#include <cmath>

#include <fmt/format.h>

#include "sim/model/known_gaps.h"
#include "sim/model/memory_model.h"
#include "sim/model/model_math.h"
#include "sim/model/vision.h"
#include "sim/spec/names.h"
#include "sim/report/format.h"
#include "sim/report/money_report.h"
#include "sim/report/report.h"
#include "sim/report/stack_line.h"

namespace pf {
namespace {

// "selective", with Megatron-Core's modules when they are given:
// "selective (layernorm, moe_act)".
std::string RecomputeText(const TrainingSpec& t) {
  std::string out = ToString(t.recompute);
  if (!t.recompute_modules_apply() || !t.recompute_modules_given) return out;
  std::string names;
  for (const auto& [module, name] : NamesOf(RecomputeModule{}))
    if (t.recompute_modules & Bit(module)) names += (names.empty() ? "" : ", ") + std::string(name);
  return out + " (" + names + ")";
}

const char* NicLabel(NicKind k) {
  switch (k) {
    case NicKind::kInfiniband: return "InfiniBand";
    case NicKind::kRoce: return "RoCE";
    case NicKind::kTcp: return "TCP";
  }
  return "";
}

std::string Gib(Bytes b) { return fmt::format("{:.1f} GiB", b.value() / kGiB); }

void Header(std::string& o, const Scenario& s) {
  const ModelSpec& m = s.model;
  const NodeSpec& n = s.cluster.node;
  const ParallelSpec& p = s.parallel;
  const TrainingSpec& t = s.training;
  o += fmt::format("Preflight: {}\n", s.name);
  o += fmt::format("  scenario   {}\n", s.file);
  if (m.kind == ModelKind::kVision) {
    const VisionCounts c = CountVision(m.vision);
    o += fmt::format("  model      {}: vision, {} blocks, input {}x{}x{}, {} classes; {} params, {:.2f} GMACs per image\n",
                     m.name, m.vision.blocks.size(), m.vision.height, m.vision.width, m.vision.channels,
                     m.vision.classes, Count(c.params), c.forward_macs / 1e9);
  } else {
    const ParamCount pc = CountParams(m);
    const char* act = m.ffn_kind == FfnKind::kSwiglu ? "SwiGLU" : "GeLU";
    const std::string clamp = m.glu_clamp > 0 ? fmt::format(" clamped at {:g}", m.glu_clamp) : "";
    const std::string mlp =
        m.moe.enabled()
            ? fmt::format("{} experts of {} {}{} (top {}{}{}{})", m.moe.experts, act, m.moe.expert_ffn, clamp, m.moe.top_k,
                          m.moe.group_limited()
                              ? fmt::format(" from {} of {} groups", m.moe.group_topk, m.moe.groups)
                              : "",
                          m.moe.shared_experts > 0 ? fmt::format(", {} shared of {}", m.moe.shared_experts, m.moe.shared_ffn) : "",
                          m.moe.dense_layers == 1 ? fmt::format(", the first layer dense {} {}", act, m.ffn)
                          : m.moe.dense_layers > 1 ? fmt::format(", the first {} layers dense {} {}", m.moe.dense_layers, act, m.ffn)
                                                   : "")
            : fmt::format("{} {}{}", act, m.ffn, clamp);
    const std::string dropout = m.dropout > 0 ? fmt::format(", dropout {:g}", m.dropout) : "";
    o += fmt::format("  model      {}: {} layers, hidden {}, {} heads ({}{}), {}{}, vocab {}; {} params{}\n",
                     m.name, m.layers, m.hidden, m.heads,
                     m.mla.enabled() ? fmt::format("MLA: latent {}{}, q/k {} + {}, v {}", m.mla.kv_lora,
                                                   m.mla.q_lora > 0 ? fmt::format(", q latent {}", m.mla.q_lora) : "",
                                                   m.mla.qk_nope, m.mla.qk_rope, m.mla.v)
                                     : fmt::format("{} KV", m.kv_heads),
                     (m.head_size > 0 ? fmt::format(", head_dim {}", m.head_size) : "") +
                         (m.window > 0 ? fmt::format(", sliding window {}{}", m.window,
                                                     m.window_share < 1 ? fmt::format(" on {:g} of the layers",
                                                                                      std::round(m.window_share * m.layers))
                                                                        : "")
                                       : ""),
                     mlp, dropout, m.vocab,
                     Count(pc.total(m.layers)),
                     m.moe.enabled() ? fmt::format(", {} active per token", Count(pc.active(m.layers))) : "");
  }
  const std::string links =
      n.intra_kind == IntraKind::kNvswitch
          ? fmt::format("NVSwitch {:.0f} GB/s per GPU per direction", n.intra_bandwidth.value() / 1e9)
          : fmt::format("PCIe Gen{} x{} {:.0f} GB/s per GPU per direction{}{}", n.pcie.gen, n.pcie.lanes,
                        PcieLinkRate(n.pcie.gen, n.pcie.lanes).value() / 1e9,
                        n.bridges.pairs.empty() ? "" : ", NVLink bridges",
                        n.pcie.p2p ? "" : ", no P2P");
  o += fmt::format("  cluster    {} x {} = {} x {} ({}; {} x {:.0f} Gb/s {} NIC per node{})\n",
                   s.cluster.nodes, n.name, s.cluster.gpus(), n.gpu.name, links, n.nics,
                   n.nic_bandwidth.value() * 8 / 1e9, NicLabel(n.nic_kind),
                   n.gpudirect_rdma ? "" : ", no GPUDirect RDMA");
  if (const FabricSpec& f = s.cluster.fabric; Leaves(s.cluster) > 1)
    o += fmt::format("  fabric     {}{}: {} leaves of {} nodes ({}-port switches{}), {} placement\n",
                     f.kind == FabricKind::kRail ? "rail-optimized, non-blocking" : "fat-tree",
                     f.kind == FabricKind::kFatTree ? fmt::format(" {:g}:1 oversubscribed", f.oversubscription) : "",
                     Leaves(s.cluster), NodesPerLeaf(s.cluster), f.radix,
                     f.kind == FabricKind::kFatTree ? fmt::format(", {} uplinks per leaf", LeafUplinks(s.cluster)) : "",
                     ToString(f.placement));
  if (!s.cluster.storage.empty()) {
    std::string tiers;
    for (const StorageTier& t : s.cluster.storage)
      tiers += fmt::format("{}{} ({}{:.1f} GB/s read{})", tiers.empty() ? "" : ", ", t.name,
                           t.shared() ? fmt::format("{} server{} x ", t.servers, t.servers == 1 ? "" : "s") : "",
                           t.read.value() / 1e9, t.shared() ? "" : " per node");
    o += fmt::format("  storage    {}\n", tiers);
  }
  const std::string split = StageSplit(m, p);
  o += fmt::format("  parallel   TP {}{}{} x PP {}{}{} x DP {}, ZeRO {}{}{}\n", p.tp, p.sp ? (p.tp_overlap ? " (sequence parallel, communication overlapped)" : " (sequence parallel)") : "",
                   p.cp > 1 ? fmt::format(" x CP {} (ring attention, {} tokens per rank)", p.cp, t.seq_len / p.cp) : "", p.pp,
                   split.empty() ? "" : " (layers per stage " + split + ")",
                   p.vp > 1 ? fmt::format(" ({} chunks per stage, interleaved)", p.vp) : "", p.dp, p.zero,
                   std::string(p.distributed_optimizer ? " (distributed optimizer)" : "") +
                       (p.zero == 3 && p.hsdp > 0 ? fmt::format(" (HSDP: sharded over {} DP ranks, replicated x {})", p.hsdp,
                                                                p.dp / p.hsdp)
                                                  : "") +
                       (p.param_gather_overlap ? ", parameter gather overlapped with the next forward" : ""),
                   p.dp > 1 ? (p.dp_overlap ? ", gradient reduction overlapped" : ", gradient reduction after backward") : "");
  if (m.moe.enabled()) {
    const int local = m.moe.experts / p.ep;
    o += fmt::format("  experts    EP {} ({} expert{} per GPU, expert TP {}), each expert on {} GPUs (expert DP), {}{}; {}\n",
                     p.ep, local, local == 1 ? "" : "s", p.etp(), p.expert_dp(),
                     p.ep <= 1 ? "no token exchange"
                     : p.dispatcher == Dispatcher::kDeepEp ? "DeepEP dispatch (a token once per node)"
                                                           : "all-to-all dispatch",
                     p.ep_overlap ? ", all-to-alls beside another micro-batch's compute (combined 1F1B)" : "",
                     t.capacity_factor > 0
                         ? fmt::format("capacity factor {:.2f} (padded, tokens past it dropped)", t.capacity_factor)
                         : fmt::format("dropless, busiest EP rank {:.2f}x the mean load{}", t.expert_imbalance,
                                       t.expert_imbalance == 1 ? " (balanced; training.expert_imbalance)" : ""));
  }
  if (m.kind == ModelKind::kVision)
    o += fmt::format("  training   {} {}, micro-batch {} images x {} per step x DP {} = global batch {}\n",
                     ToString(t.method), ToString(t.precision), t.micro_batch, t.micro_batches_per_step(p.dp), p.dp,
                     t.global_batch);
  else
    o += fmt::format("  training   {} {}, sequence {}, micro-batch {} x {} per step x DP {} = global batch {}, recompute {}, {} attention{}\n",
                     ToString(t.method), ToString(t.precision), t.seq_len, t.micro_batch,
                     t.micro_batches_per_step(p.dp), p.dp, t.global_batch, RecomputeText(t),
                     t.attends_per_sample()
                         ? fmt::format("{} per-sample (samples of {} tokens)", ToString(t.attention), t.attention_span())
                         : std::string(ToString(t.attention)),
                     t.method == Method::kFull ? "" : fmt::format(", LoRA rank {}", t.lora_rank));
  // FlashAttention-2 runs on Ampere and later, the parts with a bf16
  // tensor rate (flash-attn's README: "FlashAttention-2 currently
  // supports: Ampere, Ada, or Hopper GPUs ... Support for Turing GPUs (T4,
  // RTX 2080) is coming soon");
  // before them PyTorch's SDPA (or xformers, under Unsloth) runs a
  // memory-efficient kernel, whose memory is flash's and whose rate has no
  // measurement here.
  if (m.kind != ModelKind::kVision && t.attention == Attention::kFlash && !(s.cluster.node.gpu.peak_bf16.value() > 0))
    o += fmt::format("  note       {} predates FlashAttention-2 (Ampere and later): PyTorch SDPA or xformers runs "
                     "a memory-efficient kernel there, costed at FlashAttention-2's rate\n",
                     s.cluster.node.gpu.name);
  if (m.kind != ModelKind::kVision) o += StackLine(s);
}

// "  name        12.3 GiB" for a part above zero.
void BytesRow(std::string& o, const char* name, Bytes b) {
  if (b.value() > 0) o += fmt::format("  {:<22}{:>12}\n", name, Gib(b));
}

// Each suggestion's change and the --set flags that make it (any type with
// `change` and `overrides`).
template <class Suggestion>
void SuggestionLines(std::string& o, const std::string& heading, const std::vector<Suggestion>& list) {
  o += "  " + heading + ":\n";
  for (const Suggestion& x : list) {
    std::string flags;
    for (const auto& f : x.overrides) flags += " --set " + f;
    o += fmt::format("    - {}{}\n", x.change, flags.empty() ? "" : "   (" + flags.substr(1) + ")");
  }
}

void MemoryTable(std::string& o, const MemoryBreakdown& m, const std::vector<FitSuggestion>& sug) {
  const Bytes spare = Spare(m);
  const Bytes resident = PagedResident(m);
  o += fmt::format("\nMemory per GPU (pipeline stage {}): {}  {} of {} ({:.0f}%){}\n", m.stage,
                   m.fits ? "FITS" : "DOES NOT FIT", Gib(m.total), Gib(m.capacity),
                   100 * m.total.value() / m.capacity.value(),
                   !m.fits ? ""
                   : resident.value() > 0
                       ? fmt::format(", {} to spare ({} of it held by paged optimizer states, which make room)",
                                     Gib(spare), Gib(resident))
                       : ", " + Gib(spare) + " to spare");
  // Under kThinHeadroom of the GPU to spare, what the estimate holds at a
  // typical figure decides: the allocator's reserve (5% counted; 10-35%
  // of peak cached with shapes that vary, tests/data/memory_overheads.md,
  // which the allocator frees before it fails), communicators the
  // framework adds.
  // Paged optimizer states fill what the GPU has free: what else needs
  // room evicts more of them instead of running out.
  if (m.fits && !FitsWithHeadroom(m))
    o += fmt::format("  warning: only {:.1f}% to spare; fragmentation (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
                     "limits it), extra NCCL communicators or a longer sample can exceed it\n",
                     100 * spare.value() / m.capacity.value());
  else if (m.fits && m.paged_evicted.value() > 0)
    o += "  note: the paged optimizer states fill the GPU's free memory; more activations evict more of them "
         "(slower steps) instead of running out\n";
  auto row = [&](const char* name, Bytes b) { BytesRow(o, name, b); };
  row("weights", m.weights);
  row("gradients", m.gradients);
  row("optimizer states", m.optimizer);
  row("activations", m.activations);
  row("logits + loss", m.logits);
  row("ZeRO-3 gather buffers", m.zero_buffers);
  row("DDP gradient buckets", m.ddp_buckets);
  row("Adam step (foreach)", m.optimizer_step);
  if (m.paged_optimizer.value() > 0)
    o += fmt::format("  {:<22}{:>12}  bitsandbytes' paged moments ({}), in CUDA unified memory outside PyTorch's "
                     "allocator: on the GPU as far as it has room{}\n",
                     "paged optimizer", Gib(PagedResident(m)), Gib(m.paged_optimizer),
                     m.paged_evicted.value() > 0
                         ? fmt::format("; {} evicted to host memory and paged back over PCIe each step",
                                       Gib(m.paged_evicted))
                         : std::string());
  if (m.phases_apart.value() >= 0.05 * kGiB)
    o += fmt::format("  {:<22}{:>12}  gradients are freed after each step: the peak is the largest of the "
                     "forward's end, the backward's end and the step\n",
                     "(phases apart)", "-" + Gib(m.phases_apart));
  row("CUDA context", m.cuda_context);
  row("NCCL buffers", m.nccl_buffers);
  row("allocator reserve", m.allocator_reserve);
  // Not in the total: the allocator frees it before an out-of-memory error
  // (framework_memory.h FrameworkMemory::allocator_cache).
  // Why it caches: the other phase's blocks (memory_model.h phase_cache),
  // sizes that vary, or both.
  // (Below the table's 0.1 GiB resolution it is not printed.)
  if (m.allocator_cache.value() >= 0.05 * kGiB && m.fits) {
    const bool phase = m.phase_cache.value() > 0, varying = m.allocator_cache > m.phase_cache;
    const char* why = phase && varying ? "the off-peak phase's blocks, sizes vary"
                      : phase          ? "the off-peak phase's blocks (the loss or a recomputed layer)"
                                       : "sizes vary";
    o += fmt::format("  {:<22}{:>12}  not counted: {}; cached while memory allows, freed before running out\n"
                     "  {:<22}{:>12}\n",
                     "(allocator cache)", Gib(m.observed - m.total), why, "nvidia-smi would show", Gib(m.observed));
  }
  if (!m.fits) {
    if (sug.empty()) {
      o += "  No single change found that fits; consider more GPUs with more memory.\n";
    } else {
      o += "  Would fit with:\n";
      for (const auto& s : sug) {
        std::string flags;
        for (const auto& f : s.overrides) flags += " --set " + f;
        o += fmt::format("    - {:<44} {:>10} per GPU   ({})\n", s.change, Gib(s.per_gpu), flags.substr(1));
      }
    }
  }
}

void StepTable(std::string& o, const Result& r) {
  const StepResult& st = *r.step;
  const int gpus = r.scenario.cluster.gpus();
  o += "\nStep (simulated on SimGrid)\n";
  o += fmt::format("  step time            {}{}\n", Duration(st.step_time),
                   st.spread ? " " + Within(st.spread->step, [](double x) { return Duration(Seconds(x)); }) : "");
  const char* unit = r.scenario.model.kind == ModelKind::kVision ? "images" : "tokens";
  o += fmt::format("  throughput           {:.0f} {}/s ({:.0f} per GPU)\n", st.tokens_per_s, unit, st.tokens_per_s / gpus);
  o += fmt::format("  MFU / HFU            {:.1f}% / {:.1f}%\n", 100 * st.mfu, 100 * st.hfu);
  o += fmt::format("  scaling efficiency   {:.1f}%\n", 100 * st.scaling_efficiency);
  o += "\nTime per GPU per step\n";
  const Breakdown& b = st.breakdown;
  auto row = [&](const char* name, Seconds t) {
    o += fmt::format("  {:<22}{:>10}  {:5.1f}%\n", name, Duration(t), 100 * t.value() / st.step_time.value());
  };
  row("compute", b.compute);
  // Eager PyTorch's launches from Python, where they hold the GPU back
  // (model/stack.h); shown from 0.5% of the step.
  if (b.host_wait.value() >= 0.005 * st.step_time.value()) row("  of which host-bound", b.host_wait);
  row("optimizer step", b.optimizer);
  row("exposed TP comm", b.tp_comm);
  if (r.scenario.model.moe.enabled()) row("exposed EP comm", b.ep_comm);
  if (r.scenario.parallel.cp > 1) row("exposed CP comm", b.cp_comm);
  row("exposed PP comm", b.pp_comm);
  row("exposed DP comm", b.dp_comm);
  if (b.io.value() > 0) row("exposed host I/O", b.io);
  row("pipeline bubble", b.bubble);
  row("idle", b.idle);
  if (r.scenario.data.enabled) row("data stall", b.data_stall);
  const Scenario& s = r.scenario;
  o += "\nJob\n";
  const char* units = s.model.kind == ModelKind::kVision ? "images" : "tokens";
  o += fmt::format("  {} {} = {} steps of {} {}: {} wall clock{}\n", Count(s.training.job_tokens), units,
                   st.steps, Count(st.tokens_per_step), units, Duration(st.wall_clock),
                   st.spread ? " " + Within(st.spread->wall, [](double x) { return Duration(Seconds(x)); }) : "");
  if (st.first_epoch_step)
    o += fmt::format("  first epoch          {} steps of {} (the dataset from {}; later epochs {:.0f}% from the page cache)\n",
                     st.first_epoch_steps, Duration(*st.first_epoch_step), s.data.tier, 100 * PageCacheHits(s));
  if (st.checkpoint)
    o += fmt::format("  checkpoints          {} pauses of {}, included\n", st.checkpoint->count, Duration(st.checkpoint->pause));
  JobLines(o, r);
}

void HostMemoryTable(std::string& o, const Result& r) {
  const HostMemory& h = r.host;
  if (h.capacity.value() <= 0) {
    o += fmt::format("\nHost memory per node: {} needed (the node states no cpu_memory)\n", Gib(h.total));
    return;
  }
  o += fmt::format("\nHost memory per node: {}  {} of {} ({:.0f}%)\n", h.fits ? "FITS" : "DOES NOT FIT", Gib(h.total),
                   Gib(h.capacity), 100 * h.total.value() / h.capacity.value());
  auto row = [&](const char* name, Bytes b) { BytesRow(o, name, b); };
  row("training processes", h.processes);
  row("dataloader workers", h.workers);
  row("prefetched batches", h.batches);
  row("offloaded states", h.offload);
  row("offloaded activations", h.activations);
  row("async checkpoint copy", h.checkpoint);
  const DataSpec& d = r.scenario.data;
  if (d.enabled && d.size.value() > 0)
    o += fmt::format("  {:<22}{:>12}   holds {:.0f}% of the dataset ({}) for later epochs\n", "page cache room",
                     Gib(h.page_cache), 100 * std::min(1.0, h.page_cache.value() / d.size.value()), Gib(d.size));
  if (h.fits) return;
  SuggestionLines(o, "Would fit with", r.host_suggestions);
}

// Bytes in decimal units (a checkpoint's size, as storage is sold).
std::string Size(Bytes b) {
  const double x = b.value();
  if (x >= 1e12) return fmt::format("{:.2f} TB", x / 1e12);
  if (x >= 1e9) return fmt::format("{:.1f} GB", x / 1e9);
  return fmt::format("{:.1f} MB", x / 1e6);
}

void CheckpointTable(std::string& o, const Scenario& s, const StepResult& st) {
  const CheckpointSpec& spec = s.checkpoint;
  const CheckpointResult& c = *st.checkpoint;
  const std::string every = spec.every_steps > 0 ? fmt::format("every {} steps", spec.every_steps)
                                                 : "every " + Duration(spec.every);
  o += fmt::format("\nCheckpoints ({} to {}, {})\n", every, spec.tier, spec.async ? "async" : "sync");
  o += fmt::format("  {:<22}{:>10}\n", "size", Size(c.size));
  o += fmt::format("  {:<22}{:>10}\n", "copy to host memory", Duration(c.copy));
  o += fmt::format("  {:<22}{:>10}\n", "write to " + spec.tier, Duration(c.write));
  o += fmt::format("  {:<22}{:>10}   exposed to training\n", "pause", Duration(c.pause));
  o += fmt::format("  {:<22}{:>10}   to read it back on a restart\n", "restore", Duration(c.restore));
  o += fmt::format("  {:<22}{:>10}   in {} checkpoints ({:.1f}% of the wall clock)\n", "over the job",
                   Duration(c.total_pause), c.count, 100 * c.total_pause.value() / st.wall_clock.value());
}

void InterruptionTable(std::string& o, const Scenario& s, const StepResult& st) {
  const Interruptions& i = *st.interruptions;
  const InterruptionSpec& spec = s.interruptions;
  // With a price, preemptions are spot's only (the modes table has them).
  const bool preempted = !s.price.enabled || s.price.mode == PriceMode::kSpot;
  o += fmt::format("\nInterruptions (each GPU fails once per {:.0f} h, {}; Daly's model)\n", spec.gpu_mtbf.value() / 3600,
                   preempted ? fmt::format("{:g} preemptions per hour", spec.preemptions_per_hour)
                             : fmt::format("no preemptions in mode {}", ToString(s.price.mode)));
  o += fmt::format("  {:<22}{:>10}   for the job's {} GPUs\n", "mean time between", Duration(i.mtbi), s.cluster.gpus());
  o += fmt::format("  {:<22}{:>10.1f}   each losing the work since the last checkpoint and a restart of {}\n",
                   "expected over the job", i.expected,
                   Duration(spec.restart + (st.checkpoint ? st.checkpoint->restore : Seconds(0))));
  o += fmt::format("  {:<22}{:>9.1f}%   of the wall clock is training\n", "goodput", 100 * i.goodput);
  o += fmt::format("  {:<22}{:>10}   Daly's optimum for this checkpoint cost: {}\n", "checkpoint interval",
                   Duration(i.interval), Duration(i.optimal_interval));
}

// The input pipeline's stages against what the GPUs consume, the
// bottleneck when it stalls them, and what would remove it.
void DataTable(std::string& o, const Result& r) {
  const DataSpec& d = r.scenario.data;
  const DataVerdict& v = *r.data;
  o += fmt::format("\nInput pipeline ({} from {}, {} workers per GPU, prefetch {})\n", ToString(d.format), d.tier,
                   d.workers, d.prefetch);
  o += fmt::format("  {:<22}{:>10.1f} samples/s per GPU\n", "GPUs consume", v.demand);
  for (size_t k = 0; k < v.stages.size(); ++k)
    o += fmt::format("  {:<22}{:>10.1f} samples/s per GPU{}\n", v.stages[k].name, v.stages[k].samples_per_s,
                     k == 0 ? (v.stalls ? "   <- bottleneck" : "   <- slowest") : "");
  if (!v.stalls) {
    o += "  keeps up: the GPUs do not wait for data\n";
    return;
  }
  const StepResult& st = *r.step;
  o += fmt::format("  stalls the GPUs {} per step ({:.1f}%): {}\n", Duration(st.breakdown.data_stall),
                   100 * st.breakdown.data_stall.value() / st.step_time.value(), v.stages.front().name);
  if (v.suggestions.empty()) return;
  SuggestionLines(o, "Would keep up with", v.suggestions);
}

}  // namespace

std::string RenderText(const Result& r, const Alternative* alternative) {
  std::string o;
  Header(o, r.scenario);
  MemoryTable(o, r.memory, r.suggestions);
  HostMemoryTable(o, r);
  if (r.step) StepTable(o, r);
  // A figure in a regime where published runs show it optimistic says so.
  if (r.step)
    for (const KnownGap& g : KnownGapsOf(r.scenario)) {
      // What this job's step and wall clock would be at the runs' range.
      const Seconds step = r.step->step_time, wall = r.step->wall_clock;
      o += "\nKnown gap: " + DescribeGap(g) +
           fmt::format("; at their range this step would take {} to {}, the job about {} to {}.\n",
                       Duration(step * (1 + g.error_low)), Duration(step * (1 + g.error_high)),
                       Duration(wall * (1 + g.error_low)), Duration(wall * (1 + g.error_high)));
    }
  if (r.step && alternative) {
    std::string flags;
    for (const std::string& f : alternative->overrides) flags += " --set " + f;
    o += fmt::format("\nA faster layout for this job: {}, {:.2f}x faster ({} a step; the fastest simulated of the {} "
                     "quickest of {} layouts screened):\n ",
                     alternative->layout, alternative->speedup, Duration(alternative->step), alternative->simulated,
                     alternative->screened) +
         flags + "\n";
  }
  if (!r.step) o += fmt::format("\nNot simulated: the job does not fit in {} memory (--force simulates it anyway).\n",
                        r.memory.fits ? "host" : "GPU");
  if (r.step && r.data) DataTable(o, r);
  if (r.step && r.step->checkpoint) CheckpointTable(o, r.scenario, *r.step);
  if (r.step && r.step->interruptions) InterruptionTable(o, r.scenario, *r.step);
  if (r.step && !r.step->modes.empty()) MoneyTables(o, r);
  return o;
}

}  // namespace pf

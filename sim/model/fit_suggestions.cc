#include "sim/model/fit_suggestions.h"

#include "sim/model/memory_model.h"
#include "sim/spec/names.h"
#include "sim/spec/validate.h"

namespace pf {
namespace {

struct Candidate {
  std::string change;
  std::vector<std::string> flags;
  Scenario sc;
};

std::string Str(int x) { return std::to_string(x); }

// Single changes to the training recipe, whether or not they fit.
void RecipeChanges(const Scenario& s, std::vector<Candidate>& out) {
  const ParallelSpec& p = s.parallel;
  const TrainingSpec& t = s.training;
  if (t.recompute != Recompute::kFull) {
    Scenario c = s;
    c.training.recompute = Recompute::kFull;
    std::vector<std::string> flags = DropSwitchesOfOtherLayouts(c.parallel, Recompute::kFull);
    flags.insert(flags.begin(), "training.recompute=full");
    out.push_back({"activation recompute: full", flags, c});
  }
  // Megatron-Core's output-discarding recompute (training_spec.h
  // RecomputeModule): the attention core, the norms, and the routed
  // experts' activation and MLA's up-projections where the model has them;
  // cheaper than recomputing whole layers, and what Megatron-Bridge's MoE
  // recipes set to fit.
  if (t.stack == Stack::kMegatron || t.stack == Stack::kNemo) {
    Scenario c = s;
    c.training.recompute = Recompute::kSelective;
    c.training.recompute_modules_given = true;
    c.training.recompute_modules = Bit(RecomputeModule::kCoreAttn) | Bit(RecomputeModule::kLayernorm);
    std::string names = "core_attn,layernorm";
    if (s.model.moe.enabled()) c.training.recompute_modules |= Bit(RecomputeModule::kMoeAct), names += ",moe_act";
    if (s.model.mla.enabled()) c.training.recompute_modules |= Bit(RecomputeModule::kMlaUpProj), names += ",mla_up_proj";
    const bool same = t.recompute == Recompute::kSelective && t.recompute_modules == c.training.recompute_modules;
    if (!same && t.recompute != Recompute::kFull)
      out.push_back({"recompute: selective modules (Megatron-Core)",
                     {"training.recompute=selective", "training.recompute_modules=[" + names + "]"}, c});
  }
  for (int z = p.zero + 1; z <= (p.pp > 1 ? 1 : 3); ++z) {
    Scenario c = s;
    c.parallel.zero = z;
    ResolveQloraUpcast(c);  // as --set parallel.zero=... would load it
    std::vector<std::string> flags = DropSwitchesOfOtherLayouts(c.parallel);
    flags.insert(flags.begin(), "parallel.zero=" + Str(z));
    out.push_back({"ZeRO stage " + Str(z), flags, c});
  }
  // bitsandbytes' 8-bit moments, where the stack lets the user pick the
  // optimizer (validate_training.cc refuses the rest).
  if (t.method == Method::kFull && t.optimizer == OptimizerChoice::kAdamw) {
    for (const OptimizerChoice o : {OptimizerChoice::kAdamw8bit, OptimizerChoice::kPagedAdamw8bit}) {
      Scenario c = s;
      c.training.optimizer = o;
      out.push_back({o == OptimizerChoice::kAdamw8bit ? "8-bit AdamW (bitsandbytes)"
                                                      : "paged 8-bit AdamW (bitsandbytes)",
                     {std::string("training.optimizer=") + ToString(o)}, c});
    }
  }
  if (t.method == Method::kFull) {
    Scenario c = s;
    c.training.method = Method::kLora;
    out.push_back({"LoRA (rank " + Str(t.lora_rank) + ") instead of full fine-tuning",
                   {"training.method=lora"}, c});
  }
  if (t.method != Method::kQlora) {
    Scenario c = s;
    c.training.method = Method::kQlora;
    out.push_back({"QLoRA (4-bit frozen base)", {"training.method=qlora"}, c});
  }
  if (t.micro_batch > 1) {
    Scenario c = s;
    c.training.micro_batch = 1;
    out.push_back({"micro-batch 1", {"training.micro_batch=1"}, c});
  }
}

// More nodes: the fewest doublings (up to 64x) that fit, sharding by dp
// (with ZeRO) or by pp, keeping tp.
void MoreNodes(const Scenario& s, std::vector<Candidate>& out) {
  for (int k = 2; k <= 64; k *= 2) {
    Scenario c = s;
    c.cluster.nodes *= k;
    c.parallel.dp *= k;
    c.parallel.dp_auto = false;
    if (c.parallel.zero == 0 || Validate(c)) continue;  // dp alone shards nothing
    if (!EstimateMemory(c).fits) continue;
    out.push_back({Str(c.cluster.nodes) + " nodes (dp " + Str(c.parallel.dp) + ")",
                   {"cluster.nodes=" + Str(c.cluster.nodes), "parallel.dp=" + Str(c.parallel.dp)}, c});
    break;
  }
  for (int k = 2; k <= 64; k *= 2) {
    Scenario c = s;
    c.cluster.nodes *= k;
    c.parallel.pp *= k;
    // A pipeline without interleaving takes no EP overlap (Megatron-Core).
    std::vector<std::string> flags = DropSwitchesOfOtherLayouts(c.parallel, c.training.recompute);
    if (Validate(c) || !EstimateMemory(c).fits) continue;
    flags.insert(flags.begin(), {"cluster.nodes=" + Str(c.cluster.nodes), "parallel.pp=" + Str(c.parallel.pp)});
    out.push_back({Str(c.cluster.nodes) + " nodes with pipeline parallelism pp " + Str(c.parallel.pp), flags, c});
    break;
  }
}

}  // namespace

std::vector<FitSuggestion> SuggestFits(const Scenario& s) {
  if (EstimateMemory(s).fits) return {};
  std::vector<Candidate> candidates;
  RecipeChanges(s, candidates);
  MoreNodes(s, candidates);
  std::vector<FitSuggestion> out;
  for (const auto& c : candidates) {
    MemoryBreakdown m = EstimateMemory(c.sc);
    // Paged optimizer states fill what the GPU has free: the rest is what
    // the change needs.
    if (m.fits && !Validate(c.sc)) out.push_back({c.change, c.flags, m.total - PagedResident(m)});
  }
  // Combine recompute with each other change when no single change suffices.
  if (out.empty() && s.training.recompute != Recompute::kFull) {
    for (auto c : candidates) {
      if (c.sc.training.recompute == Recompute::kFull) continue;
      c.sc.training.recompute = Recompute::kFull;
      c.flags.push_back("training.recompute=full");
      MemoryBreakdown m = EstimateMemory(c.sc);
      if (m.fits && !Validate(c.sc)) out.push_back({c.change + " + full recompute", c.flags, m.total});
    }
  }
  return out;
}

}  // namespace pf

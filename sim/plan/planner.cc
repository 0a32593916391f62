#include "sim/plan/planner.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "sim/base/error.h"
#include "sim/job/simulate.h"
#include "sim/model/host_memory.h"
#include "sim/model/known_gaps.h"
#include "sim/model/memory_model.h"
#include "sim/plan/layouts.h"
#include "sim/scenario/catalog.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/spec/names.h"
#include "sim/spec/validate.h"

namespace pf {
namespace {

using Clock = std::chrono::steady_clock;

// The part of a simulated step beyond the kernels that costs the most (the
// GPU's wait for the host counts, though it is part of compute).
std::string Bottleneck(const Breakdown& b) {
  const std::pair<const char*, double> parts[] = {
      {"host issuing kernels", b.host_wait.value()},
      {"pipeline bubble", b.bubble.value()},     {"exposed TP communication", b.tp_comm.value()},
      {"exposed EP all-to-all", b.ep_comm.value()},   {"exposed CP K/V exchange", b.cp_comm.value()},
      {"exposed DP communication", b.dp_comm.value()}, {"exposed PP communication", b.pp_comm.value()},
      {"data stall", b.data_stall.value()},      {"optimizer step", b.optimizer.value()},
      {"idle", b.idle.value()}};
  const auto* top = std::max_element(std::begin(parts), std::end(parts),
                                     [](const auto& a, const auto& c) { return a.second < c.second; });
  return top->second > 0 ? top->first : "none (compute-bound)";
}

std::string Days(double seconds) {
  return seconds < 2 * 86400 ? fmt::format("{:.1f} h", seconds / 3600) : fmt::format("{:.1f} days", seconds / 86400);
}

// The --set flags that make the scenario this candidate; on another node
// than the scenario's, priced by that node's cheapest on-demand offer; on
// whole boxes where the scenario takes fewer GPUs of its own
// (`part_of_box`).
std::vector<std::string> Overrides(const Candidate& c, const Scenario& scenario, bool part_of_box) {
  std::vector<std::string> out = {"cluster.node=" + c.node, fmt::format("cluster.nodes={}", c.nodes)};
  if (part_of_box) out.push_back(fmt::format("cluster.gpus_per_node={}", c.gpus / c.nodes));
  for (std::string& f : LayoutOverrides(scenario.parallel, c.parallel, c.micro_batch, c.recompute)) out.push_back(std::move(f));
  if (c.node != scenario.cluster.node.name && scenario.price.enabled)
    out.push_back("price={offer: " + NodePrices().at(c.node).offer + "}");
  return out;
}

}  // namespace

std::string GpusOfNode(const Candidate& c) {
  const int g = c.gpus / std::max(1, c.nodes);
  return fmt::format("{} GPU{}", g, g == 1 ? "" : "s");
}

std::string PriceLine(const Candidate& c) {
  const int taken = c.gpus / std::max(1, c.nodes);
  if (c.box_gpus > taken)
    return fmt::format("{:.2f} USD an hour for {} of a node's {} GPUs ({})", c.per_node_hour, GpusOfNode(c),
                       c.box_gpus, c.price_source);
  return fmt::format("{:.2f} USD per node-hour, {} a node ({})", c.per_node_hour, GpusOfNode(c), c.price_source);
}

std::string Candidate::Layout() const { return LayoutName(parallel, micro_batch, recompute); }

Plan MakePlan(const PlanOptions& o) {
  const Scenario scenario = LoadScenario(o.scenario, o.sets);
  // Node types: the bundled nodes with a price whose GPU matches --gpus.
  std::vector<std::string> nodes;
  for (const auto& [name, price] : NodePrices()) {
    bool wanted = o.gpus.empty();
    for (const std::string& g : o.gpus) wanted = wanted || name.find(g) != std::string::npos ||
                                                  LoadNode(name, "--gpus").gpu.name.find(g) != std::string::npos;
    if (wanted) nodes.push_back(name);
  }
  if (nodes.empty()) {
    std::string priced;
    for (const auto& [name, _] : NodePrices()) priced += (priced.empty() ? "" : ", ") + name;
    throw InputError(Location{"--gpus", 0, 0}, "",
                     "no bundled node with a price has these GPUs (priced nodes, topologies/offers.yaml: " + priced + ")");
  }
  Plan plan;
  std::vector<Candidate> meeting;
  std::optional<Candidate> cheapest;  // of every candidate that fits, deadline or not
  std::vector<std::string> skipped;   // node types the scenario does not load with, and why
  const auto t0 = Clock::now();
  // A scenario that takes fewer GPUs of its box is planned on whole boxes
  // and, on one node, on the shares of a box clouds rent (1, 2, 4 GPUs of
  // it: cloud.google.com's a2-highgpu-1g/2g/4g, AutoDL's per-GPU rental),
  // priced per GPU.
  const bool part_of_box =
      scenario.cluster.node.gpus_per_node < LoadNode(scenario.cluster.node.name, "--gpus").gpus_per_node;
  for (const std::string& node : nodes) {
    const int per_node = LoadNode(node, "--gpus").gpus_per_node;
    std::vector<int> shares;
    if (part_of_box)
      for (int g = 1; g < per_node; g *= 2)
        if (per_node % g == 0) shares.push_back(g);
    shares.push_back(per_node);
    for (const int share : shares) {
    // The node, with a plain layout that validates on one node (the
    // candidates set their own). The scenario's ZeRO stage is kept where a
    // switch needs it (Megatron's distributed optimizer is stage 1, the
    // overlapped parameter gather stage 1 or 2); the candidates drop the
    // switches their own stage does not take (DropSwitchesOfOtherLayouts).
    std::vector<std::string> sets = o.sets;
    const ParallelSpec& own = scenario.parallel;
    const int zero = own.distributed_optimizer || own.param_gather_overlap
                         ? own.zero
                         : (MinDataParallelZero(scenario.training.stack) > 0 && share > 1 ? 3 : 0);
    for (std::string x : {"cluster.node=" + node, std::string("cluster.nodes=1"),
                          "cluster.gpus_per_node=" + std::to_string(share), std::string("parallel.tp=1"),
                          std::string("parallel.pp=1"), std::string("parallel.vp=1"),
                          "parallel.zero=" + std::to_string(zero), "parallel.dp=" + std::to_string(share),
                          std::string("training.micro_batch=1")})
      sets.push_back(x);
    // A mixture of experts' EP group may outgrow one node: the base has
    // none (the candidates set their own, Layouts).
    if (own.ep > 1) sets.push_back("parallel.ep=1");
    if (own.ep_overlap) sets.push_back("parallel.ep_overlap=false");
    // Another node than the scenario's: priced by its cheapest on-demand offer.
    if (node != scenario.cluster.node.name && scenario.price.enabled)
      sets.push_back("price={offer: " + NodePrices().at(node).offer + "}");
    Scenario base;
    try {
      base = LoadScenario(o.scenario, sets);
    } catch (const InputError& e) {
      skipped.push_back(node + (share < per_node ? fmt::format(" ({} of its {} GPUs)", share, per_node) : "") + ": " +
                        e.message());
      continue;  // the scenario with this node does not load (e.g. a precision it lacks)
    }
    const NodePrice& price = NodePrices().at(node);
    std::vector<Scenario> candidates;
    if (share < per_node)
      Layouts(base, 1, scenario.training.micro_batch, candidates);
    else
      for (int n = 1; n * base.cluster.node.gpus_per_node <= o.max_gpus; n *= 2)
        Layouts(base, n, scenario.training.micro_batch, candidates);
    // The scenario's EP overlap, on every layout that takes it.
    for (Scenario& s : candidates)
      if (own.ep_overlap) s.parallel.ep_overlap = true, DropSwitchesOfOtherLayouts(s.parallel, s.training.recompute);
    // Per node as the base rents it: the scenario's own price for its own
    // node, else the node's cheapest offer, for the share of the box taken.
    // ParsePrice scales a per-GPU rate by the GPUs taken; a per-node rate is
    // an offer's whole box, or what the scenario's own GPUs of it cost.
    const bool own_price = scenario.cluster.node.name == node && scenario.price.enabled;
    const Rate* own_rate = own_price ? &base.price.rate() : nullptr;
    const double per_node_hour =
        !own_price  ? price.per_node_hour * share / per_node
        : own_rate->per_gpu ? own_rate->per_node_hour.value()
                       : own_rate->per_node_hour.value() * share /
                             (scenario.price.offer.empty() ? scenario.cluster.node.gpus_per_node : per_node);
    for (Scenario& s : candidates) {
      ++plan.screened;
      if (Validate(s)) continue;
      ++plan.valid;
      const MemoryBreakdown memory = EstimateMemory(s);
      // Planned with at least kThinHeadroom of the GPU to spare: a layout
      // the report would warn about is not a plan.
      if (!FitsWithHeadroom(memory) || !EstimateHostMemory(s).fits) continue;
      ++plan.fit;
      Candidate c;
      c.memory = memory.total, c.capacity = memory.capacity;
      c.node = node, c.nodes = s.cluster.nodes, c.gpus = s.cluster.gpus(), c.parallel = s.parallel;
      c.micro_batch = s.training.micro_batch, c.recompute = s.training.recompute;
      c.per_node_hour = per_node_hour;
      c.box_gpus = per_node;
      c.price_source = own_price ? "the scenario's price" : price.source;
      c.screen = ScreenStep(s);
      const double steps = std::ceil(s.training.job_tokens / s.training.tokens_per_step());
      c.screen_wall_s = c.screen.step.value() * steps;
      c.screen_cost = c.screen_wall_s / 3600 * c.nodes * c.per_node_hour;
      c.wall_s = c.screen_wall_s, c.cost = c.screen_cost;
      c.overrides = Overrides(c, scenario, part_of_box);
      if (!cheapest || c.screen_cost < cheapest->screen_cost) cheapest = c;
      if (c.screen_wall_s > o.deadline.value() || (o.budget_usd && c.screen_cost > *o.budget_usd)) continue;
      ++plan.meet;
      if (plan.cloud.size() < 4000) plan.cloud.push_back({c.screen_wall_s, c.screen_cost});
      meeting.push_back(std::move(c));
    }
    }
  }
  plan.screen_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (plan.screened == 0)
    throw InputError(Location{o.scenario, 0, 0}, "",
                     "no node type could run the scenario: " + (skipped.empty() ? std::string("none given") : skipped.front()));
  // The Pareto front of the screened candidates that meet the constraints.
  std::sort(meeting.begin(), meeting.end(), [](const Candidate& a, const Candidate& b) {
    return a.screen_cost != b.screen_cost ? a.screen_cost < b.screen_cost : a.screen_wall_s < b.screen_wall_s;
  });
  double fastest = 1e300;
  for (const Candidate& c : meeting)
    if (c.screen_wall_s < fastest) {
      plan.pareto.push_back(c);
      fastest = c.screen_wall_s;
    }
  // The cheapest (and the fastest of the front) simulated on SimGrid.
  std::vector<Candidate> chosen(meeting.begin(), meeting.begin() + std::min<size_t>(meeting.size(), o.simulate));
  if (!plan.pareto.empty() && std::none_of(chosen.begin(), chosen.end(), [&](const Candidate& c) {
        return c.overrides == plan.pareto.back().overrides;
      }))
    chosen.push_back(plan.pareto.back());
  const auto t1 = Clock::now();
  for (Candidate& c : chosen) {
    std::vector<std::string> sets = o.sets;
    sets.insert(sets.end(), c.overrides.begin(), c.overrides.end());
    Result r;
    try {
      r = Simulate(LoadScenario(o.scenario, sets));
    } catch (const std::exception& e) {  // e.g. over the task budget: the candidate is left out, said why
      plan.left_out.push_back(c.node + " " + c.Layout() + ": " + e.what());
      continue;
    }
    if (!r.step) continue;
    c.simulated = r.step;
    c.wall_s = r.step->wall_clock.value();
    c.cost = c.wall_s / 3600 * c.nodes * c.per_node_hour;
    c.bottleneck = Bottleneck(r.step->breakdown);
    plan.worst_disagreement = std::max(plan.worst_disagreement,
                                       std::fabs(c.screen.step.value() / r.step->step_time.value() - 1));
    plan.simulated.push_back(c);
  }
  plan.simulate_seconds = std::chrono::duration<double>(Clock::now() - t1).count();
  std::stable_sort(plan.simulated.begin(), plan.simulated.end(), [&](const Candidate& a, const Candidate& b) {
    const bool am = a.wall_s <= o.deadline.value(), bm = b.wall_s <= o.deadline.value();
    return am != bm ? am : a.cost < b.cost;
  });
  if (!plan.simulated.empty() && plan.simulated.front().wall_s <= o.deadline.value() &&
      (!o.budget_usd || plan.simulated.front().cost <= *o.budget_usd)) {
    plan.recommended = 0;
    const Candidate& r = plan.simulated.front();
    std::vector<std::string> sets = o.sets;
    sets.insert(sets.end(), r.overrides.begin(), r.overrides.end());
    const Scenario recommended = LoadScenario(o.scenario, sets);
    if (o.trace) {
      plan.recommended_scenario = recommended;
      plan.trace.emplace();
      Simulate(*plan.recommended_scenario, false, &*plan.trace);
    }
    plan.reasons.push_back(fmt::format("the cheapest simulated candidate that finishes in time: {} on {} x {}, {} and {:.0f} USD",
                                       r.Layout(), r.nodes, r.node, Days(r.wall_s), r.cost));
    plan.reasons.push_back("its step goes to compute first, then to " + r.bottleneck);
    if (cheapest && cheapest->screen_cost < r.cost && cheapest->screen_wall_s > o.deadline.value())
      plan.reasons.push_back(fmt::format(
          "the cheapest configuration that fits ({} on {} x {}, {:.0f} USD screened) would take {}: past the deadline",
          cheapest->Layout(), cheapest->nodes, cheapest->node, cheapest->screen_cost, Days(cheapest->screen_wall_s)));
    for (size_t k = 1; k < plan.simulated.size(); ++k) {
      const Candidate& next = plan.simulated[k];
      if (next.wall_s < r.wall_s) {
        plan.reasons.push_back(fmt::format("finishing {} sooner costs {:.0f} USD more ({} on {} x {})",
                                           Days(r.wall_s - next.wall_s), next.cost - r.cost, next.Layout(),
                                           next.nodes, next.node));
        break;
      }
    }
    // A recommendation in a regime where published runs show Preflight
    // optimistic says so (model/known_gaps.h).
    for (const KnownGap& g : KnownGapsOf(recommended)) {
      const std::string lo = Days(r.wall_s * (1 + g.error_low)), hi = Days(r.wall_s * (1 + g.error_high));
      plan.reasons.push_back("known gap: " + DescribeGap(g) +
                             fmt::format("; at their range its {} and {:.0f} USD would be about {} and {:.0f} to "
                                         "{:.0f} USD",
                                         Days(r.wall_s), r.cost, lo == hi ? lo : lo + " to " + hi,
                                         r.cost * (1 + g.error_low), r.cost * (1 + g.error_high)));
    }
  }
  return plan;
}

std::string RenderPlan(const PlanOptions& o, const Plan& p) {
  std::string out = fmt::format("Plan for {}: finish within {}{}\n", o.scenario, Days(o.deadline.value()),
                                o.budget_usd ? fmt::format(" and {:.0f} USD", *o.budget_usd) : "");
  out += fmt::format("  screened {} configurations in {:.2f} s ({:.0f} per s): {} valid, {} fit in memory with {:.0f}% "
                     "to spare, {} meet the constraints\n",
                     p.screened, p.screen_seconds, p.screen_seconds > 0 ? p.screened / p.screen_seconds : 0, p.valid,
                     p.fit, 100 * kThinHeadroom, p.meet);
  if (p.simulated.empty()) return out + "  no configuration meets the constraints\n";
  out += fmt::format("  simulated {} on SimGrid in {:.1f} s; the screen was within {:.1f}% of the simulated step\n\n",
                     p.simulated.size(), p.simulate_seconds, 100 * p.worst_disagreement);
  // The layout column: 32 wide, wider where a name (with its EP) is longer.
  size_t width = 32;
  for (const Candidate& c : p.simulated) width = std::max(width, c.Layout().size());
  out += fmt::format("  {:<4} {:<18} {:>5} {:>4}  {:<{}} {:>9} {:>10} {:>10} {:>8}  {}\n", "rank", "node", "nodes",
                     "GPUs", "layout", width, "step", "job", "cost USD", "screen", "bottleneck");
  for (size_t k = 0; k < p.simulated.size(); ++k) {
    const Candidate& c = p.simulated[k];
    out += fmt::format("  {:<4} {:<18} {:>5} {:>4}  {:<{}} {:>8.2f}s {:>10} {:>10.0f} {:>+7.1f}%  {}{}\n", k + 1, c.node,
                       c.nodes, c.gpus, c.Layout(), width, c.simulated->step_time.value(), Days(c.wall_s), c.cost,
                       100 * (c.screen.step.value() / c.simulated->step_time.value() - 1), c.bottleneck,
                       c.wall_s > o.deadline.value() ? "  (misses the deadline)" : "");
  }
  out += "\n  Pareto front (screened: no other is both faster and cheaper)\n";
  for (const Candidate& c : p.pareto)
    out += fmt::format("    {:>10} {:>10.0f} USD   {} x {}, {}\n", Days(c.screen_wall_s), c.screen_cost, c.nodes,
                       c.node, c.Layout());
  for (const std::string& why : p.left_out) out += "  left out (not simulated): " + why + "\n";
  if (!p.recommended) return out + "\n  No simulated candidate meets the constraints.\n";
  const Candidate& r = p.simulated[*p.recommended];
  out += "\n  Recommendation: " + fmt::format("{} x {}, {}\n", r.nodes, r.node, r.Layout());
  for (const std::string& why : p.reasons) out += "    - " + why + "\n";
  std::string flags;
  auto shell = [](const std::string& f) { return f.find(' ') == std::string::npos ? f : "'" + f + "'"; };
  for (const std::string& f : o.sets) flags += " --set " + shell(f);
  for (const std::string& f : r.overrides) flags += " --set " + shell(f);
  out += "    - price: " + PriceLine(r) + "\n";
  out += "    - run it: build/simulate " + o.scenario + flags + "\n";
  return out;
}

}  // namespace pf

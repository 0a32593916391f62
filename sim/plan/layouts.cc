#include "sim/plan/layouts.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/spec/names.h"
#include "sim/spec/validate.h"

namespace pf {
namespace {

// Micro-batches tried: 1, 2, 4 and the scenario's own.
std::vector<int> MicroBatches(int own) {
  std::vector<int> out = {1, 2, 4};
  if (std::find(out.begin(), out.end(), own) == out.end()) out.push_back(own);
  return out;
}

// Expert parallelism tried for a mixture of experts: each power of two
// that divides its experts, up to the job's GPUs, and the scenario's own;
// a dense model keeps its 1.
std::vector<int> ExpertParallelisms(const Scenario& base, int gpus) {
  const MoeSpec& x = base.model.moe;
  if (!x.enabled()) return {base.parallel.ep};
  std::vector<int> out;
  for (int ep = 1; ep <= gpus && ep <= x.experts; ep *= 2)
    if (x.experts % ep == 0) out.push_back(ep);
  if (std::find(out.begin(), out.end(), base.parallel.ep) == out.end()) out.push_back(base.parallel.ep);
  return out;
}

}  // namespace

void Layouts(const Scenario& base, int nodes, int own_micro_batch, std::vector<Scenario>& out) {
  const int gpus = nodes * base.cluster.node.gpus_per_node;
  const std::vector<int> eps = ExpertParallelisms(base, gpus);
  for (int tp : {1, 2, 4, 8})
    for (int pp : {1, 2, 4, 8, 16})
      for (int ep : eps)
        for (int zero : {0, 1, 2, 3})
          for (int mb : MicroBatches(own_micro_batch))
            for (Recompute rc : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
              const int cp = base.parallel.cp;  // kept: the sequence's split is the scenario's
              if (tp > base.cluster.node.gpus_per_node || gpus % (tp * pp * cp) != 0) continue;
              if (zero > 0 && gpus / (tp * pp) == 1) continue;  // ZeRO shards nothing over one replica
              Scenario s = base;
              s.cluster.nodes = nodes;
              s.parallel.tp = tp, s.parallel.pp = pp, s.parallel.vp = 1, s.parallel.zero = zero, s.parallel.ep = ep;
              s.parallel.dp = gpus / (tp * pp * cp), s.parallel.dp_auto = false;
              DropSwitchesOfOtherLayouts(s.parallel, rc);
              if (pp != base.parallel.pp) s.parallel.stage_layers.clear();  // the default split
              s.training.micro_batch = mb;
              s.training.recompute = rc;
              ResolveQloraUpcast(s);  // as --set parallel.zero=... would load it
              out.push_back(std::move(s));
            }
}

std::string LayoutName(const ParallelSpec& p, int micro_batch, Recompute recompute) {
  return fmt::format("TP{} PP{} DP{}{} ZeRO-{} mb{} {}", p.tp, p.pp, p.dp, p.ep > 1 ? fmt::format(" EP{}", p.ep) : "",
                     p.zero, micro_batch, ToString(recompute));
}

std::vector<std::string> LayoutOverrides(const ParallelSpec& base, const ParallelSpec& p, int micro_batch,
                                         Recompute recompute) {
  std::vector<std::string> out = {fmt::format("parallel.tp={}", p.tp),
                                  fmt::format("parallel.pp={}", p.pp),
                                  "parallel.vp=1",
                                  fmt::format("parallel.dp={}", p.dp),
                                  fmt::format("parallel.zero={}", p.zero),
                                  fmt::format("training.micro_batch={}", micro_batch),
                                  std::string("training.recompute=") + ToString(recompute)};
  if (p.ep != base.ep) out.push_back(fmt::format("parallel.ep={}", p.ep));
  ParallelSpec switches = base;
  switches.tp = p.tp, switches.zero = p.zero, switches.pp = p.pp, switches.vp = 1, switches.ep = p.ep;
  for (std::string& f : DropSwitchesOfOtherLayouts(switches, recompute)) out.push_back(std::move(f));
  return out;
}

}  // namespace pf

#include "sim/job/result_check.h"

#include <algorithm>
#include <cmath>
#include <vector>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace pf {
namespace {

// Rounding allowed on the upper bound of a fraction.
constexpr double kRounding = 1e-9;
// How far the breakdown's parts may add up from the step time, relative.
constexpr double kBreakdownTolerance = 1e-6;

std::string Num(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", x);
  return b;
}

[[noreturn]] void Fail(const std::string& figure, double value, const std::string& range) {
  throw std::logic_error("result check: " + figure + " = " + Num(value) + ", outside " + range);
}

void AtLeastZero(const std::string& figure, double x) {
  if (!(std::isfinite(x) && x >= 0)) Fail(figure, x, "[0, inf)");
}
void Positive(const std::string& figure, double x) {
  if (!(std::isfinite(x) && x > 0)) Fail(figure, x, "(0, inf)");
}
void Fraction(const std::string& figure, double x, double upper = 1) {
  if (!(std::isfinite(x) && x >= 0 && x <= upper + kRounding)) Fail(figure, x, "[0, " + Num(upper) + "]");
}

void CheckMemory(const Result& r) {
  const MemoryBreakdown& m = r.memory;
  for (auto [name, b] : {std::pair<const char*, Bytes>{"memory.weights", m.weights},
                         {"memory.gradients", m.gradients}, {"memory.optimizer", m.optimizer},
                         {"memory.activations", m.activations}, {"memory.logits", m.logits},
                         {"memory.zero_buffers", m.zero_buffers}, {"memory.optimizer_step", m.optimizer_step}, {"memory.ddp_buckets", m.ddp_buckets},
                         {"memory.phases_apart", m.phases_apart},
                         {"memory.cuda_context", m.cuda_context},
                         {"memory.nccl_buffers", m.nccl_buffers}, {"memory.allocator_reserve", m.allocator_reserve},
                         {"memory.framework", m.framework}, {"memory.allocator_cache", m.allocator_cache},
                         {"memory.observed", m.observed}, {"memory.total", m.total}})
    AtLeastZero(name, b.value());
  Positive("memory.capacity", m.capacity.value());
  // What nvidia-smi shows is the total and, only where the job fits, the
  // allocator's cache, never past the GPU.
  const double room = m.fits ? std::max(0.0, m.capacity.value() - m.total.value()) : 0.0;
  if (!(m.allocator_cache.value() <= room))
    Fail("memory.allocator_cache", m.allocator_cache.value(), "[0, " + Num(room) + "], the GPU beyond the total");
  const double off = m.observed.value() - m.total.value() - m.allocator_cache.value();
  if (!(std::abs(off) <= kBreakdownTolerance * m.total.value()))
    Fail("memory.observed - memory.total - memory.allocator_cache", off, "0 (the total plus the cache)");
  for (const FitSuggestion& s : r.suggestions) AtLeastZero("suggestion per_gpu bytes", s.per_gpu.value());
}

void CheckBreakdown(const StepResult& st) {
  const Breakdown& b = st.breakdown;
  for (auto [name, t] : {std::pair<const char*, Seconds>{"breakdown.compute", b.compute},
                         {"breakdown.optimizer", b.optimizer}, {"breakdown.tp_comm", b.tp_comm},
                         {"breakdown.ep_comm", b.ep_comm}, {"breakdown.cp_comm", b.cp_comm},
                         {"breakdown.pp_comm", b.pp_comm}, {"breakdown.dp_comm", b.dp_comm},
                         {"breakdown.io", b.io}, {"breakdown.bubble", b.bubble}, {"breakdown.idle", b.idle},
                         {"breakdown.data_stall", b.data_stall}})
    AtLeastZero(name, t.value());
  AtLeastZero("breakdown.host_wait", b.host_wait.value());
  if (!(b.host_wait.value() <= b.compute.value() * (1 + kBreakdownTolerance)))
    Fail("breakdown.host_wait", b.host_wait.value(), "at most breakdown.compute (" + Num(b.compute.value()) + " s)");
  const double step = st.step_time.value(), sum = b.total().value();
  if (!(std::fabs(sum - step) <= kBreakdownTolerance * step))
    Fail("breakdown total", sum, "step time " + Num(step) + " +- " + Num(kBreakdownTolerance * 1e6) + " ppm");
}

// An interval: finite, non-negative, in order.
void CheckSpread(const std::string& name, const Spread& sp) {
  AtLeastZero(name + "_p05", sp.p05);
  if (!(sp.p50 >= sp.p05)) Fail(name + "_p50", sp.p50, "[" + Num(sp.p05) + ", inf)");
  if (!(sp.p95 >= sp.p50)) Fail(name + "_p95", sp.p95, "[" + Num(sp.p50) + ", inf)");
  if (!std::isfinite(sp.p95)) Fail(name + "_p95", sp.p95, "a finite number");
}

void CheckMoney(const StepResult& st) {
  const auto bills = [&] {
    std::vector<const Bill*> out;
    if (st.bill) out.push_back(&*st.bill);
    for (const ModeOutcome& m : st.modes) out.push_back(&m.bill);
    return out;
  }();
  for (const Bill* b : bills)
    for (const BillLine& l : b->lines) {
      AtLeastZero("bill: " + l.item + " quantity", l.quantity);
      AtLeastZero("bill: " + l.item + " unit price", l.unit_price);
      if (!std::isfinite(l.amount())) Fail("bill: " + l.item, l.amount(), "a finite number");
    }
  for (const ModeOutcome& m : st.modes) {
    Positive("mode wall_clock_s", m.time.wall.value());
    if (m.spread) CheckSpread("mode cost_usd", m.spread->cost);
  }
  if (st.spread) {
    CheckSpread("step_time_s", st.spread->step);
    CheckSpread("wall_clock_s", st.spread->wall);
    if (st.cost) CheckSpread("cost_usd", st.spread->cost);
  }
}

void CheckStep(const StepResult& st) {
  Positive("step_time_s", st.step_time.value());
  Positive("tokens_per_step", st.tokens_per_step);
  Positive("tokens_per_s", st.tokens_per_s);
  Fraction("hfu", st.hfu);
  Fraction("mfu", st.mfu, st.hfu);
  Fraction("scaling_efficiency", st.scaling_efficiency);
  CheckBreakdown(st);
  if (st.steps < 1) Fail("steps", double(st.steps), "[1, inf)");
  Positive("wall_clock_s", st.wall_clock.value());
  if (st.cost) AtLeastZero("cost_usd", st.cost->value());
  CheckMoney(st);
  if (st.tasks < 1) Fail("tasks", st.tasks, "[1, inf)");
  if (st.flows < 0) Fail("flows", double(st.flows), "[0, inf)");
}

}  // namespace

void CheckResult(const Result& r) {
  CheckMemory(r);
  if (r.step) CheckStep(*r.step);
}

}  // namespace pf

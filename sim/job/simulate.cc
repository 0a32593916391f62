#include "sim/job/simulate.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "sim/accounting/accounting.h"
#include "sim/base/io.h"
#include "sim/engine/engine.h"
#include "sim/job/checkpoint.h"
#include "sim/job/data_verdict.h"
#include "sim/job/interruptions.h"
#include "sim/job/result_check.h"
#include "sim/model/compute_model.h"
#include "sim/model/data_costs.h"
#include "sim/model/host_memory.h"
#include "sim/workload/workload_builder.h"

namespace pf {
namespace {

// Optimizer steps a job may take: more is not a job anyone runs, and the
// count must stay exact in a double.
constexpr double kMaxSteps = 1e15;

std::string Num(double x) { return ShortNumber(x); }

// The scenario, its memory verdict and, when it does not fit, suggestions.
Result Verdict(const Scenario& s) {
  Result r;
  r.scenario = s;
  r.memory = EstimateMemory(s);
  r.suggestions = SuggestFits(s);
  r.host = EstimateHostMemory(s);
  r.host_suggestions = SuggestHostFits(s);
  return r;
}

// The job built from one simulated step: steps, wall clock, cost.
void Job(const Scenario& s, StepResult& st) {
  const double steps = std::ceil(s.training.job_tokens / st.tokens_per_step);
  if (!(steps <= kMaxSteps))
    throw std::invalid_argument("training.tokens: " + Num(s.training.job_tokens) + " tokens at " +
                                Num(st.tokens_per_step) + " per step take " + Num(steps) +
                                " steps; Preflight counts up to " + Num(kMaxSteps));
  st.steps = static_cast<long long>(steps);
  st.wall_clock = st.step_time * double(st.steps);
  if (st.first_epoch_step) {  // the first epoch reads the whole dataset from its tier
    const double samples = s.data.size.value() / CostOfSample(s).stored.value();
    const double per_step = s.training.global_batch;
    st.first_epoch_steps = std::min<long long>(st.steps, static_cast<long long>(std::ceil(samples / per_step)));
    st.wall_clock += (*st.first_epoch_step - st.step_time) * double(st.first_epoch_steps);
  }
  if (s.checkpoint.enabled) {
    st.checkpoint = SimulateCheckpoints(s, st);
    if (s.interruptions.enabled) {  // Daly's model: checkpoints, rework and restarts together
      const CheckpointResult& c = *st.checkpoint;
      const Seconds interval = s.checkpoint.every_steps > 0 ? st.step_time * double(s.checkpoint.every_steps)
                                                            : s.checkpoint.every;
      st.interruptions = ExpectInterruptions(st.wall_clock, interval, c.pause, s.interruptions.restart + c.restore,
                                             s.cluster.gpus(), s.interruptions.gpu_mtbf,
                                             s.interruptions.preemptions_per_hour);
      st.wall_clock = st.interruptions->wall;
    } else {
      st.wall_clock += st.checkpoint->total_pause;
    }
  }
  const double hours = st.wall_clock.value() / 3600;
  if (s.price.per_gpu_hour) st.cost = *s.price.per_gpu_hour * (hours * s.cluster.gpus());
  if (s.price.per_node_hour) st.cost = *s.price.per_node_hour * (hours * s.cluster.nodes);
  if (st.cost && !std::isfinite(st.cost->value()))
    throw std::invalid_argument("price: the job's cost over " + Num(hours) + " hours is not a finite number");
}

// `built`: w is BuildWorkload(s)'s, so a first epoch (an empty page cache)
// can be built and simulated too; an imported workload is its own step.
StepResult Step(const Scenario& s, const preflight::Workload& w, bool built, StepTrace* trace) {
  const TaskTimes times = RunWorkload(s, w);
  if (trace) {
    trace->workload.CopyFrom(w);
    trace->times = times;
  }
  StepResult st;
  st.step_time = Seconds(times.makespan_s);
  st.tasks = w.tasks_size();
  st.flows = times.flows;
  st.tokens_per_step = w.tokens_per_step();
  st.tokens_per_s = w.tokens_per_step() / times.makespan_s;
  const double peak = PeakFlops(s.cluster.node.gpu, s.training.precision).value();
  const double gpu_seconds = times.makespan_s * s.cluster.gpus();
  st.mfu = w.model_flops() / (gpu_seconds * peak);
  st.hfu = w.hardware_flops() / (gpu_seconds * peak);
  st.breakdown = AccountTime(w, times, s.parallel.pp > 1);
  st.scaling_efficiency = (st.breakdown.compute + st.breakdown.optimizer) / st.step_time;
  if (built && PageCacheHits(s) > 0) {
    Scenario first = s;
    first.data.first_epoch = true;
    google::protobuf::Arena arena(WorkloadArenaOptions());
    auto* fw = google::protobuf::Arena::CreateMessage<preflight::Workload>(&arena);
    BuildWorkload(first, *fw);
    st.first_epoch_step = Seconds(RunWorkload(first, *fw).makespan_s);
  }
  Job(s, st);
  return st;
}

}  // namespace

Result SimulateWorkload(const Scenario& s, const preflight::Workload& w, bool force, StepTrace* trace) {
  Result r = Verdict(s);
  if ((r.memory.fits && r.host.fits) || force) r.step = Step(s, w, false, trace);
  if (r.step && s.data.enabled) r.data = JudgeData(s, *r.step);
  CheckResult(r);
  return r;
}

Result Simulate(const Scenario& s, bool force, StepTrace* trace) {
  Result r = Verdict(s);
  if ((r.memory.fits && r.host.fits) || force) {
    google::protobuf::Arena arena(WorkloadArenaOptions());
    auto* w = google::protobuf::Arena::CreateMessage<preflight::Workload>(&arena);
    BuildWorkload(s, *w);
    r.step = Step(s, *w, true, trace);
    if (s.data.enabled) r.data = JudgeData(s, *r.step);
  }
  CheckResult(r);
  return r;
}

}  // namespace pf

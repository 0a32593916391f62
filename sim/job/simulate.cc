#include "sim/job/simulate.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "sim/accounting/accounting.h"
#include "sim/base/error.h"
#include "sim/base/io.h"
#include "sim/spec/names.h"
#include "sim/engine/engine.h"
#include "sim/job/checkpoint.h"
#include "sim/job/data_verdict.h"
#include "sim/job/interruptions.h"
#include "sim/job/staging.h"
#include "sim/workload/staging_emitter.h"
#include "sim/job/result_check.h"
#include "sim/model/compute_model.h"
#include "sim/model/data_costs.h"
#include "sim/model/host_memory.h"
#include "sim/workload/size_estimate.h"
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

// The job model's inputs from the simulated step and the scenario;
// `eval_batch`: one evaluation batch (forward only).
JobInputs InputsOf(const Scenario& s, const StepResult& st, Seconds eval_batch) {
  JobInputs in;
  in.step = st.step_time;
  in.steps = st.steps;
  if (st.first_epoch_step) in.first_epoch_extra = (*st.first_epoch_step - st.step_time) * double(st.first_epoch_steps);
  in.eval_batch = eval_batch;
  in.eval_every_steps = s.job.eval_every_steps;
  in.eval_batches = s.job.eval_batches;
  in.startup = s.job.startup;
  if (!s.job.stage_from.empty()) in.staging = SimulateStaging(s);
  if (st.checkpoint) {
    in.checkpoints = true;
    in.async = s.checkpoint.async;
    in.every_steps = s.checkpoint.every_steps;
    in.every = s.checkpoint.every;
    in.copy = st.checkpoint->copy, in.write = st.checkpoint->write, in.restore = st.checkpoint->restore;
  }
  if (s.interruptions.enabled) {
    in.interruptions = true;
    in.gpus = s.cluster.gpus();
    in.gpu_mtbf = s.interruptions.gpu_mtbf;
    in.preemptions_per_hour = s.interruptions.preemptions_per_hour;
    in.restart = s.interruptions.restart;
  }
  return in;
}

// What the job reads and writes (bill.h): the training steps' reads from
// data.tier (every sample of the first epoch, later epochs less the page
// cache's hits), staging's reads, one checkpoint's size.
JobUse UseOf(const Scenario& s, const StepResult& st) {
  JobUse u;
  if (s.data.enabled) {
    const SampleCost c = CostOfSample(s);
    u.dataset = s.data.size;
    const double per_step = s.training.global_batch;
    const double first = st.first_epoch_step ? double(st.first_epoch_steps) : 0;
    const double samples = per_step * (first + (double(st.steps) - first) * (1 - PageCacheHits(s)));
    u.tier_reads = samples * c.stored.value();
    u.tier_requests = samples * c.requests;
    if (!s.job.stage_from.empty()) u.staged = StagedBytesPerNode(s) * s.cluster.nodes;
  }
  if (st.checkpoint) u.checkpoint = st.checkpoint->size;
  return u;
}

// The scenario with every link `k` times faster (NVLink, NVSwitch, NICs):
// the network efficiency's effect on the step (intervals.h).
Scenario FasterNetwork(Scenario s, double k) {
  NodeSpec& n = s.cluster.node;
  n.intra_bandwidth = n.intra_bandwidth * k;
  n.gpu.nvlink_bidir = n.gpu.nvlink_bidir * k;
  n.bridges.bandwidth = n.bridges.bandwidth * k;
  n.nic_bandwidth = n.nic_bandwidth * k;
  return s;
}

// The step's sensitivity to kernel and network efficiency: four more
// simulations, every compute task (then every link) faster and slower.
Sensitivity MeasureSensitivity(const Scenario& s, const preflight::Workload& w, Seconds step, const Uncertainty& u) {
  double steps[5] = {step.value(), 0, 0, 0, 0};
  google::protobuf::Arena arena(WorkloadArenaOptions());
  auto* scaled = google::protobuf::Arena::CreateMessage<preflight::Workload>(&arena);
  for (int i = 0; i < 2; ++i) {
    const double k = i == 0 ? u.kernel : 1 / u.kernel;
    scaled->CopyFrom(w);
    for (auto& t : *scaled->mutable_tasks())
      if (t.has_compute()) {  // the kernels' part; the host's does not change with them
        const double wait = t.compute().host_wait_s();
        t.mutable_compute()->set_duration_s((t.compute().duration_s() - wait) / k + wait);
      }
    steps[1 + i] = RunWorkload(s, *scaled).makespan_s;
  }
  steps[3] = RunWorkload(FasterNetwork(s, u.network), w).makespan_s;
  steps[4] = RunWorkload(FasterNetwork(s, 1 / u.network), w).makespan_s;
  return FitSensitivity(steps, u.kernel, u.network);
}

// Below this share of its wall clock spent on new work, a job interrupted
// more often than it checkpoints and restarts redoes its work for ever
// (Daly's wall clock grows as e^(interval / MTBI)): refused with the keys
// that decide it rather than printed as a figure of 1e100 days.
constexpr double kMinGoodput = 0.01;

void CheckGoodput(const Scenario& s, const JobTime& t, const char* mode) {
  if (!t.interruptions || t.interruptions->goodput >= kMinGoodput) return;
  const Interruptions& x = *t.interruptions;
  const std::string key = s.interruptions.preemptions_per_hour > 0 && std::string(mode) == "spot"
                              ? "interruptions.preemptions_per_hour"
                              : "interruptions.gpu_mtbf_hours";
  throw InputError(Location{s.file, 0, 0}, key,
                   "the job" + std::string(*mode ? std::string(" (") + mode + ")" : "") +
                       " is interrupted every " + Num(x.mtbi.value()) + " s on average, checkpoints every " +
                       Num(x.interval.value()) + " s (" + Num(t.pause.value()) + " s each) and restarts in " +
                       Num(s.interruptions.restart.value()) + " s plus the restore: under " +
                       Num(100 * kMinGoodput) + "% of its wall clock would be new work (" +
                       Num(100 * x.goodput) + "%), so it never finishes; checkpoint more often (checkpoint.every; "
                       "Daly's optimum here is " + Num(x.optimal_interval.value()) +
                       " s of work), restart faster (interruptions.restart) or use fewer, more reliable GPUs");
}

// The job built from one simulated step: steps, checkpoints, the job
// model's wall clock, and with a price the bill in each mode offered.
void Job(const Scenario& s, const preflight::Workload& w, StepResult& st) {
  const double steps = std::ceil(s.training.job_tokens / st.tokens_per_step);
  if (!(steps <= kMaxSteps))
    throw std::invalid_argument("training.tokens: " + Num(s.training.job_tokens) + " tokens at " +
                                Num(st.tokens_per_step) + " per step take " + Num(steps) +
                                " steps; Preflight counts up to " + Num(kMaxSteps));
  st.steps = static_cast<long long>(steps);
  if (st.first_epoch_step) {  // the first epoch reads the whole dataset from its tier
    const double samples = s.data.size.value() / CostOfSample(s).stored.value();
    const double per_step = s.training.global_batch;
    // In double first: a sample of a few bytes makes the count overflow.
    const double epoch_steps = std::ceil(samples / per_step);
    st.first_epoch_steps = epoch_steps < double(st.steps) ? static_cast<long long>(epoch_steps) : st.steps;
  }
  if (s.checkpoint.enabled) st.checkpoint = SimulateCheckpoints(s);
  // Evaluation: forward passes only, a third of a training step's model
  // FLOPs (2N of 6N per token), at the step's achieved rate.
  const Seconds eval_batch =
      w.hardware_flops() > 0 ? st.step_time * (w.model_flops() / 3 / w.hardware_flops()) : Seconds(0);
  const JobInputs in = InputsOf(s, st, eval_batch);
  const JobUse use = UseOf(s, st);
  // Preemptions are the spot market's: with a price, only spot has them.
  auto in_mode = [&](PriceMode m) {
    JobInputs d = in;
    if (s.price.enabled && m != PriceMode::kSpot) d.preemptions_per_hour = 0;
    return d;
  };
  const JobInputs mine = in_mode(s.price.mode);
  st.time = TimeJob(mine);
  CheckGoodput(s, st.time, s.price.enabled ? ToString(s.price.mode) : "");
  st.wall_clock = st.time.wall;
  st.interruptions = st.time.interruptions;
  if (st.checkpoint) {
    st.checkpoint->count = st.time.checkpoints;
    st.checkpoint->pause = st.time.pause;
    st.checkpoint->total_pause = st.time.checkpoint_pauses;
  }
  const Uncertainty u;
  if (s.intervals) st.sensitivity = MeasureSensitivity(s, w, st.step_time, u);
  auto spread = [&](const JobInputs& d, std::optional<PriceMode> m) {
    std::function<double(const JobTime&, double)> cost;
    if (m) cost = [&s, &use, m](const JobTime& t, double k) { return BillJob(s, t, use, *m, k).total(); };
    return SampleJob(d, *st.sensitivity, u, m == PriceMode::kSpot, cost);
  };
  if (s.price.enabled) {
    for (const auto& [mode, rate] : s.price.modes) {
      const JobInputs d = in_mode(mode);
      if (mode == PriceMode::kSpot && !(d.interruptions && d.preemptions_per_hour > 0)) continue;  // unknown rate
      ModeOutcome o;
      o.mode = mode;
      o.time = TimeJob(d);
      CheckGoodput(s, o.time, ToString(mode));
      o.bill = BillJob(s, o.time, use, mode);
      if (st.sensitivity) o.spread = spread(d, mode);
      st.modes.push_back(o);
    }
    st.bill = BillJob(s, st.time, use, s.price.mode);
    st.cost = Usd(st.bill->total());
    if (!std::isfinite(st.cost->value()))
      throw std::invalid_argument("price: the job's cost over " + Num(st.wall_clock.value() / 3600) +
                                  " hours is not a finite number");
  }
  if (st.sensitivity) st.spread = spread(mine, s.price.enabled ? std::optional<PriceMode>(s.price.mode) : std::nullopt);
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
  Job(s, w, st);
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
    RefuseEndlessRun(s);
    google::protobuf::Arena arena(WorkloadArenaOptions());
    auto* w = google::protobuf::Arena::CreateMessage<preflight::Workload>(&arena);
    BuildWorkload(s, *w);
    r.step = Step(s, *w, true, trace);
    if (s.data.enabled) r.data = JudgeData(s, *r.step);
  }
  CheckResult(r);
  return r;
}

// See simulate.h: five times the scans the engine allows one run
// (engine.h MaxInFlightScans, which grows with --max-tasks).
bool PastInFlightLimit(const Scenario& s, const SimulationSize& size) {
  // The estimate's scans are within 2x on the bundled scenarios and up to
  // tp x high where TP lanes are simulated by lane 0 (size_estimate.cc).
  constexpr double kCertain = 5;
  return size.scans > kCertain * MaxInFlightScans(s);
}

void RefuseEndlessRun(const Scenario& s) {
  const SimulationSize size = EstimateSimulationSize(s);
  if (!PastInFlightLimit(s, size)) return;
  throw InputError({s.file}, "", fmt::format(
      "one step would keep about {:.2g} network flows and kernels in flight at each completion (about "
      "{:.2g} scans, past the {:.2g} one run makes in minutes; SimGrid slows down with the square of what is in "
      "flight; --max-tasks raises the limit in proportion): simulate the same layout on fewer nodes "
      "(cluster.nodes){}",
      size.scans / std::max(1.0, size.tasks), size.scans, MaxInFlightScans(s),
      s.parallel.cp > 1 ? " or a shorter sequence (each layer's K/V exchange over every CP group)" : ""));
}

}  // namespace pf

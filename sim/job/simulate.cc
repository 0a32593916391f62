#include "sim/job/simulate.h"

#include <cmath>

#include "sim/accounting/accounting.h"
#include "sim/model/compute_model.h"
#include "sim/engine/engine.h"
#include "sim/workload/workload_builder.h"

namespace pf {

Result SimulateWorkload(const Scenario& s, const preflight::Workload& w) {
  Result r;
  r.scenario = s;
  r.memory = EstimateMemory(s);
  r.suggestions = SuggestFits(s);

  const TaskTimes times = RunWorkload(s, w);
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
  st.steps = static_cast<long long>(std::ceil(s.training.job_tokens / w.tokens_per_step()));
  st.wall_clock = st.step_time * double(st.steps);
  const double hours = st.wall_clock.value() / 3600;
  if (s.price.per_gpu_hour) st.cost = *s.price.per_gpu_hour * (hours * s.cluster.gpus());
  if (s.price.per_node_hour) st.cost = *s.price.per_node_hour * (hours * s.cluster.nodes);
  r.step = st;
  return r;
}

Result Simulate(const Scenario& s, bool force) {
  MemoryBreakdown m = EstimateMemory(s);
  if (!m.fits && !force) {
    Result r;
    r.scenario = s;
    r.memory = m;
    r.suggestions = SuggestFits(s);
    return r;
  }
  return SimulateWorkload(s, BuildWorkload(s));
}

}  // namespace pf

#include "sim/job/checkpoint.h"

#include <algorithm>
#include <cmath>

#include "sim/engine/engine.h"
#include "sim/model/checkpoint_size.h"
#include "sim/workload/checkpoint_emitter.h"

namespace pf {
namespace {

// When the last task named `name` ends.
double LastEnd(const preflight::Workload& w, const TaskTimes& t, const char* name) {
  double end = 0;
  for (int i = 0; i < w.tasks_size(); ++i)
    if (w.tasks(i).name() == name) end = std::max(end, t.end_s[i]);
  return end;
}

}  // namespace

CheckpointResult SimulateCheckpoints(const Scenario& s, const StepResult& st) {
  const CheckpointSpec& spec = s.checkpoint;
  CheckpointResult c;
  c.size = SizeOfCheckpoint(s).total();
  const preflight::Workload save = BuildCheckpointIo(s, false);
  const TaskTimes saved = RunWorkload(s, save);
  c.copy = Seconds(LastEnd(save, saved, "ckpt_copy"));
  c.write = Seconds(saved.makespan_s);
  const preflight::Workload load = BuildCheckpointIo(s, true);
  c.restore = Seconds(RunWorkload(s, load).makespan_s);
  const double training = st.step_time.value() * double(st.steps);
  const double interval = spec.every_steps > 0 ? st.step_time.value() * double(spec.every_steps) : spec.every.value();
  c.count = spec.every_steps > 0 ? st.steps / spec.every_steps : static_cast<long long>(std::floor(training / interval));
  c.pause = spec.async ? c.copy + Seconds(std::max(0.0, c.write.value() - interval)) : c.write;
  c.total_pause = c.pause * double(c.count);
  return c;
}

}  // namespace pf

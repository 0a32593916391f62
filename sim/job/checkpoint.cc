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

CheckpointResult SimulateCheckpoints(const Scenario& s) {
  CheckpointResult c;
  c.size = SizeOfCheckpoint(s).total();
  const preflight::Workload save = BuildCheckpointIo(s, false);
  const TaskTimes saved = RunWorkload(s, save);
  c.copy = Seconds(LastEnd(save, saved, "ckpt_copy"));
  c.write = Seconds(saved.makespan_s);
  const preflight::Workload load = BuildCheckpointIo(s, true);
  c.restore = Seconds(RunWorkload(s, load).makespan_s);
  return c;
}

}  // namespace pf

#include "sim/job/job_model.h"

#include <algorithm>
#include <cmath>

namespace pf {

JobTime TimeJob(const JobInputs& in) {
  JobTime t;
  t.startup = in.startup, t.staging = in.staging;
  t.steps = in.step * double(in.steps) + in.first_epoch_extra;
  if (in.eval_every_steps > 0) {
    t.evals = in.steps / in.eval_every_steps;
    t.eval = in.eval_batch * (double(t.evals) * in.eval_batches);
  }
  Seconds work = t.training();
  if (in.checkpoints) {
    t.interval = in.every_steps > 0 ? in.step * double(in.every_steps) : in.every;
    t.checkpoints = in.every_steps > 0 ? in.steps / in.every_steps
                                       : static_cast<long long>(std::floor(work.value() / t.interval.value()));
    t.pause = in.async ? in.copy + Seconds(std::max(0.0, (in.write - t.interval).value())) : in.write;
    t.checkpoint_pauses = t.pause * double(t.checkpoints);
    if (in.interruptions) {
      t.interruptions = ExpectInterruptions(work, t.interval, t.pause, in.restart + in.restore, in.gpus, in.gpu_mtbf,
                                            in.preemptions_per_hour);
      work = t.interruptions->wall;
    } else {
      work += t.checkpoint_pauses;
    }
  }
  t.wall = t.startup + t.staging + work;
  return t;
}

}  // namespace pf

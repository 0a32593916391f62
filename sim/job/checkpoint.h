// The job's checkpoints: one checkpoint's write (and its restore) simulated
// on the cluster as a workload of its own (workload/checkpoint_emitter.h),
// the pause it costs training, and how many the job takes at the scenario's
// interval. Synchronous checkpoints pause for the whole write; asynchronous
// ones for the copy to host memory, and for whatever of the write outlasts
// the interval (the next checkpoint waits for it).
#pragma once

#include "sim/job/result.h"

namespace pf {

// Size, copy, write and restore (the pause and the count follow from the
// job model, job_model.h). REQUIRES: s.checkpoint.enabled.
CheckpointResult SimulateCheckpoints(const Scenario& s);

}  // namespace pf

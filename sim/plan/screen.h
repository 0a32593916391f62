// The analytical screen of `simulate plan`: a step's time from the same
// model math, compute model and collective plans the simulation uses, but
// added up in closed form instead of run on SimGrid: per micro-batch each
// stage's forward and backward with its tensor-parallel all-reduces
// (uncontended NCCL plans, not overlapped), 1F1B's (micro-batches + pp - 1)
// slots of the slowest stage plus its sends, the data-parallel reduction's
// part the last backward does not hide, ZeRO-3's gathers beyond the compute
// they overlap, and the optimizer. No contention, no stragglers: the
// planner simulates its best candidates to check it.
#pragma once

#include "sim/base/units.h"
#include "sim/spec/spec.h"

namespace pf {

struct ScreenEstimate {
  Seconds step;
  Seconds compute;  // the slowest stage's kernels over the step
  Seconds exposed_comm;
  Seconds bubble;
};

// REQUIRES: Validate(s) passes and the job fits.
ScreenEstimate ScreenStep(const Scenario& s);

}  // namespace pf

// The whole job's wall clock from its simulated pieces, as plain
// arithmetic so that prediction intervals (intervals.h) can re-evaluate it
// for sampled inputs without simulating again:
//   wall = startup + staging + W,
// where W is the training work (steps, the first epoch's slower steps,
// evaluations) with its checkpoint pauses, and with interruptions Daly's
// expected time including rework and restarts (interruptions.h).
#pragma once

#include <optional>

#include "sim/base/units.h"
#include "sim/job/interruptions.h"

namespace pf {

struct JobInputs {
  Seconds step;                  // one (later-epoch) optimizer step
  long long steps = 0;
  Seconds first_epoch_extra;     // the first epoch's steps' extra time over `step`
  Seconds eval_batch;            // one evaluation batch (forward only)
  long long eval_every_steps = 0;
  int eval_batches = 0;
  Seconds startup, staging;
  // Checkpoints (none when !checkpoints): simulated copy, write, restore.
  bool checkpoints = false;
  bool async = false;
  long long every_steps = 0;     // or every (of training time)
  Seconds every;
  Seconds copy, write, restore;
  // Interruptions (none when !interruptions).
  bool interruptions = false;
  int gpus = 0;
  Seconds gpu_mtbf;
  double preemptions_per_hour = 0;
  Seconds restart;
};

struct JobTime {
  Seconds steps;        // steps x step, plus the first epoch's extra
  Seconds eval;         // evaluations
  long long evals = 0;
  Seconds startup, staging;
  long long checkpoints = 0;
  Seconds pause;        // per checkpoint (sync: the write; async: the copy, plus a write outlasting the interval)
  Seconds checkpoint_pauses;  // all of them (without interruptions)
  Seconds interval;     // training time between checkpoints
  std::optional<Interruptions> interruptions;  // with them: Daly's wall for steps + eval
  Seconds wall;
  Seconds training() const { return steps + eval; }
};

JobTime TimeJob(const JobInputs& in);

}  // namespace pf

// A long job's interruptions (hardware failures and spot preemptions, each
// memoryless) and what they cost, with Daly's model of checkpoint/restart
// (J. T. Daly, "A higher order estimate of the optimum checkpoint interval
// for restart dumps", Future Generation Computer Systems 22, 2006): with
// M the mean time between interruptions, delta a checkpoint's cost, R a
// restart's and tau the work between checkpoints, a job of T_s of work
// takes on average
//   T_w = M e^(R/M) (e^((tau + delta)/M) - 1) T_s / tau,
// and the interval that minimises it is, for delta < 2M,
//   tau_opt = sqrt(2 delta M) [1 + sqrt(delta/(2M))/3 + delta/(18M)] - delta
// (Young's sqrt(2 delta M) to first order), else M.
#pragma once

#include "sim/base/units.h"

namespace pf {

struct Interruptions {
  Seconds mtbi;          // mean time between interruptions of the whole job
  Seconds wall;          // expected wall clock with interruptions, checkpoints and restarts
  double expected = 0;   // interruptions over the job
  double goodput = 0;    // work / wall clock
  Seconds optimal_interval;  // Daly's
  Seconds interval;          // the scenario's (work between checkpoints)
};

// Daly's expected wall clock and optimal interval.
Seconds DalyWallClock(Seconds work, Seconds interval, Seconds checkpoint, Seconds restart, Seconds mtbi);
Seconds DalyOptimalInterval(Seconds checkpoint, Seconds mtbi);

// The job's interruptions: `gpus` GPUs failing once per `gpu_mtbf` each and
// `preemptions_per_hour`; `work` of training in `interval` chunks.
Interruptions ExpectInterruptions(Seconds work, Seconds interval, Seconds checkpoint, Seconds restart, int gpus,
                                  Seconds gpu_mtbf, double preemptions_per_hour);

}  // namespace pf

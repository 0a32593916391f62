// The pipeline: validated Scenario -> workload -> SimGrid -> Result.
#pragma once

#include "sim/proto/workload.pb.h"
#include "sim/job/result.h"
#include "sim/workload/size_estimate.h"

namespace pf {

// Memory verdict; when the job fits, builds the step's task graph, runs it
// on SimGrid and derives throughput, utilisation, breakdown, job time and
// cost. `force` simulates even a job that does not fit. The result passes
// CheckResult (result_check.h); a figure out of range throws
// std::logic_error (a bug). Throws std::invalid_argument when the job's
// step count or cost overflows (training.tokens or the price too large).
// With `trace`, the simulated step's task graph and times are kept there.
Result Simulate(const Scenario& s, bool force = false, StepTrace* trace = nullptr);

// Throws InputError when the step's estimate keeps so many flows in flight
// that its simulation could only stop at the engine's limit after minutes
// (Simulate checks it before building the step).
void RefuseEndlessRun(const Scenario& s);

// Whether a step of this estimated size is one RefuseEndlessRun refuses.
bool PastInFlightLimit(const Scenario& s, const SimulationSize& size);

// The same from a given workload (e.g. one saved with --emit-workload and
// read back with LoadWorkload, sim/workload/workload_file.h), under the
// same memory verdict: a job that does not fit is simulated only with
// `force`. REQUIRES: `w` was built for `s.cluster` (LoadWorkload checks).
Result SimulateWorkload(const Scenario& s, const preflight::Workload& w, bool force = false,
                        StepTrace* trace = nullptr);

}  // namespace pf

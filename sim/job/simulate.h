// The pipeline: validated Scenario -> workload -> SimGrid -> Result.
#pragma once

#include "sim/proto/workload.pb.h"
#include "sim/job/result.h"

namespace pf {

// Memory verdict; when the job fits, builds the step's task graph, runs it
// on SimGrid and derives throughput, utilisation, breakdown, job time and
// cost. `force` simulates even a job that does not fit.
Result Simulate(const Scenario& s, bool force = false);

// The same from a given workload (e.g. one saved with --emit-workload).
Result SimulateWorkload(const Scenario& s, const preflight::Workload& w);

}  // namespace pf

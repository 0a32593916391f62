// Staging the dataset before training (job.stage_from), simulated on the
// cluster (workload/staging_emitter.h): the time the nodes wait, GPUs idle.
#pragma once

#include "sim/base/units.h"
#include "sim/spec/spec.h"

namespace pf {

// REQUIRES: s.job.stage_from set, s.data.size > 0 (validate.h checks).
Seconds SimulateStaging(const Scenario& s);

}  // namespace pf

#include "sim/job/staging.h"

#include "sim/engine/engine.h"
#include "sim/workload/staging_emitter.h"

namespace pf {

Seconds SimulateStaging(const Scenario& s) { return Seconds(RunWorkload(s, BuildStaging(s)).makespan_s); }

}  // namespace pf

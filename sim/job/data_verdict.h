// Why the input pipeline stalls the GPUs and what would stop it. The
// simulation measures the stall (breakdown.data_stall); this names its
// cause from each stage's throughput per data-parallel rank, in samples
// per second: storage bandwidth (the rank's share of its tier), request
// latency (requests one after another per worker), CPU (decode, augment,
// tokenise on the rank's share of the node's cores) and the copy to the
// GPU (its PCIe link). The slowest stage against what the GPUs consume is
// the bottleneck; each suggestion is a --set change that raises it.
#pragma once

#include <string>
#include <vector>

#include "sim/job/result.h"

namespace pf {

// REQUIRES: s.data.enabled and a simulated step.
DataVerdict JudgeData(const Scenario& s, const StepResult& step);

}  // namespace pf

// What the engine checks of each workload task before any of it runs: the
// GPUs, nodes and lanes it names exist, and its sizes and durations are
// ones SimGrid can take. Engine-internal; runner.cc calls it per task.
#pragma once

#include "sim/engine/platform.h"
#include "sim/proto/workload.pb.h"

namespace pf {

// The largest flow a run accepts (SimGrid payloads are 64-bit counts).
inline constexpr double kMaxFlowBytes = 1e18;

// Throws std::invalid_argument ("workload task i: ...") when task `t`, the
// workload's `i`-th, names a GPU or node `p` lacks, lanes that do not fit
// its GPUs, or a size or duration SimGrid cannot take.
void CheckTask(const preflight::Task& t, int i, const Platform& p);

// GPU `g` of `p`; throws std::invalid_argument when the cluster lacks it.
simgrid::s4u::Host* GpuOf(const Platform& p, uint64_t g);

}  // namespace pf

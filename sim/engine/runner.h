// One SimGrid run in the calling process: builds the cluster's platform and
// plays a workload's task graph on it (internal to sim/engine/; the rest of
// Preflight calls RunWorkload in engine.h). With platform.cc, the only code
// that touches SimGrid.
#pragma once

#include "sim/engine/engine.h"
#include "sim/proto/workload.pb.h"
#include "sim/spec/spec.h"

namespace pf {

// Creates a SimGrid engine with the neutral network model (CM02, no
// cross-traffic, no TCP window: shared/SIMGRID_NOTES.md), builds the platform
// of `s.cluster` and starts each task of `w` when its last dependency ends.
// Returns each task's start and end (simulated seconds, by task index), the
// makespan and the number of network flows simulated.
// REQUIRES: no SimGrid engine has been created in this process before
// (SimGrid 3.32 allows one per process lifetime); `w` was built for
// `s.cluster`. Throws std::invalid_argument, before anything runs, when a
// task depends on a later task, names a GPU the cluster lacks (on any of
// its lanes), has lanes that do not fit the cluster, or a size or duration
// that is negative or not finite, or a flow of more than 1e18 bytes; during
// the run when it keeps so many kernels and flows in flight at once that
// SimGrid would take minutes (the budget in runner.cc). Throws std::logic_error when a task never ran. Uses no
// recursion: a chain of any length of tasks with nothing to simulate ends
// at once.
TaskTimes RunOnSimGrid(const Scenario& s, const preflight::Workload& w);

}  // namespace pf

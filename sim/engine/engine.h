// Runs a workload's task graph on SimGrid and returns when each task started
// and ended. The public face of sim/engine/, whose files are the only code
// that touches SimGrid: runner.cc (task graph -> SimGrid activities),
// platform.cc (cluster -> SimGrid platform), isolated_run.cc (one SimGrid
// per process).
#pragma once

#include <vector>

#include "sim/proto/workload.pb.h"
#include "sim/spec/spec.h"

namespace pf {

// The environment variable that turns off the reductions that keep a
// simulation small where they are exact ("1": off): simulating lane 0 of
// TP ranks whose traffic shares no link, and one flow for a collective
// inside an NVSwitch node whose NVLink carries only that group. The
// exactness tests compare both ways.
inline constexpr char kFullSimulationEnv[] = "PREFLIGHT_FULL_SIMULATION";

// The most scans of its in-flight activities one run may make (SimGrid
// 3.32 removes a finished activity by a linear scan of those in flight,
// 10-100 ns each: about 2.5 minutes at the slowest rate measured; runner.cc
// stops a run past it, or past less for a small workload).
inline constexpr double kMaxInFlightScans = 1.5e9;

// The scans one run of `s` may make: kMaxInFlightScans at the default task
// budget, and as much more as --max-tasks raises that budget above its
// default (a user who accepts a graph twice as large accepts a run about
// twice as long).
double MaxInFlightScans(const Scenario& s);

struct TaskTimes {
  std::vector<double> start_s, end_s;  // by task index
  double makespan_s = 0;
  long long flows = 0;                 // network flows simulated
};

// Returns when each task of `w` started and ended on `s.cluster`, in
// simulated seconds, with the makespan and the number of network flows.
//
// SimGrid 3.32 allows one engine per process, so each call runs SimGrid in a
// fresh child process and reads its answer back; a program can simulate any
// number of workloads. With PREFLIGHT_IN_PROCESS=1 in the environment the
// call runs SimGrid in the calling process instead, so that a profiler, a
// debugger or coverage sees the engine; then only the first call in the
// process can simulate, and every later one throws std::runtime_error.
//
// REQUIRES: `w` was built for `s.cluster` (same GPU count) and its deps
// precede their dependents. Throws std::invalid_argument otherwise, and
// std::runtime_error when the run fails for another reason (a bug, or the
// child process died: the message says how).
TaskTimes RunWorkload(const Scenario& s, const preflight::Workload& w);

}  // namespace pf

// How large the simulation of one step will be, from the scenario alone,
// before anything is built: an upper bound on the task graph's size (it
// mirrors what the emitters add) and what that costs in memory and time on
// this class of machine. Used to refuse a step past the budget with a
// message saying what to reduce, and to warn on stderr before a long run.
#pragma once

#include <string>

#include "sim/spec/spec.h"

namespace pf {

struct SimulationSize {
  double tasks = 0;          // tasks in the step's graph (upper bound)
  double memory_bytes = 0;   // peak resident memory of building and running it
  double seconds = 0;        // wall time on one core of a 2-core machine
  double scans = 0;          // SimGrid's scans of the activities in flight (engine.h kMaxInFlightScans)
  std::string driver;        // what makes it large, as the fix to suggest
};

// REQUIRES: Validate(s) found no problem.
SimulationSize EstimateSimulationSize(const Scenario& s);

}  // namespace pf

// Runs a workload's task graph on SimGrid and returns when each task started
// and ended. With platform.cc, the only code that touches SimGrid.
#pragma once

#include <vector>

#include "sim/proto/workload.pb.h"
#include "sim/spec/spec.h"

namespace pf {

struct TaskTimes {
  std::vector<double> start_s, end_s;  // by task index
  double makespan_s = 0;
  long long flows = 0;                 // network flows simulated
};

// REQUIRES: `w` was built for `s.cluster` (same GPU count) and its deps
// precede their dependents. Throws std::invalid_argument otherwise.
TaskTimes RunWorkload(const Scenario& s, const preflight::Workload& w);

}  // namespace pf

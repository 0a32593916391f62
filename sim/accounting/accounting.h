// Where each GPU's step time went, from the simulated task times: compute,
// optimizer, exposed communication by kind, pipeline bubble, idle.
#pragma once

#include "sim/proto/workload.pb.h"
#include "sim/engine/engine.h"
#include "sim/accounting/breakdown.h"

namespace pf {

// Walks each worker's compute tasks in time order. A gap before a task is
// charged to the dependency that ended last: if that is a communication
// task, the part of the gap its transfer covers is exposed communication of
// its kind, and the part before it started is pipeline bubble (a pipeline
// send: waiting for another stage) or idle. The tail after a worker's last
// task is charged the same way to the communication it takes part in that
// ends last, the rest to bubble (pp > 1) or idle. Compute tasks that
// overlap on one GPU count once (the union of its busy time), so the parts
// add up to the makespan. Averaged over workers and GPUs with compute.
// REQUIRES: `t` holds times for every task of `w` (else
// std::invalid_argument) and each task's deps precede it (likewise).
Breakdown AccountTime(const preflight::Workload& w, const TaskTimes& t, bool pipelined);

}  // namespace pf

// Scenario -> the task graph of one training step (preflight.Workload):
// forward/backward compute per micro-batch per pipeline stage on a 1F1B
// schedule, tensor-parallel collectives, pipeline sends, data-parallel
// gradient reduction in buckets (overlapped with the last backward when
// parallel.dp_overlap), ZeRO 1-3 gathers and scatters, optimizer step.
// Each part is an emitter of its own (stage_emitter.h, data_parallel.h,
// pipeline.h) adding tasks to one TaskGraph (task_graph.h); the rank
// layout is in rank_layout.h. No SimGrid.
#pragma once

#include "sim/proto/workload.pb.h"
#include "sim/spec/spec.h"

namespace pf {

// REQUIRES: Validate(s) found no problem (sim/spec/validate.h). Throws
// InputError, naming what to reduce, when the graph would exceed
// s.max_tasks tasks (EstimateSimulationSize).
preflight::Workload BuildWorkload(const Scenario& s);
// The same into `w` (empty), whose tasks go on w's arena: a step of 10^5
// tasks builds and frees several times faster on one (sim/job/simulate.cc).
void BuildWorkload(const Scenario& s, preflight::Workload& w);
// An arena for that: blocks of up to 4 MB (protobuf's default stops at
// 8 kB; a step of 10^5 tasks takes tens of MB).
google::protobuf::ArenaOptions WorkloadArenaOptions();

}  // namespace pf

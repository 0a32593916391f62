// Scenario -> the task graph of one training step (preflight.Workload):
// forward/backward compute per micro-batch per pipeline stage on a 1F1B
// schedule, tensor-parallel collectives, pipeline sends, data-parallel
// gradient reduction in buckets (overlapped with the last backward when
// parallel.dp_overlap), ZeRO 1-3 gathers and scatters, optimizer step.
// Compute durations come from the roofline (compute_model.h). No SimGrid.
//
// Rank layout (Megatron order): GPU = t + tp * (d + dp * p) for TP rank t,
// DP rank d, stage p. The TP ranks of a group do identical work in lock
// step, so only TP rank 0 (the group's "worker") carries compute tasks;
// TP collectives span the whole group, and pipeline sends and DP
// collectives are issued once with lanes = tp.
#pragma once

#include "sim/proto/workload.pb.h"
#include "sim/spec/spec.h"

namespace pf {

preflight::Workload BuildWorkload(const Scenario& s);

// Global GPU index of (tp rank, dp rank, stage).
int GpuIndex(const ParallelSpec& p, int t, int d, int stage);

}  // namespace pf

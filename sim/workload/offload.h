// ZeRO-Offload's optimizer step (Ren et al. 2021; DeepSpeed
// offload_optimizer), replacing the GPU's Adam: the worker's gradient shard
// goes to host memory over its PCIe path, DeepSpeed's CPU Adam updates it
// on the node's cores (shared by the node's GPUs), and the updated 16-bit
// parameters come back. With ZeRO-Infinity's NVMe offload the optimizer
// states are read from and written back to the node's local NVMe tier
// around the update, one after another. The GPU waits for all of it
// before its next step; the breakdown counts the wait as optimizer time.
#pragma once

#include "sim/spec/spec.h"
#include "sim/workload/task_graph.h"

namespace pf {

// The first and the last task of a chain.
struct TaskSpan {
  int first = kNoTask, last = kNoTask;
};

// The chain for the worker on `gpu` updating `params` parameters (its
// shard, per TP rank). REQUIRES: s.parallel.offload != kNone.
TaskSpan EmitOffloadedStep(TaskGraph& g, const Scenario& s, int gpu, double params);

// Seconds of one reference core (topologies/cpus.yaml) per parameter for
// DeepSpeed's CPU Adam.
double CpuAdamSecondsPerParam();

}  // namespace pf

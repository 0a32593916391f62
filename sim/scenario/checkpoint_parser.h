// YAML -> spec for a scenario's `checkpoint:` section: the tier, the
// interval (a duration, or a number of steps) and sync or async writes.
// Whether the tier exists is checked with the whole scenario
// (spec/validate.h).
#pragma once

#include "sim/scenario/yaml_view.h"
#include "sim/spec/spec.h"

namespace pf {

CheckpointSpec ParseCheckpoint(const YamlView& v);

// The `interruptions:` section: gpu_mtbf_hours (default: the Llama 3
// pre-training run's), preemptions_per_hour (default 0), restart (default
// 10 min).
// node_mtbf_hours instead states failures per node (of `gpus_per_node`).
InterruptionSpec ParseInterruptions(const YamlView& v, int gpus_per_node);

// Llama 3's hardware failure rate: 419 unexpected interruptions in a 54-day
// snapshot of pre-training on 16,384 H100 GPUs (Dubey et al. 2024, "The
// Llama 3 Herd of Models", Sec. 3.3.4): one per 3.09 h for the job, one per
// 50,675 h for each GPU.
inline constexpr double kLlama3GpuMtbfHours = 54.0 * 24 * 16384 / 419;

}  // namespace pf

// The checks of a scenario's training section against the GPU, the
// training stack and the layout; Validate (validate.h) runs them after the
// layout's own. Each returns the first problem it finds, or nullopt.
#pragma once

#include <optional>

#include "sim/spec/spec.h"
#include "sim/spec/validate.h"

namespace pf {

// The precision, attention kernel, sequence, LoRA and data-format settings
// against the model and the GPU.
std::optional<SpecError> CheckTrainingOnHardware(const Scenario& s);

// training.launch_blocking where a collective would overlap the compute
// (dp: the DP ranks, resolved where dp_auto).
std::optional<SpecError> CheckLaunchBlocking(const Scenario& s, int dp);

// What each training stack can run.
std::optional<SpecError> CheckTrainingStack(const Scenario& s);

}  // namespace pf

// One simulated step as a Chrome trace-event JSON file (chrome://tracing,
// ui.perfetto.dev): a process per worker GPU (pipeline stage and data-
// parallel rank in its name) whose first track holds its kernels and, in
// the gaps between them, what it waited for (bubble, a collective, a send,
// data); further tracks hold the communication and input-pipeline tasks it
// takes part in, spread so that no two events of a track overlap; a process
// per node holds its CPU's dataloader and optimizer work. Times are in
// microseconds from the step's start; the events span the step.
#pragma once

#include <string>

#include "sim/job/result.h"

namespace pf {

std::string RenderTrace(const Scenario& s, const StepTrace& t);

}  // namespace pf

// The last check before a result is printed: every figure a report shows is
// finite and in its range. A figure out of range is a bug in Preflight, not
// bad input (input is checked on the way in: scenario validation, workload
// files), so the check throws std::logic_error, which `simulate` reports as
// an internal error (exit status 3).
#pragma once

#include "sim/job/result.h"

namespace pf {

// Throws std::logic_error naming the first figure of `r` out of range and
// its value, e.g. "result check: mfu = 4.8e+17, outside [0, 1]". Ranges:
// memory parts and total finite and >= 0, capacity finite and > 0, each
// suggestion's bytes finite and >= 0; with a step: step time finite and
// > 0, tokens per step and tokens/s finite and > 0, 0 <= MFU <= HFU <= 1,
// scaling efficiency in [0, 1], breakdown parts finite and >= 0 and adding
// up to the step time within 1e-6 relative, steps >= 1, wall clock finite
// and > 0, cost (when priced) finite and >= 0, tasks >= 1, flows >= 0.
// Upper bounds of 1 allow 1e-9 for rounding.
void CheckResult(const Result& r);

}  // namespace pf

// Numbers as the reports print them: durations in the unit that reads
// best, counts with SI suffixes, a 90% interval after a figure.
#pragma once

#include <functional>
#include <string>

#include "sim/base/units.h"
#include "sim/job/intervals.h"
#include "sim/spec/spec.h"

namespace pf {

std::string Duration(Seconds t);  // "12.3 ms", "4.20 s", "3.1 min", "5.0 h", "4.1 days"
std::string Count(double x);      // "1.50 B", "262.1 K"
// The layers on each pipeline stage, runs written once: "7, 8 x 14, 7";
// empty when every stage holds the same.
std::string StageSplit(const ModelSpec& m, const ParallelSpec& p);
// "[p05 - p95, 90%]", each end printed by `show`.
std::string Within(const Spread& s, const std::function<std::string(double)>& show);
// "[p05 - p95]" (under a heading that says 90%).
std::string Range(const Spread& s, const std::function<std::string(double)>& show);

}  // namespace pf

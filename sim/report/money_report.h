// The job's money in the reports: the job block's start-up, staging,
// evaluation and cost lines; the table of pricing modes (wall clock, cost
// and cost per billion tokens, each with its 90% interval); the bill line
// by line; and the same in JSON.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/job/result.h"

namespace pf {

// REQUIRES: r.step.
void JobLines(std::string& o, const Result& r);
void MoneyTables(std::string& o, const Result& r);
// {"startup_s", "staging_s", "eval_s", "wall_clock_s_p05", ..., "cost_usd_p05", ..., "bill", "modes"}.
nlohmann::json MoneyJson(const Result& r);

}  // namespace pf

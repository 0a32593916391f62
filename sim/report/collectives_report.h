// `simulate collectives` output: an nccl-tests-style table, or JSON
// {"rows": [{"size_bytes", "time_s", "algbw_gbps", "busbw_gbps", ...}]}.
#pragma once

#include <string>

#include "sim/job/collectives_bench.h"

namespace pf {

std::string RenderCollectivesText(const CollectiveBench& b, const std::vector<CollectiveBenchRow>& rows);
std::string RenderCollectivesJson(const CollectiveBench& b, const std::vector<CollectiveBenchRow>& rows);

}  // namespace pf

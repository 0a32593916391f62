#include "sim/report/collectives_report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace pf {

namespace {
// nccl-tests counts elements of the data type: float (4 bytes) by default.
constexpr double kTypeBytes = 4;
}  // namespace

std::string RenderCollectivesText(const CollectiveBench& b, const std::vector<CollectiveBenchRow>& rows) {
  std::string out = fmt::format(
      "# {} on {} GPUs ({} node(s) of {}: {} x {}), algorithm {}, simulated on SimGrid\n"
      "# GB/s = 1e9 bytes/s; busbw as nccl-tests defines it\n",
      Name(b.kind), b.gpus, b.cluster.nodes, b.cluster.node.name, b.cluster.node.gpus_per_node,
      b.cluster.node.gpu.name, b.algorithm ? Name(*b.algorithm) : "as NCCL's tuner picks");
  out += fmt::format("{:>14} {:>12} {:>6} {:>12} {:>8} {:>8}  {:<5} {:<6}\n", "size (B)", "count", "type",
                     "time (us)", "algbw", "busbw", "algo", "proto");
  for (const auto& r : rows)
    out += fmt::format("{:>14.0f} {:>12.0f} {:>6} {:>12.2f} {:>8.2f} {:>8.2f}  {:<5} {:<6}\n", r.size_bytes,
                       r.size_bytes / kTypeBytes, "float", r.time_s * 1e6, r.algbw_gbps, r.busbw_gbps,
                       Name(r.algorithm), Name(r.protocol));
  return out;
}

std::string RenderCollectivesJson(const CollectiveBench& b, const std::vector<CollectiveBenchRow>& rows) {
  nlohmann::json j;
  j["op"] = Name(b.kind);
  j["gpus"] = b.gpus;
  j["nodes"] = b.cluster.nodes;
  j["node"] = b.cluster.node.name;
  j["rows"] = nlohmann::json::array();
  for (const auto& r : rows)
    j["rows"].push_back({{"size_bytes", r.size_bytes},
                         {"time_s", r.time_s},
                         {"algbw_gbps", r.algbw_gbps},
                         {"busbw_gbps", r.busbw_gbps},
                         {"algorithm", Name(r.algorithm)},
                         {"protocol", Name(r.protocol)}});
  return j.dump(2) + "\n";
}

}  // namespace pf

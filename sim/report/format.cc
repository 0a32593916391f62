#include "sim/report/format.h"

#include <fmt/format.h>

#include <utility>
#include <vector>

namespace pf {

std::string Duration(Seconds t) {
  double s = t.value();
  if (s < 1) return fmt::format("{:.1f} ms", s * 1e3);
  if (s < 120) return fmt::format("{:.2f} s", s);
  if (s < 2 * 3600) return fmt::format("{:.1f} min", s / 60);
  if (s < 3 * 86400) return fmt::format("{:.1f} h", s / 3600);
  return fmt::format("{:.1f} days", s / 86400);
}

std::string Count(double x) {
  if (x >= 1e12) return fmt::format("{:.2f} T", x / 1e12);
  if (x >= 1e9) return fmt::format("{:.2f} B", x / 1e9);
  if (x >= 1e6) return fmt::format("{:.2f} M", x / 1e6);
  if (x >= 1e3) return fmt::format("{:.1f} K", x / 1e3);
  return fmt::format("{:.0f}", x);
}

std::string Range(const Spread& s, const std::function<std::string(double)>& show) {
  return "[" + show(s.p05) + " - " + show(s.p95) + "]";
}

std::string Within(const Spread& s, const std::function<std::string(double)>& show) {
  return "[" + show(s.p05) + " - " + show(s.p95) + ", 90%]";
}

std::string StageSplit(const ModelSpec& m, const ParallelSpec& p) {
  std::vector<std::pair<int, int>> runs;  // (layers, stages)
  for (int stage = 0; stage < p.pp; ++stage) {
    const int n = LayersOfStage(m, p, stage);
    if (!runs.empty() && runs.back().first == n) ++runs.back().second;
    else runs.push_back({n, 1});
  }
  if (runs.size() <= 1) return "";
  std::string out;
  for (const auto& [n, stages] : runs)
    out += fmt::format("{}{}{}", out.empty() ? "" : ", ", n, stages > 1 ? fmt::format(" x {}", stages) : "");
  return out;
}

}  // namespace pf

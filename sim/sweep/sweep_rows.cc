#include "sim/sweep/sweep_rows.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/base/error.h"
#include "sim/job/simulate.h"
#include "sim/model/memory_model.h"
#include "sim/scenario/scenario_loader.h"

namespace pf {
namespace {

using nlohmann::json;

// The figures after the grid's columns, in this order.
const std::vector<std::string>& MetricNames() {
  static const std::vector<std::string> names = {
      "fits",         "per_gpu_gib",  "spare_gib",  "observed_gib", "host_gib",     "step_time_s",
      "tokens_per_s", "mfu",          "hfu",        "scaling_efficiency",          "wall_clock_s", "cost_usd",
      "compute_s",    "optimizer_s",  "tp_comm_s",  "pp_comm_s",    "dp_comm_s",    "io_s",
      "bubble_s",     "idle_s",       "data_stall_s", "ep_comm_s",  "cp_comm_s",    "host_wait_s"};
  return names;
}

struct Row {
  std::string status = "ok";  // ok, does_not_fit, rejected, error
  std::string reason;
  std::vector<std::optional<double>> metrics = std::vector<std::optional<double>>(MetricNames().size());
  // Sets the figure of column `name` (one of MetricNames()).
  void Set(const std::string& name, double value) {
    const auto& names = MetricNames();
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) throw std::logic_error("sweep: no column " + name);
    metrics[it - names.begin()] = value;
  }
};

Row Evaluate(const std::string& path, std::vector<std::string> sets, const std::vector<std::string>& point) {
  Row row;
  sets.insert(sets.end(), point.begin(), point.end());
  try {
    const Result r = Simulate(LoadScenario(path, sets));
    row.Set("fits", r.memory.fits && r.host.fits ? 1 : 0);
    row.Set("per_gpu_gib", r.memory.total.value() / kGiB);
    // The headroom the report's verdict states, where the job fits, and
    // what nvidia-smi would show (the total and the allocator's cache).
    if (r.memory.fits) row.Set("spare_gib", Spare(r.memory).value() / kGiB);
    row.Set("observed_gib", r.memory.observed.value() / kGiB);
    row.Set("host_gib", r.host.total.value() / kGiB);
    if (!r.step) {
      row.status = "does_not_fit";
      row.reason = !r.memory.fits ? fmt::format("needs {:.1f} GiB of GPU memory per GPU, has {:.1f}",
                                                r.memory.total.value() / kGiB, r.memory.capacity.value() / kGiB)
                                  : fmt::format("needs {:.0f} GiB of host memory per node, has {:.0f}",
                                                r.host.total.value() / kGiB, r.host.capacity.value() / kGiB);
      return row;
    }
    const StepResult& st = *r.step;
    const Breakdown& b = st.breakdown;
    row.Set("step_time_s", st.step_time.value());
    row.Set("tokens_per_s", st.tokens_per_s);
    row.Set("mfu", st.mfu);
    row.Set("hfu", st.hfu);
    row.Set("scaling_efficiency", st.scaling_efficiency);
    row.Set("wall_clock_s", st.wall_clock.value());
    if (st.cost) row.Set("cost_usd", st.cost->value());
    const std::pair<const char*, Seconds> parts[] = {
        {"compute_s", b.compute},   {"optimizer_s", b.optimizer}, {"tp_comm_s", b.tp_comm},
        {"pp_comm_s", b.pp_comm},   {"dp_comm_s", b.dp_comm},     {"io_s", b.io},
        {"bubble_s", b.bubble},     {"idle_s", b.idle},           {"data_stall_s", b.data_stall},
        {"ep_comm_s", b.ep_comm},   {"cp_comm_s", b.cp_comm},     {"host_wait_s", b.host_wait}};
    for (const auto& [name, seconds] : parts) row.Set(name, seconds.value());
  } catch (const InputError& e) {
    row.status = "rejected";
    row.reason = e.message();
    if (!e.key().empty()) row.reason = e.key() + ": " + row.reason;
  } catch (const std::invalid_argument& e) {
    row.status = "rejected";
    row.reason = e.what();
  } catch (const std::exception& e) {
    row.status = "error";
    row.reason = e.what();
  }
  return row;
}

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string Csv(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c == '\n' || c == '\r' ? ' ' : c);
  return out + "\"";
}

std::string Number(double x) { return fmt::format("{:.6g}", x); }

}  // namespace

namespace {

std::string Format(const Row& row, const Grid& grid, long long i, SweepFormat format) {
  const std::vector<std::string> values = grid.Values(i);
  if (format == SweepFormat::kJsonl) {
    json j;
    j["point"] = i;
    for (size_t k = 0; k < values.size(); ++k) j[grid.axes[k].key] = values[k];
    j["status"] = row.status;
    j["reason"] = row.reason;
    for (size_t k = 0; k < MetricNames().size(); ++k)
      j[MetricNames()[k]] = row.metrics[k] ? json(*row.metrics[k]) : json(nullptr);
    return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  }
  std::string line = std::to_string(i);
  for (const std::string& v : values) line += "," + Csv(v);
  line += "," + row.status + "," + Csv(row.reason);
  for (const auto& m : row.metrics) line += "," + (m ? Number(*m) : std::string());
  return line + "\n";
}

}  // namespace

std::string EvaluatePoint(const std::string& path, const std::vector<std::string>& sets, const Grid& grid,
                          long long i, SweepFormat format, bool* simulated) {
  const Row row = Evaluate(path, sets, grid.Overrides(i));
  if (simulated) *simulated = row.status == "ok";
  return Format(row, grid, i, format);
}

std::string ErrorRow(const Grid& grid, long long i, SweepFormat format, const std::string& reason) {
  Row row;
  row.status = "error";
  row.reason = reason;
  return Format(row, grid, i, format);
}

std::string SweepHeader(const std::string& signature, const Grid& grid, const Shard& shard, SweepFormat format) {
  std::vector<std::string> keys;
  for (const GridAxis& a : grid.axes) keys.push_back(a.key);
  if (format == SweepFormat::kJsonl) {
    json j = {{"preflight_sweep", signature}, {"points", grid.points()},
              {"shard", fmt::format("{}/{}", shard.index, shard.count)}, {"keys", keys}};
    return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  }
  std::string out = fmt::format("# preflight sweep {} points={} shard={}/{}\n", signature, grid.points(), shard.index,
                                shard.count);
  out += "point";
  for (const std::string& k : keys) out += "," + Csv(k);
  out += ",status,reason";
  for (const std::string& m : MetricNames()) out += "," + m;
  return out + "\n";
}

long long PointOfRow(const std::string& line, SweepFormat format) {
  if (format == SweepFormat::kJsonl) {
    const json j = json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("point") || !j["point"].is_number_integer()) return -1;
    return j["point"].get<long long>();
  }
  size_t end = 0;
  while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end]))) ++end;
  if (end == 0 || end > 18 || end >= line.size() || line[end] != ',') return -1;
  return std::stoll(line.substr(0, end));
}

std::string RowProblem(const std::string& line, SweepFormat format) {
  const std::vector<std::string> metrics = MetricNames();
  auto known = [](const std::string& s) { return s == "ok" || s == "does_not_fit" || s == "rejected" || s == "error"; };
  auto figure = [](double v) { return std::isfinite(v) && v >= 0; };
  if (format == SweepFormat::kJsonl) {
    const json j = json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("status") || !j["status"].is_string() || !known(j["status"].get<std::string>()))
      return "has no status Preflight writes (ok, does_not_fit, rejected, error)";
    for (const std::string& m : metrics)
      if (j.contains(m) && !j[m].is_null() && !(j[m].is_number() && figure(j[m].get<double>())))
        return m + " is not a finite number >= 0";
    return "";
  }
  // CSV: fields split at commas outside double quotes ("" inside them).
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t k = 0; k < line.size(); ++k) {
    const char c = line[k];
    if (c == '"') {
      if (quoted && k + 1 < line.size() && line[k + 1] == '"') fields.back() += '"', ++k;
      else quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else if (c != '\n' && c != '\r') {
      fields.back() += c;
    }
  }
  if (fields.size() < metrics.size() + 3) return "has too few columns";
  const size_t first = fields.size() - metrics.size();
  if (!known(fields[first - 2])) return "has no status Preflight writes (ok, does_not_fit, rejected, error)";
  for (size_t k = first; k < fields.size(); ++k) {
    if (fields[k].empty()) continue;
    char* end = nullptr;
    const double v = std::strtod(fields[k].c_str(), &end);
    if (end != fields[k].c_str() + fields[k].size() || !figure(v))
      return metrics[k - first] + " \"" + fields[k].substr(0, 40) + "\" is not a finite number >= 0";
  }
  return "";
}

namespace {

Shard ShardOfHeader(const std::string& text) {
  Shard s;
  long long k = 0, n = 0;
  char end = 0;
  if (std::sscanf(text.c_str(), "%lld/%lld%c", &k, &n, &end) == 2 && n >= 1 && k >= 0 && k < n) s = {k, n};
  return s;
}

}  // namespace

SweepIdentity IdentityOfHeader(const std::string& first_line, SweepFormat format) {
  SweepIdentity id;
  if (format == SweepFormat::kJsonl) {
    const json j = json::parse(first_line, nullptr, false);
    if (j.is_object() && j.contains("preflight_sweep") && j["preflight_sweep"].is_string() && j.contains("points") &&
        j["points"].is_number_integer())
      id = {j["preflight_sweep"].get<std::string>(), j["points"].get<long long>(), Shard{}};
    if (j.is_object() && j.contains("shard") && j["shard"].is_string()) id.shard = ShardOfHeader(j["shard"].get<std::string>());
    return id;
  }
  std::istringstream in(first_line);
  std::string hash, word, sig, points, shard;
  if (in >> hash >> word >> word >> sig >> points && hash == "#" && points.rfind("points=", 0) == 0)
    id = {sig, std::atoll(points.c_str() + 7), Shard{}};
  if (in >> shard && shard.rfind("shard=", 0) == 0) id.shard = ShardOfHeader(shard.substr(6));
  return id;
}

}  // namespace pf

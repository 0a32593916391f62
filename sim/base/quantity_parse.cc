#include "sim/base/quantity_parse.h"

#include <cctype>
#include <cstdio>
#include <cmath>
#include <regex>
#include <cstdlib>
#include <utility>

#include "sim/base/error.h"
#include "sim/base/units.h"

namespace pf {
namespace {

using UnitTable = std::vector<std::pair<std::string, double>>;

const UnitTable& Units(Dimension dim) {
  static const UnitTable bytes = {
      {"B", 1},          {"KB", kKilo},      {"kB", kKilo},      {"MB", kMega},      {"GB", kGiga},
      {"TB", kTera},     {"PB", 1e15},       {"KiB", kKiB},      {"MiB", kMiB},
      {"GiB", kGiB},     {"TiB", kTiB}};
  static const UnitTable seconds = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1},
                                    {"min", 60},  {"h", 3600},  {"d", 86400}};
  static const UnitTable rate = {
      {"B/s", 1},          {"KB/s", kKilo},      {"kB/s", kKilo},      {"kbps", kKilo / 8},      {"MB/s", kMega},      {"GB/s", kGiga},
      {"TB/s", kTera},     {"MiB/s", kMiB},      {"GiB/s", kGiB},      {"bps", 1 / 8.0},
      {"Kbps", kKilo / 8}, {"Mbps", kMega / 8},  {"Gbps", kGiga / 8},  {"Tbps", kTera / 8},
      {"Mb/s", kMega / 8}, {"Gb/s", kGiga / 8},  {"Tb/s", kTera / 8}};
  static const UnitTable flops = {{"FLOP/s", 1},         {"GFLOP/s", kGiga},
                                  {"TFLOP/s", kTera},    {"PFLOP/s", 1e15},
                                  {"TFLOPS", kTera},     {"PFLOPS", 1e15}};
  static const UnitTable usd = {{"USD", 1}};
  static const UnitTable count = {{"", 1}, {"K", 1e3}, {"M", 1e6}, {"B", 1e9}, {"G", 1e9},
                                  {"T", 1e12}};
  switch (dim) {
    case Dimension::kBytes: return bytes;
    case Dimension::kSeconds: return seconds;
    case Dimension::kBytesPerSecond: return rate;
    case Dimension::kFlopsPerSecond: return flops;
    case Dimension::kUsd: return usd;
    case Dimension::kCount: return count;
  }
  return count;
}

const char* Example(Dimension dim) {
  switch (dim) {
    case Dimension::kBytes: return "80GiB";
    case Dimension::kSeconds: return "2us";
    case Dimension::kBytesPerSecond: return "200GB/s or 400Gbps";
    case Dimension::kFlopsPerSecond: return "312TFLOP/s";
    case Dimension::kUsd: return "16USD";
    case Dimension::kCount: return "500M";
  }
  return "";
}

}  // namespace

const char* DimensionName(Dimension dim) {
  switch (dim) {
    case Dimension::kBytes: return "a size";
    case Dimension::kSeconds: return "a time";
    case Dimension::kBytesPerSecond: return "a bandwidth";
    case Dimension::kFlopsPerSecond: return "a compute rate";
    case Dimension::kUsd: return "a price";
    case Dimension::kCount: return "a count";
  }
  return "";
}

QuantityRange PhysicalRange(Dimension dim) {
  switch (dim) {
    // A byte up to a petabyte (the largest GPU or host memory is ~2 TB).
    case Dimension::kBytes: return {1, 1e15};
    // A nanosecond up to a day (link latencies are microseconds).
    case Dimension::kSeconds: return {1e-9, 86400};
    // 1 kbit/s up to 100 TB/s (NVLink 5 is 0.9 TB/s per direction).
    case Dimension::kBytesPerSecond: return {125, 1e14};
    // 1 GFLOP/s up to 100 PFLOP/s per GPU (B200 fp8 dense is 4.5 PFLOP/s).
    case Dimension::kFlopsPerSecond: return {1e9, 1e17};
    // From a hundredth of a cent (a thousand object-store reads) up to a
    // million (a node-hour of anything, a job's budget in --budget).
    case Dimension::kUsd: return {1e-4, 1e6};
    // Up to 1e16 (tokens: the largest published runs train on ~1.5e13).
    case Dimension::kCount: return {1, 1e16};
  }
  return {0, 0};
}

std::string FormatQuantity(double value, Dimension dim) {
  char buf[64];
  if (dim == Dimension::kCount) {
    std::snprintf(buf, sizeof buf, "%g", value);
    return buf;
  }
  // The largest unit not above the value (the smallest unit below them all).
  const std::string* unit = nullptr;
  double scale = 0;
  for (const auto& [name, factor] : Units(dim))
    if (factor <= value * (1 + 1e-12) && factor > scale) unit = &name, scale = factor;
  if (!unit)
    for (const auto& [name, factor] : Units(dim))
      if (!unit || factor < scale) unit = &name, scale = factor;
  std::snprintf(buf, sizeof buf, "%g%s", value / scale, unit->c_str());
  return buf;
}

std::vector<std::string> AcceptedUnits(Dimension dim) {
  std::vector<std::string> out;
  for (const auto& [name, _] : Units(dim))
    if (!name.empty()) out.push_back(name);
  return out;
}

ParsedQuantity ParseQuantity(const std::string& raw, Dimension dim) {
  std::string text;
  for (char c : raw)
    if (!std::isspace(static_cast<unsigned char>(c))) text += c;
  // A plain decimal number (no hex, nan or inf), then the unit.
  static const std::regex kNumber(R"(^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)");
  std::smatch match;
  const char* begin = text.c_str();
  char* end = nullptr;
  double number = 0;
  if (std::regex_search(text, match, kNumber)) {
    number = std::strtod(match.str(0).c_str(), nullptr);
    end = const_cast<char*>(begin) + match.length(0);
  } else {
    end = const_cast<char*>(begin);
  }
  if (end == begin || !std::isfinite(number)) {
    return {std::nullopt, "\"" + Shown(raw) + "\" is not " + DimensionName(dim) +
                              " (expected a number with a unit, e.g. " + Example(dim) + ")"};
  }
  std::string unit(end);
  if (unit.empty()) {
    if (dim == Dimension::kCount || number == 0) return {number, ""};
    std::string units;
    for (const auto& u : AcceptedUnits(dim)) units += (units.empty() ? "" : ", ") + u;
    return {std::nullopt, "\"" + Shown(raw) + "\": missing unit (" + DimensionName(dim) + " needs one of: " + units + ")"};
  }
  for (const auto& [name, scale] : Units(dim))
    if (name == unit) return {number * scale, ""};
  return {std::nullopt, "\"" + Shown(raw) + "\": unknown unit \"" + Shown(unit) + "\" for " + DimensionName(dim) +
                            SuggestionSuffix(unit.substr(0, 64), AcceptedUnits(dim), /*case_sensitive=*/true)};
}

}  // namespace pf

#include "sim/base/csv.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "sim/base/error.h"

namespace pf {
namespace {

std::vector<std::string> Split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  for (std::string f; std::getline(ss, f, ',');) out.push_back(f);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

}  // namespace

std::vector<CsvRow> ReadCsv(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) throw InputError({path}, "", "cannot read a CSV header");
  const std::vector<std::string> header = Split(line);
  std::vector<CsvRow> rows;
  for (int n = 2; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    const std::vector<std::string> fields = Split(line);
    if (fields.size() > header.size())
      throw InputError({path, n, 1}, "", std::to_string(fields.size()) + " fields, header has " +
                                             std::to_string(header.size()));
    CsvRow row;
    for (size_t i = 0; i < fields.size(); ++i) row[header[i]] = fields[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

double CsvNumber(const CsvRow& row, const std::string& column, const std::string& path) {
  auto it = row.find(column);
  const std::string text = it == row.end() ? "" : it->second;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v))
    throw InputError({path}, column, "\"" + text + "\" is not a number");
  return v;
}

}  // namespace pf

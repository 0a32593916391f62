// A small reader for the comma-separated measurement tables in tests/data/
// (published figures with their sources): a header row, then one record per
// line, no quoted fields.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace pf {

using CsvRow = std::map<std::string, std::string>;  // column name -> field

// Rows of the table at `path`, by column name. Throws InputError naming the
// file when it cannot be read or a row has more fields than the header.
std::vector<CsvRow> ReadCsv(const std::string& path);

// The field as a number; throws InputError naming file, column and value.
double CsvNumber(const CsvRow& row, const std::string& column, const std::string& path);

}  // namespace pf

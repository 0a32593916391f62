// One sweep point simulated, as a row: its number, its grid values, what
// became of it (simulated, does not fit, rejected by validation, or an
// internal error, each with the reason) and the headline figures. Rows are
// written as CSV (a "# preflight sweep ..." line, a header, one line per
// point) or JSON lines (a header object, one object per point); a file's
// first line names the sweep so that merges and resumes refuse another's.
#pragma once

#include <string>
#include <vector>

#include "sim/sweep/grid.h"

namespace pf {

enum class SweepFormat { kCsv, kJsonl };

// The whole line of point `i` (with its trailing newline): the scenario at
// `path` with `sets` and the point's overrides, simulated. Never throws for
// a point's own fault: a point that does not load, validate or fit is a row
// saying why.
std::string EvaluatePoint(const std::string& path, const std::vector<std::string>& sets, const Grid& grid,
                          long long i, SweepFormat format, bool* simulated = nullptr);

// The row of a point whose evaluation itself failed (its worker died):
// status "error" with `reason`.
std::string ErrorRow(const Grid& grid, long long i, SweepFormat format, const std::string& reason);

// The file's first lines (with newlines): what the sweep is, and (CSV) the
// column names.
std::string SweepHeader(const std::string& signature, const Grid& grid, const Shard& shard, SweepFormat format);

// The point number a row line starts with (-1 when the line is not a row).
long long PointOfRow(const std::string& line, SweepFormat format);

// What is wrong with a row read back from a results file (--resume, merge):
// an unknown status, or a figure that is not a finite number >= 0 (an
// edited or damaged file); empty when the row is one Preflight writes.
std::string RowProblem(const std::string& line, SweepFormat format);

// The sweep signature, point count and shard a file's first line names
// (empty signature when it is not a sweep file; shard 0/1 when the line
// names none that can be read).
struct SweepIdentity {
  std::string signature;
  long long points = 0;
  Shard shard;
};
SweepIdentity IdentityOfHeader(const std::string& first_line, SweepFormat format);

}  // namespace pf

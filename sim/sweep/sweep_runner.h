// Runs a sweep: every point of a grid (or of one shard of it) simulated by
// `jobs` long-lived worker processes, each result written and flushed in
// point order as soon as every point before it is in (so the file is the
// same whatever the number of jobs, and an interrupted file is a prefix of
// the whole one); `resume` checks that the file is this sweep's, drops a
// truncated last line and runs only the points it lacks. Merging joins
// shard files of one sweep into the file the whole sweep would have
// written. Bad input (an unknown grid key, a file of another sweep)
// throws InputError before any output file is touched.
#pragma once

#include <string>
#include <vector>

#include "sim/sweep/grid.h"
#include "sim/sweep/sweep_rows.h"

namespace pf {

struct SweepOptions {
  std::string scenario;
  std::vector<std::string> sets;  // --set flags applied to every point
  Grid grid;
  Shard shard;
  SweepFormat format = SweepFormat::kCsv;
  std::string output;             // the results file
  int jobs = 1;
  bool resume = false;
  bool progress = false;          // draw a progress bar on stderr
};

struct SweepSummary {
  long long points = 0;        // in this shard
  long long already = 0;       // found in the file when resuming
  long long simulated = 0;     // run now
  long long infeasible = 0;    // of those, rows that are not "ok"
  double seconds = 0;
};

SweepSummary RunSweep(const SweepOptions& o);

// Joins `inputs` (shard files of one sweep, CSV or JSON lines alike) into
// `output`; throws InputError when they come from different sweeps, when a
// point is missing (naming the first ones) or given twice.
long long MergeSweeps(const std::vector<std::string>& inputs, const std::string& output);

}  // namespace pf

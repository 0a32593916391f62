// Where published runs say the model is off by a mechanism it lacks: each
// gap is a regime a scenario can fall in, the runs that show it (pinned as
// known misses in tests/data/recipe_rows.csv, out of every fit) and the
// range of their errors. The report prints the gaps of a scenario in one,
// so that a figure known to be optimistic is not printed silently; no
// figure is changed. No SimGrid.
#pragma once

#include <string>
#include <vector>

#include "sim/spec/spec.h"

namespace pf {

struct KnownGap {
  std::string regime;        // what puts the scenario in it, for the report
  std::string runs;          // the published runs behind it
  double error_low = 0;      // their predicted / published - 1, lowest
  double error_high = 0;     // and highest
  std::string source;        // where the runs and the analysis are
};

// The gaps `s` falls in (most scenarios: none).
std::vector<KnownGap> KnownGapsOf(const Scenario& s);

// One line of text per gap: the regime, the runs, the range, the source.
std::string DescribeGap(const KnownGap& g);

}  // namespace pf

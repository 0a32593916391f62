// A sweep's grid: the cartesian product of --grid KEY=V1,V2,... lists of
// --set overrides, in a fixed order (the first key varies slowest), each
// point numbered; a shard K/N is the points whose number is K modulo N.
// The sweep's signature names the scenario file's bytes, the --set flags
// and the grid, so that shards and resumed files of another sweep are
// refused. No SimGrid.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pf {

struct GridAxis {
  std::string key;
  std::vector<std::string> values;
};

struct Grid {
  std::vector<GridAxis> axes;
  long long points() const;
  // The --set overrides of point `i` (REQUIRES 0 <= i < points()).
  std::vector<std::string> Overrides(long long i) const;
  // Its values, one per axis.
  std::vector<std::string> Values(long long i) const;
};

// Parses each "KEY=V1,V2,..." (values split on commas outside [] and {});
// throws InputError naming the --grid flag for a missing '=', an empty key
// or value, a key given twice, or more than kMaxSweepPoints points.
Grid ParseGrid(const std::vector<std::string>& flags);
constexpr long long kMaxSweepPoints = 10'000'000;

// "K/N" with 0 <= K < N; throws InputError naming --shard otherwise.
struct Shard {
  long long index = 0, count = 1;
  bool Has(long long point) const { return point % count == index; }
};
Shard ParseShard(const std::string& text);

// 16 hex digits over the scenario file's bytes, the --set flags and the grid.
std::string SweepSignature(const std::string& scenario_path, const std::vector<std::string>& sets, const Grid& grid);

}  // namespace pf

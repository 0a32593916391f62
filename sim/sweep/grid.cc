#include "sim/sweep/grid.h"

#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "sim/base/error.h"

namespace pf {
namespace {

[[noreturn]] void Fail(const std::string& flag, const std::string& message) {
  throw InputError(Location{flag, 0, 0}, "", message);
}

// `text` split on commas at bracket depth 0; empty when the brackets do
// not balance.
std::vector<std::string> SplitValues(const std::string& text) {
  std::vector<std::string> out(1);
  int depth = 0;
  for (char c : text) {
    if (c == '[' || c == '{') ++depth;
    if (c == ']' || c == '}') --depth;
    if (depth < 0) return {};
    if (c == ',' && depth == 0) out.emplace_back();
    else out.back() += c;
  }
  if (depth != 0) return {};
  return out;
}

// FNV-1a, 64 bits.
uint64_t Hash(const std::string& bytes, uint64_t h = 0xcbf29ce484222325ULL) {
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

}  // namespace

long long Grid::points() const {
  long long n = 1;
  for (const GridAxis& a : axes) n *= static_cast<long long>(a.values.size());
  return n;
}

std::vector<std::string> Grid::Values(long long i) const {
  std::vector<std::string> out(axes.size());
  for (size_t k = axes.size(); k-- > 0;) {  // the last axis varies fastest
    const long long n = static_cast<long long>(axes[k].values.size());
    out[k] = axes[k].values[static_cast<size_t>(i % n)];
    i /= n;
  }
  return out;
}

std::vector<std::string> Grid::Overrides(long long i) const {
  std::vector<std::string> values = Values(i);
  for (size_t k = 0; k < axes.size(); ++k) values[k] = axes[k].key + "=" + values[k];
  return values;
}

Grid ParseGrid(const std::vector<std::string>& flags) {
  Grid g;
  std::set<std::string> keys;
  long long points = 1;
  for (const std::string& f : flags) {
    const std::string flag = "--grid " + Shown(f);
    const size_t eq = f.find('=');
    if (eq == std::string::npos) Fail(flag, "expected KEY=V1,V2,... (e.g. --grid parallel.tp=1,2,4,8)");
    GridAxis a;
    a.key = f.substr(0, eq);
    if (a.key.empty()) Fail(flag, "the key before '=' is empty");
    if (!keys.insert(a.key).second) Fail(flag, "the key " + Shown(a.key) + " is swept twice; give its values in one --grid");
    a.values = SplitValues(f.substr(eq + 1));
    if (a.values.empty()) Fail(flag, "its [ ] and { } do not balance");
    for (const std::string& v : a.values)
      if (v.empty()) Fail(flag, "an empty value in the list (values are separated by commas)");
    points *= static_cast<long long>(a.values.size());
    if (points > kMaxSweepPoints)
      Fail(flag, fmt::format("the grid has more than {} points; sweep fewer values or shard a smaller grid", kMaxSweepPoints));
    g.axes.push_back(std::move(a));
  }
  return g;
}

Shard ParseShard(const std::string& text) {
  const std::string flag = "--shard " + Shown(text);
  long long k = -1, n = -1;
  char slash = 0, extra = 0;
  std::istringstream in(text);
  if (!(in >> k >> slash >> n) || slash != '/' || (in >> extra) || k < 0 || n < 1 || k >= n)
    Fail(flag, "expected K/N with 0 <= K < N (shard K of N, e.g. 3/64)");
  return {k, n};
}

std::string SweepSignature(const std::string& scenario_path, const std::vector<std::string>& sets, const Grid& grid) {
  std::ifstream in(scenario_path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  uint64_t h = Hash(bytes.str());
  for (const std::string& s : sets) h = Hash("\x01" + s, h);
  for (const GridAxis& a : grid.axes) {
    h = Hash("\x02" + a.key, h);
    for (const std::string& v : a.values) h = Hash("\x03" + v, h);
  }
  return fmt::format("{:016x}", h);
}

}  // namespace pf

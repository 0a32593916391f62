#include "sim/base/error.h"

#include <algorithm>
#include <cctype>

namespace pf {

std::string Location::ToString() const {
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

static std::string Compose(const Location& where, const std::string& key,
                           const std::string& message) {
  std::string s = where.ToString() + ": ";
  if (!key.empty()) s += key + ": ";
  return s + message;
}

InputError::InputError(Location where, std::string key, std::string message)
    : std::runtime_error(Compose(where, key, message)),
      where_(std::move(where)),
      key_(std::move(key)),
      message_(std::move(message)) {}

static size_t EditDistance(const std::string& a, const std::string& b, bool case_sensitive) {
  auto same = [&](char x, char y) {
    return case_sensitive ? x == y : std::tolower(x) == std::tolower(y);
  };
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (same(a[i - 1], b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string ClosestMatch(const std::string& word, const std::vector<std::string>& candidates,
                         bool case_sensitive) {
  std::string best;
  size_t best_d = std::string::npos;
  for (const auto& c : candidates) {
    size_t d = EditDistance(word, c, case_sensitive);
    if (d < best_d) best_d = d, best = c;
  }
  size_t limit = std::max<size_t>(2, word.size() / 3);
  return best_d <= limit ? best : "";
}

std::string SuggestionSuffix(const std::string& word, const std::vector<std::string>& candidates,
                             bool case_sensitive) {
  std::string close = ClosestMatch(word, candidates, case_sensitive);
  if (!close.empty()) return " (did you mean '" + close + "'?)";
  std::string all;
  for (size_t i = 0; i < candidates.size(); ++i) all += (i ? ", " : "") + candidates[i];
  return " (accepted: " + all + ")";
}

}  // namespace pf

#include "sim/base/error.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace pf {

std::string Location::ToString() const {
  if (line <= 0) return file;
  if (column <= 0) return file + ":" + std::to_string(line);  // a whole line (CSV rows, sweep files)
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

namespace {

// Length of the UTF-8 sequence starting at s[i] (0 when invalid).
size_t Utf8Length(const std::string& s, size_t i) {
  const unsigned char c = s[i];
  size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return 0;
  return n;
}

// The code point of the n-byte UTF-8 sequence at s[i].
unsigned CodePoint(const std::string& s, size_t i, size_t n) {
  static const unsigned lead_mask[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
  unsigned cp = static_cast<unsigned char>(s[i]) & lead_mask[n];
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
  return cp;
}

// C0 and C1 controls, DEL, and the bidirectional formatting characters
// that reorder how text is displayed (Unicode UAX #9: ALM, LRM, RLM, the
// embeddings and overrides U+202A-202E, the isolates U+2066-2069; the
// "Trojan Source" characters, CVE-2021-42574): a name or a path holding
// them would print as something else in a report.
bool IsControl(unsigned cp) {
  return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace

bool IsPrintableUtf8(const std::string& text) {
  static const unsigned shortest[] = {0, 0, 0x80, 0x800, 0x10000};  // the least code point of each length
  for (size_t i = 0; i < text.size();) {
    const size_t n = Utf8Length(text, i);
    if (n == 0) return false;
    const unsigned cp = CodePoint(text, i, n);
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are
    // not UTF-8 (RFC 3629 section 3), nor a control.
    if (cp < shortest[n] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff || IsControl(cp)) return false;
    i += n;
  }
  return true;
}

std::string Shown(const std::string& text, size_t max) {
  std::string out;
  size_t i = 0;
  for (; i < text.size() && out.size() < max; ) {
    const size_t n = Utf8Length(text, i);
    const unsigned char c = text[i];
    if (n == 0 || (n == 1 && IsControl(c))) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
      ++i;
    } else if (IsControl(CodePoint(text, i, n))) {  // a C1 or bidirectional control: shown as its code point
      char buf[12];
      std::snprintf(buf, sizeof buf, "\\u%04X", CodePoint(text, i, n));
      out += buf;
      i += n;
    } else {
      out.append(text, i, n);
      i += n;
    }
  }
  if (i < text.size()) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

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

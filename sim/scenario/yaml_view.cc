#include "sim/scenario/yaml_view.h"

#include <cstdlib>

#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <algorithm>
#include <limits>

namespace pf {

// Scenario and catalog files are hand-written and small; anything larger
// is not one (and would only cost memory to parse).
constexpr uintmax_t kMaxYamlBytes = 1 << 20;

// What yaml-cpp would misread in a file's text, refused at its line: a NUL
// byte (read as part of an escape with the next character, or dropped),
// and a second document after a "---" line that follows content (silently
// ignored; found by its marker line because yaml-cpp 0.7's LoadAll loops
// without end, allocating, on some malformed inputs).
static void CheckYamlText(const std::string& text, const std::string& path) {
  if (const size_t nul = text.find('\0'); nul != std::string::npos) {
    const size_t line_start = text.rfind('\n', nul);
    const int line = 1 + int(std::count(text.begin(), text.begin() + nul, '\n'));
    const int column = int(nul - (line_start == std::string::npos ? 0 : line_start + 1)) + 1;
    throw InputError({Shown(path), line, column}, "", "holds a NUL byte: scenario and catalog files are UTF-8 text");
  }
  bool content = false;
  int line = 0;
  for (size_t at = 0; at < text.size(); ++line) {
    size_t eol = text.find('\n', at);
    if (eol == std::string::npos) eol = text.size();
    const std::string l = text.substr(at, eol - at);
    at = eol + 1;
    const bool marker = l.compare(0, 3, "---") == 0 && (l.size() == 3 || l[3] == ' ' || l[3] == '\t' || l[3] == '\r');
    if (marker && content)
      throw InputError({Shown(path), line + 1, 1}, "", "starts a second YAML document; a scenario or catalog file is one");
    const size_t first = l.find_first_not_of(" \t\r");
    if (!marker && first != std::string::npos && l[first] != '#' && l[first] != '%') content = true;
  }
}

YAML::Node LoadYamlFile(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw InputError({Shown(path)}, "", "no such file");
  if (fs::is_directory(st)) throw InputError({Shown(path)}, "", "is a directory, not a YAML file");
  if (!fs::is_regular_file(st)) throw InputError({Shown(path)}, "", "is not a regular file");
  const auto size = fs::file_size(path, ec);
  if (ec || size > kMaxYamlBytes)
    throw InputError({Shown(path)}, "", "is " + std::to_string(size) + " bytes; scenario and catalog files " +
                                            "are at most " + std::to_string(kMaxYamlBytes) + " bytes");
  std::ifstream file(path, std::ios::binary);
  if (!file) throw InputError({Shown(path)}, "", "cannot read file");
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  CheckYamlText(text, path);
  std::istringstream in(text);
  try {
    return YAML::Load(in);
  } catch (const YAML::Exception& e) {
    throw InputError({Shown(path), e.mark.line + 1, e.mark.column + 1}, "",
                     "malformed YAML: " + Shown(e.msg));
  }
}

YamlView::YamlView(YAML::Node node, std::string path, std::shared_ptr<const YamlSource> source)
    : node_(std::move(node)), path_(std::move(path)), source_(std::move(source)) {}

Location YamlView::location() const {
  // `prefix` is this key or one of its parents (a mapping's "a.b", a
  // list's "a[0]").
  auto under = [&](const std::string& prefix) {
    return path_.size() >= prefix.size() && path_.compare(0, prefix.size(), prefix) == 0 &&
           (path_.size() == prefix.size() || path_[prefix.size()] == '.' || path_[prefix.size()] == '[');
  };
  for (auto it = source_->overrides.rbegin(); it != source_->overrides.rend(); ++it)
    if (under(it->first)) return {it->second};  // an override of this key or of one of its parents
  // A node no file holds (no mark), made by an override of a key below it
  // (--set a.b.c=1 creating an unknown `a`): the flag that made it.
  const YAML::Mark m = node_.Mark();
  if (m.line < 0)
    for (auto it = source_->overrides.rbegin(); it != source_->overrides.rend(); ++it) {
      const std::string& k = it->first;
      if (k.size() > path_.size() && k.compare(0, path_.size(), path_) == 0 &&
          (path_.empty() || k[path_.size()] == '.' || k[path_.size()] == '['))
        return {it->second};
    }
  std::string file = source_->file;
  size_t longest = 0;
  for (const auto& [prefix, graft_file] : source_->grafts)
    if (prefix.size() > longest && under(prefix)) file = graft_file, longest = prefix.size();
  if (m.line < 0) return {file};
  return {file, m.line + 1, m.column + 1};
}

void YamlView::Fail(const std::string& message) const {
  throw InputError(location(), path_, message);
}

static std::string Quote(const YAML::Node& n) {
  if (n.IsScalar()) return "\"" + Shown(n.Scalar()) + "\"";
  if (n.IsMap()) return "a mapping";
  if (n.IsSequence()) return "a list";
  return "nothing";
}

void YamlView::ExpectKeys(const std::vector<std::string>& allowed) const {
  if (!node_.IsMap()) Fail("expected a mapping, got " + Quote(node_));
  for (const std::string& key : Keys()) {
    bool ok = false;
    for (const auto& a : allowed) ok |= (a == key);
    if (!ok) {
      YamlView k(KeyNode(key), path_.empty() ? key : path_ + "." + key, source_);
      k.Fail("unknown key '" + Shown(key) + "'" + SuggestionSuffix(key.substr(0, 64), allowed));
    }
  }
}

YAML::Node YamlView::KeyNode(const std::string& key) const {
  for (const auto& kv : node_)
    if (kv.first.IsScalar() && kv.first.Scalar() == key) return kv.first;
  return node_;
}

bool YamlView::Has(const std::string& key) const { return node_.IsMap() && node_[key]; }

YamlView YamlView::Get(const std::string& key) const {
  std::string child_path = path_.empty() ? key : path_ + "." + key;
  if (!node_.IsMap()) Fail("expected a mapping with key '" + key + "', got " + Quote(node_));
  YAML::Node child = node_[key];
  if (!child) Fail("missing required key '" + key + "'");
  return YamlView(child, child_path, source_);
}

YamlView YamlView::Find(const std::string& path) const {
  YamlView at = *this;
  for (size_t start = 0; start <= path.size();) {
    size_t dot = path.find('.', start);
    std::string key = path.substr(start, dot - start);
    // "storage[2]": the key, then the list's item.
    long long index = -1;
    if (const size_t open = key.find('['); open != std::string::npos && key.back() == ']') {
      index = std::atoll(key.substr(open + 1, key.size() - open - 2).c_str());
      key.resize(open);
    }
    if (!at.Has(key)) break;
    at = at.Get(key);
    if (index >= 0) {
      if (!at.node_.IsSequence() || index >= static_cast<long long>(at.node_.size())) break;
      at = YamlView(at.node_[static_cast<size_t>(index)], at.path_ + "[" + std::to_string(index) + "]", at.source_);
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return at;
}

std::vector<std::string> YamlView::Keys() const {
  std::vector<std::string> out;
  if (!node_.IsMap()) return out;
  std::map<std::string, int> first_line;
  for (const auto& kv : node_) {
    if (!kv.first.IsScalar())
      YamlView(kv.first, path_, source_).Fail("a key must be a plain name, got " + Quote(kv.first));
    const std::string key = kv.first.Scalar();
    const std::string child = path_.empty() ? key : path_ + "." + key;
    if (auto it = first_line.find(key); it != first_line.end())
      YamlView(kv.first, child, source_)
          .Fail("duplicate key '" + Shown(key) + "' (first given on line " + std::to_string(it->second) + ")");
    first_line[key] = kv.first.Mark().line + 1;
    out.push_back(key);
  }
  return out;
}

std::vector<YamlView> YamlView::Items(size_t max_items) const {
  if (!node_.IsSequence()) Fail("expected a list, got " + Quote(node_));
  if (node_.size() > max_items)
    Fail("a list of " + std::to_string(node_.size()) + " items; at most " + std::to_string(max_items) +
         " accepted");
  std::vector<YamlView> out;
  for (size_t i = 0; i < node_.size(); ++i)
    out.emplace_back(node_[i], path_ + "[" + std::to_string(i) + "]", source_);
  return out;
}

std::string YamlView::Name(size_t max_bytes) const {
  const std::string s = Str();
  if (s.empty()) Fail("must not be empty");
  if (!IsPrintableUtf8(s)) Fail("\"" + Shown(s) + "\" is not printable UTF-8 text");
  if (s.size() > max_bytes)
    Fail("\"" + Shown(s) + "\" is longer than " + std::to_string(max_bytes) + " bytes");
  return s;
}

std::string YamlView::Str() const {
  if (!node_.IsScalar()) Fail("expected a value, got " + Quote(node_));
  return node_.Scalar();
}

bool YamlView::Bool() const {
  std::string s = Str();
  if (s == "true" || s == "yes") return true;
  if (s == "false" || s == "no") return false;
  Fail("\"" + Shown(s) + "\" is not a boolean (accepted: true, false)");
}

double YamlView::Number() const {
  std::string s = Str();
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !std::isfinite(v) || s.find_first_of("xX") != std::string::npos)
    Fail("\"" + Shown(s) + "\" is not a number");
  return v;
}

long long YamlView::Int(long long min, long long max) const {
  std::string s = Str();
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || s.find('\0') != std::string::npos)
    Fail("\"" + Shown(s) + "\" is not an integer");
  if (errno == ERANGE || v < min || v > max) {
    std::string range = max == std::numeric_limits<long long>::max()
                            ? "at least " + std::to_string(min)
                            : "between " + std::to_string(min) + " and " + std::to_string(max);
    Fail(Shown(s) + " is out of range (must be " + range + ")");
  }
  return v;
}

std::string YamlView::Choice(const std::vector<std::string>& accepted) const {
  std::string s = Str();
  for (const auto& a : accepted)
    if (a == s) return s;
  Fail("\"" + Shown(s) + "\" is not accepted" + SuggestionSuffix(s.substr(0, 64), accepted));
}

double YamlView::Quantity(Dimension dim, bool allow_zero) const {
  std::string s = Str();
  ParsedQuantity q = ParseQuantity(s, dim);
  if (!q.value) Fail(q.error);
  if (*q.value < 0 || (*q.value == 0 && !allow_zero))
    Fail("\"" + Shown(s) + "\" must be greater than zero");
  const QuantityRange r = PhysicalRange(dim);
  if (*q.value != 0 && (*q.value < r.min || *q.value > r.max))
    Fail("\"" + Shown(s) + "\" is outside what hardware or a job can be (" + DimensionName(dim) +
         " between " + FormatQuantity(r.min, dim) + " and " + FormatQuantity(r.max, dim) + ")");
  return *q.value;
}

}  // namespace pf

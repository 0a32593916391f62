#include "sim/scenario/yaml_view.h"

#include <cmath>
#include <fstream>
#include <limits>

namespace pf {

YAML::Node LoadYamlFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError({path}, "", "cannot read file");
  try {
    return YAML::Load(in);
  } catch (const YAML::Exception& e) {
    throw InputError({path, e.mark.line + 1, e.mark.column + 1}, "",
                     "malformed YAML: " + e.msg);
  }
}

YamlView::YamlView(YAML::Node node, std::string path, std::shared_ptr<const YamlSource> source)
    : node_(std::move(node)), path_(std::move(path)), source_(std::move(source)) {}

Location YamlView::location() const {
  for (auto it = source_->overrides.rbegin(); it != source_->overrides.rend(); ++it) {
    // An override of this key or of one of its parents.
    if (path_ == it->first || path_.rfind(it->first + ".", 0) == 0) return {it->second};
  }
  const YAML::Mark m = node_.Mark();
  if (m.line < 0) return {source_->file};
  return {source_->file, m.line + 1, m.column + 1};
}

void YamlView::Fail(const std::string& message) const {
  throw InputError(location(), path_, message);
}

static std::string Quote(const YAML::Node& n) {
  if (n.IsScalar()) return "\"" + n.Scalar() + "\"";
  if (n.IsMap()) return "a mapping";
  if (n.IsSequence()) return "a list";
  return "nothing";
}

void YamlView::ExpectKeys(const std::vector<std::string>& allowed) const {
  if (!node_.IsMap()) Fail("expected a mapping, got " + Quote(node_));
  for (const auto& kv : node_) {
    const std::string key = kv.first.as<std::string>();
    bool ok = false;
    for (const auto& a : allowed) ok |= (a == key);
    if (!ok) {
      YamlView k(kv.first, path_.empty() ? key : path_ + "." + key, source_);
      k.Fail("unknown key '" + key + "'" + SuggestionSuffix(key, allowed));
    }
  }
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
    const std::string key = path.substr(start, dot - start);
    if (!at.Has(key)) break;
    at = at.Get(key);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return at;
}

std::vector<std::string> YamlView::Keys() const {
  std::vector<std::string> out;
  if (node_.IsMap())
    for (const auto& kv : node_) out.push_back(kv.first.as<std::string>());
  return out;
}

std::string YamlView::Str() const {
  if (!node_.IsScalar()) Fail("expected a value, got " + Quote(node_));
  return node_.Scalar();
}

bool YamlView::Bool() const {
  std::string s = Str();
  if (s == "true" || s == "yes") return true;
  if (s == "false" || s == "no") return false;
  Fail("\"" + s + "\" is not a boolean (accepted: true, false)");
}

double YamlView::Number() const {
  std::string s = Str();
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !std::isfinite(v) || s.find_first_of("xX") != std::string::npos)
    Fail("\"" + s + "\" is not a number");
  return v;
}

long long YamlView::Int(long long min, long long max) const {
  std::string s = Str();
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0') Fail("\"" + s + "\" is not an integer");
  if (v < min || v > max) {
    std::string range = max == std::numeric_limits<long long>::max()
                            ? "at least " + std::to_string(min)
                            : "between " + std::to_string(min) + " and " + std::to_string(max);
    Fail(std::to_string(v) + " is out of range (must be " + range + ")");
  }
  return v;
}

std::string YamlView::Choice(const std::vector<std::string>& accepted) const {
  std::string s = Str();
  for (const auto& a : accepted)
    if (a == s) return s;
  Fail("\"" + s + "\" is not accepted" + SuggestionSuffix(s, accepted));
}

double YamlView::Quantity(Dimension dim, bool allow_zero) const {
  std::string s = Str();
  ParsedQuantity q = ParseQuantity(s, dim);
  if (!q.value) Fail(q.error);
  if (*q.value < 0 || (*q.value == 0 && !allow_zero))
    Fail("\"" + s + "\" must be greater than zero");
  return *q.value;
}

}  // namespace pf

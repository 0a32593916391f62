// A read-only view of one YAML node that knows where it came from (file,
// line, column, or a --set flag) and its key path, so every validation
// failure can throw an InputError that points at the bad value.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "sim/base/error.h"
#include "sim/spec/names.h"
#include "sim/base/quantity_parse.h"
#include "sim/base/units.h"

namespace pf {

// Where a document came from; overrides maps a key path ("parallel.tp") to
// the flag text that set it ("--set parallel.tp=6").
// grafts maps a key path ("cluster.node") to the file its subtree was read
// from, when a bundled catalog entry was copied into the document so that
// --set can patch it.
struct YamlSource {
  std::string file;
  std::map<std::string, std::string> overrides;
  std::map<std::string, std::string> grafts;
};

// Parses `path`: a regular file of at most 1 MiB (throws InputError on a
// missing, unreadable, oversized or malformed file, or a directory).
YAML::Node LoadYamlFile(const std::string& path);

class YamlView {
 public:
  YamlView(YAML::Node node, std::string path, std::shared_ptr<const YamlSource> source);

  const std::string& path() const { return path_; }
  const YAML::Node& node() const { return node_; }
  Location location() const;
  [[noreturn]] void Fail(const std::string& message) const;

  bool IsMap() const { return node_.IsMap(); }
  bool IsScalar() const { return node_.IsScalar(); }
  // REQUIRES: this is a mapping (else fails). Fails on any key not in
  // `allowed`, suggesting the closest allowed key.
  void ExpectKeys(const std::vector<std::string>& allowed) const;
  bool Has(const std::string& key) const;
  // The child at `key`; fails with "missing required key" when absent.
  YamlView Get(const std::string& key) const;

  std::string Str() const;
  bool Bool() const;
  double Number() const;
  // An integer in [min, max].
  long long Int(long long min, long long max) const;
  // A choice among `accepted`, case-sensitive.
  std::string Choice(const std::vector<std::string>& accepted) const;
  // An enum value by its spelling in sim/spec/names.h.
  template <class E>
  E Enum() const { return *FromString<E>(Choice(Spellings<E>())); }
  // A quantity with its unit; must be > 0 unless allow_zero.
  double Quantity(Dimension dim, bool allow_zero = false) const;
  Bytes AsBytes() const { return Bytes(Quantity(Dimension::kBytes)); }
  Seconds AsSeconds(bool allow_zero = false) const { return Seconds(Quantity(Dimension::kSeconds, allow_zero)); }
  BytesPerSecond AsBandwidth() const { return BytesPerSecond(Quantity(Dimension::kBytesPerSecond)); }
  FlopsPerSecond AsFlopsRate() const { return FlopsPerSecond(Quantity(Dimension::kFlopsPerSecond)); }
  Usd AsUsd() const { return Usd(Quantity(Dimension::kUsd)); }
  // The keys of a mapping, in order. Fails on a key that is not a plain
  // scalar and on a key given twice (naming the line of the first).
  std::vector<std::string> Keys() const;
  // The elements of a sequence ("key[0]", "key[1]", ... as paths), at
  // most `max_items`; fails on anything but a sequence.
  std::vector<YamlView> Items(size_t max_items) const;
  // Text for a name: non-empty printable UTF-8 of at most `max_bytes`.
  std::string Name(size_t max_bytes = 200) const;
  // The node at key path `path` below this one ("parallel.tp"), or the
  // deepest part of it that exists: where a problem with that key is shown.
  YamlView Find(const std::string& path) const;

 private:
  YAML::Node KeyNode(const std::string& key) const;  // for pointing at a key

  YAML::Node node_;
  std::string path_;
  std::shared_ptr<const YamlSource> source_;
};

}  // namespace pf

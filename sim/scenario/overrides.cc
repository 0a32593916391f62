#include "sim/scenario/overrides.h"

#include <vector>

namespace pf {

// A flag is a key and a value typed on a command line.
constexpr size_t kMaxFlagBytes = 4096;

void ApplyOverride(YAML::Node root, const std::string& flag, YamlSource& source) {
  const std::string where = "--set " + Shown(flag, 120);
  if (!IsPrintableUtf8(flag))
    throw InputError({where}, "", "must be printable UTF-8 text without control characters");
  if (flag.size() > kMaxFlagBytes)
    throw InputError({where}, "", "is " + std::to_string(flag.size()) + " bytes; at most " +
                                      std::to_string(kMaxFlagBytes) + " are accepted");
  size_t eq = flag.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError({where}, "", "expected KEY=VALUE, e.g. --set parallel.tp=4");
  std::string key = flag.substr(0, eq), value = flag.substr(eq + 1);
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t dot = key.find('.', start);
    parts.push_back(key.substr(start, dot - start));
    if (parts.back().empty())
      throw InputError({where}, Shown(key), "empty key between dots (write e.g. parallel.tp)");
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  YAML::Node value_node;
  try {
    value_node = YAML::Load(value);
  } catch (const YAML::Exception& e) {
    throw InputError({where}, Shown(key), "malformed value: " + Shown(e.msg));
  }
  // yaml-cpp nodes are handles: walk with fresh handles, never reassign one.
  std::vector<YAML::Node> chain{root};
  std::string path;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    path += (i ? "." : "") + parts[i];
    YAML::Node next = chain.back()[parts[i]];
    if (next && !next.IsMap())
      throw InputError({where}, Shown(path),
                       "\"" + (next.IsScalar() ? Shown(next.Scalar()) : std::string("a list")) +
                           "\" is not a mapping; set it as a whole or write it inline");
    chain.push_back(next);
  }
  chain.back()[parts.back()] = value_node;
  source.overrides[key] = where;
}

}  // namespace pf

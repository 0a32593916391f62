// `--set key.path=value` overrides: applied to the parsed YAML document
// before it is read, so an overridden value is checked exactly like one
// written in the file, and errors in it name the flag.
#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

#include "sim/scenario/yaml_view.h"

namespace pf {

// Sets the value of "a.b.c=value" in `root`, creating mappings on the way,
// and records in `source` that key a.b.c came from this flag. Throws
// InputError naming the flag when it is not KEY=VALUE, its value is not
// YAML, or a parent key holds a value rather than a mapping.
void ApplyOverride(YAML::Node root, const std::string& flag, YamlSource& source);

}  // namespace pf

// Scenario file -> validated Scenario. The first step of the pipeline
// (LoadScenario -> BuildWorkload -> Simulate -> Render); no SimGrid here.
#pragma once

#include <string>
#include <vector>

#include "sim/spec/spec.h"

namespace pf {

// Reads the scenario at `path`, applies `overrides` ("key.path=value", as
// given to --set; later ones win), resolves named models and node
// topologies, and validates the whole. Throws InputError naming file, line,
// column, key and bad value on any problem.
Scenario LoadScenario(const std::string& path, const std::vector<std::string>& overrides = {});

// A node topology: the name of a bundled one (topologies/<name>.yaml) or the
// path of a YAML file of the same form. Throws InputError (`flag` names
// where the argument came from) when it is neither, or on a bad file.
NodeSpec LoadNode(const std::string& name_or_path, const std::string& flag = "node");

}  // namespace pf

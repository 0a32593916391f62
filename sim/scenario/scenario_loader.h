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
// `overrides` ("pcie.lanes=8") patch the file's keys as --set does.
NodeSpec LoadNode(const std::string& name_or_path, const std::string& flag = "node",
                  const std::vector<std::string>& overrides = {});

// A cluster (node, node count, fabric): the name of a bundled one
// (topologies/clusters/<name>.yaml) or the path of a YAML file of that form.
// REQUIRES: IsClusterFile(name_or_path), else its errors are the parser's.
ClusterSpec LoadCluster(const std::string& name_or_path, const std::string& flag = "cluster",
                        const std::vector<std::string>& overrides = {});
// True for a bundled cluster name, or a YAML file with `node` and `nodes`.
bool IsClusterFile(const std::string& name_or_path);

}  // namespace pf

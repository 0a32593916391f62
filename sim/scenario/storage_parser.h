// YAML -> spec for a cluster's storage tiers (the `storage:` list): each
// tier's kind, bandwidths, servers, latency and capacity, with names unique
// within the cluster.
#pragma once

#include <vector>

#include "sim/scenario/yaml_view.h"
#include "sim/spec/spec.h"

namespace pf {

std::vector<StorageTier> ParseStorage(const YamlView& v);

}  // namespace pf

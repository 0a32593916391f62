// YAML -> spec for the network between nodes: the `fabric:` section of a
// cluster (rail-optimized or fat-tree, switch radix, oversubscription,
// levels, per-switch latency).
#pragma once

#include "sim/scenario/yaml_view.h"
#include "sim/spec/spec.h"

namespace pf {

// REQUIRES: c.node is set (a leaf must hold one node's NICs).
FabricSpec ParseFabric(const YamlView& v, const ClusterSpec& c);

}  // namespace pf

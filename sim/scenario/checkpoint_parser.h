// YAML -> spec for a scenario's `checkpoint:` section: the tier, the
// interval (a duration, or a number of steps) and sync or async writes.
// Whether the tier exists is checked with the whole scenario
// (spec/validate.h).
#pragma once

#include "sim/scenario/yaml_view.h"
#include "sim/spec/spec.h"

namespace pf {

CheckpointSpec ParseCheckpoint(const YamlView& v);

}  // namespace pf

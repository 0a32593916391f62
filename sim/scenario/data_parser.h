// YAML -> spec for a scenario's `data:` section: where the dataset lives,
// how its samples are stored, and the DataLoader's workers and prefetch.
// Which tier and CPU it needs are checked with the whole scenario
// (spec/validate.h).
#pragma once

#include "sim/scenario/yaml_view.h"
#include "sim/spec/spec.h"

namespace pf {

DataSpec ParseData(const YamlView& v);

}  // namespace pf

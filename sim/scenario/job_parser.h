// YAML -> spec for a scenario's `job:` section: start-up before the first
// step, staging the dataset onto its tier, periodic evaluation. Tiers are
// checked with the whole scenario (spec/validate.h).
#pragma once

#include "sim/scenario/yaml_view.h"
#include "sim/spec/spec.h"

namespace pf {

JobSpec ParseJob(const YamlView& v);

}  // namespace pf

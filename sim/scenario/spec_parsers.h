// YAML -> spec for the catalog documents: models, GPUs, node topologies.
// Each checks keys, units and ranges and throws InputError pointing at the
// bad value. The scenario loader uses them for named and inline entries.
#pragma once

#include <string>

#include "sim/spec/spec.h"
#include "sim/scenario/yaml_view.h"

namespace pf {

ModelSpec ParseModel(const YamlView& v, const std::string& default_name);
// A model's `moe:` mapping (spec.h MoeSpec): experts, top_k, expert_ffn
// (default: the model's ffn), shared_experts, shared_ffn (default:
// expert_ffn).
MoeSpec ParseMoe(const YamlView& v, const ModelSpec& m);
// Group-limited routing into `x` (spec.h MoeSpec groups, group_topk) from
// `v`'s keys `groups_key` and `topk_key`, both required: groups dividing
// the experts, group_topk from 1 to groups, and enough experts in that
// many groups for top_k.
void ParseExpertGroups(const YamlView& v, const std::string& groups_key, const std::string& topk_key, MoeSpec& x);
// A model's `mla:` mapping (spec.h MlaSpec): kv_lora, qk_nope, qk_rope, v,
// and q_lora when the queries are compressed too.
MlaSpec ParseMla(const YamlView& v);
GpuSpec ParseGpu(const YamlView& v, const std::string& name);
// One entry of topologies/cpus.yaml (cores per socket), or an inline CPU.
CpuSpec ParseCpuModel(const YamlView& v, const std::string& name);
// `gpu` keys into GpuCatalog().
NodeSpec ParseNode(const YamlView& v, const std::string& default_name);

}  // namespace pf

// A model from a Hugging Face `config.json` (model: {hf_config: PATH}):
// the decoder-only transformer fields every HF causal LM states, read with
// the YAML reader (JSON is YAML), so every error names file:line:column and
// the field. A bundled copy of the configs the seeds' users fine-tune lives
// in models/hf/ (model: {hf_config: llama-2-7b} names one).
#pragma once

#include <string>
#include <vector>

#include "sim/scenario/yaml_view.h"
#include "sim/spec/spec.h"

namespace pf {

// The bundled configs (models/hf/<name>.json), sorted.
std::vector<std::string> BundledHfConfigs();

// `config` is the parsed config.json. Supported `architectures`: the
// Llama family's (Llama, Mistral, Qwen2, Yi, DeepSeek-LLM), Baichuan's
// and ChatGLM's; a mixture of experts (Mixtral, Qwen2-MoE, DeepSeek-MoE)
// and anything else is refused, naming the entry.
ModelSpec ParseHfConfig(const YamlView& config, const std::string& name);

// The `model:` mapping {hf_config: NAME or PATH, name: ...}: a bundled name,
// or a path (relative to the scenario file's folder; to the working
// directory from --set).
ModelSpec ResolveHfModel(const YamlView& v);

}  // namespace pf

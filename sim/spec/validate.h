// Cross-field checks of a whole Scenario, without YAML: the layout must
// divide the model and the GPUs, the batch must split into micro-batches,
// the GPU must have a rate for the precision. The scenario loader maps the
// key path of a problem to file:line:col; sweeps, plans and memory
// suggestions use the same checks on scenarios they make themselves.
#pragma once

#include <optional>
#include <string>

#include "sim/spec/spec.h"

namespace pf {

// One problem: the key path it belongs to ("parallel.tp", "parallel" for
// the layout as a whole) and a message naming the bad value and the rule.
struct SpecError {
  std::string key;
  std::string message;
};

// Clusters larger than this are refused: SimGrid's platform build grows
// with the zones, 18 s at 16,384 GPUs (shared/SIMGRID_NOTES.md).
constexpr int kMaxGpus = 16384;

// The first inconsistency of a node's topology (an index past the GPUs,
// NICs or sockets, a GPU behind two switches or none, a zero bandwidth),
// or nullopt. The YAML parser gives these at their lines; this check
// guards specs that code builds or changes.
std::optional<SpecError> CheckNodeTopology(const NodeSpec& n);

// The first problem found, in a fixed order, or nullopt when `s` is valid.
// When s.parallel.dp_auto, dp is taken as GPUs / (tp x pp).
std::optional<SpecError> Validate(const Scenario& s);

// When s.parallel.dp_auto and tp x pp divides the GPUs, sets dp to
// GPUs / (tp x pp). Leaves dp alone otherwise.
void ResolveDataParallel(Scenario& s);

// training.qlora_upcast where the scenario does not give it: its stack's
// (DefaultQloraUpcast), and none for sharded QLoRA (ZeRO-3 over more than
// one DP rank), which TRL prepares without the upcast. Called wherever a
// scenario's stack or layout is set (the loader, the layout screen).
void ResolveQloraUpcast(Scenario& s);

}  // namespace pf

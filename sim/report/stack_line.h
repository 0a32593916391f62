// The report's "stack" line: what the training stack does to the step
// (model/stack.h: kernels, optimizer, ZeRO-3 gathers, loss, adapters) and
// how much of each sequence is padding, with the stack's switches in
// effect (checkpoint offloading, pure bf16, QLoRA's preparation, ...).
#pragma once

#include <string>

#include "sim/spec/spec.h"

namespace pf {

// "  stack      hf: eager (one per tensor op) kernels, ...\n".
std::string StackLine(const Scenario& s);

}  // namespace pf

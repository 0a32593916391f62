// What a checkpoint holds and who writes it: the model weights at the
// training precision and the optimizer's state (fp32 master weights and
// Adam's two moments under mixed precision, the two moments in fp32), not
// the gradients; LoRA and QLoRA save their adapters and the adapters'
// optimizer state, not the frozen base. Weights are written by data-
// parallel rank 0 of each model shard, unless ZeRO-3 shards them over
// every rank; the optimizer state likewise, unless ZeRO 1-3 shards it.
// Plain arithmetic; no SimGrid.
#pragma once

#include <vector>

#include "sim/base/units.h"
#include "sim/spec/spec.h"

namespace pf {

struct CheckpointSize {
  Bytes weights;                // all shards together
  Bytes optimizer;
  Bytes total() const { return weights + optimizer; }
  std::vector<double> per_gpu;  // bytes each GPU writes, by global GPU index
};

CheckpointSize SizeOfCheckpoint(const Scenario& s);

// Bytes per trained parameter in a checkpoint: weights + optimizer state
// (14 under mixed precision: 2 + 4 + 4 + 4).
double CheckpointBytesPerParam(Precision p);

}  // namespace pf

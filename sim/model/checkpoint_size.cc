#include "sim/model/checkpoint_size.h"

#include "sim/model/memory_model.h"
#include "sim/model/model_math.h"
#include "sim/model/vision.h"

namespace pf {
namespace {

// Adam's state beyond the weights: fp32 master weights and two moments (12
// bytes) under mixed precision, the two moments (8) in tf32/fp32 (ZeRO,
// Rajbhandari et al. 2020, Sec. 3.1: K = 12; the checkpoint holds the same
// states, without the 16-bit gradients). Megatron-LM also saves its
// arguments, iteration, scheduler and RNG states: kilobytes.
double OptimizerStateBytes(Precision p) { return ElementBytes(p) == 4 ? 8 : 12; }

// Parameters the checkpoint holds (the trained ones, for LoRA/QLoRA the
// adapters).
double SavedParams(const Scenario& s) {
  if (s.model.kind == ModelKind::kVision) return CountVision(s.model.vision).params;
  return TrainableParams(s);
}

}  // namespace

double CheckpointBytesPerParam(Precision p) { return ElementBytes(p) + OptimizerStateBytes(p); }

CheckpointSize SizeOfCheckpoint(const Scenario& s) {
  const ParallelSpec& p = s.parallel;
  const double params = SavedParams(s);
  CheckpointSize c;
  c.weights = Bytes(params * ElementBytes(s.training.precision));
  // The optimizer's states as it keeps them (memory_model.h
  // OptimizerStates: pure bf16's and bitsandbytes' moments included).
  c.optimizer = s.model.kind == ModelKind::kVision ? Bytes(params * OptimizerStateBytes(s.training.precision))
                                                   : OptimizerStates(s);
  const int gpus = s.cluster.gpus();
  const double shards = double(p.tp) * p.pp;  // model shards, each held by a DP group
  c.per_gpu.assign(gpus, 0);
  for (int g = 0; g < gpus; ++g) {
    const bool first_replica = (g / p.tp) % p.dp == 0;  // rank layout: GPU = t + tp x (d + dp x stage)
    if (p.zero >= 3) c.per_gpu[g] += c.weights.value() / gpus;
    else if (first_replica) c.per_gpu[g] += c.weights.value() / shards;
    if (p.zero >= 1) c.per_gpu[g] += c.optimizer.value() / gpus;
    else if (first_replica) c.per_gpu[g] += c.optimizer.value() / shards;
  }
  return c;
}

}  // namespace pf

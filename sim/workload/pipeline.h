// Traffic between pipeline stages: activations forward and gradients
// backward between consecutive virtual stages, and the gradient sync of a
// tied embedding held by the first and last stage.
#pragma once

#include "sim/spec/spec.h"
#include "sim/workload/stage_emitter.h"
#include "sim/workload/task_graph.h"

namespace pf {

// Sends between consecutive virtual stages (the last stage's chunk k feeds
// the first stage's chunk k + 1). Megatron's scatter-gather optimisation
// sends 1/tp of the `hidden` tensor per TP rank.
void EmitPipelineSends(TaskGraph& g, const Scenario& s, int micro_batches, Bytes hidden,
                       const PipelineLinks& links);

// With TiedEmbeddingCopies (model/model_math.h) and trainable weights: the
// first and last stage all-reduce the embedding's gradient after their
// backward and before their optimizer, per DP rank.
void EmitTiedEmbeddingSync(TaskGraph& g, const Scenario& s, const PipelineLinks& links);

}  // namespace pf

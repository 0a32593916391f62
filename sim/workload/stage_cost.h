// What one virtual pipeline stage (model chunk) costs per micro-batch on its
// TP group's worker: forward and backward compute (recompute included in the
// backward), the tensor-parallel all-reduces, and the parameters it holds
// and trains. Compute durations come from the roofline (model/compute_model.h).
#pragma once

#include "sim/spec/spec.h"
#include "sim/workload/task_graph.h"

namespace pf {

struct StageCost {
  int layers = 0;
  int dense_layers = 0;        // of which a mixture of experts' dense first layers
  Work fwd, bwd;               // one micro-batch, whole chunk, recompute in bwd
  int tp_fwd = 0, tp_bwd = 0;  // TP all-reduces per micro-batch
  // Context parallelism: K and V all-gathered over the CP ranks per layer
  // forward, and in backward gathered again and their gradients
  // reduce-scattered; cp_bytes is one such collective's (the whole
  // sequence's K and V on one TP rank).
  int cp_fwd = 0, cp_bwd = 0;
  Bytes cp_bytes;
  // Expert parallelism: the token all-to-alls per micro-batch (dispatch and
  // combine per layer forward, their gradients backward, again with full
  // recompute) over the EP group, each of ep_bytes per GPU.
  int ep_fwd = 0, ep_bwd = 0;
  Bytes ep_bytes;
  // torchtune's activation offloading: the checkpoints one micro-batch's
  // forward copies to the host and its backward brings back.
  Bytes offload_bytes;
  double params = 0;           // trainable parameters per TP rank
  double expert_params = 0;    // of which routed experts reduced over the expert-DP ranks (ep > 1)
  double layer_weights = 0;    // one layer's parameters per TP rank
};

// Cost of virtual stage `vstage` = chunk x pp + stage, in [0, pp x vp).
StageCost CostOfStage(const Scenario& s, int vstage);

}  // namespace pf

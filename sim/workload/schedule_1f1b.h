// The 1F1B pipeline schedule (PipeDream-Flush; Narayanan et al. 2021,
// "Efficient Large-Scale Language Model Training on GPU Clusters", Sec. 2.2):
// stage i runs min(p - i - 1, m) warm-up forwards, then alternates one
// forward and one backward, then drains the remaining backwards.
#pragma once

#include <vector>

namespace pf {

struct PipeOp {
  bool forward = true;
  int micro_batch = 0;
  int chunk = 0;  // model chunk (virtual stage chunk x stages + stage)
};

// The order in which `stage` (0-based) of `stages` runs `micro_batches`.
std::vector<PipeOp> OneFOneBOrder(int stage, int stages, int micro_batches);

// The interleaved 1F1B schedule with `chunks` model chunks per stage
// (Narayanan et al. 2021, Sec. 2.2.2; Megatron-LM's
// forward_backward_pipelining_with_interleaving): (stages - stage - 1) x 2 +
// (chunks - 1) x stages warm-up forwards, then one forward and one backward;
// forward k runs chunk (k / stages) % chunks of micro-batch
// (k / (stages x chunks)) x stages + k % stages, backward k the chunks in
// reverse. REQUIRES: micro_batches % stages == 0 when chunks > 1.
// chunks == 1 is OneFOneBOrder.
std::vector<PipeOp> PipelineOrder(int stage, int stages, int micro_batches, int chunks);

}  // namespace pf

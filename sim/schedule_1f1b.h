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
};

// The order in which `stage` (0-based) of `stages` runs `micro_batches`.
std::vector<PipeOp> OneFOneBOrder(int stage, int stages, int micro_batches);

}  // namespace pf

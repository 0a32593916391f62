#include "sim/schedule_1f1b.h"

#include <algorithm>

namespace pf {

std::vector<PipeOp> OneFOneBOrder(int stage, int stages, int micro_batches) {
  const int warmup = std::min(stages - stage - 1, micro_batches);
  std::vector<PipeOp> order;
  int next_f = 0, next_b = 0;
  for (int i = 0; i < warmup; ++i) order.push_back({true, next_f++});
  while (next_f < micro_batches) {
    order.push_back({true, next_f++});
    order.push_back({false, next_b++});
  }
  while (next_b < micro_batches) order.push_back({false, next_b++});
  return order;
}

}  // namespace pf

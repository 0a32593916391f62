#include "sim/workload/schedule_1f1b.h"

#include <algorithm>

namespace pf {

std::vector<PipeOp> OneFOneBOrder(int stage, int stages, int micro_batches) {
  const int warmup = std::min(stages - stage - 1, micro_batches);
  std::vector<PipeOp> order;
  int next_f = 0, next_b = 0;
  for (int i = 0; i < warmup; ++i) order.push_back({true, next_f++, 0});
  while (next_f < micro_batches) {
    order.push_back({true, next_f++, 0});
    order.push_back({false, next_b++, 0});
  }
  while (next_b < micro_batches) order.push_back({false, next_b++, 0});
  return order;
}

std::vector<PipeOp> PipelineOrder(int stage, int stages, int micro_batches, int chunks) {
  if (chunks <= 1) return OneFOneBOrder(stage, stages, micro_batches);
  const int total = micro_batches * chunks;
  const int warmup = std::min((stages - stage - 1) * 2 + (chunks - 1) * stages, total);
  auto op = [&](int k, bool forward) {
    int chunk = (k / stages) % chunks;
    if (!forward) chunk = chunks - 1 - chunk;
    return PipeOp{forward, (k / (stages * chunks)) * stages + k % stages, chunk};
  };
  std::vector<PipeOp> order;
  int next_f = 0, next_b = 0;
  for (int i = 0; i < warmup; ++i) order.push_back(op(next_f++, true));
  while (next_f < total) {
    order.push_back(op(next_f++, true));
    order.push_back(op(next_b++, false));
  }
  while (next_b < total) order.push_back(op(next_b++, false));
  return order;
}

}  // namespace pf

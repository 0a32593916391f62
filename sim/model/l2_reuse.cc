#include "sim/model/l2_reuse.h"

#include <algorithm>

namespace pf {

void EagerChain::Launch(Op op, std::initializer_list<FreshRead> reads) {
  for (const FreshRead& r : reads) {
    if (r.bytes <= 0 || r.back < 1 || r.back > Next()) continue;
    const int back = r.back;
    double window = 0;
    for (size_t i = traffic_.size() - back; i < traffic_.size(); ++i) window += traffic_[i];
    op.l2_read += r.bytes;
    op.l2_window = std::max(op.l2_window, window);
  }
  traffic_.push_back(op.bytes.value());
  ops_.push_back(std::move(op));
}

Bytes DramBytes(const Op& op, const GpuSpec& g) {
  // All or nothing: the L2 holds the window or, streaming it in order as
  // these kernels do, keeps too little of the tensor to matter by the time
  // it is read (an LRU-like policy evicts a stream's head first, which is
  // what the reader reads first).
  const double capacity = g.l2_cache.value() / std::max(1, g.l2_partitions);
  if (capacity <= 0 || op.l2_read <= 0 || op.l2_window > capacity) return op.bytes;
  return Bytes(op.bytes.value() - std::min(op.l2_read, op.bytes.value()));
}

}  // namespace pf

#include "sim/workload/dataloader.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "sim/base/error.h"
#include "sim/model/data_costs.h"
#include "sim/workload/workload_check.h"
#include "sim/workload/rank_layout.h"

namespace pf {

void EmitDataLoader(TaskGraph& g, const Scenario& s, int micro_batches, const PipelineLinks& links) {
  const DataSpec& data = s.data;
  if (!data.enabled) return;
  const ParallelSpec& p = s.parallel;
  const BatchCost batch = CostOfBatch(s);
  if (!(batch.requests_per_worker <= kMaxIoRequests))
    throw InputError({s.file}, "data", fmt::format(
        "each worker would issue {:.3g} read requests per micro-batch, over the {} Preflight simulates: raise "
        "data.read_size or lower training.micro_batch", batch.requests_per_worker, kMaxIoRequests));
  const int queue = data.prefetch * data.workers;     // batches a loader holds ready
  const int ready = std::min(queue, micro_batches);  // prepared during the previous step
  for (int d = 0; d < p.dp; ++d) {
    const int gpu = GpuIndex(p, 0, d, 0);
    const int node = gpu / s.cluster.node.gpus_per_node;
    // Batch m of this step is consumed by the first forward of micro-batch m.
    auto consumer = [&](int m) { return links.fwd_in[0][d][m]; };
    // Pageable copies are synchronous on the GPU's stream: after the
    // worker's previous kernels, before the forward. Pinned ones are
    // prefetched as the batch is ready (a side-stream prefetcher, as timm's
    // and NVIDIA's loaders run), so this step's first `ready` batches are
    // on the GPU already.
    std::vector<int> copy(micro_batches, kNoTask);
    auto copy_of = [&](int m) {
      const int c = g.Io("data_copy", gpu, preflight::Io::HOST_TO_DEVICE, batch.device_bytes);
      g.SetCategory(c, preflight::DATA);
      if (m < micro_batches) g.Dep(consumer(m), c);
      return c;
    };
    if (!data.pinned)
      for (int m = 0; m < micro_batches; ++m) {
        copy[m] = copy_of(m);
        g.Dep(copy[m], links.before_fwd[0][d][m]);
        if (m > 0) g.Dep(copy[m], copy[m - 1]);
      }
    // Batches ready .. ready + micro_batches - 1: the rest of this step's
    // and the first of the next step's. Each starts when the workers are
    // done with the previous one and the queue has room (the batch `queue`
    // earlier was consumed).
    int previous = kNoTask, previous_copy = kNoTask;
    for (int j = ready; j < ready + micro_batches; ++j) {
      const int room = j - queue >= 0 ? consumer(j - queue) : kNoTask;  // j - queue < micro_batches
      int first = kNoTask;
      if (batch.read_bytes.value() > 0)
        first = g.HostIo("data_read", gpu, data.tier, true, batch.read_bytes, batch.requests_per_worker,
                         preflight::DATA);
      const int decode = g.Cpu("data_decode", node, batch.cpu, data.workers, preflight::DATA);
      if (first == kNoTask) first = decode;
      else g.Dep(decode, first);
      g.Dep(first, previous);
      g.Dep(first, room);
      previous = decode;
      if (j >= micro_batches) continue;  // the next step's: copied then, prefetched
      if (!data.pinned) {
        g.Dep(copy[j], decode);
        continue;
      }
      const int c = copy_of(j);
      g.Dep(c, decode);
      g.Dep(c, previous_copy);  // one copy queue per GPU
      previous_copy = c;
    }
  }
}

}  // namespace pf

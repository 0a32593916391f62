#include "sim/workload/dataloader.h"

#include <algorithm>
#include <vector>

#include "sim/model/data_costs.h"
#include "sim/workload/rank_layout.h"

namespace pf {

void EmitDataLoader(TaskGraph& g, const Scenario& s, int micro_batches, const PipelineLinks& links) {
  const DataSpec& data = s.data;
  if (!data.enabled) return;
  const ParallelSpec& p = s.parallel;
  const BatchCost batch = CostOfBatch(s);
  const int queue = data.prefetch * data.workers;     // batches a loader holds ready
  const int ready = std::min(queue, micro_batches);  // prepared during the previous step
  for (int d = 0; d < p.dp; ++d) {
    const int gpu = GpuIndex(p, 0, d, 0);
    const int node = gpu / s.cluster.node.gpus_per_node;
    // This step's batches go to the GPU in order on the copy stream; the
    // first forward of each waits for its copy.
    std::vector<int> copy(micro_batches);
    for (int m = 0; m < micro_batches; ++m) {
      copy[m] = g.Io("data_copy", gpu, preflight::Io::HOST_TO_DEVICE, batch.device_bytes);
      g.SetCategory(copy[m], preflight::DATA);
      if (m > 0) g.Dep(copy[m], copy[m - 1]);
      g.Dep(links.fwd_in[0][d][m], copy[m]);
    }
    // Batches ready .. ready + micro_batches - 1: the rest of this step's
    // and the first of the next step's. Each starts when the workers are
    // done with the previous one and the queue has room.
    int previous = kNoTask;
    for (int j = ready; j < ready + micro_batches; ++j) {
      const int room = j - queue >= 0 ? copy[j - queue] : kNoTask;  // j - queue < micro_batches
      int first = kNoTask;
      if (batch.read_bytes.value() > 0) {
        first = g.HostIo("data_read", gpu, data.tier, true, batch.read_bytes, batch.requests_per_worker,
                         preflight::DATA);
      }
      const int decode = g.Cpu("data_decode", node, batch.cpu, data.workers, preflight::DATA);
      if (first == kNoTask) first = decode;
      else g.Dep(decode, first);
      g.Dep(first, previous);
      g.Dep(first, room);
      if (j < micro_batches) g.Dep(copy[j], decode);
      previous = decode;
    }
  }
}

}  // namespace pf

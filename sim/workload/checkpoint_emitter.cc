#include "sim/workload/checkpoint_emitter.h"

#include <vector>

#include "sim/model/checkpoint_size.h"
#include "sim/workload/task_graph.h"

namespace pf {

preflight::Workload BuildCheckpointIo(const Scenario& s, bool restore) {
  const CheckpointSize size = SizeOfCheckpoint(s);
  const int per_node = s.cluster.node.gpus_per_node;
  TaskGraph g;
  for (int node = 0; node < s.cluster.nodes; ++node) {
    std::vector<int> copies;
    double bytes = 0;
    for (int gpu = node * per_node; gpu < (node + 1) * per_node; ++gpu) {
      if (size.per_gpu[gpu] <= 0) continue;
      bytes += size.per_gpu[gpu];
      copies.push_back(g.Io("ckpt_copy", gpu,
                            restore ? preflight::Io::HOST_TO_DEVICE : preflight::Io::DEVICE_TO_HOST,
                            Bytes(size.per_gpu[gpu])));
    }
    if (copies.empty()) continue;
    const int io = g.HostIo("ckpt_io", node * per_node, s.checkpoint.tier, restore, Bytes(bytes), 1, preflight::IO);
    for (int c : copies) restore ? g.Dep(c, io) : g.Dep(io, c);
  }
  return SideWorkload(g, s, "checkpoint");
}

}  // namespace pf

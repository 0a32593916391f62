#include "sim/workload/staging_emitter.h"

#include "sim/workload/task_graph.h"

namespace pf {

double StagedBytesPerNode(const Scenario& s) {
  bool shared = false;
  for (const StorageTier& t : s.cluster.storage)
    if (t.name == s.data.tier) shared = t.shared();
  return s.data.size.value() / (shared ? s.cluster.nodes : 1);
}

preflight::Workload BuildStaging(const Scenario& s) {
  const int per_node = s.cluster.node.gpus_per_node;
  const Bytes chunk(StagedBytesPerNode(s) / kStagingChunks);
  TaskGraph g;
  for (int node = 0; node < s.cluster.nodes; ++node) {
    int read = kNoTask, write = kNoTask;
    for (int k = 0; k < kStagingChunks; ++k) {
      const int r = g.HostIo("stage_read", node * per_node, s.job.stage_from, true, chunk, 1, preflight::IO);
      g.Dep(r, read);
      const int w = g.HostIo("stage_write", node * per_node, s.data.tier, false, chunk, 1, preflight::IO);
      g.Dep(w, r);
      g.Dep(w, write);
      read = r, write = w;
    }
  }
  return SideWorkload(g, s, "staging");
}

}  // namespace pf

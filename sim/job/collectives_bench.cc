#include "sim/job/collectives_bench.h"

#include <stdexcept>

#include "sim/collectives/flows.h"
#include "sim/engine/engine.h"
#include "sim/engine/group_paths.h"
#include "sim/workload/task_graph.h"

namespace pf {

namespace {

std::vector<int> Members(const CollectiveBench& b) {
  std::vector<int> g;
  const int per = b.gpus / b.cluster.nodes;
  for (int n = 0; n < b.cluster.nodes; ++n)
    for (int l = 0; l < per; ++l) g.push_back(n * b.cluster.node.gpus_per_node + l);
  return g;
}

preflight::Algorithm ToProto(std::optional<Algorithm> a) {
  return a ? static_cast<preflight::Algorithm>(int(*a) + 1) : preflight::ALGORITHM_AUTO;
}

}  // namespace

std::string CheckCollectiveBench(const CollectiveBench& b) {
  const int per_node = b.cluster.node.gpus_per_node;
  if (b.cluster.nodes < 1) return "--nodes: must be at least 1";
  if (b.gpus < 2) return "--gpus: " + std::to_string(b.gpus) + " GPUs; a collective needs at least 2";
  if (b.gpus % b.cluster.nodes != 0)
    return "--gpus: " + std::to_string(b.gpus) + " GPUs do not divide evenly among " +
           std::to_string(b.cluster.nodes) + " nodes";
  if (b.gpus / b.cluster.nodes > per_node)
    return "--gpus: " + std::to_string(b.gpus / b.cluster.nodes) + " GPUs per node, but " +
           b.cluster.node.name + " has " + std::to_string(per_node) + "; add --nodes";
  if (b.sizes_bytes.empty()) return "--sizes: no sizes";
  if (b.algorithm) {
    const std::vector<int> g = Members(b);
    if (!Offers(*b.algorithm, b.kind, ShapeOf(g, per_node), PathsOf(b.cluster, g)))
      return std::string("--algo: NCCL offers no ") + Name(*b.algorithm) + " algorithm for " + Name(b.kind) +
             " over " + std::to_string(b.gpus) + " GPUs on " + std::to_string(b.cluster.nodes) +
             " node(s) of " + b.cluster.node.name +
             " (tree: all_reduce across nodes; nvls: all_reduce inside one node with nvls: true)";
  }
  return "";
}

std::vector<CollectiveBenchRow> RunCollectiveBench(const CollectiveBench& b) {
  if (const std::string problem = CheckCollectiveBench(b); !problem.empty())
    throw std::invalid_argument(problem);
  const std::vector<int> group = Members(b);
  const int per_node = b.cluster.node.gpus_per_node;
  TaskGraph g;
  int prev = kNoTask;
  for (double size : b.sizes_bytes) {
    std::vector<int> ids;
    if (b.kind == CollectiveKind::kSendRecv) {
      // Each rank sends to the next and receives from the previous.
      for (size_t i = 0; i < group.size(); ++i)
        ids.push_back(g.Transfer("sendrecv", group[i], group[(i + 1) % group.size()], Bytes(size), 1));
    } else {
      ids.push_back(g.Collective(Name(b.kind), preflight::TP_COMM, static_cast<preflight::CollectiveKind>(b.kind),
                                 group, Bytes(size), 1, 1));
    }
    // A zero-time join after each size keeps the sizes one after another;
    // a size's time is from the previous join's end to its own.
    const int join = g.Compute(0, "join", Work{});
    for (int id : ids) {
      g.Dep(id, prev);
      g.Dep(join, id);
    }
    prev = join;
  }
  preflight::Workload w;
  g.Finish(w);
  for (auto& task : *w.mutable_tasks())
    if (task.has_collective()) task.mutable_collective()->set_algorithm(ToProto(b.algorithm));
  w.set_gpus(b.cluster.gpus());
  w.set_gpus_per_node(per_node);
  Scenario s;
  s.cluster = b.cluster;
  s.calibration.nccl_compute_share = 0;  // no compute to share the GPUs with
  const TaskTimes t = RunWorkload(s, w);
  std::vector<double> join_ends;  // the joins are the only compute tasks, in order
  for (int i = 0; i < w.tasks_size(); ++i)
    if (w.tasks(i).has_compute()) join_ends.push_back(t.end_s[i]);

  // What the model picked, for the table (the engine plans the same).
  const std::vector<int> planned =
      b.kind == CollectiveKind::kSendRecv ? std::vector<int>{group[0], group[1]} : group;
  const GroupShape shape = ShapeOf(planned, per_node);
  const GroupPaths paths = PathsOf(b.cluster, planned);
  const int n = static_cast<int>(planned.size());
  std::vector<CollectiveBenchRow> rows;
  for (size_t k = 0; k < b.sizes_bytes.size(); ++k) {
    CollectiveBenchRow r;
    r.size_bytes = b.sizes_bytes[k];
    r.time_s = join_ends[k] - (k == 0 ? 0 : join_ends[k - 1]);
    r.algbw_gbps = r.size_bytes / r.time_s / 1e9;
    r.busbw_gbps = r.algbw_gbps * (BusBytes(b.kind, n, Bytes(r.size_bytes)).value() / r.size_bytes);
    const auto plan = PlanCollective(b.kind, shape, paths, Bytes(r.size_bytes), NcclConstants(), b.algorithm);
    if (plan) r.algorithm = plan->algorithm, r.protocol = plan->protocol;
    rows.push_back(r);
  }
  return rows;
}

std::vector<double> DoublingSizes(double first, double last) {
  std::vector<double> out;
  for (double s = first; s <= last * (1 + 1e-12) && out.size() < 64; s *= 2) out.push_back(s);
  return out;
}

}  // namespace pf

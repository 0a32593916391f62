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
  std::vector<std::vector<int>> tasks;  // per size
  int prev = kNoTask;
  for (double size : b.sizes_bytes) {
    std::vector<int> ids;
    if (b.kind == CollectiveKind::kSendRecv) {
      // Each rank sends to the next and receives from the previous.
      for (size_t i = 0; i < group.size(); ++i)
        ids.push_back(g.Transfer("sendrecv", group[i], group[(i + 1) % group.size()], Bytes(size), 1));
    } else {
      const int id = g.Collective(Name(b.kind), preflight::TP_COMM,
                                  static_cast<preflight::CollectiveKind>(b.kind), group, Bytes(size), 1, 1);
      ids.push_back(id);
    }
    for (int id : ids) g.Dep(id, prev);
    // A zero-time join keeps the sizes one after another.
    const int join = g.Compute(0, "join", Work{Seconds(0), Flops(0)});
    for (int id : ids) g.Dep(join, id);
    prev = join;
    tasks.push_back(ids);
  }
  preflight::Workload w;
  g.Finish(w);
  for (int i = 0; i < w.tasks_size(); ++i)
    if (w.tasks(i).has_collective()) {
      auto* c = w.mutable_tasks(i)->mutable_collective();
      c->set_algorithm(ToProto(b.algorithm));
    }
  Scenario s;
  s.cluster = b.cluster;
  s.calibration.nccl_compute_share = 0;
  w.set_gpus(b.cluster.gpus());
  w.set_gpus_per_node(per_node);
  const TaskTimes t = RunWorkload(s, w);

  std::vector<CollectiveBenchRow> rows;
  size_t next = 0;
  for (size_t k = 0; k < b.sizes_bytes.size(); ++k) {
    // The tasks of size k are the next non-join tasks in order.
    double start = 1e300, end = 0;
    size_t found = 0;
    for (; next < size_t(w.tasks_size()) && found < tasks[k].size(); ++next) {
      const auto& task = w.tasks(next);
      if (task.has_compute()) continue;
      start = std::min(start, t.start_s[next]);
      end = std::max(end, t.end_s[next]);
      ++found;
    }
    CollectiveBenchRow r;
    r.size_bytes = b.sizes_bytes[k];
    r.time_s = end - start;
    r.algbw_gbps = r.size_bytes / r.time_s / 1e9;
    const int n = b.kind == CollectiveKind::kSendRecv ? 2 : b.gpus;
    r.busbw_gbps = r.algbw_gbps * (BusBytes(b.kind, n, Bytes(r.size_bytes)).value() / r.size_bytes);
    const std::vector<int> planned =
        b.kind == CollectiveKind::kSendRecv ? std::vector<int>{group[0], group[1]} : group;
    const auto plan = PlanCollective(b.kind, ShapeOf(planned, per_node), PathsOf(b.cluster, planned),
                                     Bytes(r.size_bytes), NcclConstants(), b.algorithm);
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

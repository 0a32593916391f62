#include "sim/workload/task_graph.h"

#include <queue>
#include <stdexcept>

namespace pf {

int TaskGraph::Add(preflight::Task t) {
  tasks_.push_back(std::move(t));
  return size() - 1;
}

void TaskGraph::Dep(int task, int dep) {
  if (dep == kNoTask) return;
  if (task < 0 || task >= size() || dep < 0 || dep >= size())
    throw std::logic_error("task graph: dependency " + std::to_string(task) + " <- " +
                           std::to_string(dep) + " names no task");
  tasks_[task].add_deps(dep);
}

int TaskGraph::Compute(int gpu, std::string name, Work w, preflight::Category c) {
  preflight::Task t;
  t.set_name(std::move(name));
  t.set_category(c);
  auto* x = t.mutable_compute();
  x->set_gpu(gpu);
  x->set_duration_s(w.seconds.value());
  x->set_flops(w.flops.value());
  return Add(std::move(t));
}

int TaskGraph::Collective(std::string name, preflight::Category c, preflight::CollectiveKind kind,
                          const std::vector<int>& gpus, Bytes size, int count, int lanes) {
  preflight::Task t;
  t.set_name(std::move(name));
  t.set_category(c);
  auto* x = t.mutable_collective();
  x->set_kind(kind);
  for (int g : gpus) x->add_gpus(g);
  x->set_size_bytes(size.value());
  x->set_count(count);
  x->set_lanes(lanes);
  x->set_lane_stride(1);
  return Add(std::move(t));
}

int TaskGraph::Transfer(std::string name, int src, int dst, Bytes size, int lanes) {
  preflight::Task t;
  t.set_name(std::move(name));
  t.set_category(preflight::PP_COMM);
  auto* x = t.mutable_transfer();
  x->set_src_gpu(src);
  x->set_dst_gpu(dst);
  x->set_size_bytes(size.value());
  x->set_lanes(lanes);
  x->set_lane_stride(1);
  return Add(std::move(t));
}

int TaskGraph::Io(std::string name, int gpu, preflight::Io::Direction direction, Bytes size) {
  preflight::Task t;
  t.set_name(std::move(name));
  t.set_category(preflight::IO);
  auto* x = t.mutable_io();
  x->set_gpu(gpu);
  x->set_direction(direction);
  x->set_size_bytes(size.value());
  return Add(std::move(t));
}

void TaskGraph::Finish(preflight::Workload& w) {
  const int n = size();
  std::vector<int> indegree(n), order, new_index(n, kNoTask);
  std::vector<std::vector<int>> succ(n);
  for (int i = 0; i < n; ++i)
    for (int d : tasks_[i].deps()) succ[d].push_back(i), ++indegree[i];
  std::queue<int> ready;
  for (int i = 0; i < n; ++i)
    if (indegree[i] == 0) ready.push(i);
  while (!ready.empty()) {
    int i = ready.front();
    ready.pop();
    new_index[i] = static_cast<int>(order.size());
    order.push_back(i);
    for (int j : succ[i])
      if (--indegree[j] == 0) ready.push(j);
  }
  if (static_cast<int>(order.size()) != n)
    throw std::logic_error("workload emitters produced a dependency cycle");
  for (int i : order) {
    preflight::Task* out = w.add_tasks();
    *out = std::move(tasks_[i]);
    for (int k = 0; k < out->deps_size(); ++k) out->set_deps(k, new_index[out->deps(k)]);
  }
  tasks_.clear();
}

}  // namespace pf

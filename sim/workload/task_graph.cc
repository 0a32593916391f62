#include "sim/workload/task_graph.h"

#include <cmath>
#include <stdexcept>

#include "sim/workload/workload_check.h"

namespace pf {

TaskGraph::~TaskGraph() {
  if (arena_ == nullptr)
    for (preflight::Task* t : tasks_) delete t;
}

preflight::Task* TaskGraph::New(std::string name, preflight::Category c) {
  tasks_.push_back(google::protobuf::Arena::CreateMessage<preflight::Task>(arena_));
  tasks_.back()->set_name(std::move(name));
  tasks_.back()->set_category(c);
  return tasks_.back();
}

void TaskGraph::Dep(int task, int dep) {
  if (dep == kNoTask) return;
  if (task < 0 || task >= size() || dep < 0 || dep >= size())
    throw std::logic_error("task graph: dependency " + std::to_string(task) + " <- " +
                           std::to_string(dep) + " names no task");
  deps_.push_back({task, dep});
}

int TaskGraph::Compute(int gpu, std::string name, Work w, preflight::Category c) {
  auto* x = New(std::move(name), c)->mutable_compute();
  x->set_gpu(gpu);
  x->set_duration_s(w.seconds.value());
  x->set_flops(w.flops.value());
  x->set_host_wait_s(w.host_wait.value());
  return this->size() - 1;
}

int TaskGraph::Collective(std::string name, preflight::Category c, preflight::CollectiveKind kind,
                          const std::vector<int>& gpus, Bytes size, int count, int lanes) {
  auto* x = New(std::move(name), c)->mutable_collective();
  x->set_kind(kind);
  for (int g : gpus) x->add_gpus(g);
  x->set_size_bytes(size.value());
  x->set_count(count);
  x->set_lanes(lanes);
  x->set_lane_stride(1);
  return this->size() - 1;
}

int TaskGraph::Transfer(std::string name, int src, int dst, Bytes size, int lanes) {
  auto* x = New(std::move(name), preflight::PP_COMM)->mutable_transfer();
  x->set_src_gpu(src);
  x->set_dst_gpu(dst);
  x->set_size_bytes(size.value());
  x->set_lanes(lanes);
  x->set_lane_stride(1);
  return this->size() - 1;
}

int TaskGraph::Io(std::string name, int gpu, preflight::Io::Direction direction, Bytes size) {
  auto* x = New(std::move(name), preflight::IO)->mutable_io();
  x->set_gpu(gpu);
  x->set_direction(direction);
  x->set_size_bytes(size.value());
  return this->size() - 1;
}

int TaskGraph::HostIo(std::string name, int gpu, const std::string& tier, bool in, Bytes size, double requests,
                      preflight::Category c) {
  auto* x = New(std::move(name), c)->mutable_io();
  x->set_gpu(gpu);
  x->set_direction(in ? preflight::Io::HOST_TO_DEVICE : preflight::Io::DEVICE_TO_HOST);
  x->set_size_bytes(size.value());
  x->set_tier(tier);
  x->set_host_only(true);
  x->set_requests(static_cast<uint32_t>(std::ceil(requests)));
  return this->size() - 1;
}

int TaskGraph::Cpu(std::string name, int node, Seconds core_seconds, int threads, preflight::Category c) {
  auto* x = New(std::move(name), c)->mutable_cpu();
  x->set_node(node);
  x->set_core_seconds(core_seconds.value());
  x->set_threads(threads);
  return this->size() - 1;
}

void TaskGraph::SetCategory(int task, preflight::Category c) {
  if (task < 0 || task >= size()) throw std::logic_error("task graph: no task " + std::to_string(task));
  tasks_[task]->set_category(c);
}

void TaskGraph::Finish(preflight::Workload& w) {
  if (w.GetArena() != arena_) throw std::logic_error("task graph: the workload is on another arena");
  const int n = size();
  // Dependencies and successors as arrays: task i's dependencies are
  // dep[first_dep[i], first_dep[i + 1]), in the order added; task d's
  // successors succ[first_succ[d], first_succ[d + 1]), in increasing order.
  std::vector<int> first_dep(n + 1, 0), first_succ(n + 1, 0), dep(deps_.size()), succ(deps_.size());
  for (const auto& [task, d] : deps_) ++first_dep[task + 1], ++first_succ[d + 1];
  for (int i = 0; i < n; ++i) first_dep[i + 1] += first_dep[i], first_succ[i + 1] += first_succ[i];
  {
    std::vector<int> next(first_dep.begin(), first_dep.end() - 1);
    for (const auto& [task, d] : deps_) dep[next[task]++] = d;
    next.assign(first_succ.begin(), first_succ.end() - 1);
    for (int i = 0; i < n; ++i)
      for (int k = first_dep[i]; k < first_dep[i + 1]; ++k) succ[next[dep[k]]++] = i;
  }
  // Kahn's algorithm, FIFO: `order` is its queue.
  std::vector<int> indegree(n), order, new_index(n, kNoTask);
  for (int i = 0; i < n; ++i) indegree[i] = first_dep[i + 1] - first_dep[i];
  order.reserve(n);
  for (int i = 0; i < n; ++i)
    if (indegree[i] == 0) order.push_back(i);
  for (size_t head = 0; head < order.size(); ++head) {
    const int i = order[head];
    new_index[i] = static_cast<int>(head);
    for (int k = first_succ[i]; k < first_succ[i + 1]; ++k)
      if (--indegree[succ[k]] == 0) order.push_back(succ[k]);
  }
  if (static_cast<int>(order.size()) != n)
    throw std::logic_error("workload emitters produced a dependency cycle");
  w.mutable_tasks()->Reserve(w.tasks_size() + n);
  for (int i : order) {
    preflight::Task* out = tasks_[i];
    auto* deps = out->mutable_deps();
    deps->Reserve(first_dep[i + 1] - first_dep[i]);
    for (int k = first_dep[i]; k < first_dep[i + 1]; ++k) deps->AddAlreadyReserved(new_index[dep[k]]);
    w.mutable_tasks()->AddAllocated(out);  // same arena: no copy
  }
  tasks_.clear();
  deps_.clear();
}

preflight::Workload SideWorkload(TaskGraph& g, const Scenario& s, const std::string& what) {
  preflight::Workload w;
  w.set_scenario(s.name + " (" + what + ")");
  w.set_gpus(s.cluster.gpus());
  w.set_gpus_per_node(s.cluster.node.gpus_per_node);
  w.set_schema_version(kWorkloadSchemaVersion);
  g.Finish(w);
  return w;
}

}  // namespace pf

// A builder for preflight.Workload task graphs, independent of any one
// schedule: typed adders for each task kind, dependencies by task id, and
// Finish(), which renumbers the tasks in topological order (every
// dependency before its dependents, as the engine requires). Emitters
// (stage compute, data parallel, pipeline, later dataloader and
// checkpoints) each add their tasks through one TaskGraph.
#pragma once

#include <string>
#include <vector>

#include "sim/base/units.h"
#include "sim/proto/workload.pb.h"
#include "sim/spec/spec.h"

namespace pf {

// Seconds and executed (hardware) FLOPs of a run of kernels on one GPU.
struct Work {
  Seconds seconds;
  Flops flops;
  Seconds host_wait;  // of `seconds`, the GPU waiting for the host to issue kernels
  Work operator*(double k) const { return {seconds * k, flops * k, host_wait * k}; }
  Work operator+(Work o) const { return {seconds + o.seconds, flops + o.flops, host_wait + o.host_wait}; }
};

// Task ids are indices in insertion order until Finish(); kNoTask (-1)
// stands for "no such task" and is ignored by Dep().
constexpr int kNoTask = -1;

class TaskGraph {
 public:
  // Tasks are made on `arena` (none: the heap); Finish() hands them to a
  // workload on the same arena without copying them.
  explicit TaskGraph(google::protobuf::Arena* arena = nullptr) : arena_(arena) {}
  ~TaskGraph();
  TaskGraph(const TaskGraph&) = delete;
  TaskGraph& operator=(const TaskGraph&) = delete;

  // Kernels on `gpu`, back to back.
  int Compute(int gpu, std::string name, Work w, preflight::Category c = preflight::COMPUTE);
  // `count` back-to-back collectives of `size` each over `gpus`, replicated
  // on `lanes` groups offset by 1 (the TP ranks a worker stands for).
  int Collective(std::string name, preflight::Category c, preflight::CollectiveKind kind,
                 const std::vector<int>& gpus, Bytes size, int count, int lanes);
  // A pipeline send of `size` from `src` to `dst`, replicated on `lanes`.
  int Transfer(std::string name, int src, int dst, Bytes size, int lanes);
  // A host <-> GPU copy of `size` over the GPU's PCIe link.
  int Io(std::string name, int gpu, preflight::Io::Direction direction, Bytes size);
  // Bytes between storage tier `tier` and the host memory of `gpu`'s node
  // (in: a read), after `requests` requests one after another (io.proto).
  int HostIo(std::string name, int gpu, const std::string& tier, bool in, Bytes size, double requests,
             preflight::Category c);
  // `core_seconds` of CPU work on `node`, over `threads` cores.
  int Cpu(std::string name, int node, Seconds core_seconds, int threads, preflight::Category c);
  // Task `task`'s category (e.g. an input copy counted as DATA).
  void SetCategory(int task, preflight::Category c);

  // `task` starts only after `dep` ends. No-op when dep is kNoTask.
  // REQUIRES: both name tasks added so far (else std::logic_error).
  void Dep(int task, int dep);
  int size() const { return static_cast<int>(tasks_.size()); }

  // Moves the tasks into `w` in topological order (Kahn), rewriting
  // dependencies to the new indices. Throws std::logic_error on a cycle,
  // which is a bug in an emitter. REQUIRES: `w` is on this graph's arena.
  void Finish(preflight::Workload& w);

 private:
  preflight::Task* New(std::string name, preflight::Category c);
  google::protobuf::Arena* arena_;
  std::vector<preflight::Task*> tasks_;  // owned unless on an arena
  // (task, dependency) pairs, written into the tasks by Finish().
  std::vector<std::pair<int, int>> deps_;
};

// A workload of its own beside the step (a checkpoint's I/O, staging),
// named "<scenario> (<what>)", for the scenario's cluster, holding `g`'s
// tasks (g.Finish).
preflight::Workload SideWorkload(TaskGraph& g, const Scenario& s, const std::string& what);

}  // namespace pf

#include "sim/report/trace.h"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

namespace pf {
namespace {

using nlohmann::json;

// What a wait on a task of `c` is called on the GPU's track.
std::string WaitName(preflight::Category c, bool pipelined) {
  switch (c) {
    case preflight::TP_COMM: return "wait: TP collective";
    case preflight::EP_COMM: return "wait: EP all-to-all";
    case preflight::CP_COMM: return "wait: CP K/V exchange";
    case preflight::PP_COMM: return pipelined ? "pipeline bubble" : "wait: pipeline send";
    case preflight::DP_COMM: return "wait: DP collective";
    case preflight::IO: return "wait: host I/O";
    case preflight::DATA: return "data wait";
    case preflight::OPTIMIZER: return "wait: optimizer (offloaded)";
    default: return pipelined ? "pipeline bubble" : "idle";
  }
}

const char* CategoryName(preflight::Category c) {
  switch (c) {
    case preflight::COMPUTE: return "compute";
    case preflight::OPTIMIZER: return "optimizer";
    case preflight::TP_COMM: return "tp_comm";
    case preflight::EP_COMM: return "ep_comm";
    case preflight::CP_COMM: return "cp_comm";
    case preflight::PP_COMM: return "pp_comm";
    case preflight::DP_COMM: return "dp_comm";
    case preflight::IO: return "io";
    case preflight::DATA: return "data";
    default: return "other";
  }
}

// Intervals put on the first of a process's lanes where they do not overlap
// the lane's last (greedy interval partitioning over start order).
struct Lanes {
  std::vector<double> ends;
  int Place(double start, double end) {
    for (size_t k = 0; k < ends.size(); ++k)
      if (ends[k] <= start) {
        ends[k] = end;
        return static_cast<int>(k);
      }
    ends.push_back(end);
    return static_cast<int>(ends.size()) - 1;
  }
};

}  // namespace

std::string RenderTrace(const Scenario& s, const StepTrace& t) {
  const preflight::Workload& w = t.workload;
  const TaskTimes& tt = t.times;
  const bool pipelined = s.parallel.pp > 1;
  auto us = [](double seconds) { return seconds * 1e6; };
  json events = json::array();
  auto event = [&](int pid, int tid, const std::string& name, const char* cat, double start, double end) {
    events.push_back({{"ph", "X"}, {"pid", pid}, {"tid", tid}, {"name", name}, {"cat", cat}, {"ts", us(start)},
                      {"dur", us(std::max(0.0, end - start))}});
  };
  auto name_track = [&](int pid, int tid, const std::string& name) {
    events.push_back({{"ph", "M"}, {"pid", pid}, {"tid", tid}, {"name", "thread_name"}, {"args", {{"name", name}}}});
  };
  // Processes: worker GPUs by index, then nodes' CPUs after them.
  std::map<uint32_t, int> pid_of;
  for (uint32_t g : w.workers()) pid_of.emplace(g, 0);
  int next_pid = 1;
  for (auto& [g, pid] : pid_of) {
    pid = next_pid++;
    const long long d = (g / std::max(1, s.parallel.tp)) % std::max(1, s.parallel.dp);
    const long long stage = g / (static_cast<long long>(s.parallel.tp) * s.parallel.dp);
    events.push_back({{"ph", "M"}, {"pid", pid}, {"name", "process_name"},
                      {"args", {{"name", "GPU " + std::to_string(g) + " (stage " + std::to_string(stage) + ", DP " +
                                             std::to_string(d) + ")"}}}});
    name_track(pid, 0, "kernels and waits");
  }
  const int cpu_pid0 = next_pid;

  // Tasks by start time.
  std::vector<int> order(w.tasks_size());
  for (int i = 0; i < w.tasks_size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return tt.start_s[a] < tt.start_s[b]; });
  std::map<int, Lanes> lanes;                // by pid: tracks 1.. for communication and data
  std::map<int, double> compute_end;         // by pid: where the kernel track stands
  std::map<int, Lanes> cpu_lanes;            // by node
  for (int i : order) {
    const preflight::Task& task = w.tasks(i);
    const double start = tt.start_s[i], end = tt.end_s[i];
    const char* cat = CategoryName(task.category());
    if (task.has_compute()) {
      const auto p = pid_of.find(task.compute().gpu());
      if (p == pid_of.end()) continue;
      double& at = compute_end[p->second];
      // The part the GPU waited for the host to issue the kernels, in the
      // event's args (the breakdown's host_wait_s).
      auto host_wait = [&] {
        if (task.compute().host_wait_s() > 0) events.back()["args"] = {{"host_wait_us", us(task.compute().host_wait_s())}};
      };
      if (start < at) {  // overlapping kernels (an imported workload may have them): a lane of their own
        event(p->second, 1 + lanes[p->second].Place(start, end), task.name(), cat, start, end);
        host_wait();
        continue;
      }
      if (start > at) {  // the gap: what the kernel waited for last
        int critical = -1;
        for (uint32_t d : task.deps())
          if (critical < 0 || tt.end_s[d] > tt.end_s[critical]) critical = static_cast<int>(d);
        const preflight::Category why = critical >= 0 ? w.tasks(critical).category() : preflight::COMPUTE;
        event(p->second, 0, WaitName(why, pipelined), "wait", at, start);
      }
      event(p->second, 0, task.name(), cat, start, end);
      host_wait();
      at = std::max(at, end);
      continue;
    }
    if (task.has_cpu()) {
      const int node = static_cast<int>(task.cpu().node());
      const int lane = cpu_lanes[node].Place(start, end);
      event(cpu_pid0 + node, lane, task.name(), cat, start, end);
      continue;
    }
    std::vector<uint32_t> gpus;
    if (task.has_collective()) gpus.assign(task.collective().gpus().begin(), task.collective().gpus().end());
    if (task.has_transfer()) gpus = {task.transfer().src_gpu(), task.transfer().dst_gpu()};
    if (task.has_io()) gpus = {task.io().gpu()};
    for (uint32_t g : gpus) {
      const auto p = pid_of.find(g);
      if (p == pid_of.end()) continue;
      const int lane = 1 + lanes[p->second].Place(start, end);
      event(p->second, lane, task.name(), cat, start, end);
    }
  }
  // The tail of each kernel track, to the step's end: named by the task
  // that ends the step (the loader preparing the next step's batches, an
  // offloaded optimizer, a collective), as the breakdown counts it.
  int last = 0;
  for (int i = 1; i < w.tasks_size(); ++i)
    if (tt.end_s[i] > tt.end_s[last]) last = i;
  const preflight::Category ends = w.tasks_size() > 0 ? w.tasks(last).category() : preflight::COMPUTE;
  for (auto& [pid, at] : compute_end)
    if (tt.makespan_s > at) event(pid, 0, WaitName(ends, pipelined), "wait", at, tt.makespan_s);
  for (auto& [pid, l] : lanes)
    for (size_t k = 0; k < l.ends.size(); ++k) name_track(pid, int(k) + 1, "communication and data " + std::to_string(k + 1));
  for (auto& [node, l] : cpu_lanes) {
    events.push_back({{"ph", "M"}, {"pid", cpu_pid0 + node}, {"name", "process_name"},
                      {"args", {{"name", "node " + std::to_string(node) + " CPU"}}}});
    for (size_t k = 0; k < l.ends.size(); ++k) name_track(cpu_pid0 + node, int(k), "worker lane " + std::to_string(k + 1));
  }
  json out = {{"traceEvents", events},
              {"displayTimeUnit", "ms"},
              {"otherData", {{"scenario", s.name}, {"step_time_s", tt.makespan_s}}}};
  return out.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace pf

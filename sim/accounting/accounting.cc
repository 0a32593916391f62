#include "sim/accounting/accounting.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "sim/proto/categories.h"

namespace pf {
namespace {

// Tasks that move bytes rather than compute: their time shows as exposed
// when a GPU waits for them.
bool MovesBytes(preflight::Category c) {
  return IsCommCategory(c) || c == preflight::IO || c == preflight::DATA;
}

Seconds& Slot(Breakdown& b, preflight::Category c) {
  switch (c) {
    case preflight::TP_COMM: return b.tp_comm;
    case preflight::EP_COMM: return b.ep_comm;
    case preflight::CP_COMM: return b.cp_comm;
    case preflight::PP_COMM: return b.pp_comm;
    case preflight::DP_COMM: return b.dp_comm;
    case preflight::IO: return b.io;
    case preflight::DATA: return b.data_stall;
    case preflight::OPTIMIZER: return b.optimizer;
    default: return b.compute;
  }
}

// A task of the optimizer step off the GPU (ZeRO-Offload's copies and CPU
// Adam): the GPU's wait for it is optimizer time.
bool OffGpuOptimizer(const preflight::Task& t) {
  return t.category() == preflight::OPTIMIZER && !t.has_compute();
}

// Calls f(gpu) for each GPU a communication task involves (lane 0, as
// listed in the task).
template <typename F>
void ForParticipants(const preflight::Task& t, F f) {
  if (t.has_collective())
    for (uint32_t g : t.collective().gpus()) f(g);
  if (t.has_transfer()) f(t.transfer().src_gpu()), f(t.transfer().dst_gpu());
  if (t.has_io()) f(t.io().gpu());
}

// Charges the wait [from, to) to communication task `c` (what part of it the
// transfer covered), and when `c` itself waited on a communication task of
// the chain before it (the buckets of a gradient stream, HSDP's all-reduces
// after one another on a communicator) that one's part before, and so on;
// the rest to bubble or idle.
void ChargeWait(Breakdown& b, const preflight::Workload& w, const TaskTimes& t, int c, double from, double to,
                bool pipelined) {
  double covered_to = to;
  const bool stage_wait = pipelined && (w.tasks(c).category() == preflight::PP_COMM);
  for (int cur = c; cur >= 0 && covered_to > from;) {
    const double start = std::max(from, t.start_s[cur]);
    Slot(b, w.tasks(cur).category()) += Seconds(std::max(0.0, covered_to - start));
    covered_to = std::min(covered_to, start);
    int before = -1;  // what `cur` waited for last
    for (uint32_t d : w.tasks(cur).deps())
      if (before < 0 || t.end_s[d] > t.end_s[before]) before = static_cast<int>(d);
    const bool chained = before >= 0 && MovesBytes(w.tasks(before).category()) &&
                         w.tasks(before).category() == w.tasks(cur).category() &&
                         t.end_s[before] >= t.start_s[cur] - 1e-12;
    cur = chained ? before : -1;
  }
  (stage_wait ? b.bubble : b.idle) += Seconds(std::max(0.0, covered_to - from));
}

// One worker's compute tasks in time order: each task's own time, and the
// gap before it charged to the dependency that ended last. Tasks that
// overlap on the GPU (a hand-made workload can start two at once) count
// once: a task is charged only for its time after the work before it
// ended, so the parts add up to the GPU's busy time.
double AccountTasks(const preflight::Workload& w, const TaskTimes& t, std::vector<int>& tasks,
                    bool pipelined, Breakdown& b) {
  std::sort(tasks.begin(), tasks.end(), [&](int x, int y) { return t.start_s[x] < t.start_s[y]; });
  double prev_end = 0;
  for (int i : tasks) {
    const preflight::Task& task = w.tasks(i);
    const double charged = std::max(0.0, t.end_s[i] - std::max(t.start_s[i], prev_end));
    Slot(b, task.category()) += Seconds(charged);
    // The host's share of the kernels' time, in proportion to what counts
    // (only COMPUTE tasks carry one: workload_check.h).
    const double ran = t.end_s[i] - t.start_s[i];
    if (task.has_compute() && ran > 0)
      b.host_wait += Seconds(task.compute().host_wait_s() * std::min(1.0, charged / ran));
    double gap = t.start_s[i] - prev_end;
    if (gap > 0) {
      int critical = -1;
      for (uint32_t d : task.deps())
        if (critical < 0 || t.end_s[d] > t.end_s[critical]) critical = static_cast<int>(d);
      if (critical >= 0 && w.tasks(critical).category() == preflight::DATA)
        b.data_stall += Seconds(gap);  // the whole wait: the input pipeline is one chain
      else if (critical >= 0 && OffGpuOptimizer(w.tasks(critical)))
        b.optimizer += Seconds(gap);
      else if (critical >= 0 && MovesBytes(w.tasks(critical).category()))
        ChargeWait(b, w, t, critical, prev_end, t.start_s[i], pipelined);
      else
        (pipelined ? b.bubble : b.idle) += Seconds(gap);
    }
    prev_end = std::max(prev_end, t.end_s[i]);
  }
  return prev_end;
}

// The tail after a worker's last task ends at `prev_end`: communication it
// takes part in (`comm`) that outlasts its work, then bubble or idle.
void AccountTail(const preflight::Workload& w, const TaskTimes& t, const std::vector<int>& comm,
                 double prev_end, bool pipelined, bool data_ends_step, Breakdown& b) {
  double tail = t.makespan_s - prev_end;
  if (tail <= 0) return;
  if (data_ends_step) {  // the loader preparing the next step's batches sets the step time
    b.data_stall += Seconds(tail);
    return;
  }
  int last = -1;
  for (int i : comm)
    if (t.end_s[i] > prev_end && (last < 0 || t.end_s[i] > t.end_s[last])) last = i;
  if (last >= 0 && OffGpuOptimizer(w.tasks(last))) {
    const double covered_to = std::min(t.end_s[last], t.makespan_s);
    b.optimizer += Seconds(covered_to - prev_end);
    (pipelined ? b.bubble : b.idle) += Seconds(t.makespan_s - covered_to);
  } else if (last >= 0) {
    double covered_to = std::min(t.end_s[last], t.makespan_s);
    ChargeWait(b, w, t, last, prev_end, covered_to, pipelined);
    (pipelined ? b.bubble : b.idle) += Seconds(t.makespan_s - covered_to);
  } else {
    (pipelined ? b.bubble : b.idle) += Seconds(tail);
  }
}

void Add(Breakdown& total, const Breakdown& b) {
  total.compute += b.compute;
  total.host_wait += b.host_wait;
  total.optimizer += b.optimizer;
  total.tp_comm += b.tp_comm;
  total.ep_comm += b.ep_comm;
  total.cp_comm += b.cp_comm;
  total.pp_comm += b.pp_comm;
  total.dp_comm += b.dp_comm;
  total.io += b.io;
  total.bubble += b.bubble;
  total.idle += b.idle;
  total.data_stall += b.data_stall;
}

}  // namespace

Breakdown AccountTime(const preflight::Workload& w, const TaskTimes& t, bool pipelined) {
  const int n = w.tasks_size();
  if (t.start_s.size() != size_t(n) || t.end_s.size() != size_t(n))
    throw std::invalid_argument("accounting: " + std::to_string(t.start_s.size()) + " start and " +
                                std::to_string(t.end_s.size()) + " end times for " + std::to_string(n) +
                                " tasks");
  for (int i = 0; i < n; ++i)
    for (uint32_t d : w.tasks(i).deps())
      if (d >= uint32_t(i))
        throw std::invalid_argument("accounting: task " + std::to_string(i) + " depends on a later task " +
                                    std::to_string(d));
  // Per GPU (the workers and every GPU that computes, in GPU order): its
  // kernels, and the communication it takes part in.
  std::map<uint32_t, std::vector<int>> by_gpu;
  for (uint32_t g : w.workers()) by_gpu[g];
  for (int i = 0; i < n; ++i)
    if (w.tasks(i).has_compute()) by_gpu[w.tasks(i).compute().gpu()];
  std::unordered_map<uint32_t, std::vector<int>*> tasks_of;
  for (auto& [gpu, tasks] : by_gpu) tasks_of[gpu] = &tasks;
  std::unordered_map<uint32_t, std::vector<int>> comm_by_gpu;
  for (int i = 0; i < n; ++i) {
    const preflight::Task& task = w.tasks(i);
    if (task.has_compute()) tasks_of[task.compute().gpu()]->push_back(i);
    if (MovesBytes(task.category()) || OffGpuOptimizer(task))
      ForParticipants(task, [&](uint32_t g) {
        if (tasks_of.count(g)) comm_by_gpu[g].push_back(i);
      });
  }
  // The task that ends the step.
  int last = 0;
  for (int i = 1; i < n; ++i)
    if (t.end_s[i] > t.end_s[last]) last = i;
  const bool data_ends_step = n > 0 && w.tasks(last).category() == preflight::DATA;
  Breakdown total;
  for (auto& [gpu, tasks] : by_gpu) {
    Breakdown b;
    const double prev_end = AccountTasks(w, t, tasks, pipelined, b);
    AccountTail(w, t, comm_by_gpu[gpu], prev_end, pipelined, data_ends_step, b);
    Add(total, b);
  }
  const double k = 1.0 / std::max<size_t>(1, by_gpu.size());
  Breakdown out;
  out.compute = total.compute * k, out.host_wait = total.host_wait * k;
  out.optimizer = total.optimizer * k, out.tp_comm = total.tp_comm * k;
  out.ep_comm = total.ep_comm * k, out.cp_comm = total.cp_comm * k;
  out.pp_comm = total.pp_comm * k, out.dp_comm = total.dp_comm * k, out.io = total.io * k;
  out.bubble = total.bubble * k, out.idle = total.idle * k, out.data_stall = total.data_stall * k;
  return out;
}

}  // namespace pf

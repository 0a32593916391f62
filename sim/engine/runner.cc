#include "sim/engine/runner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include <simgrid/s4u.hpp>

#include "sim/collectives/nccl.h"
#include "sim/collectives/flows.h"
#include "sim/engine/group_paths.h"
#include "sim/engine/nccl_share.h"
#include "sim/engine/platform.h"
#include "sim/engine/reductions.h"
#include "sim/engine/task_checks.h"

namespace pf {
namespace sg = simgrid::s4u;

namespace {

// SimGrid 3.32 keeps the activities (kernels, flows) it runs in one list
// and removes each finished one by a linear scan, so a completion costs
// time in proportion to the activities then in flight (10-100 ns each). A
// run stops with std::invalid_argument when the sum of those counts over
// its completions passes max(kMinOverlapBudget, kOverlapPerGpu x GPUs x the
// workload's activities), capped at MaxInFlightScans (engine.h: kMaxInFlightScans,
// ~2.5 minutes at the slowest rate measured and above the largest sum a bundled
// scenario needs, at the default --max-tasks; more above it). Measured sums: gpt3_175b_1024xA100 1.2e8 (2 s),
// megatron_529p6b_2520xA100 8.6e8 (13 s), 1,024 GPUs in DP with
// overlapped gradient buckets 8.1e8 of 2.5e9 (33 s), 16,384 GPUs in DP
// 1.1e9 (133 s); 20,000 kernels started one after another while the
// earlier ones still run, on 8 GPUs, 4e8 (35 s).
constexpr double kMinOverlapBudget = 1e8;
constexpr double kOverlapPerGpu = 32;

// `x` with two significant digits, as the refusals print counts.
std::string TwoDigits(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", x);
  return buf;
}

// Starts each task when its last dependency ends (activities are created
// lazily: a pre-built SimGrid DAG slows down quadratically, see
// shared/SIMGRID_NOTES.md) and records its start and end.
class Runner {
 public:
  Runner(const Scenario& s, const preflight::Workload& w, const Platform& p)
      : s_(s), w_(w), p_(p), topo_(s.cluster.node), n_(w.tasks_size()), waiting_(n_), pending_(n_, 0),
        first_succ_(n_ + 1, 0) {
    times_.start_s.assign(n_, -1);
    times_.end_s.assign(n_, -1);
    for (int i = 0; i < n_; ++i) {
      for (uint32_t d : w.tasks(i).deps()) {
        if (d >= static_cast<uint32_t>(i))
          throw std::invalid_argument("workload task " + std::to_string(i) +
                                      " depends on a later task " + std::to_string(d));
        ++first_succ_[d + 1];
        ++waiting_[i];
      }
      CheckTask(w.tasks(i), i, p);
    }
    for (int i = 0; i < n_; ++i) first_succ_[i + 1] += first_succ_[i];
    succ_.resize(first_succ_[n_]);
    std::vector<int> next(first_succ_.begin(), first_succ_.end() - 1);
    for (int i = 0; i < n_; ++i)
      for (uint32_t d : w.tasks(i).deps()) succ_[next[d]++] = i;
    double activities = 0;
    for (const preflight::Task& t : w.tasks()) activities += Activities(t);
    const double scaled = kOverlapPerGpu * double(p.gpus.size()) * activities;
    overlap_budget_ = std::min(MaxInFlightScans(s), std::max(kMinOverlapBudget, scaled));
    gpus_ = p.gpus.size();
    const Reductions r = ExactReductions(s, w, topo_);
    all_lanes_ = !r.lane_zero_only;
    one_flow_inside_nodes_ = r.one_flow_inside_nodes;
    twin_ = r.twin;
    if (!twin_.empty()) {  // the GPUs whose replica runs (reductions.h)
      runs_on_.assign(p.gpus.size(), false);
      first_mirror_.assign(n_, -1), last_mirror_.assign(n_, -1), next_mirror_.assign(n_, -1);
      for (int i = 0; i < n_; ++i)
        if (twin_[i] < 0 && w.tasks(i).has_compute()) runs_on_[w.tasks(i).compute().gpu()] = true;
    }
    share_.emplace(s.calibration.nccl_compute_share, p.gpu_speed_flops, p.gpus.size(),
                   [this](int g) { return Gpu(g); }, runs_on_);
  }

  TaskTimes Run() {
    sg::Activity::on_completion_cb([this](sg::Activity const& a) { OnDone(a); });
    std::vector<int> roots;
    for (int i = 0; i < n_; ++i)
      if (waiting_[i] == 0) roots.push_back(i);
    try {
      // ZeRO-3 under PyTorch FSDP keeps NCCL and its buffer copies on every
      // GPU through the whole step: each layer's all-gather is issued ahead
      // of it and its reduce-scatter behind it, forward and backward, so the
      // share applies to all of the step's compute, not only while the
      // simulated flows run; not under Megatron-FSDP's zero-copy buffers,
      // whose workload says so (model/stack.h NcclShareResident). The fit of
      // nccl_compute_share (spec/calibration.h) rests on this. DeepSpeed's
      // gathers run in series with the compute (model/stack.h
      // Zero3GatherLookahead), so no gather shares its forward; the share is
      // still applied, standing for the per-module hook and fetch costs that
      // are not modelled otherwise: without it the seven DeepSpeed ZeRO-3
      // rows' mean |error| goes from 11.8% to 13.2% and two leave their band.
      if (s_.parallel.zero == 3 && s_.parallel.dp > 1 && !w_.zero3_zero_copy()) share_->Resident();
      for (int i : roots)
        if (!Start(i)) Finish(i);
      sg::Engine::get_instance()->run();
      KeepActivities();  // NCCL's shares stay in flight (suspended) after the step
    } catch (...) {
      KeepActivities();
      throw;
    }
    for (int i = 0; i < n_; ++i)
      if (times_.end_s[i] < 0)
        throw std::logic_error("task " + std::to_string(i) + " (" + w_.tasks(i).name() +
                               ") never ran: its dependencies never completed");
    for (int i = 0; i < n_ && !twin_.empty(); ++i)
      if (twin_[i] >= 0) times_.start_s[i] = times_.start_s[twin_[i]];
    return times_;
  }

 private:
  sg::Host* Gpu(uint64_t g) const { return GpuOf(p_, g); }

  // A run stopped by an exception (and any run: its suspended shares)
  // leaves activities in flight, which
  // SimGrid frees at process exit after its models are gone (a crash in
  // the in-process mode): our references to them are kept for good, so
  // that they are never freed (reachable from a static: no leak report).
  void KeepActivities() {
    static auto* kept = new std::vector<sg::ActivityPtr>();
    kept->insert(kept->end(), graveyard_.begin(), graveyard_.end());
    for (auto& [_, owned] : owner_) kept->push_back(owned.ref);
    if (share_) share_->Keep(*kept);
  }

  // At most how many activities task `t` starts: one kernel or copy; a
  // delay and a flow per lane; a delay and up to two ring flows per GPU per
  // lane.
  static double Activities(const preflight::Task& t) {
    if (t.has_cpu()) return std::max<uint32_t>(1, t.cpu().threads());
    if (t.has_transfer()) return 2.0 * std::max<uint32_t>(1, t.transfer().lanes());
    if (!t.has_collective()) return 1;
    const auto& c = t.collective();
    return c.gpus_size() > 1 ? (2.0 * c.gpus_size() + 1) * std::max<uint32_t>(1, c.lanes()) : 0;
  }

  // Adds the activities in flight at a completion to the run's cost and
  // throws std::invalid_argument once it passes the budget.
  void ChargeCompletion() {
    overlap_work_ += double(owner_.size());
    if (overlap_work_ <= overlap_budget_) return;
    throw std::invalid_argument(
        "workload keeps too many kernels and flows in flight at once (" + std::to_string(owner_.size()) +
        " at " + std::to_string(sg::Engine::get_clock()) +
        " s simulated on " + std::to_string(gpus_) +
        " GPUs, past " + TwoDigits(overlap_budget_) + " scans of them in all; SimGrid slows down with the square "
        "of that): a --workload file should add dependencies between its tasks or merge them; a scenario this "
        "wide (collectives over thousands of GPUs overlapping its kernels) is past what one run simulates in "
        "minutes: simulate the same layout on fewer nodes (cluster.nodes) or fewer micro-batches "
        "(training.global_batch)" +
        std::string(overlap_budget_ >= MaxInFlightScans(s_)
                        ? ", or accept a longer run with a larger --max-tasks (the scans allowed grow with it)"
                        : ""));
  }

  void Track(int task, sg::ActivityPtr a) {
    ++pending_[task];
    owner_[a.get()] = {task, a};
  }

  void Send(int task, uint64_t src, uint64_t dst, Bytes bytes) {
    if (src == dst) return;
    Send(task, Gpu(src), Gpu(dst), bytes);
  }
  void Send(int task, sg::Host* src, sg::Host* dst, Bytes bytes) {
    if (bytes.value() <= 0) return;
    if (!(bytes.value() <= kMaxFlowBytes))
      throw std::invalid_argument("workload task " + std::to_string(task) + " sends " +
                                  std::to_string(bytes.value()) + " bytes in one flow");
    sg::CommPtr c = sg::Comm::sendto_init(src, dst);
    c->set_payload_size(static_cast<uint64_t>(bytes.value()));
    Track(task, c);
    ++times_.flows;
    c->start();
  }

  // Starts task i's activities; false when it has nothing to simulate (e.g.
  // a group of one), and then the caller finishes it at once.
  bool Start(int i) {
    const preflight::Task& t = w_.tasks(i);
    times_.start_s[i] = sg::Engine::get_clock();
    if (!twin_.empty() && twin_[i] >= 0) {  // ends when its twin ends (reductions.h)
      if (times_.end_s[twin_[i]] >= 0) return false;
      // Appended to the twin's list of waiting mirrors.
      const int twin = twin_[i];
      (last_mirror_[twin] < 0 ? first_mirror_[twin] : next_mirror_[last_mirror_[twin]]) = i;
      last_mirror_[twin] = i;
      return true;
    }
    if (t.has_compute()) StartCompute(i, t.compute());
    else if (t.has_collective()) StartCollective(i, t);
    else if (t.has_io()) StartIoAfterRequests(i, t.io());
    else if (t.has_transfer()) StartTransfer(i, t.transfer());
    else if (t.has_cpu()) StartCpu(i, t.cpu());
    return pending_[i] > 0;
  }

  void StartCompute(int i, const preflight::Compute& c) {
    sg::ExecPtr e = sg::Exec::init();
    e->set_flops_amount(c.duration_s() * p_.gpu_speed_flops);
    e->set_host(Gpu(c.gpu()));
    Track(i, e);
    e->start();
  }

  // Each lane's collective as the model plans it (collectives/nccl.h): its
  // latency as a delay, then its volume-equivalent flows (flows.h) at the
  // plan's bandwidth factor, `count` times over.
  void StartCollective(int i, const preflight::Task& t) {
    const auto& c = t.collective();
    std::vector<int> group(c.gpus().begin(), c.gpus().end());
    const auto kind = static_cast<CollectiveKind>(c.kind());
    const double count = std::max<uint32_t>(1, c.count());
    const int lanes = all_lanes_ ? std::max<uint32_t>(1, c.lanes()) : 1;
    for (int l = 0; l < lanes; ++l) {  // every lane's GPUs exist (task_checks.h CheckTask)
      std::vector<int> lane = group;
      for (int& g : lane) g += l * static_cast<int>(c.lane_stride());
      const CollectivePlan plan = Plan(i, kind, lane, Bytes(c.size_bytes()), c.algorithm());
      std::vector<Flow> flows =
          CollectiveFlows(kind, plan.algorithm, lane, s_.cluster.node.gpus_per_node, Bytes(c.size_bytes()));
      const int g = s_.cluster.node.gpus_per_node;
      if (one_flow_inside_nodes_ && !flows.empty() &&
          std::all_of(lane.begin(), lane.end(), [&](int x) { return x / g == lane.front() / g; }))
        flows.resize(1);  // see reductions.h
      for (Flow& f : flows) f.bytes = f.bytes * (count / plan.bandwidth_factor);
      After(i, plan.latency * count, std::move(flows));
    }
    // Beside the compute: DP collectives, TP ones under TP overlap (beside
    // the GEMMs), ring attention's K/V exchange (beside the attention) and
    // the token all-to-alls under EP overlap (beside another micro-batch).
    const bool shares_gpu = t.category() == preflight::DP_COMM || t.category() == preflight::CP_COMM ||
                            (t.category() == preflight::TP_COMM && s_.parallel.tp_overlap) ||
                            (t.category() == preflight::EP_COMM && s_.parallel.ep_overlap);
    if (shares_gpu && pending_[i] > 0) share_->Begin(i, group);
  }

  CollectivePlan Plan(int i, CollectiveKind kind, const std::vector<int>& group, Bytes size,
                      preflight::Algorithm forced) {
    std::optional<Algorithm> algorithm;
    if (forced != preflight::ALGORITHM_AUTO) algorithm = static_cast<Algorithm>(int(forced) - 1);
    // The shape and paths of a group are the same for every collective on
    // it (a step reuses a few hundred groups thousands of times).
    auto cached = groups_.find(group);
    if (cached == groups_.end())
      cached = groups_.emplace(group, std::make_pair(ShapeOf(group, s_.cluster.node.gpus_per_node),
                                                     PathsOf(s_.cluster, topo_, group))).first;
    const auto plan = PlanCollective(kind, cached->second.first, cached->second.second, size, NcclConstants(),
                                     algorithm);
    if (!plan)
      throw std::invalid_argument("workload task " + std::to_string(i) + ": NCCL offers no " +
                                  Name(*algorithm) + " algorithm for " + Name(kind) + " over these " +
                                  std::to_string(group.size()) + " GPUs");
    return *plan;
  }

  // Starts `flows` for task i after `delay` (at once when it is zero).
  void After(int i, Seconds delay, std::vector<Flow> flows) {
    if (delay.value() <= 0) {
      for (const Flow& f : flows) Send(i, f.src, f.dst, f.bytes);
      return;
    }
    sg::ExecPtr e = sg::Exec::init();
    e->set_flops_amount(delay.value() * Platform::kTimerSpeed);
    e->set_host(p_.timer);
    delayed_[e.get()] = std::move(flows);
    Track(i, e);
    e->start();
  }

  // `threads` Execs on the node's CPU host, each an equal share of the
  // core-seconds (one core each; SimGrid shares the cores among all).
  void StartCpu(int i, const preflight::Cpu& x) {
    const int threads = std::max<uint32_t>(1, x.threads());
    if (x.core_seconds() <= 0) return;
    for (int k = 0; k < threads; ++k) {
      sg::ExecPtr e = sg::Exec::init();
      e->set_flops_amount(x.core_seconds() / threads * Platform::kCpuSpeed);
      e->set_host(p_.cpus.at(x.node()));
      Track(i, e);
      e->start();
    }
  }

  // The tier's latency for each request, one after another, then the
  // bytes. A shared tier's server link pays one latency as the bytes start
  // (platform.cc); a local tier's media link none.
  void StartIoAfterRequests(int i, const preflight::Io& x) {
    double waits = 0;
    for (const StorageTier& t : s_.cluster.storage)
      if (t.name == x.tier() && !x.tier().empty())
        waits = t.latency.value() * (double(std::max<uint32_t>(1, x.requests())) - (t.shared() ? 1 : 0));
    if (waits <= 0) {
      StartIo(i, x);
      return;
    }
    sg::ExecPtr e = sg::Exec::init();
    e->set_flops_amount(waits * Platform::kTimerSpeed);
    e->set_host(p_.timer);
    delayed_io_[e.get()] = i;
    Track(i, e);
    e->start();
  }

  // A copy between a GPU and host memory, or a storage tier: the tier's
  // media (a node's local media, or each server's for its equal stripe),
  // the network from the servers to host memory, and host memory to the
  // GPU, all streaming at once (proto/workload.proto Io.tier); the media
  // are links on the flows' routes (platform.h).
  void StartIo(int i, const preflight::Io& x) {
    sg::Host* gpu = Gpu(x.gpu());
    sg::Host* cpu = p_.cpus.at(x.gpu() / s_.cluster.node.gpus_per_node);
    const bool in = x.direction() == preflight::Io::HOST_TO_DEVICE;
    const Bytes size(x.size_bytes());
    auto move = [&](sg::Host* far, sg::Host* near, Bytes b) { in ? Send(i, far, near, b) : Send(i, near, far, b); };
    if (!x.host_only()) move(cpu, gpu, size);
    if (x.tier().empty()) return;
    if (auto m = p_.local_media.find(x.tier()); m != p_.local_media.end()) {
      move(m->second.at(x.gpu() / s_.cluster.node.gpus_per_node), cpu, size);
      return;
    }
    auto servers = p_.servers.find(x.tier());
    if (servers == p_.servers.end())
      throw std::invalid_argument("workload task " + std::to_string(i) + ": the cluster has no storage tier \"" +
                                  x.tier() + "\"");
    const Bytes stripe = size / double(servers->second.size());
    for (const Platform::Server& server : servers->second) move(server.host, cpu, stripe);
  }

  // A send/recv as the model plans it: one step's latency, then one flow.
  void StartTransfer(int i, const preflight::Transfer& x) {
    const int lanes = all_lanes_ ? std::max<uint32_t>(1, x.lanes()) : 1;
    for (uint64_t l = 0; l < uint64_t(lanes); ++l) {
      const int src = static_cast<int>(x.src_gpu() + l * x.lane_stride());
      const int dst = static_cast<int>(x.dst_gpu() + l * x.lane_stride());
      if (src == dst) continue;
      const CollectivePlan plan =
          Plan(i, CollectiveKind::kSendRecv, {src, dst}, Bytes(x.size_bytes()), preflight::ALGORITHM_AUTO);
      After(i, plan.latency, {{src, dst, Bytes(x.size_bytes()) / plan.bandwidth_factor}});
    }
  }

  // Task i has ended: records it and starts each successor whose last
  // dependency it was. Successors with nothing to simulate end at once and
  // release theirs in turn, depth first in successor order, on an explicit
  // stack (a chain of such tasks is as long as the workload).
  void Finish(int i) {
    std::vector<std::pair<int, int>> stack;  // task, index of its next successor in succ_
    EndAndStack(i, stack);
    while (!stack.empty()) {
      auto& [task, next] = stack.back();
      if (next == first_succ_[task + 1]) {
        stack.pop_back();
        continue;
      }
      const int j = succ_[next++];
      if (--waiting_[j] != 0 || Start(j)) continue;
      EndAndStack(j, stack);
    }
  }

  // Ends task i, and with it the mirrored tasks waiting for it as their
  // twin (reductions.h); each goes on the stack to release its successors.
  void EndAndStack(int i, std::vector<std::pair<int, int>>& stack) {
    End(i);
    stack.push_back({i, first_succ_[i]});
    if (twin_.empty()) return;
    for (int m = first_mirror_[i]; m >= 0; m = next_mirror_[m]) {
      End(m);
      stack.push_back({m, first_succ_[m]});
    }
  }

  void End(int i) {
    share_->End(i, ++ended_ == n_);
    times_.end_s[i] = sg::Engine::get_clock();
    times_.makespan_s = std::max(times_.makespan_s, times_.end_s[i]);
  }

  void OnDone(sg::Activity const& a) {
    // Activities finished before this one are released now; this one stays
    // referenced until its own callback has returned. A share cancelled
    // in End completes inside another activity's callback: it releases
    // nothing.
    auto it = owner_.find(const_cast<sg::Activity*>(&a));
    if (it == owner_.end()) return;
    graveyard_.clear();
    ChargeCompletion();
    int task = it->second.task;
    if (auto d = delayed_.find(it->first); d != delayed_.end()) {
      for (const Flow& f : d->second) Send(task, f.src, f.dst, f.bytes);
      delayed_.erase(d);
    }
    if (auto d = delayed_io_.find(it->first); d != delayed_io_.end()) {
      StartIo(task, w_.tasks(task).io());
      delayed_io_.erase(d);
    }
    graveyard_.push_back(std::move(it->second.ref));
    owner_.erase(it);
    if (--pending_[task] == 0) Finish(task);
  }

  struct Owned {
    int task;
    sg::ActivityPtr ref;
  };
  const Scenario& s_;
  const preflight::Workload& w_;
  const Platform& p_;
  const NodeTopology topo_;
  int n_;
  std::vector<int> waiting_, pending_;
  std::vector<int> first_succ_, succ_;  // task i's successors: succ_[first_succ_[i], first_succ_[i + 1])
  std::unordered_map<sg::Activity*, Owned> owner_;
  std::unordered_map<sg::Activity*, std::vector<Flow>> delayed_;  // flows to start when a delay ends
  std::unordered_map<sg::Activity*, int> delayed_io_;  // io tasks to start when their requests' wait ends
  std::vector<sg::ActivityPtr> graveyard_;
  std::optional<NcclShare> share_;  // NCCL's share of the GPUs (nccl_share.h)
  int ended_ = 0;                   // tasks ended so far
  bool all_lanes_ = true;
  bool one_flow_inside_nodes_ = false;
  std::vector<int> twin_;      // see reductions.h
  // The mirrored tasks waiting for task i's end, in the order they started:
  // first_mirror_[i], then next_mirror_ of each until -1.
  std::vector<int> first_mirror_, last_mirror_, next_mirror_;
  std::vector<bool> runs_on_;  // GPUs whose tasks run, with twin_
  std::map<std::vector<int>, std::pair<GroupShape, GroupPaths>> groups_;  // see Plan
  double overlap_work_ = 0, overlap_budget_ = 0;  // see kMinOverlapBudget
  size_t gpus_ = 0;
  TaskTimes times_;
};

}  // namespace

double MaxInFlightScans(const Scenario& s) { return kMaxInFlightScans * std::max(1.0, s.max_tasks / kDefaultMaxTasks); }

TaskTimes RunOnSimGrid(const Scenario& s, const preflight::Workload& w) {
  int argc = 2;
  char arg0[] = "preflight";
  char arg1[] = "--log=root.thres:critical";
  char* argv[] = {arg0, arg1, nullptr};
  sg::Engine engine(&argc, argv);
  // The neutral network model: latency and bandwidth exactly as given, no
  // TCP window, no cross-traffic (shared/SIMGRID_NOTES.md). Efficiency lives
  // in collectives/nccl.cc and spec/calibration.h.
  sg::Engine::set_config("network/model:CM02");
  sg::Engine::set_config("network/crosstraffic:0");
  sg::Engine::set_config("network/TCP-gamma:0");
  Platform platform = BuildPlatform(s);
  return Runner(s, w, platform).Run();
}

}  // namespace pf

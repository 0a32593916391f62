#include "sim/engine/runner.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include <simgrid/s4u.hpp>

#include "sim/collectives/nccl.h"
#include "sim/collectives/ring.h"
#include "sim/engine/platform.h"

namespace pf {
namespace sg = simgrid::s4u;

namespace {

// Starts each task when its last dependency ends (activities are created
// lazily: a pre-built SimGrid DAG slows down quadratically, see
// shared/SIMGRID_NOTES.md) and records its start and end.
class Runner {
 public:
  Runner(const Scenario& s, const preflight::Workload& w, const Platform& p)
      : s_(s), w_(w), p_(p), n_(w.tasks_size()), waiting_(n_), pending_(n_, 0), succ_(n_) {
    times_.start_s.assign(n_, -1);
    times_.end_s.assign(n_, -1);
    for (int i = 0; i < n_; ++i)
      for (uint32_t d : w.tasks(i).deps()) {
        if (static_cast<int>(d) >= i)
          throw std::invalid_argument("workload task " + std::to_string(i) +
                                      " depends on a later task " + std::to_string(d));
        succ_[d].push_back(i);
        ++waiting_[i];
      }
    // Lanes of TP ranks share no link when every GPU has its own NVLink
    // port and its own NIC rail; then simulating lane 0 is exact and the
    // others are skipped. Otherwise every lane is simulated.
    const NodeSpec& node = s.cluster.node;
    all_lanes_ = !(node.intra_kind == IntraKind::kNvswitch && node.nics >= node.gpus_per_node);
    shadow_.resize(p.gpus.size());
    active_dp_.assign(p.gpus.size(), 0);
  }

  TaskTimes Run() {
    sg::Activity::on_completion_cb([this](sg::Activity const& a) { OnDone(a); });
    for (int i = 0; i < n_; ++i)
      if (waiting_[i] == 0) Start(i);
    sg::Engine::get_instance()->run();
    for (int i = 0; i < n_; ++i)
      if (times_.end_s[i] < 0)
        throw std::logic_error("task " + std::to_string(i) + " (" + w_.tasks(i).name() +
                               ") never ran: its dependencies never completed");
    return times_;
  }

 private:
  sg::Host* Gpu(uint32_t g) const {
    if (g >= p_.gpus.size())
      throw std::invalid_argument("workload names GPU " + std::to_string(g) + " but the cluster has " +
                                  std::to_string(p_.gpus.size()));
    return p_.gpus[g];
  }

  void Track(int task, sg::ActivityPtr a) {
    ++pending_[task];
    owner_[a.get()] = {task, a};
  }

  void Send(int task, uint32_t src, uint32_t dst, Bytes bytes) {
    if (src == dst) return;
    Send(task, Gpu(src), Gpu(dst), bytes);
  }
  void Send(int task, sg::Host* src, sg::Host* dst, Bytes bytes) {
    if (bytes.value() <= 0) return;
    sg::CommPtr c = sg::Comm::sendto_init(src, dst);
    c->set_payload_size(static_cast<uint64_t>(bytes.value()));
    Track(task, c);
    ++times_.flows;
    c->start();
  }

  void Start(int i) {
    const preflight::Task& t = w_.tasks(i);
    times_.start_s[i] = sg::Engine::get_clock();
    if (t.has_compute()) StartCompute(i, t.compute());
    else if (t.has_collective()) StartCollective(i, t);
    else if (t.has_io()) StartIo(i, t.io());
    else if (t.has_transfer()) StartTransfer(i, t.transfer());
    if (pending_[i] == 0) Finish(i);  // nothing to simulate (e.g. a group of one)
  }

  void StartCompute(int i, const preflight::Compute& c) {
    sg::ExecPtr e = sg::Exec::init();
    e->set_flops_amount(c.duration_s() * p_.gpu_speed_flops);
    e->set_host(Gpu(c.gpu()));
    Track(i, e);
    e->start();
  }

  // Each lane's volume-equivalent ring flows (RingFlows, collectives/ring.h),
  // scaled by `count` and by NCCL's message-size penalty.
  void StartCollective(int i, const preflight::Task& t) {
    const auto& c = t.collective();
    std::vector<int> group(c.gpus().begin(), c.gpus().end());
    const auto kind = static_cast<CollectiveKind>(c.kind());
    const double penalty = MessageSizePenalty(Bytes(c.size_bytes()), c.gpus_size());
    const int count = std::max<uint32_t>(1, c.count());
    const int lanes = all_lanes_ ? std::max<uint32_t>(1, c.lanes()) : 1;
    for (int l = 0; l < lanes; ++l) {
      std::vector<int> lane = group;
      for (int& g : lane) g += l * c.lane_stride();
      for (const Flow& f : RingFlows(kind, lane, s_.cluster.node.gpus_per_node, Bytes(c.size_bytes())))
        Send(i, f.src, f.dst, f.bytes * penalty * count);
    }
    if (t.category() == preflight::DP_COMM && pending_[i] > 0) Shadow(i, group);
  }

  void StartIo(int i, const preflight::Io& x) {
    sg::Host* cpu = p_.cpus[x.gpu() / s_.cluster.node.gpus_per_node];
    if (x.direction() == preflight::Io::HOST_TO_DEVICE) Send(i, cpu, Gpu(x.gpu()), Bytes(x.size_bytes()));
    else Send(i, Gpu(x.gpu()), cpu, Bytes(x.size_bytes()));
  }

  void StartTransfer(int i, const preflight::Transfer& x) {
    const int lanes = all_lanes_ ? std::max<uint32_t>(1, x.lanes()) : 1;
    for (int l = 0; l < lanes; ++l)
      Send(i, x.src_gpu() + l * x.lane_stride(), x.dst_gpu() + l * x.lane_stride(),
           Bytes(x.size_bytes()) * MessageSizePenalty(Bytes(x.size_bytes()), 1));
  }

  // While a data-parallel collective runs on a GPU, NCCL's kernels take a
  // share of that GPU's throughput: one bounded background Exec per GPU,
  // resumed while any such collective is active there and suspended
  // otherwise, which SimGrid's max-min sharing takes from concurrent compute.
  void Shadow(int task, const std::vector<int>& gpus) {
    const double share = s_.calibration.nccl_compute_share;
    if (share <= 0) return;
    for (int g : gpus) {
      if (active_dp_[g]++ > 0) continue;
      if (!shadow_[g]) {
        shadow_[g] = sg::Exec::init();
        shadow_[g]->set_flops_amount(1e30);  // never finishes: suspended when idle
        shadow_[g]->set_bound(share * p_.gpu_speed_flops);
        shadow_[g]->set_host(Gpu(g));
        shadow_[g]->start();
      } else {
        shadow_[g]->resume();
      }
    }
    shadow_gpus_[task] = gpus;
  }

  void Finish(int i) {
    if (auto it = shadow_gpus_.find(i); it != shadow_gpus_.end()) {
      for (int g : it->second)
        if (--active_dp_[g] == 0) shadow_[g]->suspend();
      shadow_gpus_.erase(it);
    }
    times_.end_s[i] = sg::Engine::get_clock();
    times_.makespan_s = std::max(times_.makespan_s, times_.end_s[i]);
    for (int j : succ_[i])
      if (--waiting_[j] == 0) Start(j);
  }

  void OnDone(sg::Activity const& a) {
    // Activities finished before this one are released now; this one stays
    // referenced until its own callback has returned.
    graveyard_.clear();
    auto it = owner_.find(const_cast<sg::Activity*>(&a));
    if (it == owner_.end()) return;
    int task = it->second.task;
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
  int n_;
  std::vector<int> waiting_, pending_;
  std::vector<std::vector<int>> succ_;
  std::unordered_map<sg::Activity*, Owned> owner_;
  std::vector<sg::ActivityPtr> graveyard_;
  std::vector<sg::ExecPtr> shadow_;  // by GPU, created on first use
  std::vector<int> active_dp_;        // DP collectives running on each GPU
  std::unordered_map<int, std::vector<int>> shadow_gpus_;
  bool all_lanes_ = true;
  TaskTimes times_;
};

}  // namespace

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

// The share of a GPU's throughput NCCL's kernels take while a collective
// runs beside compute (spec/calibration.h nccl_compute_share): one bounded
// background Exec per GPU, which SimGrid's max-min sharing takes from the
// kernels running there. Engine-internal (SimGrid types); runner.cc owns
// one per run.
#pragma once

#include <functional>
#include <unordered_map>
#include <vector>

#include <simgrid/s4u.hpp>

namespace pf {

class NcclShare {
 public:
  // `share` of `gpu_flops` on each of the hosts `gpu` gives for 0 to
  // `gpus` - 1; `runs_on`, when not empty, marks the GPUs whose replica is
  // simulated (engine/reductions.h): a mirrored replica's GPU computes
  // nothing, so it takes no share.
  NcclShare(double share, double gpu_flops, size_t gpus, std::function<simgrid::s4u::Host*(int)> gpu,
            const std::vector<bool>& runs_on);

  // Task `task`, a collective on `gpus`, has started: each GPU takes the
  // share from its first such collective to its last.
  void Begin(int task, const std::vector<int>& gpus);
  // Every GPU takes the share for the whole step (ZeRO-3 under PyTorch
  // FSDP: runner.cc says why).
  void Resident();
  // Task `task` has ended; `last` when it is the step's last task.
  void End(int task, bool last);
  // The Execs still referenced (in flight or suspended), for the runner
  // to keep past SimGrid's teardown.
  void Keep(std::vector<simgrid::s4u::ActivityPtr>& kept) const;

 private:
  void Start(int g);

  const double share_, gpu_flops_;
  const std::function<simgrid::s4u::Host*(int)> gpu_;
  const std::vector<bool> runs_on_;
  std::vector<simgrid::s4u::ExecPtr> shadow_;  // by GPU, while a collective runs there
  std::vector<simgrid::s4u::ExecPtr> parked_;  // suspended ones
  std::vector<int> active_;                    // collectives running on each GPU
  std::unordered_map<int, std::vector<int>> gpus_of_;  // by task
  bool resident_ = false;
};

}  // namespace pf

#include "sim/engine/nccl_share.h"

#include <utility>

namespace pf {
namespace sg = simgrid::s4u;

NcclShare::NcclShare(double share, double gpu_flops, size_t gpus, std::function<sg::Host*(int)> gpu,
                     const std::vector<bool>& runs_on)
    : share_(share), gpu_flops_(gpu_flops), gpu_(std::move(gpu)), runs_on_(runs_on), shadow_(gpus),
      active_(gpus, 0) {}

// Each activation starts a fresh Exec: in SimGrid 3.32 an Exec suspended
// again after a resume() keeps taking its share.
void NcclShare::Start(int g) {
  shadow_[g] = sg::Exec::init();
  shadow_[g]->set_flops_amount(1e30);  // never finishes: suspended when idle
  shadow_[g]->set_bound(share_ * gpu_flops_);
  shadow_[g]->set_host(gpu_(g));
  shadow_[g]->start();
}

void NcclShare::Begin(int task, const std::vector<int>& gpus) {
  if (share_ <= 0) return;
  std::vector<int> used;
  for (int g : gpus) {
    if (!runs_on_.empty() && !runs_on_[g]) continue;
    used.push_back(g);
    if (active_[g]++ == 0) Start(g);
  }
  gpus_of_[task] = std::move(used);
}

void NcclShare::Resident() {
  if (share_ <= 0) return;
  for (size_t g = 0; g < shadow_.size(); ++g) {
    if (!runs_on_.empty() && !runs_on_[g]) continue;
    active_[g] = 1;  // never reaches 0: never suspended
    Start(static_cast<int>(g));
    resident_ = true;
  }
}

void NcclShare::End(int task, bool last) {
  if (last && resident_)  // the step is over: so are the resident shares
    for (auto& e : shadow_)
      if (e) e->suspend();
  auto it = gpus_of_.find(task);
  if (it == gpus_of_.end()) return;
  for (int g : it->second)
    if (--active_[g] == 0) {
      shadow_[g]->suspend();  // takes effect at once, as cancel alone does not
      shadow_[g]->cancel();   // and leaves SimGrid's sharing (suspended Execs slow every solve)
      parked_.push_back(std::move(shadow_[g]));  // referenced to the end, as SimGrid may still touch it
    }
  gpus_of_.erase(it);
}

void NcclShare::Keep(std::vector<sg::ActivityPtr>& kept) const {
  for (const auto& e : shadow_)
    if (e) kept.push_back(e);
  kept.insert(kept.end(), parked_.begin(), parked_.end());
}

}  // namespace pf

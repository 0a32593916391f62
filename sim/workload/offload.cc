#include "sim/workload/offload.h"

#include <algorithm>

namespace pf {
namespace {

// CPU Adam. PyTorch's AdamW on the CPU updated 536.9 M fp32 elements in
// 1.81 s on 2 threads of an 8x H100 node (ISEEKYAN/Megatron-LM issue 188:
// 0.148 G elements per second per thread, on a Xeon Platinum 8480C class
// CPU, core_speed 1.58); DeepSpeed's CPU Adam is "5X--7X faster than the
// standard PyTorch implementation" (DeepSpeed ZeRO-Offload tutorial): 6x,
// 0.89 G parameters per second per thread there, 0.56 G on the reference
// core.
constexpr double kTorchCpuAdamPerThread = 536.9e6 / (1.81 * 2);
constexpr double kDeepSpeedOverTorch = 6;
constexpr double kMeasuredCoreSpeed = 1.58;
// Bytes per parameter of the optimizer state on NVMe (fp32 master weights
// and two moments), read before and written after the update.
constexpr double kStateBytes = 12;

const StorageTier* LocalNvme(const Scenario& s) {
  for (const StorageTier& t : s.cluster.storage)
    if (t.kind == StorageKind::kLocalNvme) return &t;
  return nullptr;
}

}  // namespace

double CpuAdamSecondsPerParam() {
  return kMeasuredCoreSpeed / (kTorchCpuAdamPerThread * kDeepSpeedOverTorch);
}

TaskSpan EmitOffloadedStep(TaskGraph& g, const Scenario& s, int gpu, double params) {
  const NodeSpec& n = s.cluster.node;
  const int node = gpu / n.gpus_per_node;
  const double e = ElementBytes(s.training.precision);
  // DeepSpeed binds each rank's CPU Adam to its share of the node's cores.
  const int threads = std::max(1, n.cpu.cores / n.gpus_per_node);
  TaskSpan span;
  span.first = g.Io("offload_grads", gpu, preflight::Io::DEVICE_TO_HOST, Bytes(params * e));
  g.SetCategory(span.first, preflight::OPTIMIZER);
  int before = span.first;
  const StorageTier* nvme = s.parallel.offload == Offload::kNvme ? LocalNvme(s) : nullptr;
  if (nvme) {
    const int read = g.HostIo("offload_states_in", gpu, nvme->name, true, Bytes(params * kStateBytes), 1,
                              preflight::OPTIMIZER);
    const int join = g.Cpu("cpu_adam", node, Seconds(params * CpuAdamSecondsPerParam()), threads,
                           preflight::OPTIMIZER);
    // After the gradients' copy: ZeRO-Infinity overlaps swapping with the
    // update of other parameter sub-groups, not modelled (conservative).
    g.Dep(read, span.first);
    g.Dep(join, read);
    before = join;
    const int write = g.HostIo("offload_states_out", gpu, nvme->name, false, Bytes(params * kStateBytes), 1,
                               preflight::OPTIMIZER);
    g.Dep(write, join);
    span.last = g.Io("offload_params", gpu, preflight::Io::HOST_TO_DEVICE, Bytes(params * e));
    g.SetCategory(span.last, preflight::OPTIMIZER);
    g.Dep(span.last, join);
    g.Dep(span.last, write);  // the states are back on disk before the next step needs them
    return span;
  }
  const int adam = g.Cpu("cpu_adam", node, Seconds(params * CpuAdamSecondsPerParam()), threads,
                         preflight::OPTIMIZER);
  g.Dep(adam, before);
  span.last = g.Io("offload_params", gpu, preflight::Io::HOST_TO_DEVICE, Bytes(params * e));
  g.SetCategory(span.last, preflight::OPTIMIZER);
  g.Dep(span.last, adam);
  return span;
}

}  // namespace pf

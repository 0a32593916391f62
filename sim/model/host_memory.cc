#include "sim/model/host_memory.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "sim/model/checkpoint_size.h"
#include "sim/model/data_costs.h"
#include "sim/model/memory_model.h"
#include "sim/model/optimizer.h"
#include "sim/spec/names.h"

namespace pf {
namespace {

// A dataloader worker process: about 157 MB (proportional set size) each,
// measured for torchvision's ImageNet pipeline (pytorch/pytorch PR 159432,
// benchmarks/data/dataloader_benchmark.py: 627 MB more for its 4 default
// workers). Datasets held as Python objects grow it by copy-on-read (issue
// 13246 and its family): not modelled.
constexpr double kWorkerBytes = 157e6;
// A training process's own host memory (Python, PyTorch, the CUDA context's
// host side, NCCL): assumption, 3 GB per GPU (no published per-process
// figure was found; nvidia-smi-era reports put torch+CUDA at 2-4 GB RSS).
constexpr double kProcessBytes = 3e9;
// Host bytes per offloaded parameter (ZeRO-Offload, Ren et al. 2021,
// Sec. 4.1: fp32 master weights and Adam's two moments, 12 bytes, and the
// fp16 gradients, 2, live on the CPU). With the states on NVMe
// (ZeRO-Infinity), the gradients stay in host memory; offloaded fp16
// parameters add 2.
constexpr double kOffloadCpuBytes = 14;
constexpr double kOffloadNvmeBytes = 2;
constexpr double kOffloadParamBytes = 2;

// Every GPU of a node is one training process.
int GpusPerNode(const Scenario& s) { return s.cluster.node.gpus_per_node; }

}  // namespace

// The most data-parallel ranks whose loaders run on one node: one per rank,
// on its first pipeline stage's TP rank 0 (workload/dataloader.h; Megatron
// builds its data iterator there, and with tp = pp = 1 that is every GPU).
int LoadersPerNode(const Scenario& s) {
  const ParallelSpec& p = s.parallel;
  std::vector<int> per_node(s.cluster.nodes, 0);
  for (int d = 0; d < p.dp; ++d) ++per_node[(p.tp * d) / s.cluster.node.gpus_per_node];  // GPU of (0, d, stage 0)
  return std::max(1, *std::max_element(per_node.begin(), per_node.end()));
}


HostMemory EstimateHostMemory(const Scenario& s) {
  const int gpus = GpusPerNode(s);
  HostMemory h;
  h.processes = Bytes(kProcessBytes * gpus);
  if (s.data.enabled) {
    const int loaders = LoadersPerNode(s);
    h.workers = Bytes(kWorkerBytes * s.data.workers * loaders);
    const double batch = CostOfSample(s).device.value() * SamplesPerMicroBatch(s);
    // prefetch x workers batches in shared memory (torch DataLoader
    // prefetch_factor), and as many pinned copies with pin_memory.
    h.batches = Bytes(batch * s.data.prefetch * s.data.workers * loaders * (s.data.pinned ? 2 : 1));
  }
  const ParallelSpec& p = s.parallel;
  if (p.offload != Offload::kNone) {
    const double shard = TrainableParams(s) / (double(p.tp) * p.pp * p.dp);  // per GPU (ZeRO shards over dp)
    // With nvme the offloaded parameters live on the NVMe too.
    const double per_param = (p.offload == Offload::kCpu ? kOffloadCpuBytes : kOffloadNvmeBytes) +
                             (p.offload_params && p.offload == Offload::kCpu ? kOffloadParamBytes : 0);
    h.offload = Bytes(shard * per_param * gpus);
  }
  // A paged optimizer's moments that the GPU has no room for live in host
  // memory (model/optimizer.h).
  if (BnbPagedBytes(s.training) > 0) h.offload = EstimateMemory(s).paged_evicted * double(gpus);
  // torchtune's offloaded checkpoints: every layer's, in pinned memory.
  if (s.training.offload_activations)
    h.activations = Bytes(OffloadedActivationBytes(s) * gpus);
  if (s.checkpoint.enabled && s.checkpoint.async) {
    const CheckpointSize c = SizeOfCheckpoint(s);
    double most = 0;
    for (int node = 0; node < s.cluster.nodes; ++node) {
      double bytes = 0;
      for (int g = node * gpus; g < (node + 1) * gpus; ++g) bytes += c.per_gpu[g];
      most = std::max(most, bytes);
    }
    h.checkpoint = Bytes(most);
  }
  h.total = h.processes + h.workers + h.batches + h.offload + h.activations + h.checkpoint;
  h.capacity = s.cluster.node.cpu_memory;
  h.fits = h.capacity.value() <= 0 || h.total <= h.capacity;
  h.page_cache = Bytes(std::max(0.0, h.capacity.value() - h.total.value()));
  return h;
}

double PageCacheHits(const Scenario& s) {
  const DataSpec& d = s.data;
  if (!d.enabled || d.first_epoch || d.size.value() <= 0) return 0;
  for (const StorageTier& t : s.cluster.storage)
    if (t.name == d.tier && t.kind == StorageKind::kPageCache) return 0;  // read from memory already
  // Each node reads the whole dataset over the epochs (a new shard of it
  // every epoch): the cached share of it hits, uniformly.
  // The room host memory leaves, or less when a page_cache tier states its capacity.
  double room = EstimateHostMemory(s).page_cache.value();
  for (const StorageTier& t : s.cluster.storage)
    if (t.kind == StorageKind::kPageCache && t.capacity.value() > 0) room = std::min(room, t.capacity.value());
  return std::min(1.0, room / d.size.value());
}

std::vector<HostSuggestion> SuggestHostFits(const Scenario& s) {
  const HostMemory h = EstimateHostMemory(s);
  std::vector<HostSuggestion> out;
  if (h.fits) return out;
  const double over = (h.total - h.capacity).value();
  if (s.data.enabled && s.data.workers > 1) {
    const double per_worker = (h.workers + h.batches).value() / s.data.workers;
    const int fewer = s.data.workers - int(std::ceil(over / per_worker));
    if (fewer >= 1)
      out.push_back({fmt::format("{} dataloader workers per GPU", fewer), {fmt::format("data.workers={}", fewer)}});
  }
  if (s.parallel.offload == Offload::kCpu &&
      std::any_of(s.cluster.storage.begin(), s.cluster.storage.end(),
                  [](const StorageTier& t) { return t.kind == StorageKind::kLocalNvme; }) &&
      h.offload.value() * (1 - kOffloadNvmeBytes / kOffloadCpuBytes) >= over)
    out.push_back({"optimizer states on the local NVMe (ZeRO-Infinity)", {"parallel.offload=nvme"}});
  if (s.checkpoint.enabled && s.checkpoint.async && h.checkpoint.value() >= over)
    out.push_back({"synchronous checkpoints (no host copy)", {"checkpoint.mode=sync"}});
  // A node with more memory: the next power of two of GiB.
  const double gib = std::pow(2.0, std::ceil(std::log2(h.total.value() / kGiB)));
  out.push_back({fmt::format("nodes with {:.0f} GiB of host memory", gib),
                 {fmt::format("cluster.node.cpu_memory={:.0f}GiB", gib)}});
  return out;
}

}  // namespace pf

#include "sim/job/data_verdict.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/collectives/nccl.h"
#include "sim/model/data_costs.h"
#include "sim/model/host_memory.h"
#include "sim/spec/names.h"

namespace pf {
namespace {

// A stall under this share of the step is noise, not a bottleneck.
constexpr double kStallShare = 0.01;

const StorageTier& TierOf(const Scenario& s) {
  for (const StorageTier& t : s.cluster.storage)
    if (t.name == s.data.tier) return t;
  return s.cluster.storage.front();  // unreachable: Validate checks the tier
}

// A local tier of the cluster that holds the dataset (page cache or NVMe).
const StorageTier* LocalCopy(const Scenario& s) {
  const StorageTier* best = nullptr;
  for (const StorageTier& t : s.cluster.storage) {
    if (t.shared() || t.name == s.data.tier) continue;
    if (s.data.size.value() > 0 && t.capacity.value() > 0 && t.capacity < s.data.size) continue;
    if (!best || t.read > best->read) best = &t;
  }
  return best;
}


// Appends what raises `stage` to the GPUs' demand (v.demand), once each.
void Suggest(const Scenario& s, DataVerdict& v, const std::string& stage) {
  const DataSpec& d = s.data;
  const NodeSpec& n = s.cluster.node;
  const SampleCost one = CostOfSample(s);
  const StorageTier& tier = TierOf(s);
  const int ranks = LoadersPerNode(s);
  auto add = [&](std::string change, std::vector<std::string> flags) {
    for (const DataSuggestion& x : v.suggestions)
      if (x.overrides == flags && !flags.empty()) return;
    v.suggestions.push_back({std::move(change), std::move(flags)});
  };
  if (stage == "request latency") {
    const int need = int(std::ceil(v.demand * one.requests * tier.latency.value()));
    if (need <= 256)
      add(fmt::format("{} workers per GPU keep {} requests to {} in flight", need, need, tier.name),
          {fmt::format("data.workers={}", need)});
  }
  if (stage == "CPU decode" || stage == "CPU tokenisation") {
    const int need = int(std::ceil(v.demand * one.cpu.value() / n.cpu.core_speed));
    if (need <= n.cpu.cores / ranks)
      add(fmt::format("{} workers per GPU ({} of the node's {} CPU threads)", need, need * ranks, n.cpu.cores),
          {fmt::format("data.workers={}", need)});
    else
      add(fmt::format("a node with {} CPU threads or more ({} per GPU; this one has {})", need * ranks, need,
                      n.cpu.cores),
          {});
    if (d.format == DataFormat::kJpeg) add("pre-decoded images (augmentation only)", {"data.format=raw"});
    if (d.format == DataFormat::kText) add("pre-tokenised shards", {"data.format=tokens"});
  }
  const StorageTier* local = LocalCopy(s);
  if ((stage == "storage bandwidth" || stage == "request latency") && local)
    add(fmt::format("a copy of the dataset on the node's {} ({})", local->name, ToString(local->kind)),
        {"data.tier=" + local->name});
  if (stage == "copy to GPU" && !d.pinned) add("pinned host buffers (pin_memory)", {"data.pinned=true"});
}

}  // namespace

DataVerdict JudgeData(const Scenario& s, const StepResult& step) {
  const DataSpec& d = s.data;
  const NodeSpec& n = s.cluster.node;
  const SampleCost one = CostOfSample(s);
  const StorageTier& tier = TierOf(s);
  const int ranks = LoadersPerNode(s);
  const double workers = d.workers;
  DataVerdict v;
  // Storage: a local tier's media per node; a shared tier's servers (media
  // or NIC, the slower) shared by every rank.
  double share = 0;
  if (tier.shared())
    share = tier.servers * std::min(tier.read.value(), tier.network.value() * NicEfficiency()) / s.parallel.dp;
  else
    share = tier.read.value() / ranks;
  // In later epochs the page cache serves a share of the reads.
  const double miss = 1 - PageCacheHits(s);
  if (one.stored.value() > 0 && miss > 0) v.stages.push_back({"storage bandwidth", share / (one.stored.value() * miss)});
  if (tier.latency.value() > 0 && one.requests > 0 && miss > 0)
    v.stages.push_back({"request latency", workers / (one.requests * miss * tier.latency.value())});
  const double threads = std::min(workers, double(n.cpu.cores) / ranks);
  if (one.cpu.value() > 0)
    v.stages.push_back({d.format == DataFormat::kText ? "CPU tokenisation" : "CPU decode",
                        threads * n.cpu.core_speed / one.cpu.value()});
  const double pcie = PcieLinkRate(n.pcie.gen, n.pcie.lanes).value() * PcieEfficiency();
  if (one.device.value() > 0) v.stages.push_back({"copy to GPU", pcie / (CostOfBatch(s).device_bytes.value() / SamplesPerMicroBatch(s))});
  std::sort(v.stages.begin(), v.stages.end(),
            [](const DataStage& a, const DataStage& b) { return a.samples_per_s < b.samples_per_s; });
  const double busy = (step.step_time - step.breakdown.data_stall).value();
  const double samples = SamplesPerMicroBatch(s) * s.training.micro_batches_per_step(s.parallel.dp);
  v.demand = busy > 0 ? samples / busy : 0;
  v.stalls = step.breakdown.data_stall.value() > kStallShare * step.step_time.value();
  if (!v.stalls || v.stages.empty()) return v;

  // What raises each stage slower than the GPUs' demand to it.
  for (const DataStage& stage : v.stages)
    if (stage.samples_per_s < v.demand) Suggest(s, v, stage.name);
  return v;
}

}  // namespace pf

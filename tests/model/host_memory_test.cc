// Host memory per node: the per-process and per-worker constants of
// sim/model/host_memory.cc, offloaded states per parameter shard, an async
// checkpoint's staging copy, the verdict against cpu_memory with the
// suggestions that fix it, and the page cache's share of the dataset.
#include "sim/model/host_memory.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/model/checkpoint_size.h"
#include "sim/model/data_costs.h"
#include "sim/model/memory_model.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/test_util.h"

namespace pf {
namespace {

// The constants as host_memory.cc states them, with their sources there.
constexpr double kProcessBytes = 3e9;    // per GPU (assumption)
constexpr double kWorkerBytes = 157e6;   // per dataloader worker (pytorch PR 159432)
constexpr double kOffloadCpuBytes = 14;  // ZeRO-Offload: fp32 master + 2 moments + fp16 grads
constexpr double kOffloadNvmeBytes = 2;  // ZeRO-Infinity: the fp16 gradients only

Scenario Load(const std::string& file, const std::vector<std::string>& sets = {}) {
  return LoadScenario(testing_util::kRoot + "/scenarios/" + file, sets);
}

const std::string kText = "7b_sft_8xA800_data.yaml";
const std::string kImages = "resnet50_32xA800_data.yaml";
const std::string kOffload = "70b_zero3_offload_8xA800.yaml";

// The offloaded parameters one GPU holds: ZeRO shards them over dp.
double ShardPerGpu(const Scenario& s) {
  const ParallelSpec& p = s.parallel;
  return TrainableParams(s) / (double(p.tp) * p.pp * p.dp);
}

TEST(HostMemory, EveryGpuHasATrainingProcessAndItsLoadersWorkers) {
  const Scenario s = Load(kText);
  const int gpus = s.cluster.node.gpus_per_node;
  ASSERT_EQ(gpus, 8);
  ASSERT_EQ(s.data.workers, 4);
  const HostMemory h = EstimateHostMemory(s);
  EXPECT_DOUBLE_EQ(h.processes.value(), kProcessBytes * 8);
  EXPECT_DOUBLE_EQ(h.workers.value(), kWorkerBytes * 4 * 8);
  // prefetch x workers batches per GPU, twice with pin_memory.
  const double batch = CostOfSample(s).device.value() * s.training.micro_batch;
  EXPECT_DOUBLE_EQ(h.batches.value(), batch * 2 * 4 * 8 * 2);
  EXPECT_DOUBLE_EQ(h.total.value(), (h.processes + h.workers + h.batches).value());
  EXPECT_DOUBLE_EQ(EstimateHostMemory(Load(kText, {"data.workers=10"})).workers.value(), kWorkerBytes * 10 * 8);
}

TEST(HostMemory, WithoutADataSectionOnlyTheProcessesAndOffloadCount) {
  const HostMemory h = EstimateHostMemory(Load("70b_8xA800_tp8.yaml"));
  EXPECT_DOUBLE_EQ(h.processes.value(), kProcessBytes * 8);
  EXPECT_EQ(h.workers.value(), 0);
  EXPECT_EQ(h.batches.value(), 0);
  EXPECT_EQ(h.offload.value(), 0);
  EXPECT_EQ(h.checkpoint.value(), 0);
  EXPECT_DOUBLE_EQ(h.total.value(), h.processes.value());
}

TEST(HostMemory, CpuOffloadHolds14BytesPerParameterOfEachGpusShard) {
  const Scenario s = Load(kOffload);
  ASSERT_EQ(s.parallel.offload, Offload::kCpu);
  const int gpus = s.cluster.node.gpus_per_node;
  const HostMemory h = EstimateHostMemory(s);
  EXPECT_NEAR(h.offload.value(), kOffloadCpuBytes * ShardPerGpu(s) * gpus, 1e-9 * h.offload.value());
  // One node holds every shard: 14 bytes for each of the model's parameters.
  EXPECT_NEAR(h.offload.value(), kOffloadCpuBytes * TrainableParams(s), 1e-9 * h.offload.value());
  // Offloaded fp16 parameters add 2 more.
  const HostMemory params = EstimateHostMemory(Load(kOffload, {"parallel.offload_params=true"}));
  EXPECT_NEAR(params.offload.value(), (kOffloadCpuBytes + 2) * ShardPerGpu(s) * gpus, 1e-9 * params.offload.value());
}

TEST(HostMemory, NvmeOffloadKeepsOnlyTheGradientsInHostMemory) {
  const Scenario s = Load(kOffload, {"parallel.offload=nvme"});
  const HostMemory h = EstimateHostMemory(s);
  EXPECT_NEAR(h.offload.value(), kOffloadNvmeBytes * ShardPerGpu(s) * s.cluster.node.gpus_per_node,
              1e-9 * h.offload.value());
}

TEST(HostMemory, AnAsyncCheckpointStagesTheFullestNodesShards) {
  const std::vector<std::string> ckpt = {"checkpoint.tier=local_nvme", "checkpoint.every=30min"};
  std::vector<std::string> async = ckpt;
  async.push_back("checkpoint.mode=async");
  const Scenario sync_s = Load(kOffload, ckpt), async_s = Load(kOffload, async);
  EXPECT_EQ(EstimateHostMemory(sync_s).checkpoint.value(), 0);  // written straight from the GPUs
  const HostMemory h = EstimateHostMemory(async_s);
  // One node: it holds every shard of the checkpoint.
  ASSERT_EQ(async_s.cluster.nodes, 1);
  EXPECT_NEAR(h.checkpoint.value(), SizeOfCheckpoint(async_s).total().value(), 1e-9 * h.checkpoint.value());
  EXPECT_NEAR(h.total.value(), (EstimateHostMemory(sync_s).total + h.checkpoint).value(), 1e-9 * h.total.value());
}

TEST(HostMemory, AnAsyncCheckpointCountsOnlyTheFullestNodeOfMany) {
  // llama70b on 64 nodes, ZeRO-1 (tp 8, pp 4, dp 16): every node writes a
  // share, none the whole.
  const Scenario s = Load("llama70b_512xH100_ckpt.yaml", {"checkpoint.mode=async"});
  const CheckpointSize c = SizeOfCheckpoint(s);
  const int gpus = s.cluster.node.gpus_per_node;
  double most = 0;
  for (int node = 0; node < s.cluster.nodes; ++node) {
    double bytes = 0;
    for (int g = 0; g < gpus; ++g) bytes += c.per_gpu[node * gpus + g];
    most = std::max(most, bytes);
  }
  const HostMemory h = EstimateHostMemory(s);
  EXPECT_DOUBLE_EQ(h.checkpoint.value(), most);
  EXPECT_LT(h.checkpoint.value(), c.total().value() / 2);
  EXPECT_GT(h.checkpoint.value(), c.total().value() / s.cluster.nodes / 2);
}

TEST(HostMemory, ItStopsFittingWhenCpuMemoryIsBelowTheTotal) {
  const Scenario s = Load(kOffload);
  const HostMemory h = EstimateHostMemory(s);
  ASSERT_TRUE(h.fits);
  EXPECT_DOUBLE_EQ(h.page_cache.value(), (h.capacity - h.total).value());
  EXPECT_TRUE(SuggestHostFits(s).empty());
  const HostMemory small = EstimateHostMemory(Load(kOffload, {"cluster.node.cpu_memory=512GiB"}));
  EXPECT_DOUBLE_EQ(small.capacity.value(), 512.0 * (1ull << 30));
  EXPECT_FALSE(small.fits);
  EXPECT_EQ(small.page_cache.value(), 0);
  EXPECT_DOUBLE_EQ(small.total.value(), h.total.value());  // the need does not change
}

// Every suggestion, applied after the flags that broke it, makes it fit.
void ExpectEverySuggestionFits(const std::string& file, const std::vector<std::string>& sets,
                               const std::vector<std::string>& expected) {
  const Scenario s = Load(file, sets);
  ASSERT_FALSE(EstimateHostMemory(s).fits);
  const std::vector<HostSuggestion> suggestions = SuggestHostFits(s);
  std::vector<std::string> flags;
  for (const HostSuggestion& h : suggestions) {
    ASSERT_FALSE(h.overrides.empty()) << h.change;
    std::vector<std::string> fixed = sets;
    fixed.insert(fixed.end(), h.overrides.begin(), h.overrides.end());
    flags.insert(flags.end(), h.overrides.begin(), h.overrides.end());
    const HostMemory after = EstimateHostMemory(Load(file, fixed));
    EXPECT_TRUE(after.fits) << h.change << ": " << after.total.value() << " of " << after.capacity.value();
  }
  for (const std::string& flag : expected)
    EXPECT_NE(std::find(flags.begin(), flags.end(), flag), flags.end())
        << flag << " not suggested, only " << ::testing::PrintToString(flags);
}

TEST(HostMemory, SuggestionsForOffloadedStatesMakeItFit) {
  ExpectEverySuggestionFits(kOffload, {"cluster.node.cpu_memory=512GiB"},
                            {"parallel.offload=nvme", "cluster.node.cpu_memory=1024GiB"});
}

TEST(HostMemory, SuggestionsForTooManyWorkersMakeItFit) {
  // ResNet-50's loaders: 24 GB of processes and, per worker per GPU of the
  // node, 8 x (157 MB + 2 batches of 256 x 602 KB, pinned twice) = 6.19 GB;
  // 4 workers take 48.75 GB, 5.8 GB over 40 GiB: one worker fewer fits.
  // (Its cluster's 512 GiB page cache tier would not fit in 40 GiB: the
  // dataset stays on the NFS server alone.)
  ExpectEverySuggestionFits(kImages,
                            {"cluster.storage=[{name: nfs, kind: nfs, read: 6.5GB/s, write: 3.5GB/s, "
                             "network: 100Gbps, latency: 200us}]",
                             "cluster.node.cpu_memory=40GiB"},
                            {"data.workers=3"});
}

TEST(HostMemory, SuggestionsForAnAsyncCheckpointMakeItFit) {
  ExpectEverySuggestionFits(kOffload, {"checkpoint.tier=local_nvme", "checkpoint.every=30min", "checkpoint.mode=async"},
                            {"checkpoint.mode=sync"});
}

TEST(HostMemory, ThePageCacheServesNothingInTheFirstEpoch) {
  Scenario s = Load(kText);
  ASSERT_GT(PageCacheHits(s), 0);
  s.data.first_epoch = true;
  EXPECT_EQ(PageCacheHits(s), 0);
}

TEST(HostMemory, ThePageCacheServesNothingWithoutADatasetSize) {
  Scenario s = Load(kText);
  s.data.size = Bytes(0);
  EXPECT_EQ(PageCacheHits(s), 0);
}

TEST(HostMemory, ThePageCacheServesNothingOfADatasetInItAlready) {
  const Scenario s = Load("resnet50_1xA100_timm_jpeg.yaml");
  ASSERT_EQ(s.data.tier, "page_cache");
  EXPECT_EQ(PageCacheHits(s), 0);
}

TEST(HostMemory, ThePageCacheServesTheShareOfTheDatasetItHolds) {
  // 20 GB of SFT data on a 1 TiB node: all of it.
  EXPECT_EQ(PageCacheHits(Load(kText)), 1);
  // 3 TB of images: what the page cache holds of it.
  const Scenario s = Load(kImages, {"data.size=3TB"});
  const HostMemory h = EstimateHostMemory(s);
  const double room = h.capacity.value() - h.total.value();
  ASSERT_GT(room, 0);
  // ... at most the 512 GiB its cluster's page_cache tier states.
  const double tier = 512.0 * (1 << 30);
  ASSERT_LT(tier, room);
  EXPECT_NEAR(PageCacheHits(s), tier / 3e12, 1e-12);
  EXPECT_LT(PageCacheHits(s), 1);
}

}  // namespace
}  // namespace pf

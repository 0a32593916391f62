// The memory beyond the tensors (model/framework_memory.h): NCCL's buffers
// counted communicator by communicator, checked by hand against the
// channels x connections x 12 MiB of NCCL 2.21's source, and against the
// per-communicator memory measured on 4x A100 (NVIDIA/nccl#964).
#include <gtest/gtest.h>

#include "sim/model/framework_memory.h"
#include "sim/model/memory_model.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/test_util.h"

namespace pf {
namespace {

const std::string kRoot = testing_util::kRoot;
constexpr double kChannel = 12 * kMiB;  // one send and one receive side

// A scenario of `node` with the layout given by --set flags.
Scenario On(const std::string& node, int gpus_per_node, int nodes, std::vector<std::string> sets) {
  sets.insert(sets.begin(), {"cluster.node=" + node, "cluster.nodes=" + std::to_string(nodes),
                             "cluster.gpus_per_node=" + std::to_string(gpus_per_node), "price={per_node_hour: 1USD}",
                             "training.stack=megatron", "parallel.zero=0"});
  return LoadScenario(kRoot + "/scenarios/70b_8xA800.yaml", sets);
}

TEST(NcclBuffers, NoneOnOneGpu) {
  const Scenario s = On("a100-80gb-sxm-8x", 1, 1, {"parallel.dp=1", "parallel.zero=0", "training.method=qlora"});
  EXPECT_EQ(NcclBufferBytes(s).value(), 0);
}

TEST(NcclBuffers, RingAndTreeOnEachOf24ChannelsOfAnA100Node) {
  // 12 NVLinks: 24 channels; three or more ranks: ring and tree.
  const Scenario dp8 = On("a100-80gb-sxm-8x", 8, 1, {"parallel.dp=8"});
  EXPECT_DOUBLE_EQ(NcclBufferBytes(dp8).value(), 24 * 2 * kChannel);
  // Two ranks: the tree's neighbour is the ring's; the ring alone.
  const Scenario dp2 = On("a100-80gb-sxm-8x", 2, 1, {"parallel.dp=2"});
  EXPECT_DOUBLE_EQ(NcclBufferBytes(dp2).value(), 24 * kChannel);
  // Measured on 4x A100 NVLink: 688 MB a 3+-rank communicator; the
  // connection buffers are 88% of it (the rest is not modelled).
  EXPECT_NEAR(NcclBufferBytes(dp8).value() / 688e6, 0.88, 0.01);
}

TEST(NcclBuffers, FewerChannelsOverTheA800sCutNvlink) {
  // 8 NVLinks (400 GB/s): 16 channels, as NCCL ran on 8x H800 (nccl#892).
  const Scenario tp8 = On("a800-80gb-sxm-8x", 8, 1, {"parallel.tp=8", "parallel.dp=1"});
  EXPECT_DOUBLE_EQ(NcclBufferBytes(tp8).value(), 16 * 2 * kChannel);
}

TEST(NcclBuffers, ConsumerGpusWithoutP2pKeepThemInHostMemory) {
  const Scenario s = On("rtx4090-pcie-8x", 4, 1, {"parallel.dp=4", "training.method=qlora"});
  EXPECT_EQ(NcclBufferBytes(s).value(), 0);
}

TEST(NcclBuffers, EachCommunicatorOfALayoutCounts) {
  // TP4 x DP2 on 8 A100s: two communicators of 3+ and 2 ranks.
  const Scenario tp4dp2 = On("a100-80gb-sxm-8x", 8, 1, {"parallel.tp=4", "parallel.dp=2"});
  EXPECT_DOUBLE_EQ(NcclBufferBytes(tp4dp2).value(), 24 * 2 * kChannel + 24 * kChannel);
  // TP8 x PP2 over two nodes: the TP group, and each stage's one neighbour
  // on the other node through the shared network pool (32 channels x 16
  // steps x 128 KiB).
  const Scenario tp8pp2 = On("a100-80gb-sxm-8x", 8, 2, {"parallel.tp=8", "parallel.pp=2", "parallel.dp=1"});
  EXPECT_DOUBLE_EQ(NcclBufferBytes(tp8pp2).value(), 24 * 2 * kChannel + 32 * 16 * 128 * kKiB);
  // TP2 x PP4 on one node: both neighbours on the node, 32 send/recv
  // channels each (24 rounded up to a power of two).
  const Scenario tp2pp4 = On("a100-80gb-sxm-8x", 8, 1, {"parallel.tp=2", "parallel.pp=4", "parallel.dp=1"});
  EXPECT_DOUBLE_EQ(NcclBufferBytes(tp2pp4).value(), 24 * kChannel + 2 * 32 * kChannel);
}

TEST(NcclBuffers, HsdpHoldsItsShardAndReplicaGroups) {
  const Scenario s = On("a100-80gb-sxm-8x", 8, 4, {"parallel.dp=32", "parallel.zero=3", "parallel.hsdp=8"});
  EXPECT_DOUBLE_EQ(NcclBufferBytes(s).value(), 24 * 2 * kChannel + 24 * 2 * kChannel);
}

TEST(NcclBuffers, AnExpertAllToAllConnectsEveryPeerInTheNode) {
  // Mixtral EP8 on 8 H100s: 7 peers x 32 channels x 12 MiB = 2.6 GiB (8x
  // H100 grew by 3.28 GB after its first all_to_all, nccl#1685), beside
  // the DP group.
  const Scenario s = LoadScenario(kRoot + "/scenarios/mixtral_8x7b_64xH100.yaml");
  ASSERT_EQ(s.parallel.ep, 8);
  ASSERT_EQ(s.parallel.etp(), 1);
  const double all_to_all = 7 * 32 * kChannel;
  EXPECT_GE(NcclBufferBytes(s).value(), all_to_all);
  EXPECT_NEAR(all_to_all / 3.28e9, 0.86, 0.01);
}

TEST(FrameworkMemory, TheReportsTermsAddUp) {
  const MemoryBreakdown m = EstimateMemory(LoadScenario(kRoot + "/scenarios/70b_8xA800.yaml"));
  EXPECT_DOUBLE_EQ(m.framework.value(), (m.cuda_context + m.nccl_buffers + m.allocator_reserve).value());
  EXPECT_GT(m.nccl_buffers.value(), 0);
  EXPECT_NEAR(m.cuda_context.value(), 409e6, 1e6);
}

// The caching allocator caches more where allocation sizes vary:
// DeepSpeed's ZeRO-3 fetches each Linear into a buffer of its own size,
// FSDP a block's flat parameters at one size; without ZeRO-3 and with
// fixed-length samples the shapes repeat every step. 15% of the reserved
// memory (GMLake) is 0.15 / 0.85 of the live tensors, against the 5% held
// with fixed shapes; the difference is a cache the allocator frees before
// an out-of-memory error: in what nvidia-smi shows (`observed`, at most the
// GPU), not in the total that decides whether the job fits.
TEST(FrameworkMemory, TheAllocatorCachesMoreWhereShapesVary) {
  const std::string flagship = kRoot + "/scenarios/70b_8xA800.yaml";
  const Scenario ds = LoadScenario(flagship);  // LLaMA-Factory on DeepSpeed ZeRO-3
  const Scenario fsdp = LoadScenario(flagship, {"training.stack=fsdp"});
  const Scenario zero0 = LoadScenario(
      flagship, {"training.stack=megatron", "parallel.tp=8", "parallel.dp=1", "parallel.zero=0"});
  EXPECT_TRUE(AllocationsVary(ds));
  EXPECT_FALSE(AllocationsVary(fsdp));
  EXPECT_FALSE(AllocationsVary(zero0));
  // Each condition on its own: ZeRO-3, more than one DP rank.
  EXPECT_FALSE(AllocationsVary(LoadScenario(flagship, {"parallel.zero=2"})));
  EXPECT_FALSE(AllocationsVary(LoadScenario(flagship, {"parallel.dp=1", "cluster.gpus_per_node=1"})));
  // Padding to the longest sample: only lengths that vary.
  const std::vector<std::string> padded = {"training.packing=false", "training.padding=longest",
                                           "training.sample_len=512", "training.stack=fsdp"};
  std::vector<std::string> fixed = padded;
  fixed.push_back("training.sample_len_cv=0");
  EXPECT_TRUE(AllocationsVary(LoadScenario(flagship, padded)));
  EXPECT_FALSE(AllocationsVary(LoadScenario(flagship, fixed)));
  const MemoryBreakdown a = EstimateMemory(ds), b = EstimateMemory(fsdp);
  const double live_a = (a.total - a.framework).value(), live_b = (b.total - b.framework).value();
  EXPECT_NEAR(a.allocator_reserve.value(), 0.05 * live_a, 1);
  // The cache for varying sizes, with the blocks of the phase that is not
  // the peak (memory_model.h phase_cache); the GPU holds it all.
  EXPECT_NEAR(a.allocator_cache.value(), (0.15 / 0.85 - 0.05) * live_a + a.phase_cache.value(), 1);
  EXPECT_NEAR(a.observed.value(), (a.total + a.allocator_cache).value(), 1);
  EXPECT_NEAR(b.allocator_reserve.value(), 0.05 * live_b, 1);
  EXPECT_EQ(b.allocator_cache.value(), b.phase_cache.value());
  EXPECT_EQ(b.observed.value(), (b.total + b.phase_cache).value());
  // DeepSpeed's 530B ZeRO-3 run at micro-batch 8 ran on A100-80GB: it fits
  // with the 5%, and its cache fills the rest of the GPU, short of the
  // 12.6% of its live tensors.
  const Scenario s530 = LoadScenario(kRoot + "/tests/data/recipes/ds_zero3_530b_512xA100_mb8.yaml");
  const MemoryBreakdown big = EstimateMemory(s530);
  const double live_big = (big.total - big.framework).value();
  EXPECT_TRUE(big.fits);
  EXPECT_EQ(big.observed.value(), big.capacity.value());
  EXPECT_DOUBLE_EQ(big.allocator_cache.value(), (big.capacity - big.total).value());
  EXPECT_LT(big.allocator_cache.value(), (0.15 / 0.85 - 0.05) * live_big);
  // A job that does not fit has no room for a cache.
  const MemoryBreakdown over = EstimateMemory(LoadScenario(kRoot + "/tests/data/recipes/ds_zero3_530b_512xA100_mb8.yaml",
                                                           {"training.micro_batch=16", "training.global_batch=8192"}));
  EXPECT_FALSE(over.fits);
  EXPECT_EQ(over.allocator_cache.value(), 0);
  EXPECT_EQ(over.observed.value(), over.total.value());
}

}  // namespace
}  // namespace pf

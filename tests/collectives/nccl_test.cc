// The collective model: NCCL's choice of algorithm and protocol by least
// modelled time, its latency terms and the algorithms it offers.
#include <gtest/gtest.h>

#include "sim/collectives/nccl.h"

namespace pf {
namespace {

GroupPaths Dgx(bool nvls) {
  GroupPaths p;
  p.intra_line = BytesPerSecond(300e9);
  p.intra = BytesPerSecond(300e9 * NvlinkEfficiency(3));
  p.intra_hop = Seconds(1e-6);
  p.inter = BytesPerSecond(8 * 25e9 * NicEfficiency());
  p.inter_hop = Seconds(2e-6);
  p.nvls = nvls;
  return p;
}

TEST(NcclModel, ProtocolsFollowSizeFromLLToSimple) {
  const GroupShape node{8, 1, 8};
  const auto small = *PlanCollective(CollectiveKind::kAllReduce, node, Dgx(false), Bytes(64e3));
  const auto large = *PlanCollective(CollectiveKind::kAllReduce, node, Dgx(false), Bytes(8e9));
  EXPECT_EQ(small.protocol, Protocol::kLL);
  EXPECT_EQ(large.protocol, Protocol::kSimple);
  EXPECT_EQ(large.algorithm, Algorithm::kRing);
  // Bus bandwidth rises with size and stays below the link's achieved rate.
  double prev = 0;
  for (double size = 1e3; size <= 1e10; size *= 2) {
    const auto p = *PlanCollective(CollectiveKind::kAllReduce, node, Dgx(false), Bytes(size));
    const double busbw = BusBytes(CollectiveKind::kAllReduce, 8, Bytes(size)).value() / p.time.value();
    EXPECT_GT(busbw, prev) << size;
    EXPECT_LT(busbw, Dgx(false).intra.value()) << size;
    prev = busbw;
  }
}

TEST(NcclModel, RingLatencyCountsEveryHop) {
  const NcclConstants c;
  const GroupShape node{8, 1, 8};
  const auto p = ModelCollective(CollectiveKind::kAllReduce, node, Dgx(false), Bytes(1e3), Algorithm::kRing,
                                 Protocol::kLL, c);
  EXPECT_NEAR(p.latency.value(), 14 * (c.step_latency_ll_s + 1e-6), 1e-15);
  // Across 4 nodes: 2 x 3 of the 2 x 31 steps cross the network.
  const auto q = ModelCollective(CollectiveKind::kAllReduce, GroupShape{32, 4, 8}, Dgx(false), Bytes(1e3),
                                 Algorithm::kRing, Protocol::kLL, c);
  EXPECT_NEAR(q.latency.value(), 56 * (c.step_latency_ll_s + 1e-6) + 6 * (c.step_latency_ll_s + 2e-6), 1e-15);
  // A tree climbs log2(nodes) levels: far fewer steps on 64 nodes.
  const auto t = ModelCollective(CollectiveKind::kAllReduce, GroupShape{512, 64, 8}, Dgx(false), Bytes(1e3),
                                 Algorithm::kTree, Protocol::kLL, c);
  EXPECT_NEAR(t.latency.value(), 14 * (c.step_latency_ll_s + 1e-6) + 12 * (c.step_latency_ll_s + 2e-6), 1e-15);
}

TEST(NcclModel, TreeWinsSmallAllReducesAcrossManyNodes) {
  const auto p = *PlanCollective(CollectiveKind::kAllReduce, GroupShape{512, 64, 8}, Dgx(false), Bytes(16e6));
  EXPECT_EQ(p.algorithm, Algorithm::kTree);
  // All-gather has no tree: ring, and its latency grows with the ranks.
  const auto ag = *PlanCollective(CollectiveKind::kAllGather, GroupShape{512, 64, 8}, Dgx(false), Bytes(16e6));
  EXPECT_EQ(ag.algorithm, Algorithm::kRing);
  const auto ag8 = *PlanCollective(CollectiveKind::kAllGather, GroupShape{64, 8, 8}, Dgx(false), Bytes(16e6));
  EXPECT_GT(ag.latency.value(), 7 * ag8.latency.value());
}

TEST(NcclModel, NvlsOnlyInsideOneNvlsNode) {
  const GroupShape node{8, 1, 8};
  EXPECT_TRUE(Offers(Algorithm::kNvls, CollectiveKind::kAllReduce, node, Dgx(true)));
  EXPECT_FALSE(Offers(Algorithm::kNvls, CollectiveKind::kAllReduce, node, Dgx(false)));
  EXPECT_FALSE(Offers(Algorithm::kNvls, CollectiveKind::kAllGather, node, Dgx(true)));
  EXPECT_FALSE(Offers(Algorithm::kNvls, CollectiveKind::kAllReduce, GroupShape{16, 2, 8}, Dgx(true)));
  EXPECT_FALSE(Offers(Algorithm::kTree, CollectiveKind::kAllReduce, node, Dgx(true)));
  EXPECT_FALSE(PlanCollective(CollectiveKind::kAllGather, node, Dgx(true), Bytes(1e9), NcclConstants(),
                              Algorithm::kNvls));
  const auto forced = *PlanCollective(CollectiveKind::kAllReduce, node, Dgx(true), Bytes(1e9), NcclConstants(),
                                      Algorithm::kRing);
  EXPECT_EQ(forced.algorithm, Algorithm::kRing);
  const auto nvls = *PlanCollective(CollectiveKind::kAllReduce, node, Dgx(true), Bytes(1e9));
  EXPECT_EQ(nvls.algorithm, Algorithm::kNvls);
  EXPECT_LT(nvls.time.value(), forced.time.value());
}

}  // namespace
}  // namespace pf

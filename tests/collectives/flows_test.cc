// Collectives as volume-equivalent flows: the volumes of the nccl-tests
// bus-bandwidth convention, one flow per GPU inside a node, rails across
// nodes, S per GPU through the switch for NVLS.
#include <map>

#include <gtest/gtest.h>

#include "sim/collectives/flows.h"

namespace pf {
namespace {

TEST(CollectiveFlows, OneNodeAllReduceRing) {
  const double S = 1e9;
  std::vector<int> group = {0, 1, 2, 3, 4, 5, 6, 7};
  const auto flows = CollectiveFlows(CollectiveKind::kAllReduce, Algorithm::kRing, group, 8, Bytes(S));
  ASSERT_EQ(flows.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(flows[i].src, i);
    EXPECT_EQ(flows[i].dst, (i + 1) % 8);
    EXPECT_DOUBLE_EQ(flows[i].bytes.value(), 2.0 * 7 / 8 * S);
  }
  EXPECT_TRUE(CollectiveFlows(CollectiveKind::kAllReduce, Algorithm::kRing, {3}, 8, Bytes(S)).empty());
}

TEST(CollectiveFlows, NvlsSendsEachGpusBufferOnce) {
  const auto flows =
      CollectiveFlows(CollectiveKind::kAllReduce, Algorithm::kNvls, {0, 1, 2, 3}, 8, Bytes(1e9));
  ASSERT_EQ(flows.size(), 4u);
  for (const Flow& f : flows) EXPECT_DOUBLE_EQ(f.bytes.value(), 1e9);
}

TEST(CollectiveFlows, BusBytesFollowNcclTests) {
  const Bytes S(8e8);
  EXPECT_DOUBLE_EQ(BusBytes(CollectiveKind::kAllReduce, 8, S).value(), 2.0 * 7 / 8 * 8e8);
  EXPECT_DOUBLE_EQ(BusBytes(CollectiveKind::kAllGather, 8, S).value(), 7.0 / 8 * 8e8);
  EXPECT_DOUBLE_EQ(BusBytes(CollectiveKind::kReduceScatter, 8, S).value(), 7.0 / 8 * 8e8);
  EXPECT_DOUBLE_EQ(BusBytes(CollectiveKind::kAllToAll, 8, S).value(), 7.0 / 8 * 8e8);
  EXPECT_DOUBLE_EQ(BusBytes(CollectiveKind::kBroadcast, 8, S).value(), 8e8);
  EXPECT_DOUBLE_EQ(BusBytes(CollectiveKind::kAllReduce, 1, S).value(), 0);
}

TEST(CollectiveFlows, TwoNodesOfFourUseRails) {
  const double S = 8e8;
  const std::vector<int> group = {0, 1, 2, 3, 4, 5, 6, 7};
  const GroupShape shape = ShapeOf(group, 4);
  EXPECT_EQ(shape.ranks, 8);
  EXPECT_EQ(shape.nodes, 2);
  EXPECT_EQ(shape.per_node, 4);
  for (auto kind : {CollectiveKind::kAllReduce, CollectiveKind::kReduceScatter}) {
    for (auto algo : {Algorithm::kRing, Algorithm::kTree}) {
      const double V = BusBytes(kind, 8, Bytes(S)).value();
      const auto flows = CollectiveFlows(kind, algo, group, 4, Bytes(S));
      ASSERT_EQ(flows.size(), 16u);
      std::map<int, std::vector<Flow>> from;
      for (const Flow& f : flows) from[f.src].push_back(f);
      for (int g = 0; g < 8; ++g) {
        ASSERT_EQ(from[g].size(), 2u) << g;
        const int node = g / 4, local = g % 4;
        for (const Flow& f : from[g]) {
          if (f.dst / 4 == node) {
            EXPECT_EQ(f.dst, node * 4 + (local + 1) % 4);
            EXPECT_DOUBLE_EQ(f.bytes.value(), V * 3 / 4);
          } else {
            EXPECT_EQ(f.dst, (1 - node) * 4 + local);  // same rail on the other node
            EXPECT_DOUBLE_EQ(f.bytes.value(), V / 4);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace pf

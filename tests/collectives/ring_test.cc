// Ring collectives as volume-equivalent flows: the volumes of the nccl-tests
// bus-bandwidth convention, one flow per GPU inside a node, rails across nodes.
#include <map>

#include <gtest/gtest.h>

#include "sim/collectives/ring.h"

namespace pf {
namespace {

TEST(RingFlows, OneNodeAllReduce) {
  const double S = 1e9;
  std::vector<int> group = {0, 1, 2, 3, 4, 5, 6, 7};
  const auto flows = RingFlows(CollectiveKind::kAllReduce, group, 8, Bytes(S));
  ASSERT_EQ(flows.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(flows[i].src, i);
    EXPECT_EQ(flows[i].dst, (i + 1) % 8);
    EXPECT_DOUBLE_EQ(flows[i].bytes.value(), 2.0 * 7 / 8 * S);
  }
  EXPECT_DOUBLE_EQ(RingBytesPerGpu(CollectiveKind::kAllGather, 8, Bytes(S)).value(), 7.0 / 8 * S);
  EXPECT_EQ(RingFlows(CollectiveKind::kAllReduce, {3}, 8, Bytes(S)).size(), 0u);
}

TEST(RingFlows, TwoNodesOfFourUseRails) {
  const double S = 8e8;
  const std::vector<int> group = {0, 1, 2, 3, 4, 5, 6, 7};
  for (auto kind : {CollectiveKind::kAllReduce, CollectiveKind::kReduceScatter}) {
    const double V = RingBytesPerGpu(kind, 8, Bytes(S)).value();
    const auto flows = RingFlows(kind, group, 4, Bytes(S));
    ASSERT_EQ(flows.size(), 16u);
    std::map<int, std::vector<Flow>> from;
    for (const Flow& f : flows) from[f.src].push_back(f);
    for (int g = 0; g < 8; ++g) {
      ASSERT_EQ(from[g].size(), 2u) << g;
      const int node = g / 4, local = g % 4;
      int intra = 0, cross = 0;
      for (const Flow& f : from[g]) {
        if (f.dst / 4 == node) {
          ++intra;
          EXPECT_EQ(f.dst, node * 4 + (local + 1) % 4);
          EXPECT_DOUBLE_EQ(f.bytes.value(), V * 3 / 4);
        } else {
          ++cross;
          EXPECT_EQ(f.dst, (1 - node) * 4 + local);  // same rail on the other node
          EXPECT_DOUBLE_EQ(f.bytes.value(), V / 4);
        }
      }
      EXPECT_EQ(intra, 1);
      EXPECT_EQ(cross, 1);
    }
  }
}

}  // namespace
}  // namespace pf

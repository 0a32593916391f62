// Fabric arithmetic: nodes per leaf, uplinks, placement and switch hops on
// the bundled clusters.
#include <gtest/gtest.h>

#include "sim/scenario/catalog.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/spec/spec.h"

namespace pf {
namespace {

TEST(Fabric, EveryBundledClusterLoads) {
  const auto names = BundledClusters();
  ASSERT_GE(names.size(), 3u);
  for (const auto& name : names) {
    const ClusterSpec c = LoadCluster(name);
    EXPECT_EQ(c.name, name);
    EXPECT_GE(c.nodes, 1) << name;
  }
}

TEST(Fabric, TwoToOneFatTreeOf64PortSwitches) {
  const ClusterSpec c = LoadCluster("h100-fattree-2to1-1024node");
  // 64 x 2/3 = 42 node ports: 5 nodes of 8 NICs, 20 uplinks.
  EXPECT_EQ(NodesPerLeaf(c), 5);
  EXPECT_EQ(LeafUplinks(c), 20);
  EXPECT_EQ(Leaves(c), 205);
  EXPECT_EQ(LeavesPerPod(c), 32);
  EXPECT_EQ(SwitchHops(c, 0, 4), 1);
  EXPECT_EQ(SwitchHops(c, 4, 5), 3);
  EXPECT_EQ(SwitchHops(c, 0, 5 * 32), 5);  // the first node of the second pod
  EXPECT_EQ(SwitchHops(c, 3, 3), 0);
}

TEST(Fabric, SpreadPlacementPutsNeighboursOnDifferentLeaves) {
  ClusterSpec c = LoadCluster("h100-fattree-2to1-1024node");
  c.nodes = 10;
  c.fabric.placement = Placement::kSpread;
  EXPECT_EQ(Leaves(c), 2);
  EXPECT_EQ(LeafOf(c, 0), 0);
  EXPECT_EQ(LeafOf(c, 1), 1);
  EXPECT_EQ(LeafOf(c, 2), 0);
  EXPECT_EQ(SwitchHops(c, 0, 1), 3);
  EXPECT_EQ(SwitchHops(c, 0, 2), 1);
}

TEST(Fabric, RailLeavesHoldHalfTheirPortsAndNeverOversubscribe) {
  const ClusterSpec c = LoadCluster("h100-ib-rail-128node");
  EXPECT_EQ(NodesPerLeaf(c), 32);  // one DGX SuperPOD scalable unit
  EXPECT_EQ(LeafUplinks(c), 0);
  EXPECT_EQ(SwitchHops(c, 0, 31), 1);
  EXPECT_EQ(SwitchHops(c, 31, 32), 3);
  // {node, nodes} without a fabric: one non-blocking switch.
  ClusterSpec plain;
  plain.node = c.node, plain.nodes = 1000;
  EXPECT_EQ(Leaves(plain), 1);
  EXPECT_EQ(SwitchHops(plain, 0, 999), 1);
}

}  // namespace
}  // namespace pf

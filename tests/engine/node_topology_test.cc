// The node topology: which links each route crosses and what a ring gets
// when its hops share them, on the bundled nodes.
#include "sim/engine/node_topology.h"

#include <gtest/gtest.h>

#include "sim/collectives/nccl.h"
#include "sim/engine/group_paths.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/spec/validate.h"

namespace pf {
namespace {

NodeSpec Node(const std::string& name) { return LoadNode(name, "test"); }

std::vector<std::string> Names(const NodeTopology& t, const Route& r) {
  std::vector<std::string> out;
  for (int l : r) out.push_back(t.links()[l].name);
  return out;
}

double Pcie(int gen, int lanes) { return PcieLinkRate(gen, lanes).value() * PcieEfficiency(); }

std::vector<Route> Ring(const NodeTopology& t, int gpus) {
  std::vector<Route> ring;
  for (int i = 0; i < gpus; ++i) ring.push_back(t.GpuToGpu(i, (i + 1) % gpus));
  return ring;
}

using Strings = std::vector<std::string>;

TEST(NodeTopology, DgxA100GpusReachTheirOwnNicInsideTheirSwitch) {
  const NodeTopology t(Node("a100-80gb-sxm-8x"));
  EXPECT_EQ(Names(t, t.GpuToFabric(3)), (Strings{"gpu3_pcie_out", "nic3_out"}));
  EXPECT_EQ(Names(t, t.FabricToGpu(3)), (Strings{"nic3_in", "gpu3_pcie_in"}));
  // Host memory is above the switch, whose uplink GPUs 2 and 3 share.
  EXPECT_EQ(Names(t, t.GpuToCpu(3)), (Strings{"gpu3_pcie_out", "switch1_up"}));
  EXPECT_NEAR(t.SharedRate({t.GpuToCpu(2), t.GpuToCpu(3)}), Pcie(4, 16) / 2, 1);
  EXPECT_EQ(Names(t, t.GpuToGpu(0, 5)), (Strings{"gpu0_nvl_out", "gpu5_nvl_in"}));
  EXPECT_TRUE(t.LanesIndependent());
  EXPECT_EQ(t.SocketOfGpu(5), 1);
}

TEST(NodeTopology, TwoGpusOnOneNicAreNotIndependentLanes) {
  const NodeTopology a800(Node("a800-80gb-sxm-8x"));  // 4 NICs, one per switch of 2 GPUs
  EXPECT_EQ(a800.NicOf(4), 2);
  EXPECT_EQ(a800.NicOf(5), 2);
  EXPECT_FALSE(a800.LanesIndependent());
  EXPECT_TRUE(NodeTopology(Node("h100-sxm-8x")).LanesIndependent());
}

TEST(NodeTopology, WithoutGpuDirectRdmaTrafficIsStagedAboveTheSwitch) {
  NodeSpec n = Node("a100-80gb-sxm-8x");
  n.gpudirect_rdma = false;
  const NodeTopology t(n);
  EXPECT_EQ(Names(t, t.GpuToFabric(1)),
            (Strings{"gpu1_pcie_out", "switch0_up", "nic1_staging_out", "switch0_down", "nic1_out"}));
  EXPECT_FALSE(t.LanesIndependent());
}

// 4x RTX 4090 without P2P: each hop of a ring is staged in host memory,
// which the 4 hops share; PCIe x8 or Gen 3 halves each GPU's own link.
TEST(NodeTopology, GeforceRingIsBoundByHostMemoryOrByTheGpusLanes) {
  NodeSpec n = Node("rtx4090-pcie-4x");
  EXPECT_EQ(NodeTopology(n).links().size(), 4u * 2 + 2 + 1);  // PCIe in/out, NIC in/out, host memory
  EXPECT_EQ(Names(NodeTopology(n), NodeTopology(n).GpuToGpu(0, 1)),
            (Strings{"gpu0_pcie_out", "socket0_host_memory", "gpu1_pcie_in"}));
  const double host = n.pcie.host_memory.value();
  EXPECT_NEAR(NodeTopology(n).SharedRate(Ring(NodeTopology(n), 4)), std::min(host / 4, Pcie(4, 16)), 1);
  n.pcie.lanes = 8;
  EXPECT_NEAR(NodeTopology(n).SharedRate(Ring(NodeTopology(n), 4)), std::min(host / 4, Pcie(4, 8)), 1);
  n.pcie.lanes = 16, n.pcie.gen = 3;
  EXPECT_NEAR(NodeTopology(n).SharedRate(Ring(NodeTopology(n), 4)), std::min(host / 4, Pcie(3, 16)), 1);
  EXPECT_LT(Pcie(3, 16), host / 4);  // so Gen 3 is the slower box
}

TEST(NodeTopology, EightGeforceCardsOnTwoSocketsCrossTheInterSocketLink) {
  const NodeSpec n = Node("rtx4090-pcie-8x");
  const NodeTopology t(n);
  EXPECT_EQ(Names(t, t.GpuToGpu(3, 4)),
            (Strings{"gpu3_pcie_out", "socket0_host_memory", "socket0_to_1", "gpu4_pcie_in"}));
  EXPECT_NEAR(t.SharedRate(Ring(t, 8)),
              std::min({n.pcie.host_memory.value() / 4, n.pcie.inter_socket.value(), Pcie(4, 16)}), 1);
}

TEST(NodeTopology, BridgedPairTalksOverTheBridgeOthersOverPcie) {
  const NodeSpec n = Node("rtx3090-nvlink-2x");
  const NodeTopology t(n);
  EXPECT_EQ(Names(t, t.GpuToGpu(1, 0)), (Strings{"bridge1_0"}));
  ClusterSpec c;
  c.node = n, c.nodes = 1;
  const GroupPaths p = PathsOf(c, t, {0, 1});
  EXPECT_NEAR(p.intra.value(), 56.25e9 * NvlinkEfficiency(3), 1);
}

TEST(NodeTopology, PeerToPeerStaysInsideASwitchAndCrossesSocketsBetweenThem) {
  const NodeTopology t(Node("h100-pcie-8x"));
  EXPECT_EQ(Names(t, t.GpuToGpu(0, 3)), (Strings{"gpu0_pcie_out", "gpu3_pcie_in"}));
  EXPECT_EQ(Names(t, t.GpuToGpu(3, 4)),
            (Strings{"gpu3_pcie_out", "switch0_up", "socket0_to_1", "switch1_down", "gpu4_pcie_in"}));
  // GPUs 0-3 reach NIC 0 inside their switch; 4-7 NIC 1.
  EXPECT_EQ(t.NicOf(2), 0);
  EXPECT_EQ(t.NicOf(6), 1);
}

TEST(NodeTopology, FewerGpusOfABoxLeaveTheirSwitches) {
  const NodeSpec n = WithGpus(Node("a100-80gb-sxm-8x"), 3);
  EXPECT_FALSE(CheckNodeTopology(n).has_value());
  EXPECT_EQ(n.pcie.switches[1].gpus, std::vector<int>{2});
  EXPECT_TRUE(n.pcie.switches[2].gpus.empty());
  EXPECT_EQ(NodeTopology(n).NicOf(2), 2);
}

TEST(NodeTopology, RefusesASpecWhoseIndicesAreOutOfRange) {
  NodeSpec n = Node("a100-80gb-sxm-8x");
  n.nics = 4;  // switches still list NICs 4-7
  const auto e = CheckNodeTopology(n);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->message, "NIC 4 outside 0..3");
  EXPECT_THROW(NodeTopology{n}, std::invalid_argument);
}

}  // namespace
}  // namespace pf

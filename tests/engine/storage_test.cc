// Storage tiers on the platform: a read from each kind of tier streams
// through its media, the network and the GPU's PCIe at once, so the slowest
// of them sets the time, and clients of a shared tier share its servers.
#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/collectives/nccl.h"
#include "sim/engine/engine.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/workload/workload_builder.h"
#include "sim/workload/workload_check.h"
#include "tests/engine/hand_built.h"

namespace pf {
namespace {

using namespace hand_built;

// The 4-node A800 RoCE cluster with its storage, 8 GPUs per node.
Scenario A800Cluster(int nodes) {
  return LoadScenario(kRoot + "/scenarios/13b_zero3_32xA800_roce.yaml",
                      {"cluster.nodes=" + std::to_string(nodes), "parallel.dp=" + std::to_string(8 * nodes),
                       "training.global_batch=" + std::to_string(8 * nodes)});
}

preflight::Task* AddRead(preflight::Workload& w, int gpu, double bytes, const std::string& tier) {
  preflight::Task* t = w.add_tasks();
  t->set_category(preflight::IO);
  t->mutable_io()->set_gpu(gpu);
  t->mutable_io()->set_direction(preflight::Io::HOST_TO_DEVICE);
  t->mutable_io()->set_size_bytes(bytes);
  t->mutable_io()->set_tier(tier);
  return t;
}

const StorageTier& Tier(const Scenario& s, const std::string& name) {
  for (const StorageTier& t : s.cluster.storage)
    if (t.name == name) return t;
  throw std::runtime_error("no tier " + name);
}

TEST(Storage, ALocalNvmeReadIsBoundByTheDrives) {
  const Scenario s = A800Cluster(1);
  preflight::Workload w = Empty(s);
  AddRead(w, 3, 13e9, "local_nvme");
  const TaskTimes t = RunWorkload(s, w);
  // 13 GB at the node's 13 GB/s of drives; its PCIe (25.7 GB/s) is faster.
  EXPECT_NEAR(t.end_s[0], 13e9 / Tier(s, "local_nvme").read.value(), 0.01);
}

TEST(Storage, OneNfsServerIsBoundByItsDisksAndSharedByItsClients) {
  const Scenario s = A800Cluster(4);
  const StorageTier& nfs = Tier(s, "nfs");
  // One client: the server's 6.5 GB/s of media is slower than its 100G NIC.
  preflight::Workload one = Empty(s);
  AddRead(one, 0, 6.5e9, "nfs");
  EXPECT_NEAR(RunWorkload(s, one).end_s[0], 6.5e9 / nfs.read.value(), 0.01);
  // Four clients on four nodes at once share the one server: 4x as long.
  preflight::Workload four = Empty(s);
  for (int node = 0; node < 4; ++node) AddRead(four, node * 8, 6.5e9, "nfs");
  const TaskTimes t = RunWorkload(s, four);
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(t.end_s[k], 4 * 6.5e9 / nfs.read.value(), 0.05) << k;
}

TEST(Storage, AParallelFileSystemStripesOverItsServersAndStopsAtTheClientNic) {
  Scenario s = LoadScenario(kRoot + "/scenarios/llama70b_512xH100.yaml",
                            {"cluster=h100-ib-rail-128node", "cluster.nodes=1", "parallel.tp=8", "parallel.pp=1",
                             "parallel.dp=1", "training.global_batch=64"});
  const StorageTier& lustre = Tier(s, "lustre");
  preflight::Workload w = Empty(s);
  AddRead(w, 0, 40e9, "lustre");
  // 16 servers x 10 GB/s of media: 160 GB/s; the client's NIC 0 (400G at
  // 0.904 achieved, 45.2 GB/s) is the limit.
  const double nic = s.cluster.node.nic_bandwidth.value() * NicEfficiency();
  EXPECT_LT(nic, lustre.servers * lustre.read.value());
  EXPECT_NEAR(RunWorkload(s, w).end_s[0] / (40e9 / nic), 1, 0.01);
}

TEST(Storage, AWorkloadNamingAMissingTierIsRefused) {
  const Scenario s = A800Cluster(1);
  preflight::Workload w = Empty(s);
  AddRead(w, 0, 1e9, "scratch");
  EXPECT_NE(MessageOf<std::invalid_argument>([&] { RunWorkload(s, w); }).find("no storage tier \"scratch\""),
            std::string::npos);
  w = BuildWorkload(s);
  AddRead(w, 0, 1e9, "scratch");
  const std::string m = MessageOf<InputError>([&] { ValidateWorkload(w, s, "w.pb"); });
  EXPECT_NE(m.find("\"scratch\" is not a storage tier of this cluster (tiers: local_nvme, page_cache, nfs, pfs, oss)"),
            std::string::npos) << m;
}

}  // namespace
}  // namespace pf

// The reductions that keep a simulation small (lane 0 of independent TP
// lanes; one flow for a collective inside an NVSwitch node whose NVLink
// carries only that group; one data-parallel replica when each node holds
// one, its kernels when a node holds several; engine/reductions.h) against the full simulation of every replica,
// lane and flow (PREFLIGHT_FULL_SIMULATION=1): the step time and every
// breakdown figure within 1e-6 (the bar: 0.5%) on layouts up to
// 256 GPUs, including
// ZeRO-3, interleaved 1F1B, a PCIe box and an oversubscribed fabric.
#include <cstdlib>

#include <gtest/gtest.h>

#include "sim/engine/engine.h"
#include "sim/engine/node_topology.h"
#include "sim/engine/reductions.h"
#include "sim/job/simulate.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/workload/workload_builder.h"
#include "tests/sanitizer_budget.h"
#include "tests/test_util.h"

namespace pf {
namespace {

using testing_util::kRoot;

struct Layout {
  std::string name, file;
  std::vector<std::string> flags;
};
void PrintTo(const Layout& l, std::ostream* os) { *os << l.name; }

std::vector<Layout> Layouts() {
  const std::vector<std::string> fat_tree = {"cluster.fabric.kind=fat_tree", "cluster.fabric.radix=64",
                                             "cluster.fabric.oversubscription=2", "cluster.fabric.placement=spread"};
  std::vector<std::string> h100_256 = {"cluster.nodes=32", "parallel.dp=8"};
  std::vector<std::string> fat_256 = h100_256;
  fat_256.insert(fat_256.end(), fat_tree.begin(), fat_tree.end());
  return {
      {"Tp8Lora8xA800", "scenarios/70b_8xA800_tp8.yaml", {}},
      {"Tp8Lora8xH100Nvls", "scenarios/70b_8xA800_tp8.yaml", {"cluster.node=h100-sxm-8x", "price.offer=lambda-8x-h100-sxm5"}},
      {"Megatron1p7bDp32", "scenarios/megatron_1p7b_32xA100.yaml", {}},
      {"Megatron7p5bTp2Dp64", "scenarios/megatron_7p5b_128xA100.yaml", {}},
      {"Gpt3Tp8Pp8Dp4", "scenarios/gpt3_175b_1024xA100.yaml",
       {"cluster.nodes=32", "parallel.pp=8", "parallel.dp=4", "training.global_batch=256"}},
      {"Gpt3Interleaved", "scenarios/gpt3_175b_1024xA100.yaml",
       {"cluster.nodes=32", "parallel.pp=8", "parallel.vp=2", "parallel.dp=4", "training.global_batch=256"}},
      {"Zero3Mpt7b8xA100", "scenarios/foundry_mpt7b_8xA100.yaml", {}},
      {"Zero3Llama13b32xA800Roce", "scenarios/13b_zero3_32xA800_roce.yaml", {}},
      {"PcieBox4x4090", "scenarios/7b_lora_4x4090.yaml",
       {"model=mpt-1b", "training.method=full", "parallel.zero=1", "training.micro_batch=4"}},
      {"Llama70b256xH100Rail", "scenarios/llama70b_512xH100.yaml", h100_256},
      {"Llama70b256xH100FatTreeSpread", "scenarios/llama70b_512xH100.yaml", fat_256},
      {"Tp8Zero3Dp32H100", "scenarios/llama70b_512xH100.yaml",
       {"cluster.nodes=32", "parallel.pp=1", "parallel.dp=32", "parallel.zero=3", "training.global_batch=256"}},
      {"Gpt3Tp8Zero1Dp32NoPipeline", "scenarios/gpt3_175b_1024xA100.yaml",
       {"cluster.nodes=32", "parallel.pp=1", "parallel.dp=32", "training.global_batch=256", "--force"}},
      // A slow NIC, so that sends and data-parallel rings meet on it (found
      // by review: mirroring sends too was 0.05% off here).
      {"InterleavedOnSlowNics", "scenarios/gpt3_175b_1024xA100.yaml",
       {"cluster=h100-ib-rail-128node", "model=megatron-gpt-39.1b", "cluster.nodes=16", "parallel.pp=4",
        "parallel.vp=2", "parallel.dp=4", "training.global_batch=32", "cluster.node.nics.bandwidth=3Gbps"}},
      // Small leaves with a slow switch: replica 1's sends cross leaves
      // where replica 0's do not, so the replicas are not alike.
      {"RailLeavesOfThreeNodes", "scenarios/gpt3_175b_1024xA100.yaml",
       {"cluster=h100-ib-rail-128node", "model=megatron-gpt-39.1b", "cluster.nodes=4", "parallel.pp=2",
        "parallel.dp=2", "training.global_batch=16", "cluster.fabric.radix=6", "cluster.fabric.switch_latency=1ms"}},
      // Nodes of several replicas with a data loader and storage reads.
      {"Resnet50Dp32Data", "scenarios/resnet50_32xA800_data.yaml", {}},
      {"Sft7bDp8Data", "scenarios/7b_sft_8xA800_data.yaml", {}},
      // Context parallelism across nodes: replicas mirrored by CP units.
      {"Cp4Tp8Pp2On16Nodes", "scenarios/llama70b_512xH100.yaml",
       {"cluster.nodes=16", "parallel.tp=8", "parallel.pp=2", "parallel.cp=4", "parallel.dp=2", "parallel.sp=true",
        "training.seq_len=32768", "training.global_batch=16", "--force"}},
      // CP units that straddle nodes, or leaves, where unit 0 does not
      // (found by review: 0.36% and 0.13% off before the fabric check).
      {"Cp3StraddlingNodes", "scenarios/llama70b_512xH100.yaml",
       {"model=llama3-8b", "cluster.nodes=3", "parallel.tp=1", "parallel.pp=1", "parallel.cp=3", "parallel.dp=8",
        "parallel.zero=0", "training.seq_len=6144", "training.global_batch=8", "training.recompute=full", "--force"}},
      {"Cp2Tp8OnLeavesOfThree", "scenarios/llama70b_512xH100.yaml",
       {"model=llama3-8b", "cluster.nodes=6", "parallel.tp=8", "parallel.pp=1", "parallel.cp=2", "parallel.dp=3",
        "parallel.zero=0", "training.seq_len=6144", "training.global_batch=6", "training.recompute=full",
        "cluster.fabric.radix=6", "--force"}},
      {"Pp2Dp16Tp1", "scenarios/megatron_1p7b_32xA100.yaml", {"parallel.pp=2", "parallel.dp=16"}},
      {"Tp8Pp2On4NicA800", "scenarios/70b_8xA800_tp8.yaml",
       {"cluster.nodes=2", "parallel.pp=2", "training.method=full", "parallel.zero=1", "training.global_batch=16",
        "--force"}},
  };
}

class Reduction : public ::testing::TestWithParam<Layout> {};

// The layout's scenario; `force` tells whether its flags include --force.
Scenario LayoutScenario(const Layout& l, bool* force = nullptr) {
  std::vector<std::string> flags;
  for (const auto& f : l.flags)
    if (f != "--force") flags.push_back(f);
  if (force) *force = flags.size() != l.flags.size();
  return LoadScenario(kRoot + "/" + l.file, flags);
}

Result SimulateLayout(const Layout& l, bool full) {
  if (full) setenv(kFullSimulationEnv, "1", 1);
  else unsetenv(kFullSimulationEnv);
  bool force = false;
  const Scenario s = LayoutScenario(l, &force);
  Result r = Simulate(s, force);
  unsetenv(kFullSimulationEnv);
  return r;
}

TEST_P(Reduction, MatchesTheFullSimulation) {
  const Layout& l = GetParam();
  if (testing_util::OverSanitizerBudget(LayoutScenario(l)))
    GTEST_SKIP() << l.name << ": over the sanitizer suite's task budget; the normal suite compares it";
  const Result reduced = SimulateLayout(l, false), full = SimulateLayout(l, true);
  ASSERT_TRUE(reduced.step && full.step) << l.name;
  auto near = [&](double a, double b, const char* what) {
    // The bar is 0.5%; the reductions are exact, so hold them to 1e-6.
    EXPECT_NEAR(a, b, 1e-6 * std::max(b, 1e-3 * full.step->step_time.value())) << l.name << " " << what;
  };
  near(reduced.step->step_time.value(), full.step->step_time.value(), "step time");
  const Breakdown& a = reduced.step->breakdown;
  const Breakdown& b = full.step->breakdown;
  near(a.compute.value(), b.compute.value(), "compute");
  near(a.host_wait.value(), b.host_wait.value(), "host wait");
  near(a.optimizer.value(), b.optimizer.value(), "optimizer");
  near(a.tp_comm.value(), b.tp_comm.value(), "tp comm");
  near(a.pp_comm.value(), b.pp_comm.value(), "pp comm");
  near(a.dp_comm.value(), b.dp_comm.value(), "dp comm");
  near(a.io.value(), b.io.value(), "io");
  near(a.bubble.value(), b.bubble.value(), "bubble");
  near(a.idle.value(), b.idle.value(), "idle");
  // Every layout but these seven has a reduction of the flows that
  // applies (their nodes hold several replicas and their NVLink several
  // groups, or they are a PCIe box), so the test is never vacuous; the
  // first mirrors its replicas' kernels (below).
  const bool none_applies = l.name == "Megatron1p7bDp32" || l.name == "Zero3Llama13b32xA800Roce" ||
                            l.name == "PcieBox4x4090" || l.name == "Resnet50Dp32Data" || l.name == "Sft7bDp8Data" ||
                            l.name == "Pp2Dp16Tp1" || l.name == "Cp3StraddlingNodes";
  if (none_applies) EXPECT_EQ(reduced.step->flows, full.step->flows) << l.name;
  else EXPECT_LT(reduced.step->flows, full.step->flows) << l.name;
}

// A replica that differs (here one kernel of replica 1 twice as long: a
// straggler, as an imported workload may describe) is not mirrored: the
// result is the full simulation's, and slower than the symmetric step.
TEST(Reduction, AReplicaThatDiffersIsSimulated) {
  const Scenario s = LoadScenario(kRoot + "/scenarios/gpt3_175b_1024xA100.yaml",
                                  {"cluster.nodes=16", "parallel.pp=4", "parallel.dp=4", "training.global_batch=64",
                                   "model=megatron-gpt-39.1b"});
  preflight::Workload w = BuildWorkload(s);
  const Result symmetric = SimulateWorkload(s, w);
  for (preflight::Task& t : *w.mutable_tasks())
    if (t.has_compute() && t.compute().gpu() / 8 % 4 == 1) {  // replica 1 (GPU = t + 8 x (d + 4 x stage))
      t.mutable_compute()->set_duration_s(2 * t.compute().duration_s());
      break;
    }
  const Result reduced = SimulateWorkload(s, w);
  setenv(kFullSimulationEnv, "1", 1);
  const Result full = SimulateWorkload(s, w);
  unsetenv(kFullSimulationEnv);
  ASSERT_TRUE(symmetric.step && reduced.step && full.step);
  EXPECT_DOUBLE_EQ(reduced.step->step_time.value(), full.step->step_time.value());
  EXPECT_GT(full.step->step_time.value(), symmetric.step->step_time.value());
  // Replicas mirrored in the symmetric step, all simulated with the
  // straggler (the other reductions still apply to both).
  EXPECT_LT(symmetric.step->flows, reduced.step->flows);
}

// Nodes that hold several replicas: with data parallelism alone (each
// replica one GPU) every replica's kernels but replica 0's are mirrored;
// with a TP collective inside each replica (TP 2 on 8-GPU nodes: four
// replicas share a node's NVLink) nothing is.
TEST(Reduction, NodesOfSeveralReplicasMirrorKernelsOnly) {
  auto twins = [](const std::string& file, const std::vector<std::string>& flags) {
    unsetenv(kFullSimulationEnv);
    const Scenario s = LoadScenario(kRoot + "/" + file, flags);
    return ExactReductions(s, BuildWorkload(s), NodeTopology(s.cluster.node)).twin;
  };
  const std::vector<int> dp = twins("scenarios/megatron_1p7b_32xA100.yaml", {});
  ASSERT_FALSE(dp.empty());
  const Scenario s = LoadScenario(kRoot + "/scenarios/megatron_1p7b_32xA100.yaml", {});
  const preflight::Workload w = BuildWorkload(s);
  int mirrored = 0;
  for (int i = 0; i < w.tasks_size(); ++i) {
    if (dp[i] < 0) continue;
    ++mirrored;
    EXPECT_TRUE(w.tasks(i).has_compute()) << i;
  }
  EXPECT_GT(mirrored, 0);
  EXPECT_TRUE(twins("scenarios/megatron_7p5b_128xA100.yaml", {}).empty());  // TP 2 x DP 64 on 8-GPU nodes
}

// Context parallelism: replica d (of dp x cp) mirrors replica d mod cp, so
// CP unit 0 (replicas 0-3 here) runs and units 1 on are twins of it.
TEST(Reduction, ContextParallelReplicasMirrorTheirUnitZeroRank) {
  unsetenv(kFullSimulationEnv);
  const Scenario s = LoadScenario(kRoot + "/scenarios/llama70b_512xH100.yaml",
                                  {"cluster.nodes=16", "parallel.tp=8", "parallel.pp=2", "parallel.cp=4", "parallel.dp=2",
                                   "parallel.sp=true", "training.seq_len=32768", "training.global_batch=16"});
  const preflight::Workload w = BuildWorkload(s);
  const std::vector<int> twin = ExactReductions(s, w, NodeTopology(s.cluster.node)).twin;
  ASSERT_FALSE(twin.empty());
  // GPU = t + 8 x (d + 8 x stage), d over dp x cp = 8.
  for (int i = 0; i < w.tasks_size(); ++i) {
    if (!w.tasks(i).has_compute()) continue;
    const int d = w.tasks(i).compute().gpu() / 8 % 8;
    if (d < 4) {
      EXPECT_EQ(twin[i], -1) << i;
    } else {
      ASSERT_GE(twin[i], 0) << i;
      EXPECT_EQ(w.tasks(twin[i]).compute().gpu(), w.tasks(i).compute().gpu() - 4 * 8) << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, Reduction, ::testing::ValuesIn(Layouts()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace pf

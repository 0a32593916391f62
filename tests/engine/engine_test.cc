// The SimGrid engine and the time accounting on small hand-built workloads
// whose answers follow from the alpha-beta formulas; errors crossing from the
// child process; the in-process mode (PREFLIGHT_IN_PROCESS=1).
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <gtest/gtest.h>

#include "sim/accounting/accounting.h"
#include "sim/collectives/nccl.h"
#include "sim/collectives/flows.h"
#include "sim/engine/group_paths.h"
#include "sim/engine/engine.h"
#include "sim/engine/isolated_run.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/workload/workload_builder.h"
#include "tests/engine/hand_built.h"

namespace pf {
namespace {

using namespace hand_built;

TEST(Engine, ComputeChainsAddUpAndParallelTasksOverlap) {
  Scenario s = Dgx(1);
  preflight::Workload w = Empty(s);
  AddCompute(w, 0, 1.0);
  AddCompute(w, 0, 2.0, {0});
  AddCompute(w, 1, 2.5);
  TaskTimes t = RunWorkload(s, w);
  EXPECT_NEAR(t.end_s[1], 3.0, 1e-9);
  EXPECT_NEAR(t.start_s[1], 1.0, 1e-9);
  EXPECT_NEAR(t.makespan_s, 3.0, 1e-9);
}

TEST(Engine, AllReduceInsideANodeMatchesRingFormula) {
  Scenario s = Dgx(1);
  preflight::Workload w = Empty(s);
  const double S = 8.0 * kGiB;  // at 8 GiB NCCL runs at its large-message rate
  AddAllReduce(w, {0, 1, 2, 3, 4, 5, 6, 7}, S);
  TaskTimes t = RunWorkload(s, w);
  const double bw = 300e9 * NvlinkEfficiency(3);  // a100-80gb-sxm-8x: NVLink 3, 300 GB/s per direction
  // The model's time (its latency, then the bytes at the plan's bandwidth)
  // plus one NVLink hop latency that SimGrid adds to each flow.
  const CollectivePlan plan = *PlanCollective(CollectiveKind::kAllReduce, GroupShape{8, 1, 8},
                                              PathsOf(s.cluster, {0, 1, 2, 3, 4, 5, 6, 7}), Bytes(S));
  EXPECT_EQ(plan.protocol, Protocol::kSimple);
  const double expected = plan.latency.value() + 2.0 * 7 / 8 * S / bw + 1e-6;
  EXPECT_NEAR(t.makespan_s / expected, 1.0, 1e-6);
  EXPECT_NEAR(t.makespan_s / plan.time.value(), 1.0, 1e-3);
  EXPECT_EQ(t.flows, 1);  // one flow stands for the ring inside an NVSwitch node (runner.cc)
}

TEST(Engine, AllReduceAcrossNodesIsBoundByTheNics) {
  Scenario s = Dgx(2);
  preflight::Workload w = Empty(s);
  std::vector<int> all;
  for (int g = 0; g < 16; ++g) all.push_back(g);
  const double S = 8.0 * kGiB;
  AddAllReduce(w, all, S);
  TaskTimes t = RunWorkload(s, w);
  // Each GPU sends V/8 through its own 200 Gb/s rail: V = 2 (15/16) S.
  const double v = 2.0 * 15 / 16 * S;
  const double nic = 25e9 * NicEfficiency();
  const double pcie = 32e9 * PcieEfficiency();
  const double expected = v / 8 / std::min(nic, pcie);
  EXPECT_NEAR(t.makespan_s / expected, 1.0, 0.02);  // + the ring's step latencies (~0.6%)
}

TEST(Engine, ComputeOverlappingADataParallelCollectiveSlowsByNcclShare) {
  Scenario s = Dgx(1);
  preflight::Workload w = Empty(s);
  AddCompute(w, 0, 1.0);                        // overlaps the collective below
  AddAllReduce(w, {0, 1, 2, 3}, 512.0 * kGiB);  // ~3.5 s, far longer than 1 s
  AddCompute(w, 2, 0.5, {1});                   // after it: full speed again
  TaskTimes t = RunWorkload(s, w);
  ASSERT_GT(t.end_s[1], 1.5);
  EXPECT_NEAR(t.end_s[0], 1.0 / (1 - Calibration{}.nccl_compute_share), 1e-9);
  EXPECT_NEAR(t.end_s[2] - t.start_s[2], 0.5, 1e-9);
}

// Under ZeRO-3 with copied buffers (PyTorch FSDP, DeepSpeed) NCCL takes
// its share of the compute through the whole step, collective or not;
// under Megatron-FSDP's zero-copy buffers, which its workload flags, only
// while a collective runs (model/stack.h NcclShareResident).
TEST(Engine, Zero3TakesNcclShareThroughTheStepUnlessZeroCopy) {
  Scenario s = Dgx(1);
  s.parallel.tp = 1, s.parallel.dp = 8, s.parallel.zero = 3;
  preflight::Workload w = Empty(s);
  AddCompute(w, 0, 1.0);  // no collective anywhere
  EXPECT_NEAR(RunWorkload(s, w).end_s[0], 1.0 / (1 - Calibration{}.nccl_compute_share), 1e-9);
  w.set_zero3_zero_copy(true);
  EXPECT_NEAR(RunWorkload(s, w).end_s[0], 1.0, 1e-9);
  s.parallel.zero = 1;  // no ZeRO-3: no resident share either way
  w.set_zero3_zero_copy(false);
  EXPECT_NEAR(RunWorkload(s, w).end_s[0], 1.0, 1e-9);
}

// NCCL's share ends with each collective, however many came before: two
// collectives back to back, then compute at full speed (SimGrid 3.32 keeps
// an Exec's share when it is suspended again after a resume; the runner
// starts a fresh one each time).
TEST(Engine, NcclShareEndsAfterEveryCollective) {
  Scenario s = Dgx(1);
  preflight::Workload w = Empty(s);
  AddAllReduce(w, {0, 1, 2, 3}, 1.0 * kGiB);         // 0
  AddAllReduce(w, {0, 1, 2, 3}, 1.0 * kGiB, {0});    // 1, after it
  AddCompute(w, 2, 0.5, {1});                        // 2: after both
  AddAllReduce(w, {0, 1, 2, 3}, 1.0 * kGiB, {2});    // 3
  AddCompute(w, 2, 0.5, {3});                        // 4: after a third
  TaskTimes t = RunWorkload(s, w);
  EXPECT_NEAR(t.end_s[2] - t.start_s[2], 0.5, 1e-9);
  EXPECT_NEAR(t.end_s[4] - t.start_s[4], 0.5, 1e-9);
}

TEST(Engine, HostToDeviceCopyCrossesTheGpusPcieLink) {
  Scenario s = Dgx(1);
  preflight::Workload w = Empty(s);
  preflight::Task* io = w.add_tasks();
  io->set_category(preflight::IO);
  io->mutable_io()->set_gpu(3);
  io->mutable_io()->set_direction(preflight::Io::HOST_TO_DEVICE);
  io->mutable_io()->set_size_bytes(8.0 * kGiB);
  AddCompute(w, 3, 0.5, {0});
  w.set_workers(0, 3);
  TaskTimes t = RunWorkload(s, w);
  // a100-80gb-sxm-8x: PCIe 4.0 x16 (31.5 GB/s per direction) at its
  // achieved fraction, 1 us; the copy alone on its switch's uplink.
  const double expected = 8.0 * kGiB / (PcieLinkRate(4, 16).value() * PcieEfficiency()) + 1e-6;
  EXPECT_NEAR(t.end_s[0] / expected, 1.0, 1e-6);
  Breakdown b = AccountTime(w, t, false);
  EXPECT_NEAR(b.io.value(), t.end_s[0], 1e-9);  // the GPU waited for the copy
  EXPECT_NEAR(b.total().value(), t.makespan_s, 1e-9);
}

TEST(Engine, RejectsAWorkloadForAnotherCluster) {
  Scenario s = Dgx(1);
  preflight::Workload w = Empty(s);
  w.set_gpus(16);
  EXPECT_THROW(RunWorkload(s, w), std::invalid_argument);
}

TEST(Engine, RejectsForwardDependencies) {
  Scenario s = Dgx(1);
  preflight::Workload w = Empty(s);
  AddCompute(w, 0, 1.0, {1});
  AddCompute(w, 0, 1.0);
  // Thrown in the child process, rethrown here with its type and message.
  EXPECT_EQ(MessageOf<std::invalid_argument>([&] { RunWorkload(s, w); }),
            "workload task 0 depends on a later task 1");
}

TEST(Engine, RejectsAGpuTheClusterLacks) {
  Scenario s = Dgx(1);
  preflight::Workload w = Empty(s);
  AddCompute(w, 8, 1.0);
  EXPECT_EQ(MessageOf<std::invalid_argument>([&] { RunWorkload(s, w); }),
            "workload names GPU 8 but the cluster has 8");
}

// Runs in a death-test child: with PREFLIGHT_IN_PROCESS=1, the first run in
// this process must equal `forked` to the bit and a second one must be
// refused. Exits 0 with the refusal on stderr when both hold.
[[noreturn]] void RunTwiceInProcess(const Scenario& s, const preflight::Workload& w,
                                    const TaskTimes& forked) {
  setenv(kInProcessEnv, "1", 1);
  const TaskTimes t = RunWorkload(s, w);
  if (t.start_s != forked.start_s || t.end_s != forked.end_s || t.makespan_s != forked.makespan_s ||
      t.flows != forked.flows) {
    std::fprintf(stderr, "in-process times differ from the forked run's\n");
    std::_Exit(1);
  }
  try {
    RunWorkload(s, w);
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::_Exit(0);
  }
  std::fprintf(stderr, "a second in-process run was not refused\n");
  std::_Exit(1);
}

TEST(EngineDeathTest, InProcessRunMatchesTheForkedRunAndASecondOneIsRefused) {
  Scenario s = LoadScenario(kRoot + "/scenarios/70b_8xA800_tp8.yaml");
  preflight::Workload w = BuildWorkload(s);
  const TaskTimes forked = RunWorkload(s, w);
  ASSERT_GT(forked.flows, 0);
  EXPECT_EXIT(RunTwiceInProcess(s, w, forked), ::testing::ExitedWithCode(0),
              "PREFLIGHT_IN_PROCESS=1: this process has already run SimGrid once, and SimGrid 3\\.32 "
              "allows one engine per process; simulate one workload per process in this mode, or "
              "unset PREFLIGHT_IN_PROCESS to run each simulation in a child process");
}

TEST(Accounting, GapBeforeComputeIsChargedToTheCommunicationItWaitedFor) {
  Scenario s = Dgx(1);
  preflight::Workload w = Empty(s);
  AddCompute(w, 0, 1.0);                   // 0: busy 0..1
  AddAllReduce(w, {0, 1}, 1.0 * kGiB, {0});  // 1: 1..1+c
  AddCompute(w, 0, 1.0, {1});              // 2: waits for the all-reduce
  TaskTimes t = RunWorkload(s, w);
  Breakdown b = AccountTime(w, t, /*pipelined=*/false);
  const double comm = t.end_s[1] - t.start_s[1];
  EXPECT_GT(comm, 0);
  EXPECT_NEAR(b.compute.value(), 2.0, 1e-9);
  EXPECT_NEAR(b.dp_comm.value(), comm, 1e-9);
  EXPECT_NEAR(b.total().value(), t.makespan_s, 1e-9);
}

// The host's share of a kernel task is part of compute: all of it for a
// task that ran alone, and on two GPUs the mean of theirs.
TEST(Accounting, HostWaitIsThePartOfComputeTheTasksSay) {
  Scenario s = Dgx(1);
  preflight::Workload w = Empty(s);
  AddCompute(w, 0, 1.0)->mutable_compute()->set_host_wait_s(0.25);
  AddCompute(w, 0, 2.0, {0});
  AddCompute(w, 1, 3.0)->mutable_compute()->set_host_wait_s(3.0);
  const TaskTimes t = RunWorkload(s, w);
  const Breakdown b = AccountTime(w, t, false);
  EXPECT_NEAR(b.compute.value(), (3.0 + 3.0) / 2, 1e-9);
  EXPECT_NEAR(b.host_wait.value(), (0.25 + 3.0) / 2, 1e-9);
  EXPECT_NEAR(b.total().value(), t.makespan_s, 1e-9);  // not counted twice
}

TEST(Accounting, BreakdownAddsUpToTheStepForABuiltPipeline) {
  Scenario s = LoadScenario(kRoot + "/scenarios/megatron_39p1b_512xA100.yaml",
                            {"cluster.nodes=4", "parallel.dp=2", "training.global_batch=16"});
  preflight::Workload w = BuildWorkload(s);
  TaskTimes t = RunWorkload(s, w);
  Breakdown b = AccountTime(w, t, true);
  EXPECT_NEAR(b.total().value() / t.makespan_s, 1.0, 1e-9);
  EXPECT_GT(b.bubble.value(), 0);   // pp = 2: the 1F1B warm-up and drain
  EXPECT_GT(b.tp_comm.value(), 0);  // tp = 8
}

}  // namespace
}  // namespace pf

// The engine and the accounting given workloads that skip the file checks
// (sim/workload/workload_check.h): each bad index or value is refused with
// std::invalid_argument before anything runs, never a crash in the child
// process; a chain of any length runs without recursion; overlapping
// compute on one GPU counts once.
#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

#include "sim/accounting/accounting.h"
#include "sim/engine/engine.h"
#include "tests/engine/hand_built.h"

namespace pf {
namespace {

using namespace hand_built;

constexpr uint32_t kBig = 4294967295u;

std::string Refusal(const Scenario& s, const preflight::Workload& w) {
  return MessageOf<std::invalid_argument>([&] { RunWorkload(s, w); });
}

TEST(HostileWorkload, ADependencyOf2To32Minus1IsRefused) {
  Scenario s = Dgx(1);
  preflight::Workload w = Empty(s);
  AddCompute(w, 0, 1.0);
  AddCompute(w, 0, 1.0)->add_deps(kBig);
  EXPECT_EQ(Refusal(s, w), "workload task 1 depends on a later task 4294967295");
}

TEST(HostileWorkload, AnIoOnGpu2To31IsRefused) {
  Scenario s = Dgx(1);
  preflight::Workload w = Empty(s);
  preflight::Task* t = w.add_tasks();
  t->set_category(preflight::IO);
  t->mutable_io()->set_gpu(1u << 31);
  t->mutable_io()->set_size_bytes(1e6);
  EXPECT_EQ(Refusal(s, w), "workload names GPU 2147483648 but the cluster has 8");
}

TEST(HostileWorkload, LanesOfStrideZeroAreRefused) {
  Scenario s = Dgx(1);
  preflight::Workload w = Empty(s);
  auto* c = AddAllReduce(w, {0, 1}, 1e6)->mutable_collective();
  c->set_lanes(100000);
  c->set_lane_stride(0);
  EXPECT_EQ(Refusal(s, w), "workload task 0: 100000 lanes of stride 0 do not fit the 8 GPUs");
}

TEST(HostileWorkload, ALaneBeyondTheClusterIsRefused) {
  Scenario s = Dgx(1);
  preflight::Workload w = Empty(s);
  auto* c = AddAllReduce(w, {0, 1}, 1e6)->mutable_collective();
  c->set_lanes(4);
  c->set_lane_stride(3);  // lane 3 is GPUs 9 and 10
  EXPECT_EQ(Refusal(s, w), "workload names GPU 9 but the cluster has 8");
}

TEST(HostileWorkload, NonFiniteOrNegativeValuesAreRefused) {
  Scenario s = Dgx(1);
  for (double bad : {std::nan(""), HUGE_VAL, -1.0}) {
    preflight::Workload w = Empty(s);
    AddCompute(w, 0, bad);
    EXPECT_EQ(Refusal(s, w).rfind("workload task 0: duration_s ", 0), 0u);
    w = Empty(s);
    AddAllReduce(w, {0, 1}, bad);
    EXPECT_EQ(Refusal(s, w).rfind("workload task 0: size_bytes ", 0), 0u);
  }
  preflight::Workload w = Empty(s);
  AddAllReduce(w, {0, 1}, 1e18)->mutable_collective()->set_count(100);
  EXPECT_EQ(Refusal(s, w).rfind("workload task 0: flows of up to ", 0), 0u);
}

TEST(HostileWorkload, AnUnknownCollectiveKindIsRefused) {
  Scenario s = Dgx(1);
  preflight::Workload w = Empty(s);
  AddAllReduce(w, {0, 1}, 1e6)->mutable_collective()->set_kind(preflight::CollectiveKind(9));
  EXPECT_EQ(Refusal(s, w), "workload task 0: unknown collective kind 9");
}

// Each task ends as it starts (a group of one has nothing to simulate), so
// each one's end starts the next: 200,000 deep, without recursion.
TEST(HostileWorkload, AChainOf200000EmptyTasksRuns) {
  Scenario s = Dgx(1);
  preflight::Workload w = Empty(s);
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    preflight::Task* t = AddAllReduce(w, {i % 8}, 1e6);
    if (i > 0) t->add_deps(i - 1);
  }
  AddCompute(w, 0, 1.0, {n - 1});
  const TaskTimes t = RunWorkload(s, w);
  EXPECT_EQ(t.end_s[n - 1], 0);
  EXPECT_NEAR(t.makespan_s, 1.0, 1e-9);
}

// 20,000 kernels at once on 8 GPUs pass the file checks (under 32,768 at
// one depth) but would keep SimGrid busy for minutes: the run stops.
TEST(HostileWorkload, TooManyActivitiesInFlightStopTheRun) {
  Scenario s = Dgx(1);
  preflight::Workload w = Empty(s);
  for (int i = 0; i < 20000; ++i) AddCompute(w, i % 8, 1.0 + i % 7);
  const std::string why = Refusal(s, w);
  EXPECT_EQ(why.rfind("workload keeps too many kernels and flows in flight at once (", 0), 0u);
  // Its budget is the floor for small workloads, which --max-tasks does
  // not raise: the refusal does not suggest it.
  EXPECT_EQ(why.find("--max-tasks"), std::string::npos) << why;
}

// The scans a run may make grow with the task budget the user accepts
// (--max-tasks), never below the default's.
TEST(HostileWorkload, TheInFlightBudgetGrowsWithMaxTasks) {
  Scenario s = Dgx(1);
  EXPECT_EQ(MaxInFlightScans(s), kMaxInFlightScans);
  s.max_tasks = 1e7;
  EXPECT_NEAR(MaxInFlightScans(s), kMaxInFlightScans * 1e7 / 3e6, 1);
  s.max_tasks = 1e5;
  EXPECT_EQ(MaxInFlightScans(s), kMaxInFlightScans);
}

TEST(Accounting, OverlappingComputeOnOneGpuCountsOnce) {
  Scenario s = Dgx(1);
  preflight::Workload w = Empty(s);
  AddCompute(w, 0, 1.0);  // both start at 0 and share GPU 0: both end at 2
  AddCompute(w, 0, 1.0);
  const TaskTimes t = RunWorkload(s, w);
  ASSERT_NEAR(t.makespan_s, 2.0, 1e-9);
  const Breakdown b = AccountTime(w, t, false);
  EXPECT_NEAR(b.compute.value(), 2.0, 1e-9);  // not 4
  EXPECT_NEAR(b.total().value(), t.makespan_s, 1e-9);
}

// The host's share goes with the time charged: the second task of the two
// above is charged nothing, so none of its host wait counts.
TEST(Accounting, OverlappingComputeCountsItsHostWaitOnce) {
  Scenario s = Dgx(1);
  preflight::Workload w = Empty(s);
  AddCompute(w, 0, 1.0)->mutable_compute()->set_host_wait_s(0.5);
  AddCompute(w, 0, 1.0)->mutable_compute()->set_host_wait_s(0.5);
  const Breakdown b = AccountTime(w, RunWorkload(s, w), false);
  EXPECT_NEAR(b.compute.value(), 2.0, 1e-9);
  EXPECT_NEAR(b.host_wait.value(), 0.5, 1e-9);
}

TEST(Accounting, TimesForAnotherWorkloadAreRefused) {
  Scenario s = Dgx(1);
  preflight::Workload w = Empty(s);
  AddCompute(w, 0, 1.0);
  TaskTimes t;
  EXPECT_EQ(MessageOf<std::invalid_argument>([&] { AccountTime(w, t, false); }),
            "accounting: 0 start and 0 end times for 1 tasks");
}

}  // namespace
}  // namespace pf

// Workload files as a hostile user could write them: every rule of
// sim/workload/workload_check.h broken once, on a real emitted workload
// (scenarios/70b_8xA800_tp8.yaml, 257 tasks on 8 GPUs) with one field changed,
// and the bytes themselves truncated or garbage. Each case states how the
// replay ends, as `simulate --workload` maps it to an exit status (0 ran,
// 2 bad input, 3 internal error), and the start of the one-line message.
// Round trips (bundled workloads, replay, save, load) are in
// workload_roundtrip_test.cc.
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>

#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/job/simulate.h"
#include "sim/report/report.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/workload/workload_builder.h"
#include "sim/workload/workload_check.h"
#include "sim/workload/workload_file.h"
#include "tests/test_util.h"
#include "tests/workload/workload_fixture.h"

namespace pf {
namespace {

namespace fs = std::filesystem;
using preflight::Task;
using preflight::Workload;
using testing_util::kRoot;
using testing_util::Base;
using testing_util::BaseWorkload;
using testing_util::ValidationMessage;

struct Outcome {
  int code = 0;  // as simulate's exit status: 0 ran, 2 bad input, 3 internal error
  std::string message;
};

// Reads `bytes` as the file "w.pb" and simulates it on `s`, forced past the
// memory verdict; maps the outcome as sim/cli/main.cc does.
Outcome Replay(const std::string& bytes, const Scenario& s = Base()) {
  try {
    SimulateWorkload(s, ParseWorkload(bytes, "w.pb", s), /*force=*/true);
    return {0, ""};
  } catch (const InputError& e) {
    return {2, e.what()};
  } catch (const std::invalid_argument& e) {
    return {2, e.what()};
  } catch (const std::exception& e) {
    return {3, e.what()};
  }
}

std::string Bytes(const Workload& w) {
  std::string b;
  EXPECT_TRUE(w.SerializeToString(&b));
  return b;
}

Task* Append(Workload& w, preflight::Category c) {
  Task* t = w.add_tasks();
  t->set_name("extra");
  t->set_category(c);
  t->add_deps(w.tasks_size() - 2);
  return t;
}

preflight::Compute* AppendCompute(Workload& w, double seconds = 1) {
  auto* c = Append(w, preflight::COMPUTE)->mutable_compute();
  c->set_duration_s(seconds);
  return c;
}

preflight::Collective* AppendCollective(Workload& w, std::vector<int> gpus) {
  auto* c = Append(w, preflight::DP_COMM)->mutable_collective();
  for (int g : gpus) c->add_gpus(g);
  c->set_size_bytes(1e6);
  c->set_count(1);
  c->set_lanes(1);
  return c;
}

preflight::Transfer* AppendTransfer(Workload& w, int src, int dst) {
  auto* x = Append(w, preflight::PP_COMM)->mutable_transfer();
  x->set_src_gpu(src);
  x->set_dst_gpu(dst);
  x->set_size_bytes(1e6);
  x->set_lanes(1);
  return x;
}

preflight::Io* AppendIo(Workload& w, int gpu) {
  auto* x = Append(w, preflight::IO)->mutable_io();
  x->set_gpu(gpu);
  x->set_size_bytes(1e6);
  return x;
}

preflight::Cpu* AppendCpu(Workload& w, int node, preflight::Category c = preflight::DATA) {
  auto* x = Append(w, c)->mutable_cpu();
  x->set_node(node);
  x->set_core_seconds(1e-3);
  x->set_threads(4);
  return x;
}

// `n` compute tasks on GPU 0 that depend on nothing (or on task `dep`).
void AppendWide(Workload& w, int n, int dep = -1) {
  for (int k = 0; k < n; ++k) {
    Task* t = w.add_tasks();
    t->set_category(preflight::COMPUTE);
    t->mutable_compute()->set_duration_s(1e-3);
    if (dep >= 0) t->add_deps(dep);
  }
}

const double kNan = std::nan("");
const double kInf = HUGE_VAL;
constexpr int kLast = 256;    // the base workload's last task (the optimizer)
constexpr int kNext = 257;    // the index of an appended task
constexpr uint32_t kBig = 4294967295u;

struct Case {
  std::string name;
  std::function<void(Workload&)> mutate;
  int code;
  std::string message;  // how the message starts ("" when it ran)
};

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      // The base itself, and harmless variations, run.
      {"Unchanged", [](Workload&) {}, 0, ""},
      {"OverlappingComputeOnOneGpu",
       [](Workload& w) {
         AppendCompute(w, 5);
         AppendCompute(w, 7);
         w.mutable_tasks(kNext + 1)->set_deps(0, kLast);  // both right after the optimizer, on GPU 0
       },
       0, ""},
      {"CollectiveOfOneGpu", [](Workload& w) { AppendCollective(w, {3}); }, 0, ""},
      {"ChainOf200000EmptyTasks",
       [](Workload& w) {
         for (int k = 0; k < 200000; ++k) AppendCollective(w, {0})->set_size_bytes(0);
       },
       0, ""},
      // Header.
      {"SchemaVersionUnset", [](Workload& w) { w.set_schema_version(0); }, 2,
       "w.pb: schema_version: 0, but this Preflight reads version 1 (emit the workload again with "
       "--emit-workload)"},
      {"SchemaVersionFromTheFuture", [](Workload& w) { w.set_schema_version(2); }, 2,
       "w.pb: schema_version: 2, but"},
      {"AnotherGpuCount", [](Workload& w) { w.set_gpus(16); }, 2,
       "w.pb: built for 16 x A800-SXM4-80GB (8 per node), bf16, but the scenario has 8 x A800-SXM4-80GB "
       "(8 per node), bf16 (emit a workload for this scenario with --emit-workload)"},
      {"AnotherNodeSize", [](Workload& w) { w.set_gpus_per_node(4); }, 2,
       "w.pb: built for 8 x A800-SXM4-80GB (4 per node), bf16, but"},
      {"AnotherGpu", [](Workload& w) { w.set_gpu("H100-SXM5-80GB"); }, 2,
       "w.pb: built for 8 x H100-SXM5-80GB (8 per node), bf16, but the scenario has 8 x A800-SXM4-80GB"},
      {"AnotherPrecision", [](Workload& w) { w.set_precision("fp8"); }, 2,
       "w.pb: built for 8 x A800-SXM4-80GB (8 per node), fp8, but the scenario has 8 x A800-SXM4-80GB "
       "(8 per node), bf16"},
      {"NoGpuAtAll", [](Workload& w) { w.set_gpus(0); }, 2, "w.pb: built for 0 x A800-SXM4-80GB"},
      // Workers.
      {"NoWorkers", [](Workload& w) { w.clear_workers(); }, 2,
       "w.pb: workers: none listed; at least one GPU must carry the compute"},
      {"WorkerBeyondTheGpus", [](Workload& w) { w.set_workers(0, kBig); }, 2,
       "w.pb: workers[0]: 4294967295 is not a GPU index (0..7)"},
      {"WorkerTwice", [](Workload& w) { w.set_tp(1), w.add_workers(0); }, 2,
       "w.pb: workers[1]: GPU 0 is listed twice (also workers[0])"},
      {"TpZero", [](Workload& w) { w.set_tp(0); }, 2, "w.pb: tp: 0; each worker stands for at least one GPU"},
      {"TpBeyondTheGpus", [](Workload& w) { w.set_tp(9); }, 2,
       "w.pb: tp: 1 workers x tp 9 = 9 GPUs, more than the 8 of the workload"},
      // Totals.
      {"ModelFlopsNan", [](Workload& w) { w.set_model_flops(kNan); }, 2,
       "w.pb: model_flops: nan is not a positive finite FLOP count"},
      {"ModelFlopsNegative", [](Workload& w) { w.set_model_flops(-481); }, 2,
       "w.pb: model_flops: -481 is not a positive finite FLOP count"},
      {"HardwareFlopsInfinite", [](Workload& w) { w.set_hardware_flops(kInf); }, 2,
       "w.pb: hardware_flops: inf is not a positive finite FLOP count"},
      {"ModelAboveHardware", [](Workload& w) { w.set_model_flops(w.hardware_flops() * 2); }, 2,
       "w.pb: model_flops: 2.39048e+17 exceeds hardware_flops (1.19524e+17), which include them"},
      {"HardwareFlopsBeyondThePeak", [](Workload& w) { w.set_model_flops(4.8e30), w.set_hardware_flops(4.8e30); }, 2,
       "w.pb: hardware_flops: 4.8e+30 is more than 8 GPUs at 3.12e+14 FLOP/s execute in "},
      {"TokensNegative", [](Workload& w) { w.set_tokens_per_step(-262144); }, 2,
       "w.pb: tokens_per_step: -262144 is not a token count in [1, 1e+12]"},
      {"TokensZero", [](Workload& w) { w.set_tokens_per_step(0); }, 2, "w.pb: tokens_per_step: 0 is not"},
      {"TokensNan", [](Workload& w) { w.set_tokens_per_step(kNan); }, 2, "w.pb: tokens_per_step: nan is not"},
      // Tasks: counts and kinds.
      {"EmptyGraph", [](Workload& w) { w.clear_tasks(); }, 2, "w.pb: tasks: none; a step needs at least one task"},
      {"UnknownCategory", [](Workload& w) { w.mutable_tasks(3)->set_category(preflight::Category(99)); }, 2,
       "w.pb: tasks[3].category: 99 is not a category (COMPUTE, OPTIMIZER, TP_COMM, PP_COMM, DP_COMM, IO, DATA, EP_COMM or CP_COMM) "
       "(task \"tp_bwd\")"},
      {"UnspecifiedCategory", [](Workload& w) { w.mutable_tasks(0)->set_category(preflight::CATEGORY_UNSPECIFIED); },
       2, "w.pb: tasks[0].category: CATEGORY_UNSPECIFIED is not a category"},
      {"ComputeCountedAsCommunication", [](Workload& w) { w.mutable_tasks(0)->set_category(preflight::TP_COMM); }, 2,
       "w.pb: tasks[0].category: TP_COMM does not fit a compute task (COMPUTE or OPTIMIZER) (task \"fwd\")"},
      {"IoCountedAsCompute", [](Workload& w) { AppendIo(w, 0); w.mutable_tasks(kNext)->set_category(preflight::COMPUTE); },
       2, "w.pb: tasks[257].category: COMPUTE does not fit an io task (IO, DATA or OPTIMIZER)"},
      {"NoTaskKind", [](Workload& w) { w.mutable_tasks(2)->clear_kind(); }, 2,
       "w.pb: tasks[2]: sets no task kind (compute, collective, transfer, io or cpu) (task \"bwd\")"},
      // Dependencies.
      {"DependencyOf2To32Minus1", [](Workload& w) { w.mutable_tasks(5)->set_deps(0, kBig); }, 2,
       "w.pb: tasks[5].deps[0]: 4294967295 is not an earlier task (0..4)"},
      {"DependencyOnItself", [](Workload& w) { w.mutable_tasks(0)->add_deps(0); }, 2,
       "w.pb: tasks[0].deps[0]: 0 is not an earlier task (the first task can depend on none)"},
      {"DependencyOnALaterTask", [](Workload& w) { w.mutable_tasks(7)->add_deps(9); }, 2,
       "w.pb: tasks[7].deps[1]: 9 is not an earlier task (0..6)"},
      // Compute.
      {"ComputeOnAGpuBeyond", [](Workload& w) { w.mutable_tasks(0)->mutable_compute()->set_gpu(8); }, 2,
       "w.pb: tasks[0].compute.gpu: 8 is not a GPU index (0..7) (task \"fwd\")"},
      {"DurationNan", [](Workload& w) { w.mutable_tasks(0)->mutable_compute()->set_duration_s(kNan); }, 2,
       "w.pb: tasks[0].compute.duration_s: nan is not a duration in [0, 1e+06] s (task \"fwd\")"},
      {"DurationInfinite", [](Workload& w) { w.mutable_tasks(0)->mutable_compute()->set_duration_s(kInf); }, 2,
       "w.pb: tasks[0].compute.duration_s: inf is not a duration"},
      {"DurationNegative", [](Workload& w) { w.mutable_tasks(0)->mutable_compute()->set_duration_s(-1); }, 2,
       "w.pb: tasks[0].compute.duration_s: -1 is not a duration"},
      {"DurationOf30Years", [](Workload& w) { w.mutable_tasks(0)->mutable_compute()->set_duration_s(1e9); }, 2,
       "w.pb: tasks[0].compute.duration_s: 1e+09 is not a duration"},
      {"FlopsNan", [](Workload& w) { w.mutable_tasks(0)->mutable_compute()->set_flops(kNan); }, 2,
       "w.pb: tasks[0].compute.flops: nan is not a finite FLOP count >= 0"},
      {"HostWaitLongerThanTheTask",
       [](Workload& w) {
         w.mutable_tasks(0)->mutable_compute()->set_duration_s(1);
         w.mutable_tasks(0)->mutable_compute()->set_host_wait_s(2);
       },
       2, "w.pb: tasks[0].compute.host_wait_s: 2 is not a part of the task's duration_s (1 s) (task \"fwd\")"},
      {"HostWaitNegative", [](Workload& w) { w.mutable_tasks(0)->mutable_compute()->set_host_wait_s(-1); }, 2,
       "w.pb: tasks[0].compute.host_wait_s: -1 is not a part of the task's duration_s"},
      {"HostWaitOnOptimizerWork",
       [](Workload& w) {
         w.mutable_tasks(0)->set_category(preflight::OPTIMIZER);
         w.mutable_tasks(0)->mutable_compute()->set_duration_s(1);
         w.mutable_tasks(0)->mutable_compute()->set_host_wait_s(1);
       },
       2, "w.pb: tasks[0].compute.host_wait_s: 1 on OPTIMIZER work: only COMPUTE tasks wait for the host (0 here) (task \"fwd\")"},
      {"NoComputeLastsAMicrosecond",
       [](Workload& w) {
         for (Task& t : *w.mutable_tasks())
           if (t.has_compute()) t.mutable_compute()->set_duration_s(0);
       },
       2, "w.pb: tasks: no compute task lasts 1e-06 s or more; the step would take no time"},
      // Collectives.
      {"CollectiveKindUnknown",
       [](Workload& w) { w.mutable_tasks(1)->mutable_collective()->set_kind(preflight::CollectiveKind(7)); }, 2,
       "w.pb: tasks[1].collective.kind: 7 is not a collective kind (ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, BROADCAST or ALL_TO_ALL)"},
      {"CollectiveWithoutGpus", [](Workload& w) { AppendCollective(w, {}); }, 2,
       "w.pb: tasks[257].collective.gpus: none listed (task \"extra\")"},
      {"CollectiveGpuBeyond", [](Workload& w) { w.mutable_tasks(1)->mutable_collective()->set_gpus(7, 1u << 31); },
       2, "w.pb: tasks[1].collective.gpus[7]: 2147483648 is not a GPU index (0..7)"},
      {"CollectiveGpuTwice", [](Workload& w) { w.mutable_tasks(1)->mutable_collective()->set_gpus(5, 2); }, 2,
       "w.pb: tasks[1].collective.gpus[5]: GPU 2 is listed twice"},
      {"CollectiveCountZero", [](Workload& w) { w.mutable_tasks(1)->mutable_collective()->set_count(0); }, 2,
       "w.pb: tasks[1].collective.count: 0 is not in [1, 1000000]"},
      {"CollectiveSizeNan", [](Workload& w) { w.mutable_tasks(1)->mutable_collective()->set_size_bytes(kNan); }, 2,
       "w.pb: tasks[1].collective.size_bytes: nan is not a size in [0, 1e+15] bytes"},
      {"CollectiveSizeNegative", [](Workload& w) { w.mutable_tasks(1)->mutable_collective()->set_size_bytes(-1); },
       2, "w.pb: tasks[1].collective.size_bytes: -1 is not a size"},
      {"CollectiveBytesTimesCountTooLarge",
       [](Workload& w) { w.mutable_tasks(1)->mutable_collective()->set_size_bytes(1e14); }, 2,
       "w.pb: tasks[1].collective.size_bytes: 1e+14 x count 161 = 1.61e+16 bytes; at most 1e+15 per task"},
      {"LanesZero", [](Workload& w) { w.mutable_tasks(1)->mutable_collective()->set_lanes(0); }, 2,
       "w.pb: tasks[1].collective.lanes: 0; must be at least 1"},
      {"HundredThousandLanesOfStrideZero",
       [](Workload& w) {
         auto* c = AppendCollective(w, {0, 1});
         c->set_lanes(100000);
         c->set_lane_stride(0);
       },
       2, "w.pb: tasks[257].collective.lane_stride: 0 with 100000 lanes; must be at least 1"},
      {"LanesBeyondTheGpus",
       [](Workload& w) {
         auto* c = AppendCollective(w, {0, 1});
         c->set_lanes(100000);
         c->set_lane_stride(1);
       },
       2, "w.pb: tasks[257].collective.lanes: 100000 lanes of stride 1 reach GPU 100000, beyond the workload's "
          "GPUs (0..7)"},
      {"LanesOverlapping",
       [](Workload& w) {
         auto* c = AppendCollective(w, {0, 1, 2, 3});
         c->set_lanes(4);
         c->set_lane_stride(1);
       },
       2, "w.pb: tasks[257].collective.lanes: 4 GPUs x 4 lanes = 16 GPUs, more than the workload's 8"},
      // Transfers.
      {"TransferToItself", [](Workload& w) { AppendTransfer(w, 2, 2); }, 2,
       "w.pb: tasks[257].transfer.dst_gpu: 2 equals src_gpu; a transfer joins two GPUs"},
      {"TransferFromAGpuBeyond", [](Workload& w) { AppendTransfer(w, 1u << 31, 2); }, 2,
       "w.pb: tasks[257].transfer.src_gpu: 2147483648 is not a GPU index (0..7)"},
      {"TransferSizeInfinite", [](Workload& w) { AppendTransfer(w, 1, 2)->set_size_bytes(kInf); }, 2,
       "w.pb: tasks[257].transfer.size_bytes: inf is not a size"},
      {"TransferLanesBeyond",
       [](Workload& w) {
         auto* x = AppendTransfer(w, 0, 4);
         x->set_lanes(5);
         x->set_lane_stride(1);
       },
       2, "w.pb: tasks[257].transfer.lanes: 5 lanes of stride 1 reach GPU 8"},
      {"TransferRuns",
       [](Workload& w) {
         auto* x = AppendTransfer(w, 0, 4);
         x->set_lanes(4);
         x->set_lane_stride(1);
       },
       0, ""},
      // Host I/O.
      {"IoOnGpu2To31", [](Workload& w) { AppendIo(w, 1u << 31); }, 2,
       "w.pb: tasks[257].io.gpu: 2147483648 is not a GPU index (0..7) (task \"extra\")"},
      {"IoDirectionUnknown", [](Workload& w) { AppendIo(w, 0)->set_direction(preflight::Io::Direction(5)); }, 2,
       "w.pb: tasks[257].io.direction: 5 is not a direction (HOST_TO_DEVICE or DEVICE_TO_HOST)"},
      {"IoSizeNegative", [](Workload& w) { AppendIo(w, 0)->set_size_bytes(-5); }, 2,
       "w.pb: tasks[257].io.size_bytes: -5 is not a size"},
      {"IoRuns", [](Workload& w) { AppendIo(w, 5)->set_direction(preflight::Io::DEVICE_TO_HOST); }, 0, ""},
      {"IoTwoMillionRequests", [](Workload& w) { AppendIo(w, 0)->set_requests(2000000); }, 2,
       "w.pb: tasks[257].io.requests: 2000000 is not in [0, 1000000]"},
      {"InputCopyRuns", [](Workload& w) { AppendIo(w, 0); w.mutable_tasks(kNext)->set_category(preflight::DATA); },
       0, ""},
      // CPU work.
      {"CpuOnANodeBeyond", [](Workload& w) { AppendCpu(w, 1); }, 2,
       "w.pb: tasks[257].cpu.node: 1 is not a node index (0..0) (task \"extra\")"},
      {"CpuCountedAsCompute", [](Workload& w) { AppendCpu(w, 0, preflight::COMPUTE); }, 2,
       "w.pb: tasks[257].category: COMPUTE does not fit a cpu task (DATA or OPTIMIZER)"},
      {"CpuSecondsNegative", [](Workload& w) { AppendCpu(w, 0)->set_core_seconds(-1); }, 2,
       "w.pb: tasks[257].cpu.core_seconds: -1 is not a duration in [0, 1e+06] s"},
      {"CpuTenThousandThreads", [](Workload& w) { AppendCpu(w, 0)->set_threads(10000); }, 2,
       "w.pb: tasks[257].cpu.threads: 10000 is not in [0, 1024]"},
      {"CpuRuns", [](Workload& w) { AppendCpu(w, 0, preflight::OPTIMIZER); }, 0, ""},
      // Budgets.
      {"ThreeHundredThousandIndependentTasks", [](Workload& w) { AppendWide(w, 300000); }, 2,
       "w.pb: tasks: 300001 tasks have no dependency and would all start at once; at most 32768 may (SimGrid "
       "slows down with the square of tasks in flight): chain them with deps or merge them"},
      {"FortyThousandTasksAfterOne", [](Workload& w) { AppendWide(w, 40000, kLast); }, 2,
       "w.pb: tasks: 40000 tasks at dependency depth 257 can all run at once; at most 32768 may"},
      // Messages stay short and on one line.
      {"LongNameIsShortened",
       [](Workload& w) {
         w.mutable_tasks(0)->set_name(std::string(10000, 'x'));
         w.mutable_tasks(0)->mutable_compute()->set_gpu(9);
       },
       2, "w.pb: tasks[0].compute.gpu: 9 is not a GPU index (0..7) (task \"" + std::string(80, 'x') + "...\")"},
      {"NameWithNewlinesStaysOnOneLine",
       [](Workload& w) {
         w.mutable_tasks(0)->set_name("two\nlines");
         w.mutable_tasks(0)->mutable_compute()->set_gpu(9);
       },
       2, "w.pb: tasks[0].compute.gpu: 9 is not a GPU index (0..7) (task \"two?lines\")"},
  };
  return cases;
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class WorkloadFile : public ::testing::TestWithParam<Case> {};

TEST_P(WorkloadFile, ReplayEndsAsStated) {
  const Case& c = GetParam();
  Workload w = BaseWorkload();
  c.mutate(w);
  const Outcome o = Replay(Bytes(w));
  EXPECT_EQ(o.code, c.code) << o.message;
  EXPECT_EQ(o.message.substr(0, c.message.size()), c.message);
  EXPECT_EQ(o.message.find('\n'), std::string::npos) << o.message;
  EXPECT_LT(o.message.size(), 400u) << o.message;
}

INSTANTIATE_TEST_SUITE_P(Cases, WorkloadFile, ::testing::ValuesIn(Cases()),
                         [](const auto& info) { return info.param.name; });

TEST(WorkloadFileBytes, TruncatedGarbageEmptyAndInvalidUtf8AreNamedOnOneLine) {
  const std::string good = Bytes(BaseWorkload());
  EXPECT_EQ(Replay(good.substr(0, good.size() / 2)).message,
            "w.pb: not a preflight.Workload (truncated or corrupt Protobuf data, " +
                std::to_string(good.size() / 2) + " bytes)");
  EXPECT_EQ(Replay("garbage, not Protobuf").message,
            "w.pb: not a preflight.Workload (truncated or corrupt Protobuf data, 21 bytes)");
  EXPECT_EQ(Replay("").message, "w.pb: is empty, not a preflight.Workload");
  Workload w = BaseWorkload();
  w.set_scenario("\xff\xfe");
  std::string bad;
  {
    ::testing::internal::CaptureStderr();  // Protobuf complains while serializing
    w.SerializeToString(&bad);
    ::testing::internal::GetCapturedStderr();
  }
  ::testing::internal::CaptureStderr();
  const Outcome o = Replay(bad);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");  // nothing but our message
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.message,
            "w.pb: not a preflight.Workload (String field 'preflight.Workload.scenario' contains invalid UTF-8 "
            "data when parsing a protocol buffer)");
}

TEST(WorkloadFileBytes, AnotherClusterIsRefusedWithBothSides) {
  const Scenario two_nodes = LoadScenario(kRoot + "/scenarios/70b_8xA800_tp8.yaml", {"cluster.nodes=2", "parallel.dp=2"});
  const Outcome o = Replay(Bytes(BaseWorkload()), two_nodes);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.message,
            "w.pb: built for 8 x A800-SXM4-80GB (8 per node), bf16, but the scenario has 16 x A800-SXM4-80GB "
            "(8 per node), bf16 (emit a workload for this scenario with --emit-workload)");
}

// Budgets too large to reach through a file of the base's 8 GPUs, checked on
// the workload directly.
TEST(WorkloadBudgets, MoreThanTwoMillionTasksAreRefused) {
  Workload w = BaseWorkload();
  AppendWide(w, kMaxWorkloadTasks, kLast);
  EXPECT_EQ(ValidationMessage(w, Base()),
            "w.pb: tasks: 2000257 tasks; Preflight simulates up to 2000000 per workload (fewer micro-batches per "
            "step or fewer GPUs make fewer)");
}

TEST(WorkloadBudgets, MoreThanTwentyMillionDependenciesAreRefused) {
  Workload w = BaseWorkload();
  AppendCompute(w);
  for (int k = 0; k < kMaxWorkloadDeps; ++k) w.mutable_tasks(kNext)->add_deps(kLast);
  EXPECT_EQ(ValidationMessage(w, Base()),
            "w.pb: tasks[257].deps: 20000257 dependencies in all by this task; at most 20000000 are accepted "
            "(task \"extra\")");
}

TEST(WorkloadBudgets, MoreThanTwentyMillionActivitiesAreRefused) {
  const Scenario s = LoadScenario(kRoot + "/scenarios/gpt3_175b_1024xA100.yaml");
  Workload w = BuildWorkload(s);
  std::vector<int> all;
  for (int g = 0; g < 1024; ++g) all.push_back(g);
  const int last = w.tasks_size() - 1;
  for (int k = 0; k < 10000; ++k) {  // 2,048 flows each
    AppendCollective(w, all);
    w.mutable_tasks(w.tasks_size() - 1)->set_deps(0, last);
  }
  EXPECT_EQ(ValidationMessage(w, s).substr(0, 18), "w.pb: tasks: about");
  EXPECT_NE(ValidationMessage(w, s).find("at most 20000000 (fewer tasks, GPUs per collective or lanes make fewer)"),
            std::string::npos);
}

}  // namespace
}  // namespace pf

// The checks a workload read from a file must pass before it is simulated
// (sim/workload/workload_file.h reads the file and calls them). A workload
// that passes runs without a crash, a hang or a non-finite time, and its
// report figures stay in range: MFU <= HFU <= 1 (see the FLOPs rule below),
// a positive step time and token rate. No SimGrid.
//
// The rules, in the order they are checked (the first broken one is
// reported):
//   header    schema_version == kWorkloadSchemaVersion; built for the
//             scenario's cluster: gpus, gpus_per_node, gpu (model name) and
//             precision all equal the scenario's
//   workers   at least one, each < gpus, no GPU twice; tp >= 1 and
//             workers x tp <= gpus
//   totals    model_flops, hardware_flops finite and > 0, model <= hardware;
//             tokens_per_step in [1, kMaxTokensPerStep]
//   tasks     1 .. kMaxWorkloadTasks of them; each: a known category, a task
//             kind set and matching the category (compute: COMPUTE or
//             OPTIMIZER; collective, transfer: TP_COMM, PP_COMM or DP_COMM;
//             io: IO or DATA), deps < its own index, at most kMaxWorkloadDeps in all;
//             compute: gpu < gpus, duration_s in [0, kMaxTaskSeconds], flops
//             finite and >= 0, host_wait_s in [0, duration_s] and 0 unless
//             the category is COMPUTE; collective: known kind, 1 .. gpus distinct
//             GPUs, count in [1, kMaxCollectiveCount], size_bytes >= 0 and
//             size_bytes x count <= kMaxTaskBytes, lanes >= 1 (lane_stride
//             >= 1 when lanes > 1), every lane's GPUs < gpus and GPUs x lanes
//             <= gpus; transfer: src_gpu != dst_gpu, both < gpus on every
//             lane, the same rules for size_bytes and lanes; io: gpu < gpus,
//             a known direction, size_bytes in [0, kMaxTaskBytes], requests
//             <= kMaxIoRequests; cpu (category DATA or OPTIMIZER): node <
//             gpus / gpus_per_node, core_seconds in [0, kMaxTaskSeconds],
//             threads <= kMaxCpuThreads
//   budgets   at most kMaxWorkloadActivities SimGrid activities (a compute
//             or io task is one, a transfer one per lane, a collective up to
//             2 per GPU per lane); at most kMaxTasksAtOnce tasks at one
//             dependency depth (tasks at the same depth can all be in flight
//             at once, and SimGrid 3.32 slows down with the square of that)
//   time      at least one compute task of kMinStepSeconds or more, so the
//             step time is positive; hardware_flops <= gpus x peak x the
//             busiest GPU's summed compute durations (the step lasts at least
//             that long, so HFU <= 1)
#pragma once

#include <cstdint>
#include <string>

#include "sim/proto/workload.pb.h"
#include "sim/spec/spec.h"

namespace pf {

// The version of preflight.Workload this Preflight writes and reads.
inline constexpr uint32_t kWorkloadSchemaVersion = 1;

// Budgets. The largest bundled scenario's workload
// (megatron_529p6b_2520xA100) has 524,519 tasks, 696,186 dependencies and
// ~4.4 M activities by the count below (1.58 M flows simulated, 20 s); a
// workload at the 16,384-GPU cluster limit (tp 1, dp 16,384) has 16,384
// tasks at one depth, one forward per data-parallel rank.
inline constexpr int kMaxWorkloadTasks = 2'000'000;
inline constexpr long long kMaxWorkloadDeps = 20'000'000;
inline constexpr long long kMaxWorkloadActivities = 20'000'000;
// 32,768 independent kernels on 1,024 GPUs took 22 s in SimGrid 3.32
// (16,384: 3.4 s); 60,000 on 8 GPUs took 94 s.
inline constexpr int kMaxTasksAtOnce = 32'768;
// Per task: 1e6 s (11.6 days) of kernels, 1 PB moved.
inline constexpr double kMaxTaskSeconds = 1e6;
inline constexpr double kMaxTaskBytes = 1e15;
inline constexpr uint32_t kMaxCollectiveCount = 1'000'000;
// Per io task: a million files read one after another; per cpu task, the
// cores of the largest server (2 sockets x 192 cores x 2 threads is 768).
inline constexpr uint32_t kMaxIoRequests = 1'000'000;
inline constexpr uint32_t kMaxCpuThreads = 1'024;
inline constexpr double kMaxTokensPerStep = 1e12;
// The shortest step a workload may describe: its longest compute task.
inline constexpr double kMinStepSeconds = 1e-6;

// Checks `w` against the rules above for scenario `s`. `file` names the
// workload in messages. Throws InputError "file: key: message" (one line,
// quoted values shortened to ~80 characters) for the first rule broken,
// e.g. "w.pb: tasks[12].deps[0]: 4294967295 is not an earlier task (0..11)".
void ValidateWorkload(const preflight::Workload& w, const Scenario& s, const std::string& file);

}  // namespace pf

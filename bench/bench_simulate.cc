// Speed targets of the issue "Core": scenarios/70b_8xA800_tp8.yaml simulated in
// under 0.5 s and scenarios/gpt3_175b_1024xA100.yaml in under 5 s on one
// core. Run as `taskset -c 0 build/preflight_bench`; figures go to README.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>
#include <vector>

#include <sys/resource.h>

#include "sim/scenario/scenario_loader.h"
#include "sim/job/intervals.h"
#include "sim/job/simulate.h"
#include "sim/workload/workload_builder.h"

namespace {

const std::string kRoot = PREFLIGHT_SOURCE_DIR;

// The whole pipeline: load, memory, build the task graph, SimGrid, account.
// `args` are --set overrides.
// "--force" among `args` simulates a job that does not fit (as the CLI flag).
void BM_Simulate(benchmark::State& state, const std::string& file, std::vector<std::string> args = {}) {
  const bool force = std::find(args.begin(), args.end(), "--force") != args.end();
  args.erase(std::remove(args.begin(), args.end(), "--force"), args.end());
  for (auto _ : state) {
    pf::Result r = pf::Simulate(pf::LoadScenario(kRoot + "/" + file, args), force);
    benchmark::DoNotOptimize(r.step);
    state.counters["tasks"] = r.step ? r.step->tasks : 0;
    state.counters["flows"] = r.step ? double(r.step->flows) : 0;
    state.counters["step_s"] = r.step ? r.step->step_time.value() : 0;
  }
  // The peak resident memory so far of this process and of the child
  // processes the simulations run in (run one bench with
  // --benchmark_filter for that bench's own figure).
  rusage self{}, children{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  state.counters["peak_rss_MiB"] = double(std::max(self.ru_maxrss, children.ru_maxrss)) / 1024;
}

// The same as `simulate` runs it, with the 90% intervals: four more step
// simulations for the sensitivity fit, 2,000 draws per pricing mode.
void BM_SimulateWithIntervals(benchmark::State& state, const std::string& file) {
  pf::Scenario s = pf::LoadScenario(kRoot + "/" + file);
  s.intervals = true;
  for (auto _ : state) {
    pf::Result r = pf::Simulate(s);
    benchmark::DoNotOptimize(r.step);
  }
}

// The intervals' Monte Carlo alone: 2,000 draws of the job model and a
// bill-sized cost function.
void BM_SampleJob(benchmark::State& state) {
  pf::JobInputs in;
  in.step = pf::Seconds(5), in.steps = 400000;
  in.checkpoints = true, in.every = pf::Seconds(7200), in.write = pf::Seconds(60), in.copy = pf::Seconds(60);
  in.interruptions = true, in.gpus = 1024, in.gpu_mtbf = pf::Seconds(50675 * 3600.0), in.restart = pf::Seconds(600);
  for (auto _ : state) {
    const pf::JobSpread sp = pf::SampleJob(in, pf::Sensitivity{-0.8, -0.2}, pf::Uncertainty{}, true,
                                           [](const pf::JobTime& t, double k) { return t.wall.value() * k; });
    benchmark::DoNotOptimize(sp.wall.p95);
  }
}

// The task-graph builder alone, on an arena as pf::Simulate builds it.
void BM_BuildWorkload(benchmark::State& state, const std::string& file) {
  pf::Scenario s = pf::LoadScenario(kRoot + "/" + file);
  for (auto _ : state) {
    google::protobuf::Arena arena(pf::WorkloadArenaOptions());
    auto* w = google::protobuf::Arena::CreateMessage<preflight::Workload>(&arena);
    pf::BuildWorkload(s, *w);
    benchmark::DoNotOptimize(w->tasks_size());
  }
}

BENCHMARK_CAPTURE(BM_Simulate, llama2_70b_8xA800, std::string("scenarios/70b_8xA800_tp8.yaml"))
    ->Unit(benchmark::kMillisecond);
// The flagship as LLaMA-Factory runs it: ZeRO-3 over 8 GPUs, seven
// gathers per layer (DeepSpeed's per-module fetch).
BENCHMARK_CAPTURE(BM_Simulate, llama2_70b_8xA800_llama_factory, std::string("scenarios/70b_8xA800.yaml"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Simulate, gpt3_175b_1024xA100, std::string("scenarios/gpt3_175b_1024xA100.yaml"))
    ->Unit(benchmark::kMillisecond)->Iterations(3);
// The issue "Hardware in full": a 64-node training step with every
// collective on an oversubscribed fabric (2:1 fat-tree, nodes spread over
// the leaves so that every hop between nodes crosses the spine; all 8
// lanes of every collective simulated).
BENCHMARK_CAPTURE(BM_Simulate, llama2_70b_512xH100_fattree_2to1_spread,
                  std::string("scenarios/llama70b_512xH100.yaml"),
                  std::vector<std::string>{"cluster.fabric.kind=fat_tree", "cluster.fabric.oversubscription=2",
                                           "cluster.fabric.placement=spread"})
    ->Unit(benchmark::kMillisecond)->Iterations(3);
// The issue "Speed at scale": a data-parallel layout as fast as a
// pipelined one, 16,384 GPUs, a 16-GPU ZeRO-2 step on one 25 Gb/s NIC per
// node, and a 64-GPU Llama-2-70B point as a sweep evaluates it.
BENCHMARK_CAPTURE(BM_Simulate, gpt3_175b_1024xA100_tp8_dp128, std::string("scenarios/gpt3_175b_1024xA100.yaml"),
                  std::vector<std::string>{"parallel.pp=1", "parallel.dp=128", "training.global_batch=1536", "--force"})
    ->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(BM_Simulate, gpt3_175b_16384xA100, std::string("scenarios/gpt3_175b_1024xA100.yaml"),
                  std::vector<std::string>{"cluster.nodes=2048", "parallel.dp=128", "training.global_batch=2048"})
    ->Unit(benchmark::kMillisecond)->Iterations(1);
// Data parallelism alone over 16,384 GPUs (eight replicas a node: their
// kernels mirrored, engine/reductions.h; the two collectives' 32,768 flows
// are what it costs).
BENCHMARK_CAPTURE(BM_Simulate, megatron_1p7b_16384xA100_dp, std::string("scenarios/megatron_1p7b_32xA100.yaml"),
                  std::vector<std::string>{"cluster.nodes=2048", "parallel.dp=16384", "training.global_batch=32768"})
    ->Unit(benchmark::kMillisecond)->Iterations(1);
// The issue "Large-scale recipes": Llama 3.1 405B at 16,384 H100 GPUs (TP8
// PP16 VP4 DP128, SP, ZeRO-2 under FSDP) in under 60 s and 4 GiB.
BENCHMARK_CAPTURE(BM_Simulate, llama3_405b_16384xH100, std::string("scenarios/llama3_405b_16kxH100.yaml"))
    ->Unit(benchmark::kMillisecond)->Iterations(1);
// Mixtures of experts: Mixtral 8x7B EP8 (the all-to-all inside each
// node), and Qwen3-235B-A22B EP32 over 4 nodes with DeepEP, the model zoo's
// 19.7 s step (tests/data/recipes/mmz_qwen3_235b_256xH100.yaml).
BENCHMARK_CAPTURE(BM_Simulate, mixtral_8x7b_64xH100, std::string("scenarios/mixtral_8x7b_64xH100.yaml"))
    ->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(BM_Simulate, qwen3_235b_256xH100_deepep, std::string("tests/data/recipes/mmz_qwen3_235b_256xH100.yaml"))
    ->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_Simulate, qwen3_235b_256xH100_all_to_all, std::string("tests/data/recipes/mmz_qwen3_235b_256xH100.yaml"),
                  std::vector<std::string>{"parallel.ep_dispatcher=all_to_all"})
    ->Unit(benchmark::kMillisecond)->Iterations(1);
// EP overlap cuts each pass into a piece per MoE layer: Qwen3-30B-A3B on
// 16 H100 (EP16 over two nodes, 64 micro-batches), off and on
// (tests/data/recipes/mb2607_qwen3_30b_a3b_bf16_ep16*.yaml).
BENCHMARK_CAPTURE(BM_Simulate, qwen3_30b_16xH100_ep16, std::string("tests/data/recipes/mb2607_qwen3_30b_a3b_bf16_ep16_16xH100.yaml"))
    ->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_Simulate, qwen3_30b_16xH100_ep16_overlap,
                  std::string("tests/data/recipes/mb2607_qwen3_30b_a3b_bf16_ep16_overlap_16xH100.yaml"))
    ->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_Simulate, mpt7b_16xA100_zero2_25gbps, std::string("scenarios/foundry_mpt7b_8xA100.yaml"),
                  std::vector<std::string>{"cluster.nodes=2", "parallel.dp=16", "parallel.zero=2",
                                           "training.global_batch=192", "cluster.node.nics.bandwidth=25Gbps",
                                           "cluster.node.nics.count=1", "cluster.node.pcie.switches=[]"})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Simulate, llama2_70b_64xH100, std::string("scenarios/llama70b_512xH100.yaml"),
                  std::vector<std::string>{"cluster.nodes=8", "parallel.dp=2", "training.global_batch=128"})
    ->Unit(benchmark::kMillisecond);
// The issue "Data path": the same 1,024-GPU step with a dataloader per
// data-parallel rank (token shards on local NVMe, per-micro-batch reads,
// CPU collate and copies) and a checkpoint every 30 minutes to it (its
// write and restore simulated too): against BM_Simulate/gpt3_175b_1024xA100,
// the data tasks must not double the time.
BENCHMARK_CAPTURE(BM_Simulate, gpt3_175b_1024xA100_data_checkpoint, std::string("scenarios/gpt3_175b_1024xA100.yaml"),
                  std::vector<std::string>{"cluster.storage=[{kind: local_nvme, read: 13GB/s, write: 7GB/s}]",
                                           "data={tier: local_nvme, format: tokens, workers: 4, size: 600GB}",  // GPT-3: 300B tokens x 2 B
                                           "checkpoint={tier: local_nvme, every: 30min}"})
    ->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(BM_SimulateWithIntervals, llama2_70b_8xA800, std::string("scenarios/70b_8xA800_tp8.yaml"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SimulateWithIntervals, llama2_70b_1024xH100_pretrain,
                  std::string("scenarios/llama70b_1024xH100_pretrain.yaml"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);
BENCHMARK(BM_SampleJob)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BuildWorkload, gpt3_175b_1024xA100, std::string("scenarios/gpt3_175b_1024xA100.yaml"))
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

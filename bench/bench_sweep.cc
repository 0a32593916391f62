// The issue "Parameter sweeps": the sweep engine adds under 5% over the
// simulations it runs. Each iteration simulates the 24 points of a grid
// one after another in this process (what the simulations cost) and then
// runs the same grid as a sweep with one worker (fork, pipes, rows in
// order, a flushed file); the counter `overhead` is the second over the
// first, less one.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "sim/job/simulate.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/sweep/sweep_runner.h"

namespace {

const std::string kRoot = PREFLIGHT_SOURCE_DIR;

void BM_SweepOverhead(benchmark::State& state) {
  pf::SweepOptions o;
  o.scenario = kRoot + "/scenarios/llama70b_512xH100.yaml";
  o.sets = {"cluster.nodes=8", "parallel.dp=2", "training.global_batch=128"};
  o.grid = pf::ParseGrid({"training.micro_batch=1,2", "training.recompute=none,selective,full",
                          "parallel.dp_overlap=true,false", "cluster.node=h100-sxm-8x,h200-sxm-8x"});
  o.output = "/tmp/preflight_bench_sweep.csv";
  o.jobs = 1;
  double direct = 0, swept = 0;
  using Clock = std::chrono::steady_clock;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    for (long long i = 0; i < o.grid.points(); ++i) {
      std::vector<std::string> sets = o.sets;
      for (const std::string& x : o.grid.Overrides(i)) sets.push_back(x);
      benchmark::DoNotOptimize(pf::Simulate(pf::LoadScenario(o.scenario, sets)).step);
    }
    const auto t1 = Clock::now();
    benchmark::DoNotOptimize(pf::RunSweep(o).points);
    const auto t2 = Clock::now();
    direct += std::chrono::duration<double>(t1 - t0).count();
    swept += std::chrono::duration<double>(t2 - t1).count();
  }
  std::remove(o.output.c_str());
  state.counters["points"] = double(o.grid.points());
  state.counters["direct_s"] = direct / double(state.iterations());
  state.counters["sweep_s"] = swept / double(state.iterations());
  state.counters["overhead"] = swept / direct - 1;
}
BENCHMARK(BM_SweepOverhead)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

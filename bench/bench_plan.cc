// The issue "Capacity planning": the analytical screen at 1,000
// configurations per second or more on one core, and a plan over 4 GPU
// types, 1-64 nodes and every layout of a 70B fine-tune in under 60 s.
#include <benchmark/benchmark.h>

#include <string>

#include "sim/plan/planner.h"
#include "sim/plan/screen.h"
#include "sim/scenario/scenario_loader.h"

namespace {

const std::string kRoot = PREFLIGHT_SOURCE_DIR;

// One screened configuration: the 70B LoRA on 2 H100 nodes, TP8 PP2.
void BM_ScreenOneConfiguration(benchmark::State& state) {
  const pf::Scenario s = pf::LoadScenario(kRoot + "/scenarios/70b_8xA800_tp8.yaml",
                                          {"cluster.node=h100-sxm-8x", "cluster.nodes=2", "parallel.pp=2",
                                           "price={offer: aws-p5-48xlarge}"});
  for (auto _ : state) benchmark::DoNotOptimize(pf::ScreenStep(s).step);
  state.counters["per_s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ScreenOneConfiguration)->Unit(benchmark::kMicrosecond);

// The whole plan: 4 GPU types, 1-64 nodes, every layout; the 6 cheapest
// and the fastest simulated.
void BM_Plan70bFourGpuTypes(benchmark::State& state) {
  pf::PlanOptions o;
  o.scenario = kRoot + "/scenarios/70b_8xA800_tp8.yaml";
  o.deadline = pf::Seconds(7 * 86400);
  o.gpus = {"A800", "H800", "H100", "RTX-4090"};
  o.max_gpus = 512;
  for (auto _ : state) {
    const pf::Plan p = pf::MakePlan(o);
    state.counters["screened"] = double(p.screened);
    state.counters["screened_per_s"] = p.screen_seconds > 0 ? double(p.screened) / p.screen_seconds : 0;
  }
}
BENCHMARK(BM_Plan70bFourGpuTypes)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

// `simulate collectives`: one 1 GB all-reduce on 512 GPUs (64 DGX A100
// nodes), the whole command path but the printing (node load, plan, forked
// SimGrid run). Target: under 0.05 s wall clock on one core.
#include <benchmark/benchmark.h>

#include "sim/job/collectives_bench.h"
#include "sim/scenario/scenario_loader.h"

namespace {

// One 1 GB all-reduce over 512 GPUs of `cluster` (64 nodes), the whole
// command path but the printing.
void AllReduce1GB512Gpus(benchmark::State& state, pf::ClusterSpec cluster) {
  cluster.nodes = 64;
  for (auto _ : state) {
    pf::CollectiveBench b;
    b.cluster = cluster;
    b.gpus = 512;
    b.sizes_bytes = {1e9};
    const auto rows = pf::RunCollectiveBench(b);
    benchmark::DoNotOptimize(rows);
    state.counters["busbw_GBps"] = rows[0].busbw_gbps;
  }
}

void BM_AllReduce1GB512Gpus(benchmark::State& state) {
  pf::ClusterSpec c;
  c.node = pf::LoadNode("a100-80gb-sxm-8x");
  AllReduce1GB512Gpus(state, c);
}
BENCHMARK(BM_AllReduce1GB512Gpus)->Unit(benchmark::kMillisecond);

// The same on 64 nodes of the 2:1 fat-tree cluster, spread over its leaves.
void BM_AllReduce1GB512GpusFatTreeSpread(benchmark::State& state) {
  pf::ClusterSpec c = pf::LoadCluster("h100-fattree-2to1-1024node");
  c.fabric.placement = pf::Placement::kSpread;
  AllReduce1GB512Gpus(state, c);
}
BENCHMARK(BM_AllReduce1GB512GpusFatTreeSpread)->Unit(benchmark::kMillisecond);

}  // namespace

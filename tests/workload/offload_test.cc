// ZeRO-Offload and ZeRO-Infinity (sim/workload/offload.h): what leaves GPU
// memory, the optimizer step as a copy -> CPU Adam -> copy chain (with the
// NVMe tier's reads and writes around the update), and the simulated step
// charging it to the optimizer.
#include "sim/workload/offload.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/job/simulate.h"
#include "sim/model/compute_model.h"
#include "sim/model/memory_model.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/workload/workload_builder.h"
#include "tests/test_util.h"

namespace pf {
namespace {

// ZeRO-Offload's reduce bucket, the gradient elements a GPU keeps
// (memory_model.cc: reduce_bucket_size 5e8, Hugging Face DeepSpeed guide).
constexpr double kBucketElements = 5e8;
// Optimizer state per parameter on NVMe: fp32 master weights and 2 moments.
constexpr double kStateBytes = 12;

Scenario Load(const std::vector<std::string>& sets = {}) {
  return LoadScenario(testing_util::kRoot + "/scenarios/70b_zero3_offload_8xA800.yaml", sets);
}

// The parameters each GPU's optimizer updates (tp 1, pp 1: ZeRO shards
// them over dp).
double ParamsPerGpu(const Scenario& s) { return TrainableParams(s) / s.parallel.dp; }

std::vector<int> Named(const preflight::Workload& w, const std::string& name) {
  std::vector<int> out;
  for (int i = 0; i < w.tasks_size(); ++i)
    if (w.tasks(i).name() == name) out.push_back(i);
  return out;
}

// The one dependency of `task` named `name` (-1: none, -2: several).
int DepNamed(const preflight::Workload& w, int task, const std::string& name) {
  int found = -1;
  for (uint32_t d : w.tasks(task).deps())
    if (w.tasks(d).name() == name) found = found == -1 ? int(d) : -2;
  return found;
}

TEST(Offload, CpuAdamIsSixTimesTorchsMeasuredAdamOnTheReferenceCore) {
  // 536.9 M elements in 1.81 s on 2 threads of a core_speed 1.58 CPU, 6x.
  EXPECT_DOUBLE_EQ(CpuAdamSecondsPerParam(), 1.58 / (536.9e6 / (1.81 * 2) * 6));
}

TEST(Offload, TheGpuKeepsNoOptimizerStateAndOneGradientBucket) {
  const Scenario s = Load();
  ASSERT_EQ(s.parallel.offload, Offload::kCpu);
  const MemoryBreakdown m = EstimateMemory(s);
  EXPECT_EQ(m.optimizer.value(), 0);
  EXPECT_LE(m.gradients.value(), kBucketElements * 2);
  // 69 B parameters' bf16 gradients over 8 GPUs would be 17 GB: capped.
  EXPECT_DOUBLE_EQ(m.gradients.value(), kBucketElements * 2);
  // Without offload the same GPU would hold the states.
  const MemoryBreakdown on_gpu = EstimateMemory(Load({"parallel.offload=none"}));
  EXPECT_GT(on_gpu.optimizer.value(), 0);
  EXPECT_GT(on_gpu.gradients.value(), m.gradients.value());
}

TEST(Offload, TheStepIsACopyOutCpuAdamAndACopyBack) {
  const Scenario s = Load();
  const preflight::Workload w = BuildWorkload(s);
  const int gpus = s.cluster.gpus();
  EXPECT_TRUE(Named(w, "optimizer").empty()) << "a GPU Adam as well";
  const double params = ParamsPerGpu(s);
  const std::vector<int> adams = Named(w, "cpu_adam");
  ASSERT_EQ(adams.size(), size_t(gpus));
  EXPECT_EQ(Named(w, "offload_grads").size(), size_t(gpus));
  EXPECT_EQ(Named(w, "offload_params").size(), size_t(gpus));
  std::vector<int> seen(gpus, 0);
  for (int adam : adams) {
    const preflight::Task& a = w.tasks(adam);
    ASSERT_TRUE(a.has_cpu());
    EXPECT_EQ(a.category(), preflight::OPTIMIZER);
    EXPECT_EQ(a.cpu().node(), 0u);
    EXPECT_EQ(a.cpu().threads(), uint32_t(s.cluster.node.cpu.cores / s.cluster.node.gpus_per_node));
    EXPECT_NEAR(a.cpu().core_seconds(), params * CpuAdamSecondsPerParam(), 1e-9 * a.cpu().core_seconds());
    const int grads = DepNamed(w, adam, "offload_grads");
    ASSERT_GE(grads, 0);
    const preflight::Task& g = w.tasks(grads);
    ASSERT_TRUE(g.has_io());
    EXPECT_EQ(g.io().direction(), preflight::Io::DEVICE_TO_HOST);
    EXPECT_EQ(g.category(), preflight::OPTIMIZER);
    EXPECT_FALSE(g.io().host_only());
    EXPECT_NEAR(g.io().size_bytes(), params * 2, 1e-9 * g.io().size_bytes());  // bf16 gradients
    ++seen[g.io().gpu()];
  }
  for (int gpu = 0; gpu < gpus; ++gpu) EXPECT_EQ(seen[gpu], 1) << "gpu " << gpu;
  for (int back : Named(w, "offload_params")) {
    const preflight::Task& p = w.tasks(back);
    ASSERT_TRUE(p.has_io());
    EXPECT_EQ(p.io().direction(), preflight::Io::HOST_TO_DEVICE);
    EXPECT_EQ(p.category(), preflight::OPTIMIZER);
    EXPECT_GE(DepNamed(w, back, "cpu_adam"), 0) << "gpu " << p.io().gpu();
    EXPECT_NEAR(p.io().size_bytes(), params * 2, 1e-9 * p.io().size_bytes());  // bf16 parameters
  }
  EXPECT_TRUE(Named(w, "offload_states_in").empty());
  EXPECT_TRUE(Named(w, "offload_states_out").empty());
}

TEST(Offload, NvmeStatesAreReadBeforeAndWrittenAfterTheUpdate) {
  const Scenario s = Load({"parallel.offload=nvme"});
  std::string nvme;
  for (const StorageTier& t : s.cluster.storage)
    if (t.kind == StorageKind::kLocalNvme) nvme = t.name;
  ASSERT_FALSE(nvme.empty());
  const preflight::Workload w = BuildWorkload(s);
  const int gpus = s.cluster.gpus();
  const double params = ParamsPerGpu(s);
  const std::vector<int> ins = Named(w, "offload_states_in"), outs = Named(w, "offload_states_out");
  ASSERT_EQ(ins.size(), size_t(gpus));
  ASSERT_EQ(outs.size(), size_t(gpus));
  for (int i : ins) {
    const preflight::Io& io = w.tasks(i).io();
    EXPECT_TRUE(io.host_only());
    EXPECT_EQ(io.tier(), nvme);
    EXPECT_EQ(io.direction(), preflight::Io::HOST_TO_DEVICE);  // a read
    EXPECT_NEAR(io.size_bytes(), params * kStateBytes, 1e-9 * io.size_bytes());
    EXPECT_GE(DepNamed(w, i, "offload_grads"), 0);
  }
  for (int o : outs) {
    const preflight::Io& io = w.tasks(o).io();
    EXPECT_TRUE(io.host_only());
    EXPECT_EQ(io.tier(), nvme);
    EXPECT_EQ(io.direction(), preflight::Io::DEVICE_TO_HOST);  // a write
    EXPECT_NEAR(io.size_bytes(), params * kStateBytes, 1e-9 * io.size_bytes());
    EXPECT_GE(DepNamed(w, o, "cpu_adam"), 0);
  }
  // The update after the read; the parameters go back after the write.
  for (int adam : Named(w, "cpu_adam")) EXPECT_GE(DepNamed(w, adam, "offload_states_in"), 0);
  for (int back : Named(w, "offload_params")) EXPECT_GE(DepNamed(w, back, "offload_states_out"), 0);
  EXPECT_TRUE(Named(w, "optimizer").empty());
}

TEST(Offload, TheSimulatedStepChargesCpuAdamToTheOptimizer) {
  const Scenario s = Load();
  const Result r = Simulate(s);
  ASSERT_TRUE(r.step.has_value());
  const Breakdown& b = r.step->breakdown;
  const double params = ParamsPerGpu(s);
  // The GPU's own Adam over the same shard: memory-bound, much faster.
  const double gpu_adam = OptimizerTime(s, params).value();
  EXPECT_GT(b.optimizer.value(), gpu_adam);
  // At least CPU Adam on the rank's cores (the node's CPU, core_speed
  // times the reference core), which nothing else on the node contends.
  const NodeSpec& n = s.cluster.node;
  const double threads = n.cpu.cores / n.gpus_per_node;
  EXPECT_GE(b.optimizer.value(), params * CpuAdamSecondsPerParam() / (threads * n.cpu.core_speed));
  EXPECT_NEAR(b.total().value(), r.step->step_time.value(), 1e-9 * r.step->step_time.value());
}

}  // namespace
}  // namespace pf

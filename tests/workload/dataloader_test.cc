// The input pipeline in the step's task graph (sim/workload/dataloader.h):
// a read, a decode and a copy per micro-batch of every data-parallel rank,
// prefetched pinned batches, synchronous pageable copies, the first
// forward of each micro-batch waiting for its batch, and the read's
// requests after the page cache's hits.
#include "sim/workload/dataloader.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/model/data_costs.h"
#include "sim/model/host_memory.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/workload/workload_builder.h"
#include "tests/test_util.h"

namespace pf {
namespace {

Scenario Load(const std::string& file, const std::vector<std::string>& sets = {}) {
  return LoadScenario(testing_util::kRoot + "/scenarios/" + file, sets);
}

// 7b_sft_8xA800_data (dp 32, micro-batch 4) with 8 micro-batches a step,
// 3 workers holding 3 x 1 batches ready, every byte read from the tier.
Scenario Sft(const std::vector<std::string>& more = {}) {
  std::vector<std::string> sets = {"training.global_batch=1024", "data.workers=3", "data.prefetch=1"};
  sets.insert(sets.end(), more.begin(), more.end());
  Scenario s = Load("7b_sft_8xA800_data.yaml", sets);
  s.data.first_epoch = true;
  return s;
}

int MicroBatches(const Scenario& s) { return s.training.micro_batches_per_step(s.parallel.dp); }
int Ready(const Scenario& s) { return std::min(s.data.prefetch * s.data.workers, MicroBatches(s)); }

// Tasks named `name`, in the workload's (topological) order; io tasks only
// those of `gpu` when it is given.
std::vector<int> Named(const preflight::Workload& w, const std::string& name, int gpu = -1) {
  std::vector<int> out;
  for (int i = 0; i < w.tasks_size(); ++i) {
    const preflight::Task& t = w.tasks(i);
    if (t.name() != name) continue;
    if (gpu >= 0 && !(t.has_io() && int(t.io().gpu()) == gpu)) continue;
    out.push_back(i);
  }
  return out;
}

bool DependsOn(const preflight::Workload& w, int task, int dep) {
  const auto& deps = w.tasks(task).deps();
  return std::find(deps.begin(), deps.end(), uint32_t(dep)) != deps.end();
}

// Whether `task` waits, directly or not, for a task of `category`.
bool WaitsFor(const preflight::Workload& w, int task, preflight::Category category) {
  std::vector<bool> seen(w.tasks_size(), false);
  std::vector<int> todo(w.tasks(task).deps().begin(), w.tasks(task).deps().end());
  while (!todo.empty()) {
    const int t = todo.back();
    todo.pop_back();
    if (seen[t]) continue;
    seen[t] = true;
    if (w.tasks(t).category() == category) return true;
    todo.insert(todo.end(), w.tasks(t).deps().begin(), w.tasks(t).deps().end());
  }
  return false;
}

// The compute tasks of `gpu` in order, and the first forward segment of
// each micro-batch among them (pp 1: forwards and backwards alternate).
struct GpuCompute {
  std::vector<int> tasks;
  std::vector<int> first_fwd;  // per micro-batch
  // The compute just before micro-batch m's first forward (-1 for m = 0).
  int Before(int m) const {
    auto at = std::find(tasks.begin(), tasks.end(), first_fwd[m]);
    return at == tasks.begin() ? -1 : *(at - 1);
  }
};
GpuCompute ComputeOf(const preflight::Workload& w, int gpu) {
  GpuCompute c;
  std::string previous;
  for (int i = 0; i < w.tasks_size(); ++i) {
    const preflight::Task& t = w.tasks(i);
    if (!t.has_compute() || int(t.compute().gpu()) != gpu) continue;
    if (t.name() == "fwd" && previous != "fwd") c.first_fwd.push_back(i);
    c.tasks.push_back(i);
    previous = t.name();
  }
  return c;
}

// The data_read a decode waits for (-1: none).
int ReadOf(const preflight::Workload& w, int decode) {
  for (uint32_t d : w.tasks(decode).deps())
    if (w.tasks(d).name() == "data_read") return int(d);
  return -1;
}

TEST(DataLoader, EveryRankReadsDecodesAndCopiesEachMicroBatch) {
  const Scenario s = Sft();
  const preflight::Workload w = BuildWorkload(s);
  const int dp = s.parallel.dp, M = MicroBatches(s), ready = Ready(s);
  ASSERT_EQ(dp, 32);
  ASSERT_EQ(M, 8);
  ASSERT_EQ(ready, 3);
  EXPECT_EQ(Named(w, "data_read").size(), size_t(dp * M));
  EXPECT_EQ(Named(w, "data_decode").size(), size_t(dp * M));
  // Pinned: the first `ready` batches were prefetched during the last step.
  EXPECT_EQ(Named(w, "data_copy").size(), size_t(dp * (M - ready)));
  for (int d = 0; d < dp; ++d) {
    const int gpu = d;  // tp 1, pp 1
    EXPECT_EQ(Named(w, "data_read", gpu).size(), size_t(M)) << "rank " << d;
    EXPECT_EQ(Named(w, "data_copy", gpu).size(), size_t(M - ready)) << "rank " << d;
  }
  for (const auto& t : w.tasks()) {
    if (t.name().rfind("data_", 0) == 0) {
      EXPECT_EQ(t.category(), preflight::DATA) << t.name();
    }
  }
}

TEST(DataLoader, DecodesRunOnTheRanksNodeOverItsWorkers) {
  const Scenario s = Sft();
  const preflight::Workload w = BuildWorkload(s);
  const int per_node = s.cluster.node.gpus_per_node;
  const BatchCost batch = CostOfBatch(s);
  std::vector<int> per_rank(s.parallel.dp, 0);
  for (int decode : Named(w, "data_decode")) {
    const preflight::Task& t = w.tasks(decode);
    ASSERT_TRUE(t.has_cpu());
    EXPECT_EQ(t.cpu().threads(), uint32_t(s.data.workers));
    EXPECT_DOUBLE_EQ(t.cpu().core_seconds(), batch.cpu.value());
    const int read = ReadOf(w, decode);
    ASSERT_GE(read, 0) << "a decode before its read";
    const int gpu = int(w.tasks(read).io().gpu());
    EXPECT_EQ(int(t.cpu().node()), gpu / per_node) << "gpu " << gpu;
    ++per_rank[gpu];
  }
  for (int d = 0; d < s.parallel.dp; ++d) EXPECT_EQ(per_rank[d], MicroBatches(s)) << "rank " << d;
}

TEST(DataLoader, APinnedBatchIsCopiedBeforeItsForwardAndPrefetchedOnesAreNot) {
  const Scenario s = Sft();
  ASSERT_TRUE(s.data.pinned);
  const preflight::Workload w = BuildWorkload(s);
  const int M = MicroBatches(s), ready = Ready(s);
  for (int gpu : {0, 13, 31}) {
    const GpuCompute c = ComputeOf(w, gpu);
    ASSERT_EQ(c.first_fwd.size(), size_t(M));
    const std::vector<int> copies = Named(w, "data_copy", gpu);
    ASSERT_EQ(copies.size(), size_t(M - ready));
    for (int m = 0; m < ready; ++m)
      EXPECT_FALSE(WaitsFor(w, c.first_fwd[m], preflight::DATA)) << "gpu " << gpu << " micro-batch " << m;
    for (int m = ready; m < M; ++m) {
      const int copy = copies[m - ready];
      EXPECT_TRUE(DependsOn(w, c.first_fwd[m], copy)) << "gpu " << gpu << " micro-batch " << m;
      EXPECT_EQ(w.tasks(copy).io().direction(), preflight::Io::HOST_TO_DEVICE);
      EXPECT_DOUBLE_EQ(w.tasks(copy).io().size_bytes(), CostOfBatch(s).device_bytes.value());
      // After the batch is decoded from what was read.
      bool decoded = false;
      for (uint32_t d : w.tasks(copy).deps())
        decoded |= w.tasks(d).name() == "data_decode" && ReadOf(w, int(d)) >= 0 &&
                   int(w.tasks(ReadOf(w, int(d))).io().gpu()) == gpu;
      EXPECT_TRUE(decoded) << "gpu " << gpu << " micro-batch " << m;
    }
  }
}

TEST(DataLoader, ABatchStartsOnlyOnceTheQueueHasRoom) {
  const Scenario s = Sft();
  const preflight::Workload w = BuildWorkload(s);
  const int M = MicroBatches(s), queue = s.data.prefetch * s.data.workers, ready = Ready(s);
  const GpuCompute c = ComputeOf(w, 5);
  const std::vector<int> reads = Named(w, "data_read", 5);
  ASSERT_EQ(reads.size(), size_t(M));
  // Read k prepares batch ready + k, which needs batch ready + k - queue consumed.
  for (int k = 0; k < M; ++k) {
    const int consumed = ready + k - queue;
    if (consumed < 0) continue;  // room since the last step
    EXPECT_TRUE(DependsOn(w, reads[k], c.first_fwd[consumed])) << "read " << k;
  }
}

TEST(DataLoader, EveryPageableBatchIsCopiedOnTheComputeStream) {
  const Scenario s = Sft({"data.pinned=false"});
  const preflight::Workload w = BuildWorkload(s);
  const int M = MicroBatches(s), ready = Ready(s);
  EXPECT_EQ(Named(w, "data_copy").size(), size_t(s.parallel.dp * M));
  for (int gpu : {0, 22}) {
    const GpuCompute c = ComputeOf(w, gpu);
    ASSERT_EQ(c.first_fwd.size(), size_t(M));
    const std::vector<int> copies = Named(w, "data_copy", gpu);
    ASSERT_EQ(copies.size(), size_t(M));
    for (int m = 0; m < M; ++m) {
      EXPECT_TRUE(DependsOn(w, c.first_fwd[m], copies[m])) << "gpu " << gpu << " micro-batch " << m;
      if (m > 0) {
        EXPECT_TRUE(DependsOn(w, copies[m], c.Before(m))) << "gpu " << gpu << " micro-batch " << m;
        EXPECT_TRUE(DependsOn(w, copies[m], copies[m - 1])) << "gpu " << gpu << " micro-batch " << m;
      }
      bool decoded = false;
      for (uint32_t d : w.tasks(copies[m]).deps()) decoded |= w.tasks(d).name() == "data_decode";
      EXPECT_EQ(decoded, m >= ready) << "gpu " << gpu << " micro-batch " << m;
    }
  }
}

TEST(DataLoader, AReadsRequestsAreTheMissedSamplesOverTheWorkers) {
  // ResNet-50's JPEGs: one request per image; a 3 TB dataset that the
  // page cache holds only part of.
  const Scenario s = Load("resnet50_32xA800_data.yaml", {"data.size=3TB"});
  const double hits = PageCacheHits(s);
  ASSERT_GT(hits, 0);
  ASSERT_LT(hits, 1);
  const preflight::Workload w = BuildWorkload(s);
  const double samples = s.training.micro_batch;
  const std::vector<int> reads = Named(w, "data_read");
  ASSERT_EQ(reads.size(), size_t(s.parallel.dp * MicroBatches(s)));
  const uint32_t requests = uint32_t(std::ceil(samples * 1 * (1 - hits) / s.data.workers));
  EXPECT_GT(requests, 1u);
  for (int r : reads) {
    const preflight::Io& io = w.tasks(r).io();
    EXPECT_EQ(io.requests(), requests);
    EXPECT_TRUE(io.host_only());
    EXPECT_EQ(io.tier(), "nfs");
    EXPECT_NEAR(io.size_bytes(), s.data.sample_bytes.value() * samples * (1 - hits), 1e-3);
  }
  // Text: a fraction of a request per sample, rounded up per worker.
  const Scenario text = Sft({"data.read_size=4KiB"});
  const double per_sample = text.training.seq_len * 4 / 4096.0;  // 4 bytes a token
  const uint32_t text_requests = uint32_t(std::ceil(text.training.micro_batch * per_sample / text.data.workers));
  ASSERT_EQ(text_requests, 3u);  // 4 x 2 requests over 3 workers
  const preflight::Workload tw = BuildWorkload(text);
  ASSERT_FALSE(Named(tw, "data_read").empty());
  for (int r : Named(tw, "data_read")) EXPECT_EQ(tw.tasks(r).io().requests(), text_requests);
}

TEST(DataLoader, ADatasetThePageCacheHoldsIsNotReadAgain) {
  Scenario s = Load("7b_sft_8xA800_data.yaml");
  ASSERT_EQ(PageCacheHits(s), 1);
  const preflight::Workload w = BuildWorkload(s);
  EXPECT_TRUE(Named(w, "data_read").empty());
  EXPECT_EQ(Named(w, "data_decode").size(), size_t(s.parallel.dp * MicroBatches(s)));
}

TEST(DataLoader, NoDataSectionNoInputPipeline) {
  const Scenario s = Load("70b_8xA800_tp8.yaml");
  ASSERT_FALSE(s.data.enabled);
  const preflight::Workload w = BuildWorkload(s);
  for (const auto& t : w.tasks()) {
    EXPECT_NE(t.category(), preflight::DATA) << t.name();
    EXPECT_NE(t.name().rfind("data_", 0), 0u) << t.name();
  }
}

}  // namespace
}  // namespace pf

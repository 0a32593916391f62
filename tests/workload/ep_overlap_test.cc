// EP overlap (parallel.ep_overlap, Megatron-Core's combined 1F1B): a
// forward and the backward beside it in the schedule run as one, cut into a
// piece per MoE layer, so each one's all-to-alls run beside the other's
// compute; the rules Megatron-Core sets on it are refusals.
#include <gtest/gtest.h>


#include "sim/accounting/accounting.h"
#include "sim/engine/engine.h"
#include "sim/job/simulate.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/spec/validate.h"
#include "sim/workload/workload_builder.h"
#include "tests/test_util.h"

namespace pf {
namespace {

// Megatron-Bridge's controlled A/B (recipes.csv lines 55-56): Qwen3-30B-A3B
// on 16 H100, EP16 over two nodes; four micro-batches a GPU keep it short.
const std::string kOff = testing_util::kRoot + "/tests/data/recipes/mb2607_qwen3_30b_a3b_bf16_ep16_16xH100.yaml";
const std::vector<std::string> kShort = {"training.global_batch=64"};

int Count(const preflight::Workload& w, const std::string& name) {
  int n = 0;
  for (const auto& t : w.tasks()) n += t.name() == name;
  return n;
}

TEST(EpOverlap, PairsEachBackwardWithTheNextForwardLayerByLayer) {
  const Scenario off = LoadScenario(kOff, kShort);
  std::vector<std::string> on_sets = kShort;
  on_sets.push_back("parallel.ep_overlap=true");
  const Scenario on = LoadScenario(kOff, on_sets);
  const int M = on.training.micro_batches_per_step(on.parallel.dp), L = on.model.layers;
  ASSERT_EQ(M, 4);
  const preflight::Workload a = BuildWorkload(off), b = BuildWorkload(on);
  // Without a pipeline the schedule is F0 B0 F1 B1 ...: B(i) and F(i + 1)
  // run together, M - 1 pairs on each of the 16 workers.
  EXPECT_EQ(Count(a, "ep_overlap_join"), 0);
  EXPECT_EQ(Count(b, "ep_overlap_join"), 16 * (M - 1));
  // One compute task a pass without overlap, one a MoE layer with it; the
  // same compute either way.
  EXPECT_EQ(Count(a, "fwd"), 16 * M);
  EXPECT_EQ(Count(b, "fwd"), 16 * M * L);
  EXPECT_EQ(Count(b, "bwd"), 16 * M * L);
  double work_a = 0, work_b = 0;
  for (const auto& t : a.tasks()) work_a += t.has_compute() ? t.compute().duration_s() : 0;
  for (const auto& t : b.tasks()) work_b += t.has_compute() ? t.compute().duration_s() : 0;
  EXPECT_NEAR(work_b, work_a, 1e-9 * work_a);
  // The all-to-alls: the same count, a dispatch and a combine per layer
  // and pass, in exchanges of two under overlap.
  double count_a = 0, count_b = 0;
  for (const auto& t : a.tasks())
    if (t.category() == preflight::EP_COMM && t.has_collective()) count_a += t.collective().count();
  for (const auto& t : b.tasks())
    if (t.category() == preflight::EP_COMM && t.has_collective()) {
      count_b += t.collective().count();
      EXPECT_LE(t.collective().count(), 2u);
    }
  EXPECT_EQ(count_b, count_a);
}

// Paired, a forward waits for no task of the backward beside it: with the
// all-to-all dispatcher (one task an exchange, named by its pass) no
// forward piece depends on a backward's compute or all-to-all, where
// without overlap each forward after the first waits for the backward
// before it.
TEST(EpOverlap, AForwardWaitsForNoBackwardBesideIt) {
  auto forwards_after_backwards = [](const preflight::Workload& w) {
    int n = 0;
    for (const auto& t : w.tasks()) {
      if (t.name() != "fwd") continue;
      for (int d : t.deps()) {
        const std::string& before = w.tasks(d).name();
        n += before == "bwd" || (before.size() > 4 && before.substr(before.size() - 4) == "_bwd");
      }
    }
    return n;
  };
  std::vector<std::string> sets = kShort;
  sets.push_back("parallel.ep_dispatcher=all_to_all");
  const Scenario off = LoadScenario(kOff, sets);
  sets.push_back("parallel.ep_overlap=true");
  const Scenario on = LoadScenario(kOff, sets);
  const int M = on.training.micro_batches_per_step(on.parallel.dp);
  EXPECT_EQ(forwards_after_backwards(BuildWorkload(off)), 16 * (M - 1));
  EXPECT_EQ(forwards_after_backwards(BuildWorkload(on)), 0);
}

// Under an interleaved pipeline (pp 2, vp 2) the steady state's pairs run
// together too, and every task of the step ends.
TEST(EpOverlap, PairsTheInterleavedSchedulesSteadyState) {
  std::vector<std::string> sets = {"training.global_batch=64", "cluster.nodes=4", "parallel.pp=2", "parallel.vp=2",
                                   "parallel.ep=16"};
  const Scenario off = LoadScenario(kOff, sets);
  sets.push_back("parallel.ep_overlap=true");
  const Scenario on = LoadScenario(kOff, sets);
  const preflight::Workload w = BuildWorkload(on);
  EXPECT_GT(Count(w, "ep_overlap_join"), 0);
  const TaskTimes t = RunWorkload(on, w);
  for (int i = 0; i < w.tasks_size(); ++i) ASSERT_GE(t.end_s[i], 0) << "task " << i << " never ran";
  EXPECT_LT(t.makespan_s, RunWorkload(off, BuildWorkload(off)).makespan_s);
}

// The step is shorter and less of its all-to-all time is exposed; the
// dispatcher's share of the GPU while it runs beside compute lengthens the
// compute a little (calibration nccl_compute_share).
TEST(EpOverlap, HidesAllToAllsBehindTheOtherPassesCompute) {
  std::vector<std::string> on_sets = kShort;
  on_sets.push_back("parallel.ep_overlap=true");
  const Scenario off = LoadScenario(kOff, kShort), on = LoadScenario(kOff, on_sets);
  const preflight::Workload a = BuildWorkload(off), b = BuildWorkload(on);
  const TaskTimes ta = RunWorkload(off, a), tb = RunWorkload(on, b);
  const Breakdown ba = AccountTime(a, ta, true), bb = AccountTime(b, tb, true);
  EXPECT_LT(tb.makespan_s, 0.95 * ta.makespan_s);
  EXPECT_LT(bb.ep_comm.value(), 0.5 * ba.ep_comm.value());
  EXPECT_GT(bb.compute.value(), ba.compute.value());
  EXPECT_LT(bb.compute.value(), ba.compute.value() * (1 + on.calibration.nccl_compute_share));
}

// Megatron-Bridge's A/B on the full step (recipes.csv lines 55-56; "the
// only performance change was plain EP overlap"): 24.7138 s -> 20.9920 s,
// 1.177x. The modelled speedup is within 5% of it.
TEST(EpOverlap, SpeedsUpTheFullStepAsMeasured) {
  Scenario off = LoadScenario(kOff), on = LoadScenario(kOff, {"parallel.ep_overlap=true"});
  off.intervals = on.intervals = false;
  const Result a = Simulate(off), b = Simulate(on);
  ASSERT_TRUE(a.step && b.step);
  EXPECT_NEAR(a.step->step_time.value() / b.step->step_time.value(), 24.7138 / 20.9920, 0.05);
}

// Megatron-Core's rules (transformer_config.py, arguments.py): expert
// parallelism, its stack, the interleaved schedule under a pipeline, no
// full recompute; and a model with experts at all.
TEST(EpOverlap, RefusesWhatMegatronCoreRefuses) {
  struct Case {
    void (*edit)(Scenario&);
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](Scenario& s) { s.parallel.ep = 1; },
       "true overlaps expert parallelism's all-to-alls, but ep is 1; accepted: ep above 1, or ep_overlap false"},
      {[](Scenario& s) { s.parallel.pp = 2, s.parallel.dp = 8, s.parallel.ep = 8; },
       "true with a pipeline (pp = 2) needs the interleaved schedule (Megatron-Core); set parallel.vp above 1, or pp 1"},
      {[](Scenario& s) { s.training.recompute = Recompute::kFull; },
       "true cannot be combined with training.recompute: full (Megatron-Core refuses it); accepted: recompute none "
       "or selective"},
      {[](Scenario& s) { s.training.stack = Stack::kDeepspeed; },
       "true is Megatron-Core's combined 1F1B schedule; stack \"deepspeed\" has none (accepted: stack megatron or "
       "nemo)"},
  };
  const Scenario base = LoadScenario(kOff, {"parallel.ep_overlap=true", "parallel.ep_dispatcher=all_to_all"});
  ASSERT_FALSE(Validate(base).has_value());
  for (const Case& c : cases) {
    Scenario s = base;
    c.edit(s);
    const auto e = Validate(s);
    ASSERT_TRUE(e.has_value()) << c.message;
    EXPECT_EQ(e->key, "parallel.ep_overlap");
    EXPECT_EQ(e->message, c.message);
  }
  Scenario dense = LoadScenario(testing_util::kRoot + "/scenarios/70b_8xA800_tp8.yaml");
  dense.parallel.ep_overlap = true;
  ASSERT_TRUE(Validate(dense).has_value());
  EXPECT_EQ(Validate(dense)->key, "parallel.ep_overlap");
  // Interleaved under a pipeline: accepted.
  Scenario interleaved = base;
  interleaved.parallel.pp = 2, interleaved.parallel.vp = 2, interleaved.parallel.dp = 8, interleaved.parallel.ep = 8;
  EXPECT_FALSE(Validate(interleaved).has_value());
}

}  // namespace
}  // namespace pf

// The task graph: its size and shape follow the parallel layout, and the
// fixes found in review stay fixed (selective recompute, ZeRO-3 prefetch,
// fp8 efficiency, TP collective counts).
#include <gtest/gtest.h>

#include <algorithm>

#include "sim/model/compute_model.h"
#include "sim/engine/engine.h"
#include "sim/base/error.h"
#include "sim/model/memory_model.h"
#include "sim/model/model_math.h"
#include "sim/scenario/catalog.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/workload/workload_builder.h"
#include "sim/workload/stage_cost.h"
#include "sim/accounting/accounting.h"
#include "sim/workload/schedule_1f1b.h"

#include <map>

namespace pf {
namespace {

const std::string kRoot = PREFLIGHT_SOURCE_DIR;

int Count(const preflight::Workload& w, const std::string& name) {
  int n = 0;
  for (const auto& t : w.tasks()) n += t.name() == name;
  return n;
}

double TpCollectives(const preflight::Workload& w) {
  double n = 0;
  for (const auto& t : w.tasks())
    if (t.category() == preflight::TP_COMM) n += t.collective().count();
  return n;
}

// Loading `file` with `overrides` fails with an InputError containing `message`.
void ExpectRejected(const std::string& file, const std::vector<std::string>& overrides,
                    const std::string& message) {
  try {
    LoadScenario(file, overrides);
    ADD_FAILURE() << "accepted " << ::testing::PrintToString(overrides);
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

TEST(Workload, OneForwardAndBackwardPerMicroBatchPerStage) {
  Scenario s = LoadScenario(kRoot + "/scenarios/gpt3_175b_1024xA100.yaml");
  preflight::Workload w = BuildWorkload(s);
  const int M = s.training.micro_batches_per_step(s.parallel.dp);  // 192
  const int workers = s.parallel.pp * s.parallel.dp;                // 128
  EXPECT_EQ(w.workers_size(), workers);
  EXPECT_EQ(Count(w, "fwd"), workers * M);
  EXPECT_EQ(Count(w, "optimizer"), workers);
  // GPT-3 ties its embeddings: first and last stage sync them per DP rank.
  EXPECT_EQ(Count(w, "embedding_grad_sync"), s.parallel.dp);
  // Activations forward and gradients backward across each stage boundary.
  EXPECT_EQ(Count(w, "pp_send_act"), (s.parallel.pp - 1) * s.parallel.dp * M);
  EXPECT_EQ(Count(w, "pp_send_grad"), (s.parallel.pp - 1) * s.parallel.dp * M);
  // Megatron: 2 all-reduces per layer forward, 2 backward, 2 more for the
  // recompute, + the embedding (first stage) and LM head (last stage).
  const double layers = s.model.layers;
  EXPECT_EQ(TpCollectives(w), s.parallel.dp * M * (6 * layers + 2));
}

// Sequence parallelism: each TP all-reduce becomes a reduce-scatter and an
// all-gather of the same bytes (a ring moves 2(t-1)/t of them either way),
// and the replicated norms and residual adds run on seq/tp tokens, so the
// step is no slower; GPT-3 175B on 1,024 A100s (TP8 PP16).
TEST(Workload, SequenceParallelSplitsEachTpAllReduce) {
  const std::string file = kRoot + "/scenarios/gpt3_175b_1024xA100.yaml";
  Scenario plain = LoadScenario(file), sp = LoadScenario(file, {"parallel.sp=true"});
  const preflight::Workload a = BuildWorkload(plain), b = BuildWorkload(sp);
  double scatter = 0, gather = 0;
  for (const auto& t : b.tasks()) {
    if (t.category() != preflight::TP_COMM) continue;
    EXPECT_NE(t.collective().kind(), preflight::ALL_REDUCE) << t.name();
    (t.collective().kind() == preflight::REDUCE_SCATTER ? scatter : gather) += t.collective().count();
  }
  EXPECT_EQ(scatter, TpCollectives(a));
  EXPECT_EQ(gather, TpCollectives(a));
  double fwd_a = 0, fwd_b = 0;
  for (const auto& t : a.tasks()) if (t.name() == "fwd") fwd_a += t.compute().duration_s();
  for (const auto& t : b.tasks()) if (t.name() == "fwd") fwd_b += t.compute().duration_s();
  EXPECT_LT(fwd_b, fwd_a);
  EXPECT_GT(fwd_b, 0.9 * fwd_a);
}

// Megatron's distributed optimizer is ZeRO-1; with --overlap-param-gather
// the parameter all-gather moves from after the optimizer into the first
// forward, bucket by bucket, each bucket before the segment that uses it:
// the step loses the exposed gather and nothing else (GPT-3 175B, 1,024
// A100s, TP8 PP16 DP8).
TEST(Workload, OverlappedParamGatherRunsInTheFirstForward) {
  const std::string file = kRoot + "/scenarios/gpt3_175b_1024xA100.yaml";
  Scenario after = LoadScenario(file, {"parallel.distributed_optimizer=true"});
  Scenario overlapped = LoadScenario(file, {"parallel.distributed_optimizer=true", "parallel.param_gather_overlap=true"});
  EXPECT_EQ(after.parallel.zero, 1);
  const preflight::Workload a = BuildWorkload(after), b = BuildWorkload(overlapped);
  EXPECT_EQ(Count(a, "zero_param_gather"), after.parallel.pp);  // one per stage, after its optimizers
  int gathers = 0;
  for (int i = 0; i < b.tasks_size(); ++i) {
    const auto& t = b.tasks(i);
    if (t.name() != "zero_param_gather") continue;
    ++gathers;
    for (int d : t.deps()) EXPECT_EQ(b.tasks(d).name(), "zero_param_gather");  // chained, never after an optimizer
  }
  EXPECT_GT(gathers, after.parallel.pp);  // bucketed
  int forwards_waiting = 0;
  for (const auto& t : b.tasks())
    if (t.name() == "fwd")
      for (int d : t.deps()) forwards_waiting += b.tasks(d).name() == "zero_param_gather";
  EXPECT_EQ(forwards_waiting, gathers * after.parallel.dp);  // every DP rank's first forward
  const TaskTimes ta = RunWorkload(after, a), tb = RunWorkload(overlapped, b);
  const Breakdown ba = AccountTime(a, ta, true), bb = AccountTime(b, tb, true);
  EXPECT_LT(bb.dp_comm.value(), ba.dp_comm.value());
  EXPECT_LE(tb.makespan_s, ta.makespan_s + 1e-9);
  // The same kernels; the first forward shares its GPU with NCCL's gather.
  EXPECT_NEAR(bb.compute.value(), ba.compute.value(), 1e-3 * ba.compute.value());
}

// HSDP: each layer's gathers and reduce-scatters stay inside a shard group
// of 8 (a node's NVLink), and after the last backward each layer's reduced
// shard is all-reduced across the 16 groups, rank q of each together.
TEST(Workload, HsdpGathersInsideItsGroupAndAllReducesAcross) {
  Scenario s = LoadScenario(kRoot + "/tests/data/stacks/fms_llama2_7b_hsdp_128xA100.yaml");
  const preflight::Workload w = BuildWorkload(s);
  const int M = s.training.micro_batches_per_step(s.parallel.dp), L = s.model.layers;
  int across = 0;
  for (const auto& t : w.tasks()) {
    if (t.name() == "zero3_gather_fwd" || t.name() == "zero3_reduce_scatter") {
      ASSERT_EQ(t.collective().gpus_size(), 8);
      for (int g : t.collective().gpus()) EXPECT_EQ(g / 8, t.collective().gpus(0) / 8) << "crosses a node";
    }
    if (t.name() == "hsdp_replica_all_reduce") {
      ++across;
      EXPECT_EQ(t.collective().gpus_size(), 16);
      EXPECT_EQ(t.collective().kind(), preflight::ALL_REDUCE);
    }
  }
  EXPECT_EQ(Count(w, "zero3_gather_fwd"), 16 * M * L);  // per group
  EXPECT_EQ(across, 8 * L);
  // On one 25 Gb/s NIC per node, fully sharded gathers crossing 16 nodes
  // for every layer cost more than HSDP's one all-reduce per layer.
  Scenario slow = LoadScenario(kRoot + "/tests/data/stacks/fms_llama2_7b_hsdp_128xA100.yaml",
                               {"cluster.node.nics.count=1", "cluster.node.nics.bandwidth=25Gbps"});
  Scenario full = slow;
  full.parallel.hsdp = 0;
  const TaskTimes th = RunWorkload(slow, BuildWorkload(slow)), tf = RunWorkload(full, BuildWorkload(full));
  EXPECT_LT(th.makespan_s, 0.8 * tf.makespan_s);
}

// TP overlap: the sequence-parallel reduce-scatters and all-gathers start
// with the segment's compute (they wait for what it waits for) and a join
// ends the segment when both have; the step is shorter and its exposed TP
// communication smaller (NeMo's Llama-2-70B SFT on 16 H100s, TP4 PP4 VP5,
// whose recipe overlaps).
TEST(Workload, TpOverlapRunsTheCollectivesBesideTheCompute) {
  const std::string file = kRoot + "/tests/data/stacks/nemo_llama2_70b_sft.yaml";
  Scenario plain = LoadScenario(file, {"parallel.tp_overlap=false"}), overlapped = LoadScenario(file);
  const preflight::Workload a = BuildWorkload(plain), b = BuildWorkload(overlapped);
  int scatters = 0;
  for (const auto& t : b.tasks()) {
    if (t.name() != "sp_scatter_fwd" && t.name() != "sp_scatter_bwd") continue;
    ++scatters;
    for (int d : t.deps()) EXPECT_NE(b.tasks(d).name(), t.name().substr(11)) << "waits for its own segment";
  }
  EXPECT_GT(scatters, 0);
  EXPECT_EQ(Count(b, "tp_overlap_join"), scatters);
  const TaskTimes ta = RunWorkload(plain, a), tb = RunWorkload(overlapped, b);
  EXPECT_LT(tb.makespan_s, ta.makespan_s);
  EXPECT_LT(AccountTime(b, tb, true).tp_comm.value(), AccountTime(a, ta, true).tp_comm.value());
}

// Context parallelism: the CP ranks of a sequence sit next to one another
// after the TP ranks; each exchanges K and V with its group once per layer
// forward and twice per layer backward, beside its compute; each rank's
// forward does 1/cp of the sequence's GEMMs and of its causal attention.
TEST(Workload, ContextParallelExchangesKvInItsGroup) {
  const std::string file = kRoot + "/tests/data/recipes/nemo_cp_llama2_7b_128k.yaml";
  const Scenario cp = LoadScenario(file);
  const preflight::Workload w = BuildWorkload(cp);
  const int L = cp.model.layers, M = cp.training.micro_batches_per_step(cp.parallel.dp);
  const int workers = cp.parallel.dp * cp.parallel.cp;  // 32 TP groups of 4
  EXPECT_EQ(w.workers_size(), workers);
  double fwd = 0, bwd = 0;
  for (const auto& t : w.tasks()) {
    if (t.name() != "cp_kv_fwd" && t.name() != "cp_kv_bwd") continue;
    (t.name() == "cp_kv_fwd" ? fwd : bwd) += t.collective().count();
    EXPECT_EQ(t.category(), preflight::CP_COMM);
    ASSERT_EQ(t.collective().gpus_size(), 4);
    // TP4: a group's lane-0 GPUs are 4 apart, its first a multiple of 16.
    for (int k = 0; k < 4; ++k) EXPECT_EQ(t.collective().gpus(k), t.collective().gpus(0) + 4 * k);
    EXPECT_EQ(t.collective().gpus(0) % 16, 0);
  }
  // One exchange per CP group (of 4 workers), not one per worker.
  const int groups = workers / cp.parallel.cp;
  EXPECT_EQ(fwd, double(groups) * M * L);
  EXPECT_EQ(bwd, 2.0 * groups * M * L);
  // The same 128K sequence on one rank (cp 1, dp 32): 4x each rank's
  // forward work, to within the embedding and head.
  Scenario whole = LoadScenario(file, {"parallel.cp=1", "parallel.dp=32", "training.global_batch=128"});
  const StageCost a = CostOfStage(ContextRankView(cp), 0), b = CostOfStage(whole, 0);
  EXPECT_NEAR(b.fwd.flops / a.fwd.flops, 4.0, 0.05);
}

// The K/V exchange is its own part of the step: at 128K tokens the
// attention hides it; at 8K across two nodes (TP4 CP4) on 400 Gb/s NICs it
// hides too (one exchange per CP group, under the FP8 layer's compute); on
// 100 Gb/s NICs it cannot and shows as exposed CP comm (over 30%).
TEST(Workload, ContextParallelExchangeShowsAsCpComm) {
  const std::string file = kRoot + "/tests/data/recipes/nemo_cp_llama2_7b_128k.yaml";
  auto share = [&](std::vector<std::string> flags) {
    const Scenario s = LoadScenario(file, flags);
    const preflight::Workload w = BuildWorkload(s);
    const TaskTimes t = RunWorkload(s, w);
    return AccountTime(w, t, false).cp_comm.value() / t.makespan_s;
  };
  EXPECT_LT(share({"training.seq_len=131072"}), 0.01);
  EXPECT_LT(share({"training.seq_len=8192"}), 0.05);
  EXPECT_GT(share({"training.seq_len=8192", "cluster.node.nics.bandwidth=100Gbps"}), 0.3);
}

TEST(Workload, ZeroThreeGathersEveryLayerAndPrefetchesOneAhead) {
  Scenario s = LoadScenario(kRoot + "/scenarios/foundry_mpt7b_8xA100.yaml");
  preflight::Workload w = BuildWorkload(s);
  const int M = s.training.micro_batches_per_step(s.parallel.dp);
  EXPECT_EQ(Count(w, "zero3_gather_fwd"), M * s.model.layers);
  EXPECT_EQ(Count(w, "zero3_reduce_scatter"), M * s.model.layers);
  TaskTimes t = RunWorkload(s, w);
  // Gather k+2 never starts before GPU 0's compute segment k has ended.
  std::vector<int> gathers, computes;
  for (int i = 0; i < w.tasks_size(); ++i) {
    const auto& task = w.tasks(i);
    if (task.name() == "zero3_gather_fwd" || task.name() == "zero3_gather_bwd") gathers.push_back(i);
    if (task.has_compute() && task.compute().gpu() == 0 && task.category() == preflight::COMPUTE)
      computes.push_back(i);
  }
  ASSERT_EQ(gathers.size(), computes.size());
  for (size_t k = 0; k + 2 < gathers.size(); ++k)
    EXPECT_GE(t.start_s[gathers[k + 2]], t.end_s[computes[k]] - 1e-12) << k;
}

// DeepSpeed under full recompute: a GPT-3 175B block (1.8e9 parameters)
// is past the 1e9 reuse distance, so the recomputed forward's fetches are
// released and the backward fetches the block again (twice the backward's
// gathers); FSDP keeps the recompute's gather for the backward, and a 7B
// block (2e8) stays within the distance.
TEST(Workload, DeepSpeedRegathersBlocksPastItsReuseDistance) {
  const std::string file = kRoot + "/tests/data/recipes/ds_zero3_gpt3_175b_1024xA100_mb1.yaml";
  auto backward_fetches = [&](std::vector<std::string> flags) {
    const Scenario s = LoadScenario(file, flags);
    const preflight::Workload w = BuildWorkload(s);
    double fwd = 0, bwd = 0;
    for (const auto& t : w.tasks()) {
      if (t.name() == "zero3_gather_fwd") fwd += t.collective().count();
      if (t.name() == "zero3_gather_bwd") bwd += t.collective().count();
    }
    return bwd / fwd;
  };
  const std::vector<std::string> small = {"cluster.nodes=2", "parallel.dp=16", "training.global_batch=16"};
  std::vector<std::string> fsdp = small, seven = small, selective = small;
  fsdp.push_back("training.stack=fsdp");
  seven.push_back("model=llama2-7b");
  selective.push_back("training.recompute=selective");
  EXPECT_DOUBLE_EQ(backward_fetches(small), 2);
  EXPECT_DOUBLE_EQ(backward_fetches(fsdp), 1);
  EXPECT_DOUBLE_EQ(backward_fetches(seven), 1);
  EXPECT_DOUBLE_EQ(backward_fetches(selective), 1);
}

TEST(Workload, SelectiveRecomputeRepeatsOnlyTheAttentionCore) {
  const std::string file = kRoot + "/scenarios/megatron_1p7b_32xA100.yaml";
  auto backward = [&](const char* recompute) {
    Scenario s = LoadScenario(file, {std::string("training.recompute=") + recompute});
    const preflight::Workload w = BuildWorkload(s);
    for (const auto& t : w.tasks())
      if (t.name() == "bwd") return t.compute().duration_s();
    return 0.0;
  };
  const double none = backward("none"), selective = backward("selective"), full = backward("full");
  EXPECT_GT(selective, none);
  EXPECT_LT(selective - none, 0.5 * (full - none));  // the attention core, not the whole layer
}

// The fitted in-training rate (topologies/gpus.yaml training_rate) slows
// the clock-bound kernels, GEMMs and attention, and no HBM-bound one.
TEST(Workload, TrainingRateSlowsClockBoundKernelsOnly) {
  GpuSpec g = GpuCatalog().at("H100-SXM5-80GB");
  ASSERT_TRUE(g.training_rate.has_value());
  const double rate = *g.training_rate;
  GpuSpec bench = g;
  bench.training_rate.reset();
  const Op gemm{"g", OpKind::kGemm, Flops(1e15), Bytes(0)};
  const Op attention{"a", OpKind::kAttention, Flops(1e15), Bytes(0)};
  const Op copy{"c", OpKind::kMemory, Flops(0), Bytes(1e12)};
  for (const Op& op : {gemm, attention})
    EXPECT_NEAR(OpTime(op, g, Precision::kBf16, {}) / OpTime(op, bench, Precision::kBf16, {}), 1 / rate, 1e-6) << op.name;
  EXPECT_DOUBLE_EQ(OpTime(copy, g, Precision::kBf16, {}).value(), OpTime(copy, bench, Precision::kBf16, {}).value());
}

// torchtitan's op-level policy (model_math.h OpCheckpointRecomputed): the
// second and fourth of a fused block's four matmuls (the attention output
// and MLP down projections) and every elementwise op run again; the
// attention kernel and the other matmuls are kept. It costs more than
// selective and less than full recompute, and keeps activations between.
TEST(Workload, OpLevelCheckpointRecomputesEverySecondMatmul) {
  const std::string file = kRoot + "/tests/data/recipes/tt_llama3_8b_64xA100.yaml";
  const Scenario s = LoadScenario(file);
  ASSERT_EQ(s.training.recompute, Recompute::kSelectiveOp);
  const auto fwd = LayerOps(s.model, s.training, 1, Pass::kForward, false);
  std::vector<std::string> matmuls, again;
  int elementwise = 0, attention = 0;
  for (const Op& op : fwd) {
    if (op.kind == OpKind::kGemm && op.m > 0) matmuls.push_back(op.name);
    if (op.kind == OpKind::kMemory) ++elementwise;
  }
  for (const Op& op : OpCheckpointRecomputed(fwd)) {
    if (op.kind == OpKind::kGemm) again.push_back(op.name);
    if (op.kind == OpKind::kAttention) ++attention;
    if (op.kind == OpKind::kMemory) --elementwise;
  }
  ASSERT_GE(matmuls.size(), 4u);
  std::vector<std::string> every_second;
  for (size_t i = 1; i < matmuls.size(); i += 2) every_second.push_back(matmuls[i]);
  EXPECT_EQ(again, every_second);
  EXPECT_EQ(attention, 0);
  EXPECT_EQ(elementwise, 0);  // all of them again
  auto run = [&](const char* recompute) {
    const Scenario c = LoadScenario(file, {std::string("training.recompute=") + recompute});
    double bwd = 0;
    const preflight::Workload w = BuildWorkload(c);
    for (const auto& t : w.tasks())
      if (t.name() == "bwd") bwd += t.compute().duration_s();
    return std::pair{bwd, EstimateMemory(c).activations.value()};
  };
  const auto [sel_t, sel_m] = run("selective");
  const auto [op_t, op_m] = run("selective_op");
  const auto [full_t, full_m] = run("full");
  EXPECT_GT(op_t, sel_t);
  EXPECT_LT(op_t, full_t);
  EXPECT_LT(op_m, sel_m);
  EXPECT_GT(op_m, full_m);
}

TEST(Workload, Fp8UsesTheMeasuredFp8GemmFraction) {
  Scenario s = LoadScenario(kRoot + "/scenarios/foundry_mpt7b_8xA100.yaml",
                            {"cluster.node=h100-sxm-8x", "training.precision=fp8"});
  EXPECT_DOUBLE_EQ(GemmEfficiency(s.cluster.node.gpu, Precision::kFp8), 0.709);
  EXPECT_DOUBLE_EQ(GemmEfficiency(s.cluster.node.gpu, Precision::kBf16), 0.803);
  // A GEMM-bound kernel gains 2 x 0.709/0.803 = 1.77x from fp8, attention nothing.
  Op gemm{"g", OpKind::kGemm, Flops(1e15), Bytes(0)};
  Op attention{"a", OpKind::kAttention, Flops(1e15), Bytes(0)};
  const GpuSpec& g = s.cluster.node.gpu;
  EXPECT_NEAR(OpTime(gemm, g, Precision::kBf16, {}) / OpTime(gemm, g, Precision::kFp8, {}), 2 * 0.709 / 0.803, 1e-3);
  EXPECT_NEAR(OpTime(attention, g, Precision::kBf16, {}) / OpTime(attention, g, Precision::kFp8, {}), 1.0, 1e-9);
  // FP8 layers pay for casting their GEMM inputs, with the transposed copy
  // Hopper's weight gradient needs: 4 B per input element.
  auto cast_bytes = [&](const Scenario& sc) {
    for (const Op& op : LayerOps(sc.model, sc.training, 1, Pass::kForward, false))
      if (op.name == "fp8_cast") return op.bytes.value();
    return 0.0;
  };
  const double tokens = double(s.training.micro_batch) * s.training.seq_len;
  const double h = s.model.hidden, f = s.model.ffn;
  EXPECT_DOUBLE_EQ(cast_bytes(s), 4 * tokens * (3 * h + f));
  Scenario bf16 = s;
  bf16.training.precision = Precision::kBf16;
  EXPECT_EQ(cast_bytes(bf16), 0.0);
}

TEST(Workload, RejectsMoreGpusPerNodeThanTheBoxHas) {
  ExpectRejected(kRoot + "/scenarios/70b_8xA800_tp8.yaml", {"cluster.gpus_per_node=16"},
                 "--set cluster.gpus_per_node=16: cluster.gpus_per_node: 16 is out of range "
                 "(must be between 1 and 8)");
}

TEST(Workload, RejectsClustersPastTheSimulatedSize) {
  ExpectRejected(kRoot + "/scenarios/70b_8xA800_tp8.yaml", {"cluster.nodes=4096"},
                 "cluster.nodes: 4096 nodes x 8 GPUs = 32768 GPUs; Preflight simulates up to 16384");
}

TEST(Workload, RejectsZeroTwoWithoutOverlap) {
  ExpectRejected(kRoot + "/scenarios/foundry_mpt7b_8xA100.yaml",
                 {"parallel.zero=2", "parallel.dp_overlap=false"},
                 "parallel.dp_overlap: false cannot be combined with ZeRO stage 2");
}

}  // namespace
}  // namespace pf

namespace pf {
namespace {

TEST(Schedule, InterleavedRunsEveryChunkOfEveryMicroBatchOnceEachWay) {
  const int stages = 4, M = 8, V = 3;
  for (int st = 0; st < stages; ++st) {
    std::vector<PipeOp> order = PipelineOrder(st, stages, M, V);
    ASSERT_EQ(order.size(), size_t(2 * M * V));
    std::map<std::pair<int, int>, int> fwd_at, bwd_at;
    for (size_t i = 0; i < order.size(); ++i) {
      auto key = std::make_pair(order[i].micro_batch, order[i].chunk);
      auto& slot = order[i].forward ? fwd_at : bwd_at;
      EXPECT_EQ(slot.count(key), 0u) << "stage " << st << " repeats a chunk";
      slot[key] = int(i);
    }
    EXPECT_EQ(fwd_at.size(), size_t(M * V));
    for (auto& [key, i] : bwd_at) EXPECT_LT(fwd_at[key], i);
    // Megatron's warm-up: (stages - st - 1) x 2 + (V - 1) x stages forwards.
    int warmup = 0;
    while (order[warmup].forward) ++warmup;
    EXPECT_EQ(warmup, (stages - st - 1) * 2 + (V - 1) * stages + 1);  // + the first steady forward
  }
}

TEST(Schedule, InterleavingShrinksTheBubble) {
  auto bubble = [](int vp) {
    Scenario s = LoadScenario(kRoot + "/scenarios/megatron_39p1b_512xA100.yaml",
                              {"cluster.nodes=4", "parallel.dp=2", "training.global_batch=16",
                               "parallel.vp=" + std::to_string(vp)});
    preflight::Workload w = BuildWorkload(s);
    TaskTimes t = RunWorkload(s, w);
    return AccountTime(w, t, true).bubble.value();
  };
  const double one = bubble(1), two = bubble(2);
  EXPECT_LT(two, 0.75 * one);  // (p - 1) / (v m): about half
}

TEST(Schedule, InterleavingNeedsPipelineAndDivisibleMicroBatches) {
  const std::string file = kRoot + "/scenarios/megatron_39p1b_512xA100.yaml";
  EXPECT_THROW(LoadScenario(file, {"parallel.pp=1", "parallel.dp=64", "parallel.vp=2",
                                   "training.global_batch=1536"}), InputError);
  ExpectRejected(file, {"cluster.nodes=2", "parallel.dp=1", "training.global_batch=3", "parallel.vp=2"},
                 "needs micro-batches per step (3) to be a multiple of pp (2)");
}

}  // namespace
}  // namespace pf

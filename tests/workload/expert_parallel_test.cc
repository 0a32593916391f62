// Expert parallelism in the task graph: the token all-to-alls per layer over
// each EP group (shared by its workers, spanning TP ranks when experts are
// whole on one GPU), the experts' gradients reduced over their expert-DP
// groups only, and the all-to-all's flows over the links it really crosses.
#include <gtest/gtest.h>

#include <set>

#include "sim/collectives/flows.h"
#include "sim/job/simulate.h"
#include "sim/model/memory_model.h"
#include "sim/model/model_math.h"
#include "sim/model/moe.h"
#include "sim/model/memory_model.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/workload/stage_cost.h"
#include "sim/workload/workload_builder.h"
#include "tests/test_util.h"

namespace pf {
namespace {

const std::string kMixtral = testing_util::kRoot + "/tests/data/recipes/mlm_moe_mixtral_8x7b_64xH100.yaml";

// Mixtral 8x7B on two nodes, TP2 with whole experts on each GPU (expert TP
// 1): an EP group of 8 GPUs is 4 TP groups.
const std::vector<std::string> kWholeExperts = {"cluster.nodes=2",       "parallel.tp=2", "parallel.sp=true",
                                                "parallel.pp=1",         "parallel.vp=1", "parallel.dp=8",
                                                "parallel.expert_tp=1",  "training.global_batch=32"};

TEST(ExpertParallel, MixtralCountsAsPublished) {
  const ModelSpec m = LoadScenario(kMixtral).model;
  // The Hugging Face checkpoint's tensors (Jiang et al. 2024: 46.7B, 12.9B active).
  EXPECT_DOUBLE_EQ(CountParams(m).total(m.layers), 46702792704.0);
  EXPECT_DOUBLE_EQ(CountParams(m).active(m.layers), 12879925248.0);
  // Forward FLOPs per token: 2 x the active weights a token multiplies by
  // (the router's included), plus attention.
  const TokenFlops f = ForwardFlopsPerToken(m, 4096);
  const ParamCount pc = CountParams(m);
  EXPECT_NEAR(f.layer_matmul, 2 * (pc.active_per_layer - 2 * m.hidden), 1);  // less the 2 RMSNorm weights
}

// DeepSeek-V2-Lite by hand (its config: MLA without query compression,
// the first layer dense): attention q 2048 x 16 x 192 + kv_a 2048 x (512 +
// 64) + its norm 512 + kv_b 512 x 16 x (128 + 128) + o 16 x 128 x 2048 =
// 13,763,072; a sparse layer adds the router 2048 x 64, 64 + 2 experts of
// 3 x 2048 x 1408 and two norms (584,847,872), the dense one 3 x 2048 x
// 10944 and the norms (81,007,104); 26 + 1 of them, the embedding and the
// LM head 102400 x 2048 each, the final norm: 15,706,484,224 (the Hub's
// 15.7B).
TEST(ExpertParallel, DeepSeekV2LiteCountsMlaAndItsDenseFirstLayer) {
  const std::string base = testing_util::kRoot + "/scenarios/70b_8xA800_tp8.yaml";
  const std::vector<std::string> sets = {"model={hf_config: deepseek-v2-lite}", "parallel.tp=1", "parallel.pp=3",
                                         "parallel.dp=1", "cluster.gpus_per_node=3", "parallel.zero=0",
                                         "training.method=full", "training.global_batch=6"};
  const Scenario s = LoadScenario(base, sets);
  const ModelSpec& m = s.model;
  const ParamCount pc = CountParams(m);
  EXPECT_DOUBLE_EQ(pc.total(m.layers), 15706484224.0);
  EXPECT_DOUBLE_EQ(pc.dense_per_layer, 81007104.0);
  EXPECT_DOUBLE_EQ(pc.per_layer, 584847872.0);
  // The MLA GEMMs of a layer: 2 FLOPs per weight and token.
  double gemm = 0;
  for (const Op& op : LayerOps(m, s.training, 1, Pass::kForward, false))
    if (op.name == "q_proj" || op.name.rfind("kv_", 0) == 0 || op.name == "attn_proj") gemm += op.flops.value();
  EXPECT_DOUBLE_EQ(gemm, 2 * (13763072.0 - 512) * s.training.tokens_per_micro_batch());
  // Stage 0 of 3 holds the dense layer (9 layers, 1 dense), the others none.
  const StageCost first = CostOfStage(s, 0), second = CostOfStage(s, 1);
  EXPECT_EQ(first.layers, 9);
  EXPECT_EQ(first.dense_layers, 1);
  EXPECT_EQ(second.dense_layers, 0);
  EXPECT_DOUBLE_EQ(ParamsPerTpRank(m, s.parallel, 0).layers, 8 * 584847872.0 + 81007104.0);
  // Forward FLOPs per token over the model: the dense layer's MLP counted once.
  const TokenFlops f = ForwardFlopsPerToken(m, s.training.seq_len);
  EXPECT_NEAR(f.layer_matmul * m.layers,
              2 * (27 * (13763072.0 - 512) + 26 * (2048 * 64 + 8 * 3 * 2048 * 1408.0) + 3 * 2048 * 10944.0), 1);
}

TEST(ExpertParallel, AllToAllsPerLayerOverEachEpGroup) {
  const Scenario s = LoadScenario(kMixtral);
  const preflight::Workload w = BuildWorkload(s);
  const int M = s.training.micro_batches_per_step(s.parallel.dp), L = s.model.layers;
  const int blocks = s.parallel.dp / s.parallel.ep_workers();  // EP groups per stage
  double fwd = 0, bwd = 0;
  for (const auto& t : w.tasks()) {
    if (t.category() != preflight::EP_COMM) continue;
    ASSERT_EQ(t.collective().kind(), preflight::ALL_TO_ALL);
    (t.name() == "ep_all_to_all_fwd" ? fwd : bwd) += t.collective().count();
    ASSERT_EQ(t.collective().gpus_size(), 8);  // TP1: 8 consecutive GPUs, one node
    for (int k = 0; k < 8; ++k) EXPECT_EQ(t.collective().gpus(k), t.collective().gpus(0) + k);
    EXPECT_EQ(t.collective().gpus(0) % 8, 0);
    EXPECT_EQ(t.collective().lanes(), 1u);
    // Each carries the GPU's 4096 tokens x 2 copies of 4096 bf16 values.
    EXPECT_DOUBLE_EQ(t.collective().size_bytes(), 4096.0 * 2 * 4096 * 2);
  }
  EXPECT_EQ(fwd, 2.0 * blocks * M * L);  // dispatch + combine per layer, every stage's layers once
  EXPECT_EQ(bwd, 2.0 * blocks * M * L);
}

TEST(ExpertParallel, WholeExpertsSpanTheTpRanks) {
  const Scenario s = LoadScenario(kMixtral, kWholeExperts);
  EXPECT_EQ(s.parallel.ep_workers(), 4);
  EXPECT_EQ(s.parallel.expert_dp(), 2);
  const preflight::Workload w = BuildWorkload(s);
  std::set<uint32_t> firsts;
  for (const auto& t : w.tasks()) {
    if (t.category() != preflight::EP_COMM) continue;
    ASSERT_EQ(t.collective().gpus_size(), 8);  // every GPU of 4 TP groups, one lane
    EXPECT_EQ(t.collective().lanes(), 1u);
    for (int k = 0; k < 8; ++k) EXPECT_EQ(t.collective().gpus(k), t.collective().gpus(0) + k);
    firsts.insert(t.collective().gpus(0));
  }
  EXPECT_EQ(firsts, (std::set<uint32_t>{0, 8}));  // one EP group per node
  // No TP collective around the experts: one reduce-scatter + all-gather
  // pair per layer (attention), not two.
  const StageCost c = CostOfStage(s, 0);
  EXPECT_EQ(c.tp_fwd, s.model.layers + 1);
  // The experts' gradients: over the GPUs holding the same experts, GPU g
  // with g + 8 (lane 0 of TP groups 0 and 4, lanes tp).
  int reductions = 0;
  for (const auto& t : w.tasks()) {
    if (t.name() != "ep_expert_grad_reduce") continue;
    ++reductions;
    ASSERT_EQ(t.collective().gpus_size(), 2);
    EXPECT_EQ(t.collective().gpus(1) - t.collective().gpus(0), 8u);
    EXPECT_EQ(t.collective().lanes(), 2u);
    EXPECT_DOUBLE_EQ(t.collective().size_bytes(), c.expert_params * 4);  // fp32 gradients (stack.h)
  }
  EXPECT_EQ(reductions, s.parallel.ep_workers());  // one per group, after the last backward
}

// Whatever reduces the dense gradients, the experts' are reduced too: by
// bucket in the last backward, or after the flush (DeepSpeed's pipeline).
TEST(ExpertParallel, ExpertGradientsAreReducedUnderEveryGradientPath) {
  for (const char* stack : {"training.stack=megatron", "training.stack=deepspeed"}) {
    const Scenario s = LoadScenario(kMixtral, {stack, "parallel.vp=1"});
    int reductions = 0;
    const preflight::Workload w = BuildWorkload(s);
    for (const auto& t : w.tasks()) reductions += t.name() == "ep_expert_grad_reduce";
    EXPECT_EQ(reductions, s.parallel.pp * s.parallel.ep_workers()) << stack;  // a stage's groups, once
  }
}

TEST(ExpertParallel, ExpertsSplitTheirWeightsAndShardTheirStatesOverExpertDp) {
  const Scenario s = LoadScenario(kMixtral, kWholeExperts);
  const ModelSpec& m = s.model;
  const ParamCount pc = CountParams(m);
  const StageParams held = ParamsPerTpRank(m, s.parallel, 0);
  // One of 8 experts per GPU, whole; the rest split over TP2.
  EXPECT_DOUBLE_EQ(held.experts, pc.routed_per_layer / 8 * m.layers);
  EXPECT_DOUBLE_EQ(held.layers, (pc.per_layer - pc.routed_per_layer) * m.layers / 2 + held.experts);
  // Distributed optimizer: 12 B per parameter, the dense ones over the 8 DP
  // ranks, the experts over their 2 replicas.
  const MemoryBreakdown mem = EstimateMemory(s);
  const double dense = held.total() - held.experts;
  EXPECT_NEAR(mem.optimizer.value(), 12 * (dense / 8 + held.experts / 2), 1);
  EXPECT_NEAR(mem.weights.value(), 2 * held.total(), 1);
}

TEST(ExpertParallel, ImbalanceSlowsTheBusiestRanksExpertsAndItsAllToAll) {
  const Scenario even = LoadScenario(kMixtral);
  const Scenario hot = LoadScenario(kMixtral, {"training.expert_imbalance=1.5"});
  const StageCost a = CostOfStage(even, 1), b = CostOfStage(hot, 1);
  EXPECT_DOUBLE_EQ(b.ep_bytes.value() / a.ep_bytes.value(), 1.5);
  EXPECT_GT(b.fwd.seconds.value(), 1.2 * a.fwd.seconds.value());  // the experts are most of a layer
  // A capacity factor pads every expert to it, dropping what is past it.
  const Scenario padded = LoadScenario(kMixtral, {"training.capacity_factor=1.25", "training.expert_imbalance=1.5"});
  EXPECT_DOUBLE_EQ(CostOfStage(padded, 1).ep_bytes.value() / a.ep_bytes.value(), 1.25);
}

TEST(ExpertParallel, GroupLimitedRoutingBoundsTheNodesATokenReaches) {
  // DeepSeek-V3: 256 experts in 8 groups, a token's 8 from its best 4; at
  // EP64 over 8 nodes a group is a node. A node is missed when its group is
  // not chosen (1/2), or is and none of the 8 (of the 4 groups' 128) lands
  // on its 32: C(96,8)/C(128,8).
  MoeSpec v3{256, 8, 2048, 1, 2048, 3};
  double miss = 1;
  for (int i = 0; i < 8; ++i) miss *= (96.0 - i) / (128 - i);
  v3.groups = 8, v3.group_topk = 4;
  EXPECT_NEAR(NodesPerToken(v3, 8), 8 * (1 - (0.5 + 0.5 * miss)), 1e-12);  // 3.63
  MoeSpec free = v3;
  free.groups = free.group_topk = 0;
  double miss_free = 1;
  for (int i = 0; i < 8; ++i) miss_free *= (224.0 - i) / (256 - i);
  EXPECT_NEAR(NodesPerToken(free, 8), 8 * (1 - miss_free), 1e-12);  // unlimited: 5.29
  // 16 nodes, a group on two: a node is missed when its group is not
  // chosen or none of the 8 lands on its 16 of the 128.
  double miss16 = 1;
  for (int i = 0; i < 8; ++i) miss16 *= (112.0 - i) / (128 - i);
  EXPECT_NEAR(NodesPerToken(v3, 16), 16 * (1 - (0.5 + 0.5 * miss16)), 1e-12);
  // Nodes a multiple of the groups: 8 experts in 2 groups over 4 nodes, top
  // 2 from 1 group: its 2 nodes, both when the 2 of its 4 experts differ
  // in node (4 of 6 pairs): 2 x 4/6 + 1 x 2/6 = 5/3.
  MoeSpec small{8, 2, 512, 0, 0};
  small.groups = 2, small.group_topk = 1;
  EXPECT_NEAR(NodesPerToken(small, 4), 5.0 / 3, 1e-12);
  // Groups and nodes that do not nest, against an exact enumeration of the
  // token's group choices (each node's share of their experts): 12 experts
  // in 2 groups over 3 nodes, top 2 from 1; DeepSeek-V2's 160 experts in 8
  // groups, top 6 from 3, over 5 nodes; 24 in 6 groups, top 4 from 2, over 4.
  MoeSpec odd{12, 2, 512, 0, 0};
  const double unlimited = NodesPerToken(odd, 3);
  odd.groups = 2, odd.group_topk = 1;
  EXPECT_NEAR(NodesPerToken(odd, 3), 1.5333333333333332, 1e-12);
  MoeSpec v2{160, 6, 1536, 2, 1536};
  v2.groups = 8, v2.group_topk = 3;
  EXPECT_NEAR(NodesPerToken(v2, 5), 2.862632131955354, 1e-12);
  MoeSpec six{24, 4, 512, 0, 0};
  six.groups = 6, six.group_topk = 2;
  EXPECT_NEAR(NodesPerToken(six, 4), 2.156190476190476, 1e-12);
  // Every group chosen is no limit.
  odd.group_topk = 2;
  EXPECT_FALSE(odd.group_limited());
  EXPECT_DOUBLE_EQ(NodesPerToken(odd, 3), unlimited);
}

TEST(ExpertParallel, DeepEpSendsATokenOncePerNodeAndFansItOutOverNvlink) {
  // Top 2 of 8 experts, 4 per node on 2 nodes: a token misses a node with
  // probability C(4,2)/C(8,2) = 6/28.
  const MoeSpec x{8, 2, 14336, 0, 0};
  EXPECT_DOUBLE_EQ(NodesPerToken(x, 2), 2 * (1 - 6.0 / 28));
  EXPECT_DOUBLE_EQ(NodesPerToken(x, 1), 1);
  // Mixtral EP16 is refused (8 experts); Qwen3-30B-A3B's 128 experts over
  // 2 nodes: a token's 8 copies (4 of them remote on average) cross once.
  const std::string qwen = testing_util::kRoot + "/tests/data/recipes/mb2604_qwen3_30b_a3b_16xH100.yaml";
  const Scenario s = LoadScenario(qwen, {"parallel.ep_dispatcher=deepep"});
  const StageCost c = CostOfStage(s, 0);
  const double d = NodesPerToken(s.model.moe, 2);
  const preflight::Workload w = BuildWorkload(s);
  int rails = 0, nodes = 0;
  for (const auto& t : w.tasks()) {
    if (t.category() != preflight::EP_COMM) continue;
    if (t.name().rfind("ep_rdma", 0) == 0) {
      ++rails;
      ASSERT_EQ(t.collective().gpus_size(), 2);  // local rank 0 of each node, lanes the other 7
      EXPECT_EQ(t.collective().gpus(1) - t.collective().gpus(0), 8u);
      EXPECT_EQ(t.collective().lanes(), 8u);
      // A GPU sends half its buffer away: (d - d/2) remote nodes per token.
      EXPECT_NEAR(t.collective().size_bytes() / 2, c.ep_bytes.value() / 8 * (d - d / 2), 1);
    } else {
      ++nodes;
      EXPECT_EQ(t.name().rfind("ep_nvlink", 0), 0u);
      ASSERT_EQ(t.collective().gpus_size(), 8);  // one node
      EXPECT_EQ(t.collective().gpus(0) % 8, 0u);
      EXPECT_DOUBLE_EQ(t.collective().size_bytes(), c.ep_bytes.value());
    }
  }
  EXPECT_GT(rails, 0);
  EXPECT_EQ(nodes, 2 * rails);
  // The all-to-all dispatcher sends 4 remote copies of a token; DeepEP
  // about 1: the step is shorter.
  const Result a = Simulate(LoadScenario(qwen, {"parallel.ep_dispatcher=all_to_all"}));
  const Result b = Simulate(s);
  ASSERT_TRUE(a.step && b.step);
  EXPECT_LT(b.step->breakdown.ep_comm.value(), 0.5 * a.step->breakdown.ep_comm.value());
}

// LoRA on a mixture of experts (PEFT, without expert parallelism): every
// expert's gate, up and down carry adapters of their own, each run on its
// share of the tokens; Hugging Face's loop over the experts is a kernel
// per expert and op. Rank 16 on Mixtral: attention 16 x (8192 + 5120 +
// 5120 + 8192) = 425,984 a layer, the 8 experts' 8 x 3 x 16 x (4096 +
// 14336) = 7,077,888; x 32 layers (the router is not adapted).
TEST(ExpertParallel, LoraAdaptsEveryExpertAndRunsEachOnItsTokens) {
  const std::string base = testing_util::kRoot + "/scenarios/70b_8xA800.yaml";  // LLaMA-Factory, ZeRO-3 DP8
  const Scenario s = LoadScenario(base, {"model={hf_config: mixtral-8x7b-v0.1}"});
  EXPECT_DOUBLE_EQ(TrainableParams(s), 32 * (425984.0 + 7077888.0));
  // FLOPs a token runs through adapters: its 2 experts' of 8.
  EXPECT_DOUBLE_EQ(AdapterTokenWidthPerLayer(s.model, s.training), 26624 + 2 * 3 * 18432.0);
  int lora = 0, index = 0;
  for (const Op& op : LayerOps(s.model, s.training, 1, Pass::kForward, true)) {
    lora += op.name.rfind("lora_", 0) == 0;
    index += op.name == "expert_index";
  }
  EXPECT_EQ(lora, 4 * 4 + 8 * 3 * 4);  // PEFT: A, B, scale and add per adapted linear and expert
  EXPECT_EQ(index, 8);
  const Result r = Simulate(s);
  ASSERT_TRUE(r.step) << "fits: ZeRO-3 shards the experts with the rest";
  EXPECT_TRUE(r.memory.fits);
}

TEST(ExpertParallel, AllToAllFlowsCarryEachGpusRemoteShareOverItsRail) {
  // 32 GPUs on 4 nodes of 8: each sends S/32 to each rank, 7 of them on
  // its node and 24 on the 3 others.
  std::vector<int> group;
  for (int g = 0; g < 32; ++g) group.push_back(g);
  const Bytes S(32e6);
  double local = 0, remote = 0;
  std::vector<double> out(32), in(32);
  for (const Flow& f : CollectiveFlows(CollectiveKind::kAllToAll, Algorithm::kRing, group, 8, S)) {
    const bool across = f.src / 8 != f.dst / 8;
    (across ? remote : local) += f.bytes.value();
    if (!across) continue;
    EXPECT_EQ(f.dst % 8, f.src % 8);  // over its own rail
    out[f.src] += f.bytes.value(), in[f.dst] += f.bytes.value();
  }
  EXPECT_DOUBLE_EQ(local, 32 * 7e6);
  EXPECT_DOUBLE_EQ(remote, 32 * 24e6);
  for (int g = 0; g < 32; ++g) {  // every NIC alike
    EXPECT_DOUBLE_EQ(out[g], 24e6);
    EXPECT_DOUBLE_EQ(in[g], 24e6);
  }
}

}  // namespace
}  // namespace pf

// bitsandbytes' optimizers (training.optimizer, model/optimizer.h): their
// moments against published savings, their paged states outside PyTorch's
// allocator and evicted when the GPU runs out, their step one tensor at a
// time, the fit suggestion, and the messages for where they do not run.
#include <string>

#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/model/checkpoint_size.h"
#include "sim/model/compute_model.h"
#include "sim/model/fit_suggestions.h"
#include "sim/model/host_memory.h"
#include "sim/model/memory_model.h"
#include "sim/model/model_math.h"
#include "sim/model/optimizer.h"
#include "sim/model/stack.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/job/stack_test_util.h"
#include "tests/test_util.h"

namespace pf {
namespace {

using testing_util::LoadError;
using testing_util::ScenarioPath;

double Gib(Bytes b) { return b.value() / kGiB; }

// torchao's benchmark of torchtune 52d1b838 (torchao/optim/README.md,
// "Fine-tune Llama2-7B on Alpaca", PyTorch 2.4, full BF16, one A100):
// peak memory allocated 51.6 with torch's fused AdamW, 39.3 with
// bitsandbytes' 8-bit AdamW. torchtune logs torch.cuda.max_memory_allocated
// / 1024^3 (training/memory.py get_memory_stats), so the saving is
// 12.3 GiB: Llama-2-7B's moments in bf16 (4 B a parameter) against 8-bit
// ones with their block scales (2.03 B). The batch is not stated; the
// moments are alive in every phase, so the saving does not depend on it.
TEST(BnbOptimizer, EightBitMomentsSaveWhatTorchaoMeasured) {
  const std::vector<std::string> llama2 = {"model=llama2-7b", "training.recompute=full"};
  std::vector<std::string> eight_bit = llama2;
  eight_bit.push_back("training.optimizer=adamw_8bit");
  const Scenario fused = LoadScenario(ScenarioPath("tt_llama32_3b_full_packed"), llama2);
  const Scenario bnb = LoadScenario(ScenarioPath("tt_llama32_3b_full_packed"), eight_bit);
  const double saved = Gib(LiveTensors(EstimateMemory(fused)) - LiveTensors(EstimateMemory(bnb)));
  EXPECT_NEAR(saved, 51.6 - 39.3, 0.1 * (51.6 - 39.3));
  EXPECT_DOUBLE_EQ(BnbMomentBytes(bnb.training), 2 + 8.0 / 256);
  // Under autocast the moments were fp32: torchao's ViT-H benchmark (630M
  // parameters, BF16 AMP; the same README) peaks at 12.23 GB with fused
  // AdamW and 8.32 with bitsandbytes' 8-bit, 3.91 GB saved, where 6 B a
  // parameter less gives 3.77.
  EXPECT_NEAR(632e6 * (8 - BnbMomentBytes(bnb.training)) / 1e9, 12.23 - 8.32, 0.05 * (12.23 - 8.32));
}

// A paged optimizer's moments leave PyTorch's allocator (not in the live
// tensors a row's peak allocated compares with) but take the GPU's free
// memory; what does not fit is evicted, and every step pages it back at
// half the PCIe link's rate (the bitsandbytes docs). Mistral-7B's fp32
// moments under pure bf16 (paged_adamw_32bit: 54 GiB) do not fit beside
// the rest on an 80 GB A100; the job fits all the same.
TEST(BnbOptimizer, PagedStatesLeaveTheAllocatorAndEvictWhatDoesNotFit) {
  auto load = [](int batch, const char* optimizer) {
    return LoadScenario(ScenarioPath("fms_mistral7b_full_bs4"),
                        {"training.micro_batch=" + std::to_string(batch),
                         "training.global_batch=" + std::to_string(batch),
                         std::string("training.optimizer=") + optimizer});
  };
  const Scenario s1 = load(1, "paged_adamw_32bit"), s4 = load(4, "paged_adamw_32bit");
  const MemoryBreakdown m1 = EstimateMemory(s1), m4 = EstimateMemory(s4);
  const double params = CountParams(s4.model).total(s4.model.layers);
  EXPECT_NEAR(m4.paged_optimizer.value(), params * 8, 1);
  EXPECT_TRUE(m4.fits);
  EXPECT_DOUBLE_EQ(m4.total.value(), m4.capacity.value());
  EXPECT_NEAR((LiveTensors(m4) + m4.framework + m4.paged_optimizer).value(),
              (m4.capacity + m4.paged_evicted).value(), 1);
  EXPECT_GT(m4.paged_evicted, m1.paged_evicted);
  // The evicted pages live in the node's memory.
  EXPECT_DOUBLE_EQ(EstimateHostMemory(s4).offload.value(), m4.paged_evicted.value());
  // Headroom is judged without them: the rest leaves 5% of the GPU.
  EXPECT_TRUE(FitsWithHeadroom(m4));
  // The larger batch evicts more, and its step pages that back.
  const double rate = 0.5 * PcieLinkRate(4, 16).value();
  EXPECT_NEAR((OptimizerTime(s4, params) - OptimizerTime(s1, params)).value(),
              (m4.paged_evicted - m1.paged_evicted).value() / rate, 1e-6);
  // Unpaged, the same 8-bit moments stay live; paged, only their block
  // scales do. The Trainer keeps the embedding's moments in fp32 (8 B:
  // Trainer.create_optimizer's optim_bits 32 override on nn.Embedding),
  // paged with the rest.
  const MemoryBreakdown live8 = EstimateMemory(load(4, "adamw_8bit"));
  const MemoryBreakdown paged8 = EstimateMemory(load(4, "paged_adamw_8bit"));
  const double embedding = CountParams(s4.model).embedding;
  EXPECT_NEAR(live8.optimizer.value(), params * (2 + 8.0 / 256) + embedding * (8 - 2 - 8.0 / 256), 1);
  EXPECT_NEAR(paged8.optimizer.value(), params * 8.0 / 256 - embedding * 8.0 / 256, 1);
  EXPECT_NEAR(paged8.paged_optimizer.value(), params * 2 + embedding * 6, 1);
  EXPECT_EQ(paged8.paged_evicted.value(), 0);
  // torchtune registers no override.
  const Scenario tt = LoadScenario(ScenarioPath("tt_llama32_3b_full_packed"), {"training.optimizer=adamw_8bit"});
  EXPECT_EQ(Fp32MomentParams(tt), 0);
  EXPECT_EQ(Fp32MomentParams(load(4, "adamw_8bit")), embedding);
}

// LoRA's adapters page only their matrices of 1e5 elements or more
// (get_state_buffer): at rank 8 on Llama-2-7B none (8 x 11008 < 1e5), at
// rank 64 all (64 x 4096 and up).
TEST(BnbOptimizer, AdaptersPageOnlyTheirLargeMatrices) {
  auto paged = [](int rank) {
    const Scenario s = LoadScenario(ScenarioPath("lf_llama2_7b_lora_hf"),
                                    {"training.optimizer=paged_adamw_8bit",
                                     "training.lora_rank=" + std::to_string(rank)});
    return PagedShare(s);
  };
  EXPECT_EQ(paged(8), 0);
  EXPECT_EQ(paged(64), 1);
}

// The step updates one tensor at a time and synchronises after each
// (Optimizer8bit.step): Llama-2-7B has 32 x 9 + 3 = 291 tensors (q, k, v,
// o, gate, up, down and two norms a layer; the embedding, the final norm,
// the untied LM head), each adding the host's issue and the wait.
TEST(BnbOptimizer, StepsOneTensorAtATime) {
  const Scenario foreach_adamw = LoadScenario(ScenarioPath("lf_llama2_7b_lora_hf"), {"training.method=full"});
  const Scenario bnb =
      LoadScenario(ScenarioPath("lf_llama2_7b_lora_hf"), {"training.method=full", "training.optimizer=adamw_8bit"});
  EXPECT_EQ(TrainedTensors(bnb), 291);
  const double params = CountParams(bnb.model).total(bnb.model.layers);
  // Under autocast the kernel moves the fp32 parameter twice, its
  // gradient once and both 8-bit moments twice (16.06 B with fp32
  // gradients), where the Trainer's foreach AdamW moves 84; the time per
  // parameter goes as the bytes (the fixed parts cancel in the
  // difference). The Trainer's clipping reads the gradient for its norm
  // and reads and writes it to scale it, before either.
  const TrainingSpec& t = bnb.training;
  EXPECT_DOUBLE_EQ(StepBytesPerParam(t), 2 * 4 + GradientBytes(t) + 2 * (2 + 8.0 / 256) + 3 * GradientBytes(t));
  auto per_param = [&](const Scenario& s) { return (OptimizerTime(s, params) - OptimizerTime(s, params / 2)).value(); };
  EXPECT_NEAR(per_param(bnb) / per_param(foreach_adamw), StepBytesPerParam(t) / StepBytesPerParam(foreach_adamw.training),
              1e-9);
  // Mixed precision keeps its fp32 master copy (4 B) beside the moments.
  EXPECT_NEAR(EstimateMemory(bnb).optimizer.value(),
              params * (4 + 2 + 8.0 / 256) + CountParams(bnb.model).embedding * (8 - 2 - 8.0 / 256), 1);
  // A checkpoint saves the states as the optimizer keeps them.
  EXPECT_DOUBLE_EQ(SizeOfCheckpoint(bnb).optimizer.value(), OptimizerStates(bnb).value());
  EXPECT_NEAR(OptimizerStates(bnb).value(), EstimateMemory(bnb).optimizer.value(), 1);
  // The tensors' 291 issues and waits come on top.
  const Seconds serial = BnbSecondsPerTensor() * 291.0;
  EXPECT_NEAR(serial.value(), 291 * (23.5e-6 + 6.95e-6), 1e-9);
  EXPECT_GT(OptimizerTime(bnb, params).value(), serial.value());
  // A mixture of experts steps every expert's matrices: Mixtral's layer
  // has q, k, v, o, the router, 8 experts x 3 and two norms.
  const Scenario mixtral = LoadScenario(ScenarioPath("lf_llama2_7b_lora_hf"),
                                        {"model=mixtral-8x7b", "training.method=full", "training.optimizer=adamw_8bit"});
  EXPECT_EQ(TrainedTensors(mixtral), 32 * (4 + 1 + 8 * 3 + 2) + 3);
  // LoRA's step: A and B of each adapted linear layer (7 a layer).
  EXPECT_EQ(TrainedTensors(LoadScenario(ScenarioPath("lf_llama2_7b_lora_hf"), {"training.optimizer=adamw_8bit"})),
            32 * 7 * 2);
}

// A full fine-tune that does not fit is offered the 8-bit moments.
// The Trainer clips the gradients' norm before each step (max_grad_norm
// 1.0): torch._foreach_norm reads each gradient, torch._foreach_mul_ reads
// and writes it, 3 gradient elements a trained parameter on stacks hf,
// llama-factory and unsloth; the other stacks' clipping is not counted.
TEST(GradientClipping, TheTrainerReadsEachGradientThreeTimesMore) {
  const Scenario hf = LoadScenario(ScenarioPath("lf_llama2_7b_lora_hf"), {"training.method=full", "training.pure_bf16=true"});
  EXPECT_TRUE(TraitsOf(hf.training.stack).clips_gradients);
  // pure bf16 foreach AdamW moves 42 B a parameter, the clipping 3 x 2.
  EXPECT_DOUBLE_EQ(StepBytesPerParam(hf.training), 42 + 3 * 2);
  for (const char* stack : {"megatron", "nemo", "deepspeed", "fsdp", "torchtune"})
    EXPECT_FALSE(TraitsOf(LoadScenario(ScenarioPath("lf_llama2_7b_lora_hf"),
                                       {"training.method=full", std::string("training.stack=") + stack})
                             .training.stack)
                     .clips_gradients)
        << stack;
  // On PEFT's full fine-tune of Llama-3.2-3B on an L40S: 3.21 B trained
  // parameters x 6 B at the GDDR's measured streaming rate (0.926 of its
  // bandwidth), about 27 ms.
  const Scenario l40s = LoadScenario(ScenarioPath("peft_mc_llama32_3b_full_l40s"));
  ASSERT_TRUE(l40s.cluster.node.gpu.memory_efficiency.has_value());
  const double params = CountParams(l40s.model).total(l40s.model.layers);
  const double clip = params * 6 / (l40s.cluster.node.gpu.memory_bandwidth.value() *
                                    *l40s.cluster.node.gpu.memory_efficiency * l40s.calibration.training_kernel_efficiency);
  EXPECT_NEAR(clip, 0.027, 0.002);
  EXPECT_NEAR((OptimizerTime(l40s, params).value()) / (42.0 + 6) * 6, clip, 0.0005);
}

TEST(BnbOptimizer, OfferedWhereAFullFineTuneDoesNotFit) {
  const Scenario s = LoadScenario(ScenarioPath("tt_llama32_3b_full_packed"), {"model=llama2-7b"});
  bool offered = false;
  for (const FitSuggestion& f : SuggestFits(s))
    for (const std::string& flag : f.overrides) offered |= flag == "training.optimizer=adamw_8bit";
  EXPECT_TRUE(offered);
}

// Where the stack runs its own optimizer, shards it, or runs bitsandbytes
// in no recipe: exit 2 with the accepted values.
TEST(BnbOptimizer, RefusedWhereTheStackDoesNotRunIt) {
  EXPECT_NE(LoadError("nemo_llama2_7b_sft", {"training.optimizer=adamw_8bit"})
                .find("training.optimizer: \"adamw_8bit\" with stack \"nemo\", which steps its own Adam; accepted: "
                      "adamw, or stack hf, llama-factory, unsloth"),
            std::string::npos);
  EXPECT_NE(LoadError("qwen_7b_full_zero3_2gpu", {"training.optimizer=paged_adamw_8bit"})
                .find("with ZeRO stage 3, whose engine shards or offloads its own optimizer"),
            std::string::npos);
  std::string vision;
  try {
    LoadScenario(testing_util::kRoot + "/scenarios/resnet50_1xA100.yaml", {"training.optimizer=adamw_8bit"});
  } catch (const InputError& e) {
    vision = e.what();
  }
  EXPECT_NE(vision.find("training.optimizer: \"adamw_8bit\" with a vision model; accepted: adamw"), std::string::npos);
  EXPECT_NE(LoadError("lf_llama2_7b_lora_hf", {"training.optimizer=lion"})
                .find("\"lion\" is not accepted (accepted: adamw, adamw_8bit, paged_adamw_8bit, paged_adamw_32bit)"),
            std::string::npos);
  EXPECT_NE(LoadError("tt_llama32_3b_full_packed", {"training.optimizer=adamw_8bit", "parallel.dp=2",
                                                    "cluster.gpus_per_node=2", "parallel.zero=3",
                                                    "training.global_batch=4"})
                .find("training.optimizer: \"adamw_8bit\" with ZeRO stage 3"),
            std::string::npos);
}

}  // namespace
}  // namespace pf

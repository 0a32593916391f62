// QLoRA's kernels beyond the adapters' (stack_kernels.h Nf4DequantOps,
// kbit_upcast.h, moe.h PermuteOps): every 4-bit weight dequantized at each
// use, the fp32 weight casts under the upcast, and Hugging Face's expert
// loop's backward, on fms-acceleration's Mixtral QLoRA scenarios.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/model/model_math.h"
#include "sim/model/stack_kernels.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/test_util.h"

namespace pf {
namespace {

std::string Stacks(const std::string& name) { return testing_util::kRoot + "/tests/data/stacks/" + name + ".yaml"; }

// QLoRA dequantizes every 4-bit base weight each time its linear runs,
// adapted or not: fms-acceleration's Mixtral runs adapt q, k, v and o only,
// and each pass still expands all eight experts' gate, up and down and the
// router (0.5 B read and 2 B written a parameter), after double
// quantization's two small kernels on the absmax.
TEST(StackKernels, QloraDequantizesEveryBaseWeightAdaptedOrNot) {
  const std::string mixtral = Stacks("fms_mixtral_qlora_bs4");
  const Scenario attn = LoadScenario(mixtral), all = LoadScenario(mixtral, {"training.lora_targets=all"});
  auto dequant = [](const Scenario& s, Pass pass, int* kernels) {
    double bytes = 0;
    *kernels = 0;
    for (const Op& op : LayerOps(s.model, s.training, 1, pass, true))
      if (op.name.find("_nf4_dequant") != std::string::npos || op.name.find("_absmax_") != std::string::npos) {
        ++*kernels;
        if (op.name.find("_nf4_dequant") != std::string::npos) bytes += op.bytes.value();
      }
    return bytes;
  };
  const double h = 4096, params = h * (4096 + 1024 + 1024) + 4096 * h + 8 * 3 * h * 14336 + h * 8;
  int k_attn = 0, k_all = 0, k_bwd = 0;
  EXPECT_DOUBLE_EQ(dequant(attn, Pass::kForward, &k_attn), 2.5 * params);
  EXPECT_DOUBLE_EQ(dequant(all, Pass::kForward, &k_all), 2.5 * params);
  EXPECT_DOUBLE_EQ(dequant(attn, Pass::kBackward, &k_bwd), 2.5 * params);  // again for the input gradient
  EXPECT_EQ(k_attn, 3 * (4 + 8 * 3 + 1));
  EXPECT_EQ(k_all, k_attn);
  EXPECT_EQ(k_bwd, k_attn);
  // Through TRL's preparation (fp32 norms) every linear fed the fp32 stream
  // computes in fp32: each expert's gate, up and down, q, k, v and the
  // router cast their dequantized weight up and autocast casts it back.
  const Scenario trl = LoadScenario(Stacks("fms_mixtral_qlora_trl_bs4"));
  int up = 0;
  for (const Op& op : LayerOps(trl.model, trl.training, 1, Pass::kForward, true))
    up += op.name.find("_w_to_fp32") != std::string::npos;
  EXPECT_EQ(up, 3 + 8 * 3 + 1);
  // Hugging Face's expert loop indexes each expert's tokens out of the
  // block input; the index's backward fills a zero tensor the size of the
  // whole input per expert and autograd adds it into the input's gradient:
  // 4 x tokens x hidden x 4 B (the fp32 stream) per expert.
  double zeros = 0;
  int accumulate = 0;
  for (const Op& op : LayerOps(trl.model, trl.training, 1, Pass::kBackward, true)) {
    if (op.name == "expert_index_grad_zeros") zeros += op.bytes.value();
    accumulate += op.name == "expert_grad_accumulate";
  }
  EXPECT_DOUBLE_EQ(zeros, 8 * 4.0 * 4096 * 4 * h);
  EXPECT_EQ(accumulate, 8);
  // LoRA keeps its weights in 16 bits: nothing to expand.
  int none = 0;
  EXPECT_EQ(dequant(LoadScenario(mixtral, {"training.method=lora"}), Pass::kForward, &none), 0);
  EXPECT_EQ(none, 0);
}

}  // namespace
}  // namespace pf

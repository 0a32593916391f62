// The constants Preflight fits to published end-to-end training runs
// instead of reading them from a datasheet or a microbenchmark. The fit is
// code that ships: `calibrate` (sim/calibration/) refits them over the
// reference rows in tests/data/, prints residuals and leave-one-out errors,
// and tests/calibration/ checks that these defaults are its result.
// A Scenario carries them (not settable from YAML) so that the fit can
// vary them; everything else reads them from there.
#pragma once

namespace pf {

struct Calibration {
  // Sustained fraction of the isolated-kernel rates (roofline, model/
  // compute_model.cc) that kernels reach inside a training step: clocks
  // under sustained power, shapes less ideal than a benchmark's, gaps
  // between kernels. Least squares on log(predicted/published) over the 21
  // rows of megatron_sc21_table1.csv and llm_foundry_a100_80gb.csv, jointly
  // with nccl_compute_share and triton_vs_flash_attention2 (Gauss-Newton;
  // `build/calibrate` prints the fit and its leave-one-out spread,
  // 0.889-0.916); written to three decimals.
  double training_kernel_efficiency = 0.907;
  // Fraction of a GPU's compute throughput that NCCL kernels take while a
  // data-parallel collective overlaps compute on it (NCCL runs one thread
  // block per channel on its own SMs and competes for HBM bandwidth; 8-16
  // channels on A100's 108 SMs is 7-15%). Same fit; it matters only where
  // collectives overlap compute (the llm-foundry FSDP rows); leave-one-out
  // spread 0.081-0.109. (0.117 before the llm-foundry rows ran the Triton
  // attention they ran: FlashAttention-2's rate left the small models'
  // steps short, which the share made up.)
  double nccl_compute_share = 0.099;
  // The Triton FlashAttention of 2022-23 (flash-attn's flash_attn_triton.py
  // on the pre-MLIR Triton; training.attention: triton, which MosaicML's
  // llm-foundry ran) over FlashAttention-2's rate (model/compute_model.cc
  // AttentionVsGemm). Same fit: the llm-foundry rows at 512 to 32,768
  // tokens carry it, the attention's share of their step growing with the
  // sequence (leave-one-out spread 0.583-0.608). The one kernel benchmark
  // that sets a Triton kernel beside FlashAttention-2, Dao 2023
  // ("FlashAttention-2", Fig. 4(d): A100, causal, head dim 128, forward and
  // backward at 4K-16K tokens: 74-80 against 173-189 TFLOP/s), gives 0.43,
  // for what is likely OpenAI's newer Triton kernel; the older file says it
  // is "slightly slower" than FlashAttention-1 in forward and backward
  // (flash-attention @ eff9fe6b). The ratio does not hold on Hopper (0.77
  // there): the Hopper parts carry their own fitted rate
  // (topologies/gpus.yaml attention_vs_gemm.triton), which this one yields to.
  double triton_vs_flash_attention2 = 0.595;
};

}  // namespace pf

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
  // between kernels. Least squares on log(predicted/published) over the ten
  // rows of megatron_sc21_table1.csv and llm_foundry_a100_80gb.csv, jointly
  // with nccl_compute_share (Gauss-Newton; `build/calibrate` prints the fit
  // and its leave-one-out spread, 0.889-0.916); written to three decimals.
  double training_kernel_efficiency = 0.907;
  // Fraction of a GPU's compute throughput that NCCL kernels take while a
  // data-parallel collective overlaps compute on it (NCCL runs one thread
  // block per channel on its own SMs and competes for HBM bandwidth; 8-16
  // channels on A100's 108 SMs is 7-15%). Same fit; it matters only where
  // collectives overlap compute (the llm-foundry FSDP rows); leave-one-out
  // spread 0.100-0.135 (with the llm-foundry rows on stack fsdp: foreach AdamW).
  double nccl_compute_share = 0.117;
};

}  // namespace pf

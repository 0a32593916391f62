// The published end-to-end training runs Preflight is held against and
// calibrated on: every row of tests/data/megatron_sc21_table1.csv and
// tests/data/llm_foundry_a100_80gb.csv, each with the bundled scenario that
// reproduces it and the figure the source publishes. The llm-foundry runs
// at 2,048 tokens have their scenarios in scenarios/, the others (the same
// table's sequence lengths, which pin the Triton attention's rate) in
// tests/data/foundry/.
#pragma once

#include <string>
#include <vector>

#include "sim/spec/calibration.h"

namespace pf {

struct ReferenceRow {
  std::string label;     // e.g. "Megatron GPT 39.1B, 512 GPUs"
  std::string metric;    // "TFLOP/s/GPU" or "tokens/s/GPU"
  std::string scenario;  // path of the scenario that reproduces it
  double published = 0;
  // What the row's layout must be (checked against the scenario).
  int tp = 0, pp = 0, gpus = 0, micro_batch = 0, global_batch = 0, seq_len = 0;
};

// The rows under `root` (the source tree): tests/data/ and scenarios/.
// Throws InputError on an unreadable table.
std::vector<ReferenceRow> LoadReferenceRows(const std::string& root);

// Simulates the row's scenario with the constants `cal` and returns the
// figure its source publishes: Megatron's TFLOP/s per GPU counts the
// recompute forward (shared/reference/formulas.md: F = 96 B s l h^2
// (1 + s/6h + V/16lh)); llm-foundry's is tokens per second per GPU.
// Throws std::runtime_error when the scenario's layout is not the row's or
// the job does not fit.
double PredictRow(const ReferenceRow& row, const Calibration& cal);

}  // namespace pf

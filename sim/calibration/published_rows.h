// The published runs of tests/data/ that each have a scenario reproducing
// them: tests/data/stack_rows.csv (runs by training stack, rows in
// finetune_stacks.csv, scenarios in tests/data/stacks/) and
// tests/data/recipe_rows.csv (large-scale recipes, rows in the file each
// names, scenarios in tests/data/recipes/). A held row's error stays within
// 15% (10% for memory); a known miss carries its reason and the band it is
// pinned to (tests/job/stack_reference_test.cc).
#pragma once

#include <string>
#include <vector>

#include "sim/job/result.h"
#include "sim/spec/spec.h"

namespace pf {

struct PublishedRow {
  std::string scenario;  // its name, e.g. "dgxc_llama3_70b_bf16_64xH100"
  std::string path;      // its scenario file
  // step_time_s, mfu, model_tflops_per_gpu, hardware_tflops_per_gpu,
  // tokens_per_s_per_gpu, gpu_mem_gb, peak_allocated_gib,
  // peak_reserved_gib or max_seq_len_fitting.
  std::string metric;
  std::string note;    // why a known miss misses; empty for a held row
  std::string source;  // the file of tests/data/ holding the row
  int line = 0;        // its line there
  double published = 0, error_min = 0, error_max = 0;
};

// Every row under `root` (the source tree). Throws InputError on an
// unreadable table.
std::vector<PublishedRow> LoadPublishedRows(const std::string& root);

// Whether `metric` is a memory figure (held within 10%, out of speed fits).
bool IsMemoryMetric(const std::string& metric);

// The longest seq_len at which `s` still fits its GPUs' memory (the
// model/memory_model.h total, as an out-of-memory error would decide), all
// else as given; 0 when no length fits.
int MaxSeqLenFitting(const Scenario& s);

// The row's figure from the simulation `r` of its scenario `s`. Throws
// std::runtime_error when a speed metric has no simulated step.
double RowFigure(const std::string& metric, const Scenario& s, const Result& r);

}  // namespace pf

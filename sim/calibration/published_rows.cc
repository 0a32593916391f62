#include "sim/calibration/published_rows.h"

#include <stdexcept>
#include <tuple>

#include "sim/base/csv.h"
#include "sim/model/memory_model.h"

namespace pf {

std::vector<PublishedRow> LoadPublishedRows(const std::string& root) {
  std::vector<PublishedRow> rows;
  for (const auto& [pairs, dir, source] : {std::tuple{"stack_rows.csv", "stacks", "finetune_stacks.csv"},
                                           std::tuple{"recipe_rows.csv", "recipes", "recipes.csv"}}) {
    const std::string path = root + "/tests/data/" + pairs;
    for (const CsvRow& r : ReadCsv(path)) {
      PublishedRow row;
      row.scenario = r.at("scenario");
      row.path = root + "/tests/data/" + dir + "/" + row.scenario + ".yaml";
      row.metric = r.at("metric");
      row.note = r.at("note");
      row.source = r.count("file") ? r.at("file") : source;
      row.line = int(CsvNumber(r, "line", path));
      row.published = CsvNumber(r, "published", path);
      row.error_min = CsvNumber(r, "error_min", path);
      row.error_max = CsvNumber(r, "error_max", path);
      rows.push_back(row);
    }
  }
  return rows;
}

bool IsMemoryMetric(const std::string& metric) {
  return metric == "gpu_mem_gb" || metric == "peak_allocated_gib" || metric == "peak_reserved_gib" ||
         metric == "max_seq_len_fitting";
}

int MaxSeqLenFitting(const Scenario& s) {
  Scenario at = s;
  auto fits = [&](int len) {
    at.training.seq_len = len;
    return EstimateMemory(at).fits;
  };
  if (!fits(1)) return 0;
  int lo = 1, hi = 1 << 22;  // the scenario loader's bound on seq_len
  if (fits(hi)) return hi;
  while (hi - lo > 1) {  // fits(lo), not fits(hi)
    const int mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

double RowFigure(const std::string& metric, const Scenario& s, const Result& r) {
  // With the allocator's cache where sizes vary (memory_model.h observed),
  // as nvidia-smi reads it: the PEFT docs' row; the other memory rows'
  // counters are not stated and their jobs' shapes repeat (no cache).
  if (metric == "gpu_mem_gb") return r.memory.observed.value() / 1e9;
  // Published context limits (Unsloth's benchmark: "padded all sequences to
  // a certain maximum sequence length"): the longest that fits.
  if (metric == "max_seq_len_fitting") return MaxSeqLenFitting(s);
  // PyTorch's torch.cuda.max_memory_allocated, as Megatron logs it: the
  // live tensors only, without the CUDA context, NCCL's and the
  // dispatcher's own buffers or the allocator's cached blocks.
  if (metric == "peak_allocated_gib") {
    const MemoryBreakdown& m = r.memory;
    return LiveTensors(m).value() / double(1ull << 30);
  }
  // torch.cuda.max_memory_reserved, as Answer.AI's fsdp_qlora benchmarks
  // report it: the caching allocator's segments (the live tensors, its
  // reserve and its cached blocks), without the CUDA context or NCCL's
  // buffers, which CUDA allocates outside it.
  if (metric == "peak_reserved_gib") {
    const MemoryBreakdown& m = r.memory;
    return (LiveTensors(m) + m.allocator_reserve + m.allocator_cache).value() / double(1ull << 30);
  }
  if (!r.step) throw std::runtime_error(s.name + ": no simulated step for " + metric);
  if (metric == "step_time_s") return r.step->step_time.value();
  if (metric == "mfu") return r.step->mfu;
  const double peak = PeakFlops(s.cluster.node.gpu, s.training.precision).value();
  // NeMo's model TFLOP/s per GPU.
  if (metric == "model_tflops_per_gpu") return r.step->mfu * peak / 1e12;
  // Megatron's "hardware" TFLOP/s: model and recompute FLOPs per GPU-second.
  if (metric == "hardware_tflops_per_gpu") return r.step->hfu * peak / 1e12;
  if (metric == "tokens_per_s_per_gpu") return r.step->tokens_per_s / s.cluster.gpus();
  throw std::runtime_error(s.name + ": unknown metric \"" + metric + "\"");
}

}  // namespace pf

#include "sim/calibration/reference_rows.h"

#include <algorithm>
#include <stdexcept>

#include "sim/base/csv.h"
#include "sim/job/simulate.h"
#include "sim/scenario/scenario_loader.h"

namespace pf {
namespace {

int Int(const CsvRow& r, const std::string& column, const std::string& path) {
  return static_cast<int>(CsvNumber(r, column, path));
}

void Megatron(const std::string& root, std::vector<ReferenceRow>& out) {
  const std::string path = root + "/tests/data/megatron_sc21_table1.csv";
  for (const CsvRow& r : ReadCsv(path)) {
    std::string b = r.at("params_b");
    std::replace(b.begin(), b.end(), '.', 'p');
    ReferenceRow row;
    row.label = "Megatron GPT " + r.at("params_b") + "B, " + r.at("gpus") + " GPUs";
    row.metric = "TFLOP/s/GPU";
    row.scenario = root + "/scenarios/megatron_" + b + "b_" + r.at("gpus") + "xA100.yaml";
    row.published = CsvNumber(r, "tflops_per_gpu", path);
    row.tp = Int(r, "tp", path);
    row.pp = Int(r, "pp", path);
    row.gpus = Int(r, "gpus", path);
    row.global_batch = Int(r, "global_batch", path);
    out.push_back(row);
  }
}

void LlmFoundry(const std::string& root, std::vector<ReferenceRow>& out) {
  const std::string path = root + "/tests/data/llm_foundry_a100_80gb.csv";
  for (const CsvRow& r : ReadCsv(path)) {
    std::string model = r.at("model");
    model.erase(std::remove(model.begin(), model.end(), '-'), model.end());
    ReferenceRow row;
    const std::string seq = r.at("seq_len");
    const bool bundled = seq == "2048";
    row.label = "llm-foundry " + r.at("model") + ", " + r.at("gpus") + " GPUs" + (bundled ? "" : ", sequence " + seq);
    row.metric = "tokens/s/GPU";
    row.scenario = root + (bundled ? "/scenarios/foundry_" : "/tests/data/foundry/foundry_") + model + "_" +
                   r.at("gpus") + "xA100" + (bundled ? "" : "_s" + seq) + ".yaml";
    row.seq_len = Int(r, "seq_len", path);
    row.published = CsvNumber(r, "tokens_per_s_per_gpu", path);
    row.gpus = Int(r, "gpus", path);
    row.micro_batch = Int(r, "micro_batch", path);
    row.global_batch = Int(r, "global_batch", path);
    out.push_back(row);
  }
}

// The scenario must be the published run's layout.
void CheckLayout(const ReferenceRow& row, const Scenario& s) {
  auto expect = [&](const char* what, int want, int got) {
    if (want != 0 && want != got)
      throw std::runtime_error(row.scenario + ": " + what + " is " + std::to_string(got) +
                               " but the published run used " + std::to_string(want));
  };
  expect("tp", row.tp, s.parallel.tp);
  expect("pp", row.pp, s.parallel.pp);
  expect("the GPU count", row.gpus, s.cluster.gpus());
  expect("micro_batch", row.micro_batch, s.training.micro_batch);
  expect("global_batch", row.global_batch, s.training.global_batch);
  expect("seq_len", row.seq_len, s.training.seq_len);
}

}  // namespace

std::vector<ReferenceRow> LoadReferenceRows(const std::string& root) {
  std::vector<ReferenceRow> rows;
  Megatron(root, rows);
  LlmFoundry(root, rows);
  return rows;
}

double PredictRow(const ReferenceRow& row, const Calibration& cal) {
  Scenario s = LoadScenario(row.scenario);
  CheckLayout(row, s);
  s.calibration = cal;
  const Result r = Simulate(s);
  if (!r.step) throw std::runtime_error(row.scenario + " does not fit in GPU memory");
  const double step_s = r.step->step_time.value();
  if (row.metric == "tokens/s/GPU") return r.step->tokens_per_s / s.cluster.gpus();
  const double l = s.model.layers, h = s.model.hidden, sq = s.training.seq_len;
  const double V = s.model.vocab, B = s.training.global_batch;
  const double F = 96 * B * sq * l * h * h * (1 + sq / (6 * h) + V / (16 * l * h));
  return F / (step_s * s.cluster.gpus()) / 1e12;
}

}  // namespace pf

// Whole-scenario tests against published measurements: every row of
// tests/data/megatron_sc21_table1.csv and llm_foundry_a100_80gb.csv (copies
// of shared/reference/) is simulated from its scenario in scenarios/ and must
// land within 15% of the published figure. Prints the predicted-vs-published
// table that the README quotes.
#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "sim/model/model_math.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/job/simulate.h"

namespace pf {
namespace {

std::vector<std::map<std::string, std::string>> ReadCsv(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  std::stringstream hs(line);
  for (std::string f; std::getline(hs, f, ',');) header.push_back(f);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    std::map<std::string, std::string> row;
    std::stringstream ls(line);
    std::string f;
    for (size_t i = 0; i < header.size() && std::getline(ls, f, ','); ++i) row[header[i]] = f;
    rows.push_back(row);
  }
  return rows;
}

const std::string kRoot = PREFLIGHT_SOURCE_DIR;
constexpr double kTolerance = 0.15;

struct Row {
  std::string label, metric;
  double published, predicted;
};

// Prints the predicted-vs-published table (ctest runs each test in its own
// process, so each test prints its own rows).
void PrintTable(const std::vector<Row>& rows) {
  std::string out = fmt::format("\n| {:<32} | {:<13} | {:>10} | {:>10} | {:>7} |\n", "run", "metric",
                                "published", "predicted", "error");
  out += "|" + std::string(34, '-') + "|" + std::string(15, '-') + "|" + std::string(12, '-') + "|" +
         std::string(12, '-') + "|" + std::string(9, '-') + "|\n";
  double sum_abs = 0;
  for (const Row& r : rows) {
    double err = 100 * (r.predicted / r.published - 1);
    sum_abs += std::abs(err);
    out += fmt::format("| {:<32} | {:<13} | {:>10.0f} | {:>10.0f} | {:>+6.1f}% |\n", r.label, r.metric,
                       r.published, r.predicted, err);
  }
  if (!rows.empty()) out += fmt::format("mean absolute error {:.1f}%\n", sum_abs / rows.size());
  std::cout << out;
}

TEST(Reference, MegatronSc21Table1) {
  std::vector<Row> table;
  for (auto& row : ReadCsv(kRoot + "/tests/data/megatron_sc21_table1.csv")) {
    std::string b = row["params_b"];
    std::replace(b.begin(), b.end(), '.', 'p');
    std::string file = kRoot + "/scenarios/megatron_" + b + "b_" + row["gpus"] + "xA100.yaml";
    Scenario s = LoadScenario(file);
    ASSERT_EQ(s.parallel.tp, std::stoi(row["tp"])) << file;
    ASSERT_EQ(s.parallel.pp, std::stoi(row["pp"])) << file;
    ASSERT_EQ(s.cluster.gpus(), std::stoi(row["gpus"])) << file;
    Result r = Simulate(s);
    ASSERT_TRUE(r.step) << file << " does not fit";
    // The table's TFLOP/s per GPU counts the recompute forward (formulas.md:
    // F = 96 B s l h^2 (1 + s/6h + V/16lh)), i.e. hardware FLOPs.
    const double l = s.model.layers, h = s.model.hidden, sq = s.training.seq_len;
    const double V = s.model.vocab, B = s.training.global_batch;
    const double F = 96 * B * sq * l * h * h * (1 + sq / (6 * h) + V / (16 * l * h));
    double tflops = F / (r.step->step_time.value() * s.cluster.gpus()) / 1e12;
    double published = std::stod(row["tflops_per_gpu"]);
    table.push_back({"Megatron GPT " + row["params_b"] + "B, " + row["gpus"] + " GPUs",
                       "TFLOP/s/GPU", published, tflops});
    EXPECT_NEAR(tflops / published, 1.0, kTolerance) << file;
  }
  PrintTable(table);
  EXPECT_EQ(table.size(), 5u);
}

TEST(Reference, LlmFoundryA100) {
  std::vector<Row> table;
  for (auto& row : ReadCsv(kRoot + "/tests/data/llm_foundry_a100_80gb.csv")) {
    std::string model = row["model"];
    model.erase(std::remove(model.begin(), model.end(), '-'), model.end());
    std::string file = kRoot + "/scenarios/foundry_" + model + "_" + row["gpus"] + "xA100.yaml";
    Scenario s = LoadScenario(file);
    ASSERT_EQ(s.training.micro_batch, std::stoi(row["micro_batch"])) << file;
    ASSERT_EQ(s.training.global_batch, std::stoi(row["global_batch"])) << file;
    Result r = Simulate(s);
    ASSERT_TRUE(r.step) << file << " does not fit";
    double per_gpu = r.step->tokens_per_s / s.cluster.gpus();
    double published = std::stod(row["tokens_per_s_per_gpu"]);
    table.push_back({"llm-foundry " + row["model"] + ", " + row["gpus"] + " GPUs", "tokens/s/GPU",
                       published, per_gpu});
    EXPECT_NEAR(per_gpu / published, 1.0, kTolerance) << file;
  }
  PrintTable(table);
  EXPECT_EQ(table.size(), 5u);
}

}  // namespace
}  // namespace pf

#include "sim/cli/collectives_command.h"

#include <cctype>
#include <cmath>
#include <iostream>

#include <CLI/CLI.hpp>

#include "sim/base/error.h"
#include "sim/base/io.h"
#include "sim/base/quantity_parse.h"
#include "sim/cli/exit_status.h"
#include "sim/cli/parse_args.h"
#include "sim/job/collectives_bench.h"
#include "sim/report/collectives_report.h"
#include "sim/scenario/scenario_loader.h"

namespace pf {

namespace {

// One size: a number with nccl-tests' binary suffix K, M, G or T (1M =
// 2^20 bytes, as nccl-tests -b/-e read it), or a quantity with a unit
// ("1GB", "256MiB").
double ParseSize(const std::string& text) {
  static const std::string kSuffixes = "KMGT";
  if (!text.empty()) {
    const char last = static_cast<char>(std::toupper(static_cast<unsigned char>(text.back())));
    const auto at = kSuffixes.find(last);
    std::string digits = at == std::string::npos ? text : text.substr(0, text.size() - 1);
    char* end = nullptr;
    const double v = std::strtod(digits.c_str(), &end);
    if (!digits.empty() && end == digits.c_str() + digits.size() && std::isfinite(v) && v > 0)
      return v * std::pow(1024.0, at == std::string::npos ? 0 : double(at) + 1);
  }
  const ParsedQuantity q = ParseQuantity(text, Dimension::kBytes);
  if (!q.value || !(*q.value > 0))
    throw InputError(Location{"--sizes"}, "", "\"" + Shown(text) +
                                                  "\" is not a size: write 1M, 8G (nccl-tests, 2^20 and 2^30 "
                                                  "bytes) or 1GB, 256MiB");
  return *q.value;
}

// "FIRST:LAST" doubling, or one size. At most 1 PB.
std::vector<double> ParseSizes(const std::string& text) {
  const auto colon = text.find(':');
  const double first = ParseSize(text.substr(0, colon));
  const double last = colon == std::string::npos ? first : ParseSize(text.substr(colon + 1));
  if (last < first || last > 1e15)
    throw InputError(Location{"--sizes"}, "", "\"" + Shown(text) +
                                                  "\": the last size must be at least the first and at most 1 PB");
  return DoublingSizes(first, last);
}

}  // namespace

int CollectivesCommand(int argc, char** argv) {
  CLI::App app{"Simulate one collective over a range of sizes, as nccl-tests measures it", "simulate collectives"};
  std::string topology, op = "all_reduce", sizes = "1M:1G", algo, format = "text";
  std::vector<std::string> overrides;
  int gpus = 0, nodes = 1;
  app.add_option("topology", topology,
                 "bundled node topology or cluster name, or a node or cluster YAML file")
      ->required();
  app.add_option("--op", op, "collective")
      ->check(CLI::IsMember(CollectiveKindNames()));
  app.add_option("--gpus", gpus, "GPUs taking part, in all (default: every GPU of the nodes)")
      ->check(CLI::Range(2, 1 << 20));
  app.add_option("--nodes", nodes, "nodes taking part (default 1)")->check(CLI::Range(1, 1 << 16));
  app.add_option("--sizes", sizes, "FIRST:LAST (doubling, as nccl-tests -b/-e -f 2) or one size");
  app.add_option("--algo", algo, "force an algorithm (default: NCCL's choice)")
      ->check(CLI::IsMember(AlgorithmNames()));
  app.add_option("--format", format, "output format")->check(CLI::IsMember({"text", "json"}));
  app.add_option("--set", overrides, "KEY=VALUE: patch a key of the node or cluster file (e.g. pcie.lanes=8)");
  if (const int rc = ParseCommandLine(app, argc, argv); rc != kParsed) return rc;
  return RunWithExitStatus("simulate collectives", [&] {
    CollectiveBench b;
    if (IsClusterFile(topology)) {
      b.cluster = LoadCluster(topology, "topology", overrides);
      if (nodes > b.cluster.nodes)
        throw InputError(Location{"--nodes"}, "", std::to_string(nodes) + ", but cluster " + b.cluster.name +
                                                      " has " + std::to_string(b.cluster.nodes) + " nodes");
    } else {
      b.cluster.node = LoadNode(topology, "topology", overrides);
    }
    b.cluster.nodes = nodes;
    b.kind = *ParseCollectiveKind(op);
    b.gpus = gpus > 0 ? gpus : nodes * b.cluster.node.gpus_per_node;
    b.sizes_bytes = ParseSizes(sizes);
    // A buffer is float elements in one GPU's memory, as nccl-tests' are.
    const double gpu_memory = b.cluster.node.gpu.memory.value();
    if (b.sizes_bytes.back() > gpu_memory)
      throw InputError(Location{"--sizes " + Shown(sizes)}, "",
                       "the largest buffer (" + ShortNumber(b.sizes_bytes.back()) + " bytes) exceeds the memory of one " +
                           b.cluster.node.gpu.name + " (" + ShortNumber(gpu_memory) + " bytes)");
    if (b.sizes_bytes.front() < 4)
      throw InputError(Location{"--sizes " + Shown(sizes)}, "", "the smallest buffer is under one 4-byte float element");
    if (!algo.empty()) b.algorithm = ParseAlgorithm(algo);
    if (const std::string problem = CheckCollectiveBench(b); !problem.empty())
      throw std::invalid_argument(problem);
    const auto rows = RunCollectiveBench(b);
    std::cout << (format == "json" ? RenderCollectivesJson(b, rows) : RenderCollectivesText(b, rows));
    return 0;
  });
}

}  // namespace pf

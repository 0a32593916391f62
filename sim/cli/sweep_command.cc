#include "sim/cli/sweep_command.h"

#include <iostream>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include "sim/cli/exit_status.h"
#include "sim/cli/parse_args.h"
#include "sim/sweep/sweep_runner.h"

namespace pf {

int SweepCommand(int argc, char** argv) {
  CLI::App app{"Simulate every point of a grid of --set overrides, to a CSV or JSON-lines file"};
  app.name("simulate sweep");
  std::string scenario, format = "csv", shard = "0/1";
  std::vector<std::string> grid;
  SweepOptions o;
  o.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  bool quiet = false;
  app.add_option("scenario", scenario, "scenario YAML file")->required();
  app.add_option("--grid", grid, "KEY=V1,V2,...: a swept key and its values (repeat for more keys)")->required();
  app.add_option("--set", o.sets, "override a scenario key for every point, e.g. --set training.tokens=1B");
  app.add_option("-o,--output", o.output, "results file (appended and flushed point by point)")->required();
  app.add_option("--format", format, "csv (default) or jsonl")->check(CLI::IsMember({"csv", "jsonl"}));
  app.add_option("-j,--jobs", o.jobs, "worker processes (default: every core)")->check(CLI::Range(1, 1024));
  app.add_flag("--resume", o.resume, "keep the points the file has, run the others");
  app.add_option("--shard", shard, "K/N: run only the points whose number is K modulo N (a job array's task)");
  app.add_flag("-q,--quiet", quiet, "no progress bar");
  if (const int rc = ParseCommandLine(app, argc, argv); rc != kParsed) return rc;
  return RunWithExitStatus("simulate sweep", [&] {
    o.scenario = scenario;
    o.grid = ParseGrid(grid);
    o.shard = ParseShard(shard);
    o.format = format == "jsonl" ? SweepFormat::kJsonl : SweepFormat::kCsv;
    o.progress = !quiet && isatty(STDERR_FILENO);
    const SweepSummary s = RunSweep(o);
    std::cerr << fmt::format("simulate sweep: {} points{} in {:.2f} s ({} not simulated: rejected or do not fit){}: {}\n",
                             s.points, o.shard.count > 1 ? fmt::format(" (shard {}/{})", o.shard.index, o.shard.count) : "",
                             s.seconds, s.infeasible,
                             s.already > 0 ? fmt::format(", {} kept from the file", s.already) : "", o.output);
    return 0;
  });
}

int MergeCommand(int argc, char** argv) {
  CLI::App app{"Join the shard files of one sweep into the file the whole sweep writes"};
  app.name("simulate merge");
  std::vector<std::string> inputs;
  std::string output;
  app.add_option("shards", inputs, "shard files (CSV or JSON lines) of one sweep")->required();
  app.add_option("-o,--output", output, "merged file")->required();
  if (const int rc = ParseCommandLine(app, argc, argv); rc != kParsed) return rc;
  return RunWithExitStatus("simulate merge", [&] {
    const long long points = MergeSweeps(inputs, output);
    std::cerr << fmt::format("simulate merge: {} points from {} files: {}\n", points, inputs.size(), output);
    return 0;
  });
}

}  // namespace pf

// simulate: predict a training job's memory, step time, throughput and cost
// from a scenario file. Parse flags, call the library, print, map errors to
// exit codes (0 ok, 1 job does not fit and --fail-on-oom, 2 bad input,
// 3 internal error).
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/engine/isolated_run.h"
#include "sim/base/error.h"
#include "sim/cli/collectives_command.h"
#include "sim/cli/exit_status.h"
#include "sim/cli/parse_args.h"
#include "sim/cli/plan_command.h"
#include "sim/cli/sweep_command.h"
#include "sim/job/simulate.h"
#include "sim/plan/alternative.h"
#include "sim/model/memory_model.h"
#include "sim/base/io.h"
#include "sim/report/report.h"
#include "sim/report/trace.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/workload/workload_builder.h"
#include "sim/workload/size_estimate.h"
#include "sim/workload/workload_file.h"

namespace {

struct Options {
  std::string scenario_path, format = "text", emit_path, replay_path, trace_path;
  std::vector<std::string> overrides;
  bool force = false, fail_on_oom = false, verbose = false, no_intervals = false, no_alternative = false;
  double max_tasks = pf::kDefaultMaxTasks;
};

// Says on stderr, before it starts, that a run will take long (not for a
// step the budget refuses or a job that will not be simulated).
void AnnounceLargeRun(const pf::Scenario& s, bool force) {
  const pf::SimulationSize size = pf::EstimateSimulationSize(s);
  if (size.seconds < 30 || size.tasks > s.max_tasks || !(force || pf::EstimateMemory(s).fits)) return;
  std::cerr << fmt::format("simulate: a large step: about {:.3g} tasks on {} GPUs; expect about "
                           "{:.0f} s and {:.1f} GB\n",
                           size.tasks, s.cluster.gpus(), size.seconds, size.memory_bytes / 1e9);
}

// Throws InputError when --emit-workload or --trace names the same file as an input
// (also through a symbolic or hard link), before anything is written.
void RefuseOverwritingInputs(const Options& o) {
  for (const auto& [flag, out] : {std::pair<const char*, std::string>{"--emit-workload ", o.emit_path},
                                  {"--trace ", o.trace_path}}) {
    if (out.empty()) continue;
    for (const auto& [what, in] : {std::pair<const char*, std::string>{"the scenario", o.scenario_path},
                                   {"the --workload file", o.replay_path}}) {
      std::error_code ec;  // a path that does not exist is no input
      if (!in.empty() && std::filesystem::equivalent(out, in, ec))
        throw pf::InputError({flag + out}, "",
                             std::string("is the same file as ") + what + " (" + in + "); refusing to overwrite an input");
    }
  }
  if (!o.emit_path.empty() && o.emit_path == o.trace_path)
    throw pf::InputError({"--trace " + o.trace_path}, "", "is also the --emit-workload file: give each its own path");
}

// The result of the run `o` asks for, saving the workload it simulates
// when asked to; `alternative`: a faster layout of the same job, searched
// unless --no-alternative, a replayed workload or the in-process mode.
// A Chrome trace holds every task's events in memory before it is written:
// about 3.1 KB a task (the 1,429,488-task Llama 3 405B step at 16,384 GPUs
// took 5.08 GB with --trace, 0.58 GB without), so past this many tasks
// (about 1.5 GB) --trace is refused before anything runs.
constexpr double kMaxTraceTasks = 500000;

void RefuseHugeTrace(const Options& o, double tasks) {
  if (o.trace_path.empty() || tasks <= kMaxTraceTasks) return;
  throw pf::InputError({"--trace " + o.trace_path}, "",
                       fmt::format("the step has {:.3g} tasks; a trace holds about 3 KB of memory a task, and past "
                                   "{:.0f} tasks (1.5 GB) it is refused: trace a smaller cluster of the same layout "
                                   "(fewer data-parallel replicas)",
                                   tasks, kMaxTraceTasks));
}

pf::Result Run(const Options& o, std::optional<pf::Alternative>& alternative) {
  RefuseOverwritingInputs(o);
  pf::Scenario s = pf::LoadScenario(o.scenario_path, o.overrides);
  s.max_tasks = o.max_tasks;
  // One simulation per process in the in-process mode (a profiler's or a
  // debugger's): the intervals' four more and the faster-layout search's
  // are skipped, and it says so for each not already turned off.
  const char* in_process_env = std::getenv(pf::kInProcessEnv);
  const bool in_process = in_process_env && std::string(in_process_env) == "1";
  s.intervals = !o.no_intervals && !in_process;
  std::vector<std::string> skipped;
  if (in_process && !o.no_intervals) skipped.push_back("no 90% intervals (--no-intervals)");
  if (in_process && !o.no_alternative && o.replay_path.empty())
    skipped.push_back("no faster-layout search (--no-alternative)");
  if (!skipped.empty())
    std::cerr << fmt::format("simulate: {}=1 runs one simulation: {}\n", pf::kInProcessEnv, fmt::join(skipped, ", "));
  if (o.replay_path.empty()) {
    if (o.force || pf::EstimateMemory(s).fits) pf::RefuseEndlessRun(s);  // else the report says what does not fit
    AnnounceLargeRun(s, o.force);
  }
  if (o.replay_path.empty()) RefuseHugeTrace(o, pf::EstimateSimulationSize(s).tasks);
  if (o.verbose && o.replay_path.empty()) {
    const pf::SimulationSize size = pf::EstimateSimulationSize(s);
    std::cerr << fmt::format("simulate: estimate: at most {:.3g} tasks on {} GPUs, about {:.2g} s and {:.2g} GB "
                             "(largest part: {})\n",
                             size.tasks, s.cluster.gpus(), size.seconds, size.memory_bytes / 1e9, size.driver);
  }
  const auto start = std::chrono::steady_clock::now();
  pf::Result r;
  pf::StepTrace trace;
  pf::StepTrace* keep = o.trace_path.empty() ? nullptr : &trace;
  if (o.replay_path.empty() && o.emit_path.empty()) {
    r = pf::Simulate(s, o.force, keep);
  } else {
    const preflight::Workload w =
        o.replay_path.empty() ? pf::BuildWorkload(s) : pf::LoadWorkload(o.replay_path, s);
    RefuseHugeTrace(o, w.tasks_size());
    if (!o.emit_path.empty()) pf::SaveWorkload(w, o.emit_path);
    r = pf::SimulateWorkload(s, w, o.force, keep);
  }
  if (keep) {
    if (!r.step)
      throw pf::InputError({"--trace " + o.trace_path}, "", "no step was simulated (the job does not fit; --force simulates it)");
    if (const int err = pf::WriteFileAtomically(o.trace_path, pf::RenderTrace(s, trace)))
      throw pf::InputError({"--trace " + o.trace_path}, "", "cannot write: " + pf::WriteErrorReason(err));
  }
  if (r.step && o.replay_path.empty() && !o.no_alternative && !in_process)
    alternative = pf::FindAlternative(s, r.step->step_time);
  if (o.verbose && r.step)
    std::cerr << fmt::format("simulate: simulated {} tasks and {} network flows in {:.2f} s of wall time\n",
                             r.step->tasks, r.step->flows,
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "collectives") return pf::CollectivesCommand(argc - 1, argv + 1);
  if (argc > 1 && std::string(argv[1]) == "sweep") return pf::SweepCommand(argc - 1, argv + 1);
  if (argc > 1 && std::string(argv[1]) == "merge") return pf::MergeCommand(argc - 1, argv + 1);
  if (argc > 1 && std::string(argv[1]) == "plan") return pf::PlanCommand(argc - 1, argv + 1);
  CLI::App app{"Preflight: simulate a GPU training job before renting the cluster"};
  Options o;
  app.footer("Also: simulate collectives TOPOLOGY --op all_reduce --gpus 8 --sizes 1M:8G,\n"
             "      simulate sweep SCENARIO --grid parallel.tp=1,2,4,8 -o results.csv [--shard K/N] [--resume],\n"
             "      simulate merge -o all.csv shard*.csv,\n"
             "      simulate plan SCENARIO --deadline 14d [--budget 50kUSD] [--gpus A800,H800] (each with --help for more)");
  app.add_option("scenario", o.scenario_path, "scenario YAML file")->required();
  app.add_option("--format", o.format, "report format")->check(CLI::IsMember({"text", "json"}));
  app.add_option("--set", o.overrides, "override a scenario key, e.g. --set parallel.tp=4");
  app.add_option("--emit-workload", o.emit_path, "save the step's task graph (Protobuf) to FILE");
  app.add_option("--workload", o.replay_path, "simulate a saved task graph instead of building one");
  app.add_option("--trace", o.trace_path, "write the simulated step as a Chrome trace / Perfetto JSON file");
  app.add_flag("--force", o.force, "simulate even when the job does not fit in memory");
  app.add_flag("--fail-on-oom", o.fail_on_oom, "exit with status 1 when the job does not fit");
  app.add_flag("--no-alternative", o.no_alternative,
               "skip the search for a faster layout of the same job (a screen of every layout and one more simulation)");
  app.add_flag("--no-intervals", o.no_intervals,
               "skip the 90% intervals (four more simulations of the step for their sensitivity)");
  app.add_flag("--verbose", o.verbose, "print the simulation's size estimate before, and its real size after");
  app.add_option("--max-tasks", o.max_tasks, "largest step task graph to build (default 3e6); a larger one also lets the run go on longer")
      ->check(CLI::Range(1.0, 1e8));
  if (const int rc = pf::ParseCommandLine(app, argc, argv); rc != pf::kParsed) return rc;
  return pf::RunWithExitStatus("simulate", [&] {
    std::optional<pf::Alternative> alternative;
    const pf::Result r = Run(o, alternative);
    const pf::Alternative* alt = alternative ? &*alternative : nullptr;
    std::cout << (o.format == "json" ? pf::RenderJson(r, alt) : pf::RenderText(r, alt));
    return o.fail_on_oom && !r.memory.fits ? 1 : 0;
  });
}

// simulate: predict a training job's memory, step time, throughput and cost
// from a scenario file. Parse flags, call the library, print, map errors to
// exit codes (0 ok, 1 job does not fit and --fail-on-oom, 2 bad input).
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

#include "sim/base/error.h"
#include "sim/report/report.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/job/simulate.h"
#include "sim/workload/workload_builder.h"

int main(int argc, char** argv) {
  CLI::App app{"Preflight: simulate a GPU training job before renting the cluster"};
  std::string scenario_path, format = "text", emit_path, replay_path;
  std::vector<std::string> overrides;
  bool force = false, fail_on_oom = false;
  app.add_option("scenario", scenario_path, "scenario YAML file")->required();
  app.add_option("--format", format, "report format")->check(CLI::IsMember({"text", "json"}));
  app.add_option("--set", overrides, "override a scenario key, e.g. --set parallel.tp=4");
  app.add_option("--emit-workload", emit_path, "save the step's task graph (Protobuf) to FILE");
  app.add_option("--workload", replay_path, "simulate a saved task graph instead of building one");
  app.add_flag("--force", force, "simulate even when the job does not fit in memory");
  app.add_flag("--fail-on-oom", fail_on_oom, "exit with status 1 when the job does not fit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    pf::Scenario s = pf::LoadScenario(scenario_path, overrides);
    pf::Result r;
    if (!replay_path.empty()) {
      std::ifstream in(replay_path, std::ios::binary);
      preflight::Workload w;
      if (!in || !w.ParseFromIstream(&in))
        throw pf::InputError({replay_path}, "", "cannot read a preflight.Workload from this file");
      r = pf::SimulateWorkload(s, w);
    } else {
      if (!emit_path.empty()) {
        std::ofstream out(emit_path, std::ios::binary);
        if (!out || !pf::BuildWorkload(s).SerializeToOstream(&out))
          throw pf::InputError({emit_path}, "", "cannot write the workload to this file");
      }
      r = pf::Simulate(s, force);
    }
    std::cout << (format == "json" ? pf::RenderJson(r) : pf::RenderText(r));
    return fail_on_oom && !r.memory.fits ? 1 : 0;
  } catch (const pf::InputError& e) {
    std::cerr << "simulate: " << e.what() << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "simulate: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {  // a bug in Preflight, not in the input
    std::cerr << "simulate: internal error: " << e.what() << "\n";
    return 3;
  }
}

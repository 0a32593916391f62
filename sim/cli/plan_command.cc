#include "sim/cli/plan_command.h"

#include <filesystem>

#include <cstring>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "sim/base/error.h"
#include "sim/base/quantity_parse.h"
#include "sim/cli/exit_status.h"
#include "sim/cli/parse_args.h"
#include "sim/base/io.h"
#include "sim/plan/planner.h"
#include "sim/report/plan_html.h"

namespace pf {
namespace {

// A quantity of `dim` given to `flag`; InputError naming it otherwise. A
// budget in thousands may be written 50kUSD.
double FlagQuantity(const std::string& flag, std::string text, Dimension dim) {
  double scale = 1;
  if (dim == Dimension::kUsd && text.size() > 4 && (text[text.size() - 4] == 'k' || text[text.size() - 4] == 'K') &&
      text.substr(text.size() - 3) == "USD") {
    scale = 1000;
    text.erase(text.size() - 4, 1);
  }
  const ParsedQuantity q = ParseQuantity(text, dim);
  if (!q.value) throw InputError(Location{flag + " " + Shown(text), 0, 0}, "", q.error);
  if (!(*q.value > 0))
    throw InputError(Location{flag + " " + Shown(text), 0, 0}, "", "must be above zero");
  // A plan is for a job of days to months and a bill a company pays.
  constexpr double kMaxDeadline = 10 * 365.25 * 86400, kMaxBudget = 1e10;
  const double v = *q.value * scale;
  if (dim == Dimension::kSeconds && v > kMaxDeadline)
    throw InputError(Location{flag + " " + Shown(text), 0, 0}, "", "is beyond 10 years: give the job's deadline (14d, 36h)");
  if (dim == Dimension::kUsd && v > kMaxBudget)
    throw InputError(Location{flag + " " + Shown(text), 0, 0}, "", "is above 10,000,000,000 USD: give the job's budget (50kUSD)");
  return v;
}

}  // namespace

int PlanCommand(int argc, char** argv) {
  CLI::App app{"Which node type, node count and layout finish the scenario's job by a deadline at the least cost"};
  app.name("simulate plan");
  PlanOptions o;
  std::string deadline, budget, gpus, report;
  app.add_option("scenario", o.scenario, "scenario YAML file (its model, training and job length)")->required();
  app.add_option("--deadline", deadline, "the job's wall clock at most, with its unit: 14d, 36h")->required();
  app.add_option("--budget", budget, "its cost at most: 50kUSD, 20000USD");
  CLI::Option* gpus_flag = app.add_option("--gpus", gpus, "GPU types to consider, comma-separated (A100,H100,A800,RTX-4090); default: every priced node");
  app.add_option("--max-gpus", o.max_gpus, "most GPUs in a candidate (default 512)")->check(CLI::Range(1, 16384));
  app.add_option("--simulate", o.simulate, "candidates simulated on SimGrid (default 6)")->check(CLI::Range(1, 100));
  app.add_option("--set", o.sets, "override a scenario key first");
  app.add_option("--report", report, "also write the plan as one self-contained HTML file with charts");
  if (const int rc = ParseCommandLine(app, argc, argv); rc != kParsed) return rc;
  return RunWithExitStatus("simulate plan", [&] {
    o.deadline = Seconds(FlagQuantity("--deadline", deadline, Dimension::kSeconds));
    if (!budget.empty()) o.budget_usd = FlagQuantity("--budget", budget, Dimension::kUsd);
    std::istringstream in(gpus);
    for (std::string g; std::getline(in, g, ',');)
      if (!g.empty()) o.gpus.push_back(g);
    if (gpus_flag->count() > 0 && o.gpus.empty())
      throw InputError(Location{"--gpus " + Shown(gpus), 0, 0}, "",
                       "names no GPU type: give a comma-separated list (A100,H100) or leave --gpus out for every priced node");
    std::error_code same;
    if (!report.empty() && std::filesystem::equivalent(report, o.scenario, same))
      throw InputError(Location{"--report " + report, 0, 0}, "", "is the scenario file itself; refusing to overwrite an input");
    o.trace = !report.empty();
    const Plan plan = MakePlan(o);
    std::cout << RenderPlan(o, plan);
    if (!report.empty()) {
      if (const int err = WriteFileAtomically(report, RenderPlanHtml(o, plan)))
        throw InputError(Location{"--report " + report, 0, 0}, "", "cannot write: " + WriteErrorReason(err));
      std::cout << "  report: " << report << "\n";
    }
    return 0;
  });
}

}  // namespace pf

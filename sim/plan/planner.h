// `simulate plan`: which node type, how many nodes and which layout finish
// the scenario's job by a deadline (and within a budget) at the least cost.
// Every candidate (node type x node count x tp, pp, dp, ZeRO stage,
// micro-batch, recompute) that validates and fits GPU and host memory is
// screened analytically (screen.h); the cheapest that meet the deadline are
// simulated on SimGrid, which ranks them, gives the time-vs-cost Pareto
// front and the recommendation, and says how far the screen was off.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/job/result.h"
#include "sim/plan/screen.h"

namespace pf {

struct PlanOptions {
  std::string scenario;
  std::vector<std::string> sets;
  Seconds deadline;                    // the job's wall clock at most
  std::optional<double> budget_usd;    // its cost at most
  std::vector<std::string> gpus;       // GPU names to consider (substring of the catalog name); empty: every node
  int max_gpus = 512;
  int simulate = 6;                    // candidates simulated on SimGrid
  bool trace = false;                  // keep the recommended candidate's simulated step (for the report)
};

struct Candidate {
  std::string node;
  int nodes = 0, gpus = 0;
  ParallelSpec parallel;
  int micro_batch = 0;
  Recompute recompute = Recompute::kNone;
  double per_node_hour = 0;
  int box_gpus = 0;  // the GPUs of the node type it rents (all of them, or a share)
  std::string price_source;
  Bytes memory, capacity;               // per GPU, the fullest stage, and the GPU's
  ScreenEstimate screen;
  double screen_wall_s = 0, screen_cost = 0;
  std::optional<StepResult> simulated;  // for the simulated ones
  double wall_s = 0, cost = 0;          // simulated when simulated, else screened
  std::string bottleneck;               // the largest part of the step beyond compute
  std::vector<std::string> overrides;   // the --set flags that make the scenario this candidate
  std::string Layout() const;
};

// "8 GPUs", "1 GPU": the GPUs a candidate rents of each node.
std::string GpusOfNode(const Candidate& c);
// Its price as the recommendation states it: per node-hour for whole
// boxes, per hour of the share otherwise, and the source.
std::string PriceLine(const Candidate& c);

struct Plan {
  long long screened = 0, valid = 0, fit = 0, meet = 0;
  double screen_seconds = 0, simulate_seconds = 0;
  std::vector<Candidate> simulated;   // ranked by cost (those that meet first)
  std::vector<Candidate> pareto;      // screened candidates no other beats on both time and cost
  std::optional<size_t> recommended;  // index into `simulated`
  std::vector<std::string> reasons;
  std::vector<std::string> left_out;  // candidates whose simulation failed, and why
  double worst_disagreement = 0;      // largest |screened / simulated step - 1| among the simulated
  std::vector<std::pair<double, double>> cloud;  // (wall clock s, cost USD) of screened candidates that meet, at most 4,000
  std::optional<StepTrace> trace;     // the recommended candidate's step, with PlanOptions::trace
  std::optional<Scenario> recommended_scenario;
};

Plan MakePlan(const PlanOptions& o);

// The plan as text.
std::string RenderPlan(const PlanOptions& o, const Plan& p);

}  // namespace pf

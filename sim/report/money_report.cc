#include "sim/report/money_report.h"

#include <algorithm>
#include <string>
#include <vector>

#include <cmath>

#include <fmt/format.h>

#include "sim/report/format.h"
#include "sim/spec/names.h"

namespace pf {
namespace {

using nlohmann::json;

// Whole dollars with thousands separators: "3,265,190".
std::string Usd0(double x) {
  std::string digits = fmt::format("{:.0f}", std::abs(x)), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (x < 0 ? "-" : "") + out;
}
std::string Days(double s) { return Duration(Seconds(s)); }

// Cost per billion tokens (per million images for a vision model).
double PerUnit(const Scenario& s, double cost) {
  const bool vision = s.model.kind == ModelKind::kVision;
  return cost / (s.training.job_tokens / (vision ? 1e6 : 1e9));
}
const char* PerUnitName(const Scenario& s) {
  return s.model.kind == ModelKind::kVision ? "USD per M images" : "USD per B tokens";
}

std::string RateText(const Scenario& s, const Rate& r) {
  const int gpus = s.cluster.node.gpus_per_node;
  const std::string what = r.per_gpu ? fmt::format("{:.2f} USD per GPU-hour x {} GPUs", r.per_node_hour.value() / gpus,
                                                   s.cluster.gpus())
                                     : fmt::format("{:.2f} USD per node-hour x {} node{}", r.per_node_hour.value(),
                                                   s.cluster.nodes, s.cluster.nodes == 1 ? "" : "s");
  return what + (r.term_hours > 0 ? fmt::format(", {:.0f}-day terms", r.term_hours / 24) : "");
}

json SpreadJson(const std::optional<JobSpread>& sp, const char* key, const Spread JobSpread::*field, json& j) {
  j[std::string(key) + "_p05"] = sp ? json((*sp.*field).p05) : json(nullptr);
  j[std::string(key) + "_p50"] = sp ? json((*sp.*field).p50) : json(nullptr);
  j[std::string(key) + "_p95"] = sp ? json((*sp.*field).p95) : json(nullptr);
  return j;
}

}  // namespace

void JobLines(std::string& o, const Result& r) {
  const Scenario& s = r.scenario;
  const StepResult& st = *r.step;
  const JobTime& t = st.time;
  if (t.startup.value() > 0) o += fmt::format("  start-up             {}, GPUs idle\n", Duration(t.startup));
  if (t.staging.value() > 0)
    o += fmt::format("  staging              {} copying the dataset from {} to {}, GPUs idle\n", Duration(t.staging),
                     s.job.stage_from, s.data.tier);
  if (t.evals > 0)
    o += fmt::format("  evaluation           {} of {} batches every {} steps: {}\n", t.evals, s.job.eval_batches,
                     s.job.eval_every_steps, Duration(t.eval));
  if (!st.cost) {
    o += "  cost                 not computed: the scenario has no price\n";
    return;
  }
  const Rate& rate = s.price.rate();
  o += fmt::format("  cost                 {} USD{} ({}, {}{})\n", Usd0(st.cost->value()),
                   st.spread ? " " + Within(st.spread->cost, Usd0) : "", ToString(s.price.mode), RateText(s, rate),
                   s.price.offer.empty() ? "" : "; offer " + s.price.offer);
}

void MoneyTables(std::string& o, const Result& r) {
  const Scenario& s = r.scenario;
  const StepResult& st = *r.step;
  const PriceSpec& p = s.price;
  o += p.offer.empty() ? std::string("\nPricing (the scenario's price)\n")
                       : fmt::format("\nPricing modes (offer {}: {}, {})\n", p.offer, p.provider, p.region);
  struct Row {
    std::string mode, wall, money, unit, terms;
    double rate;
  };
  std::vector<Row> rows;
  size_t wall_width = 36, money_width = 36;  // wider when a figure needs it (a 9-digit bill)
  bool examples = false;
  for (const ModeOutcome& m : st.modes) {
    const Rate& rate = *p.Find(m.mode);
    examples |= rate.example;
    const double cost = m.bill.total();
    Row row{ToString(m.mode), Days(m.time.wall.value()), Usd0(cost), fmt::format("{:.1f}", PerUnit(s, cost)),
            rate.term_hours > 0 ? fmt::format("  ({:.0f}-day terms)", rate.term_hours / 24) : "",
            rate.per_node_hour.value()};
    if (m.spread) {
      row.wall += " " + Range(m.spread->wall, Days);
      row.money += " " + Range(m.spread->cost, Usd0);
      row.unit += " " + Range(m.spread->cost, [&](double x) { return fmt::format("{:.1f}", PerUnit(s, x)); });
    }
    wall_width = std::max(wall_width, row.wall.size() + 3);
    money_width = std::max(money_width, row.money.size() + 3);
    rows.push_back(std::move(row));
  }
  o += fmt::format("  {:<10}{:>11}  {:<{}}{:<{}}{}\n", "mode", "USD/node-h", "wall clock [90%]", wall_width,
                   "cost USD [90%]", money_width, PerUnitName(s) + std::string(" [90%]"));
  for (const Row& row : rows)
    o += fmt::format("  {:<10}{:>11.2f}  {:<{}}{:<{}}{}{}\n", row.mode, row.rate, row.wall, wall_width, row.money,
                     money_width, row.unit, row.terms);
  if (p.Find(PriceMode::kSpot) && !(s.interruptions.enabled && s.interruptions.preemptions_per_hour > 0))
    o += "  spot: not shown without interruptions.preemptions_per_hour (and a checkpoint section)\n";
  if (examples) o += "  (example prices, not published ones: edit topologies/offers.yaml or give price.per_node_hour)\n";
  if (st.time.interruptions)
    o += fmt::format("  checkpoint interval  {} now; Daly's optimum {} (mode {})\n", Duration(st.time.interval),
                     Duration(st.time.interruptions->optimal_interval), ToString(p.mode));
  const Bill& b = *st.bill;
  o += fmt::format("\nBill ({}; per GB = 1e9 bytes, a month = 730 h)\n", ToString(b.mode));
  for (const BillLine& l : b.lines)
    o += fmt::format("  {:<58}{:>12.2f} {:<12} x {:>9.4f} = {:>11.2f} USD\n", l.item, l.quantity, l.unit, l.unit_price,
                     l.amount());
  o += fmt::format("  {:<58}{:>51.2f} USD\n", "total", b.total());
  bool unpriced = false;
  for (const StorageTier& t : s.cluster.storage)
    unpriced |= !p.Tier(t.name) && t.kind != StorageKind::kLocalNvme && t.kind != StorageKind::kPageCache;
  if (unpriced) o += "  (storage tiers without a price are not billed: give price.storage.TIER)\n";
}

json MoneyJson(const Result& r) {
  const StepResult& st = *r.step;
  const Scenario& s = r.scenario;
  json j = {{"startup_s", st.time.startup.value()},
            {"staging_s", st.time.staging.value()},
            {"eval_s", st.time.eval.value()},
            {"evaluations", st.time.evals}};
  SpreadJson(st.spread, "step_time_s", &JobSpread::step, j);
  SpreadJson(st.spread, "wall_clock_s", &JobSpread::wall, j);
  SpreadJson(st.spread, "cost_usd", &JobSpread::cost, j);
  if (st.sensitivity)
    j["sensitivity"] = {{"kernel_efficiency", st.sensitivity->kernel}, {"network_efficiency", st.sensitivity->network}};
  if (st.time.interruptions) j["optimal_checkpoint_interval_s"] = st.time.interruptions->optimal_interval.value();
  if (!st.bill) return j;
  j["price"] = {{"offer", s.price.offer}, {"provider", s.price.provider}, {"region", s.price.region},
                {"mode", ToString(s.price.mode)}};
  json lines = json::array();
  for (const BillLine& l : st.bill->lines)
    lines.push_back({{"item", l.item}, {"quantity", l.quantity}, {"unit", l.unit}, {"unit_price_usd", l.unit_price},
                     {"amount_usd", l.amount()}});
  j["bill"] = lines;
  json modes = json::array();
  for (const ModeOutcome& m : st.modes) {
    const Rate& rate = *s.price.Find(m.mode);
    json e = {{"mode", ToString(m.mode)},
              {"per_node_hour_usd", rate.per_node_hour.value()},
              {"example_price", rate.example},
              {"price_source", rate.source},
              {"wall_clock_s", m.time.wall.value()},
              {"cost_usd", m.bill.total()},
              {"cost_per_unit_usd", PerUnit(s, m.bill.total())}};
    SpreadJson(m.spread, "wall_clock_s", &JobSpread::wall, e);
    SpreadJson(m.spread, "cost_usd", &JobSpread::cost, e);
    modes.push_back(e);
  }
  j["modes"] = modes;
  return j;
}

}  // namespace pf

#include "sim/report/plan_html.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "sim/model/memory_model.h"

namespace pf {
namespace {

// Chart size (CSS pixels) and margins.
constexpr double kWidth = 720, kHeight = 300, kLeft = 70, kRight = 20, kTop = 20, kBottom = 45;

// The breakdown's parts, in stacking order, with their colours.
const std::vector<std::pair<std::string, std::string>>& Parts() {
  static const std::vector<std::pair<std::string, std::string>> parts = {
      {"compute", "#4c78a8"},     {"optimizer", "#72b7b2"}, {"TP comm", "#f58518"}, {"PP comm", "#e45756"},
      {"DP comm", "#54a24b"},     {"host I/O", "#9d755d"},  {"bubble", "#bab0ac"},  {"idle", "#d6d6d6"},
      {"data stall", "#b279a2"}, {"EP comm", "#eeca3b"},  {"CP comm", "#ff9da6"}};
  return parts;
}
std::vector<double> Values(const Breakdown& b) {
  return {b.compute.value(), b.optimizer.value(), b.tp_comm.value(), b.pp_comm.value(), b.dp_comm.value(),
          b.io.value(),      b.bubble.value(),    b.idle.value(),    b.data_stall.value(), b.ep_comm.value(),
          b.cp_comm.value()};
}

std::string Num(double x) { return fmt::format("{:.4g}", x); }

// A chart's frame: an <svg> with a title, axes and tick labels.
std::string Frame(const std::string& id, const std::string& title, const std::string& x_label,
                  const std::string& y_label, const std::string& body) {
  return fmt::format(
      "<figure id=\"{0}\"><figcaption>{1}</figcaption>\n<svg class=\"chart\" width=\"{2}\" height=\"{3}\" "
      "viewBox=\"0 0 {2} {3}\" role=\"img\" aria-label=\"{1}\" xmlns=\"http://www.w3.org/2000/svg\">\n"
      "<line x1=\"{4}\" y1=\"{5}\" x2=\"{4}\" y2=\"{6}\" stroke=\"#333\"/>"
      "<line x1=\"{4}\" y1=\"{6}\" x2=\"{7}\" y2=\"{6}\" stroke=\"#333\"/>\n"
      "<text x=\"{8}\" y=\"{9}\" text-anchor=\"middle\">{10}</text>"
      "<text transform=\"translate(14,{11}) rotate(-90)\" text-anchor=\"middle\">{12}</text>\n{13}</svg></figure>\n",
      id, HtmlEscape(title), kWidth, kHeight, kLeft, kTop, kHeight - kBottom, kWidth - kRight,
      (kLeft + kWidth - kRight) / 2, kHeight - 8, HtmlEscape(x_label), (kTop + kHeight - kBottom) / 2,
      HtmlEscape(y_label), body);
}

// Linear scale of [lo, hi] onto [a, b].
struct Scale {
  double lo, hi, a, b;
  double operator()(double x) const { return hi > lo ? a + (x - lo) / (hi - lo) * (b - a) : (a + b) / 2; }
};

// Tick labels on both axes of a chart.
std::string Ticks(const Scale& x, const Scale& y, const std::string& x_unit, const std::string& y_unit) {
  std::string out;
  for (int k = 0; k <= 4; ++k) {
    const double xv = x.lo + (x.hi - x.lo) * k / 4, yv = y.lo + (y.hi - y.lo) * k / 4;
    out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}{}</text>", x(xv),
                       kHeight - kBottom + 15, Num(xv), x_unit);
    out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}{}</text>\n", kLeft - 5,
                       y(yv) + 4, Num(yv), y_unit);
  }
  return out;
}

std::string ParetoChart(const Plan& p) {
  double wmax = 0, cmax = 0;
  for (const auto& [w, c] : p.cloud) wmax = std::max(wmax, w), cmax = std::max(cmax, c);
  for (const Candidate& c : p.simulated) wmax = std::max(wmax, c.wall_s), cmax = std::max(cmax, c.cost);
  const Scale x{0, wmax / 3600, kLeft, kWidth - kRight}, y{0, cmax, kHeight - kBottom, kTop};
  std::string body = Ticks(x, y, " h", "");
  for (const auto& [w, c] : p.cloud)
    body += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2\" fill=\"#9ecae9\"/>", x(w / 3600), y(c));
  std::string front;
  for (const Candidate& c : p.pareto) front += fmt::format("{:.1f},{:.1f} ", x(c.screen_wall_s / 3600), y(c.screen_cost));
  body += fmt::format("\n<polyline points=\"{}\" fill=\"none\" stroke=\"#f58518\" stroke-width=\"2\"/>\n", front);
  for (size_t k = 0; k < p.simulated.size(); ++k) {
    const Candidate& c = p.simulated[k];
    body += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\" fill=\"{}\" stroke=\"#000\"><title>{}</title></circle>"
                        "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\">{}</text>\n",
                        x(c.wall_s / 3600), y(c.cost), p.recommended && *p.recommended == k ? "#e45756" : "#4c78a8",
                        HtmlEscape(c.node + ", " + c.Layout()), x(c.wall_s / 3600) + 7, y(c.cost) - 7, k + 1);
  }
  return Frame("pareto", "Time against cost: the screened candidates that meet the constraints (blue dots, at most 4,000), the "
                         "Pareto front (orange), the simulated ones (numbered; red: recommended)",
               "job wall clock (hours)", "job cost (USD)", body);
}

std::string BreakdownChart(const Plan& p) {
  double most = 0;
  for (const Candidate& c : p.simulated) most = std::max(most, c.simulated->step_time.value());
  const double row = (kHeight - kTop - kBottom) / std::max<size_t>(1, p.simulated.size());
  const Scale x{0, most, kLeft, kWidth - kRight};
  std::string body;
  for (int k = 0; k <= 4; ++k)
    body += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{} s</text>", x(most * k / 4),
                        kHeight - kBottom + 15, Num(most * k / 4));
  for (size_t k = 0; k < p.simulated.size(); ++k) {
    const std::vector<double> v = Values(p.simulated[k].simulated->breakdown);
    double at = 0;
    const double top = kTop + row * k + 2, h = std::max(4.0, row - 4);
    body += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>", kLeft - 5,
                        top + h / 2 + 4, k + 1);
    for (size_t i = 0; i < v.size(); ++i) {
      if (v[i] <= 0) continue;
      body += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"><title>{}: {} s</title></rect>",
                          x(at), top, std::max(0.5, x(at + v[i]) - x(at)), h, Parts()[i].second, Parts()[i].first, Num(v[i]));
      at += v[i];
    }
    body += "\n";
  }
  std::string legend;
  for (const auto& [name, color] : Parts())
    legend += fmt::format("<span class=\"key\"><span style=\"background:{}\"></span>{}</span> ", color, name);
  return Frame("breakdown", "Where each simulated candidate's step goes (rank on the left)", "seconds per step",
               "candidate", body) +
         "<p class=\"legend\">" + legend + "</p>\n";
}

std::string ScalingChart(const Plan& p) {
  double gmax = 1;
  for (const Candidate& c : p.simulated) gmax = std::max(gmax, double(c.gpus));
  const Scale x{0, gmax, kLeft, kWidth - kRight}, y{0, 1, kHeight - kBottom, kTop};
  std::string body = Ticks(x, y, "", "");
  for (size_t k = 0; k < p.simulated.size(); ++k) {
    const Candidate& c = p.simulated[k];
    body += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\" fill=\"#54a24b\"><title>{}</title></circle>"
                        "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\">{}</text>\n",
                        x(c.gpus), y(c.simulated->scaling_efficiency), HtmlEscape(c.node + ", " + c.Layout()),
                        x(c.gpus) + 7, y(c.simulated->scaling_efficiency) - 7, k + 1);
  }
  return Frame("scaling", "Scaling efficiency (busy time over step time) against GPU count", "GPUs", "scaling efficiency",
               body);
}

std::string MemoryChart(const Plan& p) {
  double most = 1;
  for (const Candidate& c : p.simulated) most = std::max({most, c.memory.value(), c.capacity.value()});
  const double gib = 1024.0 * 1024 * 1024;
  const Scale y{0, most / gib, kHeight - kBottom, kTop};
  std::string body;
  for (int k = 0; k <= 4; ++k)
    body += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{} GiB</text>\n", kLeft - 5,
                        y(most / gib * k / 4) + 4, Num(most / gib * k / 4));
  const double slot = (kWidth - kRight - kLeft) / std::max<size_t>(1, p.simulated.size());
  for (size_t k = 0; k < p.simulated.size(); ++k) {
    const Candidate& c = p.simulated[k];
    const double left = kLeft + slot * k + slot * 0.2, w = slot * 0.6;
    body += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#4c78a8\"><title>{:.1f} GiB</title></rect>"
                        "<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e45756\" stroke-width=\"2\"/>"
                        "<text class=\"tick\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                        left, y(c.memory.value() / gib), w, y(0) - y(c.memory.value() / gib), c.memory.value() / gib,
                        left - 4, left + w + 4, y(c.capacity.value() / gib), y(c.capacity.value() / gib), left + w / 2,
                        kHeight - kBottom + 15, k + 1);
  }
  return Frame("memory", "Memory per GPU (bars) against the GPU's capacity (red)", "candidate", "GiB per GPU", body);
}

// The first 16 worker GPUs' kernel tracks of the recommended step.
std::string TimelineChart(const Plan& p) {
  if (!p.trace) return "";
  const preflight::Workload& w = p.trace->workload;
  const TaskTimes& t = p.trace->times;
  std::vector<uint32_t> gpus(w.workers().begin(), w.workers().end());
  std::sort(gpus.begin(), gpus.end());
  if (gpus.size() > 16) gpus.resize(16);
  std::map<uint32_t, size_t> row_of;
  for (size_t k = 0; k < gpus.size(); ++k) row_of[gpus[k]] = k;
  const Scale x{0, t.makespan_s, kLeft, kWidth - kRight};
  const double row = (kHeight - kTop - kBottom) / std::max<size_t>(1, gpus.size());
  std::string body;
  for (int k = 0; k <= 4; ++k)
    body += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{} s</text>",
                        x(t.makespan_s * k / 4), kHeight - kBottom + 15, Num(t.makespan_s * k / 4));
  for (const auto& [g, k] : row_of)
    body += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">GPU {}</text>", kLeft - 5,
                        kTop + row * k + row / 2 + 4, g);
  for (int i = 0; i < w.tasks_size(); ++i) {
    const preflight::Task& task = w.tasks(i);
    if (!task.has_compute()) continue;
    const auto r = row_of.find(task.compute().gpu());
    if (r == row_of.end()) continue;
    const bool fwd = task.name() == "fwd";
    body += fmt::format("<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" fill=\"{}\"/>", x(t.start_s[i]),
                        kTop + row * r->second + 1, std::max(0.3, x(t.end_s[i]) - x(t.start_s[i])), std::max(2.0, row - 2),
                        task.category() == preflight::OPTIMIZER ? "#72b7b2" : fwd ? "#4c78a8" : "#9ecae9");
  }
  return Frame("timeline", "One simulated step of the recommended configuration: each GPU's kernels (dark: forward, "
                           "light: backward, green: optimizer); gaps are waits (simulate --trace gives every event)",
               "time in the step", "", body);
}

}  // namespace

std::string HtmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string RenderPlanHtml(const PlanOptions& o, const Plan& p) {
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Preflight plan</title>\n<style>\n"
                  "body{font-family:sans-serif;max-width:800px;margin:2em auto;color:#222}"
                  "table{border-collapse:collapse;font-size:13px}td,th{border-bottom:1px solid #ddd;padding:3px 6px;text-align:right}"
                  "td:nth-child(2),td:nth-child(5){text-align:left}.chart text{font-size:11px}.tick{font-size:10px;fill:#444}"
                  "figure{margin:1.5em 0}figcaption{font-weight:bold;margin-bottom:.3em}.key{margin-right:1em}"
                  ".key span{display:inline-block;width:10px;height:10px;margin-right:4px}"
                  "@media print{body{margin:0}figure{break-inside:avoid}}\n</style></head><body>\n";
  h += fmt::format("<h1>Plan: {}</h1>\n", HtmlEscape(o.scenario));
  h += fmt::format("<p>Finish within {:.1f} hours{}; GPUs: {}; at most {} GPUs.</p>\n", o.deadline.value() / 3600,
                   o.budget_usd ? fmt::format(" and {:.0f} USD", *o.budget_usd) : "",
                   HtmlEscape(o.gpus.empty() ? std::string("every priced node") : [&] {
                     std::string g;
                     for (const std::string& x : o.gpus) g += (g.empty() ? "" : ", ") + x;
                     return g;
                   }()),
                   o.max_gpus);
  h += fmt::format("<p>Screened {} configurations ({} valid, {} fit in memory with {:.0f}% to spare, {} meet the "
                   "constraints); simulated {} on SimGrid; the screen was within {:.1f}% of the simulated step.</p>\n",
                   p.screened, p.valid, p.fit, 100 * kThinHeadroom, p.meet, p.simulated.size(),
                   100 * p.worst_disagreement);
  if (p.recommended) {
    const Candidate& r = p.simulated[*p.recommended];
    h += fmt::format("<h2>Recommendation: {} x {}, {}</h2>\n<ul>\n", r.nodes, HtmlEscape(r.node), HtmlEscape(r.Layout()));
    for (const std::string& why : p.reasons) h += "<li>" + HtmlEscape(why) + "</li>\n";
    h += "<li>price: " + HtmlEscape(PriceLine(r)) + "</li>\n</ul>\n";
  } else {
    h += "<h2>No simulated candidate meets the constraints</h2>\n";
  }
  h += "<table>\n<tr><th>rank</th><th>node</th><th>nodes</th><th>GPUs</th><th>layout</th><th>step (s)</th><th>job (h)</th>"
       "<th>cost (USD)</th><th>screen vs simulated</th></tr>\n";
  for (size_t k = 0; k < p.simulated.size(); ++k) {
    const Candidate& c = p.simulated[k];
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.2f}</td><td>{:.1f}</td><td>{:.0f}</td>"
                     "<td>{:+.1f}%</td></tr>\n",
                     k + 1, HtmlEscape(c.node), c.nodes, c.gpus, HtmlEscape(c.Layout()), c.simulated->step_time.value(),
                     c.wall_s / 3600, c.cost, 100 * (c.screen.step.value() / c.simulated->step_time.value() - 1));
  }
  h += "</table>\n";
  if (!p.simulated.empty()) h += ParetoChart(p) + BreakdownChart(p) + ScalingChart(p) + MemoryChart(p) + TimelineChart(p);
  h += "<p><small>Preflight: every figure simulated or screened from the scenario; prices from topologies/offers.yaml "
       "or the scenario.</small></p>\n</body></html>\n";
  return h;
}

}  // namespace pf

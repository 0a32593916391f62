// A plan (plan/planner.h) as one self-contained HTML file: no network, no
// script, no external font; inline SVG charts (the time-vs-cost Pareto
// front over every screened candidate, the step-time breakdown of each
// simulated candidate, scaling efficiency against GPU count, memory per GPU
// against capacity, and the timeline of one simulated step of the
// recommended configuration); readable on screen and in print. Every string
// that came from a scenario or a flag is HTML-escaped.
#pragma once

#include <string>

#include "sim/plan/planner.h"

namespace pf {

std::string RenderPlanHtml(const PlanOptions& o, const Plan& p);

// `text` with & < > " ' as HTML entities.
std::string HtmlEscape(const std::string& text);

}  // namespace pf

// The step timeline (--trace): well-formed Chrome trace events, no two
// events of a track overlapping, the events spanning exactly the step, and
// the waits named by what the GPU waited for (a pipeline bubble, data).
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/job/simulate.h"
#include "sim/report/trace.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/test_util.h"

namespace pf {
namespace {

using nlohmann::json;

struct Traced {
  Result result;
  json trace;
};

Traced Trace(const std::string& file, const std::vector<std::string>& sets = {}) {
  const Scenario s = LoadScenario(testing_util::kRoot + "/scenarios/" + file, sets);
  StepTrace t;
  Traced out;
  out.result = Simulate(s, false, &t);
  out.trace = json::parse(RenderTrace(s, t));
  return out;
}

// Checks the structure every trace must have; returns the complete events.
std::vector<json> CheckStructure(const Traced& x) {
  EXPECT_TRUE(x.trace.contains("traceEvents"));
  std::vector<json> complete;
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> tracks;
  double first = 1e300, last = 0;
  for (const json& e : x.trace["traceEvents"]) {
    EXPECT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("name")) << e.dump();
    if (e["ph"] == "M") continue;
    EXPECT_EQ(e["ph"], "X") << e.dump();
    const double ts = e["ts"].get<double>(), dur = e["dur"].get<double>();
    EXPECT_GE(ts, 0);
    EXPECT_GE(dur, 0);
    tracks[{e["pid"].get<int>(), e["tid"].get<int>()}].push_back({ts, ts + dur});
    first = std::min(first, ts), last = std::max(last, ts + dur);
    complete.push_back(e);
  }
  for (auto& [track, spans] : tracks) {
    std::sort(spans.begin(), spans.end());
    for (size_t k = 1; k < spans.size(); ++k)
      EXPECT_GE(spans[k].first, spans[k - 1].second - 1e-3) << "overlap on pid " << track.first << " tid " << track.second;
  }
  EXPECT_NEAR(first, 0, 1e-3);
  EXPECT_NEAR(last / 1e6, x.result.step->step_time.value(), 1e-9 * last);
  return complete;
}

int Count(const std::vector<json>& events, const std::string& name) {
  return static_cast<int>(std::count_if(events.begin(), events.end(), [&](const json& e) { return e["name"] == name; }));
}

TEST(Trace, APipelinedStepShowsItsKernelsCollectivesSendsAndBubbles) {
  const Traced x = Trace("llama70b_512xH100.yaml");
  const std::vector<json> events = CheckStructure(x);
  EXPECT_GT(Count(events, "fwd"), 0);
  EXPECT_GT(Count(events, "bwd"), 0);
  EXPECT_GT(Count(events, "pp_send_act"), 0);
  EXPECT_GT(Count(events, "tp_fwd"), 0);
  EXPECT_GT(Count(events, "pipeline bubble"), 0);
  // Every worker GPU has a process: 4 stages x 16 DP ranks.
  int processes = 0;
  for (const json& e : x.trace["traceEvents"]) processes += e["ph"] == "M" && e["name"] == "process_name";
  EXPECT_EQ(processes, 64);
}

TEST(Trace, ADecodeBoundStepShowsItsDataWaitsAndTheCpu) {
  const Traced x = Trace("resnet50_1xA100_timm_jpeg.yaml");
  const std::vector<json> events = CheckStructure(x);
  EXPECT_GT(Count(events, "data wait"), 0);
  EXPECT_GT(Count(events, "data_decode"), 0);
  // The wait the trace shows is the stall the breakdown counts.
  double waited = 0;
  for (const json& e : events)
    if (e["name"] == "data wait") waited += e["dur"].get<double>() / 1e6;
  EXPECT_NEAR(waited, x.result.step->breakdown.data_stall.value(), 1e-6);
}

// A host-bound pass says how long its GPU waited for the host (one sample
// of ~300 tokens a micro-batch on the padded LLaMA-Factory example), and
// those waits add up to the breakdown's.
TEST(Trace, AHostBoundPassCarriesItsHostWait) {
  const Traced x = Trace("7b_lora_padded_1xA100.yaml", {"training.micro_batch=1", "training.global_batch=8"});
  double waited_us = 0;
  for (const json& e : CheckStructure(x))
    if (e.contains("args") && e["args"].contains("host_wait_us")) {
      EXPECT_LE(e["args"]["host_wait_us"].get<double>(), e["dur"].get<double>() + 1e-6) << e.dump();
      waited_us += e["args"]["host_wait_us"].get<double>();
    }
  EXPECT_GT(waited_us, 0);
  EXPECT_NEAR(waited_us / 1e6, x.result.step->breakdown.host_wait.value(), 1e-6 * waited_us);
}

TEST(Trace, ScenarioTextComesThroughAsJsonText) {
  const Traced x = Trace("7b_lora_4x4090.yaml", {"name=a \"quoted\" <name> & more"});
  EXPECT_EQ(x.trace["otherData"]["scenario"].get<std::string>(), "a \"quoted\" <name> & more");
}

}  // namespace
}  // namespace pf

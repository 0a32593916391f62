// Fuzz target: the scenario loader with --set overrides, then what
// `simulate` does with a scenario that loads: the memory verdict, the fit
// suggestions, the task graph, a SimGrid run and both reports, each answer
// checked by the oracles of fuzz_support.h.
//
// Input: a scenario YAML document. Each of its lines that starts with
// "#--set " gives one override, as `simulate --set` takes it (at most
// kMaxOverrides; being YAML comments they leave the document alone), so an
// input reproduces with
//   build/simulate INPUT --set KEY=VALUE ...   (the flags of its #--set lines)
// or with `build/scenario_fuzzer INPUT`.
//
// Expected: pf::InputError from LoadScenario. A finding: any other exception,
// an exception after the scenario loaded, a crash, a sanitizer report, a
// hang, a blow-up, or an answer an oracle refuses.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <unistd.h>

#include "sim/base/error.h"
#include "sim/job/simulate.h"
#include "sim/model/fit_suggestions.h"
#include "sim/model/memory_model.h"
#include "sim/report/report.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/spec/validate.h"
#include "sim/workload/workload_builder.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace pf;

constexpr int kMaxOverrides = 8;
// Past these the target stops at the memory verdict (larger clusters) or at
// the task graph (larger graphs): one SimGrid run of a 64-GPU graph takes a
// second or more under the sanitizers, and the fuzzer needs thousands of
// runs. Building the graph is still a finding if it hangs or blows up.
constexpr int kMaxBuiltGpus = 64;
constexpr int kMaxSimulatedTasks = 20000;

const char kSetPrefix[] = "#--set ";

// The scenario file of the input being run (the loader reads a path). It
// is removed after each input, and before a finding aborts; a crash leaves
// it behind (in $TMPDIR or /tmp).
std::string scenario_path;

void RemoveScenarioFile() { unlink(scenario_path.c_str()); }

void WriteScenarioFile(const uint8_t* data, size_t size) {
  if (scenario_path.empty()) {
    const char* dir = std::getenv("TMPDIR");
    scenario_path = std::string(dir && *dir ? dir : "/tmp") + "/pf_scenario_fuzzer." +
                    std::to_string(getpid()) + ".yaml";
    fuzz::SetCleanup(RemoveScenarioFile);
  }
  FILE* f = std::fopen(scenario_path.c_str(), "wb");
  if (f == nullptr || std::fwrite(data, 1, size, f) != size || std::fclose(f) != 0)
    fuzz::Finding("cannot write the temporary scenario file " + scenario_path);
}

// The "#--set KEY=VALUE" lines of the input, in order.
std::vector<std::string> Overrides(const std::string& text) {
  std::vector<std::string> out;
  for (size_t at = 0; at < text.size() && out.size() < kMaxOverrides;) {
    size_t eol = text.find('\n', at);
    if (eol == std::string::npos) eol = text.size();
    if (text.compare(at, sizeof kSetPrefix - 1, kSetPrefix) == 0) {
      std::string flag = text.substr(at + sizeof kSetPrefix - 1, eol - at - (sizeof kSetPrefix - 1));
      if (!flag.empty() && flag.back() == '\r') flag.pop_back();
      out.push_back(flag);
    }
    at = eol + 1;
  }
  return out;
}

// Each suggestion's flags, added to the input's, must load and give the
// memory the suggestion promised (fit_suggestions.h).
void CheckSuggestions(const std::vector<FitSuggestion>& suggestions, const std::vector<std::string>& overrides) {
  for (const FitSuggestion& f : suggestions) {
    std::vector<std::string> flags = overrides;
    flags.insert(flags.end(), f.overrides.begin(), f.overrides.end());
    Scenario with;
    try {
      with = LoadScenario(scenario_path, flags);
    } catch (const InputError& e) {
      fuzz::Finding("the suggestion \"" + f.change + "\" does not load: " + e.what());
    }
    const MemoryBreakdown m = EstimateMemory(with);
    if (!m.fits || m.total.value() != f.per_gpu.value())
      fuzz::Finding("the suggestion \"" + f.change + "\" promised " + std::to_string(f.per_gpu.value()) +
                    " bytes per GPU; loaded, it needs " + std::to_string(m.total.value()) + " of " +
                    std::to_string(m.capacity.value()));
  }
}

// Everything after a successful load; nothing here may throw.
void Exercise(const Scenario& s, const std::vector<std::string>& overrides, const char*& stage) {
  stage = "Validate";
  if (auto e = Validate(s)) fuzz::Finding("LoadScenario returned a scenario Validate refuses: " + e->key + ": " + e->message);
  Result r;
  r.scenario = s;
  stage = "EstimateMemory";
  r.memory = EstimateMemory(s);
  fuzz::CheckMemory(r.memory);
  stage = "SuggestFits";
  r.suggestions = SuggestFits(s);
  if (r.memory.fits && !r.suggestions.empty()) fuzz::Finding("SuggestFits suggests changes to a job that fits");
  stage = "a suggestion's LoadScenario";
  CheckSuggestions(r.suggestions, overrides);
  if (s.cluster.gpus() <= kMaxBuiltGpus) {
    stage = "BuildWorkload";
    const preflight::Workload w = BuildWorkload(s);
    fuzz::CheckWorkload(w, s.cluster.gpus());
    if (r.memory.fits && w.tasks_size() <= kMaxSimulatedTasks) {
      stage = "SimulateWorkload";
      r = SimulateWorkload(s, w);
      fuzz::MergeChildCoverage();
      fuzz::CheckResult(r, /*built=*/true);
      fuzz::Note("simulated: " + std::to_string(w.tasks_size()) + " tasks, step " +
                 std::to_string(r.step->step_time.value()) + " s");
    }
  }
  if (!r.step) fuzz::Note(std::string("loaded, not simulated: ") + (r.memory.fits ? "too large" : "does not fit"));
  stage = "RenderText";
  if (RenderText(r).empty()) fuzz::Finding("RenderText gave nothing");
  stage = "RenderJson";
  if (RenderJson(r).empty()) fuzz::Finding("RenderJson gave nothing");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::GuardSimGridChildren();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  WriteScenarioFile(data, size);
  const std::vector<std::string> overrides = Overrides(std::string(reinterpret_cast<const char*>(data), size));
  Scenario s;
  try {
    s = LoadScenario(scenario_path, overrides);
  } catch (const InputError& e) {
    fuzz::Note(std::string("refused: ") + e.what());
    RemoveScenarioFile();
    return 0;  // the documented answer to bad input
  } catch (...) {
    fuzz::UnexpectedException("LoadScenario");
  }
  const char* stage = "";
  try {
    Exercise(s, overrides, stage);
  } catch (...) {
    fuzz::MergeChildCoverage();
    fuzz::UnexpectedException(stage);
  }
  RemoveScenarioFile();
  return 0;
}

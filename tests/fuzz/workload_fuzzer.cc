// Fuzz target: the workload reader and the engine, as `simulate --workload`
// runs them. The input is a serialized preflight.Workload (what
// `simulate --emit-workload FILE` writes). One that parses is read through
// ParseWorkload (the checks of sim/workload/workload_check.h) and simulated on
// the bundled scenario whose cluster has its GPU count (kClusters; any other
// count gets the 2-GPU one and must be refused), and the result is checked
// by the oracles of fuzz_support.h.
//
// Expected: input that does not parse (simulate refuses it before the
// engine sees it), pf::InputError and std::invalid_argument. A finding: any
// other exception (std::runtime_error included: that is how the engine
// reports a SimGrid child that crashed), a crash, a sanitizer report, a
// hang, a blow-up (the SimGrid child's memory is capped too, see
// GuardSimGridChildren), or a result with a non-finite or negative number.
// Reproduce with `build/workload_fuzzer INPUT`, or with
//   build/simulate SCENARIO --workload INPUT   (SCENARIO from kClusters)
#include <cstdint>
#include <map>
#include <string>

#include <google/protobuf/stubs/logging.h>

#include "sim/base/error.h"
#include "sim/job/simulate.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/workload/workload_file.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace pf;

// Clusters by GPU count: PCIe without NVLink (2), one NVSwitch node (8),
// four nodes over NICs (32). The first is the default.
const char* const kClusters[] = {
    "scenarios/7b_qlora_2x4090.yaml",
    "scenarios/70b_8xA800_tp8.yaml",
    "scenarios/megatron_1p7b_32xA100.yaml",
};

std::map<int, Scenario>* clusters = nullptr;
const Scenario* default_cluster = nullptr;

const Scenario& ClusterFor(uint32_t gpus) {
  auto it = clusters->find(static_cast<int>(gpus));
  return it != clusters->end() ? it->second : *default_cluster;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::GuardSimGridChildren();
  // Protobuf logs each string field that is not UTF-8 on stderr; such input
  // is refused (ParseFromArray fails) and the log would drown the findings.
  google::protobuf::SetLogHandler(nullptr);
  clusters = new std::map<int, Scenario>;
  for (const char* path : kClusters) {
    Scenario s = LoadScenario(std::string(PREFLIGHT_SOURCE_DIR) + "/" + path);
    auto [it, added] = clusters->emplace(s.cluster.gpus(), s);
    if (default_cluster == nullptr) default_cluster = &it->second;
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  preflight::Workload w;
  if (!w.ParseFromArray(data, static_cast<int>(size))) {
    fuzz::Note("not a preflight.Workload");
    return 0;
  }
  try {
    // As `simulate --workload` reads a file: parsed and checked whole first.
    const Scenario& s = ClusterFor(w.gpus());
    const preflight::Workload checked =
        ParseWorkload(std::string(reinterpret_cast<const char*>(data), size), "fuzz input", s);
    const Result r = SimulateWorkload(s, checked);
    fuzz::MergeChildCoverage();
    fuzz::CheckResult(r, /*built=*/false);
    fuzz::Note("simulated: " + std::to_string(w.tasks_size()) + " tasks, step " +
               std::to_string(r.step->step_time.value()) + " s");
  } catch (const InputError& e) {
    fuzz::MergeChildCoverage();
    fuzz::Note(std::string("refused: ") + e.what());
  } catch (const std::invalid_argument& e) {
    fuzz::MergeChildCoverage();
    fuzz::Note(std::string("refused: ") + e.what());
  } catch (...) {
    fuzz::MergeChildCoverage();
    fuzz::UnexpectedException("ParseWorkload or SimulateWorkload");
  }
  return 0;
}

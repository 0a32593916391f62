// The base of the workload-file tests: scenarios/70b_8xA800_tp8.yaml (257
// tasks on 8 GPUs), its workload, and the check's message on a workload.
#pragma once

#include <string>

#include "sim/base/error.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/workload/workload_builder.h"
#include "sim/workload/workload_check.h"
#include "tests/test_util.h"

namespace pf::testing_util {

inline const Scenario& Base() {
  static const Scenario s = LoadScenario(kRoot + "/scenarios/70b_8xA800_tp8.yaml");
  return s;
}

inline const preflight::Workload& BaseWorkload() {
  static const preflight::Workload w = BuildWorkload(Base());
  return w;
}

// ValidateWorkload's message on `w` ("" when it passes).
inline std::string ValidationMessage(const preflight::Workload& w, const Scenario& s) {
  try {
    ValidateWorkload(w, s, "w.pb");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace pf::testing_util

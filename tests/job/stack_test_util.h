// Helpers the stack tests share (stack_kernels_test.cc, torchtune_test.cc):
// a reference row's scenario, a layer's kernels by name, and the message a
// scenario is refused with.
#pragma once

#include <string>
#include <vector>

#include "sim/base/error.h"
#include "sim/model/model_math.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/test_util.h"

namespace pf::testing_util {

// tests/data/<dir>/<name>.yaml.
inline std::string ScenarioPath(const std::string& name, const std::string& dir = "stacks") {
  return kRoot + "/tests/data/" + dir + "/" + name + ".yaml";
}

// How many of `ops` are named with `prefix`.
inline int CountNamed(const std::vector<Op>& ops, const std::string& prefix) {
  int n = 0;
  for (const Op& op : ops) n += op.name.rfind(prefix, 0) == 0;
  return n;
}

// The message loading tests/data/stacks/<scenario>.yaml with `sets` is
// refused with; "" when it loads.
inline std::string LoadError(const std::string& scenario, const std::vector<std::string>& sets) {
  try {
    LoadScenario(ScenarioPath(scenario), sets);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace pf::testing_util

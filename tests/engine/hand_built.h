// Small hand-built workloads for the engine and accounting tests: one or
// more DGX A100 nodes and typed adders for tasks.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/proto/workload.pb.h"
#include "sim/scenario/scenario_loader.h"

namespace pf::hand_built {

inline const std::string kRoot = PREFLIGHT_SOURCE_DIR;

// `nodes` DGX A100 nodes (8 GPUs each) with tp 8 and one sequence per rank.
inline Scenario Dgx(int nodes) {
  return LoadScenario(kRoot + "/scenarios/gpt3_175b_1024xA100.yaml",
                      {"cluster.nodes=" + std::to_string(nodes), "parallel.tp=8", "parallel.pp=1",
                       "parallel.dp=" + std::to_string(nodes),
                       "training.global_batch=" + std::to_string(nodes)});
}

// A workload for `s` with no tasks and GPU 0 as its worker.
inline preflight::Workload Empty(const Scenario& s) {
  preflight::Workload w;
  w.set_gpus(s.cluster.gpus());
  w.set_gpus_per_node(s.cluster.node.gpus_per_node);
  w.add_workers(0);
  return w;
}

// Appends `seconds` of kernels on `gpu` after `deps`.
inline preflight::Task* AddCompute(preflight::Workload& w, int gpu, double seconds,
                                   std::vector<int> deps = {}) {
  preflight::Task* t = w.add_tasks();
  t->set_category(preflight::COMPUTE);
  t->mutable_compute()->set_gpu(gpu);
  t->mutable_compute()->set_duration_s(seconds);
  for (int d : deps) t->add_deps(d);
  return t;
}

// The message of the E that `f` throws (a test failure if it throws nothing).
template <typename E, typename F>
inline std::string MessageOf(F f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "nothing was thrown";
  return "";
}

// Appends an all-reduce of `bytes` over `gpus` (data-parallel) after `deps`.
inline preflight::Task* AddAllReduce(preflight::Workload& w, std::vector<int> gpus, double bytes,
                                     std::vector<int> deps = {}) {
  preflight::Task* t = w.add_tasks();
  t->set_category(preflight::DP_COMM);
  auto* c = t->mutable_collective();
  c->set_kind(preflight::ALL_REDUCE);
  for (int g : gpus) c->add_gpus(g);
  c->set_size_bytes(bytes);
  c->set_count(1);
  c->set_lanes(1);
  for (int d : deps) t->add_deps(d);
  return t;
}

}  // namespace pf::hand_built

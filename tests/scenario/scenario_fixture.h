// The valid scenario the scenario-loading tests edit (kBase, its lines
// numbered for the error cases), an inline node to swap in for its bundled
// one, and WriteScenario, which writes an edited copy to a fresh file.
#pragma once

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace pf::scenario_fixture {

// Line numbers are 1-based; scenario_errors_test.cc's cases use them.
inline const char* const kBase =
    "name: test scenario\n"                 // 1
    "model: llama2-70b\n"                   // 2
    "cluster:\n"                            // 3
    "  node: a800-80gb-sxm-8x\n"            // 4
    "  nodes: 1\n"                          // 5
    "parallel:\n"                           // 6
    "  tp: 8\n"                             // 7
    "  pp: 1\n"                             // 8
    "  dp: 1\n"                             // 9
    "  zero: 0\n"                           // 10
    "training:\n"                           // 11
    "  method: lora\n"                      // 12
    "  precision: bf16\n"                   // 13
    "  seq_len: 4096\n"                     // 14
    "  micro_batch: 1\n"                    // 15
    "  global_batch: 64\n"                  // 16
    "  recompute: full\n"                   // 17
    "  tokens: 500M\n"                      // 18
    "price: {per_node_hour: 16USD}\n";      // 19

// Replaces line 4 of kBase; the node then spans lines 4-10.
inline const char* const kInlineNode =
    "  node:\n"                                                              // 4
    "    gpu: A800-SXM4-80GB\n"                                              // 5
    "    gpus_per_node: 8\n"                                                 // 6
    "    interconnect: {kind: nvswitch, bandwidth: 200GB/s, latency: 1us}\n" // 7
    "    pcie: {gen: 4, lanes: 16, latency: 1us}\n"                     // 8
    "    nics: {count: 4, bandwidth: 200Gbps, latency: 2us}\n"               // 9
    "    cpu_memory: 1TiB\n";                                                // 10

using Edits = std::vector<std::pair<std::string, std::string>>;
inline const Edits kInline = {{"  node: a800-80gb-sxm-8x\n", kInlineNode}};

inline Edits With(Edits a, const Edits& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Writes kBase with `edits` (each find -> replace, applied in order) to a
// fresh file and returns its path.
inline std::string WriteScenario(const std::string& tag, const Edits& edits) {
  std::string text = kBase;
  for (const auto& [from, to] : edits) {
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << "edit not applicable: " << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
  }
  std::string path = testing_util::UniqueTempPath("scenario_" + tag);
  std::ofstream(path) << text;
  return path;
}

}  // namespace pf::scenario_fixture

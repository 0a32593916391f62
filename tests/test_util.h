// Helpers shared by the test suites.
#pragma once

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

namespace pf::testing_util {

// The source tree (scenarios/, models/, tests/data/).
inline const std::string kRoot = PREFLIGHT_SOURCE_DIR;

// A temporary path that no other test process uses: ctest -j runs every
// test in its own process, so the process id keeps concurrent tests apart.
inline std::string UniqueTempPath(const std::string& tag, const std::string& ext = ".yaml") {
  return ::testing::TempDir() + "/pf_" + std::to_string(getpid()) + "_" + tag + ext;
}

// Under the sanitizers (the CI's second suite, 4-6x slower) a simulation of
// more than this many tasks is skipped: its code paths are those of the
// smaller scenarios, which run, and its figures are checked by the normal
// suite (the 1.3M-task Llama 3 405B golden took 66 s there; skipped: it,
// the 8,192-GPU 405B row, the 529.6B golden and the Qwen3-235B row).
inline constexpr double kSanitizerTaskBudget = 5e5;
// The published-row checks are figures, not code paths: under the
// sanitizers they run up to this many tasks (the 1,024-GPU ZeRO-3 rows,
// ~2e5 tasks and 12 s each in the normal suite, are the normal suite's).
inline constexpr double kSanitizerRowTaskBudget = 1e5;
inline bool Sanitized() {
#ifdef PREFLIGHT_SANITIZED
  return true;
#else
  return false;
#endif
}

// Names (file stems) of scenarios/*.yaml, sorted.
inline std::vector<std::string> BundledScenarios() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(kRoot + "/scenarios"))
    if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

// `text` as a GoogleTest parameter name: every character that is not a
// letter or digit becomes '_'.
inline std::string TestName(std::string text) {
  for (char& c : text)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return text;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace pf::testing_util

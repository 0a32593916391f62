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

// Under the sanitizers (the CI's second suite, 5-40x slower) a test skips a
// simulation of more than this many tasks (tests/sanitizer_budget.h): its
// code paths are those of the smaller scenarios, which run, and its figures
// are the normal suite's. At 2e4 the suite still simulates every scenario of
// up to 64 GPUs or so; above it ran 64 GPUs to 16k, 5-60 s each (the 1,024-H100
// golden 58 s, the graphs of SizeEstimate 66 s).
inline constexpr double kSanitizerTaskBudget = 2e4;
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

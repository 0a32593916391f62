// A driver for the fuzz targets in builds without libFuzzer (the normal and
// the ASan builds): runs LLVMFuzzerTestOneInput once on each file named on
// the command line, and on each file of each folder named (sorted by name),
// the way `FUZZER FILE...` does under libFuzzer. Arguments starting with '-'
// (libFuzzer flags) are ignored. Exits 0 when every input ran; a finding
// aborts (fuzz_support.h). Like libFuzzer's -rss_limit_mb, the process may
// grow by PF_FUZZ_MEMORY_MB (2048) MiB at most: a blow-up fails fast
// instead of taking the machine.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  const char* mb = std::getenv("PF_FUZZ_MEMORY_MB");
  pf::fuzz::LimitMemoryGrowth(mb ? std::atol(mb) : 2048);
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') continue;
    const fs::path p = argv[i];
    if (fs::is_directory(p)) {
      std::vector<fs::path> files;
      for (const auto& e : fs::directory_iterator(p))
        if (e.is_regular_file()) files.push_back(e.path());
      std::sort(files.begin(), files.end());
      inputs.insert(inputs.end(), files.begin(), files.end());
    } else if (fs::is_regular_file(p)) {
      inputs.push_back(p);
    } else {
      std::fprintf(stderr, "%s: %s: no such file or folder\n", argv[0], argv[i]);
      return 2;
    }
  }
  for (const fs::path& p : inputs) {
    std::ifstream in(p, std::ios::binary);
    const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::fprintf(stderr, "Running: %s (%zu bytes)\n", p.c_str(), bytes.size());
    const auto start = std::chrono::steady_clock::now();
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    std::fprintf(stderr, "Executed %s in %.0f ms\n", p.c_str(), took.count() * 1e3);
  }
  std::fprintf(stderr, "%zu input(s) ran without a finding\n", inputs.size());
  return 0;
}

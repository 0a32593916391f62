// Every suggestion printed for a job that does not fit is a scenario the
// loader accepts: its --set flags, applied to the same file, load and give
// the memory the suggestion promised. Checked over every bundled scenario
// under several layouts (interleaved pipelines, ZeRO stages, full training).
#include <filesystem>

#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/model/fit_suggestions.h"
#include "sim/model/memory_model.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/test_util.h"

namespace pf {
namespace {

namespace fs = std::filesystem;
using testing_util::kRoot;

const std::vector<std::vector<std::string>> kVariants = {
    {},
    {"parallel.vp=2"},
    {"parallel.zero=1"},
    {"parallel.zero=3"},
    {"training.method=full", "training.recompute=none"},
    {"training.method=full", "parallel.vp=2"},
    {"training.method=full", "parallel.zero=1", "parallel.vp=2"},
    {"training.method=full", "training.micro_batch=4", "parallel.vp=3"},
    {"parallel.tp=4", "parallel.pp=2", "parallel.vp=2"},
    // Megatron's distributed optimizer is ZeRO 1: the suggestions of ZeRO
    // 2 and 3 once gave parallel.zero alone, which such a file refuses.
    {"training.method=full", "parallel.zero=1", "parallel.distributed_optimizer=true"},
    {"training.method=full", "parallel.zero=1", "parallel.distributed_optimizer=true",
     "parallel.param_gather_overlap=true"},
    // Doubling pp to 4 would leave 6 micro-batches, not a multiple of pp:
    // the suggestion once printed here was refused by the loader.
    {"parallel.tp=4", "parallel.pp=2", "parallel.vp=2", "training.global_batch=6"},
};

TEST(FitSuggestions, EverySuggestionLoadsAndGivesThePromisedMemory) {
  int checked = 0, not_fitting = 0;
  for (const auto& e : fs::directory_iterator(kRoot + "/scenarios")) {
    const std::string path = e.path().string();
    for (const auto& variant : kVariants) {
      Scenario s;
      try {
        s = LoadScenario(path, variant);
      } catch (const InputError&) {
        continue;  // this layout does not apply to this scenario
      }
      const auto suggestions = SuggestFits(s);
      if (!EstimateMemory(s).fits) ++not_fitting;
      for (const FitSuggestion& f : suggestions) {
        std::vector<std::string> flags = variant;
        flags.insert(flags.end(), f.overrides.begin(), f.overrides.end());
        try {
          const MemoryBreakdown m = EstimateMemory(LoadScenario(path, flags));
          EXPECT_TRUE(m.fits) << path << " " << ::testing::PrintToString(flags);
          // Without the paged optimizer states on the GPU, which take what
          // it has free (memory_model.h PagedResident).
          EXPECT_EQ((m.total - PagedResident(m)).value(), f.per_gpu.value()) << path << " " << f.change;
        } catch (const InputError& err) {
          ADD_FAILURE() << path << ": suggestion '" << f.change << "' is refused: " << err.what();
        }
        ++checked;
      }
    }
  }
  // The sweep must really exercise suggestions, not pass on none.
  EXPECT_GT(not_fitting, 10);
  EXPECT_GT(checked, 30);
}

// Under EP overlap (which needs no plain pipeline and no full recompute),
// the suggestions that bring either turn it off, and say so: the pipeline
// suggestion was dropped before, its layout being refused.
// A scenario file with overrides, as a suggestion's flags extend them.
struct Variant {
  std::string path;
  std::vector<std::string> flags;
  Scenario Load(const std::vector<std::string>& more = {}) const {
    std::vector<std::string> all = flags;
    all.insert(all.end(), more.begin(), more.end());
    return LoadScenario(path, all);
  }
};

TEST(FitSuggestions, ThoseThatCannotOverlapTheExpertsTurnItOff) {
  const Variant v{kRoot + "/tests/data/recipes/mb2607_qwen3_30b_a3b_bf16_ep16_overlap_16xH100.yaml",
                  {"parallel.ep=2", "parallel.distributed_optimizer=false"}};
  const Scenario s = v.Load();
  ASSERT_FALSE(EstimateMemory(s).fits);
  bool pipeline = false;
  for (const FitSuggestion& f : SuggestFits(s)) {
    EXPECT_NO_THROW(v.Load(f.overrides)) << f.change;
    if (f.change.find("pipeline") == std::string::npos) continue;
    pipeline = true;
    EXPECT_EQ(f.overrides.back(), "parallel.ep_overlap=false");
  }
  EXPECT_TRUE(pipeline);
}

// On Megatron-Core a job that does not fit is offered its output-discarding
// recompute modules (cheaper than whole layers), with the modules the model
// has: GPT-OSS 120B at micro-batch 2 without recompute, 83 GiB of 80.
TEST(FitSuggestions, MegatronCoreJobsAreOfferedTheirRecomputeModules) {
  const Variant v{kRoot + "/tests/data/recipes/mb2604_gpt_oss_120b_64xH100.yaml",
                  {"training.recompute=none", "training.micro_batch=2"}};
  const Scenario s = v.Load();
  ASSERT_FALSE(EstimateMemory(s).fits);
  bool offered = false;
  for (const FitSuggestion& f : SuggestFits(s)) {
    if (f.change != "recompute: selective modules (Megatron-Core)") continue;
    offered = true;
    EXPECT_EQ(f.overrides, (std::vector<std::string>{"training.recompute=selective",
                                                     "training.recompute_modules=[core_attn,layernorm,moe_act]"}));
    const Scenario c = v.Load(f.overrides);
    EXPECT_TRUE(c.training.recomputes(RecomputeModule::kMoeAct));
    EXPECT_EQ(EstimateMemory(c).total.value(), f.per_gpu.value());
  }
  EXPECT_TRUE(offered);
  // Not on a stack without them.
  for (const FitSuggestion& f : SuggestFits(LoadScenario(kRoot + "/scenarios/70b_8xA800_full.yaml",
                                                         {"training.stack=deepspeed"})))
    EXPECT_EQ(f.change.find("selective modules"), std::string::npos);
}

}  // namespace
}  // namespace pf

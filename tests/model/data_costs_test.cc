// What the input pipeline costs per sample and per micro-batch: the CPU
// constants of sim/model/data_costs.cc in reference core-seconds, stored
// bytes per token by format and vocabulary, read requests per shard, and
// the pageable copy's staged rate.
#include "sim/model/data_costs.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/job/simulate.h"
#include "sim/model/host_memory.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/test_util.h"

namespace pf {
namespace {

// The constants as data_costs.cc states them, with their sources there.
constexpr double kJpegSeconds = 5.4e-3;        // FFCV, PyTorch DataLoader per image per core
constexpr double kRawShare = 0.4;              // augmenting alone, of decode + augment
constexpr double kTokenizeRate = 0.43e6;       // tokens/s, Hugging Face fast tokenizer
constexpr double kCollateRate = 13.1e6;        // tokens/s, pre-tokenised shards
constexpr double kReadahead = 128 * 1024;      // Linux read_ahead_kb default
constexpr double kPageableRate = 0.6;          // of the pinned copy rate

Scenario Load(const std::string& file, const std::vector<std::string>& sets = {}) {
  return LoadScenario(testing_util::kRoot + "/scenarios/" + file, sets);
}

Scenario Images(const std::vector<std::string>& sets = {}) { return Load("resnet50_32xA800_data.yaml", sets); }
Scenario Text(const std::vector<std::string>& sets = {}) { return Load("7b_sft_8xA800_data.yaml", sets); }

TEST(DataCosts, JpegCostsItsReferenceCoreSecondsWhateverTheNodesCpu) {
  Scenario s = Images();
  ASSERT_EQ(s.data.format, DataFormat::kJpeg);
  EXPECT_DOUBLE_EQ(CostOfSample(s).cpu.value(), kJpegSeconds);
  // The engine runs it core_speed times faster; the cost stays in
  // reference core-seconds.
  for (double speed : {0.5, 1.0, 2.2}) {
    s.cluster.node.cpu.core_speed = speed;
    EXPECT_DOUBLE_EQ(CostOfSample(s).cpu.value(), kJpegSeconds) << "core_speed " << speed;
  }
}

TEST(DataCosts, RawImagesCostTheAugmentationShareOfJpeg) {
  Scenario s = Images();
  s.data.format = DataFormat::kRaw;
  EXPECT_DOUBLE_EQ(CostOfSample(s).cpu.value(), kRawShare * kJpegSeconds);
}

TEST(DataCosts, AnImageIsOneFileAndAFloat32TensorOnTheGpu) {
  const Scenario s = Images();
  const SampleCost c = CostOfSample(s);
  EXPECT_DOUBLE_EQ(c.stored.value(), s.data.sample_bytes.value());
  EXPECT_DOUBLE_EQ(c.requests, 1);
  EXPECT_DOUBLE_EQ(c.device.value(), 224.0 * 224 * 3 * 4);  // ResNet-50's input, float32
}

TEST(DataCosts, TextIsTokenisedAtAThirdOfAMillionTokensPerSecond) {
  const Scenario s = Text();
  ASSERT_EQ(s.data.format, DataFormat::kText);
  EXPECT_DOUBLE_EQ(CostOfSample(s).cpu.value(), s.training.seq_len / kTokenizeRate);
}

TEST(DataCosts, PreTokenisedShardsAreOnlyCollated) {
  Scenario s = Text();
  s.data.format = DataFormat::kTokens;
  EXPECT_DOUBLE_EQ(CostOfSample(s).cpu.value(), s.training.seq_len / kCollateRate);
}

TEST(DataCosts, StoredBytesPerTokenFollowTheFormatAndTheVocabulary) {
  Scenario s = Text();
  const double tokens = s.training.seq_len;
  EXPECT_DOUBLE_EQ(CostOfSample(s).stored.value(), 4 * tokens);  // raw text, about 4 bytes a token
  s.data.format = DataFormat::kTokens;
  ASSERT_LT(s.model.vocab, 65536);  // Llama-2's 32,000
  EXPECT_DOUBLE_EQ(CostOfSample(s).stored.value(), 2 * tokens);  // uint16 ids
  s.model.vocab = 65536;
  EXPECT_DOUBLE_EQ(CostOfSample(s).stored.value(), 4 * tokens);
  s.data.bytes_per_token = 3;  // stated: wins over both
  EXPECT_DOUBLE_EQ(CostOfSample(s).stored.value(), 3 * tokens);
  s.data.format = DataFormat::kText;
  EXPECT_DOUBLE_EQ(CostOfSample(s).stored.value(), 3 * tokens);
}

TEST(DataCosts, ShardsAreReadInReadaheadWindowsOrInReadSize) {
  const Scenario s = Text();
  const SampleCost c = CostOfSample(s);
  EXPECT_DOUBLE_EQ(c.requests, c.stored.value() / kReadahead);
  EXPECT_DOUBLE_EQ(c.requests, 2048 * 4 / 131072.0);
  const SampleCost small = CostOfSample(Text({"data.read_size=4KiB"}));
  EXPECT_DOUBLE_EQ(small.requests, 2048 * 4 / 4096.0);
}

TEST(DataCosts, AMeasuredCpuCostIsConvertedToReferenceCoreSeconds) {
  const Scenario s = Images({"data.cpu_per_sample=10ms"});
  const double speed = s.cluster.node.cpu.core_speed;
  ASSERT_NE(speed, 1.0);  // else the conversion would not show
  EXPECT_NEAR(CostOfSample(s).cpu.value(), 10e-3 * speed, 1e-15);
  const Scenario text = Text({"data.cpu_per_sample=2ms"});
  EXPECT_NEAR(CostOfSample(text).cpu.value(), 2e-3 * text.cluster.node.cpu.core_speed, 1e-15);
}

TEST(DataCosts, ABatchIsItsSamplesAndPageableCopiesCountAtTheStagedRate) {
  Scenario s = Images();
  s.data.first_epoch = true;  // nothing in the page cache: every byte read
  const SampleCost one = CostOfSample(s);
  const double samples = s.training.micro_batch;
  ASSERT_EQ(SamplesPerMicroBatch(s), samples);
  const BatchCost pinned = CostOfBatch(s);
  EXPECT_DOUBLE_EQ(pinned.read_bytes.value(), one.stored.value() * samples);
  EXPECT_DOUBLE_EQ(pinned.requests_per_worker, samples / s.data.workers);
  EXPECT_DOUBLE_EQ(pinned.cpu.value(), kJpegSeconds * samples);
  EXPECT_DOUBLE_EQ(pinned.device_bytes.value(), one.device.value() * samples);
  s.data.pinned = false;
  const BatchCost pageable = CostOfBatch(s);
  EXPECT_DOUBLE_EQ(pageable.device_bytes.value(), one.device.value() * samples / kPageableRate);
  EXPECT_DOUBLE_EQ(pageable.read_bytes.value(), pinned.read_bytes.value());  // the copy alone changes
  EXPECT_DOUBLE_EQ(pageable.cpu.value(), pinned.cpu.value());
}

TEST(DataCosts, LaterEpochsReadOnlyWhatThePageCacheMisses) {
  // 3 TB does not fit a 1 TiB node: part of it hits.
  const Scenario s = Images({"data.size=3TB"});
  const double hits = PageCacheHits(s);
  ASSERT_GT(hits, 0);
  ASSERT_LT(hits, 1);
  const BatchCost b = CostOfBatch(s);
  const double samples = s.training.micro_batch;
  EXPECT_NEAR(b.read_bytes.value(), s.data.sample_bytes.value() * samples * (1 - hits), 1e-6);
  EXPECT_NEAR(b.requests_per_worker, samples * (1 - hits) / s.data.workers, 1e-9);
}


// A dataset smaller than one sample, and a stored token under a tenth of a
// byte, are refused with their key; the first epoch's step count stays a
// count (it once overflowed to INT64_MIN on a 1e-308-byte token).
// A dataset whose size is not given is one of unknown size: it simulates
// (the scenario fuzzer found it refused by the simulation, after loading).
TEST(DataCosts, ADatasetOfNoGivenSizeSimulates) {
  const std::string path = testing_util::UniqueTempPath("no_size");
  std::string text = testing_util::ReadFile(testing_util::kRoot + "/scenarios/resnet50_1xA100_timm_jpeg.yaml");
  const size_t at = text.find("  size:");
  ASSERT_NE(at, std::string::npos);
  text.erase(at, text.find('\n', at) - at + 1);
  { std::ofstream(path) << text; }
  const Scenario s = LoadScenario(path);
  EXPECT_EQ(s.data.size.value(), 0);
  EXPECT_TRUE(Simulate(s).step.has_value());
  std::remove(path.c_str());
}

TEST(DataCosts, ADatasetSmallerThanASampleAndATokenOfNoBytesAreRefused) {
  try {
    Load("resnet50_32xA800_data.yaml", {"data.sample_bytes=1PB"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "data.size");
    EXPECT_GT(e.where().line, 0) << e.what();  // the loader's, with the line of data.size
    EXPECT_NE(std::string(e.what()).find("hold less than one sample of 1e+15 bytes"), std::string::npos) << e.what();
  }
  try {
    Load("7b_sft_8xA800_data.yaml", {"data.bytes_per_token=1e-300"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("must be in [0.1, 1e6] bytes a token"), std::string::npos) << e.what();
  }
  Scenario s = Load("7b_sft_8xA800_data.yaml", {"data.bytes_per_token=0.1"});
  s.intervals = false;
  const Result r = Simulate(s);
  ASSERT_TRUE(r.step);
  EXPECT_GT(r.step->first_epoch_steps, 0);
  EXPECT_LE(r.step->first_epoch_steps, r.step->steps);
}

}  // namespace
}  // namespace pf

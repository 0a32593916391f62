// Padding to a micro-batch's longest sample (model/padding.h): the expected
// longest of b log-normal lengths, checked against the closed form for two
// samples, E[max(X1, X2)] = 2 E[X] Phi(sigma / sqrt 2), and against the
// limits (one sample, no spread, the cut at seq_len).
#include <cmath>

#include <gtest/gtest.h>

#include "sim/model/padding.h"

namespace pf {
namespace {

TrainingSpec Samples(int mean, double cv, int micro_batch, int seq_len) {
  TrainingSpec t;
  t.sample_len = mean, t.sample_len_cv = cv, t.micro_batch = micro_batch, t.seq_len = seq_len;
  t.packing = false, t.padding = Padding::kLongest;
  return t;
}

double Phi(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

TEST(Padding, TheLongestOfTwoIsTheClosedForm) {
  // Far below the cut, the cut changes nothing.
  const double sigma = std::sqrt(std::log1p(0.46 * 0.46));
  EXPECT_NEAR(ExpectedLongestSample(Samples(300, 0.46, 2, 1 << 20)), 2 * 300 * Phi(sigma / std::sqrt(2.0)), 0.5);
  const double wide = std::sqrt(std::log1p(1.5 * 1.5));
  EXPECT_NEAR(ExpectedLongestSample(Samples(200, 1.5, 2, 1 << 20)), 2 * 200 * Phi(wide / std::sqrt(2.0)), 1.0);
}

TEST(Padding, OneSampleOrNoSpreadWastesNothing) {
  EXPECT_EQ(ExpectedLongestSample(Samples(300, 0.46, 1, 1024)), 300);
  EXPECT_EQ(ExpectedLongestSample(Samples(300, 0, 8, 1024)), 300);
  EXPECT_EQ(ExpectedLongestSample(Samples(1024, 0.46, 8, 1024)), 1024);
}

TEST(Padding, MoreSamplesAMicroBatchPadFurtherUpToTheCut) {
  double last = 300;
  for (int b : {2, 4, 8, 16, 64}) {
    const double longest = ExpectedLongestSample(Samples(300, 0.46, b, 1024));
    EXPECT_GT(longest, last) << b;
    EXPECT_LE(longest, 1024) << b;
    last = longest;
  }
  // Long samples against a short cut: the cut bounds the longest.
  EXPECT_NEAR(ExpectedLongestSample(Samples(900, 1.0, 64, 1024)), 1024, 1);
}

// training.group_by_length: N micro-batches' samples a sorted group, or
// the Trainer's 50 x global_batch / dp; whole micro-batches, at least 2,
// at most kMostGroupBatches of them and kMostGroupSamples samples.
TEST(Padding, LengthGroupsHoldTheTrainersFiftyStepsOrNMicroBatches) {
  Scenario s;
  s.training = Samples(210, 0.46, 4, 768);
  s.training.global_batch = 64;
  s.parallel.dp = 2;
  EXPECT_EQ(LengthGroupSamples(s), 0);
  s.training.group_by_length = 20;
  EXPECT_EQ(LengthGroupSamples(s), 80);
  s.training.group_by_length = kTrainerLengthGroups;
  EXPECT_EQ(LengthGroupSamples(s), 50 * 32);
  s.training.global_batch = 4096;
  EXPECT_EQ(LengthGroupSamples(s), kMostGroupBatches * 4);
  // Micro-batches of 2,049 samples: an explicit 2 stays 2; the Trainer's
  // 50 x 2,049 / 2049 = 50 too; many more stop at 2^20 samples.
  s.training.micro_batch = 2049, s.training.global_batch = 2049, s.parallel.dp = 1;
  s.training.group_by_length = 2;
  EXPECT_EQ(LengthGroupSamples(s), 2 * 2049);
  s.training.group_by_length = kTrainerLengthGroups;
  EXPECT_EQ(LengthGroupSamples(s), 50 * 2049);
  s.training.global_batch = 2049 * 4096;
  EXPECT_EQ(LengthGroupSamples(s), (kMostGroupSamples / 2049) * 2049);
  // The step's view pads to the group's micro-batches' longest.
  s.training.micro_batch = 4, s.training.global_batch = 4, s.parallel.dp = 1, s.training.group_by_length = 20;
  EXPECT_EQ(PaddedView(s).training.seq_len, 221);
  s.training.group_by_length = 0;
  EXPECT_EQ(PaddedView(s).training.seq_len, 315);
}

TEST(Padding, TheStepsViewPadsToTheLongestAndKeepsTheSamplesTokens) {
  Scenario s;
  s.training = Samples(300, 0.46, 4, 1024);
  s.training.global_batch = 8;
  const Scenario v = PaddedView(s);
  EXPECT_EQ(v.training.seq_len, static_cast<int>(std::ceil(ExpectedLongestSample(s.training))));
  EXPECT_EQ(v.training.tokens_per_step(), s.training.tokens_per_step());
  EXPECT_EQ(v.training.padding, Padding::kMaxLength);
  // Under context parallelism, a multiple of 2 x cp.
  s.parallel.cp = 4;
  EXPECT_EQ(PaddedView(s).training.seq_len % 8, 0);
  // Packed, or padded to seq_len: unchanged.
  s.training.packing = true;
  EXPECT_EQ(PaddedView(s).training.seq_len, 1024);
  s.training.packing = false, s.training.padding = Padding::kMaxLength;
  EXPECT_EQ(PaddedView(s).training.seq_len, 1024);
}

}  // namespace
}  // namespace pf

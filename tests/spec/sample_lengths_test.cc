// The samples' lengths (spec/sample_lengths.h): what a packer that keeps
// samples whole and in order (torchtune's PackedDataset) leaves at each
// pack's end.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "sim/spec/sample_lengths.h"
#include "sim/spec/spec.h"

namespace pf {
namespace {

// Equal samples: as many whole ones as fit, the rest a gap.
// Sorted groups (the Trainer's group_by_length): the expectation against
// the groups played out. Lengths drawn from 4,096 equiprobable quantiles of
// the cut log-normal by a fixed linear congruential sequence, each group of
// 80 sorted and cut into micro-batches of 4 neighbours (PEFT's
// BucketIterator), the micro-batches' longest averaged over 20,000 groups.
TEST(SampleLengths, SortedGroupsPadAsTheGroupsPlayedOut) {
  const double mean = 210, cv = 0.46, cut = 768;
  const double sigma = LogSdOfCv(cv), mu = LogMeanOfCutMean(mean, sigma, cut);
  std::vector<double> quantiles;
  for (int i = 0; i < 4096; ++i) {
    // Bisection on the log-normal's CDF for the (i + 0.5) / 4096 quantile.
    const double p = (i + 0.5) / 4096;
    double lo = mu - 8 * sigma, hi = mu + 8 * sigma;
    for (int k = 0; k < 60; ++k) {
      const double mid = (lo + hi) / 2;
      (0.5 * std::erfc(-(mid - mu) / (sigma * std::sqrt(2.0))) < p ? lo : hi) = mid;
    }
    quantiles.push_back(std::min(cut, std::exp((lo + hi) / 2)));
  }
  uint64_t state = 12345;
  auto draw = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return quantiles[(state >> 33) % quantiles.size()];
  };
  double longest = 0;
  long batches = 0;
  for (int group = 0; group < 20000; ++group) {
    std::vector<double> g(80);
    for (double& l : g) l = draw();
    std::sort(g.begin(), g.end());
    for (int j = 0; j < 80; j += 4, ++batches) longest += g[j + 3];
  }
  EXPECT_NEAR(ExpectedGroupedCutMax(mu, sigma, 4, 80, cut), longest / batches, 0.005 * mean);
  // 5% of padding sorted, where random order pads by a half.
  EXPECT_NEAR(ExpectedGroupedCutMax(mu, sigma, 4, 80, cut) / mean, 1.05, 0.01);
  EXPECT_NEAR(ExpectedCutMax(mu, sigma, 4, cut) / mean, 1.49, 0.02);
}

// A group of one micro-batch sorts nothing; larger groups pad less, and the
// largest taken (1,024 micro-batches, padding.h kMostGroupBatches) pads by
// under a token, at 4 samples a micro-batch and at 64.
TEST(SampleLengths, LargerSortedGroupsPadLess) {
  const double mean = 210, sigma = LogSdOfCv(0.46), cut = 768;
  const double mu = LogMeanOfCutMean(mean, sigma, cut);
  EXPECT_DOUBLE_EQ(ExpectedGroupedCutMax(mu, sigma, 4, 4, cut), ExpectedCutMax(mu, sigma, 4, cut));
  double last = ExpectedCutMax(mu, sigma, 4, cut);
  for (int group : {8, 40, 200, 1000, 4096}) {
    const double longest = ExpectedGroupedCutMax(mu, sigma, 4, group, cut);
    EXPECT_LT(longest, last) << group;
    EXPECT_GT(longest, mean) << group;
    last = longest;
  }
  EXPECT_LT(last - mean, 1.0);
  EXPECT_LT(ExpectedGroupedCutMax(mu, sigma, 64, 64 * 1024, cut) - mean, 1.0);
  EXPECT_GT(ExpectedGroupedCutMax(mu, sigma, 64, 64 * 50, cut) - mean, 5.0);
}

TEST(SampleLengths, EqualSamplesFillWholeMultiples) {
  EXPECT_DOUBLE_EQ(ExpectedPackFill(4096, 1000, 0), 4000);
  EXPECT_DOUBLE_EQ(ExpectedPackFill(4096, 4096, 0.46), 4096);  // one sample fills it
  EXPECT_DOUBLE_EQ(ExpectedPackFill(4096, 0, 0.46), 4096);     // no lengths given
}

// Many samples a pack: the gap is a renewal process's age at the pack's
// end, E[L^2] / (2 E[L]) = mean (1 + cv^2) / 2 for the (here barely cut)
// log-normal; the packer played out meets it within a token or two just
// below the 64 samples a pack where the limit takes over, and on both sides
// of it.
TEST(SampleLengths, PackFillMeetsTheRenewalLimit) {
  const double cv = 0.46, limit = 1 + cv * cv;
  for (double mean : {100.0, 129.0, 127.0, 500.0}) {
    const int seq = 8192;
    EXPECT_NEAR(seq - ExpectedPackFill(seq, mean, cv), mean * limit / 2, 0.015 * mean) << mean;
  }
  // Alpaca's samples (mean 113) in torchtune's 4,096-token packs: 69
  // tokens, 1.7% of a pack.
  EXPECT_NEAR(4096 - ExpectedPackFill(4096, 113, cv), 113 * limit / 2, 2);
}

// Long samples leave large gaps, more than the mean sample's share: at a
// mean of 1,500 tokens in 4,096, about a fifth of each pack is padding;
// still more than one sample's worth is learned from.
TEST(SampleLengths, LongSamplesLeaveLargeGaps) {
  const double fill = ExpectedPackFill(4096, 1500, 0.46);
  EXPECT_NEAR(fill, 0.79 * 4096, 0.02 * 4096);
  EXPECT_GT(fill, 1500);
  // Deterministic: the same question, the same answer.
  EXPECT_DOUBLE_EQ(ExpectedPackFill(4096, 1500, 0.46), fill);
  EXPECT_DOUBLE_EQ(ExpectedPackFill(4096, 1500.0 + 1e-9, 0.46), ExpectedPackFill(4096, 1500.0 + 1e-9, 0.46));
}

// Only a packer that keeps samples whole leaves the gaps: torchtune's;
// Megatron's concatenation and the others' fitting packers fill their packs.
TEST(SampleLengths, OnlyTorchtunesPacksLeaveGaps) {
  TrainingSpec t;
  t.seq_len = 4096, t.sample_len = 113, t.packing = true;
  t.stack = Stack::kTorchtune;
  EXPECT_NEAR(t.useful_tokens_per_sequence(), 4096 - 113 * (1 + 0.46 * 0.46) / 2, 2);
  for (Stack s : {Stack::kMegatron, Stack::kNemo, Stack::kHf, Stack::kLlamaFactory}) {
    t.stack = s;
    EXPECT_DOUBLE_EQ(t.useful_tokens_per_sequence(), 4096);
  }
  t.stack = Stack::kTorchtune, t.packing = false;
  EXPECT_DOUBLE_EQ(t.useful_tokens_per_sequence(), 113);
}

}  // namespace
}  // namespace pf

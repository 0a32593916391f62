// The samples' lengths (spec/sample_lengths.h): what a packer that keeps
// samples whole and in order (torchtune's PackedDataset) leaves at each
// pack's end.
#include <gtest/gtest.h>

#include "sim/spec/sample_lengths.h"
#include "sim/spec/spec.h"

namespace pf {
namespace {

// Equal samples: as many whole ones as fit, the rest a gap.
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

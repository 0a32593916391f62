// NCCL's size penalty: 1 for large messages, decreasing in size, worse
// with more ranks (smaller per-step chunks).
#include <map>

#include <gtest/gtest.h>

#include "sim/collectives/nccl.h"

namespace pf {
namespace {

TEST(MessageSizePenalty, OneForLargeMessagesAndDecreasingInSize) {
  const double GiB = 1024.0 * 1024 * 1024;
  EXPECT_DOUBLE_EQ(MessageSizePenalty(Bytes(8 * GiB), 8), 1.0);
  EXPECT_DOUBLE_EQ(MessageSizePenalty(Bytes(64 * GiB), 8), 1.0);
  EXPECT_DOUBLE_EQ(MessageSizePenalty(Bytes(1 * GiB), 1), 1.0);  // 1 GiB x 8/1 = 8 GiB
  EXPECT_GT(MessageSizePenalty(Bytes(4 * GiB), 8), 1.0);
  // The 1 MB point of the 8-GPU curve: bus bandwidth 12.4% of large messages.
  EXPECT_NEAR(MessageSizePenalty(Bytes(1e6), 8), 1 / 0.124, 1e-9);
  EXPECT_NEAR(MessageSizePenalty(Bytes(1073741824.0), 8), 1 / 0.979, 1e-9);
  double prev = MessageSizePenalty(Bytes(1e3), 8);
  for (double size = 2e3; size <= 16 * GiB; size *= 1.5) {
    const double p = MessageSizePenalty(Bytes(size), 8);
    EXPECT_GE(p, 1.0) << size;
    if (size < 8 * GiB) EXPECT_LT(p, prev) << size;
    else EXPECT_LE(p, prev) << size;
    prev = p;
  }
  // More ranks means smaller per-step chunks for the same message.
  EXPECT_GT(MessageSizePenalty(Bytes(1e9), 64), MessageSizePenalty(Bytes(1e9), 8));
}

}  // namespace
}  // namespace pf

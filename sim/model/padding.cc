#include "sim/model/padding.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "sim/spec/sample_lengths.h"

namespace pf {

int LengthGroupSamples(const Scenario& s) {
  const TrainingSpec& t = s.training;
  if (t.group_by_length == 0) return 0;
  const int b = std::max(1, t.micro_batch);
  const double batches = t.group_by_length == kTrainerLengthGroups
                             ? 50.0 * t.global_batch / std::max(1, s.parallel.dp) / b
                             : double(t.group_by_length);
  // Whole micro-batches: at least 2, at most kMostGroupBatches and
  // kMostGroupSamples samples.
  const double most = std::max(2.0, std::min<double>(kMostGroupBatches, std::floor(double(kMostGroupSamples) / b)));
  return static_cast<int>(std::clamp(std::floor(batches), 2.0, most)) * b;
}

double ExpectedLongestSample(const TrainingSpec& t, int group) {
  const double mean = t.sample_len, cut = t.seq_len;
  if (t.micro_batch <= 1 || t.sample_len_cv <= 0 || mean >= cut) return mean;
  // The layouts a plan or an alternative screens ask the same few
  // questions hundreds of times, interleaved: the last 16 answers are kept
  // (per thread).
  struct Answer {
    double mean = -1, cv = -1, cut = -1;
    int b = 0, group = 0;
    double longest = 0;
  };
  thread_local std::array<Answer, 16> kept;
  thread_local size_t next = 0;
  for (const Answer& a : kept)
    if (a.mean == mean && a.cv == t.sample_len_cv && a.cut == cut && a.b == t.micro_batch && a.group == group)
      return a.longest;
  // The log-mean whose lengths, cut at seq_len, average sample_len.
  const double sigma = LogSdOfCv(t.sample_len_cv);
  const double mu = LogMeanOfCutMean(mean, sigma, cut);
  const double longest = std::clamp(ExpectedGroupedCutMax(mu, sigma, t.micro_batch, group, cut), mean, cut);
  kept[next++ % kept.size()] = {mean, t.sample_len_cv, cut, t.micro_batch, group, longest};
  return longest;
}

bool PadsToLongest(const TrainingSpec& t) {
  return !t.packing && t.padding == Padding::kLongest && t.sample_len > 0 && t.sample_len < t.seq_len;
}

Scenario PaddedView(const Scenario& s) {
  const TrainingSpec& t = s.training;
  if (!PadsToLongest(t)) return s;
  Scenario v = s;
  const int chunk = s.parallel.cp > 1 ? 2 * s.parallel.cp : 1;
  const double longest = std::ceil(ExpectedLongestSample(t, LengthGroupSamples(s)) / chunk) * chunk;
  v.training.seq_len = static_cast<int>(std::min<double>(t.seq_len, longest));
  v.training.padding = Padding::kMaxLength;  // to its length now
  return v;
}

}  // namespace pf

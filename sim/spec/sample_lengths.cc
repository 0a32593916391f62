#include "sim/spec/sample_lengths.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <vector>

namespace pf {
namespace {

// Trapezoids in log-length over mu +- 8 sigma (cut at `cut`) for the
// expectations below: their integrands are smooth and monotone there and
// 1 below, 0 above (to 1e-15), so 256 of them (a sixteenth of sigma each)
// are exact to well under a token.
constexpr int kSteps = 256;
constexpr double kTail = 8;
// Samples a pack above which ExpectedPackFill takes the renewal limit.
constexpr double kRenewalLimit = 64;

// P(length <= x) for a log-normal of log-mean mu and log-sd sigma.
double Cdf(double x, double mu, double sigma) {
  if (x <= 0) return 0;
  return 0.5 * std::erfc(-(std::log(x) - mu) / (sigma * std::sqrt(2.0)));
}

// The log-normal's quantile at p (0 < p < 1), by bisection on its CDF in
// log-length.
double Quantile(double p, double mu, double sigma) {
  double lo = mu - kTail * sigma, hi = mu + kTail * sigma;
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    (Cdf(std::exp(mid), mu, sigma) < p ? lo : hi) = mid;
  }
  return std::exp((lo + hi) / 2);
}

}  // namespace

namespace {

// E[min(M, cut)] for a length M whose CDF at x is below(x, F(x)), F the
// samples' log-normal CDF: e^u0 + the integral over u0..u1 of
// (1 - P(M <= e^u)) e^u du, by trapezoids in log-length.
template <class Below>
double ExpectedCut(double mu, double sigma, double cut, Below below) {
  const double u0 = std::min(mu - kTail * sigma, std::log(cut));
  const double u1 = std::min(mu + kTail * sigma, std::log(cut));
  const double h = (u1 - u0) / kSteps;
  double sum = 0;
  for (int i = 0; i <= kSteps && h > 0; ++i) {
    const double x = std::exp(u0 + i * h);
    sum += (i == 0 || i == kSteps ? 0.5 : 1.0) * (1 - below(Cdf(x, mu, sigma))) * x;
  }
  return std::exp(u0) + sum * h;
}

}  // namespace

double ExpectedCutMax(double mu, double sigma, int b, double cut) {
  return ExpectedCut(mu, sigma, cut, [b](double f) { return std::pow(f, b); });
}

double ExpectedGroupedCutMax(double mu, double sigma, int b, int group, double cut) {
  if (group <= b) return ExpectedCutMax(mu, sigma, b, cut);
  assert(group % b == 0);
  const int batches = group / b;
  // log C(group, i), once (a running sum: lgamma writes a global).
  std::vector<double> log_choose(group + 1, 0.0);
  for (int i = 1; i <= group; ++i) log_choose[i] = log_choose[i - 1] + std::log(double(group - i + 1) / i);
  std::vector<double> tail(group + 2);
  return ExpectedCut(mu, sigma, cut, [&](double f) {
    // P(Binomial(group, f) >= r) for every r, from the top; the mass lies
    // within 12 standard deviations and 20 counts of group f (beyond them
    // under 1e-20, however small group f is), so the tail is 0 above that
    // window and 1 below it.
    const double centre = group * f, spread = std::sqrt(group * f * (1 - f));
    const int lo = std::max(0, static_cast<int>(std::floor(centre - 12 * spread)) - 20);
    const int hi = std::min(group, static_cast<int>(std::ceil(centre + 12 * spread)) + 20);
    tail[hi + 1] = 0;
    for (int i = hi; i >= lo; --i) {
      double pmf = 0;
      if (f >= 1) pmf = i == group ? 1 : 0;
      else if (f <= 0) pmf = i == 0 ? 1 : 0;
      else pmf = std::exp(log_choose[i] + i * std::log(f) + (group - i) * std::log1p(-f));
      tail[i] = tail[i + 1] + pmf;
    }
    // The micro-batches' longest: the (group - j b)-th smallest, j = 0 .. batches - 1.
    double below = 0;
    for (int j = 0; j < batches; ++j) {
      const int r = group - j * b;
      below += r > hi ? 0.0 : r < lo ? 1.0 : std::min(1.0, tail[r]);
    }
    return below / batches;
  });
}

double LogSdOfCv(double cv) { return std::sqrt(std::log1p(cv * cv)); }

double LogMeanOfCutMean(double mean, double sigma, double cut) {
  // The cut mean grows with mu, so bisect on it (mu of the uncut mean at
  // the low end; the cut mean reaches `cut` only as mu grows without bound).
  double lo = std::log(mean) - sigma * sigma / 2, hi = std::log(cut) + kTail * sigma;
  for (int i = 0; i < 48; ++i) {
    const double mid = (lo + hi) / 2;
    (ExpectedCutMax(mid, sigma, 1, cut) < mean ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

double ExpectedPackFill(int seq_len, double mean, double cv) {
  const double cut = seq_len;
  if (mean <= 0 || mean >= cut) return cut;
  // The layouts a plan screens ask the same question many times: the last
  // answer is kept (per thread).
  struct Answer {
    int seq_len = -1;
    double mean = -1, cv = -1, fill = 0;
  };
  thread_local Answer last;
  if (last.seq_len == seq_len && last.mean == mean && last.cv == cv) return last.fill;
  // Whole-token lengths at 1,024 equiprobable quantiles of the cut
  // log-normal (uniform lengths without a spread); a fixed linear
  // congruential sequence (Knuth's MMIX constants) draws them in turn.
  std::vector<int> lengths;
  if (cv <= 0) {
    lengths.assign(1, std::max(1, static_cast<int>(std::lround(mean))));
  } else {
    const double sigma = LogSdOfCv(cv), mu = LogMeanOfCutMean(mean, sigma, cut);
    constexpr int kQuantiles = 1024;
    for (int i = 0; i < kQuantiles; ++i)
      lengths.push_back(static_cast<int>(std::clamp<double>(
          std::lround(Quantile((i + 0.5) / kQuantiles, mu, sigma)), 1, seq_len)));
  }
  // Many samples to a pack: the gap a pack ends with is a renewal
  // process's age at seq_len, whose mean tends to E[L^2] / (2 E[L]) (the
  // inspection paradox); it has within a token of it from 64 samples a
  // pack on (SampleLengths.PackFillMeetsTheRenewalLimit).
  if (cut / mean > kRenewalLimit) {
    double sum = 0, squares = 0;
    for (int l : lengths) sum += l, squares += double(l) * l;
    last = {seq_len, mean, cv, cut - squares / (2 * sum)};
    return last.fill;
  }
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&]() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return lengths[(state >> 33) % lengths.size()];
  };
  // Play the packer out: the first pack starts empty, each later one with
  // the sample that did not fit the one before. The first pack is left out
  // of the mean (its start is not the packer's steady state).
  constexpr long kPacks = 4000;
  long packs = 0;
  double filled = 0;
  int fill = next();
  while (packs <= kPacks) {
    const int length = next();
    if (fill + length <= seq_len) {
      fill += length;
      continue;
    }
    if (packs > 0) filled += fill;
    ++packs;
    fill = length;
  }
  last = {seq_len, mean, cv, filled / kPacks};
  return last.fill;
}

}  // namespace pf

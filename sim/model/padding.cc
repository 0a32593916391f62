#include "sim/model/padding.h"

#include <algorithm>
#include <cmath>

namespace pf {
namespace {

// Trapezoids in log-length over mu +- 8 sigma (cut at seq_len) for the
// expectations below: their integrands are smooth and monotone there and
// 1 below, 0 above (to 1e-15), so 256 of them (a sixteenth of sigma each)
// are exact to well under a token.
constexpr int kSteps = 256;
constexpr double kTail = 8;

// P(length <= x) for a log-normal of log-mean mu and log-sd sigma.
double Cdf(double x, double mu, double sigma) {
  if (x <= 0) return 0;
  return 0.5 * std::erfc(-(std::log(x) - mu) / (sigma * std::sqrt(2.0)));
}

// E[min(max of b lengths, cut)] = the integral over [0, cut] of
// 1 - P(length <= x)^b: 1 up to exp(mu - 8 sigma), then in u = log x.
double ExpectedCutMax(double mu, double sigma, int b, double cut) {
  const double u0 = std::min(mu - kTail * sigma, std::log(cut));
  const double u1 = std::min(mu + kTail * sigma, std::log(cut));
  const double h = (u1 - u0) / kSteps;
  double sum = 0;
  for (int i = 0; i <= kSteps && h > 0; ++i) {
    const double x = std::exp(u0 + i * h);
    sum += (i == 0 || i == kSteps ? 0.5 : 1.0) * (1 - std::pow(Cdf(x, mu, sigma), b)) * x;
  }
  return std::exp(u0) + sum * h;
}

}  // namespace

double ExpectedLongestSample(const TrainingSpec& t) {
  const double mean = t.sample_len, cut = t.seq_len;
  if (t.micro_batch <= 1 || t.sample_len_cv <= 0 || mean >= cut) return mean;
  // The layouts a plan or an alternative screens ask the same question
  // hundreds of times: the last answer is kept (per thread).
  struct Answer {
    double mean = -1, cv = -1, cut = -1;
    int b = 0;
    double longest = 0;
  };
  thread_local Answer last;
  if (last.mean == mean && last.cv == t.sample_len_cv && last.cut == cut && last.b == t.micro_batch)
    return last.longest;
  const double sigma = std::sqrt(std::log1p(t.sample_len_cv * t.sample_len_cv));
  // The log-mean whose lengths, cut at seq_len, average sample_len: the cut
  // mean grows with mu, so bisect on it (mu of the uncut mean at the low
  // end; the cut mean reaches seq_len only as mu grows without bound).
  double lo = std::log(mean) - sigma * sigma / 2, hi = std::log(cut) + 8 * sigma;
  for (int i = 0; i < 48; ++i) {
    const double mid = (lo + hi) / 2;
    (ExpectedCutMax(mid, sigma, 1, cut) < mean ? lo : hi) = mid;
  }
  const double longest = std::clamp(ExpectedCutMax((lo + hi) / 2, sigma, t.micro_batch, cut), mean, cut);
  last = {mean, t.sample_len_cv, cut, t.micro_batch, longest};
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
  const double longest = std::ceil(ExpectedLongestSample(t) / chunk) * chunk;
  v.training.seq_len = static_cast<int>(std::min<double>(t.seq_len, longest));
  v.training.padding = Padding::kMaxLength;  // to its length now
  return v;
}

}  // namespace pf

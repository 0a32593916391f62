// Prediction intervals: the uncertain inputs carry ranges, and step time,
// wall clock and cost are reported as the 5th, 50th and 95th percentiles
// of a seeded (deterministic) Monte Carlo sample rather than one number.
//
// Step time depends on two achieved efficiencies, which the simulator
// cannot know for a cluster it has not seen: kernels' (compute) and the
// network's. Their effect is measured, not assumed: the step is simulated
// again with every compute task (kernel) and then every link (network)
// slower and faster by the range, and ln(step) is fitted (least squares,
// Eigen) on ln(kernel factor) and ln(network factor) over the five runs.
// Each draw then scales the step by the fitted power law and re-evaluates
// the job model (job_model.h) and the bill (bill.h) with drawn failure
// and preemption rates and spot price.
#pragma once

#include <cstdint>
#include <functional>

#include "sim/job/job_model.h"

namespace pf {

// Each input's 90% range as a factor: 90% of draws fall within x/÷ factor
// of the scenario's figure (log-normal, sigma = ln(factor) / 1.645).
struct Uncertainty {
  // Achieved kernel throughput: the leave-one-out errors of the ten
  // end-to-end reference rows (`build/calibrate`: +2.2, -8.7, -0.9, +3.7,
  // +3.8, -5.2, -9.8, +3.6, +4.9, +7.7%) have an RMS of 5.7%, so a 90%
  // range of 1.645 x 5.7% = 9.4%.
  double kernel = 1.094;
  // Achieved network bandwidth: the 14 nccl-tests all-reduce points of
  // nccl_allreduce_1node.csv are fitted with an RMS error of 3.5%
  // (`build/calibrate --nccl`), a 90% range of 5.8%. (Multi-node rows of
  // nccl_misc.csv spread wider, within 15%: an interval, not a bound.)
  double network = 1.058;
  // Hardware failure rate: published per-GPU rates span 6.3x, from
  // Llama 3's 50,675 GPU-hours between failures (16,384 H100s, Dubey et
  // al. 2024) to 8,090 (1,024-GPU jobs on Meta's RSC, 7.9 h mean time to
  // failure: Kokolis et al. 2024, "Revisiting Reliability in Large-Scale
  // Machine Learning Research Clusters"); x/÷ 2.5 spans it about any figure.
  double failures = 2.5;
  // Spot preemption rate: AWS's Spot Instance Advisor states interruption
  // frequency in bands 5 points wide (<5%, 5-10%, ... per month), a factor
  // of about 2 within a band.
  double preemptions = 2.0;
  // Spot price: the seeds' spot discount of 50-70% puts a spot price
  // between 0.3 and 0.5 of on-demand, x/÷ 1.29 about their geometric middle.
  // On-demand and reserved prices are list prices: no range.
  double spot_price = 1.29;
  // Every range scaled by `k` (k = 0: the point estimate only).
  Uncertainty Scaled(double k) const;
};

// d ln(step) / d ln(factor) of the two efficiencies (negative: faster
// kernels, shorter steps), fitted over five simulations.
struct Sensitivity {
  double kernel = 0, network = 0;
};
// ln(step) = a + b ln(kernel) + c ln(network) through the five runs:
// (1,1), (k,1), (1/k,1), (1,n), (1,1/n); `steps` in that order.
Sensitivity FitSensitivity(const double (&steps)[5], double kernel, double network);

struct Spread {
  double p05 = 0, p50 = 0, p95 = 0;
};
struct JobSpread {
  Spread step, wall, cost;
};

inline constexpr int kIntervalDraws = 2000;
inline constexpr std::uint64_t kIntervalSeed = 20261201;

// `cost(time, rate_scale)`: the bill's total for a drawn job (empty: no
// price). `spot`: the rate is a spot price, drawn too.
JobSpread SampleJob(const JobInputs& in, const Sensitivity& sens, const Uncertainty& u, bool spot,
                    const std::function<double(const JobTime&, double)>& cost);

}  // namespace pf

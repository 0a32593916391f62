// Interruptions and checkpoints (Daly 2006): the optimal interval against a
// numerical minimum of the expected wall clock, Young's first-order limit,
// a Monte Carlo of memoryless interruptions against the expected-value
// formula, and the scenario's section end to end.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/job/interruptions.h"
#include "sim/job/simulate.h"
#include "sim/scenario/checkpoint_parser.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/test_util.h"

namespace pf {
namespace {

TEST(Interruptions, DalysIntervalIsTheMinimumOfTheExpectedWallClock) {
  const Seconds work(30 * 86400.0), restart(900);
  for (double checkpoint : {5.0, 60.0, 600.0})
    for (double mtbi : {3600.0, 86400.0, 7 * 86400.0}) {
      const Seconds d(checkpoint), m(mtbi);
      // The minimum over a fine grid of intervals.
      double best = 0, best_wall = HUGE_VAL;
      for (double tau = 1; tau < 5 * mtbi; tau *= 1.001) {
        const double w = DalyWallClock(work, Seconds(tau), d, restart, m).value();
        if (w < best_wall) best_wall = w, best = tau;
      }
      const Seconds daly = DalyOptimalInterval(d, m);
      // Daly's estimate is close to the true optimum, and the wall clock
      // there is within 0.1% of the minimum (the curve is flat near it).
      EXPECT_NEAR(daly.value() / best, 1, 0.05) << checkpoint << " s, " << mtbi << " s";
      EXPECT_NEAR(DalyWallClock(work, daly, d, restart, m).value() / best_wall, 1, 1e-3);
    }
}

TEST(Interruptions, YoungsIntervalToFirstOrder) {
  const Seconds d(10), m(1e6);  // delta << M
  EXPECT_NEAR(DalyOptimalInterval(d, m).value(), std::sqrt(2 * 10 * 1e6), 0.01 * std::sqrt(2 * 10 * 1e6));
  EXPECT_EQ(DalyOptimalInterval(Seconds(3e6), m).value(), 1e6);  // delta >= 2M: the interval is M
}

// A job of `work` in chunks of `tau`, each followed by a checkpoint of
// `delta`; interruptions at rate 1/m strike anywhere (also during
// checkpoints and restarts), losing the chunk in progress and costing
// `restart`.
double MonteCarloWall(double work, double tau, double delta, double restart, double m, std::mt19937_64& rng) {
  std::exponential_distribution<double> next(1 / m);
  double wall = 0, done = 0;
  double until = next(rng);  // time to the next interruption
  while (done < work) {
    const double chunk = std::min(tau, work - done) + delta;
    if (until >= chunk) {  // the chunk and its checkpoint finish
      wall += chunk, until -= chunk, done += chunk - delta;
      continue;
    }
    wall += until;  // lost, then a restart, itself interruptible
    double need = restart;
    until = next(rng);
    while (until < need) wall += until, until = next(rng);
    wall += need, until -= need;
  }
  return wall;
}

TEST(Interruptions, MonteCarloAgreesWithTheExpectedValue) {
  std::mt19937_64 rng(20261201);
  const double work = 20 * 86400.0, tau = 1800, delta = 60, restart = 600, m = 86400;
  double sum = 0;
  const int runs = 4000;
  for (int k = 0; k < runs; ++k) sum += MonteCarloWall(work, tau, delta, restart, m, rng);
  const double expected = DalyWallClock(Seconds(work), Seconds(tau), Seconds(delta), Seconds(restart), Seconds(m)).value();
  EXPECT_NEAR(sum / runs / expected, 1, 0.01);
}

TEST(Interruptions, WithoutInterruptionsOnlyTheCheckpointsCost) {
  const Interruptions i = ExpectInterruptions(Seconds(36000), Seconds(1800), Seconds(60), Seconds(600), 8,
                                              Seconds(HUGE_VAL), 0);
  EXPECT_DOUBLE_EQ(i.wall.value(), 36000 * (1 + 60.0 / 1800));
  EXPECT_EQ(i.expected, 0);
}

TEST(Interruptions, TheRatesAddUp) {
  // 1,000 GPUs failing once per 10^6 h each and 0.5 preemptions per hour: one
  // interruption per 1 / (0.001 + 0.5) h.
  const Interruptions i = ExpectInterruptions(Seconds(3600), Seconds(600), Seconds(10), Seconds(60), 1000,
                                              Seconds(1e6 * 3600), 0.5);
  EXPECT_NEAR(i.mtbi.value(), 3600 / 0.501, 1e-6);
}

TEST(Interruptions, ScenarioSectionEndToEnd) {
  const std::string path = testing_util::kRoot + "/scenarios/llama70b_512xH100_ckpt.yaml";
  const Result with = Simulate(LoadScenario(path, {"interruptions={}"}));
  const Result without = Simulate(LoadScenario(path));
  ASSERT_TRUE(with.step && with.step->interruptions);
  const Interruptions& i = *with.step->interruptions;
  // Llama 3's failure rate on 512 GPUs: one per 99 h.
  EXPECT_NEAR(i.mtbi.value() / 3600, kLlama3GpuMtbfHours / 512, 1e-6);
  EXPECT_GT(with.step->wall_clock.value(), without.step->wall_clock.value());
  EXPECT_GT(i.goodput, 0.9);
  EXPECT_LT(i.goodput, 1);
  EXPECT_NEAR(i.optimal_interval.value(), std::sqrt(2 * with.step->checkpoint->pause.value() * i.mtbi.value()),
              0.05 * i.optimal_interval.value());
}

TEST(Interruptions, BadSectionsAreRefused) {
  const std::string path = testing_util::kRoot + "/scenarios/llama70b_512xH100.yaml";  // no checkpoint section
  EXPECT_THROW(LoadScenario(path, {"interruptions={}"}), InputError);
  const std::string ckpt = testing_util::kRoot + "/scenarios/llama70b_512xH100_ckpt.yaml";
  try {
    LoadScenario(ckpt, {"interruptions={preemptions_per_hour: -1}"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("interruptions.preemptions_per_hour: \"-1\" must be a rate in [0, 100] per hour"),
              std::string::npos)
        << e.what();
  }
}

// A job interrupted far more often than it checkpoints never finishes:
// refused with the key and what to change, not printed as 1e150 days.
TEST(Interruptions, AJobThatNeverFinishesIsRefused) {
  const std::string ckpt = testing_util::kRoot + "/scenarios/llama70b_512xH100_ckpt.yaml";
  try {
    Scenario s = LoadScenario(ckpt, {"interruptions={gpu_mtbf_hours: 1}"});
    s.intervals = false;
    Simulate(s);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "interruptions.gpu_mtbf_hours");
    EXPECT_NE(std::string(e.what()).find("so it never finishes; checkpoint more often (checkpoint.every; Daly's optimum"),
              std::string::npos)
        << e.what();
  }
  // One GPU of 512 an hour: an interruption every 7 s against a 30 min
  // interval; at 10,000 h each the job runs.
  Scenario ok = LoadScenario(ckpt, {"interruptions={gpu_mtbf_hours: 10000}"});
  ok.intervals = false;
  EXPECT_TRUE(Simulate(ok).step);
}

}  // namespace
}  // namespace pf

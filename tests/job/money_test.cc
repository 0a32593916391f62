// The job's money: the bill line by line against hand arithmetic, reserved
// terms, the job model's parts, prediction intervals (they contain the
// point estimate, narrow as the ranges narrow, and are deterministic), the
// sensitivity fit, offers and prices from YAML, and bad price input.
#include <cmath>
#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/job/bill.h"
#include "sim/job/intervals.h"
#include "sim/job/job_model.h"
#include "sim/job/simulate.h"
#include "sim/scenario/offers.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/test_util.h"

namespace pf {
namespace {

const std::string kLora = testing_util::kRoot + "/scenarios/70b_8xA800_tp8.yaml";
const std::string kPretrain = testing_util::kRoot + "/scenarios/llama70b_1024xH100_pretrain.yaml";

// The message of the InputError that loading `path` with `overrides` throws.
std::string Refusal(const std::string& path, const std::vector<std::string>& overrides) {
  try {
    LoadScenario(path, overrides);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

const BillLine* Line(const Bill& b, const std::string& prefix) {
  for (const BillLine& l : b.lines)
    if (l.item.rfind(prefix, 0) == 0) return &l;
  return nullptr;
}

TEST(Bill, LineByLine) {
  // Two nodes at 10 USD per node-hour; an S3 tier at 0.02 USD per GB-month,
  // 0.0004 per 1k GETs, 0.005 per 1k PUTs, 0.09 per GB out.
  Scenario s = LoadScenario(kPretrain, {"cluster.nodes=2", "parallel.pp=1", "parallel.dp=2", "training.global_batch=16",
                                        "price={per_node_hour: 10USD, storage: {s3: {per_gb_month: 0.02USD, "
                                        "get_per_1k: 0.0004USD, put_per_1k: 0.005USD, egress_per_gb: 0.09USD}}}",
                                        "checkpoint.tier=s3", "checkpoint.keep=2", "interruptions.preemptions_per_hour=0"});
  JobTime t;
  t.startup = Seconds(1800), t.staging = Seconds(1800);  // 1 h idle
  t.steps = Seconds(36000), t.eval = Seconds(3600);        // 11 h training
  t.checkpoints = 4, t.pause = Seconds(900), t.checkpoint_pauses = Seconds(3600);  // 1 h
  t.wall = t.startup + t.staging + t.training() + t.checkpoint_pauses;             // 13 h
  JobUse u;
  u.dataset = Bytes(4e12);
  u.tier_reads = 1e12, u.tier_requests = 5e5;  // data.tier is lustre: not priced here
  u.staged = 4e12;                              // from s3
  u.checkpoint = Bytes(100 * kPartBytes);
  const Bill b = BillJob(s, t, u, PriceMode::kOnDemand);
  ASSERT_TRUE(Line(b, "nodes (on_demand): start-up"));
  EXPECT_DOUBLE_EQ(Line(b, "nodes (on_demand): start-up")->amount(), 2 * 1.0 * 10);
  EXPECT_DOUBLE_EQ(Line(b, "nodes (on_demand): training")->amount(), 2 * 11.0 * 10);
  EXPECT_DOUBLE_EQ(Line(b, "nodes (on_demand): checkpoint")->amount(), 2 * 1.0 * 10);
  EXPECT_EQ(Line(b, "nodes (on_demand): rework"), nullptr);  // no interruptions, no such line
  // S3 holds the dataset for the 13 h, and the checkpoints: 4 written at
  // 1/4, 2/4, 3/4 and the end of the 12 h run, the newest 2 kept: held 2,
  // 2, 1 and 0 quarters, 5 x 3 h of one checkpoint.
  const double months = 13.0 / 730;
  const double ckpt_gb_months = 100 * kPartBytes / 1e9 * 5 * 3 / 730;
  EXPECT_NEAR(Line(b, "storage s3: capacity")->amount(), (4000 * months + ckpt_gb_months) * 0.02, 1e-9);
  // GETs: the staging copy in 8 MiB parts; PUTs: 4 checkpoints of 100 parts.
  EXPECT_NEAR(Line(b, "storage s3: read requests")->amount(), std::ceil(4e12 / kPartBytes) / 1000 * 0.0004, 1e-12);
  EXPECT_NEAR(Line(b, "storage s3: write requests")->amount(), 4 * 100 / 1000.0 * 0.005, 1e-12);
  EXPECT_NEAR(Line(b, "storage s3: egress")->amount(), 4000 * 0.09, 1e-9);
  double sum = 0;
  for (const BillLine& l : b.lines) {
    EXPECT_GT(l.amount(), 0) << l.item;
    sum += l.quantity * l.unit_price;
  }
  EXPECT_DOUBLE_EQ(b.total(), sum);
}

TEST(Bill, ReservedTermsAreBilledWhole) {
  Scenario s = LoadScenario(kLora, {"price={per_node_hour: 9.6USD, mode: reserved, term_days: 30}"});
  JobTime t;
  t.steps = Seconds(57 * 3600.0), t.wall = t.steps;
  const Bill b = BillJob(s, t, JobUse{}, PriceMode::kReserved);
  // A 57 h job on a 30-day term pays 720 h.
  EXPECT_NEAR(b.total(), 720 * 9.6, 1e-9);
  EXPECT_NEAR(Line(b, "nodes (reserved): rest of the last 30-day term")->quantity, 720 - 57, 1e-9);
}

TEST(JobModel, PartsAddUpToTheWallClock) {
  JobInputs in;
  in.step = Seconds(10), in.steps = 1000;
  in.eval_batch = Seconds(2), in.eval_every_steps = 100, in.eval_batches = 5;
  in.startup = Seconds(600), in.staging = Seconds(300);
  in.checkpoints = true, in.every_steps = 250, in.write = Seconds(30), in.copy = Seconds(1);
  const JobTime t = TimeJob(in);
  EXPECT_EQ(t.evals, 10);
  EXPECT_DOUBLE_EQ(t.eval.value(), 10 * 5 * 2);
  EXPECT_EQ(t.checkpoints, 4);
  EXPECT_DOUBLE_EQ(t.wall.value(), 600 + 300 + 10000 + 100 + 4 * 30);
  in.async = true;  // the write (30 s) hides behind 250 steps: only the copy pauses
  EXPECT_DOUBLE_EQ(TimeJob(in).wall.value(), 600 + 300 + 10000 + 100 + 4 * 1);
}

TEST(Intervals, SensitivityFitRecoversAPowerLaw) {
  // step = 10 s x kernel^-0.7 x network^-0.2
  const double k = 1.1, n = 1.05;
  auto step = [](double a, double b) { return 10 * std::pow(a, -0.7) * std::pow(b, -0.2); };
  const double steps[5] = {step(1, 1), step(k, 1), step(1 / k, 1), step(1, n), step(1, 1 / n)};
  const Sensitivity fit = FitSensitivity(steps, k, n);
  EXPECT_NEAR(fit.kernel, -0.7, 1e-12);
  EXPECT_NEAR(fit.network, -0.2, 1e-12);
}

JobInputs LongJob() {
  JobInputs in;
  in.step = Seconds(5), in.steps = 400000;
  in.checkpoints = true, in.every = Seconds(7200), in.write = Seconds(60), in.copy = Seconds(60);
  in.interruptions = true, in.gpus = 1024, in.gpu_mtbf = Seconds(50675 * 3600.0), in.restart = Seconds(600);
  in.preemptions_per_hour = 0.05;
  return in;
}

TEST(Intervals, ContainThePointEstimateAndNarrowWithTheRanges) {
  const JobInputs in = LongJob();
  const Sensitivity sens{-0.8, -0.15};
  auto cost = [](const JobTime& t, double k) { return t.wall.value() / 3600 * 100 * k; };
  const double point = TimeJob(in).wall.value();
  double previous = HUGE_VAL;
  for (double k : {1.0, 0.5, 0.25}) {
    const JobSpread sp = SampleJob(in, sens, Uncertainty{}.Scaled(k), true, cost);
    EXPECT_LT(sp.wall.p05, point);
    EXPECT_GT(sp.wall.p95, point);
    EXPECT_LT(sp.step.p05, 5);
    EXPECT_GT(sp.step.p95, 5);
    EXPECT_LT(sp.cost.p05, point / 3600 * 100);
    EXPECT_GT(sp.cost.p95, point / 3600 * 100);
    const double width = sp.wall.p95 - sp.wall.p05;
    EXPECT_LT(width, previous) << "ranges x " << k;
    previous = width;
  }
  // No range: the point estimate.
  const JobSpread none = SampleJob(in, sens, Uncertainty{}.Scaled(0), false, cost);
  EXPECT_DOUBLE_EQ(none.wall.p05, point);
  EXPECT_DOUBLE_EQ(none.wall.p95, point);
}

TEST(Intervals, TheKernelRangeGivesTheStepItsSpread) {
  // A step whose time is all kernels (d ln step / d ln kernel = -1): its 90%
  // interval is the kernel range itself, within sampling error.
  const JobInputs in = LongJob();
  const Uncertainty u;
  const JobSpread sp = SampleJob(in, Sensitivity{-1, 0}, u, false, nullptr);
  EXPECT_NEAR(sp.step.p95 / 5, u.kernel, 0.01);
  EXPECT_NEAR(5 / sp.step.p05, u.kernel, 0.01);
}

TEST(Intervals, AreDeterministic) {
  const JobSpread a = SampleJob(LongJob(), Sensitivity{-0.8, -0.2}, Uncertainty{}, false, nullptr);
  const JobSpread b = SampleJob(LongJob(), Sensitivity{-0.8, -0.2}, Uncertainty{}, false, nullptr);
  EXPECT_EQ(a.wall.p05, b.wall.p05);
  EXPECT_EQ(a.wall.p95, b.wall.p95);
}

TEST(Money, ScenarioEndToEnd) {
  Scenario s = LoadScenario(kPretrain);
  s.intervals = true;
  const Result r = Simulate(s);
  ASSERT_TRUE(r.step && r.step->bill && r.step->spread && r.step->sensitivity);
  const StepResult& st = *r.step;
  // Reserved (the published Capacity Block), on-demand and spot.
  ASSERT_EQ(st.modes.size(), 3u);
  EXPECT_NEAR(st.cost->value(), st.bill->total(), 1e-6);
  // The sensitivities: this step is mostly kernels and bubble (which scales
  // with them), a little exposed communication.
  EXPECT_LT(st.sensitivity->kernel, -0.5);
  EXPECT_GT(st.sensitivity->kernel, -1.05);
  EXPECT_LT(st.sensitivity->network, 0);
  EXPECT_GT(st.sensitivity->network, -0.5);
  for (const ModeOutcome& m : st.modes) {
    ASSERT_TRUE(m.spread);
    EXPECT_LE(m.spread->cost.p05, m.bill.total()) << ToString(m.mode);
    EXPECT_GE(m.spread->cost.p95, m.bill.total()) << ToString(m.mode);
  }
  // Spot: cheaper per hour than on demand, slower (preemptions).
  const ModeOutcome* spot = nullptr;
  const ModeOutcome* demand = nullptr;
  for (const ModeOutcome& m : st.modes) {
    if (m.mode == PriceMode::kSpot) spot = &m;
    if (m.mode == PriceMode::kOnDemand) demand = &m;
  }
  ASSERT_TRUE(spot && demand);
  EXPECT_GT(spot->time.wall.value(), demand->time.wall.value());
  EXPECT_LT(spot->bill.total(), demand->bill.total());
  // Staging and start-up are paid with the GPUs idle.
  EXPECT_GT(st.time.staging.value(), 0);
  EXPECT_TRUE(Line(*st.bill, "nodes (reserved): start-up and staging"));
}

TEST(Money, NodeFailureRatesCountPerGpu) {
  // 128 nodes of 8 GPUs failing once per 1,000 h each: the job's mean time
  // between failures is 1,000 / 128 h, as 1,024 GPUs failing once per 8,000 h.
  const Scenario s = LoadScenario(kPretrain, {"interruptions.node_mtbf_hours=1000"});
  EXPECT_DOUBLE_EQ(s.interruptions.gpu_mtbf.value(), 8000 * 3600.0);
  EXPECT_NE(Refusal(kPretrain, {"interruptions.node_mtbf_hours=1000", "interruptions.gpu_mtbf_hours=5"})
                .find("give gpu_mtbf_hours or node_mtbf_hours, not both"),
            std::string::npos);
}

TEST(Money, EpochsSetTheJobsLength) {
  // 4 TB of 2-byte tokens: 2T tokens an epoch.
  std::string text = testing_util::ReadFile(kPretrain);
  const size_t at = text.find("  tokens: 2T");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("  tokens: 2T").size(), "  epochs: 1.5");
  const std::string path = testing_util::UniqueTempPath("epochs");
  std::ofstream(path) << text;
  const Scenario s = LoadScenario(path);
  // Out of range.
  EXPECT_NE(Refusal(path, {"training.epochs=-1"}).find("must be a number of passes over the dataset in (0, 1e6]"),
            std::string::npos);
  std::remove(path.c_str());
  EXPECT_NEAR(s.training.job_tokens, 1.5 * 2e12, 2e12 * 1e-6);
}

TEST(Money, OffersComeFromTheCatalog) {
  const auto& offers = Offers();
  ASSERT_TRUE(offers.count("aws-p5-48xlarge"));
  const Offer& p5 = offers.at("aws-p5-48xlarge");
  // shared/reference/prices.csv: the p5.48xlarge Capacity Block, 39.33 USD/h.
  bool found = false;
  for (const auto& [mode, rate] : p5.modes)
    if (mode == PriceMode::kReserved) {
      found = true;
      EXPECT_DOUBLE_EQ(rate.per_node_hour.value(), 39.33);
      EXPECT_FALSE(rate.example);
      EXPECT_EQ(rate.term_hours, 24);
    }
  EXPECT_TRUE(found);
  // Per-GPU offers become per node with the node's GPUs.
  const Scenario s = LoadScenario(testing_util::kRoot + "/scenarios/7b_lora_4x4090.yaml",
                                  {"price={offer: example-rental-4x-rtx4090}"});
  EXPECT_DOUBLE_EQ(s.price.rate().per_node_hour.value(), 0.40 * 4);
  EXPECT_TRUE(s.price.rate().per_gpu);
}

TEST(Money, BadPricesAreRefused) {
  struct Case {
    std::vector<std::string> set;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"price={offer: example-rental-8x-a80}"},
       "price.offer: unknown offer \"example-rental-8x-a80\" (did you mean 'example-rental-8x-a800'?)"},
      {{"price={offer: lambda-8x-h100-sxm5}"}, "rents h100-sxm-8x nodes, but the cluster's nodes are a800-80gb-sxm-8x"},
      {{"price={per_node_hour: 16}"}, "price.per_node_hour"},
      {{"price={per_node_hour: -16USD}"}, "price.per_node_hour"},
      {{"price={offer: example-rental-8x-a800, mode: spot}", "interruptions.preemptions_per_hour=0"},
       "price.mode: spot nodes are preempted"},
      {{"price={offer: example-rental-8x-a800, mode: lease}"}, "\"lease\" is not accepted (accepted: on_demand, spot, reserved)"},
      {{"price={per_node_hour: 16USD, term_days: 30}"}, "price.term_days: a term is for mode: reserved"},
      {{"price={offer: example-rental-8x-a800, per_node_hour: 16USD}"}, "give offer or a rate, not both"},
      {{"price={per_node_hour: 16USD, storage: {s4: {per_gb_month: 0.02USD}}}"}, "not one of the cluster's storage tiers"},
  };
  for (const Case& c : cases) {
    const std::string got = Refusal(kLora, c.set);
    EXPECT_NE(got.find(c.message), std::string::npos) << c.set[0] << "\n  got: " << got;
    EXPECT_NE(got.find("70b_8xA800_tp8.yaml") == std::string::npos && got.find("--set") == std::string::npos, true) << got;
  }
  // A negative preemption rate; staging from the data tier itself.
  EXPECT_NE(Refusal(kPretrain, {"interruptions.preemptions_per_hour=-0.1"}).find("must be a rate in [0, 100] per hour"),
            std::string::npos);
  EXPECT_NE(Refusal(kPretrain, {"job.stage_from=lustre"}).find("job.stage_from: \"lustre\" is data.tier itself"),
            std::string::npos);
  EXPECT_NE(Refusal(kPretrain, {"training.epochs=2"}).find("give tokens or epochs, not both"), std::string::npos);
  // The job section, checkpoint.keep, node failures.
  EXPECT_NE(Refusal(kPretrain, {"job.stage_from=s4"}).find("job.stage_from: \"s4\" is not a storage tier of the cluster"),
            std::string::npos);
  EXPECT_NE(Refusal(kPretrain, {"job.startup=-5min"}).find("job.startup"), std::string::npos);
  EXPECT_NE(Refusal(kPretrain, {"job.eval={every_steps: 0, batches: 5}"}).find("job.eval.every_steps"),
            std::string::npos);
  EXPECT_NE(Refusal(kPretrain, {"job.bogus=1"}).find("job.bogus: unknown key"), std::string::npos);
  EXPECT_NE(Refusal(kPretrain, {"checkpoint.keep=0"}).find("checkpoint.keep"), std::string::npos);
  EXPECT_NE(Refusal(kPretrain, {"interruptions.node_mtbf_hours=0.5"}).find("must be in [1, 1e9] hours"),
            std::string::npos);
  EXPECT_NE(Refusal(kLora, {"price={offer: example-rental-8x-a800, storage: {oss: {per_gb_month: 1}}}"})
                .find("price.storage.oss.per_gb_month: \"1\": missing unit"),
            std::string::npos);
}

}  // namespace
}  // namespace pf

#include "sim/job/bill.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/spec/names.h"

namespace pf {
namespace {

constexpr double kGB = 1e9;  // storage is sold in decimal gigabytes

void Add(Bill& b, std::string item, double quantity, std::string unit, double unit_price) {
  if (quantity > 0 && unit_price > 0) b.lines.push_back({std::move(item), quantity, std::move(unit), unit_price});
}

// GB-months the job's checkpoints hold on their tier: the i-th of n,
// written at i/n of the run, is held until the keep-th newer one replaces
// it or the job ends, min(keep, n - i) n-ths of the run. All are kept
// without `keep` (the default of Megatron-LM, DeepSpeed and HF Trainer's
// save_total_limit None).
double CheckpointGbMonths(const JobTime& t, Bytes size, long long keep) {
  if (t.checkpoints < 1) return 0;
  const double n = double(t.checkpoints), k = keep > 0 ? std::min(double(keep), n) : n;
  const double held = k * (k - 1) / 2 + (n - k) * k;  // sum over j = n - i of min(k, j), j = 0..n-1
  const double run_hours = (t.wall - t.startup - t.staging).value() / 3600;
  return size.value() / kGB * held / n * run_hours / kHoursPerMonth;
}

std::string Term(double hours) {
  const double days = hours / 24;
  return (days == std::floor(days) ? std::to_string(static_cast<long long>(days)) : std::to_string(days)) + "-day";
}

}  // namespace

Bill BillJob(const Scenario& s, const JobTime& t, const JobUse& u, PriceMode mode, double rate_scale) {
  Bill b;
  b.mode = mode;
  const Rate& rate = *s.price.Find(mode);
  const double per_node_hour = rate.per_node_hour.value() * rate_scale;
  const double nodes = s.cluster.nodes;
  const double h = 1.0 / 3600;
  const std::string m = ToString(mode);
  // Nodes: every hour of the wall clock, by what it was spent on.
  Add(b, "nodes (" + m + "): start-up and staging, GPUs idle", nodes * (t.startup + t.staging).value() * h, "node-h",
      per_node_hour);
  Add(b, "nodes (" + m + "): training and evaluation", nodes * t.training().value() * h, "node-h", per_node_hour);
  const Seconds run = t.wall - t.startup - t.staging;
  const Seconds pauses = t.interruptions ? std::min(t.checkpoint_pauses, run - t.training()) : t.checkpoint_pauses;
  Add(b, "nodes (" + m + "): checkpoint pauses", nodes * pauses.value() * h, "node-h", per_node_hour);
  Add(b, "nodes (" + m + "): rework and restarts after interruptions",
      nodes * std::max(0.0, (run - t.training() - pauses).value()) * h, "node-h", per_node_hour);
  if (rate.term_hours > 0) {  // reserved: whole terms
    const double used = t.wall.value() * h;
    const double billed = std::ceil(used / rate.term_hours) * rate.term_hours;
    Add(b, "nodes (" + m + "): rest of the last " + Term(rate.term_hours) + " term, unused", nodes * (billed - used),
        "node-h", per_node_hour);
  }
  // Storage, tier by tier.
  const double months = t.wall.value() * h / kHoursPerMonth;
  for (const StorageTier& tier : s.cluster.storage) {
    const StoragePrice* p = s.price.Tier(tier.name);
    if (!p) continue;
    const std::string at = "storage " + tier.name + ": ";
    double held = 0, reads = 0, gets = 0, puts = 0;  // GB-months, bytes, requests
    if (s.data.enabled && (tier.name == s.data.tier || tier.name == s.job.stage_from))
      held += u.dataset.value() / kGB * months;
    if (s.data.enabled && tier.name == s.data.tier) reads += u.tier_reads, gets += u.tier_requests;
    if (tier.name == s.job.stage_from) reads += u.staged, gets += std::ceil(u.staged / kPartBytes);
    if (s.checkpoint.enabled && tier.name == s.checkpoint.tier) {
      held += CheckpointGbMonths(t, u.checkpoint, s.checkpoint.keep);
      puts += double(t.checkpoints) * std::ceil(u.checkpoint.value() / kPartBytes);
      const double restores = t.interruptions ? t.interruptions->expected : 0;
      reads += restores * u.checkpoint.value();
      gets += restores * std::ceil(u.checkpoint.value() / kPartBytes);
    }
    Add(b, at + "capacity held", held, "GB-month", p->per_gb_month.value());
    Add(b, at + "read requests", gets / 1000, "1k requests", p->get_per_1k.value());
    Add(b, at + "write requests", puts / 1000, "1k requests", p->put_per_1k.value());
    Add(b, at + "egress (reads leaving " + tier.name + "'s provider)", reads / kGB, "GB", p->egress_per_gb.value());
  }
  return b;
}

}  // namespace pf

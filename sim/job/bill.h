// The job's bill, line by line, in one pricing mode (spec.h PriceSpec):
// the nodes' hours (split into start-up and staging with idle GPUs,
// training, checkpoint pauses, and what interruptions cost, plus the unused
// part of a reserved term), then per storage tier its capacity for the
// job's duration, its read and write requests and its egress. A line is
// quantity x unit price; nothing is billed that has no price.
#pragma once

#include <string>
#include <vector>

#include "sim/base/units.h"
#include "sim/job/job_model.h"
#include "sim/spec/spec.h"

namespace pf {

// Object-store requests of a bulk copy (staging, checkpoint writes and
// restores): one per 8 MiB part, the multipart chunk size of boto3's S3
// TransferConfig and of the AWS CLI (multipart_chunksize default 8 MB).
inline constexpr double kPartBytes = 8.0 * 1024 * 1024;
// Hours in a billing month (a year's 8,760 / 12, as AWS prorates GB-months).
inline constexpr double kHoursPerMonth = 730;

// What the job reads and writes, besides time.
struct JobUse {
  Bytes dataset;              // data.size on data.tier (0: not stated)
  double tier_reads = 0;      // bytes the training steps read from data.tier
  double tier_requests = 0;   // read requests they issue
  double staged = 0;          // bytes staging reads from job.stage_from (every node's share)
  Bytes checkpoint;           // one checkpoint, every shard
};

struct BillLine {
  std::string item;       // "nodes: training", "storage s3: capacity", ...
  double quantity = 0;
  std::string unit;       // "node-h", "GB-month", "1k requests", "GB"
  double unit_price = 0;  // USD per unit
  double amount() const { return quantity * unit_price; }
};

struct Bill {
  PriceMode mode = PriceMode::kOnDemand;
  std::vector<BillLine> lines;
  double total() const {
    double t = 0;
    for (const BillLine& l : lines) t += l.amount();
    return t;
  }
};

// REQUIRES: s.price.enabled and s.price offers `mode`. `rate_scale`
// multiplies the node rate (a sampled spot price, intervals.h).
Bill BillJob(const Scenario& s, const JobTime& t, const JobUse& u, PriceMode mode, double rate_scale = 1);

}  // namespace pf

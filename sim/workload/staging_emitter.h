// Staging a dataset before training (job.stage_from): copying data.size
// from one storage tier to data.tier as a workload of its own, host memory
// between them, no GPU. A node-local destination (local NVMe, page cache)
// needs the whole dataset on every node, as any rank may read any sample;
// a shared one needs one copy, split evenly over the nodes. Each node
// streams its share in kStagingChunks chunks, a chunk's write overlapping
// the next chunk's read, as a parallel copy tool (s5cmd, rclone, cp over
// a mount) pipelines them.
#pragma once

#include "sim/proto/workload.pb.h"
#include "sim/spec/spec.h"

namespace pf {

inline constexpr int kStagingChunks = 16;

// Bytes each node copies: data.size, or data.size / nodes to a shared tier.
double StagedBytesPerNode(const Scenario& s);

// Tasks "stage_read" (from the source tier) and "stage_write" (to
// data.tier). REQUIRES: s.job.stage_from and data.size are set.
preflight::Workload BuildStaging(const Scenario& s);

}  // namespace pf

// The I/O of one checkpoint (model/checkpoint_size.h) as a workload of its
// own: each GPU copies its shard to host memory over its PCIe path, and
// each node writes what its GPUs hold to the checkpoint tier (a local
// tier's disks, or a shared tier's servers over the fabric, every node at
// once). Restoring reads it back: each node reads its GPUs' shards, each
// GPU copies its own in. No compute.
#pragma once

#include "sim/proto/workload.pb.h"
#include "sim/spec/spec.h"

namespace pf {

// The tasks' names: "ckpt_copy" (GPU <-> host) and "ckpt_io" (host <-> tier).
// REQUIRES: s.checkpoint.enabled.
preflight::Workload BuildCheckpointIo(const Scenario& s, bool restore);

}  // namespace pf

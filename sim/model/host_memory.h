// Host memory per node: what the training processes, their dataloader
// workers and prefetched batches, offloaded optimizer states and an
// asynchronous checkpoint's staging copy take of the node's RAM, against
// what it has; the rest is the page cache's room, which serves later
// epochs of a dataset that fits. Constants and their sources in
// host_memory.cc; plain arithmetic, no SimGrid.
#pragma once

#include <string>
#include <vector>

#include "sim/base/units.h"
#include "sim/spec/spec.h"

namespace pf {

struct HostMemory {
  Bytes processes;   // one training process per GPU
  Bytes workers;     // dataloader worker processes
  Bytes batches;     // prefetched batches (shared memory, and their pinned copies)
  Bytes offload;     // optimizer states, gradients (and parameters) offloaded to host memory
  Bytes activations; // activations offloaded to pinned host memory (training.offload_activations)
  Bytes checkpoint;  // an async checkpoint's copy of the node's shards
  Bytes total;
  Bytes capacity;    // the node's cpu_memory (0: not stated; then it always fits)
  Bytes page_cache;  // capacity - total, at least 0
  bool fits = true;
};

// The most data-parallel ranks whose loaders run on one node (at least 1).
int LoadersPerNode(const Scenario& s);

// The fullest node.
HostMemory EstimateHostMemory(const Scenario& s);

// Share of the dataset later epochs find in the page cache (0 in the first
// epoch, without a stated data.size, or when the dataset is on a tier in
// host memory already).
double PageCacheHits(const Scenario& s);

// Changes that make host memory fit, each as --set flags (empty when it
// fits).
struct HostSuggestion {
  std::string change;
  std::vector<std::string> overrides;
};
std::vector<HostSuggestion> SuggestHostFits(const Scenario& s);

}  // namespace pf

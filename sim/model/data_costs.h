// What the input pipeline costs per sample and per micro-batch: bytes read
// from the dataset's tier and the requests that read them, CPU time to turn
// a stored sample into a tensor (decode, augment, tokenise, collate), and
// bytes copied to the GPU. Constants and their sources are in
// data_costs.cc; no SimGrid.
#pragma once

#include "sim/base/units.h"
#include "sim/spec/spec.h"

namespace pf {

struct SampleCost {
  Bytes stored;            // read from the tier
  double requests = 0;     // read requests (one per file, or per read_size of a shard)
  Seconds cpu;             // on one reference core (topologies/cpus.yaml): the
                           // node's CPU runs it core_speed times faster
  Bytes device;            // the tensors copied to the GPU
};
SampleCost CostOfSample(const Scenario& s);

// One micro-batch of one data-parallel rank, prepared by its `workers`
// together: the bytes and the requests each worker issues one after
// another (less the page cache's hits in later epochs, host_memory.h), the
// core-seconds
// of CPU work, and the bytes copied to the GPU (pageable copies counted at
// the staged rate's equivalent).
struct BatchCost {
  Bytes read_bytes;
  double requests_per_worker = 0;
  Seconds cpu;
  Bytes device_bytes;
};
BatchCost CostOfBatch(const Scenario& s);

// Samples one micro-batch holds (images, or sequences of seq_len tokens).
double SamplesPerMicroBatch(const Scenario& s);

}  // namespace pf

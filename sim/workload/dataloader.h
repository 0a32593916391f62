// The input pipeline of each data-parallel rank, as a PyTorch DataLoader
// runs it: worker processes read samples from the dataset's storage tier
// (request after request, then the bytes, contending with every other
// reader on the tier's servers and the fabric), decode them on the node's
// CPU cores (shared by every loader on the node), and the batch is copied
// to the GPU over its PCIe path before the first pipeline stage's forward
// of that micro-batch may start.
//
// Copies: pinned batches are prefetched to the GPU as soon as they are
// ready (a side-stream prefetcher), off the step's critical path: a batch
// prepared for the next step is copied in that step's window as one of its
// prefetched batches, whose copy is not simulated (the copy link then
// carries fewer batches per step than it does: its own limit shows in the
// report's copy-to-GPU rate, not in the simulated stall). Pageable copies
// are synchronous on the GPU's stream, between the previous kernels and the
// forward, every one of them simulated.
//
// Steady state. A loader that keeps up holds `prefetch x workers` batches
// ready when a step starts; the step consumes its micro-batches and the
// loader, in the meantime, prepares as many (the rest of this step's and
// the first of the next), each batch starting only once the queue has room
// (the batch `prefetch x workers` earlier was consumed). The step ends when
// both the compute and that preparation are done, so a loader slower than
// the GPUs sets the step time, as it does in training. The workers of a
// rank share each batch (same throughput as PyTorch's batch per worker,
// without modelling each worker's batch spanning several steps).
#pragma once

#include "sim/spec/spec.h"
#include "sim/workload/stage_emitter.h"
#include "sim/workload/task_graph.h"

namespace pf {

// Emits the loader of every DP rank and makes the first virtual stage's
// forward of each micro-batch wait for its batch. No-op without a data
// section.
void EmitDataLoader(TaskGraph& g, const Scenario& s, int micro_batches, const PipelineLinks& links);

}  // namespace pf

// GPU memory a training process holds besides its tensors: the CUDA
// context and workspaces, NCCL's buffers for each communicator the GPU is
// in, and what PyTorch's caching allocator reserves beyond its live
// tensors. Each term with its source; together what nvidia-smi shows
// beyond torch.cuda.max_memory_allocated. Plain arithmetic, no SimGrid.
#pragma once

#include "sim/base/units.h"
#include "sim/spec/spec.h"

namespace pf {

struct FrameworkMemory {
  Bytes cuda_context;       // the CUDA context with its loaded kernels, and cuBLAS's workspace
  Bytes nccl_buffers;       // NCCL's connection buffers, all of the GPU's communicators
  Bytes allocator_reserve;  // the caching allocator's cached blocks beyond live tensors
  // Where allocation sizes vary (AllocationsVary): the further blocks the
  // allocator caches while memory allows, assumed to be whole segments it
  // frees and retries before it reports an out-of-memory error; not in
  // total(): in what nvidia-smi shows, not in what the job needs.
  Bytes allocator_cache;
  Bytes total() const { return cuda_context + nccl_buffers + allocator_reserve; }
};

// The communicators a GPU of scenario `s` holds and their NCCL buffers on
// that GPU, in bytes: for each collective group of more than one rank
// (tensor, context, data parallel; HSDP's shard and replica groups) the
// ring's send and receive connections on every channel, and the tree's
// where the group has three or more ranks; for each send/recv peer
// (pipeline neighbours, expert-parallel all-to-all) the per-peer channels
// inside the node or the shared network pool across nodes. `s` is the
// scenario as the memory model sees it (ContextRankView applied).
// REQUIRES: the layout of `s` is valid (Validate).
Bytes NcclBufferBytes(const Scenario& s);

// Whether the job's allocations change size from step to step or module to
// module, which strands cached blocks: micro-batches padded to their
// longest sample (padding.h PadsToLongest) of lengths that vary
// (sample_len_cv above 0), or
// DeepSpeed's ZeRO-3 fetching each Linear into a buffer of its own size
// (FSDP's flat parameters are one size per block).
bool AllocationsVary(const Scenario& s);

// The terms for a GPU of `s` whose live tensors (weights, gradients,
// optimizer states, activations, logits, gather buffers) take `live`.
FrameworkMemory EstimateFrameworkMemory(const Scenario& s, Bytes live);

}  // namespace pf

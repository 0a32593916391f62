// GPU memory per device for a scenario: weights, gradients and optimizer
// states by method, precision and ZeRO stage; activations by recompute
// policy (Korthikanti et al. 2022, "Reducing Activation Recomputation in
// Large Transformer Models", Table 2) times the micro-batches a 1F1B stage
// keeps in flight; the CUDA context, NCCL's buffers and the caching
// allocator's reserve (framework_memory.h). Plain arithmetic, no SimGrid.
#pragma once

#include <string>
#include <vector>

#include "sim/spec/spec.h"
#include "sim/base/units.h"

namespace pf {

struct MemoryBreakdown {
  int stage = 0;          // pipeline stage this describes (the fullest one)
  Bytes weights;          // model weights resident on the GPU
  Bytes gradients;
  Bytes optimizer;        // fp32 master weights + Adam moments (+ adapters')
  Bytes activations;      // saved for backward, all in-flight micro-batches
  Bytes logits;           // last stage: logits + fp32 loss buffers
  Bytes zero_buffers;     // ZeRO-3: gathered layers in flight
  // DistributedDataParallel's gradient buckets under the Trainer without
  // ZeRO (dp > 1): a second copy of the gradients, alive through the step
  // (memory_model.cc DdpBuckets).
  Bytes ddp_buckets;
  // Foreach AdamW's temporary during the step (torch.optim,
  // memory_model.cc ForeachAdamTemp); 0 where another optimizer steps.
  Bytes optimizer_step;
  // A paged bitsandbytes optimizer's moments (model/optimizer.h): CUDA
  // unified memory, outside PyTorch's allocator (not in LiveTensors). On
  // the GPU as far as it has room (in total); the rest is evicted to host
  // memory and paged back for each step.
  Bytes paged_optimizer;
  Bytes paged_evicted;
  // What the terms above count twice: where the Trainer's torch optimizer
  // steps, the gradients are set to None after each step, so the forward's
  // activations, loss and gathered layers (with the gradients only when
  // micro-batches accumulate) and the step's gradients and temporary are
  // two phases; the peak holds the larger and this is the rest (>= 0).
  Bytes phases_apart;
  // The smaller of the two working sets that never coexist (the loss's and
  // one recomputed layer's, memory_model.cc StageMemory): not in the peak
  // of live tensors, but the caching allocator keeps its blocks, whose
  // sizes the other phase does not reuse, so nvidia-smi shows them (in
  // allocator_cache).
  Bytes phase_cache;
  // Beyond the tensors (model/framework_memory.h): the three terms and
  // their sum.
  Bytes cuda_context;       // CUDA context with its kernels, cuBLAS workspace
  Bytes nccl_buffers;       // NCCL's connection buffers, every communicator
  Bytes allocator_reserve;  // the caching allocator's blocks beyond live tensors
  Bytes framework;
  Bytes total;
  Bytes capacity;         // the GPU's memory
  bool fits = false;
  // The allocator's further cached blocks: where allocation sizes vary
  // (framework_memory.h FrameworkMemory::allocator_cache), and the other
  // phase's working set (phase_cache), as far as the GPU holds them (0
  // when the job does not fit): released before an out-of-memory error, so
  // not in total. `observed` = total + allocator_cache, what nvidia-smi
  // shows.
  Bytes allocator_cache;
  Bytes observed;
};

// Per-GPU memory of the fullest pipeline stage.
MemoryBreakdown EstimateMemory(const Scenario& s);

// The tensors alive at the step's peak (what torch.cuda.max_memory_allocated
// reports): states, activations, logits, gather buffers, DDP's buckets
// and the optimizer step's temporary, less what of them is never alive
// together; without the CUDA context, NCCL's buffers or the allocator.
Bytes LiveTensors(const MemoryBreakdown& m);

// The share of the GPU below which what is left to spare is thin (the
// issue's "warns when under ~5%"): there
// the terms the model holds at typical figures (the allocator's reserve
// with shapes that vary, tests/data/memory_overheads.md) decide whether
// the job really fits. The report warns under it; the faster-layout search
// suggests no layout under it.
inline constexpr double kThinHeadroom = 0.05;
// Of `m`'s paged optimizer states, those on the GPU: they fill what it has
// free, and what else needs room evicts more of them rather than failing.
inline Bytes PagedResident(const MemoryBreakdown& m) { return m.paged_optimizer - m.paged_evicted; }
// What the GPU has to spare: its memory less the total, and the paged
// states on it, which make room for the rest.
inline Bytes Spare(const MemoryBreakdown& m) { return m.capacity - m.total + PagedResident(m); }
// Whether `m` fits with at least kThinHeadroom of the GPU to spare.
inline bool FitsWithHeadroom(const MemoryBreakdown& m) {
  return m.fits && Spare(m).value() >= kThinHeadroom * m.capacity.value();
}

// Activation bytes one transformer layer saves for backward, per
// micro-batch, on one rank of a TP group of `tp`, with or without sequence
// parallelism (Korthikanti et al. 2022, Table 2); a mixture of experts'
// routed tokens as its experts are split (expert_tp; 0: tp).
double LayerActivationBytes(const ModelSpec& m, const TrainingSpec& t, int tp, bool sp, int expert_tp = 0);

// torchtune's OffloadActivations keeps on the GPU the forward's stash of
// the last max_fwd_stash_size = 5 saved tensors, freed once their copy to
// the host is done (torchtune/training/_activation_offloading.py @
// 1814feb1); under checkpointing, 5 layers' checkpoints.
inline constexpr int kOffloadStash = 5;
// The checkpoints one GPU offloads to host memory for one micro-batch's
// backward (training.offload_activations): every layer's of its stage.
double OffloadedActivationBytes(const Scenario& s);

// The optimizer's states of every trained parameter, unsharded (what a
// checkpoint saves of them): mixed precision's fp32 master copy and the
// moments as the optimizer keeps them (pure bf16, bitsandbytes' 8-bit).
Bytes OptimizerStates(const Scenario& s);

// Bytes per parameter of the (frozen or trained) transformer-layer weights:
// 2 (bf16/fp16/fp8), 4 (tf32/fp32), or 4.127 bits for QLoRA's NF4 base.
double LayerWeightBytes(Method m, Precision p);

// Trainable parameters (all for full training, adapters for LoRA/QLoRA).
double TrainableParams(const Scenario& s);

}  // namespace pf

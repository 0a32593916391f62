// bitsandbytes' AdamW as the stacks that let the user pick it run it: the
// Trainer's optim="adamw_8bit" (alias of adamw_bnb_8bit), "paged_adamw_8bit"
// and "paged_adamw_32bit" (transformers training_args.py OptimizerNames),
// torchtune's optimizer._component_ bitsandbytes.optim.PagedAdamW8bit (the
// default of its Llama-3.2-3B and Llama-3.1-8B full single-device configs).
// What it changes against the stack's own AdamW: the moments' bytes, where
// they live (PyTorch's allocator or CUDA unified memory), and a step that
// updates one tensor at a time with the GPU synchronised after each.
// Plain arithmetic, no SimGrid.
#pragma once

#include "sim/base/units.h"
#include "sim/spec/spec.h"

namespace pf {

// Whether bitsandbytes steps (training.optimizer other than adamw).
bool BnbOptimizer(const TrainingSpec& t);

// Bytes per trained parameter of the two moments: 8-bit, each block of
// kBnbBlock elements with an fp32 absmax per moment; or fp32.
double BnbMomentBytes(const TrainingSpec& t);

// Of those, the bytes a parameter keeps in CUDA unified memory (paged
// optimizers: the moments of tensors of kBnbPagedMinElements or more;
// the absmax blocks stay in PyTorch's allocator). 0 unpaged.
double BnbPagedBytes(const TrainingSpec& t);

// The share of the trained parameters whose moments are paged: all of a
// full fine-tune's (its norms, under the threshold, are not counted); of
// LoRA's adapters, the A and B matrices of rank x width >= 1e5 elements.
double PagedShare(const Scenario& s);

// Trained parameters an 8-bit bitsandbytes optimizer keeps at fp32 moments
// (8 B): under the Trainer (stacks hf, llama-factory, unsloth), every
// nn.Embedding's weight (transformers Trainer.create_optimizer: when
// optim_bits is 8, "manager.register_module_override(module, "weight",
// {"optim_bits": 32})" for each nn.Embedding); torchtune registers none.
// Only full fine-tunes train the embedding; 0 otherwise.
double Fp32MomentParams(const Scenario& s);
// The bytes those fp32 moments add to the 8-bit ones.
double WideMomentBytes(const Scenario& s);

// Trained parameter tensors one GPU updates each step: a bitsandbytes
// kernel, and a synchronisation, each.
int TrainedTensors(const Scenario& s);

// The host's share of one tensor's bitsandbytes update, which the GPU
// waits out: the update issued from Python, and the
// torch.cuda.synchronize() after it (bitsandbytes optim/optimizer.py
// Optimizer8bit.step since 0.39: "self.update_step(...);
// torch.cuda.synchronize()" for every parameter).
Seconds BnbSecondsPerTensor();

// What a step spends moving `evicted` bytes of paged states back to the GPU
// (bitsandbytes docs, explanations/optimizers.mdx "Paged optimizers": "if
// you evict 1 GB of memory per forward-backward-optimizer loop, then you
// can expect about 50% of the PCIe bandwidth as time in the best case").
Seconds PagedEvictionTime(const Scenario& s, Bytes evicted);

}  // namespace pf

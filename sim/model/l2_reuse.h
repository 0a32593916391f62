// A tensor read back through the GPU's L2 cache. Eager PyTorch runs a chain
// of small kernels, each reading what the one before it wrote (HF's
// LlamaRMSNorm op by op, PEFT's fp32 cast, adapters, scale and add). The L2
// is write-back: a kernel's output stays in it until later traffic evicts
// it, so when the writer's traffic, and that of the kernels launched since,
// fits in the L2, the reader finds the tensor there and the DRAM serves only
// the rest of its traffic. Its own writes still reach the DRAM (written back
// later) and are counted. This pays at a few hundred tokens on Ada's 72-96
// MB L2 (PEFT's method comparison on an L40S, finetune_stacks.md section
// 15), and rarely at training sizes on the 40-50 MB of the A100 and H100.
#pragma once

#include <initializer_list>
#include <utility>
#include <vector>

#include "sim/model/model_math.h"
#include "sim/spec/spec.h"

namespace pf {

// A read of a tensor that the kernel `back` launches earlier in the chain
// wrote (1: the kernel just before).
struct FreshRead {
  double bytes = 0;
  int back = 1;
};

// The kernels of one eager chain in launch order. Each launch records the
// bytes it reads from kernels launched before it in the chain, and the
// traffic since the oldest of those began writing (Op::l2_read, l2_window).
// A read names bytes the kernel's own Op::bytes counts as read, never its
// writes; a read from before the chain's first kernel claims nothing.
class EagerChain {
 public:
  explicit EagerChain(std::vector<Op>& ops) : ops_(ops) {}
  void Launch(Op op, std::initializer_list<FreshRead> reads = {});
  void Launch(Op op, double fresh) { Launch(std::move(op), {FreshRead{fresh, 1}}); }
  // The index the next launch will have, and a read's `back` from a later
  // launch to the kernel launched at `index`.
  int Next() const { return static_cast<int>(traffic_.size()); }
  int Back(int index) const { return Next() - index; }

 private:
  std::vector<Op>& ops_;
  std::vector<double> traffic_;  // each launched kernel's bytes, in launch order
};

// The bytes `op` moves through `g`'s DRAM: all of them, less the fresh reads
// the L2 serves where the window since they were written fits in it
// (GpuSpec::l2_cache; absent: no reuse).
Bytes DramBytes(const Op& op, const GpuSpec& g);

}  // namespace pf

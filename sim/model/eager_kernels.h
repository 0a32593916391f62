// Eager PyTorch's kernels as Ops: one kernel a call, and the chains they
// run in (model/l2_reuse.h), for the stack's block kernels
// (stack_kernels.cc) and PEFT's adapters (adapter_kernels.cc).
#pragma once

#include <string>
#include <vector>

#include "sim/model/l2_reuse.h"
#include "sim/model/model_math.h"

namespace pf {

// A memory-bound kernel moving `bytes` (and `flops`, for the adapters'
// small GEMMs costed as such).
Op KernelOp(std::string name, double bytes, double flops = 0);

// Eager PyTorch's backward of an elementwise op: autograd computes a
// gradient for each input it needs (derivatives.yaml: mul's backward is two
// muls, pow's a pow and a mul), each reading the saved tensors and the
// incoming gradient: two kernels moving twice the forward's bytes.
void EagerKernel(EagerChain& chain, Pass pass, const std::string& name, double bytes, FreshRead fresh = {});

// One elementwise op of an eager chain, in launch order: its forward
// bytes; what it reads that ops launched just before it in the chain wrote
// (model/l2_reuse.h; nothing where its input comes from outside the chain:
// a GEMM, the residual stream); and `grad`, the bytes of its output's
// gradient that the next op's backward writes just before this op's
// backward reads it (0 where the next op does not read this one's output,
// or its backward launches no kernel: an add's passes the gradient on).
struct EagerStep {
  std::string name;
  double bytes = 0;
  FreshRead fresh = {}, also = {};
  double grad = 0;
};

// Eager ops in order: forward one kernel each; backward in reverse, each
// op's two kernels (EagerKernel) reading the incoming gradient the next
// op's backward has just written.
void EagerSteps(std::vector<Op>& ops, Pass pass, const std::vector<EagerStep>& steps);

}  // namespace pf

#include "sim/model/eager_kernels.h"

namespace pf {

Op KernelOp(std::string name, double bytes, double flops) {
  return {std::move(name), OpKind::kMemory, Flops(flops), Bytes(bytes)};
}

void EagerKernel(EagerChain& chain, Pass pass, const std::string& name, double bytes, FreshRead fresh) {
  if (pass == Pass::kForward) {
    chain.Launch(KernelOp(name, bytes), {fresh});
    return;
  }
  chain.Launch(KernelOp(name + "_bwd", bytes), {fresh});
  chain.Launch(KernelOp(name + "_bwd2", bytes), {{fresh.bytes, fresh.back + 1}});
}

void EagerSteps(std::vector<Op>& ops, Pass pass, const std::vector<EagerStep>& steps) {
  EagerChain chain(ops);
  if (pass == Pass::kForward) {
    for (const EagerStep& s : steps) chain.Launch(KernelOp(s.name, s.bytes), {s.fresh, s.also});
    return;
  }
  for (size_t k = steps.size(); k-- > 0;) EagerKernel(chain, pass, steps[k].name, steps[k].bytes, {steps[k].grad, 2});
}

}  // namespace pf

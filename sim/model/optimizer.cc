#include "sim/model/optimizer.h"

#include "sim/model/model_math.h"
#include "sim/model/moe.h"
#include "sim/model/stack.h"

namespace pf {
namespace {

// bitsandbytes optim/optimizer.py Optimizer2State.init_state: 8-bit moments
// in blocks of 256 elements, an fp32 absmax per block and moment
// ("blocksize = 256"; 2048 before bitsandbytes 0.44, PR 1365, whose
// absmax would weigh 8x less); tensors under min_8bit_size = 4096
// elements keep fp32 moments (the norms: a few thousand elements a layer,
// not counted).
constexpr double kBnbBlock = 256;
// get_state_buffer: "if not self.is_paged or p.numel() < 1e5" the buffer
// is an ordinary tensor; larger ones come from F.get_paged
// (cudaMallocManaged).
constexpr double kBnbPagedMinElements = 1e5;
// "about 50% of the PCIe bandwidth as time in the best case" (optimizer.h).
constexpr double kPagedPcieShare = 0.5;

bool EightBit(const TrainingSpec& t) {
  return t.optimizer == OptimizerChoice::kAdamw8bit || t.optimizer == OptimizerChoice::kPagedAdamw8bit;
}

bool Paged(const TrainingSpec& t) {
  return t.optimizer == OptimizerChoice::kPagedAdamw8bit || t.optimizer == OptimizerChoice::kPagedAdamw32bit;
}

// The adapted linear layers of one block (LoRA's A and B each a tensor).
int AdaptedModules(const ModelSpec& m, const TrainingSpec& t) {
  int n = 0;
  for (const AdaptedLinear& l : AdaptedLinears(m, t, 1)) n += int(l.copies);
  return n;
}

}  // namespace

bool BnbOptimizer(const TrainingSpec& t) { return t.optimizer != OptimizerChoice::kAdamw; }

double BnbMomentBytes(const TrainingSpec& t) { return EightBit(t) ? 2 + 2 * 4 / kBnbBlock : 8; }

double BnbPagedBytes(const TrainingSpec& t) {
  if (!Paged(t)) return 0;
  return EightBit(t) ? 2 : 8;
}

double PagedShare(const Scenario& s) {
  const TrainingSpec& t = s.training;
  if (!Paged(t)) return 0;
  if (t.method == Method::kFull) return 1;
  double paged = 0, all = 0;
  const double r = t.lora_rank;
  for (const AdaptedLinear& l : AdaptedLinears(s.model, t, 1)) {
    for (const double width : {l.in, l.out}) {
      all += l.copies * r * width;
      if (r * width >= kBnbPagedMinElements) paged += l.copies * r * width;
    }
  }
  return all > 0 ? paged / all : 0;
}

double Fp32MomentParams(const Scenario& s) {
  const TrainingSpec& t = s.training;
  if (!EightBit(t) || !OnHfTrainer(t.stack) || t.method != Method::kFull) return 0;
  return CountParams(s.model).embedding;
}

double WideMomentBytes(const Scenario& s) { return Fp32MomentParams(s) * (8 - BnbMomentBytes(s.training)); }

int TrainedTensors(const Scenario& s) {
  const ModelSpec& m = s.model;
  const TrainingSpec& t = s.training;
  if (t.method != Method::kFull) return 2 * AdaptedModules(m, t) * m.layers;
  // A block's linear layers (each with its bias where the model has them)
  // and its two norms (weight, and bias for LayerNorm); the embedding, the
  // final norm and an untied LM head.
  // A mixture of experts: the attention's four, the router and each
  // routed and shared expert's matrices (LinearModulesPerBlock counts the
  // sparse block as one ZeRO-3 module).
  const int dense = LinearModulesPerBlock(m, TraitsOf(t.stack));
  const int moe = 4 + 1 + (m.moe.experts + m.moe.shared_experts) * FfnMatrices(m);
  const int linear = (m.moe.enabled() ? moe : dense) * (m.bias ? 2 : 1);
  const int norms = 2 * (m.layernorm ? 2 : 1);
  return (linear + norms) * m.layers + 1 + (m.layernorm ? 2 : 1) + (m.tied_embeddings ? 0 : 1);
}

// A Python-issued op with the Python around it (stack.h
// HostSecondsPerForwardKernel: update_step's config and checks, then
// F.optimizer_update_8bit_blockwise), and a launch waited for
// (BlockingLaunchWaitPerKernel: CSCS's measured launch-and-wait less the
// launch).
Seconds BnbSecondsPerTensor() { return HostSecondsPerForwardKernel() + BlockingLaunchWaitPerKernel(); }

Seconds PagedEvictionTime(const Scenario& s, Bytes evicted) {
  const PcieSpec& p = s.cluster.node.pcie;
  return evicted / (PcieLinkRate(p.gen, p.lanes) * kPagedPcieShare);
}

}  // namespace pf

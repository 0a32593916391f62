#include "sim/spec/names.h"

namespace pf {

const NameTable<FfnKind>& NamesOf(FfnKind) {
  static const NameTable<FfnKind> t = {{FfnKind::kGelu, "gelu"}, {FfnKind::kSwiglu, "swiglu"}};
  return t;
}
const NameTable<Position>& NamesOf(Position) {
  static const NameTable<Position> t = {
      {Position::kRope, "rope"}, {Position::kLearned, "learned"}, {Position::kAlibi, "alibi"}};
  return t;
}
const NameTable<NicKind>& NamesOf(NicKind) {
  static const NameTable<NicKind> t = {
      {NicKind::kInfiniband, "infiniband"}, {NicKind::kRoce, "roce"}, {NicKind::kTcp, "tcp"}};
  return t;
}
const NameTable<FabricKind>& NamesOf(FabricKind) {
  static const NameTable<FabricKind> t = {{FabricKind::kRail, "rail"}, {FabricKind::kFatTree, "fat_tree"}};
  return t;
}

const NameTable<Placement>& NamesOf(Placement) {
  static const NameTable<Placement> t = {{Placement::kPacked, "packed"}, {Placement::kSpread, "spread"}};
  return t;
}

const NameTable<StorageKind>& NamesOf(StorageKind) {
  static const NameTable<StorageKind> t = {{StorageKind::kLocalNvme, "local_nvme"},
                                           {StorageKind::kPageCache, "page_cache"},
                                           {StorageKind::kNfs, "nfs"},
                                           {StorageKind::kParallelFs, "parallel_fs"},
                                           {StorageKind::kObjectStore, "object_store"}};
  return t;
}

const NameTable<DataFormat>& NamesOf(DataFormat) {
  static const NameTable<DataFormat> t = {{DataFormat::kJpeg, "jpeg"},
                                          {DataFormat::kRaw, "raw"},
                                          {DataFormat::kText, "text"},
                                          {DataFormat::kTokens, "tokens"}};
  return t;
}

const NameTable<Dispatcher>& NamesOf(Dispatcher) {
  static const NameTable<Dispatcher> t = {{Dispatcher::kAllToAll, "all_to_all"}, {Dispatcher::kDeepEp, "deepep"}};
  return t;
}

const NameTable<Offload>& NamesOf(Offload) {
  static const NameTable<Offload> t = {{Offload::kNone, "none"}, {Offload::kCpu, "cpu"}, {Offload::kNvme, "nvme"}};
  return t;
}

const NameTable<PriceMode>& NamesOf(PriceMode) {
  static const NameTable<PriceMode> t = {
      {PriceMode::kOnDemand, "on_demand"}, {PriceMode::kSpot, "spot"}, {PriceMode::kReserved, "reserved"}};
  return t;
}

const NameTable<IntraKind>& NamesOf(IntraKind) {
  static const NameTable<IntraKind> t = {{IntraKind::kNvswitch, "nvswitch"},
                                         {IntraKind::kPcie, "pcie"}};
  return t;
}
const NameTable<Method>& NamesOf(Method) {
  static const NameTable<Method> t = {
      {Method::kFull, "full"}, {Method::kLora, "lora"}, {Method::kQlora, "qlora"}};
  return t;
}
const NameTable<Precision>& NamesOf(Precision) {
  static const NameTable<Precision> t = {
      {Precision::kBf16, "bf16"}, {Precision::kFp16, "fp16"}, {Precision::kFp8, "fp8"},
      {Precision::kTf32, "tf32"}, {Precision::kFp32, "fp32"}};
  return t;
}
const NameTable<Recompute>& NamesOf(Recompute) {
  static const NameTable<Recompute> t = {{Recompute::kNone, "none"},
                                         {Recompute::kSelective, "selective"},
                                         {Recompute::kSelectiveOp, "selective_op"},
                                         {Recompute::kFull, "full"}};
  return t;
}
const NameTable<Attention>& NamesOf(Attention) {
  static const NameTable<Attention> t = {{Attention::kFlash, "flash"},
                                         {Attention::kCudnn, "cudnn"},
                                         {Attention::kFlash3, "flash3"},
                                         {Attention::kTriton, "triton"},
                                         {Attention::kUnfused, "unfused"}};
  return t;
}
const NameTable<RecomputeModule>& NamesOf(RecomputeModule) {
  static const NameTable<RecomputeModule> t = {{RecomputeModule::kCoreAttn, "core_attn"},
                                               {RecomputeModule::kLayernorm, "layernorm"},
                                               {RecomputeModule::kMoeAct, "moe_act"},
                                               {RecomputeModule::kMlaUpProj, "mla_up_proj"},
                                               {RecomputeModule::kMlp, "mlp"}};
  return t;
}

const NameTable<LoraTarget>& NamesOf(LoraTarget) {
  static const NameTable<LoraTarget> t = {
      {LoraTarget::kQ, "q"},       {LoraTarget::kK, "k"},   {LoraTarget::kV, "v"},      {LoraTarget::kO, "o"},
      {LoraTarget::kGate, "gate"}, {LoraTarget::kUp, "up"}, {LoraTarget::kDown, "down"}};
  return t;
}
const NameTable<Stack>& NamesOf(Stack) {
  static const NameTable<Stack> t = {
      {Stack::kMegatron, "megatron"}, {Stack::kNemo, "nemo"},     {Stack::kDeepspeed, "deepspeed"},
      {Stack::kFsdp, "fsdp"},         {Stack::kHf, "hf"},         {Stack::kLlamaFactory, "llama-factory"},
      {Stack::kUnsloth, "unsloth"},   {Stack::kTorchtune, "torchtune"}};
  return t;
}

const NameTable<QloraUpcast>& NamesOf(QloraUpcast) {
  static const NameTable<QloraUpcast> t = {
      {QloraUpcast::kAll, "all"}, {QloraUpcast::kNorms, "norms"}, {QloraUpcast::kNone, "none"}};
  return t;
}

const NameTable<Padding>& NamesOf(Padding) {
  static const NameTable<Padding> t = {{Padding::kMaxLength, "max_length"}, {Padding::kLongest, "longest"}};
  return t;
}

const NameTable<LossChoice>& NamesOf(LossChoice) {
  static const NameTable<LossChoice> t = {{LossChoice::kCrossEntropy, "cross_entropy"},
                                          {LossChoice::kChunked, "chunked"}};
  return t;
}

// The Trainer's OptimizerNames (transformers training_args.py: adamw_8bit
// is its alias of adamw_bnb_8bit; paged_adamw_32bit, paged_adamw_8bit).
const NameTable<OptimizerChoice>& NamesOf(OptimizerChoice) {
  static const NameTable<OptimizerChoice> t = {{OptimizerChoice::kAdamw, "adamw"},
                                               {OptimizerChoice::kAdamw8bit, "adamw_8bit"},
                                               {OptimizerChoice::kPagedAdamw8bit, "paged_adamw_8bit"},
                                               {OptimizerChoice::kPagedAdamw32bit, "paged_adamw_32bit"}};
  return t;
}

}  // namespace pf

#include "sim/report/stack_line.h"

#include <fmt/format.h>

#include "sim/model/kbit_upcast.h"
#include "sim/model/memory_model.h"
#include "sim/model/optimizer.h"
#include "sim/model/padding.h"
#include "sim/model/stack.h"
#include "sim/model/stack_kernels.h"
#include "sim/spec/names.h"

namespace pf {
namespace {

// What the training stack does to the step (model/stack.h), and how much of
// each sequence is padding.
std::string LossName(Loss loss) {
  switch (loss) {
    case Loss::kVocabParallel: return "vocab-parallel loss";
    case Loss::kVocabParallelFused: return "fused vocab-parallel loss";
    case Loss::kTorchSoftmax: return "fp32 softmax loss";
    case Loss::kFp32Logits: return "fp32 logits in the loss";
    case Loss::kFp32ShiftedCopy:
    case Loss::kFp32InModel: return "fp32 logits and their shifted copy in the loss";
    case Loss::kFp32Model: return "fp32 logits from the model";
    case Loss::kFp32ModelCompiled: return "fp32 logits from the model into a compiled loss";
    case Loss::kFp32ModelChunked:
      return fmt::format("16-bit logits in {} chunks, each upcast to fp32 for the loss", kLossChunks);
    case Loss::kChunkedCompiled: return fmt::format("16-bit logits in {} chunks into a compiled loss", kLossChunks);
    case Loss::kChunked: return "chunked loss";
  }
  return "";
}

// The optimizer that steps: the stack's AdamW, or bitsandbytes'
// (model/optimizer.h), whose paged moments are those of tensors large
// enough to page.
std::string OptimizerName(const Scenario& s, const StackTraits& st) {
  const TrainingSpec& t = s.training;
  const char* step = "a tensor at a time, each synchronised";
  switch (t.optimizer) {
    case OptimizerChoice::kAdamw: return st.optimizer == OptimizerImpl::kFused ? "fused Adam" : "foreach Adam";
    case OptimizerChoice::kAdamw8bit: return fmt::format("bitsandbytes 8-bit AdamW ({})", step);
    case OptimizerChoice::kPagedAdamw8bit:
    case OptimizerChoice::kPagedAdamw32bit:
      return fmt::format("bitsandbytes paged {}AdamW ({}; {})",
                         t.optimizer == OptimizerChoice::kPagedAdamw8bit ? "8-bit " : "",
                         PagedShare(s) == 0 ? "no tensor large enough to page"
                         : t.optimizer == OptimizerChoice::kPagedAdamw8bit ? "moments in unified memory"
                                                                            : "fp32 moments in unified memory",
                         step);
  }
  return "";
}

}  // namespace

std::string StackLine(const Scenario& s) {
  const TrainingSpec& t = s.training;
  const StackTraits st = TraitsOf(t);
  std::string o = fmt::format("  stack      {}{}: {} kernels, {}{}, ZeRO-3 gathers per {}, {}{}", ToString(t.stack),
                              t.stack_given ? "" : " (the default; set training.stack)",
                              st.kernels == Kernels::kEager ? "eager (one per tensor op)"
                              : t.compile                   ? "compiled (torch.compile per layer)"
                                                            : "fused",
                              OptimizerName(s, st),
                              GradientBytes(t) > ElementBytes(t.precision) ? ", fp32 gradients" : "",
                              st.gather == Zero3Gather::kPerBlock ? "block" : "module",
                              LossName(LossOf(t)),
                              t.method == Method::kFull ? ""
                              : st.adapters == Adapters::kFused ? ", fused LoRA adapters" : ", PEFT LoRA modules");
  if (t.optimizer_in_backward)
    o += "; the optimizer stepped in the backward, each gradient freed once stepped (one weight matrix's at a time)";
  if (t.offload_activations)
    o += fmt::format("; activation checkpoints offloaded to pinned host memory ({:.1f} GiB a micro-batch, copied "
                     "over PCIe beside the forward and back beside the backward; the last {} stay on the GPU)",
                     OffloadedActivationBytes(s) / kGiB, kOffloadStash);
  if (PadsToLongest(t)) {
    const TrainingSpec& padded = PaddedView(s).training;
    const int group = LengthGroupSamples(s);
    o += fmt::format("; each micro-batch padded to its longest sample, {} tokens expected of {} ({} useful, {:.0f}%; "
                     "sample lengths spread {:.2f}{}){}",
                     padded.seq_len, t.seq_len, int(padded.useful_tokens_per_sequence()),
                     100 * padded.useful_tokens_per_sequence() / padded.seq_len, t.sample_len_cv,
                     group > 0 ? fmt::format(", sorted by length in groups of {} samples", group) : "",
                     t.padding_given ? "" : ", the stack's collator");
  } else if (t.packs_leave_gaps()) {
    o += fmt::format("; samples of {} tokens packed whole and in order, {} tokens learned from of each {} ({:.1f}%; "
                     "sample lengths spread {:.2f})",
                     t.sample_len, int(t.useful_tokens_per_sequence()), t.seq_len,
                     100 * t.useful_tokens_per_sequence() / t.seq_len, t.sample_len_cv);
  } else if (!t.packing) {
    o += fmt::format("; each sample padded to {} tokens ({} useful, {:.0f}%)", t.seq_len,
                     int(t.useful_tokens_per_sequence()), 100 * t.useful_tokens_per_sequence() / t.seq_len);
  }
  // PEFT's k-bit preparation (model/kbit_upcast.h).
  if (ResidualUpcast(t))
    o += EdgesUpcast(t) ? "; QLoRA as PEFT prepares it: norms, embeddings and head in fp32, so the residual stream"
                          " and each 4-bit layer's output"
                        : "; QLoRA as TRL prepares it: norms in fp32, so the residual stream and each 4-bit layer's"
                          " output";
  if (ResidualUpcast(t)) o += " are fp32 (training.qlora_upcast)";
  if (t.pure_bf16)
    o += PeftAdaptersInFp32(t) ? "; pure bf16 (no autocast, no fp32 master copy; PEFT's adapters in fp32)"
                               : "; pure bf16 (no autocast, no fp32 master copy)";
  if (t.lora_dropout > 0) o += fmt::format("; LoRA dropout {:g}", t.lora_dropout);
  if (t.dora)
    o += t.lora_dropout > 0 ? "; DoRA: each adapted weight's norm every forward, and its base output computed again "
                              "(dropout)"
                            : "; DoRA: each adapted weight's norm every forward";
  if (t.launch_blocking)
    o += fmt::format("; CUDA_LAUNCH_BLOCKING=1: each kernel issued after the last one ends, {:.1f} us of waiting "
                     "besides its issue",
                     BlockingLaunchWaitPerKernel().value() * 1e6);
  return o + "\n";
}

}  // namespace pf

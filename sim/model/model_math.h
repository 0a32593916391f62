// Transformer arithmetic: parameter counts, FLOPs per token, and the list of
// kernels one layer runs for one micro-batch on one GPU (with its tensor-
// parallel shard). Plain functions of ModelSpec; no SimGrid, no timing.
#pragma once

#include <string>
#include <vector>

#include "sim/spec/spec.h"
#include "sim/base/units.h"

namespace pf {

struct ParamCount {
  double per_layer = 0;     // one transformer block incl. its norms and biases
  double routed_per_layer = 0;  // of which a mixture of experts' routed experts (all of them)
  double active_per_layer = 0;  // what one token uses: top_k routed experts, not all
  // A mixture of experts' first dense_layers blocks, each with a dense MLP
  // (MoeSpec dense_layers): dense_per_layer parameters, all active.
  int dense_layers = 0;
  double dense_per_layer = 0;
  double embedding = 0;     // token embedding (+ learned positions)
  double lm_head = 0;       // 0 when tied to the embedding
  double final_norm = 0;
  // `layers` is the model's (all of them).
  double total(int layers) const {
    return per_layer * (layers - dense_layers) + dense_per_layer * dense_layers + embedding + lm_head + final_norm;
  }
  double active(int layers) const {
    return active_per_layer * (layers - dense_layers) + dense_per_layer * dense_layers + embedding + lm_head +
           final_norm;
  }
};
ParamCount CountParams(const ModelSpec& m);

// With tied embeddings the LM head is the embedding matrix. Split over a
// pipeline, the first and last stage each hold a copy and all-reduce its
// gradient before the optimizer (Megatron-LM); on one stage it is shared.
bool TiedEmbeddingCopies(const ModelSpec& m, const ParallelSpec& p);

// Parameters one TP rank of virtual pipeline stage `vstage` (in [0, pp x vp))
// holds: its layers (split by tp), the embedding on the first virtual stage
// and the LM head (or the tied embedding's copy) on the last, both split by
// vocabulary over tp, and the replicated final norm on the last.
// Under expert parallelism the layers' routed experts are those of one EP
// rank (experts / ep, split by expert_tp); `experts` is their share of
// `layers`.
struct StageParams {
  int layer_count = 0;
  int dense_count = 0;  // of which dense blocks of a mixture of experts (its first layers)
  double layers = 0, embedding = 0, head = 0, final_norm = 0;
  double experts = 0;
  double total() const { return layers + embedding + head + final_norm; }
  double edges() const { return embedding + (head + final_norm); }  // all but the layers
};
StageParams ParamsPerTpRank(const ModelSpec& m, const ParallelSpec& p, int vstage);

// Forward FLOPs per token at sequence length s, Megatron convention: every
// matmul 2 FLOPs per multiply-add, attention scores counted over the full
// s x s square (no causal discount).
struct TokenFlops {
  double layer_matmul = 0;    // one block's weight matmuls
  double layer_attention = 0; // one block's QK^T and AV
  double lm_head = 0;         // logits
  double forward(int layers) const { return (layer_matmul + layer_attention) * layers + lm_head; }
};
TokenFlops ForwardFlopsPerToken(const ModelSpec& m, int seq_len);

// FLOPs of one training step (global batch) as the model needs them
// (forward + backward for `method`, no recompute) and as the hardware runs
// them (plus the recompute forward).
struct StepFlops {
  Flops model;
  Flops hardware;
};
StepFlops TrainingStepFlops(const ModelSpec& m, const TrainingSpec& t);

// One GPU kernel: either a matmul (m x k times k x n) or a memory-bound op.
enum class OpKind { kGemm, kAttention, kMemory };
struct Op {
  std::string name;
  OpKind kind = OpKind::kMemory;
  Flops flops;
  Bytes bytes;  // HBM traffic (reads + writes)
  // A GEMM's shape, output M x N reduced over K (0: not a plain GEMM).
  double m = 0, n = 0, k = 0;
  Attention kernel = Attention::kFlash;  // a kAttention op's kernel
  // Runs in fp32 on the CUDA cores whatever the job's precision (PEFT's
  // fp32 adapters without autocast: training.pure_bf16).
  bool fp32 = false;
  // Bytes of its reads that kernels launched just before it wrote, and the
  // traffic since the oldest of them began writing (model/l2_reuse.h).
  double l2_read = 0, l2_window = 0;
};

enum class Pass { kForward, kBackward };

// Bytes of HBM traffic per attention score of eager Hugging Face attention's
// elementwise chain (divide, mask, fp32 softmax, casts) in `pass`, at the
// precision's activation bytes: 28 forward and 28 backward under bf16, 20
// and 20 under fp16, 24 and 20 at 4-byte scores (model_math.cc).
double EagerSoftmaxBytesPerScore(Precision precision, Pass pass);

// How one GPU's share of a block is cut: tensor parallelism of `tp` splits
// heads and FFN columns; with sequence parallelism (Korthikanti et al. 2022,
// Sec. 4.2.2) the norms, dropouts and residual adds, which TP alone repeats
// on every rank, run on seq_len / tp tokens of each sequence.
struct LayerShards {
  LayerShards(int tp_ = 1, bool sp_ = false, int context_ = 1) : tp(tp_), sp(sp_), context(context_), expert_tp(tp_) {}  // a bare tp: no SP
  int tp;
  bool sp;
  // Context parallelism (ContextRankView): the rank holds 1/context of each
  // sequence's tokens and attends to all of its keys.
  int context;
  // A mixture of experts' split (ParallelSpec ep, etp()).
  int ep = 1;
  int expert_tp;
  // The share of the sequence the replicated (non-TP) ops run on.
  double token_share() const { return sp ? 1.0 / tp : 1.0; }
};
LayerShards ShardsOf(const ParallelSpec& p);

// Kernels of one transformer block for `micro_batch` sequences on one GPU of
// a tensor-parallel group. Backward covers activation gradients, plus
// weight gradients unless `frozen` (LoRA/QLoRA base weights).
std::vector<Op> LayerOps(const ModelSpec& m, const TrainingSpec& t, LayerShards shards, Pass pass, bool frozen);

// torchtitan's op-level selective activation checkpointing (recompute
// selective_op; torchtitan/parallelisms/parallelize_llama.py _custom_policy
// @ 3faaa1a0): a block's forward keeps the outputs of its matmuls (aten.mm)
// but every second one, and of its attention kernel; the other matmuls and
// every elementwise op (norms, activation, rotary, residual adds) run again
// in the backward. `fwd` is one block's forward (LayerOps), in order; a
// plain GEMM is a kGemm op with a shape (unfused attention's batched
// matmuls are not aten.mm).
std::vector<Op> OpCheckpointRecomputed(const std::vector<Op>& fwd);
// Megatron-Core's selective recompute (recompute selective, with
// training.recompute_modules; training_spec.h RecomputeModule): the ops of
// one block's forward `fwd` (LayerOps of `m`, a dense block for a dense
// layer) that run again in its backward: the attention core; the norms;
// MLA's up-projections and RoPE; a dense MLP's GEMMs and activation; the
// routed experts' share of the activation (scaled by their share of the
// MLP's width).
std::vector<Op> SelectiveRecomputed(const ModelSpec& m, const TrainingSpec& t, const std::vector<Op>& fwd);
// The output elements of the matmuls that policy keeps.
double OpCheckpointKeptMatmulOutputs(const std::vector<Op>& fwd);
// The embedding lookup (first stage) and logits + loss (last stage).
std::vector<Op> EmbeddingOps(const ModelSpec& m, const TrainingSpec& t, int tp, Pass pass);
std::vector<Op> HeadOps(const ModelSpec& m, const TrainingSpec& t, int tp, Pass pass, bool frozen);

// Bytes of one activation tensor [micro_batch, seq, hidden] in the training
// precision: what a pipeline stage sends and what a TP all-reduce carries.
Bytes HiddenStateBytes(const ModelSpec& m, const TrainingSpec& t);

// Key/value projection width held by one TP rank: kv_heads / tp heads, or one
// whole (replicated) head when tp exceeds the KV heads (Megatron GQA).
double KvDimPerRank(const ModelSpec& m, int tp);

// The linear layers training.lora_targets adapts in one block, with their
// input and output widths on one TP rank (gate only in SwiGLU MLPs).
// In a mixture of experts each routed expert's gate, up and down carry
// adapters of their own (PEFT wraps every expert's Linear): `copies` of
// them per block, each seeing `token_share` of the block's tokens (top_k x
// load / experts); the shared experts' as one linear of their widths.
struct AdaptedLinear {
  LoraTarget target;
  double in = 0, out = 0;
  double copies = 1;
  double token_share = 1;
};
std::vector<AdaptedLinear> AdaptedLinears(const ModelSpec& m, const TrainingSpec& t, int tp);
// Every linear layer of one block, adapted or not, in the same terms (the
// base weights QLoRA quantizes: all but the LM head).
std::vector<AdaptedLinear> BaseLinears(const ModelSpec& m, const TrainingSpec& t, int tp);

// Rank-r LoRA adapters (Hu et al. 2021) on training.lora_targets: the sum
// of in + out over the adapted linear layers of one block (an adapter holds
// rank x (in + out) parameters and runs 2 x rank x (in + out) FLOPs per
// token forward), every expert's counted.
double AdapterWidthPerLayer(const ModelSpec& m, const TrainingSpec& t);
// The same over what one token passes through (its top_k experts').
double AdapterTokenWidthPerLayer(const ModelSpec& m, const TrainingSpec& t);

// Bytes per element of activations and weights in the training precision.
double ActivationBytes(Precision p);

}  // namespace pf

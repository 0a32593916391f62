// A mixture of experts' arithmetic (spec.h MoeSpec): the parameters of its
// MLP, the width each token's MLP work amounts to, the GEMMs one GPU runs
// for its local experts, and the bytes one all-to-all moves. A dense model
// (experts 0) gets its plain MLP from each. No SimGrid, no timing.
#pragma once

#include <vector>

#include "sim/model/model_math.h"

namespace pf {

// Weight matrices of one MLP (expert or dense): 3 for SwiGLU, 2 for GeLU.
int FfnMatrices(const ModelSpec& m);

// `m` with a dense MLP of its ffn: the block a mixture of experts' dense
// first layers are (MoeSpec dense_layers).
ModelSpec DenseBlockOf(const ModelSpec& m);

// Parameters of one block's MLP: the dense MLP, or the router (hidden x
// experts), every routed expert and the shared experts (no biases).
double MlpParams(const ModelSpec& m);
// Of those, the routed experts' (0 for a dense model): what expert
// parallelism splits and the expert-data-parallel ranks reduce.
double RoutedExpertParams(const ModelSpec& m);
// The MLP parameters one token uses: the router, top_k routed experts and
// the shared experts (all of them for a dense model).
double ActiveMlpParams(const ModelSpec& m);

// The MLP width one token's work amounts to on the busiest expert rank:
// ffn, or top_k x expert_ffn x the expert load (training.expert_load) plus
// the shared experts' widths. Elementwise kernels and saved activations
// scale with it.
double MlpWidth(const ModelSpec& m, const TrainingSpec& t);

// The routed copies of `tokens` (micro_batch x seq_len of the TP group)
// that one GPU's experts compute: top_k x the expert load of its group's
// tokens (with expert_tp 1 a rank routes its own 1/tp of them, sequence
// parallel), spread over its experts / ep local experts. 0 for a dense
// model.
double RoutedCopies(const ModelSpec& m, const TrainingSpec& t, const LayerShards& p, double tokens);

// One block's MLP GEMMs forward on one GPU for `tokens` tokens of its TP
// group (micro_batch x seq_len): a dense MLP split by tp (Megatron column
// then row), or the router, each of the GPU's experts / ep local experts
// on its share of the routed tokens (split by expert_tp), and the shared
// experts split by tp. `separate`: gate and up as GEMMs of their own.
std::vector<Op> MlpGemms(const ModelSpec& m, const TrainingSpec& t, const LayerShards& p, double tokens,
                         double e, bool separate);

// The token shuffles around the experts on one GPU (Megatron-Core's
// permute and unpermute): each routed copy of a token's hidden state
// written into its expert's buffer and read back into place, weighted by
// its router probability; the backward moves the gradients the same way.
// Nothing for a dense model. `eager`: as Hugging Face's sparse MoE block
// runs it (modeling_mixtral.py: softmax, topk, one_hot over the router's
// logits, then per expert an index into its tokens and an index_add of
// its output), a kernel per op and per expert.
void PermuteOps(const ModelSpec& m, const TrainingSpec& t, const LayerShards& p, Pass pass, bool eager,
                std::vector<Op>& ops);

// The nodes a token's top_k experts sit on, on average, with the experts
// spread evenly over `nodes` nodes and chosen uniformly (the balanced
// routing the load factor scales): nodes x (1 - C(E - E/nodes, k) / C(E, k)).
// Under group-limited routing the token's groups are chosen uniformly and
// its experts uniformly among theirs, which bounds the nodes it reaches
// (DeepSeek-V3: 4 of 8 groups, one a node at EP64 over 8 nodes: 3.6 nodes
// a token on average instead of 5.3; DeepSeek-V2, 3 of 8 groups of 20
// over 5 nodes of 32: 2.9 instead of 3.7).
double NodesPerToken(const MoeSpec& x, int nodes);

// Bytes one GPU sends in one token all-to-all (dispatch or combine) of one
// micro-batch: its seq_len / tp tokens (sequence parallelism) x top_k
// copies of the hidden state, x the expert load (the busiest rank's).
Bytes DispatchBytes(const ModelSpec& m, const TrainingSpec& t, const ParallelSpec& p);

}  // namespace pf

// The network a scenario trains, as plain structs: a decoder-only
// transformer (with its attention variant and, for a mixture of experts,
// its experts) or a vision model's blocks. Part of the spec stage
// (spec.h includes it); no YAML, no SimGrid.
#pragma once

#include <string>
#include <vector>

namespace pf {

enum class FfnKind { kGelu, kSwiglu };
enum class Position { kRope, kLearned, kAlibi };

// A vision model (models/resnet50.yaml, models/vit_b16.yaml): a list of
// blocks whose arithmetic is in sim/model/vision.h.
// The block kinds of a vision model, in torchvision's layer structure.
enum class VisionOp {
  kConv,          // conv (no bias) + BatchNorm [+ ReLU]; padding kernel/2
  kMaxPool,       // max pool; padding kernel/2
  kBottleneck,    // ResNet v1.5 bottleneck: 1x1, 3x3 (stride), 1x1, + shortcut, ReLU
  kAvgPool,       // global average pool to a vector
  kLinear,        // fully connected; on a token sequence, on the class token only
  kPatchEmbed,    // ViT: conv kernel = stride = patch (with bias), class token, positions
  kEncoderBlock,  // ViT pre-norm encoder block (self-attention + MLP)
  kLayerNorm,     // LayerNorm over the channel / hidden dimension
};

// One entry of a model's block list. Fields an op does not use stay 0.
struct VisionBlock {
  VisionOp op = VisionOp::kConv;
  int repeat = 1;     // consecutive copies (a bottleneck's stride applies to the first only)
  int out = 0;        // conv, bottleneck: output channels; linear: output features;
                      // patch_embed: embedding width
  int kernel = 0;     // conv, maxpool: square kernel side
  int stride = 1;     // conv, maxpool; bottleneck: stride of its 3x3 conv
  bool relu = false;  // conv: ReLU after the BatchNorm
  int width = 0;      // bottleneck: channels of the inner 1x1 and 3x3 convs
  int patch = 0;      // patch_embed: square patch side; must divide the image
  int hidden = 0;     // encoder_block: model width; must equal the incoming width
  int heads = 0;      // encoder_block: attention heads; must divide hidden
  int mlp = 0;        // encoder_block: MLP inner width (GELU)
};

struct VisionSpec {
  std::string name;
  int height = 0, width = 0, channels = 0;  // input image, pixels and channels
  int classes = 0;                          // the last block must output this many features
  std::vector<VisionBlock> blocks;
};

enum class ModelKind { kTransformer, kVision };

// A mixture-of-experts MLP in every block (Shazeer et al. 2017; Mixtral,
// Qwen-MoE, DeepSeek-MoE): a router sends each token to top_k of `experts`
// routed experts, each a SwiGLU/GeLU MLP of width expert_ffn, and every
// token also runs the `shared_experts` always-on experts of width
// shared_ffn each. experts 0: the dense MLP of width ffn.
struct MoeSpec {
  int experts = 0;
  int top_k = 0;
  int expert_ffn = 0;
  int shared_experts = 0;
  int shared_ffn = 0;
  // The first layers keep a dense MLP of the model's ffn (DeepSeek's
  // first_k_dense_replace: 1 in V2-Lite, 3 in V3).
  int dense_layers = 0;
  // Group-limited routing (DeepSeek-V2 Sec. 2.1.2 "device-limited", V3
  // Sec. 2.1.2 "node-limited"): the experts form `groups` equal runs of
  // consecutive experts and a token's top_k come from its best
  // `group_topk` groups (Hugging Face n_group and topk_group; Megatron-Core
  // moe_router_num_groups and moe_router_group_topk). 0: unlimited.
  int groups = 0, group_topk = 0;
  bool enabled() const { return experts > 0; }
  bool group_limited() const { return groups > 1 && group_topk > 0 && group_topk < groups; }
};

// Multi-head latent attention (DeepSeek-V2, Sec. 2.1): keys and values
// projected down to a kv_lora-wide latent per token (with a rope-wide
// shared rotary key) and up again per head; queries too through q_lora
// when it is given (0: a plain query projection). Each head's query and
// key are qk_nope + qk_rope wide, its value v wide.
struct MlaSpec {
  int q_lora = 0, kv_lora = 0, qk_nope = 0, qk_rope = 0, v = 0;
  bool enabled() const { return kv_lora > 0; }
};

// A decoder-only transformer.
struct ModelSpec {
  std::string name;
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;  // == heads without grouped-query attention
  int ffn = 0;       // intermediate size
  FfnKind ffn_kind = FfnKind::kGelu;
  int vocab = 0;
  bool tied_embeddings = false;
  Position position = Position::kRope;
  int max_seq = 0;   // rows of a learned position table
  bool bias = false; // linear layers carry bias vectors
  bool layernorm = true;  // LayerNorm (weight + bias) vs RMSNorm (weight only)
  MoeSpec moe;
  MlaSpec mla;
  // Sliding-window attention (Mistral 7B v0.1: 4096; Beltagy et al. 2020):
  // each query attends to the `window` tokens up to it; 0: to the whole
  // sequence.
  int window = 0;
  // The share of the layers that attend through the window, the others to
  // the whole sequence: 1 for Mistral; GPT-OSS alternates banded and dense
  // layers (its config.json's layer_types: 18 "sliding_attention" of 36).
  // Layers are costed alike, so a share costs each one the mean.
  double window_share = 1;
  // GPT-OSS's gated MLP (its config.json's swiglu_limit, 7): the gate
  // clamped at or below the limit, the linear half within +-it, then
  // gate * sigmoid(1.702 gate) * (linear + 1); 0: a plain SwiGLU. Its
  // FLOPs are a SwiGLU's; what it costs beyond them is the stacks' kernels
  // (model/stack_kernels.h ActivationOps).
  double glu_clamp = 0;
  // The hidden dropout's probability (after the attention's projection and
  // after the MLP). Above 0 each of the two keeps a 1-byte mask a token and
  // hidden unit for backward (Korthikanti et al. 2022, Sec. 4.1) and writes
  // it in the forward; at 0 ATen's dropout returns its input (no mask).
  // Megatron-LM's GPT runs train at 0.1 (its --hidden-dropout default);
  // Llama-family, MPT, Qwen, Mistral and BLOOM checkpoints at 0.
  double dropout = 0;
  // The keys a query of an s-token sequence can see, over the layers: s,
  // or the window on window_share of them.
  double keys_seen(double s) const {
    return window > 0 && window < s ? window_share * window + (1 - window_share) * s : s;
  }
  // Width of one attention head when it is not hidden / heads (Qwen3:
  // 128 at hidden 4096 and 64 heads); 0: hidden / heads.
  int head_size = 0;
  int head_dim() const { return head_size > 0 ? head_size : hidden / heads; }
  // The width of the queries (and keys) and of the values, which is the
  // attention output's: heads x head_dim (= hidden unless head_size is
  // set); with MLA heads x (qk_nope + qk_rope) and heads x v.
  double q_dim() const { return double(heads) * (mla.enabled() ? mla.qk_nope + mla.qk_rope : head_dim()); }
  double v_dim() const { return mla.enabled() ? double(heads) * mla.v : q_dim(); }
  // What QK^T and AV together cost per key, over 2: their mean width.
  double attn_width() const { return (q_dim() + v_dim()) / 2; }
  // kind vision: the fields above are unused; `vision` describes it.
  ModelKind kind = ModelKind::kTransformer;
  VisionSpec vision;
};

}  // namespace pf

#include "sim/model/vision.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace pf {
namespace {

// HBM bytes of the memory-bound kernels, as multiples of the tensor they
// stream (elements of e bytes):
//
// BatchNorm in training (PyTorch aten/src/ATen/native/cuda/Normalization.cu,
// batch_norm_cuda_out): batch_norm_mean_var reads x for the per-channel
// statistics, batch_norm_elementwise reads x again and writes y: 3. Its
// backward reduces dy and dy * (x - mean) per channel, then applies them:
// reads x and dy twice and writes dx: 5.
constexpr double kBatchNormForward = 3, kBatchNormBackward = 5;
// ReLU reads x, writes y; its backward (threshold_backward) reads y and dy
// and writes dx.
constexpr double kReluForward = 2, kReluBackward = 3;
// A residual add reads two tensors and writes one; backward passes dy to
// both branches unchanged and pays one add where the block input forks
// (dx = dy_shortcut + dy_branch).
constexpr double kAddForward = 3, kAddBackward = 3;
// Softmax over the attention scores (no mask, no dropout in ViT) reads S and
// writes P; backward reads P and dP and writes dS.
constexpr double kSoftmaxForward = 2, kSoftmaxBackward = 3;
// Transformer pieces follow LayerOps (model_math.cc): a norm or GELU reads x
// and writes y, a residual add reads two and writes one, and backward moves
// twice the forward's bytes. ViT-B/16 has no dropout, so the residual has no
// mask byte.
constexpr double kNormForward = 2, kGeluForward = 2, kTransformerBackward = 2;
// PyTorch's max_pool2d_with_indices writes an int64 index per output element
// and its backward reads it back.
constexpr double kMaxPoolIndexBytes = 8;

// The tensor flowing between layers, per image: a feature map c x h x w, or
// after a patch embedding a sequence of `tokens` vectors of width c. `kept`:
// already stored for backward by some kernel (counted once).
struct Tensor {
  double c = 0, h = 0, w = 0, tokens = 0;
  bool kept = false;
  bool sequence() const { return tokens > 0; }
  double elements() const { return sequence() ? tokens * c : c * h * w; }
};
Tensor Map(double c, double h, double w) { return {c, h, w, 0, false}; }
Tensor Sequence(double tokens, double width) { return {width, 0, 0, tokens, false}; }

// Output side of a square window with torchvision's padding kernel / 2
// (PyTorch Conv2d and MaxPool2d: floor((in + 2 pad - kernel) / stride) + 1).
double OutSide(double in, int kernel, int stride) {
  return std::floor((in + 2 * (kernel / 2) - kernel) / stride) + 1;
}

// Collects the kernels, parameters and kept activations of a model walked
// layer by layer. Sizes passed in are per image unless named otherwise.
class Net {
 public:
  Net(const VisionSpec& s, double images, double e, Pass pass)
      : spec_(s), images_(images), e_(e), bwd_(pass == Pass::kBackward) {}

  // C (rows x n) = A (rows x k) * W (k x n) with `in` input elements per
  // image (a conv's input tensor, which an implicit GEMM reads in place of
  // its im2col matrix). Backward: the data gradient and dW = A^T * dC
  // (output k x n, reduced over all images' rows), each with the forward's
  // FLOPs and the same three tensors' traffic. A linear layer's data
  // gradient is dA = dC * W^T (rows x k, reduced over n); a conv's
  // (`window` = kernel height x width > 1) is an implicit GEMM of its own,
  // as CUTLASS states the three (docs/implicit_gemm_convolution.md: Fprop
  // M = NPQ, N = K, K = CRS; Dgrad M = NHW, N = C, K = KRS; Wgrad M = K,
  // N = CRS, K = NPQ): input channels wide, reduced over output channels x
  // window (M kept at the output positions, so its FLOPs stay the
  // forward's).
  void Gemm(const std::string& name, double rows, double n, double k, double in, double window = 1) {
    const double m = images_ * rows;
    const Bytes bytes(e_ * (images_ * in + k * n + m * n));
    const Op f{name, OpKind::kGemm, Flops(2 * m * n * k), bytes, m, n, k};
    if (!bwd_) return Add({f});
    Add({{name + "_dgrad", OpKind::kGemm, f.flops, f.bytes, m, k / window, n * window},
         {name + "_wgrad", OpKind::kGemm, f.flops, f.bytes, k, n, m}});
  }

  // `batch` independent products (m x k) * (k x n) per image, both operands
  // activations (attention's QK^T and AV); the batch is folded into M so
  // that M x N counts every output tile. Backward: the gradients of both
  // operands, dA (m x k, reduced over n) and dB (k x n, reduced over m).
  void Batched(const std::string& name, double batch, double m, double n, double k) {
    const double b = images_ * batch;
    const Flops flops(2 * b * m * n * k);
    const Bytes bytes(e_ * b * (m * k + k * n + m * n));
    if (!bwd_) return Add({{name, OpKind::kGemm, flops, bytes, b * m, n, k}});
    Add({{name + "_dgrad_a", OpKind::kGemm, flops, bytes, b * m, k, n},
         {name + "_dgrad_b", OpKind::kGemm, flops, bytes, b * k, n, m}});
  }

  // A memory-bound kernel moving `forward` or `backward` bytes per image.
  void Memory(const std::string& name, double forward, double backward) {
    const Bytes bytes(images_ * (bwd_ ? backward : forward));
    Add({{bwd_ ? name + "_bwd" : name, OpKind::kMemory, Flops(0), bytes}});
  }
  // The same, for a kernel streaming a tensor of `elements` per image
  // `forward` / `backward` times.
  void Stream(const std::string& name, double elements, double forward, double backward) {
    Memory(name, e_ * elements * forward, e_ * elements * backward);
  }

  void Keep(Tensor& t) {
    if (!t.kept) kept_ += t.elements();
    t.kept = true;
  }
  void Params(double p) { params_ += p; }

  // REQUIRES `ok`; else throws naming the model, the block and the problem.
  void Check(bool ok, size_t index, const std::string& problem) const {
    if (ok) return;
    throw std::invalid_argument(spec_.name + ": block " + std::to_string(index) + " (" +
                                VisionOpName(spec_.blocks[index].op) + "): " + problem);
  }

  const VisionBlock& block(size_t i) const { return spec_.blocks[i]; }
  double e() const { return e_; }
  double params() const { return params_; }
  double kept() const { return kept_; }
  // The kernels in execution order: layer order forward, reverse backward.
  std::vector<Op> TakeOps() {
    std::vector<Op> ops;
    auto append = [&](const std::vector<Op>& layer) { ops.insert(ops.end(), layer.begin(), layer.end()); };
    if (bwd_) {
      for (auto it = layers_.rbegin(); it != layers_.rend(); ++it) append(*it);
    } else {
      for (const auto& layer : layers_) append(layer);
    }
    return ops;
  }

 private:
  void Add(std::vector<Op> layer) { layers_.push_back(std::move(layer)); }

  const VisionSpec& spec_;
  double images_, e_;
  bool bwd_;
  double params_ = 0, kept_ = 0;
  std::vector<std::vector<Op>> layers_;
};

std::string Num(double v) {
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// Conv (no bias) + BatchNorm [+ ReLU] (torchvision conv-bn-relu); returns
// the output. Keeps the conv input, the BatchNorm input and the ReLU output.
Tensor ConvBn(Net& net, const std::string& name, Tensor x, int cout, int kernel, int stride, bool relu) {
  const double ho = OutSide(x.h, kernel, stride), wo = OutSide(x.w, kernel, stride);
  const double k = x.c * kernel * kernel;
  net.Params(cout * k + 2.0 * cout);  // weights; BatchNorm gamma, beta
  net.Keep(x);
  net.Gemm(name, ho * wo, cout, k, x.elements(), double(kernel) * kernel);
  Tensor y = Map(cout, ho, wo);
  net.Keep(y);
  net.Stream(name + ".bn", y.elements(), kBatchNormForward, kBatchNormBackward);
  y = Map(cout, ho, wo);
  if (relu) {
    net.Stream(name + ".relu", y.elements(), kReluForward, kReluBackward);
    net.Keep(y);
  }
  return y;
}

// ResNet v1.5 bottleneck (torchvision Bottleneck: stride on the 3x3 conv;
// a 1x1 conv + BatchNorm projection when stride or channels change).
Tensor Bottleneck(Net& net, const std::string& name, Tensor x, const VisionBlock& b, int stride) {
  Tensor y = ConvBn(net, name + ".conv1", x, b.width, 1, 1, true);
  y = ConvBn(net, name + ".conv2", y, b.width, 3, stride, true);
  y = ConvBn(net, name + ".conv3", y, b.out, 1, 1, false);
  if (stride != 1 || x.c != b.out) ConvBn(net, name + ".downsample", x, b.out, 1, stride, false);
  net.Stream(name + ".add", y.elements(), kAddForward, kAddBackward);
  y = Map(y.c, y.h, y.w);
  net.Stream(name + ".relu", y.elements(), kReluForward, kReluBackward);
  net.Keep(y);
  return y;
}

// ViT patch embedding (torchvision VisionTransformer: conv_proj with bias,
// class token prepended, learned positions added; Dosovitskiy et al. 2021
// eq. 1): tokens = (H / patch) x (W / patch) + 1.
Tensor PatchEmbed(Net& net, const std::string& name, Tensor x, const VisionBlock& b) {
  const double patches = (x.h / b.patch) * (x.w / b.patch), tokens = patches + 1, d = b.out;
  const double k = x.c * b.patch * b.patch;
  net.Params(d * k + d + d + tokens * d);  // conv weight, bias; class token; positions
  net.Keep(x);
  net.Gemm(name + ".conv", patches, d, k, x.elements(), double(b.patch) * b.patch);
  // Concatenate the class token (read patches, write tokens), then add the
  // positions (read, write); backward reduces the positions' gradient over
  // the batch and copies out the patches' slice.
  net.Memory(name + ".tokens", net.e() * d * (patches + 3 * tokens), net.e() * d * (tokens + 2 * patches));
  return Sequence(tokens, d);
}

// ViT encoder block, pre-norm (torchvision EncoderBlock; Dosovitskiy et al.
// 2021 eqs. 2-3): x + proj(attention(LN(x))), then + fc2(GELU(fc1(LN(.)))).
// Keeps the LayerNorm inputs, the linear inputs, Q, K, V, the softmax output
// and the GELU input: per token 8 hidden (the block's input included) + 2
// mlp, plus heads x tokens (Korthikanti et al. 2022, Sec. 4.1, without the
// dropout masks).
Tensor EncoderBlock(Net& net, const std::string& name, Tensor x, const VisionBlock& b) {
  const double t = x.tokens, d = b.hidden, heads = b.heads, hd = d / heads, f = b.mlp;
  net.Params(2 * d + (3 * d * d + 3 * d) + (d * d + d) + 2 * d + (d * f + f) + (f * d + d));
  const double n = t * d, bwd = kTransformerBackward;
  net.Keep(x);
  net.Stream(name + ".norm1", n, kNormForward, bwd * kNormForward);
  Tensor y = Sequence(t, d);
  net.Keep(y);
  net.Gemm(name + ".qkv", t, 3 * d, d, n);
  Tensor qkv = Sequence(t, 3 * d);
  net.Keep(qkv);
  net.Batched(name + ".attn_scores", heads, t, t, hd);
  Tensor probs = Sequence(heads * t, t);  // heads x tokens x tokens
  net.Stream(name + ".softmax", probs.elements(), kSoftmaxForward, kSoftmaxBackward);
  net.Keep(probs);
  net.Batched(name + ".attn_values", heads, t, hd, t);
  y = Sequence(t, d);
  net.Keep(y);
  net.Gemm(name + ".attn_proj", t, d, d, n);
  net.Stream(name + ".residual1", n, kAddForward, bwd * kAddForward);
  y = Sequence(t, d);
  net.Keep(y);
  net.Stream(name + ".norm2", n, kNormForward, bwd * kNormForward);
  y = Sequence(t, d);
  net.Keep(y);
  net.Gemm(name + ".mlp_fc1", t, f, d, n);
  Tensor h = Sequence(t, f);
  net.Keep(h);
  net.Stream(name + ".gelu", h.elements(), kGeluForward, bwd * kGeluForward);
  h = Sequence(t, f);
  net.Keep(h);
  net.Gemm(name + ".mlp_fc2", t, d, f, h.elements());
  net.Stream(name + ".residual2", n, kAddForward, bwd * kAddForward);
  return Sequence(t, d);
}

// Max pool with padding kernel / 2 (torchvision: 3x3, stride 2, padding 1).
// Reads x and writes y plus an int64 index per output element (PyTorch
// max_pool2d_with_indices); backward reads dy and the indices, writes dx.
Tensor MaxPool(Net& net, const std::string& name, Tensor x, int kernel, int stride) {
  const Tensor y = Map(x.c, OutSide(x.h, kernel, stride), OutSide(x.w, kernel, stride));
  net.Keep(x);
  const double bytes = net.e() * (x.elements() + y.elements()) + kMaxPoolIndexBytes * y.elements();
  net.Memory(name, bytes, bytes);
  return y;
}

// Global average pool: reads x, writes one value per channel; backward
// (which needs only x's shape) reads dy and writes dx.
Tensor AvgPool(Net& net, const std::string& name, const Tensor& x) {
  const Tensor y = Map(x.c, 1, 1);
  net.Stream(name, x.elements() + y.elements(), 1, 1);
  return y;
}

// Fully connected layer with bias. On a token sequence the classifier reads
// the class token only (Dosovitskiy et al. 2021, eq. 4; torchvision
// VisionTransformer: heads(x[:, 0])); a feature map is flattened.
Tensor Linear(Net& net, const std::string& name, Tensor x, int out) {
  const double k = x.sequence() ? x.c : x.elements();
  net.Params(k * out + out);  // weight, bias
  net.Keep(x);
  net.Gemm(name, 1, out, k, k);
  return Map(out, 1, 1);
}

// LayerNorm over the channel / hidden dimension, with weight and bias.
Tensor LayerNorm(Net& net, const std::string& name, Tensor x) {
  net.Params(2 * x.c);
  net.Keep(x);
  net.Stream(name, x.elements(), kNormForward, kTransformerBackward * kNormForward);
  x.kept = false;  // the output is a new tensor of the same shape
  return x;
}

// Throws unless block `i` has the fields its op needs and fits its input.
void CheckBlock(const Net& net, size_t i, const Tensor& x) {
  const VisionBlock& b = net.block(i);
  auto check = [&](bool ok, const std::string& problem) { net.Check(ok, i, problem); };
  auto positive = [&](int v, const char* field) {
    check(v > 0, std::string(field) + " " + Num(v) + " must be positive");
  };
  auto map = [&] { check(!x.sequence(), "needs a feature map, but gets a token sequence"); };
  auto window = [&](int kernel, int stride) {
    positive(kernel, "kernel");
    positive(stride, "stride");
    check(OutSide(std::min(x.h, x.w), kernel, stride) >= 1,
          "kernel " + Num(kernel) + " does not fit the " + Num(x.h) + "x" + Num(x.w) + " input");
  };
  switch (b.op) {
    case VisionOp::kConv: map(), positive(b.out, "out"), window(b.kernel, b.stride); return;
    case VisionOp::kMaxPool: map(), window(b.kernel, b.stride); return;
    case VisionOp::kBottleneck:
      map(), positive(b.width, "width"), positive(b.out, "out"), window(3, b.stride);
      return;
    case VisionOp::kAvgPool: map(); return;
    case VisionOp::kLinear: positive(b.out, "out"); return;
    case VisionOp::kPatchEmbed:
      map(), positive(b.patch, "patch"), positive(b.out, "out");
      check(int(x.h) % b.patch == 0 && int(x.w) % b.patch == 0,
            "patch " + Num(b.patch) + " does not divide the " + Num(x.h) + "x" + Num(x.w) + " input");
      return;
    case VisionOp::kEncoderBlock:
      check(x.sequence(), "needs a token sequence (a patch_embed before it)");
      positive(b.hidden, "hidden"), positive(b.heads, "heads"), positive(b.mlp, "mlp");
      check(b.hidden == x.c, "hidden " + Num(b.hidden) + " differs from the incoming width " + Num(x.c));
      check(b.hidden % b.heads == 0, "heads " + Num(b.heads) + " do not divide hidden " + Num(b.hidden));
      return;
    case VisionOp::kLayerNorm: return;
  }
}

// Copy `r` of block `i` applied to `x`. REQUIRES: CheckBlock passed.
Tensor Apply(Net& net, size_t i, int r, const Tensor& x) {
  const VisionBlock& b = net.block(i);
  const std::string name = std::string(VisionOpName(b.op)) + std::to_string(i) +
                           (b.repeat > 1 ? "." + std::to_string(r) : "");
  switch (b.op) {
    case VisionOp::kConv: return ConvBn(net, name, x, b.out, b.kernel, b.stride, b.relu);
    case VisionOp::kMaxPool: return MaxPool(net, name, x, b.kernel, b.stride);
    case VisionOp::kBottleneck: return Bottleneck(net, name, x, b, r == 0 ? b.stride : 1);
    case VisionOp::kAvgPool: return AvgPool(net, name, x);
    case VisionOp::kLinear: return Linear(net, name, x, b.out);
    case VisionOp::kPatchEmbed: return PatchEmbed(net, name, x, b);
    case VisionOp::kEncoderBlock: return EncoderBlock(net, name, x, b);
    case VisionOp::kLayerNorm: return LayerNorm(net, name, x);
  }
  throw std::logic_error("vision: unknown op " + std::to_string(int(b.op)));
}

// Walks the whole model; throws std::invalid_argument on a bad spec.
void Walk(Net& net, const VisionSpec& s) {
  if (s.height <= 0 || s.width <= 0 || s.channels <= 0)
    throw std::invalid_argument(s.name + ": input " + Num(s.height) + "x" + Num(s.width) + "x" +
                                Num(s.channels) + " must be positive");
  if (s.classes <= 0)
    throw std::invalid_argument(s.name + ": classes " + Num(s.classes) + " must be positive");
  if (s.blocks.empty()) throw std::invalid_argument(s.name + ": no blocks");
  Tensor x = Map(s.channels, s.height, s.width);
  for (size_t i = 0; i < s.blocks.size(); ++i) {
    net.Check(s.blocks[i].repeat > 0, i, "repeat " + Num(s.blocks[i].repeat) + " must be positive");
    for (int r = 0; r < s.blocks[i].repeat; ++r) {
      CheckBlock(net, i, x);
      x = Apply(net, i, r, x);
    }
  }
  if (x.sequence() || x.h != 1 || x.w != 1 || x.c != s.classes)
    throw std::invalid_argument(s.name + ": the last block outputs " +
                                (x.sequence() ? Num(x.tokens) + " tokens of " + Num(x.c)
                                              : Num(x.c) + "x" + Num(x.h) + "x" + Num(x.w)) +
                                ", not a vector of " + Num(s.classes) + " classes");
}

}  // namespace

const char* VisionOpName(VisionOp op) {
  switch (op) {
    case VisionOp::kConv: return "conv";
    case VisionOp::kMaxPool: return "maxpool";
    case VisionOp::kBottleneck: return "bottleneck";
    case VisionOp::kAvgPool: return "avgpool";
    case VisionOp::kLinear: return "linear";
    case VisionOp::kPatchEmbed: return "patch_embed";
    case VisionOp::kEncoderBlock: return "encoder_block";
    case VisionOp::kLayerNorm: return "layernorm";
  }
  return "?";
}

void ValidateVision(const VisionSpec& s) {
  Net net(s, 1, 1, Pass::kForward);
  Walk(net, s);
}

VisionCounts CountVision(const VisionSpec& s) {
  Net net(s, 1, 1, Pass::kForward);
  Walk(net, s);
  VisionCounts c;
  c.params = net.params();
  c.activation_elements = net.kept();
  for (const Op& op : net.TakeOps())
    if (op.kind == OpKind::kGemm) c.forward_macs += op.flops.value() / 2;
  return c;
}

std::vector<Op> VisionOps(const VisionSpec& s, int images, double element_bytes, Pass pass) {
  if (images < 1) throw std::invalid_argument(s.name + ": images " + Num(images) + " must be at least 1");
  if (!(element_bytes > 0))
    throw std::invalid_argument(s.name + ": element_bytes " + Num(element_bytes) + " must be positive");
  Net net(s, images, element_bytes, pass);
  Walk(net, s);
  return net.TakeOps();
}

}  // namespace pf

// Vision-model arithmetic: parameter count, multiply-accumulates, stored
// activations and the kernels of one forward or backward pass of a
// convolutional network (ResNet) or a Vision Transformer, described as a
// plain list of blocks. No YAML (models/*.yaml with `kind: vision` are parsed
// elsewhere into a VisionSpec), no SimGrid, no timing: the kernels are Ops
// (model_math.h) that OpTime (compute_model.h) prices.
#pragma once

#include <string>
#include <vector>

#include "sim/model/model_math.h"
#include "sim/spec/spec.h"  // VisionSpec

namespace pf {

// The op's name as the model files spell it ("conv", "encoder_block", ...).
const char* VisionOpName(VisionOp op);

// Checks that every block has the fields its op needs, that shapes chain
// (an encoder block follows a patch embedding of its width, heads divide
// hidden, a patch divides the image, no window outgrows its input) and that
// the network ends in a vector of `classes`. Throws std::invalid_argument
// naming the model, the block index, its op and the bad value.
void ValidateVision(const VisionSpec& s);

// Per-image totals of a model. Activation convention: each kernel keeps what
// its own backward reads in eager PyTorch (conv, linear and matmul inputs;
// BatchNorm, LayerNorm and GELU inputs; ReLU and softmax outputs; the max
// pool's input), each tensor counted once however many kernels keep it; the
// input image included; per-channel BatchNorm/LayerNorm statistics and the
// max pool's int64 indices left out; no dropout (torchvision's ResNet-50 and
// ViT-B/16 have none before the head).
struct VisionCounts {
  double params = 0;               // trainable parameters (BatchNorm running stats are buffers)
  double forward_macs = 0;         // per image: conv, linear and attention matmuls
  double activation_elements = 0;  // per image: elements kept for backward (above)
};
// REQUIRES: ValidateVision(s) passes (throws std::invalid_argument otherwise).
VisionCounts CountVision(const VisionSpec& s);

// The kernels of one forward or backward pass over a micro-batch of
// `images` on one GPU, activations and weights of `element_bytes` each.
// Convs are implicit GEMMs (M = images x Hout x Wout, N = Cout,
// K = Cin x kh x kw; bytes = input + weights + output tensors); backward
// runs, per conv and linear layer, a data-gradient and a weight-gradient
// GEMM of the forward's FLOPs, and per attention matmul the gradients of
// both operands, in reverse layer order. Norms, activations, pools, adds
// and softmax are OpKind::kMemory with their HBM bytes (vision.cc states
// each kernel's reads and writes and their source).
// REQUIRES: ValidateVision(s) passes, images >= 1, element_bytes > 0
// (throws std::invalid_argument otherwise).
std::vector<Op> VisionOps(const VisionSpec& s, int images, double element_bytes, Pass pass);

}  // namespace pf

// Vision-model arithmetic checked against torchvision's published parameter
// counts and multiply-accumulates, hand-computed small networks, and the
// backward and batch-size conventions of VisionOps.
#include "sim/model/vision.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

namespace pf {
namespace {

VisionBlock Block(VisionOp op, int repeat = 1) {
  VisionBlock b;
  b.op = op;
  b.repeat = repeat;
  return b;
}
VisionBlock Conv(int out, int kernel, int stride, bool relu) {
  VisionBlock b = Block(VisionOp::kConv);
  b.out = out, b.kernel = kernel, b.stride = stride, b.relu = relu;
  return b;
}
VisionBlock MaxPool(int kernel, int stride) {
  VisionBlock b = Block(VisionOp::kMaxPool);
  b.kernel = kernel, b.stride = stride;
  return b;
}
VisionBlock Bottleneck(int width, int out, int stride, int repeat) {
  VisionBlock b = Block(VisionOp::kBottleneck, repeat);
  b.width = width, b.out = out, b.stride = stride;
  return b;
}
VisionBlock Linear(int out) {
  VisionBlock b = Block(VisionOp::kLinear);
  b.out = out;
  return b;
}
VisionBlock PatchEmbed(int patch, int out) {
  VisionBlock b = Block(VisionOp::kPatchEmbed);
  b.patch = patch, b.out = out;
  return b;
}
VisionBlock Encoder(int hidden, int heads, int mlp, int repeat) {
  VisionBlock b = Block(VisionOp::kEncoderBlock, repeat);
  b.hidden = hidden, b.heads = heads, b.mlp = mlp;
  return b;
}

VisionSpec Spec(std::string name, int side, int channels, int classes, std::vector<VisionBlock> blocks) {
  VisionSpec s;
  s.name = std::move(name);
  s.height = s.width = side;
  s.channels = channels;
  s.classes = classes;
  s.blocks = std::move(blocks);
  return s;
}

// models/resnet50.yaml: He et al. 2016 Table 1 (stages of 3, 4, 6, 3
// bottlenecks), torchvision v1.5 (stride on the 3x3 conv).
VisionSpec ResNet50() {
  return Spec("resnet50", 224, 3, 1000,
              {Conv(64, 7, 2, true), MaxPool(3, 2), Bottleneck(64, 256, 1, 3), Bottleneck(128, 512, 2, 4),
               Bottleneck(256, 1024, 2, 6), Bottleneck(512, 2048, 2, 3), Block(VisionOp::kAvgPool),
               Linear(1000)});
}

// models/vit_b16.yaml: Dosovitskiy et al. 2021 Table 1 (ViT-Base: 12 layers,
// hidden 768, MLP 3072, 12 heads), patch 16 at 224 x 224.
VisionSpec VitB16() {
  return Spec("vit_b16", 224, 3, 1000,
              {PatchEmbed(16, 768), Encoder(768, 12, 3072, 12), Block(VisionOp::kLayerNorm), Linear(1000)});
}

double Sum(const std::vector<Op>& ops, OpKind kind, bool flops) {
  double total = 0;
  for (const Op& op : ops)
    if (op.kind == kind) total += flops ? op.flops.value() : op.bytes.value();
  return total;
}
double GemmFlops(const std::vector<Op>& ops) { return Sum(ops, OpKind::kGemm, true); }

// torchvision ResNet50_Weights.IMAGENET1K_V1: num_params 25557032, GFLOPS
// 4.09 (multiply-accumulates; "_ops": 4.089 in torchvision/models/resnet.py),
// https://pytorch.org/vision/stable/models/generated/torchvision.models.resnet50.html
TEST(Vision, ResNet50MatchesTorchvision) {
  const VisionCounts c = CountVision(ResNet50());
  EXPECT_EQ(c.params, 25557032);
  EXPECT_NEAR(c.forward_macs, 4.09e9, 0.01 * 4.09e9);
}

// torchvision ViT_B_16_Weights.IMAGENET1K_V1: num_params 86567656, GFLOPS
// 17.56 (multiply-accumulates, attention over all 197 tokens included),
// https://pytorch.org/vision/stable/models/generated/torchvision.models.vit_b_16.html
TEST(Vision, VitB16MatchesTorchvision) {
  const VisionCounts c = CountVision(VitB16());
  EXPECT_EQ(c.params, 86567656);
  EXPECT_NEAR(c.forward_macs, 17.56e9, 0.02 * 17.56e9);
}

// 32x32x3 -> conv 7x7/2 to 8 channels (16x16) + BN + ReLU -> avgpool -> 10.
TEST(Vision, SmallConvNetMatchesHandCount) {
  const VisionSpec s = Spec("tiny", 32, 3, 10, {Conv(8, 7, 2, true), Block(VisionOp::kAvgPool), Linear(10)});
  const VisionCounts c = CountVision(s);
  EXPECT_EQ(c.params, 8 * 3 * 49 + 2 * 8 + 8 * 10 + 10);
  EXPECT_EQ(c.forward_macs, 16 * 16 * 8 * 147 + 8 * 10);
  // Image, conv output (BN input), ReLU output, avgpool output (linear input).
  EXPECT_EQ(c.activation_elements, 3 * 32 * 32 + 2 * 8 * 16 * 16 + 8);

  const int images = 4;
  const double e = 2;
  const std::vector<Op> fwd = VisionOps(s, images, e, Pass::kForward);
  ASSERT_GE(fwd.size(), 3u);
  const Op& conv = fwd[0];
  EXPECT_EQ(conv.kind, OpKind::kGemm);
  EXPECT_EQ(conv.m, images * 16 * 16);
  EXPECT_EQ(conv.n, 8);
  EXPECT_EQ(conv.k, 3 * 49);
  EXPECT_EQ(conv.flops.value(), 2.0 * images * 16 * 16 * 8 * 147);
  // Input image, weights, output: the implicit GEMM reads no im2col copy.
  EXPECT_EQ(conv.bytes.value(), e * (images * 3 * 32 * 32 + 8 * 147 + images * 8 * 16 * 16));
  // Training BatchNorm reads x twice and writes y; backward reads x and dy
  // twice and writes dx.
  const double map = images * 8 * 16 * 16;
  EXPECT_EQ(fwd[1].name, "conv0.bn");
  EXPECT_EQ(fwd[1].bytes.value(), 3 * e * map);
  const std::vector<Op> bwd = VisionOps(s, images, e, Pass::kBackward);
  bool found = false;
  for (const Op& op : bwd) {
    if (op.name != "conv0.bn_bwd") continue;
    found = true;
    EXPECT_EQ(op.bytes.value(), 5 * e * map);
  }
  EXPECT_TRUE(found);
}

// Per block: tokens x (8 hidden + 2 mlp) + heads x tokens^2 (the block's
// input, LN output, Q K V, attention output, residual, LN output, fc1 output,
// GELU output; softmax output); then the final LayerNorm's input and the
// classifier's input; plus the image.
TEST(Vision, VitActivationsFollowKorthikantiWithoutDropout) {
  const double t = 197, d = 768, f = 3072, heads = 12, layers = 12;
  const double expected = 3 * 224 * 224 + layers * (t * (8 * d + 2 * f) + heads * t * t) + 2 * t * d;
  EXPECT_EQ(CountVision(VitB16()).activation_elements, expected);
}

TEST(Vision, BackwardRunsTwiceTheForwardGemmFlops) {
  for (const VisionSpec& s : {ResNet50(), VitB16()}) {
    SCOPED_TRACE(s.name);
    const double fwd = GemmFlops(VisionOps(s, 8, 2, Pass::kForward));
    const double bwd = GemmFlops(VisionOps(s, 8, 2, Pass::kBackward));
    EXPECT_NEAR(bwd, 2 * fwd, 1e-12 * fwd);
    EXPECT_NEAR(fwd, 2 * 8 * CountVision(s).forward_macs, 1e-12 * fwd);
  }
}

TEST(Vision, BackwardGemmsAreTheForwardShapesTransposed) {
  const std::vector<Op> fwd = VisionOps(ResNet50(), 2, 2, Pass::kForward);
  const std::vector<Op> bwd = VisionOps(ResNet50(), 2, 2, Pass::kBackward);
  // The classifier runs last forward and first backward.
  const Op& fc = fwd[fwd.size() - 1];
  ASSERT_EQ(fc.name, "linear7");
  ASSERT_GE(bwd.size(), 2u);
  EXPECT_EQ(bwd[0].name, "linear7_dgrad");
  EXPECT_EQ(bwd[1].name, "linear7_wgrad");
  // dX (m x k) reduced over n; dW (k x n) reduced over m.
  EXPECT_EQ(fc.m, 2);
  EXPECT_EQ(fc.n, 1000);
  EXPECT_EQ(fc.k, 2048);
  const auto expected = {std::tuple(bwd[0], fc.m, fc.k, fc.n), std::tuple(bwd[1], fc.k, fc.n, fc.m)};
  for (const auto& [op, m, n, k] : expected) {
    SCOPED_TRACE(op.name);
    EXPECT_EQ(op.m, m);
    EXPECT_EQ(op.n, n);
    EXPECT_EQ(op.k, k);
    EXPECT_EQ(op.flops, fc.flops);
  }
}

// FLOPs and memory-bound bytes are per image; a GEMM's bytes add a weight
// read that does not grow with the batch.
TEST(Vision, OpsScaleLinearlyWithImages) {
  for (const VisionSpec& s : {ResNet50(), VitB16()}) {
    for (Pass pass : {Pass::kForward, Pass::kBackward}) {
      SCOPED_TRACE(s.name + (pass == Pass::kForward ? " forward" : " backward"));
      const std::vector<Op> one = VisionOps(s, 1, 2, pass), two = VisionOps(s, 2, 2, pass),
                            four = VisionOps(s, 4, 2, pass);
      ASSERT_EQ(one.size(), four.size());
      for (size_t i = 0; i < one.size(); ++i) {
        SCOPED_TRACE(one[i].name);
        EXPECT_DOUBLE_EQ(four[i].flops.value(), 4 * one[i].flops.value());
        if (one[i].kind == OpKind::kMemory) {
          EXPECT_DOUBLE_EQ(four[i].bytes.value(), 4 * one[i].bytes.value());
        } else {  // affine: bytes(4) - bytes(2) = 2 (bytes(2) - bytes(1))
          EXPECT_DOUBLE_EQ(four[i].bytes.value() - two[i].bytes.value(),
                           2 * (two[i].bytes.value() - one[i].bytes.value()));
        }
      }
    }
  }
}

TEST(Vision, BadSpecsAreRejectedWithTheBlockAndValue) {
  struct Case {
    VisionSpec spec;
    std::string message;
  };
  VisionSpec heads = VitB16();
  heads.blocks[1].heads = 7;
  VisionSpec patch = VitB16();
  patch.blocks[0].patch = 15;
  VisionSpec classes = ResNet50();
  classes.classes = 10;
  const std::vector<Case> cases = {
      {Spec("m", 224, 3, 1000, {Encoder(768, 12, 3072, 1), Linear(1000)}),
       "m: block 0 (encoder_block): needs a token sequence (a patch_embed before it)"},
      {heads, "vit_b16: block 1 (encoder_block): heads 7 do not divide hidden 768"},
      {patch, "vit_b16: block 0 (patch_embed): patch 15 does not divide the 224x224 input"},
      {classes, "resnet50: the last block outputs 1000x1x1, not a vector of 10 classes"},
      {Spec("m", 224, 3, 10, {PatchEmbed(16, 64), Encoder(32, 4, 128, 1), Linear(10)}),
       "m: block 1 (encoder_block): hidden 32 differs from the incoming width 64"},
      {Spec("m", 224, 3, 10, {Conv(8, 3, 0, true), Linear(10)}),
       "m: block 0 (conv): stride 0 must be positive"},
      {Spec("m", 224, 3, 10, {Bottleneck(64, 256, 1, 0), Linear(10)}),
       "m: block 0 (bottleneck): repeat 0 must be positive"},
      {Spec("m", 224, 3, 10, {PatchEmbed(16, 64), Block(VisionOp::kAvgPool), Linear(10)}),
       "m: block 1 (avgpool): needs a feature map, but gets a token sequence"},
  };
  for (const Case& c : cases) {
    try {
      ValidateVision(c.spec);
      ADD_FAILURE() << "accepted: " << c.message;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), c.message);
    }
  }
  EXPECT_THROW(VisionOps(ResNet50(), 0, 2, Pass::kForward), std::invalid_argument);
}

}  // namespace
}  // namespace pf

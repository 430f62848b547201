// The onednn delegate on the patterns of convolutional networks that keep
// values in oneDNN's blocked layouts between convolutions: a concat of
// convolutions' results (DenseNet, SqueezeNet), batch norm with its ReLU
// (DenseNet), SiLU written as x * sigmoid(x) after a convolution
// (EfficientNet), and a squeeze-excitation block (global mean, 1x1
// convolutions, per-channel scale). Each is compared with the portable
// kernels; the step names show the pattern was taken, where that does not
// depend on the layouts oneDNN picks for this CPU.
#include <gtest/gtest.h>

#include <algorithm>

#include "backends/delegate_harness.h"

namespace edgec {
namespace {

bool has_step(const RunResult& r, const std::string& name) {
  return std::find(r.steps.begin(), r.steps.end(), name) != r.steps.end();
}

// Two convolutions concatenated along the channels and read by a third
// (SqueezeNet's fire module): the concat writes a blocked layout from its
// blocked operands. Channel counts off every block (12 + 20) are
// concatenated too, and a concat that is a delegate output stays plain.
TEST(OnednnCnn, ConcatOfConvolutions) {
  Ir ir;
  ir.input("x", {1, 16, 10, 10}).constant("w1", {32, 16, 1, 1}, -0.3f, 0.3f).constant("b1", {32});
  ir.constant("w2", {32, 16, 3, 3}, -0.2f, 0.2f).constant("b2", {32}).constant("w3", {16, 64, 1, 1}, -0.2f, 0.2f);
  ir.constant("w4", {12, 16, 1, 1}, -0.3f, 0.3f).constant("w5", {20, 16, 3, 3}, -0.2f, 0.2f);
  ir.constant("w6", {8, 32, 1, 1}, -0.2f, 0.2f);
  ir.op("%a = edge.conv.default(%x, %w1, %b1) : f32[1, 32, 10, 10]");
  ir.op("%ra = edge.relu.default(%a) : f32[1, 32, 10, 10]");
  ir.op("%b = edge.conv.default(%x, %w2, %b2, padding = [1, 1]) : f32[1, 32, 10, 10]");
  ir.op("%rb = edge.relu.default(%b) : f32[1, 32, 10, 10]");
  ir.op("%c = edge.concat.default([%ra, %rb], dim = 1) : f32[1, 64, 10, 10]");
  ir.op("%y = edge.conv.default(%c, %w3) : f32[1, 16, 10, 10]");
  ir.op("%d = edge.conv.default(%x, %w4) : f32[1, 12, 10, 10]");
  ir.op("%e = edge.conv.default(%x, %w5, padding = [1, 1]) : f32[1, 20, 10, 10]");
  ir.op("%f = edge.concat.default([%d, %e], dim = 1) : f32[1, 32, 10, 10]");
  ir.op("%z = edge.conv.default(%f, %w6) : f32[1, 8, 10, 10]");
  ir.op("%o = edge.concat.default([%ra, %x], dim = 1) : f32[1, 48, 10, 10]");
  const RunResult got = expect_matches(ir, {"y", "z", "o"}, {"conv", "concat"}, 1e-4);
  EXPECT_TRUE(has_step(got, "concat (blocked)")) << ::testing::PrintToString(got.steps);
}

// DenseNet's layer: concat -> batch_norm -> relu -> conv; the ReLU is the
// batch norm's own (one step). A batch norm whose result has other readers
// keeps its ReLU apart.
TEST(OnednnCnn, BatchNormWithItsRelu) {
  Ir ir;
  ir.input("x", {1, 16, 8, 8}, -2.f, 2.f).constant("w0", {16, 16, 3, 3}, -0.2f, 0.2f);
  ir.constant("g", {32}, 0.5f, 1.5f).constant("bb", {32}).constant("mu", {32}).constant("var", {32}, 0.5f, 2.f);
  ir.constant("w", {8, 32, 1, 1}, -0.3f, 0.3f);
  ir.op("%c0 = edge.conv.default(%x, %w0, padding = [1, 1]) : f32[1, 16, 8, 8]");
  ir.op("%c = edge.concat.default([%x, %c0], dim = 1) : f32[1, 32, 8, 8]");
  ir.op("%n = edge.batch_norm.default(%c, %g, %bb, %mu, %var, eps = 1.0e-5) : f32[1, 32, 8, 8]");
  ir.op("%r = edge.relu.default(%n) : f32[1, 32, 8, 8]");
  ir.op("%y = edge.conv.default(%r, %w) : f32[1, 8, 8, 8]");
  ir.op("%n2 = edge.batch_norm.default(%c, %g, %bb, %mu, %var, eps = 1.0e-5) : f32[1, 32, 8, 8]");
  ir.op("%r2 = edge.relu.default(%n2) : f32[1, 32, 8, 8]");
  ir.op("%s = edge.sigmoid.default(%n2) : f32[1, 32, 8, 8]");
  const RunResult got = expect_matches(ir, {"y", "r2", "s"}, {"conv", "batch_norm", "relu"}, 1e-4);
  EXPECT_TRUE(has_step(got, "batch_norm+relu")) << ::testing::PrintToString(got.steps);
  EXPECT_TRUE(has_step(got, "batch_norm")) << ::testing::PrintToString(got.steps);
}

// SiLU written out after a convolution, in either operand order of the
// mul, is the convolution's swish post-op; with a third reader of the
// convolution's result it is not fused.
TEST(OnednnCnn, SwishAfterConvolution) {
  Ir ir;
  ir.input("x", {1, 16, 9, 9}, -2.f, 2.f).constant("w", {16, 16, 3, 3}, -0.3f, 0.3f).constant("b", {16});
  ir.constant("w2", {16, 1, 3, 3}, -0.5f, 0.5f);
  ir.op("%c = edge.conv.default(%x, %w, %b, padding = [1, 1]) : f32[1, 16, 9, 9]");
  ir.op("%s = edge.sigmoid.default(%c) : f32[1, 16, 9, 9]");
  ir.op("%m = edge.mul.Tensor(%c, %s) : f32[1, 16, 9, 9]");
  ir.op("%d = edge.conv.default(%m, %w2, padding = [1, 1], groups = 16) : f32[1, 16, 9, 9]");
  ir.op("%s2 = edge.sigmoid.default(%d) : f32[1, 16, 9, 9]");
  ir.op("%m2 = edge.mul.Tensor(%s2, %d) : f32[1, 16, 9, 9]");
  ir.op("%e = edge.conv.default(%m2, %w2, padding = [1, 1], groups = 16) : f32[1, 16, 9, 9]");
  ir.op("%s3 = edge.sigmoid.default(%e) : f32[1, 16, 9, 9]");
  ir.op("%m3 = edge.mul.Tensor(%e, %s3) : f32[1, 16, 9, 9]");
  ir.op("%t = edge.tanh.default(%e) : f32[1, 16, 9, 9]");
  const RunResult got = expect_matches(ir, {"m3", "t"}, {"conv", "sigmoid", "mul"}, 1e-4);
  EXPECT_EQ(std::count(got.steps.begin(), got.steps.end(), "conv+swish"), 2) << ::testing::PrintToString(got.steps);
}

// A squeeze-excitation block between two convolutions: the global mean of
// a blocked value is a pooling in its layout; the per-channel scale
// multiplies it in its layout (oneDNN's kernel, or the delegate's loop
// where oneDNN has only its reference one), as does a subtraction with a
// ReLU after it. 40 channels are off a 16-channel block.
void squeeze_excitation(int64_t channels) {
  const std::string c = std::to_string(channels);
  Ir ir;
  ir.input("x", {1, 16, 12, 12}, -2.f, 2.f).constant("w", {channels, 16, 3, 3}, -0.3f, 0.3f);
  ir.constant("wr", {8, channels, 1, 1}, -0.3f, 0.3f).constant("br", {8});
  ir.constant("we", {channels, 8, 1, 1}, -0.3f, 0.3f).constant("be", {channels});
  ir.constant("wo", {16, channels, 1, 1}, -0.3f, 0.3f);
  ir.op("%c = edge.conv.default(%x, %w, padding = [1, 1]) : f32[1, " + c + ", 12, 12]");
  ir.op("%r = edge.relu.default(%c) : f32[1, " + c + ", 12, 12]");
  ir.op("%p = edge.mean.default(%r, dims = [2, 3], keepdim = true) : f32[1, " + c + ", 1, 1]");
  ir.op("%q = edge.conv.default(%p, %wr, %br) : f32[1, 8, 1, 1]");
  ir.op("%qr = edge.relu.default(%q) : f32[1, 8, 1, 1]");
  ir.op("%e = edge.conv.default(%qr, %we, %be) : f32[1, " + c + ", 1, 1]");
  ir.op("%s = edge.sigmoid.default(%e) : f32[1, " + c + ", 1, 1]");
  ir.op("%m = edge.mul.Tensor(%r, %s) : f32[1, " + c + ", 12, 12]");
  ir.op("%y = edge.conv.default(%m, %wo) : f32[1, 16, 12, 12]");
  ir.op("%m2 = edge.mul.Tensor(%s, %r) : f32[1, " + c + ", 12, 12]");
  ir.op("%d = edge.sub.Tensor(%r, %e) : f32[1, " + c + ", 12, 12]");
  ir.op("%dr = edge.relu.default(%d) : f32[1, " + c + ", 12, 12]");
  const RunResult got = expect_matches(ir, {"y", "m2", "dr"}, {"conv", "mean", "mul", "sub"}, 1e-4);
  EXPECT_TRUE(has_step(got, "mean (pooled)")) << ::testing::PrintToString(got.steps);
}

TEST(OnednnCnn, SqueezeExcitation) {
  squeeze_excitation(32);
  squeeze_excitation(40);
}

// Dilated 2-D max pooling (oneDNN 2.6 has only its reference code for it)
// runs on the delegate's own loop, in the layout of its input: a
// convolution's blocked result (16 and 24 channels: whole blocks, and off a
// 16-channel block), with padding and in ceil mode; a plain input of 8
// channels (reordered to nChw8c) and one of 5 (pooled plain).
TEST(OnednnCnn, DilatedMaxPool) {
  Ir ir;
  ir.input("x", {1, 8, 12, 12}, -2.f, 2.f).input("q", {2, 5, 9, 10}, -2.f, 2.f);
  ir.constant("w", {16, 8, 1, 1}, -0.5f, 0.5f).constant("w2", {24, 8, 3, 3}, -0.3f, 0.3f);
  ir.constant("w3", {8, 16, 1, 1}, -0.3f, 0.3f);
  ir.op("%c = edge.conv.default(%x, %w) : f32[1, 16, 12, 12]");
  ir.op("%p = edge.max_pool.default(%c, kernel_size = [3, 3], stride = [1, 1], padding = [2, 2], dilation = [2, 2]) : "
        "f32[1, 16, 12, 12]");
  ir.op("%y = edge.conv.default(%p, %w3) : f32[1, 8, 12, 12]");
  ir.op("%c2 = edge.conv.default(%x, %w2, padding = [1, 1]) : f32[1, 24, 12, 12]");
  ir.op("%p2 = edge.max_pool.default(%c2, kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [2, 2], "
        "ceil_mode = true) : f32[1, 24, 6, 6]");
  ir.op("%px = edge.max_pool.default(%x, kernel_size = [2, 3], stride = [1, 2], dilation = [3, 2]) : f32[1, 8, 9, 4]");
  ir.op("%pq = edge.max_pool.default(%q, kernel_size = [3, 2], stride = [2, 1], padding = [1, 1], dilation = [2, 3]) "
        ": f32[2, 5, 4, 9]");
  const RunResult got = expect_matches(ir, {"y", "p2", "px", "pq"}, {"conv", "max_pool"}, 1e-4);
  EXPECT_EQ(got.portable, 0u);
}

}  // namespace
}  // namespace edgec

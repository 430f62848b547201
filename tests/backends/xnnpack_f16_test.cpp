// The xnnpack delegate in f16: programs whose f32 inputs and constants are
// cast to f16 (the constants' casts folded at compile time, so the
// delegate sees f16 weights), computed in f16 by XNNPACK's f16 operators
// where this CPU has them, and cast back. Compared with the portable
// kernels' f16 results within f16's precision.
#include <gtest/gtest.h>

#include "backends/delegate_harness.h"

namespace edgec {
namespace {

// `name16` = `name` cast to f16 (shape as given).
void half(Ir& ir, const std::string& name, const std::vector<int64_t>& shape) {
  ir.op("%" + name + "16 = edge.cast.default(%" + name + ", dtype = f16) : f16" + shape_str(shape));
}

// A small f16 CNN and MLP head: conv + relu (fused), max pool, a second
// conv, add, hardswish, concat on channels, bilinear resize, global mean,
// a linear layer with its bias, leaky relu, mul.
TEST(XnnpackF16, ConvNetMatchesThePortableKernels) {
  Ir ir;
  ir.input("x", {1, 4, 8, 8}).constant("w", {8, 4, 3, 3}, -0.5f, 0.5f).constant("b", {8});
  ir.constant("w2", {8, 8, 1, 1}, -0.5f, 0.5f).constant("wf", {16, 6}, -0.5f, 0.5f).constant("bf", {6});
  half(ir, "x", {1, 4, 8, 8});
  half(ir, "w", {8, 4, 3, 3});
  half(ir, "b", {8});
  half(ir, "w2", {8, 8, 1, 1});
  half(ir, "wf", {16, 6});
  half(ir, "bf", {6});
  ir.op("%c = edge.conv.default(%x16, %w16, %b16, padding = [1, 1]) : f16[1, 8, 8, 8]");
  ir.op("%r = edge.relu.default(%c) : f16[1, 8, 8, 8]");
  ir.op("%p = edge.max_pool.default(%r, kernel_size = [2, 2], stride = [2, 2]) : f16[1, 8, 4, 4]");
  ir.op("%c2 = edge.conv.default(%p, %w216) : f16[1, 8, 4, 4]");
  ir.op("%a = edge.add.Tensor(%c2, %p) : f16[1, 8, 4, 4]");
  ir.op("%h = edge.hardswish.default(%a) : f16[1, 8, 4, 4]");
  ir.op("%k = edge.concat.default([%h, %p], dim = 1) : f16[1, 16, 4, 4]");
  ir.op("%u = edge.upsample_bilinear.default(%k, output_size = [8, 8]) : f16[1, 16, 8, 8]");
  ir.op("%g = edge.mean.default(%u, dims = [2, 3]) : f16[1, 16]");
  ir.op("%l = edge.matmul.default(%g, %wf16) : f16[1, 6]");
  ir.op("%lb = edge.add.Tensor(%l, %bf16) : f16[1, 6]");
  ir.op("%lr = edge.leaky_relu.default(%lb, negative_slope = 0.1) : f16[1, 6]");
  ir.op("%m = edge.mul.Tensor(%lr, %lb) : f16[1, 6]");
  ir.op("%y = edge.cast.default(%m, dtype = f32) : f32[1, 6]");
  ir.op("%z = edge.cast.default(%u, dtype = f32) : f32[1, 16, 8, 8]");
  const RunResult got = expect_matches(
      ir, {"y", "z"},
      {"conv", "relu", "max_pool", "add", "hardswish", "concat", "upsample_bilinear", "mean", "matmul", "leaky_relu",
       "mul"},
      3e-2, "xnnpack");
  // The casts stay on the portable kernels; everything between them is one delegate.
  EXPECT_EQ(got.portable, 3u);
}

}  // namespace
}  // namespace edgec

// The xnnpack delegate in f16: programs whose f32 inputs and constants are
// cast to f16 (the constants' casts folded at compile time, so the
// delegate sees f16 weights), computed in f16 by XNNPACK's f16 operators
// where the instruction set has float16 arithmetic, in f32 inside the
// delegate elsewhere (every x86-64 CPU, a Cortex-A53/A72, EDGEC_ISA=neon),
// and cast back. Compared with the portable kernels' f16 results within
// f16's precision.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "backends/delegate_harness.h"
#include "kernels/isa.h"

namespace edgec {
namespace {

// `name16` = `name` cast to f16 (shape as given).
void half(Ir& ir, const std::string& name, const std::vector<int64_t>& shape) {
  ir.op("%" + name + "16 = edge.cast.default(%" + name + ", dtype = f16) : f16" + shape_str(shape));
}

constexpr const char* kAsF32 = " (f16 as f32)";

size_t count_if_name(const std::vector<std::string>& steps, const std::function<bool(const std::string&)>& pred) {
  return static_cast<size_t>(std::count_if(steps.begin(), steps.end(), pred));
}

bool ends_with_as_f32(const std::string& name) { return name.ends_with(kAsF32); }

// Which path the delegate took, from its step names: natively in f16 only
// where the instruction set has float16 arithmetic; in f32 otherwise, every
// step between the edge conversions named so, `inputs` widenings of the
// f16 inputs before them and `outputs` narrowings after.
void expect_f16_path(const RunResult& got, size_t inputs, size_t outputs) {
  const bool as_f32 = !kernel_isa_has_f16_arithmetic();
#if defined(__x86_64__)
  EXPECT_TRUE(as_f32) << "x86-64 has no float16 arithmetic for XNNPACK to use";
#endif
  std::printf("[ xnnpack f16 path: %s (EDGEC_ISA choice %s) ]\n", as_f32 ? "f16 as f32" : "native f16",
              isa_name(kernel_isa()));
  const size_t widen = count_if_name(got.steps, [](const std::string& n) { return n == "f16 to f32 (input)"; });
  const size_t narrow = count_if_name(got.steps, [](const std::string& n) { return n == "f32 to f16 (output)"; });
  const size_t tagged = count_if_name(got.steps, ends_with_as_f32);
  std::string steps;
  for (const std::string& n : got.steps) steps += "\n  " + n;
  SCOPED_TRACE("steps:" + steps);
  if (as_f32) {
    EXPECT_EQ(widen, inputs);
    EXPECT_EQ(narrow, outputs);
    EXPECT_EQ(tagged, got.steps.size() - inputs - outputs);
    EXPECT_EQ(got.steps.front(), "f16 to f32 (input)");
    EXPECT_EQ(got.steps.back(), "f32 to f16 (output)");
  } else {
    EXPECT_EQ(widen + narrow + tagged, 0u);
  }
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
  // x16 in; m and u out.
  expect_f16_path(got, 1, 2);
  EXPECT_EQ(count_if_name(got.steps, [](const std::string& n) { return n.starts_with("conv+relu"); }), 1u);
}

// The same f16 program computed in f32 inside the delegate rounds to f16
// only at its edges, where the portable kernels round at every operator's
// output: the two differ by a few f16 ulps after a chain of operators, so
// they are compared within a tolerance, not exactly. A dilated, grouped
// 1-D convolution and a 1-D transposed one take the same path, and so does a view of a delegate
// input that is a delegate output (narrowed from the widened input).
TEST(XnnpackF16, EdgesAndConv1d) {
  Ir ir;
  ir.input("x", {2, 6, 20}).constant("w", {8, 3, 3}, -0.5f, 0.5f).constant("b", {8});
  ir.constant("wt", {8, 4, 2}, -0.5f, 0.5f);
  half(ir, "x", {2, 6, 20});
  half(ir, "w", {8, 3, 3});
  half(ir, "b", {8});
  half(ir, "wt", {8, 4, 2});
  ir.op("%c = edge.conv.default(%x16, %w16, %b16, padding = [2], dilation = [2], groups = 2) : f16[2, 8, 20]");
  ir.op("%r = edge.clamp.default(%c, min = -1.0, max = 1.0) : f16[2, 8, 20]");
  ir.op("%s = edge.add.Tensor(%r, %r) : f16[2, 8, 20]");
  ir.op("%v = edge.reshape.default(%x16, shape = [12, 20]) : f16[12, 20]");
  ir.op("%t = edge.conv_transpose.default(%s, %wt16, stride = [2]) : f16[2, 4, 40]");
  ir.op("%y = edge.cast.default(%t, dtype = f32) : f32[2, 4, 40]");
  ir.op("%z = edge.cast.default(%v, dtype = f32) : f32[12, 20]");
  const RunResult got = expect_matches(ir, {"y", "z"}, {"conv", "clamp", "add", "conv_transpose", "reshape"}, 3e-2, "xnnpack");
  EXPECT_EQ(got.portable, 3u);
  // Two delegates (the reshape of x16 is one of its own): x16 in twice, y's and z's f16 out.
  expect_f16_path(got, 2, 2);
}

}  // namespace
}  // namespace edgec

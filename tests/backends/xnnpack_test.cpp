// The xnnpack backend end to end: each operator of its table as a small
// edge program, compiled with --backends xnnpack and with none (the
// portable kernels), run through the runtime, outputs compared; then what
// the delegate does with them (grouped and depthwise convolutions, fused
// clamps and biases, fully connected layers over batch dims, activations
// kept in NHWC from step to step, one and two threads), and the
// partitioner's refusal reasons, one per cause.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "backends/delegate_harness.h"
#include "backends/xnnpack/compiler.h"
#include "backends/xnnpack/op_table.h"

namespace edgec {
namespace {

RunResult expect_xnnpack(const Ir& ir, const std::vector<std::string>& outputs,
                         const std::vector<std::string>& delegated, double tol = 1e-4, int threads = 2) {
  return expect_matches(ir, outputs, delegated, tol, "xnnpack", threads);
}

size_t count(const std::vector<std::string>& names, const std::string& name) {
  return static_cast<size_t>(std::count(names.begin(), names.end(), name));
}

// ---- the operator table -------------------------------------------------------------------

// A sample program (TableSample, delegate_harness.h) per row of the
// delegate's operator table (backends/xnnpack/op_table.cpp). A row without a
// sample fails the test, so an operator cannot enter the table untested.
std::map<std::string, TableSample> table_samples() {
  std::map<std::string, TableSample> s;
  // 2-D, and 1-D (%y1, as 2-D over an image of height 1).
  s["conv"] = {[](Ir& ir) {
    ir.input("x", {1, 4, 9, 9}).constant("w", {6, 4, 3, 3}).constant("b", {6});
    ir.op("%y = edge.conv.default(%x, %w, %b, stride = [2, 2], padding = [1, 1]) : f32[1, 6, 5, 5]");
    ir.input("x1", {2, 4, 15}).constant("w1", {6, 4, 3}).constant("b1", {6});
    ir.op("%y1 = edge.conv.default(%x1, %w1, %b1, stride = [2], padding = [1]) : f32[2, 6, 8]");
  }, 1e-4};
  // 2-D with output_padding, and 1-D (%y1).
  s["conv_transpose"] = {[](Ir& ir) {
    ir.input("x", {1, 4, 5, 6}).constant("w", {4, 3, 3, 3}).constant("b", {3});
    ir.op("%y = edge.conv_transpose.default(%x, %w, %b, stride = [2, 2], padding = [1, 1], output_padding = [1, 0]) "
          ": f32[1, 3, 10, 11]");
    ir.input("x1", {2, 4, 7}).constant("w1", {4, 6, 4});
    ir.op("%y1 = edge.conv_transpose.default(%x1, %w1, stride = [2], padding = [1]) : f32[2, 6, 14]");
  }, 1e-4};
  s["matmul"] = {[](Ir& ir) {
    ir.input("a", {2, 4, 5}).constant("w", {5, 6});
    ir.op("%y = edge.matmul.default(%a, %w) : f32[2, 4, 6]");
  }, 1e-4};
  for (const char* op : {"add", "sub", "mul", "div", "maximum", "minimum"}) s[op] = binary_sample(op);
  for (const char* op : {"relu", "elu", "sigmoid", "abs", "neg", "hardswish", "floor", "ceil", "round"})
    s[op] = unary_sample(std::string(op) + ".default(%x)");
  s["leaky_relu"] = unary_sample("leaky_relu.default(%x, negative_slope = 0.2)");
  s["clamp"] = unary_sample("clamp.default(%x, min = -0.5, max = 1.5)");
  s["sqrt"] = unary_sample("sqrt.default(%x)", 0.f, 4.f);
  s["softmax"] = one_call({2, 5, 7}, "softmax.default(%x, dim = -1) : f32[2, 5, 7]");
  s["max_pool"] = one_call({1, 3, 11, 11},
                           "max_pool.default(%x, kernel_size = [3, 3], stride = [2, 2], padding = [1, 1]) : "
                           "f32[1, 3, 6, 6]");
  s["avg_pool"] = one_call({1, 3, 11, 11},
                           "avg_pool.default(%x, kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], "
                           "count_include_pad = false) : f32[1, 3, 6, 6]");
  s["adaptive_avg_pool"] = one_call({1, 3, 8, 8}, "adaptive_avg_pool.default(%x, output_size = [2, 2]) : f32[1, 3, 2, 2]");
  s["mean"] = one_call({2, 5, 4, 3}, "mean.default(%x, dims = [2, 3], keepdim = true) : f32[2, 5, 1, 1]");
  s["upsample_bilinear"] = one_call({1, 3, 4, 5}, "upsample_bilinear.default(%x, output_size = [8, 10]) : f32[1, 3, 8, 10]");
  s["resize"] = one_call({1, 3, 4, 5},
                         "resize.default(%x, axes = [2, 3], output_size = [8, 10], mode = \"linear\", "
                         "coordinate_transformation_mode = \"align_corners\") : f32[1, 3, 8, 10]");
  s["concat"] = {[](Ir& ir) {
    ir.input("x", {2, 3, 4}).input("z", {2, 5, 4});
    ir.op("%y = edge.concat.default([%x, %z], dim = 1) : f32[2, 8, 4]");
  }};
  // Integer operators (runtime_quant.cpp; xnnpack_int8_test.cpp has the
  // shapes and the pairings of types): exact. A u8 input with i8
  // per-channel weights (qc8, the input flipped) and an i8 one with i8
  // weights and a zero point (qu8, all flipped).
  s["qlinear_conv"] = {[](Ir& ir) {
    ir.input("x", {1, 8, 6, 6}, 0.f, 255.f, DType::UInt8);
    std::vector<int64_t> w(8 * 8 * 9);
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int64_t>((i * 37) % 255) - 127;  // qc8: no -128
    ir.float_constant("xs", {}, {0.02f}).int_constant("xz", DType::UInt8, {}, {120});
    ir.int_constant("w", DType::Int8, {8, 8, 3, 3}, w).float_constant("ws", {8}, {0.01f, 0.02f, 0.003f, 0.004f,
                                                                                  0.005f, 0.006f, 0.007f, 0.008f});
    ir.int_constant("wz", DType::Int8, {8}, std::vector<int64_t>(8, 0)).float_constant("ys", {}, {0.3f});
    ir.int_constant("yz", DType::UInt8, {}, {10}).int_constant("b", DType::Int32, {8}, {5, -5, 50, -50, 500, -500, 0, 1});
    ir.op("%y = edge.qlinear_conv.default(%x, %xs, %xz, %w, %ws, %wz, %ys, %yz, %b, stride = [1, 1], padding = [1, 1, 1, "
          "1], dilation = [1, 1], groups = 1) : u8[1, 8, 6, 6]");
  }, 0};
  s["qlinear_matmul"] = {[](Ir& ir) {
    ir.input("a", {2, 3, 16}, -128.f, 127.f, DType::Int8);
    std::vector<int64_t> b(16 * 8);
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int64_t>((i * 53) % 256) - 128;
    ir.float_constant("as", {}, {0.05f}).int_constant("az", DType::Int8, {}, {-3});
    ir.int_constant("b", DType::Int8, {16, 8}, b).float_constant("bs", {}, {0.01f});
    ir.int_constant("bz", DType::Int8, {}, {5}).float_constant("ys", {}, {0.4f}).int_constant("yz", DType::Int8, {}, {4});
    ir.op("%y = edge.qlinear_matmul.default(%a, %as, %az, %b, %bs, %bz, %ys, %yz) : i8[2, 3, 8]");
  }, 0};
  add_view_samples(s);
  return s;
}

TEST(XnnpackTable, EveryOperatorIsBuiltAndMatchesThePortableKernel) {
  std::vector<std::string> rows;
  for (const xnnpack::OpRow& row : xnnpack::op_table()) rows.emplace_back(row.name);
  // Each sample with its tolerance: 1e-4 for conv and matmul, which XNNPACK sums in another order.
  expect_every_row_matches(rows, table_samples(), "xnnpack", [](const std::string& op) {
    return op == "conv" || op == "conv_transpose" ? std::vector<std::string>{"y", "y1"} : std::vector<std::string>{"y"};
  });
}

// ---- what the delegate does ---------------------------------------------------------------

// Grouped (2 groups of 3 input channels, 3x3 dilated, asymmetric padding)
// and depthwise (one input channel per group, two outputs each) convolutions.
TEST(Xnnpack, GroupedAndDepthwiseConv) {
  Ir ir;
  ir.input("x", {2, 6, 9, 8}).constant("wg", {4, 3, 3, 3}).constant("bg", {4});
  ir.constant("wd", {12, 1, 3, 3}).constant("bd", {12});
  ir.op("%g = edge.conv.default(%x, %wg, %bg, padding = [1, 0, 0, 1], dilation = [2, 1], groups = 2) : "
        "f32[2, 4, 6, 7]");
  ir.op("%d = edge.conv.default(%x, %wd, %bd, stride = [2, 2], padding = [1, 1], groups = 6) : f32[2, 12, 5, 4]");
  expect_xnnpack(ir, {"g", "d"}, {"conv"});
}

// 1-D convolutions (N, C, L) as 2-D ones of height 1: grouped (2 groups of
// 3 input channels) and dilated with asymmetric padding and a fused relu,
// depthwise (two outputs per channel) and pointwise after it; the NLC
// values go from step to step (an add with a per-channel constant, a
// concat on channels) with one conversion in and none between. (The table
// walk's sample has a strided one.)
TEST(Xnnpack, Conv1d) {
  Ir ir;
  ir.input("x", {2, 6, 23}).constant("wg", {4, 3, 3}).constant("bg", {4});
  ir.constant("wd", {12, 1, 5}).constant("wp", {4, 12, 1}).constant("k", {4, 1});
  ir.op("%g = edge.conv.default(%x, %wg, %bg, padding = [3, 1], dilation = [2], groups = 2) : f32[2, 4, 23]");
  ir.op("%r = edge.relu.default(%g) : f32[2, 4, 23]");
  ir.op("%d = edge.conv.default(%x, %wd, padding = [2], groups = 6) : f32[2, 12, 23]");
  ir.op("%p = edge.conv.default(%d, %wp) : f32[2, 4, 23]");
  ir.op("%a = edge.add.Tensor(%p, %k) : f32[2, 4, 23]");
  ir.op("%y = edge.concat.default([%r, %a], dim = 1) : f32[2, 8, 23]");
  const RunResult got = expect_xnnpack(ir, {"y"}, {"conv", "add", "concat"});
  EXPECT_EQ(got.portable, 0u);
  EXPECT_EQ(count(got.steps, "conv+relu"), 1u);
  EXPECT_EQ(count(got.steps, "nchw to nhwc"), 1u) << ::testing::PrintToString(got.steps);
  EXPECT_EQ(count(got.steps, "nhwc to nchw"), 0u);
}

// Transposed convolutions, 1-D and 2-D: grouped (2 groups) and dilated
// with output_padding below the stride, and depthwise with a fused relu.
TEST(Xnnpack, ConvTranspose) {
  Ir ir;
  ir.input("x", {2, 6, 9}).constant("wg", {6, 2, 3}).constant("bg", {4});
  ir.input("z", {1, 4, 5, 4}).constant("wd", {4, 1, 4, 4}).constant("bd", {4});
  ir.op("%g = edge.conv_transpose.default(%x, %wg, %bg, stride = [3], padding = [2], output_padding = [1], "
        "dilation = [2], groups = 2) : f32[2, 4, 26]");
  ir.op("%d = edge.conv_transpose.default(%z, %wd, %bd, stride = [2, 2], padding = [1, 1], groups = 4) : "
        "f32[1, 4, 10, 8]");
  ir.op("%r = edge.relu.default(%d) : f32[1, 4, 10, 8]");
  const RunResult got = expect_xnnpack(ir, {"g", "r"}, {"conv_transpose"});
  EXPECT_EQ(got.portable, 0u);
  EXPECT_EQ(count(got.steps, "conv_transpose+relu"), 1u);
}

// A relu and a clamp after a convolution, a linear layer's bias add and
// ReLU6 after its matmul: each one operator with the range as its output
// range (the step names say what was fused).
TEST(Xnnpack, FusedActivation) {
  Ir ir;
  ir.input("x", {1, 3, 8, 8}).constant("w", {4, 3, 3, 3}).constant("b", {4});
  ir.input("v", {3, 5}).constant("m", {5, 6}).constant("c", {6});
  ir.op("%c1 = edge.conv.default(%x, %w, %b, padding = [1, 1]) : f32[1, 4, 8, 8]");
  ir.op("%r1 = edge.relu.default(%c1) : f32[1, 4, 8, 8]");
  ir.op("%y = edge.clamp.default(%r1, max = 0.5) : f32[1, 4, 8, 8]");
  ir.op("%mm = edge.matmul.default(%v, %m) : f32[3, 6]");
  ir.op("%a = edge.add.Tensor(%mm, %c) : f32[3, 6]");
  ir.op("%z = edge.clamp.default(%a, min = 0.0, max = 6.0) : f32[3, 6]");
  const RunResult got = expect_xnnpack(ir, {"y", "z"}, {"conv", "relu", "clamp", "matmul", "add"});
  EXPECT_EQ(count(got.steps, "conv+relu+clamp"), 1u);
  EXPECT_EQ(count(got.steps, "fully_connected+add+clamp"), 1u);
}

// A value read twice is not folded into its producer: the relu reads the
// conv's result, which is also a delegate output.
TEST(Xnnpack, NoFusionIntoAValueReadElsewhere) {
  Ir ir;
  ir.input("x", {1, 3, 6, 6}).constant("w", {4, 3, 1, 1});
  ir.op("%c = edge.conv.default(%x, %w) : f32[1, 4, 6, 6]");
  ir.op("%r = edge.relu.default(%c) : f32[1, 4, 6, 6]");
  const RunResult got = expect_xnnpack(ir, {"c", "r"}, {"conv", "relu"});
  EXPECT_EQ(count(got.steps, "conv"), 1u);
  EXPECT_EQ(count(got.steps, "relu"), 1u);
}

// Fully connected over batch dims: [2, 3, 4, 5] x [5, 7] is 24 rows of 5;
// a 1-D input is one row.
TEST(Xnnpack, FullyConnectedWithBatchDims) {
  Ir ir;
  ir.input("a", {2, 3, 4, 5}).constant("w", {5, 7}).input("v", {5}).constant("b", {7});
  ir.op("%p = edge.matmul.default(%a, %w) : f32[2, 3, 4, 7]");
  ir.op("%q = edge.matmul.default(%v, %w) : f32[7]");
  ir.op("%s = edge.add.Tensor(%q, %b) : f32[7]");
  const RunResult got = expect_xnnpack(ir, {"p", "s"}, {"matmul", "add"});
  EXPECT_EQ(got.portable, 0u);
  EXPECT_EQ(count(got.steps, "fully_connected+add"), 1u);
}

// A small CNN (conv, relu, max pool, conv, residual add with a
// per-channel constant, resize, concat on channels, global mean, flatten,
// linear, softmax) converts its input to NHWC once and back for nothing
// but the linear layer's input (one pixel: no conversion at all).
TEST(Xnnpack, NhwcAcrossConsecutiveSteps) {
  Ir ir;
  ir.input("x", {2, 3, 16, 16}).constant("w1", {8, 3, 3, 3}).constant("b1", {8}).constant("w2", {8, 8, 3, 3});
  ir.constant("s", {8, 1, 1}).constant("wf", {16, 10}).constant("bf", {10});
  ir.op("%c1 = edge.conv.default(%x, %w1, %b1, padding = [1, 1]) : f32[2, 8, 16, 16]");
  ir.op("%r1 = edge.relu.default(%c1) : f32[2, 8, 16, 16]");
  ir.op("%p = edge.max_pool.default(%r1, kernel_size = [2, 2], stride = [2, 2]) : f32[2, 8, 8, 8]");
  ir.op("%c2 = edge.conv.default(%p, %w2, padding = [1, 1]) : f32[2, 8, 8, 8]");
  ir.op("%m = edge.mul.Tensor(%c2, %s) : f32[2, 8, 8, 8]");
  ir.op("%a = edge.add.Tensor(%m, %p) : f32[2, 8, 8, 8]");
  ir.op("%u = edge.upsample_bilinear.default(%a, output_size = [16, 16]) : f32[2, 8, 16, 16]");
  ir.op("%k = edge.concat.default([%u, %r1], dim = 1) : f32[2, 16, 16, 16]");
  ir.op("%g = edge.mean.default(%k, dims = [2, 3], keepdim = true) : f32[2, 16, 1, 1]");
  ir.op("%f = edge.flatten.default(%g, start_dim = 1) : f32[2, 16]");
  ir.op("%l = edge.matmul.default(%f, %wf) : f32[2, 10]");
  ir.op("%b = edge.add.Tensor(%l, %bf) : f32[2, 10]");
  ir.op("%y = edge.softmax.default(%b, dim = -1) : f32[2, 10]");
  const RunResult got = expect_xnnpack(ir, {"y"}, {"conv", "max_pool", "mean", "matmul", "softmax"});
  EXPECT_EQ(got.portable, 0u);
  EXPECT_EQ(count(got.steps, "nchw to nhwc"), 1u);
  EXPECT_EQ(count(got.steps, "nhwc to nchw"), 0u);
}

// An NHWC value a plain step reads is converted back once, however many
// such steps read it; a delegate output held in NHWC is converted as it is
// copied out.
TEST(Xnnpack, NhwcToPlainOncePerValue) {
  Ir ir;
  ir.input("x", {1, 3, 6, 6}).constant("w", {4, 3, 3, 3});
  ir.op("%c = edge.conv.default(%x, %w, padding = [1, 1]) : f32[1, 4, 6, 6]");
  ir.op("%s1 = edge.softmax.default(%c, dim = -1) : f32[1, 4, 6, 6]");
  ir.op("%s2 = edge.reshape.default(%c, shape = [4, 36]) : f32[4, 36]");
  ir.op("%s3 = edge.softmax.default(%s2, dim = -1) : f32[4, 36]");
  ir.op("%y = edge.relu.default(%c) : f32[1, 4, 6, 6]");
  const RunResult got = expect_xnnpack(ir, {"s1", "s3", "y"}, {"conv", "softmax", "relu"});
  EXPECT_EQ(count(got.steps, "nhwc to nchw"), 1u);
}

// Softmax over the channels of a rank-4 value runs in NHWC, where they are
// the last axis.
TEST(Xnnpack, SoftmaxOverChannels) {
  Ir ir;
  ir.input("x", {2, 5, 3, 4}, -4.f, 4.f);
  ir.op("%y = edge.softmax.default(%x, dim = 1) : f32[2, 5, 3, 4]");
  const RunResult got = expect_xnnpack(ir, {"y"}, {"softmax"});
  EXPECT_EQ(count(got.steps, "nchw to nhwc"), 1u);
}

// Pooling in ceil mode (extra right padding), dilated max pooling, and an
// average pooling without padding that counts it (nothing to count).
TEST(Xnnpack, PoolingGeometry) {
  Ir ir;
  ir.input("x", {1, 3, 11, 11});
  ir.op("%c = edge.max_pool.default(%x, kernel_size = [2, 2], stride = [2, 2], ceil_mode = true) : f32[1, 3, 6, 6]");
  ir.op("%d = edge.max_pool.default(%x, kernel_size = [2, 2], stride = [1, 1], dilation = [2, 2]) : f32[1, 3, 9, 9]");
  ir.op("%e = edge.avg_pool.default(%x, kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], count_include_pad = "
        "false, ceil_mode = true) : f32[1, 3, 6, 6]");
  ir.op("%a = edge.avg_pool.default(%x, kernel_size = [3, 3], stride = [2, 2]) : f32[1, 3, 5, 5]");
  ir.op("%g = edge.adaptive_avg_pool.default(%x, output_size = [1, 1]) : f32[1, 3, 1, 1]");
  expect_xnnpack(ir, {"c", "d", "e", "a", "g"}, {"max_pool", "avg_pool", "adaptive_avg_pool"});
}

// Broadcasting binary operators in NHWC: a per-channel constant, a [C, 1, 1]
// input, a scalar, and a rank-4 operand broadcast along H.
TEST(Xnnpack, BinaryBroadcastInNhwc) {
  Ir ir;
  ir.input("x", {2, 4, 5, 6}).constant("w", {4, 4, 1, 1}).input("k", {4, 1, 1}).input("h", {2, 4, 1, 6});
  ir.constant("one", {1});
  ir.op("%c = edge.conv.default(%x, %w) : f32[2, 4, 5, 6]");
  ir.op("%a = edge.sub.Tensor(%c, %k) : f32[2, 4, 5, 6]");
  ir.op("%b = edge.div.Tensor(%a, %one) : f32[2, 4, 5, 6]");
  ir.op("%y = edge.maximum.Tensor(%h, %b) : f32[2, 4, 5, 6]");
  const RunResult got = expect_xnnpack(ir, {"y"}, {"conv", "sub", "div", "maximum"});
  EXPECT_EQ(got.portable, 0u);
}

// One and two threads compute the same, and match the portable kernels.
TEST(Xnnpack, OneAndTwoThreads) {
  Ir ir;
  ir.input("x", {2, 8, 12, 12}).constant("w", {16, 8, 3, 3}).constant("b", {16}).constant("wf", {16, 5});
  ir.op("%c = edge.conv.default(%x, %w, %b, padding = [1, 1]) : f32[2, 16, 12, 12]");
  ir.op("%r = edge.relu.default(%c) : f32[2, 16, 12, 12]");
  ir.op("%g = edge.mean.default(%r, dims = [2, 3]) : f32[2, 16]");
  ir.op("%y = edge.matmul.default(%g, %wf) : f32[2, 5]");
  const RunResult one = expect_xnnpack(ir, {"r", "y"}, {"conv", "mean", "matmul"}, 1e-4, 1);
  const RunResult two = expect_xnnpack(ir, {"r", "y"}, {"conv", "mean", "matmul"}, 1e-4, 2);
  expect_outputs_match(one, two, compare::Tolerance::either(1e-5, 1e-5), {"r", "y"});
}

// ---- refusals -------------------------------------------------------------------------------

// The partitioner's reason for the first call of `text` (nullopt: taken).
std::optional<std::string> reason_for(const std::string& text) {
  return first_call_refusal(xnnpack_backend_compiler(), text);
}

// torch takes an output_padding below the stride or the dilation,
// XNNPACK only below the stride.
TEST(Xnnpack, RefusesConvTransposeOutputPaddingFromDilation) {
  Ir ir;
  ir.input("x", {1, 4, 5}).constant("w", {4, 2, 3});
  ir.op("%y = edge.conv_transpose.default(%x, %w, stride = [2], output_padding = [2], dilation = [3]) : f32[1, 2, 17]");
  EXPECT_EQ(first_call_refusal(xnnpack_backend_compiler(), ir.text({"y"})),
            "conv_transpose output_padding not below its stride (XNNPACK's adjustment)");
  expect_xnnpack(ir, {"y"}, {});
}

TEST(Xnnpack, RefusalReasons) {
  EXPECT_EQ(reason_for(one_op("x:f32[batch, 3]", "%y = edge.relu.default(%x) : f32[batch, 3]")),
            "dynamic shape: dim batch of input 0");
  EXPECT_EQ(reason_for(one_op("x:f32[?<=4, 3]", "%y = edge.relu.default(%x) : f32[?<=4, 3]")),
            "dynamic shape: dim ?<=4 of input 0");
  EXPECT_EQ(reason_for(one_op("x:f64[2, 3]", "%y = edge.relu.default(%x) : f64[2, 3]")), "dtype f64 of input 0");
  // This XNNPACK has no f16 sigmoid; it has an f16 relu (a clamp).
  EXPECT_EQ(reason_for(one_op("x:f16[2, 3]", "%y = edge.sigmoid.default(%x) : f16[2, 3]")), "dtype f16 of input 0");
  EXPECT_EQ(reason_for(one_op("x:f16[2, 3]", "%y = edge.relu.default(%x) : f16[2, 3]")), std::nullopt);
  EXPECT_EQ(reason_for(one_op("x:f32[2, 3]", "%y = edge.sin.default(%x) : f32[2, 3]")),
            "operator sin is not supported by XNNPACK");
  EXPECT_EQ(reason_for(one_op("x:f32[1, 3, 8, 8]; w:f32[4, 3, 3, 3]",
                              "%y = edge.conv.default(%x, %w) : f32[1, 4, 6, 6]")),
            "conv weights (input 1) are not a constant (XNNPACK packs them at init)");
  EXPECT_EQ(reason_for(one_op("x:f32[2, 5]; w:f32[5, 3]", "%y = edge.matmul.default(%x, %w) : f32[2, 3]")),
            "matmul weights (input 1) are not a constant (XNNPACK packs them at init)");
  EXPECT_EQ(reason_for(one_op("x:f32[1, 3, 4, 4, 4]; w:f32[4, 3, 3, 3, 3]",
                              "%y = edge.conv.default(%x, %w) : f32[1, 4, 2, 2, 2]")),
            "conv of a rank-5 input (XNNPACK's convolutions are 2-D, or 1-D as 2-D)");
  EXPECT_EQ(reason_for(one_op("x:f32[2, 5, 7]", "%y = edge.softmax.default(%x, dim = 1) : f32[2, 5, 7]")),
            "softmax along dim 1 of rank 3 (XNNPACK's is over the last axis, or channels)");
  EXPECT_EQ(reason_for(one_op("x:f32[1, 3, 8, 8]",
                              "%y = edge.avg_pool.default(%x, kernel_size = [3, 3], padding = [1, 1]) : "
                              "f32[1, 3, 2, 2]")),
            "avg_pool counting its padding (XNNPACK's average leaves padding out)");
  EXPECT_EQ(reason_for(one_op("x:f32[1, 3, 4, 4]",
                              "%y = edge.resize.default(%x, axes = [2, 3], output_size = [8, 8]) : f32[1, 3, 8, 8]")),
            "resize mode nearest (XNNPACK resizes bilinearly only)");
  EXPECT_EQ(reason_for(one_op("x:f32[2, 3, 4, 5]", "%y = edge.mean.default(%x, dims = [1]) : f32[2, 4, 5]")),
            "mean over other dims than H and W of a rank-4 value (XNNPACK's global average pooling)");
  EXPECT_EQ(reason_for(one_op("x:f32[2, 3]; z:f16[2, 3]", "%y = edge.add.Tensor(%x, %z) : f32[2, 3]")),
            "mixed dtypes f32 and f16");
}

}  // namespace
}  // namespace edgec

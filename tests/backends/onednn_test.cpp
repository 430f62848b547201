// The onednn backend end to end: each operator family as a small edge
// program, compiled with --backends onednn and with none (the portable
// kernels), run through the runtime, outputs compared within 1e-5
// relative; each checks that the operators meant for oneDNN were delegated.
// Then the partitioner's refusal reasons, one per cause. Fusions and stored
// weights: onednn_fusion_test.cpp; wide graphs and the buffer plan:
// onednn_wide_test.cpp.
#include <gtest/gtest.h>
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "compiler/backends.h"
#include "backends/onednn/compiler.h"
#include "backends/onednn/op_table.h"
#include "backends/onednn/runtime_state.h"
#include "base/diagnostic.h"
#include "ir/text.h"
#include "lowering/backend.h"
#include "compiler/pass_registry.h"
#include "compiler/pipeline.h"
#include "passes/pipeline.h"
#include "runtime/method.h"
#include "serialize/writer.h"
#include "support/aligned_bytes.h"
#include "support/compare.h"
#include "backends/delegate_harness.h"

namespace edgec {
namespace {

// ---- per family ---------------------------------------------------------------------------

// 2-D conv with bias, stride, padding, then relu; a grouped dilated conv
// with asymmetric padding and no bias.
TEST(Onednn, Conv2d) {
  Ir ir;
  ir.input("x", {2, 4, 9, 9}).constant("w", {6, 4, 3, 3}).constant("b", {6}).constant("w2", {6, 3, 3, 2});
  ir.op("%c = edge.conv.default(%x, %w, %b, stride = [2, 2], padding = [1, 1]) : f32[2, 6, 5, 5]");
  ir.op("%r = edge.relu.default(%c) : f32[2, 6, 5, 5]");
  ir.op("%g = edge.conv.default(%r, %w2, padding = [1, 0, 0, 1], dilation = [2, 1], groups = 2) : f32[2, 6, 2, 5]");
  expect_matches(ir, {"r", "g"}, {"conv", "relu"});
}

// 1-D conv; conv with weights computed in the graph (read in place).
TEST(Onednn, Conv1dAndComputedWeights) {
  Ir ir;
  ir.input("x", {1, 3, 16}).input("w", {5, 3, 4}).constant("b", {5});
  ir.op("%c = edge.conv.default(%x, %w, %b, stride = [3], padding = [2]) : f32[1, 5, 6]");
  expect_matches(ir, {"c"}, {"conv"});
}

// 1-D convolutions with constant weights run on conv1d_gemm (kernels/),
// with the chain fused: a per-channel affine, the residual add, an
// activation; the plain 2-D one next to it stays on oneDNN.
TEST(Onednn, Conv1dChains) {
  Ir ir;
  ir.input("x", {2, 12, 16}).constant("w1", {24, 12, 5}).constant("b1", {24}).constant("s", {24, 1}, 0.5f, 1.5f);
  ir.constant("w2", {24, 24, 3}).constant("ws", {24, 12, 1}).constant("w3", {12, 24, 3});
  ir.op("%c1 = edge.conv.default(%x, %w1, %b1, padding = [2]) : f32[2, 24, 16]");
  ir.op("%m1 = edge.mul.Tensor(%c1, %s) : f32[2, 24, 16]");
  ir.op("%r1 = edge.relu.default(%m1) : f32[2, 24, 16]");
  ir.op("%sc = edge.conv.default(%x, %ws) : f32[2, 24, 16]");
  ir.op("%c2 = edge.conv.default(%r1, %w2, padding = [1]) : f32[2, 24, 16]");
  ir.op("%o2 = edge.add.Tensor(%sc, %c2) : f32[2, 24, 16]");
  ir.op("%t2 = edge.tanh.default(%o2) : f32[2, 24, 16]");
  ir.op("%d = edge.conv.default(%t2, %w3, stride = [2], padding = [1], dilation = [2]) : f32[2, 12, 7]");
  // 1e-4: sums of up to 72 products of values up to 2, in another order
  // than the portable kernels'.
  const RunResult got = expect_matches(ir, {"t2", "d"}, {"conv", "mul", "add", "tanh"}, 1e-4);
  std::vector<std::string> steps = got.steps;
  std::sort(steps.begin(), steps.end());
  EXPECT_EQ(steps, (std::vector<std::string>{"conv (gemm)", "conv (gemm)", "conv+add+tanh (gemm)",
                                              "conv+mul+relu (gemm)"}));
}

// Transposed conv 2-D (stride 2, output padding) and 1-D.
TEST(Onednn, ConvTranspose) {
  Ir ir;
  ir.input("x", {1, 4, 5, 5}).constant("w", {4, 3, 3, 3}).constant("b", {3});
  ir.input("y", {2, 4, 7}).constant("w1", {4, 2, 4});
  ir.op("%t = edge.conv_transpose.default(%x, %w, %b, stride = [2, 2], padding = [1, 1], output_padding = [1, 1]) : "
        "f32[1, 3, 10, 10]");
  ir.op("%u = edge.conv_transpose.default(%y, %w1, stride = [2], padding = [1]) : f32[2, 2, 14]");
  expect_matches(ir, {"t", "u"}, {"conv_transpose"});
}

// Batched matmul with batch broadcasting on either side and 1-D operands.
TEST(Onednn, Matmul) {
  Ir ir;
  ir.input("a", {2, 3, 4, 5}).constant("w", {5, 6}).input("c", {3, 1, 4, 5}).input("d", {2, 5, 6});
  ir.input("v", {5}).input("m", {5, 3});
  ir.op("%p = edge.matmul.default(%a, %w) : f32[2, 3, 4, 6]");
  ir.op("%q = edge.matmul.default(%c, %d) : f32[3, 2, 4, 6]");
  ir.op("%r = edge.matmul.default(%v, %m) : f32[3]");
  ir.op("%s = edge.matmul.default(%a, %v) : f32[2, 3, 4]");
  expect_matches(ir, {"p", "q", "r", "s"}, {"matmul"});
}

// Every unary operator oneDNN eltwise takes, with its attributes.
TEST(Onednn, Unary) {
  struct Case {
    std::string op, attrs;
    float lo = -3.f, hi = 3.f;
  };
  const Case cases[] = {
      {"relu", ""},          {"leaky_relu", ", negative_slope = 0.2"}, {"elu", ", alpha = 0.7"},
      {"gelu", ""},          {"gelu", ", approximate = \"tanh\""},     {"tanh", ""},
      {"sigmoid", ""},       {"exp", ""},                              {"log", "", 0.1f, 4.f},
      {"sqrt", "", 0.f, 4.f}, {"rsqrt", "", 0.1f, 4.f},                {"reciprocal", "", 0.2f, 4.f},
      {"abs", ""},           {"neg", ""},                              {"mish", ""},
      {"hardswish", ""},     {"hardsigmoid", ""},                      {"softplus", ""},
      {"clamp", ", min = -0.5, max = 1.5"}, {"clamp", ", min = 0.25"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op + c.attrs);
    Ir ir;
    ir.input("x", {2, 3, 17}, c.lo, c.hi);
    ir.op("%y = edge." + c.op + ".default(%x" + c.attrs + ") : f32[2, 3, 17]");
    expect_matches(ir, {"y"}, {c.op});
  }
}

// Binary operators with numpy broadcasting, including a first operand
// smaller than the result (oneDNN only broadcasts the second).
TEST(Onednn, Binary) {
  for (const std::string op : {"add", "sub", "mul", "div", "maximum", "minimum"}) {
    SCOPED_TRACE(op);
    Ir ir;
    ir.input("a", {2, 1, 4}, 0.5f, 2.f).input("b", {3, 1}, 0.5f, 2.f).input("c", {2, 3, 4}, 0.5f, 2.f);
    ir.constant("k", {4}, 0.5f, 2.f);
    ir.op("%x = edge." + op + ".Tensor(%a, %b) : f32[2, 3, 4]");
    ir.op("%y = edge." + op + ".Tensor(%k, %c) : f32[2, 3, 4]");
    ir.op("%z = edge." + op + ".Tensor(%c, %k) : f32[2, 3, 4]");
    expect_matches(ir, {"x", "y", "z"}, {op});
  }
}

TEST(Onednn, Softmax) {
  Ir ir;
  ir.input("x", {2, 5, 7}, -5.f, 5.f);
  ir.op("%s = edge.softmax.default(%x, dim = 1) : f32[2, 5, 7]");
  ir.op("%l = edge.log_softmax.default(%x, dim = -1) : f32[2, 5, 7]");
  expect_matches(ir, {"s", "l"}, {"softmax", "log_softmax"});
}

// layer_norm over the last dim and over the last two; batch, instance and
// group norm with affine parameters.
TEST(Onednn, Normalization) {
  Ir ir;
  ir.input("x", {2, 6, 4, 5}, -3.f, 3.f).constant("w", {5}).constant("b", {5}).constant("w2", {4, 5});
  ir.constant("g", {6}, 0.5f, 1.5f).constant("bb", {6}).constant("mu", {6}).constant("var", {6}, 0.5f, 2.f);
  ir.op("%l = edge.layer_norm.default(%x, %w, %b, axis = -1, eps = 1.0e-5) : f32[2, 6, 4, 5]");
  ir.op("%l2 = edge.layer_norm.default(%x, %w2, axis = 2) : f32[2, 6, 4, 5]");
  ir.op("%n = edge.batch_norm.default(%x, %g, %bb, %mu, %var, eps = 1.0e-3) : f32[2, 6, 4, 5]");
  ir.op("%i = edge.instance_norm.default(%x, %g, %bb) : f32[2, 6, 4, 5]");
  ir.op("%gn = edge.group_norm.default(%x, %g, %bb, num_groups = 3) : f32[2, 6, 4, 5]");
  expect_matches(ir, {"l", "l2", "n", "i", "gn"}, {"layer_norm", "batch_norm", "instance_norm", "group_norm"});
}

// Pooling: padded max pool (ResNet's), ceil mode, dilation, average with
// and without padding counted, 1-D, and global adaptive average.
TEST(Onednn, Pooling) {
  Ir ir;
  ir.input("x", {1, 3, 11, 11}).input("y", {2, 3, 10});
  ir.op("%m = edge.max_pool.default(%x, kernel_size = [3, 3], stride = [2, 2], padding = [1, 1]) : f32[1, 3, 6, 6]");
  ir.op("%c = edge.max_pool.default(%x, kernel_size = [2, 2], stride = [2, 2], ceil_mode = true) : f32[1, 3, 6, 6]");
  ir.op("%d = edge.max_pool.default(%x, kernel_size = [2, 2], stride = [1, 1], dilation = [2, 2]) : f32[1, 3, 9, 9]");
  ir.op("%a = edge.avg_pool.default(%x, kernel_size = [3, 3], stride = [2, 2], padding = [1, 1]) : f32[1, 3, 6, 6]");
  ir.op("%e = edge.avg_pool.default(%x, kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], count_include_pad = "
        "false, ceil_mode = true) : f32[1, 3, 6, 6]");
  ir.op("%o = edge.max_pool.default(%y, kernel_size = [3], stride = [2]) : f32[2, 3, 4]");
  ir.op("%g = edge.adaptive_avg_pool.default(%x, output_size = [1, 1]) : f32[1, 3, 1, 1]");
  expect_matches(ir, {"m", "c", "d", "a", "e", "o", "g"}, {"max_pool", "avg_pool", "adaptive_avg_pool"});
}

// 3-d (NCDHW): conv with bias, stride and padding, then relu; a grouped
// dilated conv with asymmetric padding; max pooling; average pooling in
// ceil mode without the padding counted, and padded with it; a transposed
// conv; max pooling of a plain input of 8 channels (read reordered to the
// blocked layout). oneDNN has all of them for ncdhw, in the layouts it
// picks.
TEST(Onednn, Conv3dAndPooling3d) {
  Ir ir;
  ir.input("x", {1, 4, 6, 7, 8}).input("z", {2, 8, 5, 6, 7}).constant("w", {8, 4, 3, 3, 3}).constant("b", {8});
  ir.constant("wg", {8, 4, 2, 3, 2}).constant("wt", {8, 4, 2, 2, 2}).constant("bt", {4});
  ir.op("%c = edge.conv.default(%x, %w, %b, stride = [1, 2, 1], padding = [1, 1, 1]) : f32[1, 8, 6, 4, 8]");
  ir.op("%r = edge.relu.default(%c) : f32[1, 8, 6, 4, 8]");
  ir.op("%g = edge.conv.default(%r, %wg, padding = [1, 0, 1, 0, 1, 0], dilation = [2, 1, 1], groups = 2) : "
        "f32[1, 8, 5, 3, 8]");
  ir.op("%m = edge.max_pool.default(%r, kernel_size = [3, 3, 3], stride = [2, 2, 2], padding = [1, 1, 1]) : "
        "f32[1, 8, 3, 2, 4]");
  ir.op("%a = edge.avg_pool.default(%r, kernel_size = [3, 2, 3], stride = [2, 2, 2], ceil_mode = true, "
        "count_include_pad = false) : f32[1, 8, 3, 2, 4]");
  ir.op("%p = edge.avg_pool.default(%r, kernel_size = [3, 3, 3], stride = [1, 1, 1], padding = [1, 1, 1]) : "
        "f32[1, 8, 6, 4, 8]");
  ir.op("%t = edge.conv_transpose.default(%m, %wt, %bt, stride = [2, 2, 2]) : f32[1, 4, 6, 4, 8]");
  ir.op("%q = edge.max_pool.default(%z, kernel_size = [2, 3, 2], stride = [2, 1, 2], ceil_mode = true) : "
        "f32[2, 8, 3, 4, 4]");
  // 1e-4: sums of 108 products in another order than the portable kernels'.
  const RunResult got = expect_matches(ir, {"r", "g", "m", "a", "p", "t", "q"},
                                       {"conv", "relu", "max_pool", "avg_pool", "conv_transpose"}, 1e-4);
  EXPECT_EQ(got.portable, 0u);
}

// Average pooling with dilation (ONNX AveragePool's): padding counted or
// not, and in ceil mode.
TEST(Onednn, DilatedAveragePooling) {
  Ir ir;
  ir.input("x", {1, 3, 11, 11}).input("y", {2, 3, 5, 6, 7});
  ir.op("%a = edge.avg_pool.default(%x, kernel_size = [3, 3], stride = [2, 2], padding = [2, 2], dilation = [2, 2]) : "
        "f32[1, 3, 6, 6]");
  ir.op("%e = edge.avg_pool.default(%x, kernel_size = [3, 3], stride = [2, 2], padding = [2, 2], dilation = [2, 2], "
        "count_include_pad = false) : f32[1, 3, 6, 6]");
  ir.op("%c = edge.avg_pool.default(%x, kernel_size = [2, 2], stride = [3, 3], dilation = [3, 3], ceil_mode = true, "
        "count_include_pad = false) : f32[1, 3, 4, 4]");
  ir.op("%v = edge.avg_pool.default(%y, kernel_size = [2, 3, 2], stride = [1, 2, 2], padding = [1, 1, 0, 0, 1, 1], "
        "dilation = [2, 1, 2], count_include_pad = false) : f32[2, 3, 4, 3, 3]");
  expect_matches(ir, {"a", "e", "c", "v"}, {"avg_pool"});
}

TEST(Onednn, Reductions) {
  Ir ir;
  ir.input("x", {2, 3, 4}, 0.5f, 1.5f);
  ir.op("%s = edge.sum.default(%x, dims = [1]) : f32[2, 4]");
  ir.op("%m = edge.mean.default(%x, dims = [-1], keepdim = true) : f32[2, 3, 1]");
  ir.op("%a = edge.amax.default(%x, dims = [0, 2]) : f32[3]");
  ir.op("%i = edge.amin.default(%x) : f32[]");
  ir.op("%p = edge.prod.default(%x, dims = [2]) : f32[2, 3]");
  expect_matches(ir, {"s", "m", "a", "i", "p"}, {"sum", "mean", "amax", "amin", "prod"});
}

// Layout operators: reorders over strided views, copies, broadcasting.
TEST(Onednn, ShapeOperators) {
  Ir ir;
  ir.input("x", {2, 3, 4}).input("y", {2, 5, 4});
  ir.op("%c = edge.concat.default([%x, %y], dim = 1) : f32[2, 8, 4]");
  ir.op("%p = edge.permute.default(%c, dims = [2, 0, 1]) : f32[4, 2, 8]");
  ir.op("%r = edge.reshape.default(%p, shape = [8, 8]) : f32[8, 8]");
  ir.op("%s = edge.slice.default(%r, dims = [0, 1], starts = [1, -6], ends = [8, 8], steps = [2, 1]) : f32[4, 6]");
  ir.op("%t = edge.select.default(%c, dim = 1, index = -2) : f32[2, 4]");
  ir.op("%a, %b = edge.split.default(%c, dim = 1, sizes = [3, 5]) : f32[2, 3, 4], f32[2, 5, 4]");
  ir.op("%u = edge.unsqueeze.default(%t, dims = [0]) : f32[1, 2, 4]");
  ir.op("%e = edge.expand.default(%u, shape = [3, 2, 4]) : f32[3, 2, 4]");
  expect_matches(ir, {"s", "t", "a", "b", "e"}, {"concat", "permute", "slice", "select", "split", "expand"});
}

// Views that are one contiguous run are copied with memcpy (a slice of
// outer rows, a select on the outermost dim; a size-1 dim's stride does
// not matter), or not copied when they are the whole input; the others
// are oneDNN reorders (split has a loop of its own).
TEST(Onednn, ContiguousViewsAreCopies) {
  Ir ir;
  ir.input("x", {6, 1, 5, 8});
  ir.op("%s = edge.slice.default(%x, dims = [0], starts = [2], ends = [5]) : f32[3, 1, 5, 8]");
  ir.op("%a, %b = edge.split.default(%x, dim = 2, sizes = [2, 3]) : f32[6, 1, 2, 8], f32[6, 1, 3, 8]");
  ir.op("%t = edge.select.default(%x, dim = 0, index = -1) : f32[1, 5, 8]");
  ir.op("%u = edge.slice.default(%x, dims = [2], starts = [1], ends = [4]) : f32[6, 1, 3, 8]");
  // A permute moving only a size-1 dim of a value the delegate computes is
  // a view of it: no step of its own.
  ir.op("%n = edge.neg.default(%x) : f32[6, 1, 5, 8]");
  ir.op("%v = edge.permute.default(%n, dims = [1, 0, 2, 3]) : f32[1, 6, 5, 8]");
  ir.op("%w = edge.relu.default(%v) : f32[1, 6, 5, 8]");
  const RunResult got = expect_matches(ir, {"s", "a", "b", "t", "u", "w"}, {"slice", "split", "select", "permute"});
  std::vector<std::string> steps = got.steps;
  std::sort(steps.begin(), steps.end());
  EXPECT_EQ(steps, (std::vector<std::string>{"neg", "relu", "select (copy)", "slice", "slice (copy)", "split"}));
}

// The gather family oneDNN lacks, in the delegate's own loops: take along
// an axis with negative indices, and x[i] with one integer index.
TEST(Onednn, Gather) {
  Ir ir;
  ir.input("x", {4, 5, 3}).index_constant("i", {2, 2}, {0, -1, 3, 2}).index_constant("j", {3}, {1, 1, 0});
  ir.op("%t = edge.take.default(%x, %i, dim = 1) : f32[4, 2, 2, 3]");
  ir.op("%e = edge.take.default(%x, %j) : f32[3, 5, 3]");
  ir.op("%n = edge.index.default(%x, [%j]) : f32[3, 5, 3]");
  ir.op("%r = edge.relu.default(%n) : f32[3, 5, 3]");
  expect_matches(ir, {"t", "e", "r"}, {"take", "index", "relu"});
}

// ---- the operator table -------------------------------------------------------------------

// A sample program (TableSample, delegate_harness.h) per row of the
// delegate's operator table (backends/onednn/op_table.cpp). A row without a
// sample fails the test, so an operator cannot enter the table untested.
TableSample reduce_sample(const std::string& op) {
  return {[=](Ir& ir) {
    ir.input("x", {2, 3, 4}, 0.5f, 1.5f);
    ir.op("%y = edge." + op + ".default(%x, dims = [1]) : f32[2, 4]");
  }};
}

std::map<std::string, TableSample> table_samples() {
  std::map<std::string, TableSample> s;
  s["conv"] = {[](Ir& ir) {
    ir.input("x", {1, 4, 9, 9}).constant("w", {6, 4, 3, 3}).constant("b", {6});
    ir.op("%y = edge.conv.default(%x, %w, %b, stride = [2, 2], padding = [1, 1]) : f32[1, 6, 5, 5]");
  }, 1e-4};
  s["conv_transpose"] = {[](Ir& ir) {
    ir.input("x", {1, 4, 5, 5}).constant("w", {4, 3, 3, 3}).constant("b", {3});
    ir.op("%y = edge.conv_transpose.default(%x, %w, %b, stride = [2, 2], padding = [1, 1]) : f32[1, 3, 9, 9]");
  }, 1e-4};
  s["matmul"] = {[](Ir& ir) {
    ir.input("a", {2, 4, 5}).constant("w", {5, 6});
    ir.op("%y = edge.matmul.default(%a, %w) : f32[2, 4, 6]");
  }, 1e-4};
  for (const char* op : {"add", "sub", "mul", "div", "maximum", "minimum"}) s[op] = binary_sample(op);
  for (const char* op : {"relu", "elu", "gelu", "tanh", "sigmoid", "exp", "abs", "neg", "mish", "hardswish",
                         "hardsigmoid", "softplus"})
    s[op] = unary_sample(std::string(op) + ".default(%x)");
  s["leaky_relu"] = unary_sample("leaky_relu.default(%x, negative_slope = 0.2)");
  s["selu"] = unary_sample("selu.default(%x)");
  s["celu"] = unary_sample("celu.default(%x, alpha = 0.7)");
  s["clamp"] = unary_sample("clamp.default(%x, min = -0.5, max = 1.5)");
  s["log"] = unary_sample("log.default(%x)", 0.1f, 4.f);
  s["sqrt"] = unary_sample("sqrt.default(%x)", 0.f, 4.f);
  s["rsqrt"] = unary_sample("rsqrt.default(%x)", 0.1f, 4.f);
  s["reciprocal"] = unary_sample("reciprocal.default(%x)", 0.2f, 4.f);
  s["softmax"] = one_call({2, 5, 7}, "softmax.default(%x, dim = 1) : f32[2, 5, 7]");
  s["lrn"] = one_call({2, 7, 4, 5}, "lrn.default(%x, size = 5, alpha = 0.5, beta = 0.6, bias = 2.0) : f32[2, 7, 4, 5]");
  s["log_softmax"] = one_call({2, 5, 7}, "log_softmax.default(%x, dim = -1) : f32[2, 5, 7]");
  s["layer_norm"] = {[](Ir& ir) {
    ir.input("x", {2, 6, 5}).constant("w", {5}).constant("b", {5});
    ir.op("%y = edge.layer_norm.default(%x, %w, %b, axis = -1, eps = 1.0e-5) : f32[2, 6, 5]");
  }};
  s["batch_norm"] = {[](Ir& ir) {
    ir.input("x", {2, 6, 4, 5}).constant("g", {6}, 0.5f, 1.5f).constant("b", {6}).constant("mu", {6});
    ir.constant("var", {6}, 0.5f, 2.f);
    ir.op("%y = edge.batch_norm.default(%x, %g, %b, %mu, %var, eps = 1.0e-3) : f32[2, 6, 4, 5]");
  }};
  s["instance_norm"] = {[](Ir& ir) {
    ir.input("x", {2, 6, 4, 5}).constant("g", {6}, 0.5f, 1.5f).constant("b", {6});
    ir.op("%y = edge.instance_norm.default(%x, %g, %b) : f32[2, 6, 4, 5]");
  }};
  s["group_norm"] = {[](Ir& ir) {
    ir.input("x", {2, 6, 4, 5}).constant("g", {6}, 0.5f, 1.5f).constant("b", {6});
    ir.op("%y = edge.group_norm.default(%x, %g, %b, num_groups = 3) : f32[2, 6, 4, 5]");
  }};
  s["max_pool"] = one_call({1, 3, 11, 11},
                           "max_pool.default(%x, kernel_size = [3, 3], stride = [2, 2], padding = [1, 1]) : "
                           "f32[1, 3, 6, 6]");
  s["avg_pool"] = one_call({1, 3, 11, 11},
                           "avg_pool.default(%x, kernel_size = [3, 3], stride = [2, 2], padding = [1, 1]) : "
                           "f32[1, 3, 6, 6]");
  s["adaptive_avg_pool"] = one_call({1, 3, 8, 8}, "adaptive_avg_pool.default(%x, output_size = [2, 2]) : f32[1, 3, 2, 2]");
  s["upsample_bilinear"] = one_call({1, 8, 5, 7}, "upsample_bilinear.default(%x, output_size = [10, 11]) : f32[1, 8, 10, 11]");
  s["upsample_nearest"] = one_call({1, 3, 4, 5}, "upsample_nearest.default(%x, output_size = [8, 15]) : f32[1, 3, 8, 15]");
  for (const char* op : {"sum", "mean", "amax", "amin", "prod"}) s[op] = reduce_sample(op);
  s["concat"] = {[](Ir& ir) {
    ir.input("x", {2, 3, 4}).input("z", {2, 5, 4});
    ir.op("%y = edge.concat.default([%x, %z], dim = 1) : f32[2, 8, 4]");
  }};
  s["permute"] = one_call({2, 3, 4}, "permute.default(%x, dims = [2, 0, 1]) : f32[4, 2, 3]");
  s["slice"] = one_call({8, 8}, "slice.default(%x, dims = [0, 1], starts = [1, -6], ends = [8, 8], steps = [2, 1]) : "
                                "f32[4, 6]");
  s["select"] = one_call({2, 3, 4}, "select.default(%x, dim = 1, index = -2) : f32[2, 4]");
  s["split"] = {[](Ir& ir) {
    ir.input("x", {2, 8, 4});
    ir.op("%y, %z = edge.split.default(%x, dim = 1, sizes = [3, 5]) : f32[2, 3, 4], f32[2, 5, 4]");
  }};
  add_view_samples(s);
  // Integer operators (runtime_quant.cpp; onednn_int8_test.cpp has the
  // shapes and the ties): exact on these.
  s["qlinear_conv"] = {[](Ir& ir) {
    ir.input("x", {1, 8, 6, 6}, 0.f, 255.f, DType::UInt8);
    std::vector<int64_t> w(8 * 8 * 9);
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int64_t>((i * 37) % 256) - 128;
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
    ir.int_constant("bz", DType::Int8, {}, {0}).float_constant("ys", {}, {0.4f}).int_constant("yz", DType::Int8, {}, {4});
    ir.op("%y = edge.qlinear_matmul.default(%a, %as, %az, %b, %bs, %bz, %ys, %yz) : i8[2, 3, 8]");
  }, 0};
  // To f16 and back, an f16 relu between: the delegate keeps f16 values at
  // f32 precision inside (runtime_state.h), where the portable kernels
  // round to f16 at the cast: within f16's relative precision (2^-11).
  s["cast"] = {[](Ir& ir) {
    ir.input("x", {2, 3, 17}, -3.f, 3.f);
    ir.op("%h = edge.cast.default(%x, dtype = f16) : f16[2, 3, 17]");
    ir.op("%r = edge.relu.default(%h) : f16[2, 3, 17]");
    ir.op("%y = edge.cast.default(%r, dtype = f32) : f32[2, 3, 17]");
  }, 5e-4};
  s["expand"] = one_call({1, 2, 4}, "expand.default(%x, shape = [3, 2, 4]) : f32[3, 2, 4]");
  s["take"] = {[](Ir& ir) {
    ir.input("x", {4, 5, 3}).index_constant("i", {2, 2}, {0, -1, 3, 2});
    ir.op("%y = edge.take.default(%x, %i, dim = 1) : f32[4, 2, 2, 3]");
  }};
  // The recurrent layers: more in onednn_rnn_test.cpp.
  s["lstm"] = {[](Ir& ir) {
    ir.input("x", {4, 2, 3}).constant("w", {2, 8, 3}).constant("r", {2, 8, 2}).constant("b", {2, 16});
    ir.op("%y, %h, %c, %ws = edge.lstm.default(%x, %w, %r, %b, hidden_size = 2, direction = \"bidirectional\") : "
          "f32[4, 2, 2, 2], f32[2, 2, 2], f32[2, 2, 2], f32[2, 18]");
  }};
  s["gru"] = {[](Ir& ir) {
    ir.input("x", {4, 2, 3}).constant("w", {1, 6, 3}).constant("r", {1, 6, 2}).constant("b", {1, 12});
    ir.op("%y, %h, %ws = edge.gru.default(%x, %w, %r, %b, hidden_size = 2, linear_before_reset = true) : "
          "f32[4, 1, 2, 2], f32[1, 2, 2], f32[2, 14]");
  }};
  s["rnn"] = {[](Ir& ir) {
    ir.input("x", {4, 2, 3}).constant("w", {1, 2, 3}).constant("r", {1, 2, 2});
    ir.op("%y, %h, %ws = edge.rnn.default(%x, %w, %r, hidden_size = 2, direction = \"reverse\") : "
          "f32[4, 1, 2, 2], f32[1, 2, 2], f32[2, 6]");
  }};
  s["index"] = {[](Ir& ir) {
    ir.input("x", {4, 5, 3}).index_constant("i", {3}, {1, 1, 0}).index_constant("j", {3}, {0, 4, 2});
    ir.op("%y = edge.index.default(%x, [%i, %j]) : f32[3, 3]");
  }};
  return s;
}

TEST(OnednnTable, EveryOperatorIsBuiltAndMatchesThePortableKernel) {
  std::vector<std::string> rows;
  for (const onednn::OpRow& row : onednn::op_table()) rows.emplace_back(row.name);
  expect_every_row_matches(rows, table_samples(), "onednn", [](const std::string& op) {
    std::vector<std::string> outputs = {"y"};
    if (op == "split") outputs.push_back("z");
    if (op == "lstm" || op == "gru" || op == "rnn") outputs.push_back("h");
    if (op == "lstm") outputs.push_back("c");
    return outputs;
  });
}

// ---- refusals -------------------------------------------------------------------------------

// The partitioner's reason for the first call of `text` (nullopt: taken).
std::optional<std::string> reason_for(const std::string& text) {
  return first_call_refusal(onednn_backend_compiler(), text);
}

TEST(Onednn, RefusalReasons) {
  EXPECT_EQ(reason_for(one_op("x:f32[batch, 3]", "%y = edge.relu.default(%x) : f32[batch, 3]")),
            "dynamic shape: dim batch of input 0");
  EXPECT_EQ(reason_for(one_op("x:f32[?<=4, 3]", "%y = edge.relu.default(%x) : f32[?<=4, 3]")),
            "dynamic shape: dim ?<=4 of input 0");
  // f16 is taken (held in f32 inside: onednn_f16_test.cpp); integers are not.
  EXPECT_EQ(reason_for(one_op("x:f16[2, 3]", "%y = edge.relu.default(%x) : f16[2, 3]")), std::nullopt);
  EXPECT_EQ(reason_for(one_op("x:i32[2, 3]", "%y = edge.relu.default(%x) : i32[2, 3]")), "dtype i32 of input 0");
  // float64 stays on the portable kernels, which compute it in double:
  // oneDNN 2.6 has no f64 primitives.
  EXPECT_EQ(reason_for(one_op("x:f64[2, 3]", "%y = edge.tanh.default(%x) : f64[2, 3]")), "dtype f64 of input 0");
  EXPECT_EQ(reason_for(one_op("x:f64[2, 3]", "%y = edge.layer_norm.default(%x) : f64[2, 3]")),
            "dtype f64 of input 0");
  EXPECT_EQ(reason_for(one_op("x:f32[2, 3]", "%y = edge.sin.default(%x) : f32[2, 3]")),
            "operator sin is not supported by oneDNN");
  EXPECT_EQ(reason_for(one_op("x:f32[1, 6, 2, 2]", "%y = edge.lrn.default(%x, size = 4) : f32[1, 6, 2, 2]")),
            "lrn of even size 4");
  // pick (a sequence element at a run-time position, ops_sequence.cpp)
  // stays on the portable kernel, which sizes its result.
  EXPECT_EQ(reason_for(one_op("i:i64[]; a:f32[2, 3]; b:f32[1, 3]",
                              "%y = edge.pick.default(%i, [%a, %b]) : f32[?<=2, 3]")),
            "operator pick is not supported by oneDNN");
  // The recurrent layers take constant weights only (runtime_rnn.cpp lays
  // them out at init); onednn_rnn_test.cpp has their other refusals.
  EXPECT_EQ(reason_for(one_op("x:f32[2, 1, 3]; w:f32[1, 8, 3]; r:f32[1, 8, 2]",
                              "%y, %h, %c, %ws = edge.lstm.default(%x, %w, %r, hidden_size = 2) : "
                              "f32[2, 1, 1, 2], f32[1, 1, 2], f32[1, 1, 2], f32[1, 18]")),
            "lstm w (input 1) is not a constant (init lays it out for oneDNN once)");
  EXPECT_EQ(reason_for(one_op("x:f32[2, 1, 3]; w:f32[1, 6, 3]; r:f32[1, 6, 2]",
                              "%y, %h, %ws = edge.gru.default(%x, %w, %r, hidden_size = 2) : "
                              "f32[2, 1, 1, 2], f32[1, 1, 2], f32[1, 14]")),
            "gru w (input 1) is not a constant (init lays it out for oneDNN once)");
  EXPECT_EQ(reason_for(one_op("x:f32[2, 1, 3]; w:f32[1, 2, 3]; r:f32[1, 2, 2]",
                              "%y, %h, %ws = edge.rnn.default(%x, %w, %r, hidden_size = 2) : "
                              "f32[2, 1, 1, 2], f32[1, 1, 2], f32[1, 6]")),
            "rnn w (input 1) is not a constant (init lays it out for oneDNN once)");
  EXPECT_EQ(reason_for(one_op("x:f32[1, 4, 5]; w:f32[4, 1, 3]",
                              "%y = edge.conv_transpose.default(%x, %w, groups = 2) : f32[1, 2, 7]")),
            "attribute groups != 1 for transposed conv");
  EXPECT_EQ(reason_for(one_op("x:f32[6]; m:bool[6]", "%y = edge.index.default(%x, [%m]) : f32[?<=6]")),
            "boolean mask index not folded into positions (SEMANTICS 7.2)");
  EXPECT_EQ(reason_for(one_op("x:f32[1, 1, 5, 5]", "%y = edge.avg_pool.default(%x, kernel_size = [2, 2], stride = [2, "
                                                   "2], ceil_mode = true) : f32[1, 1, 3, 3]")),
            "attribute ceil_mode with count_include_pad for avg_pool");
  EXPECT_EQ(reason_for(one_op("x:f32[2, 3]; i:i64[2]", "%y = edge.take.default(%x, %i) : f32[2, 3]")), std::nullopt);
  // The scatters stay on the portable kernels (src/kernels/scatter.cpp).
  EXPECT_EQ(reason_for(one_op("x:f32[2, 3]; i:i64[1, 3]; u:f32[1, 3]",
                              "%y = edge.scatter.default(%x, %i, %u, dim = 0) : f32[2, 3]")),
            "operator scatter is not supported by oneDNN");
  EXPECT_EQ(reason_for(one_op("x:f32[2, 3]; i:i64[1, 1]; u:f32[1, 3]",
                              "%y = edge.scatter_nd.default(%x, %i, %u, reduction = \"add\") : f32[2, 3]")),
            "operator scatter_nd is not supported by oneDNN");
  EXPECT_EQ(reason_for(one_op("x:f32[2, 3]; y2:f32[2, 3]",
                              "%y = edge.div.Tensor(%x, %y2, rounding_mode = \"floor\") : f32[2, 3]")),
            "attribute rounding_mode floor for div");
  EXPECT_EQ(reason_for(one_op("x:f32[2, 3]", "%y = edge.softplus.default(%x, beta = 2.0) : f32[2, 3]")),
            "attribute beta != 1 for softplus");
}

TEST(Onednn, IsADefaultBackend) {
  EXPECT_NE(find_backend_compiler("onednn"), nullptr);
  const auto ids = default_backend_ids();
  EXPECT_NE(std::find(ids.begin(), ids.end(), "onednn"), ids.end());
  EXPECT_THROW(onednn_backend_compiler().make_partitioner("fast"), CompileError);
}


// Regression: a fused chain of unary operators on a 1-D value (or a
// scalar) gave garbage: oneDNN 2.6's reference eltwise, which takes the
// post-ops, writes nothing for 1-D tensors. relu then neg: -max(x, 0).
TEST(Onednn, UnaryChainOnOneDimensionalValues) {
  for (const std::string shape : {"[5]", "[]"}) {
    Ir ir;
    ir.input("x", shape == "[]" ? std::vector<int64_t>{} : std::vector<int64_t>{5});
    ir.op("%r = edge.relu.default(%x) : f32" + shape);
    ir.op("%y = edge.neg.default(%r) : f32" + shape);
    const RunResult r = compile_and_run(ir, {"y"}, "onednn");
    EXPECT_EQ(r.steps, std::vector<std::string>{"relu+neg"});
    const RunResult want = compile_and_run(ir, {"y"}, "none");
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_EQ(r.outputs, want.outputs) << shape;
    for (float v : want.outputs[0]) EXPECT_LE(v, 0.f);
  }
}


// Unary chains after a convolution and after a matmul, with two linear maps
// among them (neg, hardsigmoid, selu and celu are linear maps in oneDNN's
// terms): oneDNN 2.6 applies a second eltwise_linear post-op with the
// first's parameters, so the delegate fuses at most one (runtime_fuse.cpp)
// and the results match the portable kernels.
TEST(Onednn, ChainsWithTwoLinearMaps) {
  const std::vector<std::vector<std::string>> chains = {
      {"neg", "elu"}, {"elu", "neg"}, {"neg", "neg"}, {"neg", "leaky_relu", "neg"}, {"neg", "hardsigmoid"},
      {"hardsigmoid", "neg"}, {"neg", "selu"}, {"selu", "neg"}, {"neg", "tanh", "neg"}, {"clamp", "neg", "exp"}, {"neg", "celu"}};
  for (const auto& chain : chains) {
    std::string label;
    for (const auto& op : chain) label += op + " ";
    for (int kind = 0; kind < 2; ++kind) {
      SCOPED_TRACE(label + (kind ? "conv" : "matmul"));
      Ir ir;
      std::string prev, type;
      if (kind == 0) {
        ir.input("a", {2, 8}).constant("w", {8, 4});
        ir.op("%v0 = edge.matmul.default(%a, %w) : f32[2, 4]");
        type = "f32[2, 4]";
      } else {
        ir.input("x", {1, 4, 9, 9}).constant("w", {8, 4, 5, 5});
        ir.op("%v0 = edge.conv.default(%x, %w, padding = [2, 2]) : f32[1, 8, 9, 9]");
        type = "f32[1, 8, 9, 9]";
      }
      for (size_t i = 0; i < chain.size(); ++i) {
        const std::string attrs = chain[i] == "clamp" ? ", min = -0.5, max = 0.5" : "";
        ir.op("%v" + std::to_string(i + 1) + " = edge." + chain[i] + ".default(%v" + std::to_string(i) + attrs + ") : " + type);
      }
      expect_matches(ir, {"v" + std::to_string(chain.size())}, {kind ? "conv" : "matmul"}, 1e-4);
    }
  }
}

}  // namespace
}  // namespace edgec

// The onednn backend end to end: each operator family as a small edge
// program, compiled with --backends onednn and with none (the portable
// kernels), run through the runtime, outputs compared within 1e-5
// relative; each checks that the operators meant for oneDNN were delegated.
// Then the partitioner's refusal reasons, one per cause.
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
#include "backends/onednn_harness.h"

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

// One small program per row of the delegate's operator table
// (backends/onednn/op_table.cpp): the partitioner must take the operator,
// the runtime must build it, and the result must match the portable
// kernel's. A row without a sample here fails the test, so an operator
// cannot enter the table untested.
struct TableSample {
  std::function<void(Ir&)> build;  ///< Inputs, constants and the call, whose result is %y.
  double tol = 1e-5;
};

TableSample unary_sample(const std::string& call, float lo = -3.f, float hi = 3.f) {
  return {[=](Ir& ir) {
    ir.input("x", {2, 3, 17}, lo, hi);
    ir.op("%y = edge." + call + " : f32[2, 3, 17]");
  }};
}

TableSample binary_sample(const std::string& op) {
  return {[=](Ir& ir) {
    ir.input("a", {2, 3, 4}, 0.5f, 2.f).input("b", {3, 1}, 0.5f, 2.f);
    ir.op("%y = edge." + op + ".Tensor(%a, %b) : f32[2, 3, 4]");
  }};
}

TableSample reduce_sample(const std::string& op) {
  return {[=](Ir& ir) {
    ir.input("x", {2, 3, 4}, 0.5f, 1.5f);
    ir.op("%y = edge." + op + ".default(%x, dims = [1]) : f32[2, 4]");
  }};
}

TableSample one_call(std::vector<int64_t> shape, const std::string& call) {
  return {[=](Ir& ir) {
    ir.input("x", shape);
    ir.op("%y = edge." + call);
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
  s["reshape"] = one_call({2, 3, 4}, "reshape.default(%x, shape = [6, 4]) : f32[6, 4]");
  s["flatten"] = one_call({2, 3, 4}, "flatten.default(%x, start_dim = 1) : f32[2, 12]");
  s["squeeze"] = one_call({2, 1, 4}, "squeeze.default(%x, dims = [1]) : f32[2, 4]");
  s["unsqueeze"] = one_call({2, 4}, "unsqueeze.default(%x, dims = [0]) : f32[1, 2, 4]");
  s["clone"] = one_call({2, 4}, "clone.default(%x) : f32[2, 4]");
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
  const auto samples = table_samples();
  std::set<std::string> rows;
  for (const onednn::OpRow& row : onednn::op_table()) {
    const std::string op(row.name);
    rows.insert(op);
    SCOPED_TRACE(op);
    auto it = samples.find(op);
    ASSERT_NE(it, samples.end()) << "the onednn operator table has a row for " << op
                                 << " but this test has no sample program for it";
    Ir ir;
    it->second.build(ir);
    std::vector<std::string> outputs = {"y"};
    if (op == "split") outputs.push_back("z");
    if (op == "lstm" || op == "gru" || op == "rnn") outputs.push_back("h");
    if (op == "lstm") outputs.push_back("c");
    const RunResult got = expect_matches(ir, outputs, {op}, it->second.tol);
    // All of it in the delegate: nothing left on the portable kernels.
    EXPECT_EQ(got.portable, 0u) << ir.text(outputs);
  }
  for (const auto& [op, sample] : samples)
    EXPECT_TRUE(rows.count(op)) << "a sample for " << op << ", which the operator table does not have";
}

// ---- fusion (runtime_conv.cpp, runtime_norm.cpp, runtime_loops.cpp) -----------------------

// A ResNet block: conv -> batch norm -> relu -> conv -> per-channel mul/add
// (the exporter's frozen batch norm) -> add(block input) -> relu. The
// second conv accumulates into the block input's storage (sum post-op),
// the first folds its batch norm; both keep the blocked layout.
// With 3x3 kernels the chain runs as Winograd steps (backends/onednn/winograd.h),
// the residual added in place; with 5x5 on oneDNN's direct convolution with
// post-ops. 1e-4: both round differently from the portable kernels' sums
// (Winograd by ~3x a direct sum's error; 5x5 sums 200 terms).
void conv_chain(int64_t k) {
  const int64_t p = k / 2;
  const std::string pad = "padding = [" + std::to_string(p) + ", " + std::to_string(p) + "]";
  Ir ir;
  ir.input("x", {1, 8, 10, 10}).constant("w1", {8, 8, k, k}).constant("b1", {8}).constant("w2", {8, 8, k, k});
  ir.constant("g", {8}, 0.5f, 1.5f).constant("bb", {8}).constant("mu", {8}).constant("var", {8}, 0.5f, 2.f);
  ir.constant("s", {8, 1, 1}, 0.5f, 1.5f).constant("t", {1, 8, 1, 1});
  ir.op("%x0 = edge.relu.default(%x) : f32[1, 8, 10, 10]");
  ir.op("%c1 = edge.conv.default(%x0, %w1, %b1, " + pad + ") : f32[1, 8, 10, 10]");
  ir.op("%n1 = edge.batch_norm.default(%c1, %g, %bb, %mu, %var, eps = 1.0e-5) : f32[1, 8, 10, 10]");
  ir.op("%r1 = edge.relu.default(%n1) : f32[1, 8, 10, 10]");
  ir.op("%c2 = edge.conv.default(%r1, %w2, " + pad + ") : f32[1, 8, 10, 10]");
  ir.op("%m2 = edge.mul.Tensor(%c2, %s) : f32[1, 8, 10, 10]");
  ir.op("%a2 = edge.add.Tensor(%t, %m2) : f32[1, 8, 10, 10]");
  ir.op("%o = edge.add.Tensor(%a2, %x0) : f32[1, 8, 10, 10]");
  ir.op("%y = edge.relu.default(%o) : f32[1, 8, 10, 10]");
  const RunResult got = expect_matches(ir, {"y"}, {"conv", "batch_norm", "add"}, 1e-4);
  std::vector<std::string> want = {"conv+batch_norm+relu", "conv+mul+add"};
  if (k == 3) want = {"conv+batch_norm (winograd)+relu", "conv+mul+add (winograd)+sum+relu"};
  for (const std::string& step : want)
    EXPECT_NE(std::find(got.steps.begin(), got.steps.end(), step), got.steps.end())
        << step << " not in " << ::testing::PrintToString(got.steps);
}

TEST(Onednn, ConvChainFusesNormResidualAndActivation) {
  conv_chain(3);
  conv_chain(5);
}

// The residual is read again after the add (here: a second output): it must
// not be overwritten in place, so the add is a step of its own.
TEST(Onednn, ResidualReadLaterIsNotOverwritten) {
  Ir ir;
  ir.input("x", {1, 8, 6, 6}).constant("w", {8, 8, 3, 3}).constant("b", {8});
  ir.op("%x0 = edge.relu.default(%x) : f32[1, 8, 6, 6]");
  ir.op("%c = edge.conv.default(%x0, %w, %b, padding = [1, 1]) : f32[1, 8, 6, 6]");
  ir.op("%o = edge.add.Tensor(%c, %x0) : f32[1, 8, 6, 6]");
  ir.op("%y = edge.relu.default(%o) : f32[1, 8, 6, 6]");
  ir.op("%z = edge.sigmoid.default(%x0) : f32[1, 8, 6, 6]");
  expect_matches(ir, {"y", "z", "x0"}, {"conv", "add"});
}

// The fused add's result is the delegate's output (the caller's tensor): the
// residual cannot be accumulated in place there, and a second run must not
// accumulate onto the first's output.
void residual_into_output(int64_t k) {
  const int64_t p = k / 2;
  const std::string pad = "padding = [" + std::to_string(p) + ", " + std::to_string(p) + "]";
  Ir ir;
  ir.input("x", {1, 8, 10, 10}).constant("w1", {8, 8, k, k}).constant("b1", {8}).constant("w2", {8, 8, k, k});
  ir.op("%x0 = edge.relu.default(%x) : f32[1, 8, 10, 10]");
  ir.op("%c1 = edge.conv.default(%x0, %w1, %b1, " + pad + ") : f32[1, 8, 10, 10]");
  ir.op("%r1 = edge.relu.default(%c1) : f32[1, 8, 10, 10]");
  ir.op("%c2 = edge.conv.default(%r1, %w2, " + pad + ") : f32[1, 8, 10, 10]");
  ir.op("%o = edge.add.Tensor(%c2, %x0) : f32[1, 8, 10, 10]");
  expect_matches(ir, {"o"}, {"conv", "add"}, 1e-4);
}

TEST(Onednn, ResidualAddIntoTheDelegateOutput) {
  residual_into_output(3);
  residual_into_output(5);
}

// 3x3 stride-1 convolutions (channels a multiple of 8, at least 8 output
// tiles) run as Winograd F(4x4, 3x3) steps with the chain fused: batch
// norm, the residual add (in place, or into a new buffer when the residual
// is read later) and a ReLU. A stride-2 conv, a conv followed by a sigmoid
// and one on a 6x6 image (4 tiles) stay on oneDNN's direct convolution.
// Winograd rounds differently from a direct sum (about 3x the error),
// hence 1e-4.
TEST(Onednn, WinogradConvChains) {
  Ir ir;
  ir.input("x", {2, 16, 13, 13}).constant("w1", {32, 16, 3, 3}, -0.3f, 0.3f).constant("b1", {32});
  ir.constant("g", {32}, 0.5f, 1.5f).constant("bb", {32}).constant("mu", {32}).constant("var", {32}, 0.5f, 2.f);
  ir.constant("w2", {32, 32, 3, 3}, -0.2f, 0.2f).constant("ws", {32, 16, 1, 1}).constant("w3", {32, 32, 3, 3}, -0.2f, 0.2f);
  ir.constant("w4", {16, 32, 3, 3}, -0.2f, 0.2f).constant("w5", {8, 32, 3, 3}, -0.2f, 0.2f);
  ir.op("%x0 = edge.relu.default(%x) : f32[2, 16, 13, 13]");
  ir.op("%c1 = edge.conv.default(%x0, %w1, %b1, padding = [1, 1]) : f32[2, 32, 13, 13]");
  ir.op("%n1 = edge.batch_norm.default(%c1, %g, %bb, %mu, %var, eps = 1.0e-5) : f32[2, 32, 13, 13]");
  ir.op("%r1 = edge.relu.default(%n1) : f32[2, 32, 13, 13]");
  ir.op("%sc = edge.conv.default(%x0, %ws) : f32[2, 32, 13, 13]");
  ir.op("%c2 = edge.conv.default(%r1, %w2, padding = [1, 1]) : f32[2, 32, 13, 13]");
  ir.op("%o2 = edge.add.Tensor(%c2, %sc) : f32[2, 32, 13, 13]");
  ir.op("%y2 = edge.relu.default(%o2) : f32[2, 32, 13, 13]");
  // The residual y2 is read again (by the stride-2 conv) after this add.
  ir.op("%c3 = edge.conv.default(%y2, %w3, padding = [1, 1]) : f32[2, 32, 13, 13]");
  ir.op("%o3 = edge.add.Tensor(%y2, %c3) : f32[2, 32, 13, 13]");
  ir.op("%y3 = edge.relu.default(%o3) : f32[2, 32, 13, 13]");
  ir.op("%d = edge.conv.default(%y2, %w4, stride = [2, 2], padding = [1, 1]) : f32[2, 16, 7, 7]");
  ir.op("%s = edge.conv.default(%y3, %w4, padding = [1, 1]) : f32[2, 16, 13, 13]");
  ir.op("%sg = edge.sigmoid.default(%s) : f32[2, 16, 13, 13]");
  ir.op("%e = edge.conv.default(%y3, %w5, padding = [0, 0]) : f32[2, 8, 11, 11]");
  ir.input("q", {1, 16, 6, 6}).constant("w6", {16, 16, 3, 3}, -0.3f, 0.3f);
  ir.op("%f = edge.conv.default(%q, %w6, padding = [1, 1]) : f32[1, 16, 6, 6]");
  const RunResult got = expect_matches(ir, {"y3", "d", "sg", "e", "f"}, {"conv", "batch_norm", "add"}, 1e-4);
  std::vector<std::string> convs;
  for (const auto& n : got.steps)
    if (n.rfind("conv", 0) == 0) convs.push_back(n);
  std::sort(convs.begin(), convs.end());
  EXPECT_EQ(convs, (std::vector<std::string>{"conv", "conv", "conv", "conv (winograd)", "conv (winograd)+sum+relu",
                                             "conv (winograd)+sum+relu", "conv+batch_norm (winograd)+relu",
                                             "conv+sigmoid"}))
      << ::testing::PrintToString(got.steps);
}

// Per-channel affine folded into a grouped conv and a transposed conv.
TEST(Onednn, AffineFoldsIntoGroupedAndTransposedConv) {
  Ir ir;
  ir.input("x", {2, 4, 7, 7}).constant("w", {6, 2, 3, 3}).constant("s", {1, 6, 1, 1}, 0.5f, 2.f).constant("t", {6, 1, 1});
  ir.constant("wt", {4, 3, 2, 2}).constant("bt", {3}).constant("st", {3, 1, 1}, 0.5f, 2.f);
  ir.op("%c = edge.conv.default(%x, %w, groups = 2) : f32[2, 6, 5, 5]");
  ir.op("%m = edge.mul.Tensor(%c, %s) : f32[2, 6, 5, 5]");
  ir.op("%a = edge.sub.Tensor(%m, %t) : f32[2, 6, 5, 5]");
  ir.op("%d = edge.conv_transpose.default(%x, %wt, %bt, stride = [2, 2]) : f32[2, 3, 14, 14]");
  ir.op("%e = edge.div.Tensor(%d, %st) : f32[2, 3, 14, 14]");
  ir.op("%f = edge.tanh.default(%e) : f32[2, 3, 14, 14]");
  expect_matches(ir, {"a", "f"}, {"conv", "conv_transpose", "mul", "div"}, 1e-5);
}

// GroupNorm as the exporter writes it (reshape, instance_norm, reshape,
// mul, add) followed by mish written out; group_norm itself with relu.
TEST(Onednn, GroupNormChainAndMish) {
  Ir ir;
  ir.input("x", {2, 16, 8}, -3.f, 3.f).constant("is", {4}, 0.5f, 1.5f).constant("ib", {4});
  ir.constant("g", {16, 1}, 0.5f, 1.5f).constant("b", {16, 1}).constant("gg", {16}).constant("gb", {16});
  ir.op("%r = edge.reshape.default(%x, shape = [2, 4, 32]) : f32[2, 4, 32]");
  ir.op("%n = edge.instance_norm.default(%r, %is, %ib, eps = 1.0e-5) : f32[2, 4, 32]");
  ir.op("%r2 = edge.reshape.default(%n, shape = [2, 16, 8]) : f32[2, 16, 8]");
  ir.op("%m = edge.mul.Tensor(%r2, %g) : f32[2, 16, 8]");
  ir.op("%a = edge.add.Tensor(%m, %b) : f32[2, 16, 8]");
  ir.op("%sp = edge.softplus.default(%a) : f32[2, 16, 8]");
  ir.op("%th = edge.tanh.default(%sp) : f32[2, 16, 8]");
  ir.op("%mi = edge.mul.Tensor(%a, %th) : f32[2, 16, 8]");
  ir.op("%gn = edge.group_norm.default(%x, %gg, %gb, num_groups = 4) : f32[2, 16, 8]");
  ir.op("%gr = edge.relu.default(%gn) : f32[2, 16, 8]");
  expect_matches(ir, {"mi", "gr"}, {"instance_norm", "group_norm", "softplus", "tanh"});
}

// matmul with a bias add (either operand order) and activations fused.
TEST(Onednn, MatmulBiasAndActivation) {
  Ir ir;
  ir.input("x", {3, 5, 16}).constant("w", {16, 12}).constant("b", {12}).constant("w2", {12, 4}).constant("b2", {1, 4});
  ir.op("%m = edge.matmul.default(%x, %w) : f32[3, 5, 12]");
  ir.op("%a = edge.add.Tensor(%b, %m) : f32[3, 5, 12]");
  ir.op("%g = edge.gelu.default(%a) : f32[3, 5, 12]");
  ir.op("%m2 = edge.matmul.default(%g, %w2) : f32[3, 5, 4]");
  ir.op("%a2 = edge.add.Tensor(%m2, %b2) : f32[3, 5, 4]");
  ir.op("%s = edge.sigmoid.default(%a2) : f32[3, 5, 4]");
  // Small products by constant weights run on the prepacked kernel, a
  // large one (over 2^25 multiply-adds) on oneDNN's matmul.
  ir.input("big", {64, 512}).constant("wb", {512, 1040}, -0.05f, 0.05f).constant("bbig", {1040});
  ir.op("%mb = edge.matmul.default(%big, %wb) : f32[64, 1040]");
  ir.op("%ab = edge.add.Tensor(%mb, %bbig) : f32[64, 1040]");
  ir.op("%rb = edge.relu.default(%ab) : f32[64, 1040]");
  ir.constant("w3", {4, 8});
  ir.op("%m3 = edge.matmul.default(%s, %w3) : f32[3, 5, 8]");
  ir.op("%gt = edge.gelu.default(%m3, approximate = \"tanh\") : f32[3, 5, 8]");
  const RunResult got = expect_matches(ir, {"gt", "rb"}, {"matmul", "add", "gelu"});
  std::vector<std::string> steps = got.steps;
  std::sort(steps.begin(), steps.end());
  EXPECT_EQ(steps, (std::vector<std::string>{"matmul+add+gelu (prepacked)", "matmul+add+relu",
                                              "matmul+add+sigmoid (prepacked)", "matmul+gelu (prepacked)"}));
}

// Products by constant weights too large for the prepacked kernel, with
// activations of rank 3 and 4 (a transformer's [T, B, C] and Swin's
// [B, H, W, C]): the batch dims fold into the rows of one 2-D product, the
// weights reordered at init, the bias and GELU post-ops. Batch dims that
// are not 1 on the constant side keep the batched product.
TEST(Onednn, MatmulByConstantWeightsFoldsBatchDims) {
  Ir ir;
  ir.input("x", {150, 1, 256}).constant("w", {256, 1024}, -0.05f, 0.05f).constant("b", {1024});
  ir.op("%m = edge.matmul.default(%x, %w) : f32[150, 1, 1024]");
  ir.op("%a = edge.add.Tensor(%b, %m) : f32[150, 1, 1024]");
  ir.op("%g = edge.gelu.default(%a) : f32[150, 1, 1024]");
  ir.input("y", {2, 8, 20, 256}).constant("w2", {1, 1, 256, 512}, -0.05f, 0.05f);
  ir.op("%m2 = edge.matmul.default(%y, %w2) : f32[2, 8, 20, 512]");
  ir.constant("w3", {2, 256, 300}, -0.05f, 0.05f);
  ir.input("z", {2, 300, 256});
  ir.op("%m3 = edge.matmul.default(%z, %w3) : f32[2, 300, 300]");
  const RunResult got = expect_matches(ir, {"g", "m2", "m3"}, {"matmul", "add", "gelu"});
  std::vector<std::string> steps = got.steps;
  std::sort(steps.begin(), steps.end());
  EXPECT_EQ(steps, (std::vector<std::string>{"matmul", "matmul", "matmul+add+gelu"}));
}

// A crafted payload whose fused bias add after a small matmul declares u8
// (absorbed activations are checked for f32 when absorbed; the bias link
// is not): the prepacked kernel writes floats, so it must not take the
// chain; the matmul goes to oneDNN, whose destination check refuses the
// file at init.
TEST(Onednn, PrepackedMatmulRefusesANonF32Link) {
  Ir ir;
  ir.input("x", {2, 4}).constant("w", {4, 16}).constant("b", {16});
  ir.op("%y = edge.matmul.default(%x, %w) : f32[2, 16]");
  ir.op("%z = edge.add.Tensor(%y, %b) : f32[2, 16]");
  auto p = parse_program(ir.text({"z"}), "test.ir");
  compile_program(*p, {}, "onednn");
  ASSERT_EQ(p->delegates.size(), 1u);
  Value* add = nullptr;
  for (Node* n : p->delegates[0].program->graph.calls())
    if (n->op().find("add") != std::string::npos) add = n->result();
  ASSERT_NE(add, nullptr);
  TensorType t = add->type();
  t.dtype = DType::UInt8;
  add->set_type(t);
  AlignedBytes bytes(serialize_program(*p));
  auto loaded = runtime::Program::load_from_bytes(bytes.span());
  ASSERT_TRUE(loaded.ok()) << error_detail();
  auto m = runtime::Method::create(**loaded, 2);
  EXPECT_FALSE(m.ok());
  EXPECT_NE(error_detail().find("expected the slot's u8[2, 16]"), std::string::npos) << error_detail();
}

// One thread and two give the same values (thread count reaches oneDNN).
TEST(Onednn, ThreadCounts) {
  Ir ir;
  ir.input("x", {1, 8, 16, 16}).constant("w", {16, 8, 3, 3});
  ir.op("%c = edge.conv.default(%x, %w, padding = [1, 1]) : f32[1, 16, 16, 16]");
  const auto one = compile_and_run(ir, {"c"}, "onednn", 1);
  const auto two = compile_and_run(ir, {"c"}, "onednn", 2);
  ASSERT_EQ(one.outputs.size(), 1u);
  ASSERT_EQ(two.outputs.size(), 1u);
  expect_outputs_match(one, two, compare::Tolerance::absolute(1e-4), {"c"});
  EXPECT_EQ(one.portable, 0u);  // the whole graph is one delegate call
}

// ---- weights stored in oneDNN's layout ------------------------------------------------------

// The onednn delegate's constant whose target starts with `prefix`
// ("w@onednn:" for w stored blocked), or end().
Store::iterator constant_named(Program& delegate, const std::string& prefix) {
  for (auto it = delegate.constants.begin(); it != delegate.constants.end(); ++it)
    if (it->first.rfind(prefix, 0) == 0) return it;
  return delegate.constants.end();
}

// The delegate's calls whose operator contains `op`.
std::vector<Node*> calls_of(Program& delegate, const std::string& op) {
  std::vector<Node*> out;
  for (Node* n : delegate.graph.calls())
    if (n->op().find(op) != std::string::npos) out.push_back(n);
  return out;
}

// Outputs within tol (1e-5) of the portable kernels': |got - want| <= tol * (1 + |want|).
void expect_close(const RunResult& got, const RunResult& want, double tol = 1e-5) {
  expect_outputs_match(got, want, compare::Tolerance::sum(tol, tol), {});
}

// Convolution weights that only convolutions read are stored in the file
// as oneDNN lays them out on this machine (key "w@onednn:<tag>", the layout
// in the convolution's attributes) and read in place at init. Weights
// another program or another operator of the same delegate also reads stay
// row-major (every weight is stored once; init reorders those).
TEST(Onednn, ConvWeightsStoredInTheLayoutOnednnChose) {
  Ir ir;
  ir.input("x", {1, 16, 12, 12}).input("y", {1});
  ir.constant("w", {16, 16, 5, 5}, -0.2f, 0.2f).constant("v", {16, 16, 5, 5}, -0.2f, 0.2f);
  ir.op("%a = edge.conv.default(%x, %w, padding = [2, 2]) : f32[1, 16, 12, 12]");
  ir.op("%b = edge.conv.default(%a, %v, padding = [2, 2]) : f32[1, 16, 12, 12]");
  ir.op("%r = edge.mul.Tensor(%v, %y) : f32[16, 16, 5, 5]");  // not connected: a delegate of its own
  auto p = parse_program(ir.text({"b", "r"}), "test.ir");
  compile_program(*p, {}, "onednn");
  ASSERT_EQ(p->delegates.size(), 2u);
  Program& d = *p->delegates[0].program;
  EXPECT_EQ(d.constants.count("w"), 0u);
  ASSERT_NE(constant_named(d, "w@onednn:"), d.constants.end());
  EXPECT_EQ(constant_named(d, "w@onednn:")->second.bytes->size(), 16u * 16 * 25 * 4);
  EXPECT_EQ(d.constants.count("v"), 1u);
  EXPECT_EQ(constant_named(d, "v@onednn:"), d.constants.end());
  EXPECT_EQ(p->delegates[1].program->constants.count("v"), 1u);
  const auto convs = calls_of(d, "conv");
  ASSERT_EQ(convs.size(), 2u);
  EXPECT_TRUE(convs[0]->attrs().has("weights_strides"));
  EXPECT_FALSE(convs[1]->attrs().has("weights_strides"));
  AlignedBytes bytes(serialize_program(*p));
  auto loaded = runtime::Program::load_from_bytes(bytes.span());
  ASSERT_TRUE(loaded.ok()) << error_detail();
  auto keys = (*loaded)->delegates()[0].constants;
  for (const auto& k : (*loaded)->delegates()[1].constants) keys.push_back(k);
  auto count = [&](const std::string& prefix) {
    return std::count_if(keys.begin(), keys.end(), [&](const std::string& k) { return k.rfind(prefix, 0) == 0; });
  };
  EXPECT_EQ(count("w"), 1);
  EXPECT_EQ(count("w@onednn:"), 1);
  EXPECT_EQ(count("v"), 2);  // the same named data, read by both delegates
  EXPECT_EQ(count("v@onednn:"), 0);
  expect_matches(ir, {"b", "r"}, {"conv", "mul"}, 1e-4);  // two 5x5 sums of 400 terms

  Ir shared;  // w read by an add and a convolution in one delegate
  shared.input("x", {16, 16, 5, 5}).constant("w", {16, 16, 5, 5});
  shared.op("%s = edge.add.Tensor(%x, %w) : f32[16, 16, 5, 5]");
  shared.op("%a = edge.conv.default(%s, %w, padding = [2, 2]) : f32[16, 16, 5, 5]");
  auto q = parse_program(shared.text({"a"}), "test.ir");
  compile_program(*q, {}, "onednn");
  ASSERT_EQ(q->delegates.size(), 1u);
  EXPECT_EQ(q->delegates[0].program->constants.count("w"), 1u);
  EXPECT_EQ(constant_named(*q->delegates[0].program, "w@onednn:"), q->delegates[0].program->constants.end());
  expect_matches(shared, {"a"}, {"conv", "add"}, 1e-4);
}

// A file made where oneDNN chose another layout: init reorders from the
// stored one. Here the stored weights are rewritten as Ohwi (strides only,
// no blocks), their bytes permuted to match.
TEST(Onednn, StoredWeightsInAnotherLayoutAreReordered) {
  Ir ir;
  ir.input("x", {1, 16, 12, 12}).constant("w", {16, 8, 5, 5});
  ir.op("%a = edge.conv.default(%x, %w, padding = [2, 2], groups = 2) : f32[1, 16, 12, 12]");
  ir.op("%b = edge.relu.default(%a) : f32[1, 16, 12, 12]");
  const auto plain = parse_program(ir.text({"b"}), "test.ir")->constants.at("w");
  const auto* wv = reinterpret_cast<const float*>(plain.bytes->data());
  bool edited = false;
  const RunResult got = compile_and_run(ir, {"b"}, "onednn", 2, [&](Program& p) {
    Program& d = *p.delegates.at(0).program;
    auto stored = constant_named(d, "w@onednn:");
    ASSERT_NE(stored, d.constants.end());
    // oneDNN's dims (g, O, I, h, w) = (2, 8, 8, 5, 5), stored g O h w I.
    std::vector<float> ohwi(16 * 8 * 25);
    for (int o = 0; o < 16; ++o)
      for (int i = 0; i < 8; ++i)
        for (int k = 0; k < 25; ++k) ohwi[static_cast<size_t>((o * 25 + k) * 8 + i)] = wv[(o * 8 + i) * 25 + k];
    auto* b = reinterpret_cast<const std::byte*>(ohwi.data());
    stored->second.bytes = std::make_shared<const std::vector<std::byte>>(b, b + ohwi.size() * 4);
    for (Node* n : calls_of(d, "conv")) {
      n->attrs().set("weights_strides", std::vector<int64_t>{8 * 200, 200, 1, 40, 8});
      n->attrs().set("weights_blocks", std::vector<int64_t>{});
      n->attrs().set("weights_block_dims", std::vector<int64_t>{});
      edited = true;
    }
  });
  EXPECT_TRUE(edited);
  expect_close(got, compile_and_run(ir, {"b"}, "none"));
  // The same primitive with the same weights: bit for bit what the
  // weights stored in oneDNN's own choice give.
  const RunResult in_place = compile_and_run(ir, {"b"}, "onednn");
  EXPECT_EQ(got.outputs, in_place.outputs);
}

// Weights stored for oneDNN's direct convolution, read on the loading
// machine by the delegate's own Winograd kernel (compiled with
// EDGEC_ONEDNN_WINOGRAD=0, run with it on): init makes them row-major.
TEST(Onednn, StoredWeightsReadByWinograd) {
  Ir ir;
  ir.input("x", {1, 16, 16, 16}).constant("w", {16, 16, 3, 3}).constant("b", {16});
  ir.op("%a = edge.conv.default(%x, %w, %b, padding = [1, 1]) : f32[1, 16, 16, 16]");
  ir.op("%r = edge.relu.default(%a) : f32[1, 16, 16, 16]");
  setenv("EDGEC_ONEDNN_WINOGRAD", "0", 1);
  bool stored = false;
  const RunResult got = compile_and_run(ir, {"r"}, "onednn", 2, [&](Program& p) {
    Program& d = *p.delegates.at(0).program;
    stored = constant_named(d, "w@onednn:") != d.constants.end();
    unsetenv("EDGEC_ONEDNN_WINOGRAD");
  });
  unsetenv("EDGEC_ONEDNN_WINOGRAD");
  EXPECT_TRUE(stored);
  EXPECT_NE(std::find(got.steps.begin(), got.steps.end(), "conv (winograd)+relu"), got.steps.end());
  expect_close(got, compile_and_run(ir, {"r"}, "none"), 1e-4);
}

// Stored weights given to a convolution whose batch norm init folds into
// them (a file from a machine that stored them, read where the chain folds):
// the fold reads the row-major copy init makes. The stored bytes come from
// compiling the convolution alone.
TEST(Onednn, StoredWeightsFoldedWithABatchNorm) {
  Ir alone;
  alone.input("x", {1, 16, 12, 12}).constant("w", {16, 16, 5, 5});
  alone.op("%a = edge.conv.default(%x, %w, padding = [2, 2]) : f32[1, 16, 12, 12]");
  auto first = parse_program(alone.text({"a"}), "test.ir");
  compile_program(*first, {}, "onednn");
  Program& d1 = *first->delegates.at(0).program;
  const auto stored = constant_named(d1, "w@onednn:");
  ASSERT_NE(stored, d1.constants.end());
  const Attrs layout = calls_of(d1, "conv").at(0)->attrs();

  Ir ir;  // The same weights (same seed and order), then a batch norm.
  ir.input("x", {1, 16, 12, 12}).constant("w", {16, 16, 5, 5});
  ir.constant("g", {16}, 0.5f, 1.5f).constant("bb", {16}).constant("mu", {16}).constant("var", {16}, 0.5f, 2.f);
  ir.op("%a = edge.conv.default(%x, %w, padding = [2, 2]) : f32[1, 16, 12, 12]");
  ir.op("%n = edge.batch_norm.default(%a, %g, %bb, %mu, %var, eps = 1.0e-3) : f32[1, 16, 12, 12]");
  bool edited = false;
  const RunResult got = compile_and_run(ir, {"n"}, "onednn", 2, [&](Program& p) {
    Program& d = *p.delegates.at(0).program;
    ASSERT_EQ(constant_named(d, "w@onednn:"), d.constants.end());  // folded: not stored here
    for (InputSpec& spec : d.inputs)
      if (spec.target == "w") spec.target = stored->first;
    d.constants.erase("w");
    d.constants[stored->first] = stored->second;
    Node* conv = calls_of(d, "conv").at(0);
    for (const char* a : {"weights_strides", "weights_blocks", "weights_block_dims"}) conv->attrs().set(a, *layout.find(a));
    edited = true;
  });
  EXPECT_TRUE(edited);
  EXPECT_NE(std::find(got.steps.begin(), got.steps.end(), "conv+batch_norm"), got.steps.end());
  expect_close(got, compile_and_run(ir, {"n"}, "none"), 1e-4);
}

// What init says about a stored layout that cannot be right (a crafted or
// corrupt file): empty when init succeeds.
std::string stored_layout_error(const std::function<void(Program& delegate)>& edit) {
  Ir ir;
  ir.input("x", {1, 16, 12, 12}).constant("w", {16, 16, 5, 5});
  ir.op("%a = edge.conv.default(%x, %w, padding = [2, 2]) : f32[1, 16, 12, 12]");
  ir.op("%b = edge.relu.default(%a) : f32[1, 16, 12, 12]");
  ir.op("%c = edge.conv.default(%b, %w, padding = [2, 2]) : f32[1, 16, 12, 12]");
  auto p = parse_program(ir.text({"c"}), "test.ir");
  compile_program(*p, {}, "onednn");
  Program& d = *p->delegates.at(0).program;
  if (constant_named(d, "w@onednn:") == d.constants.end()) return "the weights were not stored blocked";
  edit(d);
  AlignedBytes bytes(serialize_program(*p));
  auto loaded = runtime::Program::load_from_bytes(bytes.span());
  if (!loaded.ok()) return "load: " + error_detail();
  auto m = runtime::Method::create(**loaded, 2);
  if (m.ok()) return "";
  return error_detail();
}

TEST(Onednn, StoredWeightsLayoutIsChecked) {
  auto conv = [](Program& d, size_t i) { return calls_of(d, "conv").at(i); };
  auto expect = [](const std::string& got, const std::string& want) {
    EXPECT_NE(got.find(want), std::string::npos) << "got: " << got << "\nwant: " << want;
  };
  EXPECT_EQ(stored_layout_error([](Program&) {}), "");
  // Two strides alike: two elements in one place, others past the end.
  expect(stored_layout_error([&](Program& d) {
           for (int i = 0; i < 2; ++i) conv(d, i)->attrs().set("weights_strides", std::vector<int64_t>{1, 1, 1, 1});
         }),
         "expected a dense layout");
  expect(stored_layout_error([&](Program& d) {
           for (int i = 0; i < 2; ++i) conv(d, i)->attrs().set("weights_strides", std::vector<int64_t>{-64, 1, 1, 1});
         }),
         "stored weights strides [-64, 1, 1, 1] for dims [16, 16, 5, 5]: expected positive dims and strides of 0 or more");
  expect(stored_layout_error([&](Program& d) {
           for (int i = 0; i < 2; ++i) conv(d, i)->attrs().erase("weights_blocks");
         }),
         "need the attributes weights_strides, weights_blocks and weights_block_dims");
  expect(stored_layout_error([&](Program& d) {
           for (int i = 0; i < 2; ++i) {
             conv(d, i)->attrs().set("weights_blocks", std::vector<int64_t>{3});
             conv(d, i)->attrs().set("weights_block_dims", std::vector<int64_t>{0});
           }
         }),
         "expected a dim of the weights that the block divides");
  // A block along a dim the weights do not have. The blocks are the ones
  // oneDNN chose on this machine (AVX2: ABcd8b8a, two; AVX-512 may pick
  // one, or none), so the count of block dims stays theirs.
  expect(stored_layout_error([&](Program& d) {
           for (int i = 0; i < 2; ++i) {
             std::vector<int64_t> blocks = *conv(d, i)->attrs().get_ints("weights_blocks");
             std::vector<int64_t> dims = *conv(d, i)->attrs().get_ints("weights_block_dims");
             if (blocks.empty()) blocks.push_back(1), dims.push_back(0);
             dims[0] = 7;
             conv(d, i)->attrs().set("weights_blocks", blocks);
             conv(d, i)->attrs().set("weights_block_dims", dims);
           }
         }),
         "expected a dim of the weights that the block divides");
  // The second convolution reads the stored weights as if row-major.
  expect(stored_layout_error([&](Program& d) {
           for (const char* a : {"weights_strides", "weights_blocks", "weights_block_dims"}) conv(d, 1)->attrs().erase(a);
         }),
         "which is stored in a blocked layout: expected only convolutions");
  // A layout on an operator that has no weights.
  expect(stored_layout_error([&](Program& d) {
           calls_of(d, "relu").at(0)->attrs().set("weights_strides", std::vector<int64_t>{1});
         }),
         "only a convolution's weights (operand 1) are stored so");
}

// ---- refusals -------------------------------------------------------------------------------

// The partitioner's reason for the first call of `text` (nullopt: taken).
std::optional<std::string> reason_for(const std::string& text) {
  auto p = parse_program(text, "test.ir");
  auto part = onednn_backend_compiler().make_partitioner("");
  for (Node* n : p->graph.calls()) return part->refuse(*p, *n);
  return "no call";
}

std::string one_op(const std::string& inputs, const std::string& line) {
  std::string sig, ph;
  std::istringstream in(inputs);
  std::string decl;
  while (std::getline(in, decl, ';')) {
    decl.erase(0, decl.find_first_not_of(' '));
    const auto colon = decl.find(':');
    const std::string name = decl.substr(0, colon);
    sig += "  input user_input %" + name + " target = \"" + name + "\"\n";
    ph += "  %" + name + " = placeholder : " + decl.substr(colon + 1) + "\n";
  }
  return "program dialect = \"edge\"\nsignature {\n" + sig + "  output user_output %y target = \"y\"\n}\ngraph {\n" + ph +
         "  " + line + "\n  output(%y)\n}\n";
}

TEST(Onednn, RefusalReasons) {
  EXPECT_EQ(reason_for(one_op("x:f32[batch, 3]", "%y = edge.relu.default(%x) : f32[batch, 3]")),
            "dynamic shape: dim batch of input 0");
  EXPECT_EQ(reason_for(one_op("x:f32[?<=4, 3]", "%y = edge.relu.default(%x) : f32[?<=4, 3]")),
            "dynamic shape: dim ?<=4 of input 0");
  EXPECT_EQ(reason_for(one_op("x:f16[2, 3]", "%y = edge.relu.default(%x) : f16[2, 3]")), "dtype f16 of input 0");
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

// ---- wide graphs ----------------------------------------------------------------------------
//
// Nodes with 10,000 to 100,000 operands or results, and values by the ten
// thousand live at once: each case runs in a second or two; before its fix
// it took minutes or failed. The hang guard's limit is far beyond the first
// and short of the second: timing is not what these check, the values are
// (computed by hand, never edgec's own). They are ISA-independent, so the
// AVX2 pass (backends.avx2.Onednn.*) does not repeat them.

// Runs `work` on a thread of its own and waits at most `limit` for it: past
// that the test fails and the binary ends (a stuck thread cannot be stopped).
void with_hang_guard(const std::string& what, std::chrono::seconds limit, const std::function<void()>& work) {
  auto done = std::async(std::launch::async, work);
  if (done.wait_for(limit) == std::future_status::timeout) {
    ADD_FAILURE() << what << " did not finish in " << limit.count() << " s";
    std::fflush(nullptr);
    std::_Exit(1);
  }
  done.get();
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr std::chrono::seconds kHangLimit{240};  // Sanitized builds run several times slower.
#else
constexpr std::chrono::seconds kHangLimit{60};
#endif

// Compiles `text` with `backends`, runs it `runs` times on `inputs` (f32,
// each of its shape) and returns the f32 outputs of the last run.
RunResult run_wide(const std::string& text, const std::vector<std::vector<float>>& inputs, const std::string& backends,
                   int runs = 1, int threads = 2) {
  RunResult r;
  auto p = parse_program(text, "wide.ir");
  compile_program(*p, {}, backends);
  AlignedBytes bytes(serialize_program(*p));
  auto loaded = runtime::Program::load_from_bytes(bytes.span());
  EXPECT_TRUE(loaded.ok()) << error_detail();
  if (!loaded.ok()) return r;
  const runtime::Program& program = **loaded;
  for (const auto& d : program.delegates())
    if (d.backend_id == "onednn") r.delegated.insert(r.delegated.end(), d.operators.begin(), d.operators.end());
  for (const auto& in : program.instructions()) r.portable += !in.is_delegate_call();
  auto m = runtime::Method::create(program, threads);
  EXPECT_TRUE(m.ok()) << error_detail();
  if (!m.ok()) return r;
  for (int run = 0; run < runs; ++run) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      const auto& slot = program.slots()[static_cast<size_t>(program.inputs()[i].slot)];
      std::vector<int64_t> shape;
      for (const auto& d : slot.type.dims) shape.push_back(d.value);
      EXPECT_EQ((*m)->set_input(i, make_tensor(DType::Float32, shape, const_cast<float*>(inputs[i].data()), 0)),
                Error::Ok)
          << error_detail();
    }
    EXPECT_EQ((*m)->execute(), Error::Ok) << error_detail();
  }
  for (size_t i = 0; i < (*m)->num_outputs(); ++i) {
    const Tensor& t = (*m)->output(i);
    r.outputs.emplace_back(t.data_as<float>(), t.data_as<float>() + t.numel());
    r.shapes.emplace_back(t.shape().begin(), t.shape().end());
  }
  return r;
}

// The onednn delegate alone: `text` (an edge program of f32 values, with
// no constants) as the payload the compiler would make of it, given to the
// backend's init and run once on `inputs`. Skips partitioning and the
// compiler's constant preparation, which rebuilds the delegate, so that a
// case of 100,000 values costs one init. Returns the f32 outputs.
std::vector<std::vector<float>> run_in_delegate(const std::string& text, const std::vector<std::vector<float>>& inputs,
                                                int threads = 2) {
  auto p = parse_program(text, "delegate.ir");
  run_pass_verified(*p, "memory_plan");
  AlignedBytes payload(serialize_program_table(*p, "test"));
  const runtime::Backend* backend = runtime::find_backend("onednn");
  struct NoData final : runtime::NamedDataMap {
    const runtime::NamedDataEntry* find(std::string_view) const override { return nullptr; }
  } none;
  std::vector<std::vector<float>> outputs;
  Result<void*> handle = backend->init(payload.span(), none, threads);
  EXPECT_TRUE(handle.ok()) << error_detail();
  if (!handle.ok()) return outputs;
  std::vector<Tensor> in_tensors, out_tensors;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::vector<int64_t> shape = p->graph.placeholders()[i]->result()->type().static_shape();
    in_tensors.push_back(make_tensor(DType::Float32, shape, const_cast<float*>(inputs[i].data()), 0));
  }
  const auto results = p->graph.output_node()->inputs();
  outputs.resize(results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    const std::vector<int64_t> shape = results[i]->type().static_shape();
    outputs[i].resize(static_cast<size_t>(numel(shape)));
    out_tensors.push_back(make_tensor(DType::Float32, shape, outputs[i].data(), outputs[i].size() * sizeof(float)));
  }
  std::vector<const Tensor*> ins;
  std::vector<Tensor*> outs;
  for (const Tensor& t : in_tensors) ins.push_back(&t);
  for (Tensor& t : out_tensors) outs.push_back(&t);
  EXPECT_EQ(backend->execute(*handle, ins, outs), Error::Ok) << error_detail();
  backend->destroy(*handle);
  return outputs;
}

// 0, 1, 2, ... n - 1.
std::vector<float> iota_values(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  return v;
}

// Regression: a split into 100,000 outputs took seconds per execute in the
// delegate (each output's binding looked at every earlier output), and as
// many reorder primitives, each with a parallel region on two threads
// (25 s a run). Run 20 times, as a caller runs a handle: output k is x[k].
TEST(OnednnWide, SplitIntoManyOutputs) {
  constexpr int64_t kOutputs = 100000;
  std::string sig = "  input user_input %x target = \"x\"\n", results, types, sizes;
  for (int64_t k = 0; k < kOutputs; ++k) {
    const std::string name = "y" + std::to_string(k);
    sig += "  output user_output %" + name + " target = \"" + name + "\"\n";
    results += (k ? ", %" : "%") + name;
    types += k ? ", f32[1]" : "f32[1]";
    sizes += k ? ", 1" : "1";
  }
  const std::string text = "program dialect = \"edge\"\nsignature {\n" + sig + "}\ngraph {\n  %x = placeholder : f32[" +
                           std::to_string(kOutputs) + "]\n  " + results + " = edge.split.default(%x, sizes = [" +
                           sizes + "]) : " + types + "\n  output(" + results + ")\n}\n";
  const std::vector<float> x = iota_values(kOutputs);
  with_hang_guard("a split into 100,000 outputs", kHangLimit, [&] {
    const RunResult r = run_wide(text, {x}, "onednn", 20);
    EXPECT_EQ(r.delegated, std::vector<std::string>{"split"});
    ASSERT_EQ(r.outputs.size(), static_cast<size_t>(kOutputs));
    int64_t wrong = 0;
    for (int64_t k = 0; k < kOutputs; ++k)
      wrong += r.outputs[static_cast<size_t>(k)] != std::vector<float>{static_cast<float>(k)};
    EXPECT_EQ(wrong, 0);
  });
}


// A chain of `links` unary operations `op` from %x (f32[n]) to %y.
std::string unary_chain(const std::string& op, int64_t links, int64_t n) {
  const std::string type = "f32[" + std::to_string(n) + "]";
  std::string text = "program dialect = \"edge\"\nsignature {\n  input user_input %x target = \"x\"\n"
                     "  output user_output %y target = \"y\"\n}\ngraph {\n  %x = placeholder : " + type + "\n";
  for (int64_t i = 0; i < links; ++i) {
    const std::string from = i == 0 ? "%x" : "%v" + std::to_string(i - 1);
    const std::string to = i + 1 == links ? "%y" : "%v" + std::to_string(i);
    text += "  " + to + " = edge." + op + ".default(" + from + ") : " + type + "\n";
  }
  return text + "  output(%y)\n}\n";
}

// Regression: a chain of unary operators was fused into one primitive
// whatever its length, and oneDNN 2.6 takes at most 32 post-ops: a chain of
// 33 or more compiled, then failed at load ("could not append an
// elementwise post-op"). 100 negations give x back; 101 give -x.
TEST(Onednn, LongUnaryChainsSplitIntoSteps) {
  const std::vector<float> x{3.f, -1.f, 0.5f, -7.f};
  for (const int64_t links : {100, 101}) {
    const RunResult r = run_wide(unary_chain("neg", links, 4), {x}, "onednn");
    EXPECT_EQ(r.portable, 0u);
    ASSERT_EQ(r.outputs.size(), 1u);
    std::vector<float> want = x;
    if (links % 2) for (float& v : want) v = -v;
    EXPECT_EQ(r.outputs[0], want) << links << " links";
  }
}


// %y = concat of `operands` (each "%name"), of type `type` along `dim`.
std::string concat_line(const std::vector<std::string>& operands, int64_t dim, const std::string& type) {
  std::string line = "  %y = edge.concat.default([";
  for (size_t i = 0; i < operands.size(); ++i) line += (i ? ", " : "") + operands[i];
  return line + "], dim = " + std::to_string(dim) + ") : " + type + "\n";
}

// Regression: a concat of more than 3072 operands compiled, then failed at
// execute with oneDNN's "could not execute a primitive" (its source ids
// run into another argument's from the 3073rd on); it is built as several
// now. 10,000 copies of x: along dim 0 of an f32[2], y[2i + r] = x[r];
// along dim 1 of an f32[2, 1], y[r][i] = x[r].
TEST(OnednnWide, ConcatOfManyCopiesOfOneValue) {
  constexpr int64_t kCopies = 10000;
  const std::vector<float> x{2.5f, -4.f};
  for (const int64_t dim : {0, 1}) {
    const std::string xtype = dim == 0 ? "f32[2]" : "f32[2, 1]";
    const std::string ytype = dim == 0 ? "f32[" + std::to_string(2 * kCopies) + "]"
                                       : "f32[2, " + std::to_string(kCopies) + "]";
    const std::string text = "program dialect = \"edge\"\nsignature {\n  input user_input %x target = \"x\"\n"
                             "  output user_output %y target = \"y\"\n}\ngraph {\n  %x = placeholder : " + xtype +
                             "\n" + concat_line(std::vector<std::string>(kCopies, "%x"), dim, ytype) +
                             "  output(%y)\n}\n";
    with_hang_guard("a concat of 10,000 copies", kHangLimit, [&] {
      const RunResult r = run_wide(text, {x}, "onednn");
      EXPECT_EQ(r.delegated, std::vector<std::string>{"concat"});
      ASSERT_EQ(r.outputs.size(), 1u);
      ASSERT_EQ(r.outputs[0].size(), static_cast<size_t>(2 * kCopies));
      int64_t wrong = 0;
      for (int64_t i = 0; i < kCopies; ++i)
        for (int64_t row = 0; row < 2; ++row)
          wrong += r.outputs[0][static_cast<size_t>(dim == 0 ? 2 * i + row : row * kCopies + i)] !=
                   x[static_cast<size_t>(row)];
      EXPECT_EQ(wrong, 0) << "dim " << dim;
    });
  }
}


// The first fit place_buffers computes, the slow way: each buffer against
// every buffer placed before it that is live at the same steps.
size_t first_fit_by_scanning(std::vector<runtime::onednn::Buffer>& buffers) {
  std::vector<size_t> order(buffers.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return buffers[a].first < buffers[b].first; });
  std::vector<size_t> placed;
  size_t total = 0;
  auto align = [](size_t v) { return (v + 63) / 64 * 64; };
  for (size_t i : order) {
    runtime::onednn::Buffer& b = buffers[i];
    if (b.last < 0) continue;
    std::vector<std::pair<size_t, size_t>> busy;
    for (size_t j : placed) {
      const runtime::onednn::Buffer& o = buffers[j];
      if (o.last >= b.first && o.first <= b.last) busy.emplace_back(o.offset, o.offset + align(o.size));
    }
    std::sort(busy.begin(), busy.end());
    size_t at = 0;
    for (const auto& [lo, hi] : busy) {
      if (at + align(b.size) <= lo) break;
      at = std::max(at, hi);
    }
    b.offset = at;
    total = std::max(total, at + align(b.size));
    placed.push_back(i);
  }
  return total;
}

// place_buffers gives the offsets of a first fit over every live buffer on
// random lifetimes and sizes (zero sizes, unused buffers, equal starts),
// and buffers live at the same step never share a byte.
TEST(OnednnPlan, PlaceBuffersIsFirstFit) {
  std::mt19937 rng(3);
  for (int round = 0; round < 200; ++round) {
    std::vector<runtime::onednn::Buffer> buffers(1 + rng() % 300);
    const int steps = 1 + static_cast<int>(rng() % 100);
    for (auto& b : buffers) {
      b.size = rng() % 5 == 0 ? 0 : rng() % 1000;
      if (rng() % 10 == 0) continue;  // never used
      b.first = static_cast<int>(rng() % static_cast<unsigned>(steps));
      b.last = b.first + static_cast<int>(rng() % 20);
    }
    std::vector<runtime::onednn::Buffer> want = buffers;
    const size_t total = runtime::onednn::place_buffers(buffers);
    EXPECT_EQ(total, first_fit_by_scanning(want)) << "round " << round;
    for (size_t i = 0; i < buffers.size(); ++i) {
      EXPECT_EQ(buffers[i].offset, want[i].offset) << "round " << round << ", buffer " << i;
      for (size_t j = 0; j < i; ++j) {
        const auto &a = buffers[i], &b = buffers[j];
        if (a.last < 0 || b.last < 0 || a.size == 0 || b.size == 0 || a.last < b.first || b.last < a.first) continue;
        EXPECT_TRUE(a.offset + a.size <= b.offset || b.offset + b.size <= a.offset)
            << "round " << round << ": buffers " << i << " and " << j << " overlap";
      }
    }
  }
}

// Regression: every slot of the delegate held two oneDNN memory
// descriptors (696 bytes each) and every step one, so a graph of 10^6
// values took 1.5 GB of init state before it had a step. The descriptors
// few slots have live out of line now.
TEST(OnednnPlan, SlotAndStepStateStaysSmall) {
  EXPECT_LE(sizeof(runtime::onednn::SlotState), 256u);
  EXPECT_LE(sizeof(runtime::onednn::Step), 256u);
}

// "%x = placeholder : f32[n]" split into %p0 ... %p{n-1} (f32[1] each),
// then `body`, which defines %y, the program's one output.
std::string split_then(int64_t n, const std::string& body) {
  std::string pieces, types, sizes;
  for (int64_t k = 0; k < n; ++k) {
    pieces += (k ? ", %p" : "%p") + std::to_string(k);
    types += k ? ", f32[1]" : "f32[1]";
    sizes += k ? ", 1" : "1";
  }
  return "program dialect = \"edge\"\nsignature {\n  input user_input %x target = \"x\"\n"
         "  output user_output %y target = \"y\"\n}\ngraph {\n  %x = placeholder : f32[" + std::to_string(n) +
         "]\n  " + pieces + " = edge.split.default(%x, sizes = [" + sizes + "]) : " + types + "\n" + body +
         "  output(%y)\n}\n";
}

// Regression: the delegate placed each of its buffers by scanning every
// buffer live at the time, so its init (and the compiler's constant
// preparation, which builds it too) was quadratic in the values live at
// once: a Sum of 10,000 values took 6 s to load. Here 30,000 values are
// live together: the pieces of a split, summed one by one (small integers,
// so the sum is exact), and concatenated in reverse order (which also
// checks that no two of them share memory).
TEST(OnednnWide, ManyValuesLiveAtOnce) {
  constexpr int64_t kValues = 30000;
  std::vector<float> x(kValues);
  double sum = 0;
  for (int64_t i = 0; i < kValues; ++i) {
    x[static_cast<size_t>(i)] = static_cast<float>(i % 7 - 3);
    sum += x[static_cast<size_t>(i)];
  }
  std::string adds;
  for (int64_t k = 1; k < kValues; ++k) {
    const std::string acc = k == 1 ? "%p0" : "%s" + std::to_string(k - 1);
    adds += "  " + (k + 1 == kValues ? std::string("%y") : "%s" + std::to_string(k)) + " = edge.add.Tensor(" + acc +
            ", %p" + std::to_string(k) + ") : f32[1]\n";
  }
  std::vector<std::string> reversed;
  for (int64_t k = kValues; k-- > 0;) reversed.push_back("%p" + std::to_string(k));
  const std::string type = "f32[" + std::to_string(kValues) + "]";
  with_hang_guard("a sum of 30,000 values", kHangLimit, [&] {
    const RunResult r = run_wide(split_then(kValues, adds), {x}, "onednn");
    EXPECT_EQ(r.portable, 0u);
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_EQ(r.outputs[0], std::vector<float>{static_cast<float>(sum)});
  });
  with_hang_guard("a concat of 30,000 values", kHangLimit, [&] {
    const RunResult r = run_wide(split_then(kValues, concat_line(reversed, 0, type)), {x}, "onednn");
    EXPECT_EQ(r.portable, 0u);
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_TRUE(std::equal(x.rbegin(), x.rend(), r.outputs[0].begin(), r.outputs[0].end()));
  });
}


// Regression: after each instruction the delegate's init looked at every
// delegate output (to reorder one its producer left blocked), quadratic in
// a graph whose many instructions each give an output. 100,000 negations
// of x, each an output: output k is -x.
TEST(OnednnWide, ManyInstructionsEachAnOutput) {
  constexpr int64_t kOutputs = 100000;
  std::string sig = "  input user_input %x target = \"x\"\n", body, results;
  for (int64_t k = 0; k < kOutputs; ++k) {
    const std::string name = "v" + std::to_string(k);
    sig += "  output user_output %" + name + " target = \"" + name + "\"\n";
    body += "  %" + name + " = edge.neg.default(%x) : f32[2]\n";
    results += (k ? ", %" : "%") + name;
  }
  const std::string text = "program dialect = \"edge\"\nsignature {\n" + sig +
                           "}\ngraph {\n  %x = placeholder : f32[2]\n" + body + "  output(" + results + ")\n}\n";
  with_hang_guard("100,000 instructions each an output", kHangLimit, [&] {
    const auto outputs = run_in_delegate(text, {{1.5f, -2.f}});
    ASSERT_EQ(outputs.size(), static_cast<size_t>(kOutputs));
    int64_t wrong = 0;
    for (const auto& v : outputs) wrong += v != std::vector<float>{-1.5f, 2.f};
    EXPECT_EQ(wrong, 0);
  });
}


// Bytes malloc has handed out and not had back, blocks it mapped included.
size_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

// Regression: every step reading a value made a memory object of its own
// (a kilobyte each), so a concat of 10,000 copies of x took 10 MB of init
// state for one 4-byte input; consecutive reads of the same view share
// one now. The heap init takes stays under 400 bytes an operand.
TEST(OnednnWide, AnInputReadByManyStepsSharesItsMemoryObject) {
  constexpr int64_t kCopies = 10000;
  const std::string text = "program dialect = \"edge\"\nsignature {\n  input user_input %x target = \"x\"\n"
                           "  output user_output %y target = \"y\"\n}\ngraph {\n  %x = placeholder : f32[1]\n" +
                           concat_line(std::vector<std::string>(kCopies, "%x"), 0, "f32[" + std::to_string(kCopies) + "]") +
                           "  output(%y)\n}\n";
  auto p = parse_program(text, "copies.ir");
  run_pass_verified(*p, "memory_plan");
  AlignedBytes payload(serialize_program_table(*p, "test"));
  struct NoData final : runtime::NamedDataMap {
    const runtime::NamedDataEntry* find(std::string_view) const override { return nullptr; }
  } none;
  const runtime::Backend* backend = runtime::find_backend("onednn");
  // Once first: oneDNN's own first-use state (its primitive cache, JIT
  // code) is not the delegate's.
  Result<void*> warm = backend->init(payload.span(), none, 1);
  ASSERT_TRUE(warm.ok()) << error_detail();
  backend->destroy(*warm);
  const size_t before = heap_in_use();
  Result<void*> handle = backend->init(payload.span(), none, 1);
  ASSERT_TRUE(handle.ok()) << error_detail();
  const size_t grown = heap_in_use() - before;
  backend->destroy(*handle);
  EXPECT_LT(grown, static_cast<size_t>(kCopies) * 400) << "init kept " << grown << " bytes";
}

}  // namespace
}  // namespace edgec

namespace edgec {
namespace {

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

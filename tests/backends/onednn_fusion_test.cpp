// The onednn backend's fusions (a convolution or product with what follows
// it, Winograd chains, matmuls by constant weights) and its weights stored
// in the layout oneDNN chose, each compared with the portable kernels as in
// onednn_test.cpp.
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

}  // namespace
}  // namespace edgec

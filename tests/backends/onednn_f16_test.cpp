// The onednn delegate on float16 programs (issue 31): f16 values are held
// in f32 inside the delegate (backends/onednn/runtime_state.h): constants
// widened at init, f16 inputs widened by a first step and f16 outputs
// narrowed by a last one, every step between in f32, a cast between f16
// and f32 the same values. So a model with f16 weights and f32 inputs and
// outputs (what the float16 converters write) computes the f32 model with
// those weights, as ONNX Runtime does on a CPU without f16 arithmetic, and
// its file keeps the weights in f16.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "backends/delegate_harness.h"
#include "backends/onednn/runtime_state.h"
#include "base/half.h"

namespace edgec {
namespace {

constexpr const char* kAsF32 = " (f16 as f32)";

// `name16` = `name` cast to f16.
void half(Ir& ir, const std::string& name, const std::vector<int64_t>& shape) {
  ir.op("%" + name + "16 = edge.cast.default(%" + name + ", dtype = f16) : f16" + shape_str(shape));
}

// A small conv net, its data in `dt` ("f16" or "f32"): conv + batch norm +
// relu, max pool, a conv with a residual add and hardswish, bilinear
// upsampling, concat on channels, a 1x1 conv and sigmoid (the mask %y), and
// global mean, a linear layer with its bias (the logits %z). Weights are
// the constants cast to f16 (folded at compile time into f16 constants);
// for "f32", cast back, so that both nets have the same weights. The input
// is cast to `dt` (for f32, no cast).
Ir conv_net(const std::string& dt) {
  Ir ir;
  ir.input("x", {1, 8, 16, 16}, -1.f, 1.f);
  struct W {
    const char* name;
    std::vector<int64_t> shape;
    float lo, hi;
  };
  const std::vector<W> weights = {{"w1", {16, 8, 3, 3}, -0.3f, 0.3f}, {"g", {16}, 0.5f, 1.5f},
                                  {"b", {16}, -0.2f, 0.2f},          {"mu", {16}, -0.2f, 0.2f},
                                  {"var", {16}, 0.5f, 1.5f},         {"w2", {16, 16, 3, 3}, -0.2f, 0.2f},
                                  {"w3", {1, 32, 1, 1}, -0.3f, 0.3f}, {"wf", {16, 10}, -0.5f, 0.5f},
                                  {"bf", {10}, -0.1f, 0.1f}};
  for (const W& w : weights) ir.constant(w.name, w.shape, w.lo, w.hi);
  for (const W& w : weights) {
    half(ir, w.name, w.shape);
    if (dt == "f32")
      ir.op("%" + std::string(w.name) + "_ = edge.cast.default(%" + w.name + "16, dtype = f32) : f32" +
            shape_str(w.shape));
  }
  auto w = [&](const std::string& n) { return "%" + n + (dt == "f16" ? "16" : "_"); };
  const std::string t = " : " + dt;
  if (dt == "f16") half(ir, "x", {1, 8, 16, 16});
  const std::string x = dt == "f16" ? "%x16" : "%x";
  ir.op("%c1 = edge.conv.default(" + x + ", " + w("w1") + ", padding = [1, 1])" + t + "[1, 16, 16, 16]");
  ir.op("%n1 = edge.batch_norm.default(%c1, " + w("g") + ", " + w("b") + ", " + w("mu") + ", " + w("var") +
        ", eps = 1.0e-5)" + t + "[1, 16, 16, 16]");
  ir.op("%r1 = edge.relu.default(%n1)" + t + "[1, 16, 16, 16]");
  ir.op("%p = edge.max_pool.default(%r1, kernel_size = [2, 2], stride = [2, 2])" + t + "[1, 16, 8, 8]");
  ir.op("%c2 = edge.conv.default(%p, " + w("w2") + ", padding = [1, 1])" + t + "[1, 16, 8, 8]");
  ir.op("%a = edge.add.Tensor(%c2, %p)" + t + "[1, 16, 8, 8]");
  ir.op("%h = edge.hardswish.default(%a)" + t + "[1, 16, 8, 8]");
  ir.op("%u = edge.upsample_bilinear.default(%h, output_size = [16, 16])" + t + "[1, 16, 16, 16]");
  ir.op("%k = edge.concat.default([%u, %r1], dim = 1)" + t + "[1, 32, 16, 16]");
  ir.op("%c3 = edge.conv.default(%k, " + w("w3") + ")" + t + "[1, 1, 16, 16]");
  ir.op("%s = edge.sigmoid.default(%c3)" + t + "[1, 1, 16, 16]");
  ir.op("%g2 = edge.mean.default(%h, dims = [2, 3])" + t + "[1, 16]");
  ir.op("%l = edge.matmul.default(%g2, " + w("wf") + ")" + t + "[1, 10]");
  ir.op("%lb = edge.add.Tensor(%l, " + w("bf") + ")" + t + "[1, 10]");
  if (dt == "f16") {
    ir.op("%y = edge.cast.default(%s, dtype = f32) : f32[1, 1, 16, 16]");
    ir.op("%z = edge.cast.default(%lb, dtype = f32) : f32[1, 10]");
  } else {
    ir.op("%y = edge.clone.default(%s) : f32[1, 1, 16, 16]");
    ir.op("%z = edge.clone.default(%lb) : f32[1, 10]");
  }
  return ir;
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const double d = std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i]));
    m = std::isnan(d) ? INFINITY : std::max(m, d);
  }
  return a.size() == b.size() ? m : INFINITY;
}

// The converters' model: f16 weights and activations, f32 in and out. The
// whole of it runs in the delegate (the casts too), every step computing
// f16 values in f32 and named so, and its outputs are the f32 net's with
// the same weights (the portable kernels' f32 run) within f32 rounding,
// where the portable kernels' f16 run, rounding after every operator, is
// further off. (oneDNN 2.6 creates no f16 convolution on a CPU; the
// delegate asks it on this machine and says what it found.)
TEST(OnednnF16, ConvNetComputesTheF32NetWithItsWeights) {
  std::printf("[ onednn f16 convolution on this machine: %s ]\n",
              runtime::onednn::f16_native_convolution() ? "native" : "none; f16 held in f32");
  const std::vector<std::string> outs = {"y", "z"};
  const RunResult got = compile_and_run(conv_net("f16"), outs, "onednn");
  const RunResult f32 = compile_and_run(conv_net("f32"), outs, "none");
  const RunResult f16_portable = compile_and_run(conv_net("f16"), outs, "none");
  ASSERT_EQ(got.outputs.size(), 2u);
  EXPECT_EQ(got.portable, 0u) << "everything, the casts included, in the delegate";
  for (const char* op : {"cast", "conv", "batch_norm", "max_pool", "add", "hardswish", "upsample_bilinear", "concat",
                         "sigmoid", "mean", "matmul"})
    EXPECT_NE(std::find(got.delegated.begin(), got.delegated.end(), op), got.delegated.end()) << op;
  std::string steps;
  for (const std::string& n : got.steps) steps += "\n  " + n;
  SCOPED_TRACE("steps:" + steps);
  // Every step but the casts' views computes f16 values in f32; no
  // widening or narrowing: the delegate's inputs and outputs are f32.
  size_t as_f32 = 0;
  for (const std::string& n : got.steps) as_f32 += n.ends_with(kAsF32);
  EXPECT_GE(as_f32, 8u);
  for (const std::string& n : got.steps) {
    EXPECT_NE(n, "f16 to f32 (input)");
    EXPECT_NE(n, "f32 to f16 (output)");
  }
  expect_outputs_match(got, f32, compare::Tolerance::either(1e-5, 1e-5), outs);
  for (size_t k = 0; k < outs.size(); ++k) {
    const double ours = max_abs_diff(got.outputs[k], f32.outputs[k]);
    const double rounded = max_abs_diff(f16_portable.outputs[k], f32.outputs[k]);
    std::printf("[ %s: delegate vs f32 net %.3g; portable f16 vs f32 net %.3g ]\n", outs[k].c_str(), ours, rounded);
    EXPECT_LE(ours, rounded) << outs[k];
  }
}

// The same program text with input %x (and its placeholder) in f16.
std::string with_f16_input(const Ir& ir, const std::vector<std::string>& outputs, const std::string& shape) {
  std::string text = ir.text(outputs);
  const std::string from = "%x = placeholder : f32" + shape, to = "%x = placeholder : f16" + shape;
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos);
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

struct F16Run {
  std::vector<std::vector<float>> outputs;  // f16 values, widened
  std::vector<std::string> steps;
  size_t portable = 0;
};

// Compiles `text` with `backends`, runs it twice on the f16 input `x`
// (strided: every other element of a buffer twice its size, when `strided`)
// and returns its f16 outputs.
F16Run run_f16(const std::string& text, const std::string& backends, const std::vector<int64_t>& shape,
               const std::vector<Half>& x, bool strided, size_t num_outputs) {
  F16Run r;
  auto p = parse_program(text, "test.ir");
  compile_program(*p, {}, backends);
  AlignedBytes bytes(serialize_program(*p));
  auto loaded = runtime::Program::load_from_bytes(bytes.span());
  EXPECT_TRUE(loaded.ok()) << error_detail();
  if (!loaded.ok()) return r;
  for (const auto& in : (*loaded)->instructions()) r.portable += !in.is_delegate_call();
  auto m = runtime::Method::create(**loaded, 2);
  EXPECT_TRUE(m.ok()) << error_detail();
  if (!m.ok()) return r;
  for (size_t i = 0; i < (*loaded)->delegates().size(); ++i)
    for (auto& name : (*m)->delegate_step_names(i)) r.steps.push_back(name);
  std::vector<Half> wide(x.size() * 2);
  for (size_t i = 0; i < x.size(); ++i) wide[2 * i] = x[i];
  std::vector<Half> plain = x;
  for (int round = 0; round < 2; ++round) {
    Tensor t = make_tensor(DType::Float16, shape, strided ? wide.data() : plain.data(), 0);
    if (strided) t.strides[t.rank - 1] = 2 * t.strides[t.rank - 1];
    for (int d = t.rank - 2; strided && d >= 0; --d) t.strides[d] = t.strides[d + 1] * t.sizes[d + 1];
    EXPECT_EQ((*m)->set_input(0, t), Error::Ok) << error_detail();
    EXPECT_EQ((*m)->execute(), Error::Ok) << error_detail();
  }
  for (size_t i = 0; i < num_outputs; ++i) {
    const Tensor& t = (*m)->output(i);
    EXPECT_EQ(t.dtype, DType::Float16);
    auto& v = r.outputs.emplace_back();
    for (int64_t k = 0; t.dtype == DType::Float16 && k < t.numel(); ++k) v.push_back(half_to_float(t.data_as<Half>()[k]));
  }
  return r;
}

// A delegate whose input and outputs are f16: a first step widens the
// input (a strided one packed first), a last step per f16 output narrows
// it, and an output that is a view of the input is narrowed from the
// widened copy, which stays live to the end. Compared with the portable
// kernels within f16's precision (they round after every operator).
TEST(OnednnF16, EdgesWidenAndNarrow) {
  Ir ir;
  ir.input("x", {1, 8, 6, 6}, -1.f, 1.f).constant("w", {8, 8, 3, 3}, -0.3f, 0.3f).constant("b", {8});
  half(ir, "w", {8, 8, 3, 3});
  half(ir, "b", {8});
  ir.op("%c = edge.conv.default(%x, %w16, %b16, padding = [1, 1]) : f16[1, 8, 6, 6]");
  ir.op("%r = edge.relu.default(%c) : f16[1, 8, 6, 6]");
  ir.op("%p = edge.avg_pool.default(%r, kernel_size = [2, 2], stride = [2, 2]) : f16[1, 8, 3, 3]");
  ir.op("%u = edge.upsample_nearest.default(%p, output_size = [6, 6]) : f16[1, 8, 6, 6]");
  ir.op("%y = edge.mul.Tensor(%u, %x) : f16[1, 8, 6, 6]");
  ir.op("%v = edge.reshape.default(%x, shape = [8, 36]) : f16[8, 36]");
  const std::vector<std::string> outs = {"y", "v"};
  const std::vector<int64_t> shape = {1, 8, 6, 6};
  const std::string text = with_f16_input(ir, outs, "[1, 8, 6, 6]");
  std::vector<Half> x(288);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float_to_half(std::sin(0.37f * static_cast<float>(i)));
  for (bool strided : {false, true}) {
    SCOPED_TRACE(strided ? "strided input" : "contiguous input");
    const F16Run got = run_f16(text, "onednn", shape, x, strided, outs.size());
    const F16Run want = run_f16(text, "none", shape, x, strided, outs.size());
    ASSERT_EQ(got.outputs.size(), 2u);
    EXPECT_EQ(got.portable, 0u);
    std::string steps;
    for (const std::string& n : got.steps) steps += "\n  " + n;
    SCOPED_TRACE("steps:" + steps);
    ASSERT_FALSE(got.steps.empty());
    EXPECT_EQ(got.steps.front(), "f16 to f32 (input)");
    EXPECT_EQ(got.steps.back(), "f32 to f16 (output)");
    EXPECT_EQ(std::count(got.steps.begin(), got.steps.end(), "f32 to f16 (output)"), 2);
    // The view of the input is the input's f16 values exactly.
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(got.outputs[1][i], half_to_float(x[i])) << i;
    // y within a few f16 ulps of the portable kernels' f16 run.
    for (size_t i = 0; i < got.outputs[0].size(); ++i) {
      const float a = got.outputs[0][i], b = want.outputs[0][i];
      ASSERT_FALSE(std::isnan(a)) << i;
      ASSERT_LE(std::fabs(a - b), 2e-3f + 4e-3f * std::fabs(b)) << i;
    }
  }
}

// The file keeps f16 weights in f16: a net's program is at most 0.55 of the
// same net's in f32 (the f32 file's convolution weights are stored in the
// layout oneDNN chose, of the same size).
TEST(OnednnF16, FileHoldsHalfTheBytes) {
  auto program_bytes = [](const std::string& dt) {
    Ir ir;
    ir.input("x", {1, 32, 16, 16}).constant("w1", {64, 32, 3, 3}).constant("w2", {64, 64, 3, 3});
    ir.constant("b", {64});
    const std::string t = " : " + dt;
    std::string w1 = "%w1", w2 = "%w2", b = "%b", x = "%x";
    if (dt == "f16") {
      half(ir, "x", {1, 32, 16, 16});
      half(ir, "w1", {64, 32, 3, 3});
      half(ir, "w2", {64, 64, 3, 3});
      half(ir, "b", {64});
      w1 += "16", w2 += "16", b += "16", x += "16";
    }
    ir.op("%c = edge.conv.default(" + x + ", " + w1 + ", " + b + ", padding = [1, 1])" + t + "[1, 64, 16, 16]");
    ir.op("%r = edge.relu.default(%c)" + t + "[1, 64, 16, 16]");
    ir.op("%d = edge.conv.default(%r, " + w2 + ", padding = [1, 1])" + t + "[1, 64, 16, 16]");
    ir.op(dt == "f16" ? "%y = edge.cast.default(%d, dtype = f32) : f32[1, 64, 16, 16]"
                      : "%y = edge.clone.default(%d) : f32[1, 64, 16, 16]");
    auto p = parse_program(ir.text({"y"}), "test.ir");
    compile_program(*p, {}, "onednn");
    return serialize_program(*p).size();
  };
  const size_t f16 = program_bytes("f16"), f32 = program_bytes("f32");
  std::printf("[ program file: f16 %zu bytes, f32 %zu bytes (%.3f) ]\n", f16, f32,
              static_cast<double>(f16) / static_cast<double>(f32));
  EXPECT_LE(static_cast<double>(f16), 0.55 * static_cast<double>(f32));
}

}  // namespace
}  // namespace edgec

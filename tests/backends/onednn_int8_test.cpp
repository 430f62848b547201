// The onednn delegate's integer operators (backends/onednn/runtime_quant.cpp):
// qlinear_conv and qlinear_matmul on oneDNN's int8 primitives, compared
// with the portable kernels over many shapes (strides, padding, dilation,
// groups, depthwise, 1x1, 1-D; per-tensor and per-channel weight scales;
// u8 and i8 sources and results; zero points at their extremes;
// saturation). Integer outputs must be equal, ties included: the delegate
// rounds float(acc) * m to nearest even before it adds y's zero point, as
// ONNX does (post-ops, not oneDNN's destination zero point, which it adds
// before rounding). Which implementation oneDNN picked (VNNI exactly where
// /proc/cpuinfo has it and oneDNN is not held to AVX2) is checked too. The
// backends.avx2.* twin runs all of it with oneDNN held to AVX2.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "backends/delegate_harness.h"
#include "backends/int8_reference.h"
#include "backends/onednn/compiler.h"
#include "backends/onednn/runtime_quant.h"
#include "backends/onednn/runtime_state.h"
#include "runtime/delegate.h"
#include "support/compiled_program.h"

namespace edgec {
namespace {

std::string ints(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

struct ConvCase {
  std::vector<int64_t> x;  // N, C, spatial...
  int64_t cout = 8;
  std::vector<int64_t> k, stride, pad, dil;  // pad: begins then ends
  int64_t groups = 1;
  DType xdt = DType::UInt8, ydt = DType::UInt8;
  bool per_channel = false, bias = true;
  int32_t x_zp = 0, y_zp = 0;
  float x_scale = 0.02f, y_scale = 0.05f;
  uint32_t seed = 1;
};

// What a run gives back and what the tie check needs.
struct Built {
  Ir ir;
  std::vector<int64_t> w, y;
  std::vector<int64_t> wv, bias;  // the constants' values
  std::vector<float> m;           // per output channel
};

int64_t lo_of(DType t) { return t == DType::UInt8 ? 0 : -128; }
int64_t hi_of(DType t) { return t == DType::UInt8 ? 255 : 127; }

Built conv_program(const ConvCase& c) {
  Built b;
  const size_t nd = c.x.size() - 2;
  b.w = {c.cout, c.x[1] / c.groups};
  b.w.insert(b.w.end(), c.k.begin(), c.k.end());
  b.y = {c.x[0], c.cout};
  for (size_t i = 0; i < nd; ++i)
    b.y.push_back((c.x[2 + i] + c.pad[i] + c.pad[nd + i] - c.dil[i] * (c.k[i] - 1) - 1) / c.stride[i] + 1);
  std::mt19937 rng(c.seed);
  std::uniform_int_distribution<int> w8(-128, 127), bias(-3000, 3000);
  std::uniform_real_distribution<float> ws(0.002f, 0.02f);
  b.wv.resize(static_cast<size_t>(numel(b.w)));
  for (auto& v : b.wv) v = w8(rng);
  b.bias.resize(static_cast<size_t>(c.cout));
  for (auto& v : b.bias) v = bias(rng);
  std::vector<float> wscale(c.per_channel ? static_cast<size_t>(c.cout) : 1);
  for (auto& v : wscale) v = ws(rng);
  for (int64_t o = 0; o < c.cout; ++o) b.m.push_back(c.x_scale * wscale[c.per_channel ? o : 0] / c.y_scale);
  const std::vector<int64_t> pshape = c.per_channel ? std::vector<int64_t>{c.cout} : std::vector<int64_t>{};
  b.ir.input("x", c.x, static_cast<float>(lo_of(c.xdt)), static_cast<float>(hi_of(c.xdt)), c.xdt);
  b.ir.float_constant("xs", {}, {c.x_scale}).int_constant("xz", c.xdt, {}, {c.x_zp});
  b.ir.int_constant("w", DType::Int8, b.w, b.wv).float_constant("ws", pshape, wscale);
  b.ir.int_constant("wz", DType::Int8, pshape, std::vector<int64_t>(wscale.size(), 0));
  b.ir.float_constant("ys", {}, {c.y_scale}).int_constant("yz", c.ydt, {}, {c.y_zp});
  if (c.bias) b.ir.int_constant("b", DType::Int32, {c.cout}, b.bias);
  b.ir.op("%y = edge.qlinear_conv.default(%x, %xs, %xz, %w, %ws, %wz, %ys, %yz" + std::string(c.bias ? ", %b" : "") +
          ", stride = " + ints(c.stride) + ", padding = " + ints(c.pad) + ", dilation = " + ints(c.dil) +
          ", groups = " + std::to_string(c.groups) + ") : " + std::string(dtype_name(c.ydt)) + shape_str(b.y));
  if (!c.bias) b.bias.assign(static_cast<size_t>(c.cout), 0);
  return b;
}

// float(acc) * m of output element `e` (int8_reference.h).
float conv_product(const ConvCase& c, const Built& b, const std::vector<float>& x, int64_t e) {
  return qlinear_conv_product(c, b, c.x_zp, 0, x, e);
}

// Compares the delegate's output with the portable kernel's: equal on every
// element. A difference is reported with p = float(acc) * m (`product`,
// from the definition) and y's zero point, so that a tie (p halfway between
// two integers) shows as one.
void expect_exact(const RunResult& got, const RunResult& want, int32_t y_zp,
                  const std::function<float(int64_t)>& product, const std::string& context) {
  EXPECT_EQ(got.shapes, want.shapes) << context;
  if (got.outputs.empty() || want.outputs.empty() || got.outputs[0].size() != want.outputs[0].size()) {
    ADD_FAILURE() << "no output to compare\n" << context;
    return;
  }
  int64_t bad = 0;
  for (size_t e = 0; e < want.outputs[0].size(); ++e) {
    const float g = got.outputs[0][e], w = want.outputs[0][e];
    if (g == w) continue;
    if (bad++ < 5)
      ADD_FAILURE() << "element " << e << ": onednn " << g << ", portable " << w << " (float(acc) * m = "
                    << product(static_cast<int64_t>(e)) << ", y zero point " << y_zp << ")\n"
                    << context;
  }
  EXPECT_EQ(bad, 0) << "elements differing\n" << context;
}

// How many outputs of a case have p = float(acc) * m exactly halfway
// between two integers (where rounding after adding an odd zero point
// would differ from ONNX's).
int64_t halfway_products(int64_t n, const std::function<float(int64_t)>& product) {
  int64_t halfway = 0;
  for (int64_t e = 0; e < n; ++e) {
    const float p = product(e);
    halfway += p - std::floor(p) == 0.5f;
  }
  return halfway;
}

// The first run's inputs, regenerated as compile_and_run makes them.
std::vector<float> first_input(const Ir& ir) {
  std::mt19937 rng(7);
  const auto& spec = ir.inputs()[0];
  std::uniform_real_distribution<float> u(spec.lo, spec.hi + 1.f);
  std::vector<float> v(static_cast<size_t>(numel(spec.shape)));
  for (float& x : v) x = std::min(std::floor(u(rng)), spec.hi);
  return v;
}

// Runs the case on the delegate (with `threads`) and on the portable
// kernels and compares; returns how many of its products are ties.
int64_t run_conv_case(const ConvCase& c, int64_t* elements = nullptr, int threads = 2) {
  Built b = conv_program(c);
  const std::string text = b.ir.text({"y"});
  const RunResult want = compile_and_run(b.ir, {"y"}, "none");
  const RunResult got = compile_and_run(b.ir, {"y"}, "onednn", threads);
  EXPECT_NE(std::find(got.delegated.begin(), got.delegated.end(), "qlinear_conv"), got.delegated.end())
      << "qlinear_conv was not delegated\n" << text;
  EXPECT_EQ(got.portable, 0u) << text;
  const std::vector<float> x = first_input(b.ir);
  if (elements) *elements += numel(b.y);
  auto product = [&](int64_t e) { return conv_product(c, b, x, e); };
  expect_exact(got, want, c.y_zp, product, text);
  return halfway_products(numel(b.y), product);
}

ConvCase conv2d(std::vector<int64_t> x, int64_t cout, int64_t k, int64_t stride, int64_t pad, int64_t groups = 1) {
  ConvCase c;
  c.x = std::move(x);
  c.cout = cout;
  c.k = {k, k};
  c.stride = {stride, stride};
  c.pad = {pad, pad, pad, pad};
  c.dil = {1, 1};
  c.groups = groups;
  return c;
}

// Many geometries, each with u8 and i8 sources and results, per-tensor and
// per-channel weight scales, and zero points inside and at the ends of
// their range.
TEST(OnednnInt8, ConvMatchesThePortableKernel) {
  std::vector<ConvCase> shapes = {
      conv2d({1, 16, 9, 9}, 32, 3, 1, 1),     // ResNet's 3x3
      conv2d({2, 8, 10, 11}, 16, 3, 2, 1),    // strided, batch 2, odd sizes
      conv2d({1, 64, 7, 7}, 64, 1, 1, 0),     // 1x1
      conv2d({1, 24, 8, 8}, 24, 3, 1, 1, 24), // depthwise
      conv2d({1, 16, 8, 8}, 32, 3, 1, 1, 4),  // grouped
      conv2d({1, 3, 17, 17}, 16, 7, 2, 3),    // a stem: 3 input channels, 7x7
      conv2d({1, 32, 6, 6}, 8, 1, 2, 0),      // 1x1 strided (a downsample)
  };
  ConvCase asym = conv2d({1, 8, 9, 7}, 8, 3, 1, 0);
  asym.pad = {1, 0, 0, 2};  // begins h, w; ends h, w
  asym.dil = {2, 1};
  shapes.push_back(asym);
  ConvCase conv1d;
  conv1d.x = {2, 8, 20};
  conv1d.cout = 16;
  conv1d.k = {3};
  conv1d.stride = {2};
  conv1d.pad = {1, 1};
  conv1d.dil = {1};
  shapes.push_back(conv1d);
  struct Quant {
    DType xdt, ydt;
    int32_t x_zp, y_zp;
    bool per_channel;
  };
  const Quant quants[] = {
      {DType::UInt8, DType::UInt8, 128, 131, false}, {DType::UInt8, DType::UInt8, 0, 0, true},
      {DType::UInt8, DType::Int8, 255, -3, true},    {DType::Int8, DType::Int8, 0, 0, false},
      {DType::Int8, DType::UInt8, -128, 255, true},  {DType::Int8, DType::Int8, 127, -128, true},
  };
  int64_t ties = 0, elements = 0;
  uint32_t seed = 1;
  for (const ConvCase& shape : shapes)
    for (const Quant& q : quants) {
      ConvCase c = shape;
      c.xdt = q.xdt;
      c.ydt = q.ydt;
      c.x_zp = q.x_zp;
      c.y_zp = q.y_zp;
      c.per_channel = q.per_channel;
      c.bias = seed % 3 != 0;
      c.seed = seed++;
      SCOPED_TRACE("case " + std::to_string(c.seed));
      ties += run_conv_case(c, &elements);
    }
  // Ties need an exact halfway product: with these scales, rare.
  std::cout << "[ onednn int8 ] conv: " << ties << " halfway products in " << elements << " elements, all equal\n";
}

// Saturation both ways: large scales push most results past the dtype's
// range, and sources at the ends of theirs with weights at -128 and 127
// make the largest sums (what saturates the int16 pair sums of u8 x s8
// without VNNI).
TEST(OnednnInt8, ConvSaturates) {
  int64_t ties = 0;
  for (DType xdt : {DType::UInt8, DType::Int8})
    for (DType ydt : {DType::UInt8, DType::Int8}) {
      ConvCase c = conv2d({1, 32, 6, 6}, 16, 3, 1, 1);
      c.xdt = xdt;
      c.ydt = ydt;
      c.x_zp = xdt == DType::UInt8 ? 0 : -128;
      c.y_zp = ydt == DType::UInt8 ? 100 : 0;
      c.y_scale = 0.0005f;  // most results past the range
      c.seed = 40 + static_cast<uint32_t>(xdt) + static_cast<uint32_t>(ydt);
      SCOPED_TRACE(std::string(dtype_name(xdt)) + " to " + std::string(dtype_name(ydt)));
      ties += run_conv_case(c);
      c.y_scale = 2.0f;  // the largest sums, within range
      ties += run_conv_case(c);
    }
  std::cout << "[ onednn int8 ] saturating conv: " << ties << " halfway products, all equal\n";
}

// Scales whose product is a power of two make float(acc) * m a tie often
// (m = 0.5 * 0.25 / 1 = 1/8: every acc = 4 mod 8). ONNX rounds p to even
// and then adds y's zero point; rounding p + y_zp instead (oneDNN's own
// destination zero point) is one step off at every tie with an odd zero
// point whose two roundings stay distinct after saturation. The delegate
// must equal the portable kernel on all of them, and the case must make
// such ties (a regression test of the post-op rounding).
TEST(OnednnInt8, TiesRoundBeforeTheZeroPointIsAdded) {
  for (int32_t y_zp : {0, 7, 100, 101}) {
    SCOPED_TRACE("y zero point " + std::to_string(y_zp));
    ConvCase c = conv2d({1, 8, 6, 6}, 8, 3, 1, 1);
    c.x_zp = 3;
    c.y_zp = y_zp;
    c.seed = 77;
    Built b = conv_program(c);  // its weights and bias, with exact scales below
    Built e;
    e.w = b.w;
    e.y = b.y;
    e.wv = b.wv;
    // Small sources and biases keep most results inside u8's range, where
    // a wrong rounding shows.
    for (int64_t v : b.bias) e.bias.push_back(v / 100);
    e.m.assign(static_cast<size_t>(c.cout), 0.125f);
    e.ir.input("x", c.x, 0.f, 6.f, DType::UInt8);
    e.ir.float_constant("xs", {}, {0.5f}).int_constant("xz", DType::UInt8, {}, {c.x_zp});
    e.ir.int_constant("w", DType::Int8, e.w, e.wv).float_constant("ws", {}, {0.25f});
    e.ir.int_constant("wz", DType::Int8, {}, {0});
    e.ir.float_constant("ys", {}, {1.f}).int_constant("yz", DType::UInt8, {}, {y_zp});
    e.ir.int_constant("b", DType::Int32, {c.cout}, e.bias);
    e.ir.op("%y = edge.qlinear_conv.default(%x, %xs, %xz, %w, %ws, %wz, %ys, %yz, %b, stride = [1, 1], padding = [1, "
            "1, 1, 1], dilation = [1, 1], groups = 1) : u8" + shape_str(e.y));
    const RunResult want = compile_and_run(e.ir, {"y"}, "none");
    const RunResult got = compile_and_run(e.ir, {"y"}, "onednn");
    const std::vector<float> xv = first_input(e.ir);
    auto product = [&](int64_t k) { return conv_product(c, e, xv, k); };
    expect_exact(got, want, y_zp, product, e.ir.text({"y"}));
    int64_t halfway = 0, apart = 0;
    auto sat = [](float v) { return std::min(255.f, std::max(0.f, v)); };
    for (int64_t k = 0; k < numel(e.y); ++k) {
      const float p = product(k);
      if (p - std::floor(p) != 0.5f) continue;
      ++halfway;
      apart += sat(std::nearbyint(p) + static_cast<float>(y_zp)) != sat(std::nearbyint(p + static_cast<float>(y_zp)));
    }
    std::cout << "[ onednn int8 ] y zero point " << y_zp << ": " << halfway << " of " << numel(e.y)
              << " products halfway, " << apart << " of them where rounding after the zero point differs; all equal\n";
    EXPECT_GT(halfway, 0) << "the case makes ties";
    if (y_zp % 2 != 0) {
      EXPECT_GT(apart, 0) << "the case makes ties that rounding after the zero point gets wrong";
    }
  }
}

struct MatmulCase {
  std::vector<int64_t> a;  // ..., M, K
  int64_t n = 16;
  DType adt = DType::UInt8, ydt = DType::UInt8;
  bool per_column = false;
  int32_t a_zp = 0, y_zp = 0;
  uint32_t seed = 1;
};

TEST(OnednnInt8, MatmulMatchesThePortableKernel) {
  const std::vector<std::vector<int64_t>> shapes = {{5, 32}, {2, 3, 7, 24}, {197, 64}, {1, 100}};
  struct Quant {
    DType adt, ydt;
    int32_t a_zp, y_zp;
    bool per_column;
  };
  const Quant quants[] = {{DType::UInt8, DType::UInt8, 128, 131, false}, {DType::UInt8, DType::Int8, 255, -128, true},
                          {DType::Int8, DType::Int8, 0, 5, true}, {DType::Int8, DType::UInt8, -128, 0, false}};
  int64_t ties = 0, elements = 0;
  uint32_t seed = 100;
  for (const auto& shape : shapes)
    for (const Quant& q : quants) {
      const int64_t K = shape.back(), N = 24;
      std::mt19937 rng(seed++);
      std::uniform_int_distribution<int> w8(-128, 127);
      std::uniform_real_distribution<float> ws(0.002f, 0.02f);
      std::vector<int64_t> bv(static_cast<size_t>(K * N));
      for (auto& v : bv) v = w8(rng);
      std::vector<float> bscale(q.per_column ? static_cast<size_t>(N) : 1);
      for (auto& v : bscale) v = ws(rng);
      const float as = 0.03f, ys = 0.04f;
      std::vector<float> m;
      for (int64_t j = 0; j < N; ++j) m.push_back(as * bscale[q.per_column ? j : 0] / ys);
      const std::vector<int64_t> pshape = q.per_column ? std::vector<int64_t>{N} : std::vector<int64_t>{};
      std::vector<int64_t> yshape = shape;
      yshape.back() = N;
      Ir ir;
      ir.input("a", shape, static_cast<float>(lo_of(q.adt)), static_cast<float>(hi_of(q.adt)), q.adt);
      ir.float_constant("as", {}, {as}).int_constant("az", q.adt, {}, {q.a_zp});
      ir.int_constant("b", DType::Int8, {K, N}, bv).float_constant("bs", pshape, bscale);
      ir.int_constant("bz", DType::Int8, pshape, std::vector<int64_t>(bscale.size(), 0));
      ir.float_constant("ys", {}, {ys}).int_constant("yz", q.ydt, {}, {q.y_zp});
      ir.op("%y = edge.qlinear_matmul.default(%a, %as, %az, %b, %bs, %bz, %ys, %yz) : " +
            std::string(dtype_name(q.ydt)) + shape_str(yshape));
      const std::string text = ir.text({"y"});
      SCOPED_TRACE(text);
      const RunResult want = compile_and_run(ir, {"y"}, "none");
      const RunResult got = compile_and_run(ir, {"y"}, "onednn");
      EXPECT_NE(std::find(got.delegated.begin(), got.delegated.end(), "qlinear_matmul"), got.delegated.end());
      EXPECT_EQ(got.portable, 0u);
      const std::vector<float> a = first_input(ir);
      auto product = [&](int64_t e) {
        const int64_t row = e / N, j = e % N;
        int64_t acc = 0;
        for (int64_t k = 0; k < K; ++k)
          acc += (static_cast<int64_t>(a[static_cast<size_t>(row * K + k)]) - q.a_zp) * bv[static_cast<size_t>(k * N + j)];
        return static_cast<float>(acc) * m[static_cast<size_t>(j)];
      };
      expect_exact(got, want, q.y_zp, product, text);
      ties += halfway_products(numel(yshape), product);
      elements += numel(yshape);
    }
  std::cout << "[ onednn int8 ] matmul: " << ties << " halfway products in " << elements << " elements, all equal\n";
}

// The partitioner's reasons for what oneDNN's int8 primitives cannot take.
TEST(OnednnInt8, Refusals) {
  const std::string conv_ops =
      "x:u8[1, 4, 5, 5]; xs:f32[]; xz:u8[]; w:i8[4, 4, 3, 3]; ws:f32[]; wz:i8[]; ys:f32[]; yz:u8[]";
  const std::string conv_call =
      "%y = edge.qlinear_conv.default(%x, %xs, %xz, %w, %ws, %wz, %ys, %yz, stride = [1, 1], padding = [1, 1, 1, 1], "
      "dilation = [1, 1], groups = 1) : u8[1, 4, 5, 5]";
  // Weights that are user inputs.
  auto reason = first_call_refusal(onednn_backend_compiler(), one_op(conv_ops, conv_call));
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("weights are not a constant"), std::string::npos) << *reason;
  // u8 weights; a weights' zero point other than 0.
  auto with_constants = [](const std::string& wdt, int64_t wz) {
    Ir ir;
    ir.input("x", {1, 4, 5, 5}, 0.f, 255.f, DType::UInt8);
    ir.float_constant("xs", {}, {0.1f}).int_constant("xz", DType::UInt8, {}, {3});
    ir.int_constant("w", wdt == "u8" ? DType::UInt8 : DType::Int8, {4, 4, 3, 3}, std::vector<int64_t>(144, 1));
    ir.float_constant("ws", {}, {0.1f}).int_constant("wz", wdt == "u8" ? DType::UInt8 : DType::Int8, {}, {wz});
    ir.float_constant("ys", {}, {0.1f}).int_constant("yz", DType::UInt8, {}, {0});
    ir.op("%y = edge.qlinear_conv.default(%x, %xs, %xz, %w, %ws, %wz, %ys, %yz, stride = [1, 1], padding = [1, 1, 1, "
          "1], dilation = [1, 1], groups = 1) : u8[1, 4, 5, 5]");
    return first_call_refusal(onednn_backend_compiler(), ir.text({"y"}));
  };
  reason = with_constants("u8", 0);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("dtype u8"), std::string::npos) << *reason;
  EXPECT_NE(reason->find("QInt8"), std::string::npos) << *reason;
  reason = with_constants("i8", 2);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("not all 0"), std::string::npos) << *reason;
  EXPECT_EQ(with_constants("i8", 0), std::nullopt);
}

// Which implementation oneDNN picked for the delegate's int8 convolution
// and matmul (the step's name carries oneDNN's impl_info_str): VNNI exactly
// where the CPU has AVX-512 VNNI or AVX-VNNI and oneDNN is not held to
// AVX2 (EDGEC_ISA=avx2, the backends.avx2.* run); oneDNN's exact
// reference code otherwise (runtime_quant.cpp says why).
TEST(OnednnInt8, VnniExactlyWhereTheCpuHasIt) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  bool cpu_vnni = false;
  while (std::getline(cpuinfo, line))
    if (line.rfind("flags", 0) == 0) {
      std::istringstream words(line);
      for (std::string w; words >> w;) cpu_vnni = cpu_vnni || w == "avx512_vnni" || w == "avx_vnni";
      break;
    }
  const char* isa = std::getenv("EDGEC_ISA");
  const bool held = isa && std::string(isa) == "avx2";
  const bool expect_vnni = cpu_vnni && !held;
  ConvCase c = conv2d({1, 16, 8, 8}, 16, 3, 1, 1);
  c.x_zp = 5;
  c.y_zp = 3;
  Built b = conv_program(c);
  const RunResult conv = compile_and_run(b.ir, {"y"}, "onednn");
  Ir mm;
  mm.input("a", {8, 32}, 0.f, 255.f, DType::UInt8);
  mm.float_constant("as", {}, {0.1f}).int_constant("az", DType::UInt8, {}, {9});
  mm.int_constant("b", DType::Int8, {32, 16}, std::vector<int64_t>(512, -3)).float_constant("bs", {}, {0.01f});
  mm.int_constant("bz", DType::Int8, {}, {0}).float_constant("ys", {}, {0.2f}).int_constant("yz", DType::UInt8, {}, {1});
  mm.op("%y = edge.qlinear_matmul.default(%a, %as, %az, %b, %bs, %bz, %ys, %yz) : u8[8, 16]");
  const RunResult matmul = compile_and_run(mm, {"y"}, "onednn");
  EXPECT_EQ(runtime::onednn::int8_vnni(), expect_vnni);
  for (const RunResult* r : {&conv, &matmul}) {
    // Besides reorders of the activations to and from oneDNN's layouts.
    auto it = std::find_if(r->steps.begin(), r->steps.end(), [](const std::string& s) { return s.rfind("qlinear_", 0) == 0; });
    ASSERT_NE(it, r->steps.end());
    const std::string& step = *it;
    std::cout << "[ onednn int8 ] step: " << step << " (cpu vnni " << cpu_vnni << ", held to avx2 " << held << ")\n";
    EXPECT_EQ(step.find("vnni") != std::string::npos, expect_vnni) << step;
    if (!expect_vnni) {
      EXPECT_NE(step.find("(ref"), std::string::npos) << step;
    }
  }
}

// ---- int8 weights stored in oneDNN's layout ---------------------------------------------------

// The delegate's constant whose target starts with `prefix`, or end().
Store::iterator constant_named(Program& delegate, const std::string& prefix) {
  for (auto it = delegate.constants.begin(); it != delegate.constants.end(); ++it)
    if (it->first.rfind(prefix, 0) == 0) return it;
  return delegate.constants.end();
}

// The weights `w`: plain, or stored in oneDNN's layout ("w@onednn:...").
Store::iterator weights_named(Program& delegate, const std::string& w) {
  auto it = delegate.constants.find(w);
  return it != delegate.constants.end() ? it : constant_named(delegate, w + "@onednn:");
}

// Points the delegate's weights `w` at `bytes` stored flat under `key`.
void restore_weights(Program& d, const std::string& w, const std::string& key, std::vector<std::byte> bytes) {
  auto old = weights_named(d, w);
  ASSERT_NE(old, d.constants.end());
  const TensorType type(DType::Int8, {Dim::fixed(static_cast<int64_t>(bytes.size()))});
  const std::string old_key = old->first;
  d.constants.erase(old);
  d.constants[key] = TensorData{type, std::make_shared<const std::vector<std::byte>>(std::move(bytes))};
  const std::vector<Node*> placeholders = d.graph.placeholders();
  for (size_t i = 0; i < d.inputs.size(); ++i)
    if (d.inputs[i].target == old_key) {
      d.inputs[i].target = key;
      placeholders[i]->result()->set_type(type);
    }
}

// 32 x 16 x 3 x 3 weights as Ohwi, oneDNN's dims (O, I, h, w).
void set_ohwi(Node* conv, std::vector<int64_t> extra) {
  conv->attrs().set("weights_shape", std::vector<int64_t>{32, 16, 3, 3});
  conv->attrs().set("weights_strides", std::vector<int64_t>{144, 1, 48, 16});
  conv->attrs().set("weights_blocks", std::vector<int64_t>{});
  conv->attrs().set("weights_block_dims", std::vector<int64_t>{});
  conv->attrs().set("weights_extra", std::move(extra));
}

Node* first_call(Program& delegate, const std::string& op) {
  for (Node* n : delegate.graph.calls())
    if (n->op().find(op) != std::string::npos) return n;
  return nullptr;
}

// An i8 source (oneDNN adds its s8s8 compensation to the weights) and a
// u8 one with a zero point: where oneDNN runs VNNI, the compiler stores the
// weights flat as i8 [the bytes of oneDNN's layout, compensation included]
// under "w@onednn:<layout>+s8", the call says their shape and layout, the
// row-major constant is gone, and init reads them in place; the results
// are the portable kernel's. Elsewhere oneDNN's reference
// implementation reads plain weights, and nothing is stored.
TEST(OnednnInt8, WeightsStoredInOnednnLayout) {
  for (DType xdt : {DType::Int8, DType::UInt8}) {
    ConvCase c = conv2d({1, 16, 9, 9}, 32, 3, 1, 1);
    c.xdt = xdt;
    c.x_zp = xdt == DType::Int8 ? -5 : 7;
    c.y_zp = 3;
    c.per_channel = true;
    c.seed = 5;
    SCOPED_TRACE(std::string("source ") + std::string(dtype_name(xdt)));
    Built b = conv_program(c);
    auto p = parse_program(b.ir.text({"y"}), "test.ir");
    compile_program(*p, {}, "onednn");
    ASSERT_EQ(p->delegates.size(), 1u);
    Program& d = *p->delegates[0].program;
    auto stored = constant_named(d, "w@onednn:");
    Node* conv = first_call(d, "qlinear_conv");
    ASSERT_NE(conv, nullptr);
    if (!runtime::onednn::int8_vnni()) {
      EXPECT_EQ(stored, d.constants.end());
      EXPECT_EQ(d.constants.count("w"), 1u);
      EXPECT_FALSE(conv->attrs().has("weights_shape"));
    } else {
      ASSERT_NE(stored, d.constants.end());
      EXPECT_EQ(d.constants.count("w"), 0u);
      EXPECT_EQ(stored->first.substr(stored->first.size() - 3), "+s8");
      const TensorType& t = stored->second.type;
      EXPECT_EQ(t.dtype, DType::Int8);
      ASSERT_EQ(t.rank(), 1);
      EXPECT_EQ(static_cast<size_t>(t.dims[0].value), stored->second.bytes->size());
      // 32 x 16 x 3 x 3 weights, then an int32 compensation per output
      // channel for an i8 source (and none needed for this u8 one).
      if (xdt == DType::Int8) EXPECT_GT(t.dims[0].value, 32 * 16 * 9);
      else EXPECT_GE(t.dims[0].value, 32 * 16 * 9);
      ASSERT_NE(conv->attrs().get_ints("weights_shape"), nullptr);
      EXPECT_EQ(*conv->attrs().get_ints("weights_shape"), (std::vector<int64_t>{32, 16, 3, 3}));
      EXPECT_EQ(conv->input(3)->type().str(), t.str());
    }
    run_conv_case(c);
  }
}

// The same for qlinear_matmul's weights (a u8 source with a zero point).
TEST(OnednnInt8, MatmulWeightsStoredInOnednnLayout) {
  Ir ir;
  // N = 64: oneDNN's VNNI layout blocks N by 64; other N would be padded,
  // and padded weights are not stored (runtime_quant.cpp).
  std::vector<int64_t> bv(64 * 64);
  for (size_t i = 0; i < bv.size(); ++i) bv[i] = static_cast<int64_t>((i * 37) % 255) - 127;
  ir.input("a", {10, 64}, 0.f, 255.f, DType::UInt8);
  ir.float_constant("as", {}, {0.02f}).int_constant("az", DType::UInt8, {}, {120});
  ir.int_constant("b", DType::Int8, {64, 64}, bv).float_constant("bs", {}, {0.003f});
  ir.int_constant("bz", DType::Int8, {}, {0}).float_constant("ys", {}, {0.1f}).int_constant("yz", DType::UInt8, {}, {5});
  ir.op("%y = edge.qlinear_matmul.default(%a, %as, %az, %b, %bs, %bz, %ys, %yz) : u8[10, 64]");
  bool stored = false;
  const RunResult got = compile_and_run(ir, {"y"}, "onednn", 2, [&](Program& p) {
    Program& d = *p.delegates.at(0).program;
    stored = constant_named(d, "b@onednn:") != d.constants.end();
    EXPECT_EQ(d.constants.count("b"), stored ? 0u : 1u);
  });
  EXPECT_EQ(stored, runtime::onednn::int8_vnni());
  const RunResult want = compile_and_run(ir, {"y"}, "none");
  // 0.02 * 0.003 / 0.1 = 0.0006: no product is a tie at these sizes.
  EXPECT_EQ(got.outputs, want.outputs);
}

// A file made where oneDNN chose another layout (another ISA, or its
// reference code): init reorders from the stored one, leaving its
// compensation behind and making the chosen layout's anew. Here the stored
// weights are rewritten as Ohwi (strides only, no blocks, no compensation),
// their bytes permuted to match: bit for bit what the weights stored (or
// reordered) as oneDNN chose here give.
TEST(OnednnInt8, StoredWeightsInAnotherLayoutAreReordered) {
  ConvCase c = conv2d({1, 16, 9, 9}, 32, 3, 1, 1);
  c.xdt = DType::Int8;
  c.x_zp = 4;
  c.y_zp = 1;
  c.seed = 9;
  Built b = conv_program(c);
  bool edited = false;
  auto as_ohwi = [&](Program& p) {
    Program& d = *p.delegates.at(0).program;
    std::vector<std::byte> ohwi(32 * 16 * 9);
    for (int o = 0; o < 32; ++o)
      for (int i = 0; i < 16; ++i)
        for (int k = 0; k < 9; ++k)
          ohwi[static_cast<size_t>((o * 9 + k) * 16 + i)] =
              static_cast<std::byte>(static_cast<int8_t>(b.wv[static_cast<size_t>((o * 16 + i) * 9 + k)]));
    restore_weights(d, "w", "w@onednn:Acdb+s8", std::move(ohwi));
    set_ohwi(first_call(d, "qlinear_conv"), {0, 0, 0});
    edited = true;
  };
  const RunResult got = compile_and_run(b.ir, {"y"}, "onednn", 2, as_ohwi);
  EXPECT_TRUE(edited);
  const RunResult chosen = compile_and_run(b.ir, {"y"}, "onednn");
  EXPECT_EQ(got.outputs, chosen.outputs);
  const RunResult want = compile_and_run(b.ir, {"y"}, "none");
  const std::vector<float> x = first_input(b.ir);
  expect_exact(got, want, c.y_zp, [&](int64_t e) { return conv_product(c, b, x, e); }, b.ir.text({"y"}));
}

// What init says about stored int8 weights that cannot be right (a crafted
// or corrupt file): empty when init succeeds. The weights are made stored
// (as Ohwi) whatever oneDNN chose here, then `edit` spoils them.
std::string stored_int8_error(const std::function<void(Program& delegate, Node* conv)>& edit) {
  ConvCase c = conv2d({1, 16, 9, 9}, 32, 3, 1, 1);
  Built b = conv_program(c);
  auto p = parse_program(b.ir.text({"y"}), "test.ir");
  compile_program(*p, {}, "onednn");
  Program& d = *p->delegates.at(0).program;
  Node* conv = first_call(d, "qlinear_conv");
  if (!conv) return "no qlinear_conv";
  // Ohwi with oneDNN's s8s8 compensation per output channel, of the size
  // oneDNN gives such a layout.
  dnnl_memory_desc_t md = dnnl::memory::desc({32, 16, 3, 3}, dnnl::memory::data_type::s8,
                                             dnnl::memory::dims{144, 1, 48, 16}).data;
  md.extra.flags = dnnl_memory_extra_flag_compensation_conv_s8s8;
  md.extra.compensation_mask = 1;
  md.extra.scale_adjust = 1.f;
  restore_weights(d, "w", "w@onednn:x", std::vector<std::byte>(dnnl::memory::desc(md).get_size()));
  set_ohwi(conv, {1, 1, 0});
  edit(d, conv);
  AlignedBytes file(serialize_program(*p));
  auto loaded = runtime::Program::load_from_bytes(file.span());
  if (!loaded.ok()) return "load: " + error_detail();
  auto m = runtime::Method::create(**loaded, 2);
  if (m.ok()) return "";
  return error_detail();
}

TEST(OnednnInt8, StoredWeightsLayoutIsChecked) {
  auto expect = [](const std::string& got, const std::string& want) {
    EXPECT_NE(got.find(want), std::string::npos) << "got: " << got << "\nwant: " << want;
  };
  EXPECT_EQ(stored_int8_error([](Program&, Node*) {}), "");
  // A recurrent layer's compensation (flag 4): not a convolution's.
  expect(stored_int8_error([](Program&, Node* conv) {
           conv->attrs().set("weights_extra", std::vector<int64_t>{5, 1, 0});
         }),
         "with flags of oneDNN's compensations and scale adjustment only (1, 8, 2)");
  // No compensation: the bytes are more than the layout's.
  expect(stored_int8_error([](Program&, Node* conv) {
           conv->attrs().set("weights_extra", std::vector<int64_t>{0, 0, 0});
         }),
         "stored weights layout of 4608 bytes for slot");
  expect(stored_int8_error([](Program&, Node* conv) { conv->attrs().erase("weights_shape"); }),
         "need the attribute weights_shape");
  expect(stored_int8_error([](Program&, Node* conv) {
           conv->attrs().set("weights_strides", std::vector<int64_t>{144, 1, 48, 1});
         }),
         "expected a dense layout");
}

// ---- the integer clamp after an integer convolution or matmul -------------------------------

// fuse_qdq writes a relu or clip after a quantized convolution or matmul as
// an integer clamp of its result (bounds quantized); the delegate runs it
// as a post-op of the same step ("qlinear_conv+clamp"), exactly as the
// portable kernels compute qlinear_conv and then clamp.
TEST(OnednnInt8, IntegerClampIsAPostOp) {
  struct Bounds {
    DType ydt;
    int32_t y_zp;
    std::string attrs;  // the clamp's
  };
  const Bounds bounds[] = {
      {DType::UInt8, 131, "min = 131.0"},               // relu: the zero point up
      {DType::UInt8, 3, "min = 3.0, max = 200.0"},      // clip(0, 6)
      {DType::Int8, -5, "min = -5.0, max = 90.0"},      // the same on i8
      {DType::Int8, 0, "max = -10.0"},                  // an upper bound only
  };
  uint32_t seed = 300;
  for (const Bounds& bd : bounds) {
    SCOPED_TRACE(bd.attrs);
    ConvCase c = conv2d({1, 16, 9, 9}, 32, 3, 1, 1);
    c.ydt = bd.ydt;
    c.y_zp = bd.y_zp;
    c.x_zp = 7;
    c.per_channel = true;
    c.y_scale = 0.2f;  // results across the whole range, some past it
    c.seed = seed++;
    Built b = conv_program(c);
    b.ir.op("%z = edge.clamp.default(%y, " + bd.attrs + ") : " + std::string(dtype_name(c.ydt)) + shape_str(b.y));
    const RunResult want = compile_and_run(b.ir, {"z"}, "none");
    const RunResult got = compile_and_run(b.ir, {"z"}, "onednn");
    EXPECT_EQ(got.portable, 0u) << b.ir.text({"z"});
    EXPECT_NE(std::find_if(got.steps.begin(), got.steps.end(),
                           [](const std::string& st) { return st.rfind("qlinear_conv+clamp", 0) == 0; }),
              got.steps.end());
    ASSERT_EQ(got.outputs.size(), 1u);
    EXPECT_EQ(got.outputs, want.outputs);
    std::set<float> values(want.outputs[0].begin(), want.outputs[0].end());
    EXPECT_GT(values.size(), 10u) << "the case clamps everything";

    // A matmul with the same clamp.
    Ir mm;
    std::vector<int64_t> bv(48 * 20);
    for (size_t i = 0; i < bv.size(); ++i) bv[i] = static_cast<int64_t>((i * 53 + seed) % 256) - 128;
    mm.input("a", {6, 48}, 0.f, 255.f, DType::UInt8);
    mm.float_constant("as", {}, {0.02f}).int_constant("az", DType::UInt8, {}, {100});
    mm.int_constant("b", DType::Int8, {48, 20}, bv).float_constant("bs", {}, {0.01f});
    mm.int_constant("bz", DType::Int8, {}, {0}).float_constant("ys", {}, {0.1f});
    mm.int_constant("yz", bd.ydt, {}, {bd.y_zp});
    const std::string yt = std::string(dtype_name(bd.ydt)) + "[6, 20]";
    mm.op("%y = edge.qlinear_matmul.default(%a, %as, %az, %b, %bs, %bz, %ys, %yz) : " + yt);
    mm.op("%z = edge.clamp.default(%y, " + bd.attrs + ") : " + yt);
    const RunResult mwant = compile_and_run(mm, {"z"}, "none");
    const RunResult mgot = compile_and_run(mm, {"z"}, "onednn");
    EXPECT_EQ(mgot.portable, 0u) << mm.text({"z"});
    EXPECT_NE(std::find_if(mgot.steps.begin(), mgot.steps.end(),
                           [](const std::string& st) { return st.rfind("qlinear_matmul+clamp", 0) == 0; }),
              mgot.steps.end());
    EXPECT_EQ(mgot.outputs, mwant.outputs);
  }
}

// An integer clamp is taken only as that post-op: not when the result it
// clamps is read elsewhere too (here: a program output), nor after another
// operator.
TEST(OnednnInt8, IntegerClampAloneIsRefused) {
  ConvCase c = conv2d({1, 8, 6, 6}, 8, 3, 1, 1);
  c.y_zp = 10;
  Built b = conv_program(c);
  b.ir.op("%z = edge.clamp.default(%y, min = 10.0) : u8" + shape_str(b.y));
  const RunResult want = compile_and_run(b.ir, {"y", "z"}, "none");
  const RunResult got = compile_and_run(b.ir, {"y", "z"}, "onednn");
  EXPECT_EQ(got.portable, 1u) << "the clamp runs on the portable kernels";
  EXPECT_EQ(got.outputs, want.outputs);
  auto p = parse_program(b.ir.text({"y", "z"}), "test.ir");
  auto part = onednn_backend_compiler().make_partitioner("");
  for (Node* n : p->graph.calls())
    if (n->op().find("clamp") != std::string::npos) {
      const auto reason = part->refuse(*p, *n);
      ASSERT_TRUE(reason.has_value());
      EXPECT_NE(reason->find("also read elsewhere"), std::string::npos) << *reason;
    }
  const auto alone = first_call_refusal(onednn_backend_compiler(),
                                        one_op("x:u8[1, 4, 5, 5]", "%y = edge.clamp.default(%x, min = 3.0) : u8[1, 4, 5, 5]"));
  ASSERT_TRUE(alone.has_value());
  EXPECT_NE(alone->find("not after a qlinear_conv or qlinear_matmul"), std::string::npos) << *alone;
}

// ---- u8 / i8 data movement between integer operators ------------------------------------------

// An int8 attention-like chain: a qlinear_matmul, a reshape into heads, a
// transpose and back, a strided slice and a flatten, another qlinear_matmul: the data
// movements on u8 / i8 join the matmuls' delegate (one delegate, nothing
// on the portable kernels) and move exactly the bytes the portable kernels
// do.
TEST(OnednnInt8, Int8DataMovementStaysInTheDelegate) {
  for (DType t : {DType::UInt8, DType::Int8}) {
    SCOPED_TRACE(std::string(dtype_name(t)));
    const std::string n(dtype_name(t));
    Ir ir;
    std::vector<int64_t> b1(32 * 64), b2(48 * 40);
    for (size_t i = 0; i < b1.size(); ++i) b1[i] = static_cast<int64_t>((i * 37) % 255) - 127;
    for (size_t i = 0; i < b2.size(); ++i) b2[i] = static_cast<int64_t>((i * 91) % 255) - 127;
    ir.input("a", {10, 32}, 0.f, 255.f, DType::UInt8);
    ir.float_constant("as", {}, {0.02f}).int_constant("az", DType::UInt8, {}, {120});
    ir.int_constant("b1", DType::Int8, {32, 64}, b1).float_constant("bs1", {}, {0.004f});
    ir.int_constant("bz1", DType::Int8, {}, {0}).float_constant("ys1", {}, {0.05f});
    ir.int_constant("yz1", t, {}, {t == DType::UInt8 ? 128 : 3});
    ir.int_constant("b2", DType::Int8, {48, 40}, b2).float_constant("bs2", {}, {0.003f});
    ir.int_constant("bz2", DType::Int8, {}, {0}).float_constant("ys2", {}, {0.07f});
    ir.int_constant("yz2", DType::UInt8, {}, {100});
    ir.op("%m = edge.qlinear_matmul.default(%a, %as, %az, %b1, %bs1, %bz1, %ys1, %yz1) : " + n + "[10, 64]");
    ir.op("%h = edge.reshape.default(%m, shape = [10, 4, 16]) : " + n + "[10, 4, 16]");
    ir.op("%p = edge.permute.default(%h, dims = [1, 0, 2]) : " + n + "[4, 10, 16]");
    ir.op("%q = edge.permute.default(%p, dims = [1, 0, 2]) : " + n + "[10, 4, 16]");
    ir.op("%s = edge.slice.default(%q, starts = [2], ends = [14], dims = [2]) : " + n + "[10, 4, 12]");
    ir.op("%f = edge.flatten.default(%s, start_dim = 1) : " + n + "[10, 48]");
    ir.op("%y = edge.qlinear_matmul.default(%f, %ys1, %yz1, %b2, %bs2, %bz2, %ys2, %yz2) : u8[10, 40]");
    const std::string text = ir.text({"y", "p"});
    const RunResult want = compile_and_run(ir, {"y", "p"}, "none");
    const RunResult got = compile_and_run(ir, {"y", "p"}, "onednn");
    EXPECT_EQ(got.portable, 0u) << text;
    for (const char* op : {"reshape", "permute", "slice", "flatten"})
      EXPECT_NE(std::find(got.delegated.begin(), got.delegated.end(), op), got.delegated.end()) << op << "\n" << text;
    EXPECT_EQ(got.shapes, want.shapes);
    EXPECT_EQ(got.outputs, want.outputs) << text;
  }
}

// Alone between portable kernels a u8 data movement stays there: a
// delegate of its own would be a copy for nothing.
TEST(OnednnInt8, Int8DataMovementAloneIsRefused) {
  const auto reason = first_call_refusal(
      onednn_backend_compiler(),
      one_op("x:u8[2, 3, 4]", "%y = edge.permute.default(%x, dims = [0, 2, 1]) : u8[2, 4, 3]"));
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("next to no integer operator"), std::string::npos) << *reason;
  // f32 as before.
  EXPECT_EQ(first_call_refusal(onednn_backend_compiler(),
                               one_op("x:f32[2, 3, 4]", "%y = edge.permute.default(%x, dims = [0, 2, 1]) : f32[2, 4, 3]")),
            std::nullopt);
}

// ---- thread counts ----------------------------------------------------------------------------

// oneDNN's implementation name of a primitive ("" for none).
std::string impl_of(const dnnl::primitive& p) {
  const_dnnl_primitive_desc_t pd = nullptr;
  const char* name = nullptr;
  if (!p || dnnl_primitive_get_primitive_desc(p.get(), &pd) != dnnl_success ||
      dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, static_cast<void*>(&name)) != dnnl_success || !name)
    return "";
  return name;
}

// MobileNetV2's 96 -> 576 1x1 expansion on 14 x 14 (a u8 source with a zero
// point, per-channel weights). oneDNN 2.6 blocks its int8 weights by 48 for
// two threads and by 64 for one: the file stores them as chosen for the
// compiling machine's threads, and init at another thread count reorders
// them from there (which failed: oneDNN makes the compensation only in a
// reorder from a plain layout, "could not create a primitive descriptor for
// a reorder primitive"). Built for several threads, the step's one-thread
// twin (what a run held to fewer threads runs) must not be oneDNN's
// reference code where the step's is not (it was: 600 ms a run).
TEST(OnednnInt8, MobilenetV2ExpansionAtAnyThreadCount) {
  ConvCase c = conv2d({1, 96, 14, 14}, 576, 1, 1, 0);
  c.x_zp = 110;
  c.y_zp = 5;
  c.per_channel = true;
  c.seed = 12;
  const int cores = std::max(runtime::Method::max_threads(), 2);
  for (int threads : {1, 2, cores}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    run_conv_case(c, nullptr, threads);
  }
  CompiledProgram prog(conv_program(c).ir.text({"y"}), "expansion.ir", "onednn");
  ASSERT_TRUE(prog.program);
  ASSERT_EQ(prog.program->delegates().size(), 1u);
  const auto& info = prog.program->delegates()[0];
  auto handle = info.backend->init(info.payload, prog.program->named_data(), cores);
  ASSERT_TRUE(handle.ok()) << error_detail();
  auto* d = dynamic_cast<runtime::onednn::Delegate*>(static_cast<runtime::DelegateHandle*>(*handle));
  ASSERT_NE(d, nullptr);
  int convs = 0;
  for (const auto& step : d->steps) {
    if (!step.primitive || step.primitive.get_kind() != dnnl::primitive::kind::convolution) continue;
    ++convs;
    const std::string impl = impl_of(step.primitive), twin = impl_of(step.single);
    std::cout << "[ onednn int8 ] expansion at " << step.threads << " threads: " << impl << ", one-thread twin: "
              << (twin.empty() ? "none" : twin) << "\n";
    if (impl.rfind("ref", 0) != 0) {
      EXPECT_NE(twin.rfind("ref", 0), 0u) << "a reference-code twin of " << impl;
    }
  }
  EXPECT_EQ(convs, 1);
  info.backend->destroy(*handle);
}

// The threads each qlinear step of `ir` is built for, by step name, the
// delegate initialized for `threads`.
std::vector<std::pair<std::string, int>> qlinear_step_threads(const Ir& ir, int threads) {
  std::vector<std::pair<std::string, int>> found;
  CompiledProgram prog(ir.text({"y"}), "threads.ir", "onednn");
  if (!prog.program || prog.program->delegates().size() != 1) {
    ADD_FAILURE() << "expected one delegate";
    return found;
  }
  const auto& info = prog.program->delegates()[0];
  auto handle = info.backend->init(info.payload, prog.program->named_data(), threads);
  if (!handle.ok()) {
    ADD_FAILURE() << error_detail();
    return found;
  }
  auto* d = dynamic_cast<runtime::onednn::Delegate*>(static_cast<runtime::DelegateHandle*>(*handle));
  if (d)
    for (const auto& step : d->steps)
      if (step.name.rfind("qlinear_", 0) == 0) found.emplace_back(step.name, step.threads);
  info.backend->destroy(*handle);
  return found;
}

// threads_for gives a qlinear step several threads by its multiply-adds,
// scaled by what an int8 one costs here (int8_multiply_add_cost), not by
// its element count (the rule for elementwise steps, which took every
// step whose operands or result have fewer than 2^15 elements to be small):
// a 32-channel 3x3 convolution on 30x30 has 28,800 elements in and out and
// 9,216 weights but does 8.3 million multiply-adds, a 176 x 176 x 176
// matmul 5.5 million; both get every thread. A 1x1 convolution of 8
// channels on 4x4 stays on one, and a 3x3 depthwise convolution of 64
// channels on 64x64 (262,144 elements, 2.4 million multiply-adds) does too
// where VNNI makes them cheap (and gets every thread on the reference code).
TEST(OnednnInt8, ThreadsFollowTheMultiplyAdds) {
  const double cost = runtime::onednn::int8_multiply_add_cost();
  if (runtime::onednn::int8_vnni()) {
    EXPECT_EQ(cost, 0.25) << "VNNI: four int8 multiply-adds per f32 lane";
  } else {
    EXPECT_GE(cost, 4.0) << "scalar reference code against f32 vectors";
  }
  const int threads = std::max(runtime::Method::max_threads(), 2);
  auto conv_threads = [&](const ConvCase& c) {
    const auto steps = qlinear_step_threads(conv_program(c).ir, threads);
    return steps.size() == 1 ? steps[0].second : -1;
  };
  EXPECT_EQ(conv_threads(conv2d({1, 32, 30, 30}, 32, 3, 1, 1)), threads);
  EXPECT_EQ(conv_threads(conv2d({1, 8, 4, 4}, 8, 1, 1, 0)), 1);
  EXPECT_EQ(conv_threads(conv2d({1, 64, 64, 64}, 64, 3, 1, 1, 64)), runtime::onednn::int8_vnni() ? 1 : threads);
  Ir mm;
  std::vector<int64_t> bv(176 * 176);
  for (size_t i = 0; i < bv.size(); ++i) bv[i] = static_cast<int64_t>((i * 29) % 255) - 127;
  mm.input("a", {176, 176}, 0.f, 255.f, DType::UInt8);
  mm.float_constant("as", {}, {0.02f}).int_constant("az", DType::UInt8, {}, {128});
  mm.int_constant("b", DType::Int8, {176, 176}, bv).float_constant("bs", {}, {0.001f});
  mm.int_constant("bz", DType::Int8, {}, {0}).float_constant("ys", {}, {0.3f}).int_constant("yz", DType::UInt8, {}, {9});
  mm.op("%y = edge.qlinear_matmul.default(%a, %as, %az, %b, %bs, %bz, %ys, %yz) : u8[176, 176]");
  const auto steps = qlinear_step_threads(mm, threads);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].second, threads) << steps[0].first;
}

}  // namespace
}  // namespace edgec

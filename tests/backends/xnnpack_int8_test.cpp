// The xnnpack delegate's integer operators (backends/xnnpack/runtime_quant.cpp):
// qlinear_conv and qlinear_matmul on XNNPACK's qc8 and qu8 convolutions,
// compared with the portable kernels over many shapes (strides, padding,
// dilation, groups, depthwise, 1x1, 1-D; rows of a matmul), every pairing
// of u8 and i8 inputs, results and weights the delegate takes (i8 weights
// with zero point 0 per tensor and per channel: qc8; u8 weights with zero
// point 128: qc8 flipped; one zero point and one scale: qu8), zero points
// at the ends of their range, and saturation. Integer outputs must be
// equal (on x86-64, and under qemu's cortex-a76, -a72 and -a53): XNNPACK sums the same int32 and requantizes as ONNX does
// (float(acc) * m in float32, rounded to nearest even, y's zero point
// added after). Each element that differs is reported with its product
// float(acc) * m, computed here from the definition. The partitioner's
// reasons for what XNNPACK's 8-bit operators cannot take close the file.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "backends/delegate_harness.h"
#include "backends/int8_reference.h"
#include "backends/xnnpack/compiler.h"

namespace edgec {
namespace {

std::string ints(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

int64_t lo_of(DType t) { return t == DType::UInt8 ? 0 : -128; }
int64_t hi_of(DType t) { return t == DType::UInt8 ? 255 : 127; }

// How a case quantizes: its dtypes, zero points and whether the weights'
// scale (and zero point) is per channel. `w_zp` is the weights' zero point
// (every channel's when per channel).
struct Quant {
  DType xdt, ydt, wdt;
  int32_t x_zp, y_zp, w_zp;
  bool per_channel;
  const char* op;  // the XNNPACK operator the delegate's step names: "(qc8)" or "(qu8)"
};

// i8 weights with zero point 0 (qc8), u8 ones with 128 (qc8, flipped), one
// zero point and one scale (qu8, i8 ones flipped), symmetric ones holding
// -128 (qu8: qc8 takes [-127, 127]); inputs and results of either type
// (flipped into the operator's and back). The weights of a qc8 case lie in
// [-127, 127] (u8: [1, 255]), the others' in the whole range, its ends
// included.
const Quant kQuants[] = {
    {DType::UInt8, DType::UInt8, DType::Int8, 128, 131, 0, false, "(qc8)"},
    {DType::UInt8, DType::UInt8, DType::Int8, 0, 0, 0, true, "(qc8)"},
    {DType::UInt8, DType::Int8, DType::Int8, 255, -3, 0, true, "(qc8)"},
    {DType::Int8, DType::Int8, DType::Int8, 0, 0, 0, false, "(qc8)"},
    {DType::Int8, DType::UInt8, DType::Int8, -128, 255, 0, true, "(qc8)"},
    {DType::Int8, DType::Int8, DType::Int8, 127, -128, 0, true, "(qc8)"},
    {DType::UInt8, DType::UInt8, DType::UInt8, 7, 100, 128, true, "(qc8)"},
    {DType::UInt8, DType::UInt8, DType::UInt8, 131, 3, 131, false, "(qu8)"},
    {DType::UInt8, DType::Int8, DType::UInt8, 0, 127, 255, false, "(qu8)"},
    {DType::Int8, DType::UInt8, DType::UInt8, 5, 0, 0, false, "(qu8)"},
    {DType::Int8, DType::Int8, DType::Int8, -7, 9, -5, false, "(qu8)"},
    {DType::UInt8, DType::UInt8, DType::Int8, 128, 131, 0, false, "(qu8)"},
    {DType::Int8, DType::UInt8, DType::UInt8, -128, 0, 128, false, "(qu8)"},
};

std::string describe(const Quant& q) {
  return "x " + std::string(dtype_name(q.xdt)) + " zp " + std::to_string(q.x_zp) + ", y " +
         std::string(dtype_name(q.ydt)) + " zp " + std::to_string(q.y_zp) + ", w " + std::string(dtype_name(q.wdt)) +
         " zp " + std::to_string(q.w_zp) + (q.per_channel ? " per channel" : " per tensor");
}

struct ConvCase {
  std::vector<int64_t> x;  // N, C, spatial...
  int64_t cout = 8;
  std::vector<int64_t> k, stride, pad, dil;  // pad: begins then ends
  int64_t groups = 1;
  Quant q = kQuants[0];
  bool bias = true;
  float x_scale = 0.02f, y_scale = 0.05f;
  uint32_t seed = 1;
};

// The program, and what the product check needs.
struct Built {
  Ir ir;
  std::vector<int64_t> w, y;
  std::vector<int64_t> wv, bias;
  std::vector<float> m;  // per output channel
};

// Weights of `n` values for `q`, at the ends of their range too.
std::vector<int64_t> weights(std::mt19937& rng, int64_t n, const Quant& q) {
  const int64_t lo = lo_of(q.wdt) + (std::string(q.op) == "(qc8)"), hi = hi_of(q.wdt);
  std::uniform_int_distribution<int> w8(static_cast<int>(lo), static_cast<int>(hi));
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (auto& e : v) e = w8(rng);
  if (n > 2) v[0] = lo, v[1] = hi;
  return v;
}

Built conv_program(const ConvCase& c) {
  Built b;
  const size_t nd = c.x.size() - 2;
  b.w = {c.cout, c.x[1] / c.groups};
  b.w.insert(b.w.end(), c.k.begin(), c.k.end());
  b.y = {c.x[0], c.cout};
  for (size_t i = 0; i < nd; ++i)
    b.y.push_back((c.x[2 + i] + c.pad[i] + c.pad[nd + i] - c.dil[i] * (c.k[i] - 1) - 1) / c.stride[i] + 1);
  std::mt19937 rng(c.seed);
  std::uniform_int_distribution<int> bias(-3000, 3000);
  std::uniform_real_distribution<float> ws(0.002f, 0.02f);
  b.wv = weights(rng, numel(b.w), c.q);
  b.bias.resize(static_cast<size_t>(c.cout));
  for (auto& v : b.bias) v = bias(rng);
  std::vector<float> wscale(c.q.per_channel ? static_cast<size_t>(c.cout) : 1);
  for (auto& v : wscale) v = ws(rng);
  for (int64_t o = 0; o < c.cout; ++o) b.m.push_back(c.x_scale * wscale[c.q.per_channel ? o : 0] / c.y_scale);
  const std::vector<int64_t> pshape = c.q.per_channel ? std::vector<int64_t>{c.cout} : std::vector<int64_t>{};
  b.ir.input("x", c.x, static_cast<float>(lo_of(c.q.xdt)), static_cast<float>(hi_of(c.q.xdt)), c.q.xdt);
  b.ir.float_constant("xs", {}, {c.x_scale}).int_constant("xz", c.q.xdt, {}, {c.q.x_zp});
  b.ir.int_constant("w", c.q.wdt, b.w, b.wv).float_constant("ws", pshape, wscale);
  b.ir.int_constant("wz", c.q.wdt, pshape, std::vector<int64_t>(wscale.size(), c.q.w_zp));
  b.ir.float_constant("ys", {}, {c.y_scale}).int_constant("yz", c.q.ydt, {}, {c.q.y_zp});
  if (c.bias) b.ir.int_constant("b", DType::Int32, {c.cout}, b.bias);
  b.ir.op("%y = edge.qlinear_conv.default(%x, %xs, %xz, %w, %ws, %wz, %ys, %yz" + std::string(c.bias ? ", %b" : "") +
          ", stride = " + ints(c.stride) + ", padding = " + ints(c.pad) + ", dilation = " + ints(c.dil) +
          ", groups = " + std::to_string(c.groups) + ") : " + std::string(dtype_name(c.q.ydt)) + shape_str(b.y));
  if (!c.bias) b.bias.assign(static_cast<size_t>(c.cout), 0);
  return b;
}

// float(acc) * m of output element `e` (int8_reference.h).
float conv_product(const ConvCase& c, const Built& b, const std::vector<float>& x, int64_t e) {
  return qlinear_conv_product(c, b, c.q.x_zp, c.q.w_zp, x, e);
}

// The delegate's output equals the portable kernel's, element by element;
// a difference is reported with its product.
int64_t expect_equal(const RunResult& got, const RunResult& want, const std::function<float(int64_t)>& product,
                     const std::string& context) {
  EXPECT_EQ(got.shapes, want.shapes) << context;
  if (got.outputs.empty() || want.outputs.empty() || got.outputs[0].size() != want.outputs[0].size()) {
    ADD_FAILURE() << "no output to compare\n" << context;
    return 0;
  }
  int64_t bad = 0;
  for (size_t e = 0; e < want.outputs[0].size(); ++e) {
    const float g = got.outputs[0][e], w = want.outputs[0][e];
    if (g == w) continue;
    if (bad++ < 5)
      ADD_FAILURE() << "element " << e << ": xnnpack " << g << ", portable " << w
                    << " (float(acc) * m = " << product(static_cast<int64_t>(e)) << ")\n"
                    << context;
  }
  return static_cast<int64_t>(want.outputs[0].size());
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

// The step that runs the operator names XNNPACK's (qc8 or qu8), and the
// flips are there exactly where an operand is of the other type.
void expect_steps(const RunResult& r, const std::string& op, const Quant& q, const std::string& context) {
  const DType domain = std::string(q.op) == "(qu8)" ? DType::UInt8 : DType::Int8;
  int flips = 0, runs = 0;
  for (const std::string& s : r.steps) {
    flips += s.rfind("flip", 0) == 0;
    runs += s == op + " " + q.op;
  }
  EXPECT_EQ(runs, 1) << context;
  EXPECT_EQ(flips, (q.xdt != domain) + (q.ydt != domain)) << context;
}

int64_t run_conv_case(const ConvCase& c) {
  Built b = conv_program(c);
  const std::string text = describe(c.q) + "\n" + b.ir.text({"y"});
  const RunResult want = compile_and_run(b.ir, {"y"}, "none");
  const RunResult got = compile_and_run(b.ir, {"y"}, "xnnpack");
  EXPECT_NE(std::find(got.delegated.begin(), got.delegated.end(), "qlinear_conv"), got.delegated.end())
      << "qlinear_conv was not delegated\n" << text;
  EXPECT_EQ(got.portable, 0u) << text;
  expect_steps(got, "qlinear_conv", c.q, text);
  const std::vector<float> x = first_input(b.ir);
  return expect_equal(got, want, [&](int64_t e) { return conv_product(c, b, x, e); }, text);
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

TEST(XnnpackInt8, ConvMatchesThePortableKernel) {
  std::vector<ConvCase> shapes = {
      conv2d({1, 16, 9, 9}, 32, 3, 1, 1),      // ResNet's 3x3
      conv2d({2, 8, 10, 11}, 16, 3, 2, 1),     // strided, batch 2, odd sizes
      conv2d({1, 64, 7, 7}, 64, 1, 1, 0),      // 1x1
      conv2d({1, 24, 8, 8}, 24, 3, 1, 1, 24),  // depthwise
      conv2d({1, 8, 8, 8}, 16, 3, 2, 1, 8),    // depthwise, two outputs per channel
      conv2d({1, 16, 8, 8}, 32, 3, 1, 1, 4),   // grouped
      conv2d({1, 3, 17, 17}, 16, 7, 2, 3),     // a stem: 3 input channels, 7x7
      conv2d({1, 32, 6, 6}, 8, 1, 2, 0),       // 1x1 strided (a downsample)
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
  int64_t elements = 0, cases = 0;
  uint32_t seed = 1;
  for (const ConvCase& shape : shapes)
    for (const Quant& q : kQuants) {
      ConvCase c = shape;
      c.q = q;
      c.bias = seed % 3 != 0;
      c.seed = seed++;
      SCOPED_TRACE("case " + std::to_string(c.seed));
      elements += run_conv_case(c);
      ++cases;
    }
  std::cout << "[ xnnpack int8 ] conv: " << cases << " cases, " << elements << " elements, all equal\n";
}

// Saturation both ways: a small y scale pushes most results past the
// dtype's range; a large one with sources at the ends of theirs and the
// weights at theirs makes the largest sums within it.
TEST(XnnpackInt8, ConvSaturates) {
  for (const Quant& q : kQuants) {
    ConvCase c = conv2d({1, 32, 6, 6}, 16, 3, 1, 1);
    c.q = q;
    c.seed = 40;
    SCOPED_TRACE(describe(q));
    c.y_scale = 0.0005f;  // most results past the range
    run_conv_case(c);
    c.y_scale = 2.0f;
    run_conv_case(c);
  }
}

TEST(XnnpackInt8, MatmulMatchesThePortableKernel) {
  const std::vector<std::vector<int64_t>> shapes = {{5, 32}, {2, 3, 7, 24}, {197, 64}, {1, 100}};
  int64_t elements = 0, cases = 0;
  uint32_t seed = 100;
  for (const auto& shape : shapes)
    for (const Quant& q : kQuants) {
      const int64_t K = shape.back(), N = 24;
      std::mt19937 rng(seed++);
      const std::vector<int64_t> bv = weights(rng, K * N, q);
      std::uniform_real_distribution<float> ws(0.002f, 0.02f);
      std::vector<float> bscale(q.per_channel ? static_cast<size_t>(N) : 1);
      for (auto& v : bscale) v = ws(rng);
      const float as = 0.03f, ys = 0.04f;
      std::vector<float> m;
      for (int64_t j = 0; j < N; ++j) m.push_back(as * bscale[q.per_channel ? j : 0] / ys);
      const std::vector<int64_t> pshape = q.per_channel ? std::vector<int64_t>{N} : std::vector<int64_t>{};
      std::vector<int64_t> yshape = shape;
      yshape.back() = N;
      Ir ir;
      ir.input("a", shape, static_cast<float>(lo_of(q.xdt)), static_cast<float>(hi_of(q.xdt)), q.xdt);
      ir.float_constant("as", {}, {as}).int_constant("az", q.xdt, {}, {q.x_zp});
      ir.int_constant("b", q.wdt, {K, N}, bv).float_constant("bs", pshape, bscale);
      ir.int_constant("bz", q.wdt, pshape, std::vector<int64_t>(bscale.size(), q.w_zp));
      ir.float_constant("ys", {}, {ys}).int_constant("yz", q.ydt, {}, {q.y_zp});
      ir.op("%y = edge.qlinear_matmul.default(%a, %as, %az, %b, %bs, %bz, %ys, %yz) : " +
            std::string(dtype_name(q.ydt)) + shape_str(yshape));
      const std::string text = describe(q) + "\n" + ir.text({"y"});
      SCOPED_TRACE(text);
      const RunResult want = compile_and_run(ir, {"y"}, "none");
      const RunResult got = compile_and_run(ir, {"y"}, "xnnpack");
      EXPECT_NE(std::find(got.delegated.begin(), got.delegated.end(), "qlinear_matmul"), got.delegated.end());
      EXPECT_EQ(got.portable, 0u);
      expect_steps(got, "qlinear_matmul", q, text);
      const std::vector<float> a = first_input(ir);
      auto product = [&](int64_t e) {
        const int64_t row = e / N, j = e % N;
        int64_t acc = 0;
        for (int64_t k = 0; k < K; ++k)
          acc += (static_cast<int64_t>(a[static_cast<size_t>(row * K + k)]) - q.x_zp) *
                 (bv[static_cast<size_t>(k * N + j)] - q.w_zp);
        return static_cast<float>(acc) * m[static_cast<size_t>(j)];
      };
      elements += expect_equal(got, want, product, text);
      ++cases;
    }
  std::cout << "[ xnnpack int8 ] matmul: " << cases << " cases, " << elements << " elements, all equal\n";
}

// Scales whose product is a power of two make float(acc) * m a tie often
// (m = 0.5 * 0.25 / 1 = 1/8: every acc = 4 mod 8): XNNPACK rounds them to
// even before it adds y's zero point, as ONNX does, odd zero point or not.
TEST(XnnpackInt8, TiesRoundToEvenBeforeTheZeroPoint) {
  for (const Quant& base : {kQuants[0], kQuants[7]})
    for (int32_t y_zp : {0, 7, 100, 101}) {
      ConvCase c = conv2d({1, 8, 6, 6}, 8, 3, 1, 1);
      c.q = base;
      c.q.x_zp = 3;
      c.q.y_zp = y_zp;
      c.q.per_channel = false;
      c.x_scale = 0.5f;
      c.y_scale = 1.f;
      c.seed = 77;
      SCOPED_TRACE(describe(c.q));
      // w_scale 0.25: conv_program draws it; the case is rebuilt with it.
      Built b = conv_program(c);
      Built e;
      e.w = b.w, e.y = b.y, e.wv = b.wv, e.bias = b.bias;
      e.m.assign(static_cast<size_t>(c.cout), 0.125f);
      e.ir.input("x", c.x, 0.f, 255.f, DType::UInt8);
      e.ir.float_constant("xs", {}, {0.5f}).int_constant("xz", DType::UInt8, {}, {c.q.x_zp});
      e.ir.int_constant("w", c.q.wdt, e.w, e.wv).float_constant("ws", {}, {0.25f});
      e.ir.int_constant("wz", c.q.wdt, {}, {c.q.w_zp});
      e.ir.float_constant("ys", {}, {1.f}).int_constant("yz", DType::UInt8, {}, {y_zp});
      e.ir.int_constant("b", DType::Int32, {c.cout}, e.bias);
      e.ir.op("%y = edge.qlinear_conv.default(%x, %xs, %xz, %w, %ws, %wz, %ys, %yz, %b, stride = [1, 1], padding = "
              "[1, 1, 1, 1], dilation = [1, 1], groups = 1) : u8" + shape_str(e.y));
      const RunResult want = compile_and_run(e.ir, {"y"}, "none");
      const RunResult got = compile_and_run(e.ir, {"y"}, "xnnpack");
      EXPECT_EQ(got.portable, 0u);
      const std::vector<float> xv = first_input(e.ir);
      int64_t halfway = 0;
      for (int64_t k = 0; k < numel(e.y); ++k) {
        const float p = conv_product(c, e, xv, k);
        halfway += p - std::floor(p) == 0.5f;
      }
      EXPECT_GT(halfway, 0) << "the case makes ties";
      expect_equal(got, want, [&](int64_t k) { return conv_product(c, e, xv, k); }, e.ir.text({"y"}));
      std::cout << "[ xnnpack int8 ] " << describe(c.q) << ": " << halfway << " of " << numel(e.y)
                << " products halfway, all equal\n";
    }
}

// The partitioner's reasons for what XNNPACK's 8-bit operators cannot take.
TEST(XnnpackInt8, Refusals) {
  const std::string conv_ops =
      "x:u8[1, 4, 5, 5]; xs:f32[]; xz:u8[]; w:i8[4, 4, 3, 3]; ws:f32[]; wz:i8[]; ys:f32[]; yz:u8[]";
  const std::string conv_call =
      "%y = edge.qlinear_conv.default(%x, %xs, %xz, %w, %ws, %wz, %ys, %yz, stride = [1, 1], padding = [1, 1, 1, 1], "
      "dilation = [1, 1], groups = 1) : u8[1, 4, 5, 5]";
  auto reason = first_call_refusal(xnnpack_backend_compiler(), one_op(conv_ops, conv_call));
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("weights (input 3) are not a constant"), std::string::npos) << *reason;
  // Weights of `wdt` with zero points `wz` and scales `ws` (one per channel
  // when more than one), and x / y scales.
  auto with = [](DType wdt, std::vector<int64_t> wz, std::vector<float> ws, float xs = 0.1f, float ys = 0.1f,
                 int64_t w0 = 1) {
    Ir ir;
    ir.input("x", {1, 4, 5, 5}, 0.f, 255.f, DType::UInt8);
    ir.float_constant("xs", {}, {xs}).int_constant("xz", DType::UInt8, {}, {3});
    const std::vector<int64_t> pshape = ws.size() > 1 ? std::vector<int64_t>{4} : std::vector<int64_t>{};
    std::vector<int64_t> w(144, 1);
    w[0] = w0;
    ir.int_constant("w", wdt, {4, 4, 3, 3}, w).float_constant("ws", pshape, ws);
    ir.int_constant("wz", wdt, pshape, wz);
    ir.float_constant("ys", {}, {ys}).int_constant("yz", DType::UInt8, {}, {0});
    ir.op("%y = edge.qlinear_conv.default(%x, %xs, %xz, %w, %ws, %wz, %ys, %yz, stride = [1, 1], padding = [1, 1, 1, "
          "1], dilation = [1, 1], groups = 1) : u8[1, 4, 5, 5]");
    return first_call_refusal(xnnpack_backend_compiler(), ir.text({"y"}));
  };
  const std::vector<float> per_channel{0.1f, 0.2f, 0.3f, 0.4f};
  // Taken: symmetric i8 (qc8), u8 with 128 (qc8), one zero point and one scale (qu8).
  EXPECT_EQ(with(DType::Int8, {0, 0, 0, 0}, per_channel), std::nullopt);
  EXPECT_EQ(with(DType::UInt8, {128, 128, 128, 128}, per_channel), std::nullopt);
  EXPECT_EQ(with(DType::UInt8, {7}, {0.1f}), std::nullopt);
  EXPECT_EQ(with(DType::Int8, {-7}, {0.1f}), std::nullopt);
  EXPECT_EQ(with(DType::Int8, {2, 2, 2, 2}, {0.1f, 0.1f, 0.1f, 0.1f}), std::nullopt);
  // Asymmetric with per-channel scales, or per-channel zero points.
  reason = with(DType::Int8, {2, 2, 2, 2}, per_channel);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("zero points other than 0 and per-channel scales"), std::string::npos) << *reason;
  reason = with(DType::UInt8, {1, 2, 3, 4}, {0.1f, 0.1f, 0.1f, 0.1f});
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("zero points other than 128 and per-channel zero points"), std::string::npos) << *reason;
  // Symmetric weights holding what qc8 sees as -128: qu8 with one scale,
  // refused with per-channel ones.
  EXPECT_EQ(with(DType::Int8, {0}, {0.1f}, 0.1f, 0.1f, -128), std::nullopt);
  reason = with(DType::Int8, {0, 0, 0, 0}, per_channel, 0.1f, 0.1f, -128);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("holding -128 with per-channel scales"), std::string::npos) << *reason;
  reason = with(DType::UInt8, {128, 128, 128, 128}, per_channel, 0.1f, 0.1f, 0);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("holding 0 with zero point 128 with per-channel scales"), std::string::npos) << *reason;
  // Requantization scales XNNPACK does not take.
  reason = with(DType::Int8, {0}, {100.f}, 10.f, 1.f);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("requantization scale x_scale * w_scale / y_scale = 1000"), std::string::npos) << *reason;
  reason = with(DType::UInt8, {7}, {1e-6f}, 1e-6f, 1000.f);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("(XNNPACK takes [2^-31, 255))"), std::string::npos) << *reason;
  reason = with(DType::Int8, {0}, {0.f});
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("weight scale 0.000000 (XNNPACK takes positive normal scales)"), std::string::npos) << *reason;
  // A scale that is a user input; a 3-D convolution; batched matmul weights.
  reason = first_call_refusal(
      xnnpack_backend_compiler(),
      one_op("x:u8[1, 4, 5, 5]; xs:f32[]", "%y = edge.qlinear_conv.default(%x, %xs, %xs, %x, %xs, %xs, %xs, %xs) : u8[1, 4, 3, 3]"));
  ASSERT_TRUE(reason.has_value());
  reason = first_call_refusal(xnnpack_backend_compiler(),
                              one_op("x:u8[1, 4, 3, 5, 5]; xs:f32[]; xz:u8[]; w:i8[4, 4, 1, 3, 3]; ws:f32[]; wz:i8[]",
                                     "%y = edge.qlinear_conv.default(%x, %xs, %xz, %w, %ws, %wz, %xs, %xz) : "
                                     "u8[1, 4, 3, 3, 3]"));
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("rank-5 input"), std::string::npos) << *reason;
  reason = first_call_refusal(xnnpack_backend_compiler(),
                              one_op("a:u8[2, 3, 4]; as:f32[]; az:u8[]; b:i8[2, 4, 5]; bs:f32[]; bz:i8[]",
                                     "%y = edge.qlinear_matmul.default(%a, %as, %az, %b, %bs, %bz, %as, %az) : "
                                     "u8[2, 3, 5]"));
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("rank-3 operand b"), std::string::npos) << *reason;
}

}  // namespace
}  // namespace edgec

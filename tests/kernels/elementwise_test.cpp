// What the numpy cases (tests/kernels/cases/elementwise.py) cannot pin:
// StridedLoop's coalescing and row walks, results that must not depend on
// the thread count (the parallel paths need inputs too large for a case
// file), behaviour numpy leaves platform-defined (out-of-range float to int
// casts), bool bytes other than 0 and 1, and outputs that are too small.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/broadcast.h"
#include "kernels/registry.h"
#include "support/attrs.h"
#include "support/kernel_buffers.h"

namespace edgec {
namespace {

using Buffer = OwnedTensor;

Buffer random_f32(std::vector<int64_t> shape, uint32_t seed) {
  return random_floats(std::move(shape), seed, std::uniform_real_distribution<float>(-4.0f, 4.0f));
}

Buffer random_of(DType dtype, std::vector<int64_t> shape, uint32_t seed) {
  Buffer b(dtype, std::move(shape));
  std::mt19937 gen(seed);
  if (dtype == DType::Float16) {
    std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
    for (size_t i = 0; i < b.bytes.size() / 2; ++i) b.as<Half>()[i] = float_to_half(dist(gen));
  } else if (dtype == DType::Bool) {
    for (auto& v : b.bytes) v = std::byte(gen() & 1);
  } else {
    for (auto& v : b.bytes) v = std::byte(gen() & 0xff);
  }
  return b;
}

// Runs `op`; returns its Error and leaves the output in `out`.
Error run(const std::string& op, std::vector<Tensor> inputs, const Attrs& attrs, Buffer& out,
          int threads = 1) {
  KernelFn fn = find_kernel(op);
  EXPECT_NE(fn, nullptr) << op;
  if (fn == nullptr) return Error::NotFound;
  Tensor t;
  t.dtype = out.dtype;
  t.data = out.bytes.data();
  t.capacity = out.bytes.size();
  KernelContext ctx;
  ctx.num_threads = threads;
  std::span<Tensor> outs(&t, 1);
  return fn(ctx, inputs, attrs, outs);
}

// A permuted (strided) view of a contiguous tensor.
Tensor permuted(Tensor t, std::vector<int> perm) {
  Tensor v = t;
  for (size_t i = 0; i < perm.size(); ++i) {
    v.sizes[i] = t.sizes[perm[i]];
    v.strides[i] = t.strides[perm[i]];
  }
  return v;
}

TEST(StridedLoop, ContiguousOperandsCoalesceToOneRow) {
  Buffer a(DType::Float32, {2, 3, 4}), out(DType::Float32, {2, 3, 4});
  Tensor ta = a.tensor(), to = out.tensor();
  const StridedLoop<2> loop(to.shape(), {&to, &ta});
  EXPECT_EQ(loop.rank(), 1);
  int rows = 0;
  loop.for_each_row(0, loop.numel(), [&](const auto& off, const auto& st, int64_t n) {
    ++rows;
    EXPECT_EQ(off[0], 0);
    EXPECT_EQ(st[1], 1);
    EXPECT_EQ(n, 24);
  });
  EXPECT_EQ(rows, 1);
}

TEST(StridedLoop, ChannelBroadcastKeepsInnerRowsContiguous) {
  // [N, C, H, W] + [1, C, 1, 1]: rows of H*W with the bias at stride 0.
  Buffer x(DType::Float32, {2, 3, 4, 5}), bias(DType::Float32, {1, 3, 1, 1});
  Tensor tx = x.tensor(), tb = bias.tensor();
  const StridedLoop<2> loop(tx.shape(), {&tx, &tb});
  EXPECT_EQ(loop.rank(), 3);  // [N, C, H*W]
  std::vector<int64_t> bias_offsets;
  loop.for_each_row(0, loop.numel(), [&](const auto& off, const auto& st, int64_t n) {
    EXPECT_EQ(n, 20);
    EXPECT_EQ(st[0], 1);
    EXPECT_EQ(st[1], 0);
    bias_offsets.push_back(off[1]);
  });
  EXPECT_EQ(bias_offsets, (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
}

TEST(StridedLoop, PartialRangesVisitEveryElementOnce) {
  // A transposed operand: element (i, j) of the view is at j * 7 + i.
  Buffer a(DType::Float32, {5, 7});
  Tensor ta = permuted(a.tensor(), {1, 0});
  const StridedLoop<1> loop(ta.shape(), {&ta});
  const int64_t n = loop.numel();
  for (int64_t split = 0; split <= n; ++split) {
    std::vector<int64_t> seen;
    auto collect = [&](const auto& off, const auto& st, int64_t len) {
      for (int64_t i = 0; i < len; ++i) seen.push_back(off[0] + i * st[0]);
    };
    loop.for_each_row(0, split, collect);
    loop.for_each_row(split, n, collect);
    ASSERT_EQ(static_cast<int64_t>(seen.size()), n);
    for (int64_t k = 0; k < n; ++k) {
      ASSERT_EQ(seen[k], (k % 5) * 7 + k / 5) << "split " << split << " element " << k;
    }
  }
}

// run_rows tiles a transposed operand; every element must still be visited
// exactly once, with or without threads, whatever the sizes.
TEST(StridedLoop, TiledRowsVisitEveryElementOnce) {
  struct Shape {
    std::vector<int64_t> sizes;
    std::vector<int> perm;
  };
  const Shape shapes[] = {{{5, 7}, {1, 0}},           {{130, 3}, {1, 0}},
                          {{70, 200}, {1, 0}},        {{4, 65, 9}, {2, 1, 0}},
                          {{3, 100, 129}, {0, 2, 1}}, {{300, 257}, {1, 0}}};
  for (const Shape& shape : shapes) {
    Buffer a(DType::Float32, shape.sizes);
    Tensor ta = permuted(a.tensor(), shape.perm);
    Buffer out(DType::Float32, std::vector<int64_t>(ta.sizes.begin(), ta.sizes.begin() + ta.rank));
    Tensor to = out.tensor();
    const StridedLoop<2> loop(to.shape(), {&to, &ta});
    EXPECT_GE(loop.tile_dim(), 0) << shape_string(shape.sizes);
    for (int threads : {1, 3}) {
      std::vector<int> out_hits(static_cast<size_t>(loop.numel()));
      std::vector<int64_t> in_at_out(out_hits.size(), -1);
      loop.run_rows(threads, [&](const auto& off, const auto& st, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          // Distinct elements per row, so concurrent rows never share a slot.
          ++out_hits[off[0] + i];
          in_at_out[off[0] + i] = off[1] + i * st[1];
        }
      });
      for (size_t e = 0; e < out_hits.size(); ++e) {
        ASSERT_EQ(out_hits[e], 1) << shape_string(shape.sizes) << " element " << e;
      }
      // Output element e (row-major over the view) must pair with the input
      // element the view maps it to.
      for (size_t e = 0; e < out_hits.size(); ++e) {
        int64_t rest = static_cast<int64_t>(e), offset = 0;
        for (int d = ta.rank - 1; d >= 0; --d) {
          offset += (rest % ta.sizes[d]) * ta.strides[d];
          rest /= ta.sizes[d];
        }
        ASSERT_EQ(in_at_out[e], offset) << shape_string(shape.sizes) << " element " << e;
      }
    }
  }
}

TEST(StridedLoop, NegativeStridesWalkBackwards) {
  // A reversed view: data points at the last element, stride -1.
  Buffer a(DType::Float32, {6});
  for (int i = 0; i < 6; ++i) a.as<float>()[i] = static_cast<float>(i);
  Tensor rev = a.tensor();
  rev.data = a.as<float>() + 5;
  rev.strides[0] = -1;
  Buffer out(DType::Float32, {6});
  ASSERT_EQ(run("neg", {rev}, {}, out), Error::Ok) << error_detail();
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out.as<float>()[i], -static_cast<float>(5 - i));
}

TEST(Broadcast, ShapesAndErrors) {
  Buffer a(DType::Float32, {2, 1, 4}), b(DType::Float32, {3, 1}), c(DType::Float32, {0, 1, 1});
  Tensor ta = a.tensor(), tb = b.tensor(), tc = c.tensor();
  Result<StaticShape> s = broadcast_shapes("t", {&ta, &tb});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(std::vector<int64_t>(s->dims().begin(), s->dims().end()), (std::vector<int64_t>{2, 3, 4}));
  s = broadcast_shapes("t", {&ta, &tc});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(error_detail(), "t: cannot broadcast shapes [2, 1, 4] and [0, 1, 1]");
  Tensor bad = ta;
  bad.rank = kMaxRank + 1;
  EXPECT_EQ(broadcast_shapes("t", {&bad}).error(), Error::InvalidShape);
  bad = ta;
  bad.sizes[1] = -1;
  EXPECT_EQ(broadcast_shapes("t", {&bad}).error(), Error::InvalidShape);
  EXPECT_EQ(error_detail(), "t: negative size in shape [2, -1, 4]");
}

// Inputs large enough that every kernel below takes its parallel path.
TEST(ElementwiseThreads, ResultsDoNotDependOnThreadCount) {
  struct Run {
    std::string op;
    std::vector<Buffer> inputs;
    std::vector<std::vector<int>> perms;  // empty entry: contiguous
    Attrs attrs;
    DType out_dtype;
    std::vector<int64_t> out_shape;
  };
  std::vector<Run> runs;
  runs.push_back({"add", {random_f32({300, 700}, 1), random_f32({700}, 2)}, {}, {}, DType::Float32, {300, 700}});
  runs.push_back({"mul", {random_f32({700, 300}, 3), random_f32({300, 700}, 4)}, {{1, 0}, {}}, {},
                  DType::Float32, {300, 700}});
  runs.push_back({"exp", {random_of(DType::Float16, {2, 300, 150}, 5)}, {{2, 0, 1}}, {}, DType::Float16,
                  {150, 2, 300}});
  runs.push_back({"gelu", {random_f32({100, 1000}, 6)}, {}, attrs_of({{"approximate", std::string("tanh")}}),
                  DType::Float32, {100, 1000}});
  runs.push_back({"where", {random_of(DType::Bool, {1, 500, 200}, 7), random_of(DType::Float16, {3, 500, 200}, 8),
                            random_of(DType::Float16, {200}, 9)},
                  {}, {}, DType::Float16, {3, 500, 200}});
  runs.push_back({"div", {random_of(DType::Int32, {400, 400}, 10), Buffer(DType::Int32, {400})}, {},
                  attrs_of({{"rounding_mode", std::string("floor")}}), DType::Int32, {400, 400}});
  for (int i = 0; i < 400; ++i) runs.back().inputs[1].as<int32_t>()[i] = i % 7 - 3 == 0 ? 5 : i % 7 - 3;
  runs.push_back({"cast", {random_f32({500, 300}, 11)}, {{1, 0}}, attrs_of({{"dtype", DType::Int8}}), DType::Int8,
                  {300, 500}});
  runs.push_back({"lt", {random_f32({300, 700}, 12), random_f32({300, 1}, 13)}, {}, {}, DType::Bool, {300, 700}});
  runs.push_back({"clone", {random_of(DType::Int8, {3, 200, 300}, 14)}, {{0, 2, 1}}, {}, DType::Int8, {3, 300, 200}});
  runs.push_back({"add", {random_of(DType::Float16, {257, 300}, 15), random_of(DType::Float16, {300, 1}, 16)},
                  {{1, 0}, {}}, {}, DType::Float16, {300, 257}});

  for (Run& r : runs) {
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < r.inputs.size(); ++i) {
      Tensor t = r.inputs[i].tensor();
      if (i < r.perms.size() && !r.perms[i].empty()) t = permuted(t, r.perms[i]);
      inputs.push_back(t);
    }
    Buffer one(r.out_dtype, r.out_shape), many(r.out_dtype, r.out_shape);
    std::memset(one.bytes.data(), 0x5a, one.bytes.size());
    std::memset(many.bytes.data(), 0xa5, many.bytes.size());
    ASSERT_EQ(run(r.op, inputs, r.attrs, one, 1), Error::Ok) << r.op << ": " << error_detail();
    ASSERT_EQ(run(r.op, inputs, r.attrs, many, 4), Error::Ok) << r.op << ": " << error_detail();
    EXPECT_TRUE(one.bytes == many.bytes) << r.op << " differs between 1 and 4 threads";
  }
}

// numpy's result is platform-defined here; edgec defines it: NaN gives 0,
// out-of-range values saturate (no undefined behaviour in the conversion).
TEST(ElementwiseCast, OutOfRangeFloatsSaturate) {
  const float inf = std::numeric_limits<float>::infinity();
  Buffer x(DType::Float32, {8});
  const float values[8] = {std::nanf(""), inf, -inf, 1e20f, -1e20f, 3e9f, -3e9f, 300.5f};
  std::memcpy(x.bytes.data(), values, sizeof values);

  Buffer i8(DType::Int8, {8});
  ASSERT_EQ(run("cast", {x.tensor()}, attrs_of({{"dtype", DType::Int8}}), i8), Error::Ok);
  EXPECT_EQ((std::vector<int8_t>(i8.as<int8_t>(), i8.as<int8_t>() + 8)),
            (std::vector<int8_t>{0, 127, -128, 127, -128, 127, -128, 127}));

  Buffer u8(DType::UInt8, {8});
  ASSERT_EQ(run("cast", {x.tensor()}, attrs_of({{"dtype", DType::UInt8}}), u8), Error::Ok);
  EXPECT_EQ((std::vector<uint8_t>(u8.as<uint8_t>(), u8.as<uint8_t>() + 8)),
            (std::vector<uint8_t>{0, 255, 0, 255, 0, 255, 0, 255}));

  Buffer i32(DType::Int32, {8});
  ASSERT_EQ(run("cast", {x.tensor()}, attrs_of({{"dtype", DType::Int32}}), i32), Error::Ok);
  const int32_t max32 = std::numeric_limits<int32_t>::max(), min32 = std::numeric_limits<int32_t>::min();
  EXPECT_EQ((std::vector<int32_t>(i32.as<int32_t>(), i32.as<int32_t>() + 8)),
            (std::vector<int32_t>{0, max32, min32, max32, min32, max32, min32, 300}));

  Buffer i64(DType::Int64, {8});
  ASSERT_EQ(run("cast", {x.tensor()}, attrs_of({{"dtype", DType::Int64}}), i64), Error::Ok);
  const int64_t max64 = std::numeric_limits<int64_t>::max(), min64 = std::numeric_limits<int64_t>::min();
  EXPECT_EQ((std::vector<int64_t>(i64.as<int64_t>(), i64.as<int64_t>() + 8)),
            (std::vector<int64_t>{0, max64, min64, max64, min64, 3000000000, -3000000000, 300}));
}

// bfloat16 is a storage type only cast converts. Expected bits from
// PyTorch 1.13 (x.to(torch.bfloat16)), which rounds float32 to nearest even:
// ONNX's Cast test values, ties to even (1 + 2^-8 down, 1 + 3 * 2^-8 up),
// the largest float (to inf), a subnormal, -0, 65504; NaN stays a quiet NaN
// (ONNX's test data writes 0x7fc0). From float64 the rounding is once, as
// round-to-nearest-even defines it (PyTorch goes through float32 and gives
// 0x3f80 for 1 + 2^-8 + 2^-40, which lies above the tie); from int32 as
// PyTorch (257 -> 256, 259 -> 260).
TEST(ElementwiseCast, BFloat16RoundsToNearestEven) {
  const float values[12] = {0.47892547f, 0.48033667f, 1 + 0x1p-8f, 1 + 3 * 0x1p-8f, -1 - 0x1p-8f,
                            std::numeric_limits<float>::max(), 1e-40f, -0.0f, 65504.0f,
                            std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                            std::nanf("")};
  Buffer x(DType::Float32, {12});
  std::memcpy(x.bytes.data(), values, sizeof values);
  Buffer bf(DType::BFloat16, {12});
  ASSERT_EQ(run("cast", {x.tensor()}, attrs_of({{"dtype", DType::BFloat16}}), bf), Error::Ok);
  const std::vector<uint16_t> got(bf.as<uint16_t>(), bf.as<uint16_t>() + 12);
  EXPECT_EQ(std::vector<uint16_t>(got.begin(), got.end() - 1),
            (std::vector<uint16_t>{0x3ef5, 0x3ef6, 0x3f80, 0x3f82, 0xbf80, 0x7f80, 0x0001, 0x8000, 0x4780, 0x7f80,
                                   0xff80}));
  EXPECT_EQ(got.back(), 0x7fc0);

  Buffer d(DType::Float64, {2});
  const double doubles[2] = {1 + 0x1p-8 + 0x1p-40, 1 + 0x1p-8};
  std::memcpy(d.bytes.data(), doubles, sizeof doubles);
  Buffer from_d(DType::BFloat16, {2});
  ASSERT_EQ(run("cast", {d.tensor()}, attrs_of({{"dtype", DType::BFloat16}}), from_d), Error::Ok);
  EXPECT_EQ((std::vector<uint16_t>(from_d.as<uint16_t>(), from_d.as<uint16_t>() + 2)),
            (std::vector<uint16_t>{0x3f81, 0x3f80}));

  Buffer i(DType::Int32, {4});
  const int32_t ints[4] = {257, 259, -7, 16777217};
  std::memcpy(i.bytes.data(), ints, sizeof ints);
  Buffer from_i(DType::BFloat16, {4});
  ASSERT_EQ(run("cast", {i.tensor()}, attrs_of({{"dtype", DType::BFloat16}}), from_i), Error::Ok);
  EXPECT_EQ((std::vector<uint16_t>(from_i.as<uint16_t>(), from_i.as<uint16_t>() + 4)),
            (std::vector<uint16_t>{0x4380, 0x4382, 0xc0e0, 0x4b80}));
}

// Widening is exact: bits << 16 (PyTorch's .float() of the same bits), then
// as any float32 (to int32 truncating, to bool != 0).
TEST(ElementwiseCast, BFloat16Widens) {
  const uint16_t bits[6] = {0x3ef5, 0xc2f7, 0x0001, 0x8000, 0x4380, 0x7f80};
  Buffer x(DType::BFloat16, {6});
  std::memcpy(x.bytes.data(), bits, sizeof bits);
  Buffer f(DType::Float32, {6});
  ASSERT_EQ(run("cast", {x.tensor()}, attrs_of({{"dtype", DType::Float32}}), f), Error::Ok);
  EXPECT_EQ((std::vector<float>(f.as<float>(), f.as<float>() + 6)),
            (std::vector<float>{0.478515625f, -123.5f, 9.183549615799121e-41f, -0.0f, 256.0f,
                                std::numeric_limits<float>::infinity()}));
  EXPECT_TRUE(std::signbit(f.as<float>()[3]));
  Buffer i(DType::Int32, {5});
  Buffer x5(DType::BFloat16, {5});
  std::memcpy(x5.bytes.data(), bits, 5 * sizeof(uint16_t));
  ASSERT_EQ(run("cast", {x5.tensor()}, attrs_of({{"dtype", DType::Int32}}), i), Error::Ok);
  EXPECT_EQ((std::vector<int32_t>(i.as<int32_t>(), i.as<int32_t>() + 5)), (std::vector<int32_t>{0, -123, 0, 0, 256}));
  Buffer b(DType::Bool, {5});
  ASSERT_EQ(run("cast", {x5.tensor()}, attrs_of({{"dtype", DType::Bool}}), b), Error::Ok);
  EXPECT_EQ((std::vector<uint8_t>(b.as<uint8_t>(), b.as<uint8_t>() + 5)), (std::vector<uint8_t>{1, 1, 1, 0, 1}));
  // Another operator refuses bf16: it is a storage type.
  Buffer r(DType::BFloat16, {5});
  EXPECT_NE(run("relu", {x5.tensor()}, {}, r), Error::Ok);
}

// A bool byte read from a file may be any value; nonzero means true, and
// bool outputs are always 0 or 1.
TEST(ElementwiseBool, NonCanonicalBytesAreTrue) {
  Buffer c(DType::Bool, {4});
  const uint8_t bytes[4] = {0, 1, 2, 255};
  std::memcpy(c.bytes.data(), bytes, 4);

  Buffer not_out(DType::Bool, {4});
  ASSERT_EQ(run("logical_not", {c.tensor()}, {}, not_out), Error::Ok);
  EXPECT_EQ(std::memcmp(not_out.bytes.data(), "\1\0\0\0", 4), 0);

  Buffer as_i32(DType::Int32, {4});
  ASSERT_EQ(run("cast", {c.tensor()}, attrs_of({{"dtype", DType::Int32}}), as_i32), Error::Ok);
  EXPECT_EQ((std::vector<int32_t>(as_i32.as<int32_t>(), as_i32.as<int32_t>() + 4)),
            (std::vector<int32_t>{0, 1, 1, 1}));

  Buffer x(DType::Float32, {4}), y(DType::Float32, {4}), sel(DType::Float32, {4});
  for (int i = 0; i < 4; ++i) {
    x.as<float>()[i] = 1.0f;
    y.as<float>()[i] = -1.0f;
  }
  ASSERT_EQ(run("where", {c.tensor(), x.tensor(), y.tensor()}, {}, sel), Error::Ok);
  EXPECT_EQ((std::vector<float>(sel.as<float>(), sel.as<float>() + 4)), (std::vector<float>{-1, 1, 1, 1}));

  Buffer eq(DType::Bool, {4}), ones(DType::Bool, {4});
  std::memset(ones.bytes.data(), 1, 4);
  ASSERT_EQ(run("eq", {c.tensor(), ones.tensor()}, {}, eq), Error::Ok);
  EXPECT_EQ(std::memcmp(eq.bytes.data(), "\0\1\1\1", 4), 0);
}

// exp, tanh, erf and gelu are polynomial approximations
// (kernels/elementwise_math.h): sweep float32 bit patterns across the whole
// range against double precision.
TEST(ElementwiseMath, ApproximationsHoldAcrossTheFloatRange) {
  std::vector<float> xs;
  for (uint64_t bits = 0; bits < 0x100000000ull; bits += 2039) {
    const uint32_t b = static_cast<uint32_t>(bits);
    float x;
    std::memcpy(&x, &b, 4);
    if (!std::isnan(x)) xs.push_back(x);
  }
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {0.0f, -0.0f, inf, -inf, 88.72283f, 88.72284f, -87.33654f, -103.97208f,
                            -103.97209f, -104.0f, 89.0f, 1e-30f, -1e-30f, 0.625f, -0.625f, 0.8f,
                            -0.8f, 11.0f, -13.2f, 16.0f, -16.0f};
  xs.insert(xs.end(), std::begin(specials), std::end(specials));
  Buffer x(DType::Float32, {static_cast<int64_t>(xs.size())});
  std::memcpy(x.bytes.data(), xs.data(), x.bytes.size());

  struct Op {
    const char* name;
    double (*ref)(double);
    double ulps;  // allowed relative error on normal results, in float epsilons
  };
  const Op ops[] = {
      {"exp", [](double v) { return std::exp(v); }, 2},
      {"tanh", [](double v) { return std::tanh(v); }, 2},
      {"sigmoid", [](double v) { return 1.0 / (1.0 + std::exp(-v)); }, 3},
      {"erf", [](double v) { return std::erf(v); }, 3},
      {"gelu", [](double v) { return 0.5 * v * std::erfc(-v / std::sqrt(2.0)); }, 8},
  };
  const double eps = std::numeric_limits<float>::epsilon();
  for (const Op& op : ops) {
    Buffer out(DType::Float32, x.shape);
    ASSERT_EQ(run(op.name, {x.tensor()}, {}, out), Error::Ok) << error_detail();
    int failures = 0;
    for (size_t i = 0; i < xs.size() && failures < 5; ++i) {
      const double ref = op.ref(xs[i]);
      const float got = out.as<float>()[i];
      bool ok;
      if (std::isnan(ref)) {
        ok = std::isnan(got);  // gelu(-inf) = -inf * 0
      } else if (std::isinf(static_cast<float>(ref))) {
        ok = got == static_cast<float>(ref);
      } else if (std::fabs(ref) < std::numeric_limits<float>::min()) {
        // Subnormal results carry fewer bits: a few subnormal steps.
        ok = std::fabs(got - ref) <= op.ulps * eps * std::fabs(ref) + 1e-44;
      } else {
        ok = std::fabs(got - ref) <= op.ulps * eps * std::fabs(ref);
      }
      if (!ok) {
        ++failures;
        ADD_FAILURE() << op.name << "(" << xs[i] << ") = " << got << ", expected " << ref;
      }
      if (xs[i] == 0.0f && got == 0.0f) {
        EXPECT_EQ(std::signbit(got), std::signbit(xs[i])) << op.name << " keeps the sign of zero";
      }
    }
    const float nans[2] = {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN()};
    Buffer n_in(DType::Float32, {2}), n_out(DType::Float32, {2});
    std::memcpy(n_in.bytes.data(), nans, sizeof nans);
    ASSERT_EQ(run(op.name, {n_in.tensor()}, {}, n_out), Error::Ok);
    EXPECT_TRUE(std::isnan(n_out.as<float>()[0]) && std::isnan(n_out.as<float>()[1])) << op.name;
  }
}

TEST(ElementwiseErrors, OutputTooSmallNamesTheOp) {
  Buffer a = random_f32({3, 4}, 1), b = random_f32({4}, 2);
  Buffer out(DType::Float32, {2});
  EXPECT_EQ(run("add", {a.tensor(), b.tensor()}, {}, out), Error::OutOfMemory);
  EXPECT_EQ(error_detail().rfind("add: output of shape [3, 4] needs 48 bytes", 0), 0u) << error_detail();
}

TEST(ElementwiseErrors, InputRankBeyondMaximum) {
  Buffer a = random_f32({2}, 1);
  Tensor t = a.tensor();
  t.rank = kMaxRank + 1;
  Buffer out(DType::Float32, {2});
  EXPECT_EQ(run("exp", {t}, {}, out), Error::InvalidShape);
  EXPECT_EQ(error_detail(), "exp: expected a rank in [0, 8], got 9");
}

TEST(ElementwiseKernels, EveryOperatorIsRegistered) {
  for (const char* op :
       {"add", "sub", "mul", "div", "pow", "maximum", "minimum", "remainder", "fmod", "eq", "ne", "lt", "le", "gt",
        "ge", "logical_and", "logical_or", "logical_xor", "logical_not", "where", "neg", "abs", "exp", "log", "sqrt",
        "rsqrt", "reciprocal", "sin", "cos", "tanh", "sigmoid", "erf", "relu", "leaky_relu", "elu", "gelu",
        "softplus", "mish", "hardswish", "hardsigmoid", "clamp", "floor", "ceil", "round", "sign", "isnan", "clone",
        "cast"}) {
    EXPECT_NE(find_kernel(op), nullptr) << op;
  }
}

}  // namespace
}  // namespace edgec

// Kernels of the quantized operators ONNX Runtime's com.microsoft domain
// adds (QLinearAdd, QLinearMul, QLinearAveragePool and
// QLinearGlobalAveragePool, QLinearSigmoid, QLinearLeakyRelu), computed as
// ONNX Runtime 1.30 computes them on x86-64 with AVX2, so that the integer
// results match it bit for bit (docs/semantics.md, "Quantized arithmetic"):
//
//   qlinear_add(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point)
//     MLAS's AVX2 kernel: with ra = sa / sy, rb = sb / sy and the f32
//     constant k = zy - (ra * za + rb * zb), y = sat(rne(fma(a, ra, fma(b, rb, k))));
//     where b (or a) is one value along a row of the broadcast, MLAS folds it
//     into the constant first: fma(a, ra, k + b * rb).
//   qlinear_mul(the same operands)
//     MLAS's SSE2 kernel: y = sat(rne(f32((a - za) * (b - zb)) * (sa * sb / sy) + zy)),
//     the integer product exact, the ratio (sa * sb) / sy in f32.
//   qlinear_avg_pool(x, x_scale, x_zero_point, y_scale, y_zero_point; kernel_size, stride, padding,
//                    ceil_mode, count_include_pad)
//     ONNX Runtime's QLinearAveragePool: each element dequantized (x - zx) * sx,
//     summed in f32 in window order, divided by the count, then
//     y = sat(rne(avg / sy + zy)) (the zero point added in f32 before
//     rounding). A window that covers the whole unpadded input (global
//     pooling, also QLinearGlobalAveragePool) takes MLAS's integer path:
//     acc = sum(x) - zx * n in int32, y = sat(rne(f32(acc) * (sx / (sy * n))) + zy).
//   qlinear_sigmoid(x, x_scale, x_zero_point, y_scale, y_zero_point)
//   qlinear_leaky_relu(the same; alpha)
//     ONNX Runtime's lookup tables: for each of the 256 values, dequantize
//     (x - zx) * sx, apply the function in f32 (sigmoid: MLAS's rational
//     approximation with FMA, as its FMA3 kernel; leaky relu: v >= 0 ? v :
//     alpha * v) and quantize sat(rne(v / sy) + zy); the kernel then looks
//     each element up.
//
// rne is round-half-to-even in f32, as x86's cvtps2dq: a value outside the
// int32 range converts to INT32_MIN there, which the saturation then
// clamps, and so it is here. Scales and zero points are per tensor: f32
// scalars (or one-element vectors) and scalars of the data's dtype.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "kernels/broadcast.h"
#include "kernels/conv_spatial.h"
#include "kernels/families.h"

namespace edgec {
namespace {

using spatial::cat;

// GCC contracts a * b + c into a fused multiply-add where FMA is on (the
// kernels are built for x86-64-v3); ONNX Runtime's kernels round each
// product, so the arithmetic below is kept uncontracted (sigmoid's FMA
// steps call std::fma explicitly).
#if defined(__GNUC__) && !defined(__clang__)
#define EDGEC_NO_FMA __attribute__((optimize("fp-contract=off")))
#else
#define EDGEC_NO_FMA
#endif

constexpr DTypeSet kQuantDTypes = {DType::Int8, DType::UInt8};

struct QuantMsDecls {
  AttrDecl kernel_size = required(attr_ints("kernel_size", AttrRule::Positive));
  AttrDecl ceil_mode = attr_bool("ceil_mode", false);
  AttrDecl count_include_pad = attr_bool("count_include_pad", false);
  AttrDecl alpha = attr_float("alpha", 0.01);
};

/// x86's cvtps2dq in the default rounding mode: nearest, ties to even;
/// NaN and values outside int32 give INT32_MIN.
inline int32_t cvt_rne(float v) {
  if (!(v >= -2147483648.0f && v < 2147483648.0f)) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(std::nearbyint(v));
}

template <typename T>
T saturate(int64_t v) {
  return static_cast<T>(std::clamp<int64_t>(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}

/// The f32 value of a per-tensor scale operand.
Error read_scale(std::string_view op, const Tensor& t, std::string_view what, float& out) {
  if (t.dtype != DType::Float32 || t.numel() != 1)
    return fail(Error::InvalidArgument, cat(op, ": ", what, " must be one f32 value (per tensor), got ",
                                            dtype_name(t.dtype), shape_string(t.shape())));
  out = *t.data_as<float>();
  return Error::Ok;
}

/// The value of a per-tensor zero point of the data's dtype.
Error read_zero_point(std::string_view op, const Tensor& t, DType dtype, std::string_view what, int32_t& out) {
  if (t.dtype != dtype || t.numel() != 1)
    return fail(Error::InvalidArgument, cat(op, ": ", what, " must be one ", dtype_name(dtype),
                                            " value (per tensor), got ", dtype_name(t.dtype), shape_string(t.shape())));
  out = dtype == DType::Int8 ? int32_t{*t.data_as<int8_t>()} : int32_t{*t.data_as<uint8_t>()};
  return Error::Ok;
}

Error check_counts(std::string_view op, std::span<const Tensor> inputs, size_t n, std::span<Tensor> outputs) {
  if (inputs.size() != n || outputs.size() != 1)
    return fail(Error::InvalidArgument, cat(op, ": expected ", n, " inputs and 1 output, got ", inputs.size(),
                                            " inputs and ", outputs.size(), " outputs"));
  const DType dtype = inputs[0].dtype;
  if (!kQuantDTypes.contains(dtype))
    return fail(Error::InvalidType, cat(op, ": expected i8 or u8 data, got ", dtype_name(dtype)));
  if (outputs[0].dtype != dtype)
    return fail(Error::InvalidType, cat(op, ": the output must be ", dtype_name(dtype), " like the input, got ",
                                        dtype_name(outputs[0].dtype)));
  return Error::Ok;
}

// ---- qlinear_add, qlinear_mul --------------------------------------------------

struct BinaryParams {
  float sa, sb, sy;
  int32_t za, zb, zy;
};

/// How ONNX Runtime's broadcasting hands a row of the output to MLAS: both
/// operands vary along it, or one is a scalar there (MLAS's IsScalarB; a
/// scalar a is passed as b, the operands swapped).
enum class RowForm { Vectors, ScalarB, ScalarA };

/// sat(rne(r)) as MLAS's x86 code computes it: cvtps2dq (round half to
/// even; NaN and values outside int32 give INT32_MIN), then the saturating
/// packs to int16 and to T. Clamping before rounding gives the same result,
/// since the bounds are integers; the form vectorizes (vmaxps, vminps,
/// vroundps).
template <typename T>
EDGEC_NO_FMA inline T pack_rne(float r) {
  constexpr float lo = static_cast<float>(std::numeric_limits<T>::min());
  constexpr float hi = static_cast<float>(std::numeric_limits<T>::max());
  float c = r < 2147483648.0f ? r : lo;  // NaN, >= 2^31: INT32_MIN, saturated to lo
  c = c > lo ? c : lo;
  c = c < hi ? c : hi;
  return static_cast<T>(static_cast<int32_t>(std::nearbyint(c)));
}

// Each operation has a loop per row form, written so that GCC vectorizes it
// (contiguous operands: 8 elements per AVX2 instruction), and the same
// arithmetic per element for strided rows. The loops keep each product's
// rounding (EDGEC_NO_FMA) and call std::fma where MLAS fuses, so vectorized
// and scalar results are the same bits.

template <typename T>
struct QAdd {
  float rac, rbc, fixed;
  explicit QAdd(const BinaryParams& p) { init(p); }
  EDGEC_NO_FMA void init(const BinaryParams& p) {
    rac = p.sa / p.sy;
    rbc = p.sb / p.sy;
    const float za_part = rac * static_cast<float>(p.za);
    const float zb_part = rbc * static_cast<float>(p.zb);
    fixed = static_cast<float>(p.zy) - (za_part + zb_part);
  }
  // MLAS's AVX2 kernel (qladd_avx2.cpp): the zero points folded into one
  // f32 constant, then explicit fused multiply-adds; a scalar operand is
  // folded into the constant first (one rounding more).
  EDGEC_NO_FMA float fold(T v, float r) const {
    const float prod = static_cast<float>(v) * r;
    return fixed + prod;
  }
  EDGEC_NO_FMA T operator()(T a, T b, RowForm form) const {
    const float fa = static_cast<float>(a), fb = static_cast<float>(b);
    float r;
    switch (form) {
      case RowForm::ScalarB: r = std::fma(fa, rac, fold(b, rbc)); break;
      case RowForm::ScalarA: r = std::fma(fb, rbc, fold(a, rac)); break;
      default: r = std::fma(fa, rac, std::fma(fb, rbc, fixed)); break;
    }
    return pack_rne<T>(r);
  }
  EDGEC_NO_FMA void vectors(const T* __restrict a, const T* __restrict b, T* __restrict o, int64_t n) const {
    const float ra = rac, rb = rbc, k = fixed;
    for (int64_t i = 0; i < n; ++i)
      o[i] = pack_rne<T>(std::fma(static_cast<float>(a[i]), ra, std::fma(static_cast<float>(b[i]), rb, k)));
  }
  /// a varies along the row, b is one value (MLAS's scalar b).
  EDGEC_NO_FMA void scalar_b(const T* __restrict a, T b, T* __restrict o, int64_t n) const {
    const float ra = rac, k = fold(b, rbc);
    for (int64_t i = 0; i < n; ++i) o[i] = pack_rne<T>(std::fma(static_cast<float>(a[i]), ra, k));
  }
  /// a is one value, b varies (MLAS gets the operands swapped).
  EDGEC_NO_FMA void scalar_a(T a, const T* __restrict b, T* __restrict o, int64_t n) const {
    const float rb = rbc, k = fold(a, rac);
    for (int64_t i = 0; i < n; ++i) o[i] = pack_rne<T>(std::fma(static_cast<float>(b[i]), rb, k));
  }
};

template <typename T>
struct QMul {
  float ratio, zy_f;
  int32_t za, zb;
  explicit QMul(const BinaryParams& p) { init(p); }
  EDGEC_NO_FMA void init(const BinaryParams& p) {
    ratio = p.sa * p.sb / p.sy;
    zy_f = static_cast<float>(p.zy);
    za = p.za;
    zb = p.zb;
  }
  /// The integer product is exact; then a rounded product and a rounded sum.
  EDGEC_NO_FMA static T requant(int32_t prod, float ratio, float zy_f) {
    const float scaled = static_cast<float>(prod) * ratio;
    const float shifted = scaled + zy_f;
    return pack_rne<T>(shifted);
  }
  EDGEC_NO_FMA T operator()(T a, T b, RowForm) const {
    return requant((int32_t{a} - za) * (int32_t{b} - zb), ratio, zy_f);
  }
  EDGEC_NO_FMA void vectors(const T* __restrict a, const T* __restrict b, T* __restrict o, int64_t n) const {
    const float r = ratio, z = zy_f;
    const int32_t ka = za, kb = zb;
    for (int64_t i = 0; i < n; ++i) o[i] = requant((int32_t{a[i]} - ka) * (int32_t{b[i]} - kb), r, z);
  }
  EDGEC_NO_FMA void scalar_b(const T* __restrict a, T b, T* __restrict o, int64_t n) const {
    const float r = ratio, z = zy_f;
    const int32_t ka = za, fb = int32_t{b} - zb;
    for (int64_t i = 0; i < n; ++i) o[i] = requant((int32_t{a[i]} - ka) * fb, r, z);
  }
  EDGEC_NO_FMA void scalar_a(T a, const T* __restrict b, T* __restrict o, int64_t n) const {
    const float r = ratio, z = zy_f;
    const int32_t fa = int32_t{a} - za, kb = zb;
    for (int64_t i = 0; i < n; ++i) o[i] = requant(fa * (int32_t{b[i]} - kb), r, z);
  }
};

template <template <typename> class Op>
Error qlinear_binary(std::string_view op, KernelContext& ctx, std::span<const Tensor> inputs,
                     std::span<Tensor> outputs) {
  EDGEC_TRY(check_counts(op, inputs, 8, outputs));
  const Tensor &a = inputs[0], &b = inputs[3];
  const DType dtype = a.dtype;
  if (b.dtype != dtype)
    return fail(Error::InvalidType,
                cat(op, ": b must be ", dtype_name(dtype), " like a, got ", dtype_name(b.dtype)));
  BinaryParams p{};
  EDGEC_TRY(read_scale(op, inputs[1], "a_scale", p.sa));
  EDGEC_TRY(read_zero_point(op, inputs[2], dtype, "a_zero_point", p.za));
  EDGEC_TRY(read_scale(op, inputs[4], "b_scale", p.sb));
  EDGEC_TRY(read_zero_point(op, inputs[5], dtype, "b_zero_point", p.zb));
  EDGEC_TRY(read_scale(op, inputs[6], "y_scale", p.sy));
  EDGEC_TRY(read_zero_point(op, inputs[7], dtype, "y_zero_point", p.zy));
  const Result<StaticShape> shape = broadcast_shapes(op, {&a, &b});
  if (!shape.ok()) return shape.error();
  Tensor& out = outputs[0];
  EDGEC_TRY(out.resize(shape->dims()));
  if (out.numel() == 0) return Error::Ok;
  auto run = [&]<typename T>() {
    const Op<T> f(p);
    const T* ad = a.data_as<T>();
    const T* bd = b.data_as<T>();
    T* od = out.data_as<T>();
    // Rows: a same-shape (or any contiguous) walk is one row; a per-channel
    // or scalar operand is one value along each row.
    StridedLoop<3> loop(shape->dims(), {&out, &a, &b});
    loop.run_rows(ctx.num_threads, [&](const auto& off, const auto& st, int64_t n) {
      T* o = od + off[0];
      if (st[0] == 1 && st[1] == 1 && st[2] == 1) {
        f.vectors(ad + off[1], bd + off[2], o, n);
      } else if (st[0] == 1 && st[1] == 1 && st[2] == 0) {
        f.scalar_b(ad + off[1], bd[off[2]], o, n);
      } else if (st[0] == 1 && st[1] == 0 && st[2] == 1) {
        f.scalar_a(ad[off[1]], bd + off[2], o, n);
      } else {
        const RowForm form = st[2] == 0 && st[1] != 0   ? RowForm::ScalarB
                             : st[1] == 0 && st[2] != 0 ? RowForm::ScalarA
                                                        : RowForm::Vectors;
        for (int64_t i = 0; i < n; ++i)
          od[off[0] + i * st[0]] = f(ad[off[1] + i * st[1]], bd[off[2] + i * st[2]], form);
      }
    });
  };
  if (dtype == DType::Int8) {
    run.template operator()<int8_t>();
  } else {
    run.template operator()<uint8_t>();
  }
  return Error::Ok;
}

Error qlinear_add(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs&, std::span<Tensor> outputs) {
  return qlinear_binary<QAdd>("qlinear_add", ctx, inputs, outputs);
}

Error qlinear_mul(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs&, std::span<Tensor> outputs) {
  return qlinear_binary<QMul>("qlinear_mul", ctx, inputs, outputs);
}

// ---- qlinear_avg_pool -------------------------------------------------------------

// ONNX Runtime's output size (as torch's pooling_output_shape): with
// ceil_mode the last window must start inside the input or the left padding.
int64_t pooled_size(int64_t in, int64_t k, int64_t s, int64_t pb, int64_t pe, bool ceil_mode) {
  int64_t out = spatial::floor_div(in + pb + pe - (k - 1) - 1 + (ceil_mode ? s - 1 : 0), s) + 1;
  if (ceil_mode && (out - 1) * s >= in + pb) --out;
  return out;
}

struct PoolParams {
  float sx, sy;
  int32_t zx, zy;
};

/// MLAS's global average pool: an int32 sum per plane, requantized.
template <typename T>
EDGEC_NO_FMA void global_avg_pool_typed(const Tensor& x5, const PoolParams& p, Tensor& out) {
  const int64_t planes = x5.sizes[0] * x5.sizes[1];
  const int64_t D = x5.sizes[2], H = x5.sizes[3], W = x5.sizes[4];
  const int64_t n = D * H * W;
  const float scale = p.sx / (p.sy * static_cast<float>(n));
  const int32_t lo = int32_t{std::numeric_limits<T>::min()} - p.zy;
  const int32_t hi = int32_t{std::numeric_limits<T>::max()} - p.zy;
  const T* xd = x5.data_as<T>();
  T* od = out.data_as<T>();
  for (int64_t pl = 0; pl < planes; ++pl) {
    const T* plane = xd + (pl / x5.sizes[1]) * x5.strides[0] + (pl % x5.sizes[1]) * x5.strides[1];
    int32_t acc = -p.zx * static_cast<int32_t>(n);
    for (int64_t d = 0; d < D; ++d)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w) acc += plane[d * x5.strides[2] + h * x5.strides[3] + w * x5.strides[4]];
    const float v = static_cast<float>(acc) * scale;
    od[pl] = static_cast<T>(std::clamp(cvt_rne(v), lo, hi) + p.zy);
  }
}

/// ONNX Runtime's QLinearPool tasks: dequantize, sum in f32, divide, quantize.
template <typename T>
EDGEC_NO_FMA void avg_pool_typed(const Tensor& x5, const PoolParams& p, const spatial::Window& g,
                                 const int64_t out_sizes[spatial::kAxes], bool count_include_pad, Tensor& out) {
  const int64_t C = x5.sizes[1];
  const int64_t planes = x5.sizes[0] * C;
  const int64_t in[3] = {x5.sizes[2], x5.sizes[3], x5.sizes[4]};
  const int64_t kernel_count = g.kernel[0] * g.kernel[1] * g.kernel[2];
  const T* xd = x5.data_as<T>();
  T* od = out.data_as<T>();
  const float zy = static_cast<float>(p.zy);
  int64_t o = 0;
  for (int64_t pl = 0; pl < planes; ++pl) {
    const T* plane = xd + (pl / C) * x5.strides[0] + (pl % C) * x5.strides[1];
    for (int64_t od_ = 0; od_ < out_sizes[0]; ++od_) {
      int64_t lo[3], hi[3];
      for (int64_t oh = 0; oh < out_sizes[1]; ++oh) {
        for (int64_t ow = 0; ow < out_sizes[2]; ++ow, ++o) {
          const int64_t idx[3] = {od_, oh, ow};
          for (int a = 0; a < 3; ++a) {
            const int64_t start = idx[a] * g.stride[a] - g.pad_begin[a];
            hi[a] = std::min(start + g.kernel[a], in[a]);
            lo[a] = std::max<int64_t>(start, 0);
          }
          float sum = 0.0f;
          for (int64_t d = lo[0]; d < hi[0]; ++d)
            for (int64_t h = lo[1]; h < hi[1]; ++h)
              for (int64_t w = lo[2]; w < hi[2]; ++w) {
                const T v = plane[d * x5.strides[2] + h * x5.strides[3] + w * x5.strides[4]];
                sum += p.sx * static_cast<float>(int32_t{v} - p.zx);
              }
          const int64_t count = count_include_pad ? kernel_count : (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
          const float avg = sum / static_cast<float>(count);
          const float q = avg / p.sy + zy;
          od[o] = saturate<T>(static_cast<int64_t>(std::nearbyint(std::clamp(q, -1e9f, 1e9f))));
        }
      }
    }
  }
}

Error qlinear_avg_pool(KernelContext&, std::span<const Tensor> inputs, const Attrs& attrs,
                       std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "qlinear_avg_pool";
  EDGEC_TRY(check_counts(kOp, inputs, 5, outputs));
  const Tensor& x = inputs[0];
  PoolParams p{};
  EDGEC_TRY(read_scale(kOp, inputs[1], "x_scale", p.sx));
  EDGEC_TRY(read_zero_point(kOp, inputs[2], x.dtype, "x_zero_point", p.zx));
  EDGEC_TRY(read_scale(kOp, inputs[3], "y_scale", p.sy));
  EDGEC_TRY(read_zero_point(kOp, inputs[4], x.dtype, "y_zero_point", p.zy));
  const QuantMsDecls& decls = declared<QuantMsDecls>();
  spatial::Window g;
  EDGEC_TRY(spatial::read_spatial_rank(kOp, x, attrs, decls.kernel_size, "window", g.nd, spatial::kAxes));
  EDGEC_TRY(spatial::read_axis_ints(kOp, attrs, decls.kernel_size, g.nd, 1, g.kernel));
  std::copy_n(g.kernel, spatial::kAxes, g.stride);
  EDGEC_TRY(spatial::read_axis_ints(kOp, attrs, declared<spatial::SharedDecls>().stride, g.nd, 1, g.stride));
  EDGEC_TRY(spatial::read_padding(kOp, attrs, g.nd, g.pad_begin, g.pad_end));
  const bool ceil_mode = decls.ceil_mode.bool_value(attrs);
  const bool count_include_pad = decls.count_include_pad.bool_value(attrs);
  const Tensor x5 = spatial::lift_to_3d(x);
  int64_t out_sizes[spatial::kAxes] = {1, 1, 1};
  bool global = true;
  for (int a = spatial::kAxes - g.nd; a < spatial::kAxes; ++a) {
    const int64_t in = x5.sizes[2 + a];
    out_sizes[a] = pooled_size(in, g.kernel[a], g.stride[a], g.pad_begin[a], g.pad_end[a], ceil_mode);
    if (out_sizes[a] < 1)
      return fail(Error::InvalidShape, cat(kOp, ": window ", spatial::axes_string(g.kernel, g.nd),
                                           " does not fit the input ", shape_string(x.shape()), " padded by ",
                                           spatial::axes_string(g.pad_begin, g.nd), " + ",
                                           spatial::axes_string(g.pad_end, g.nd)));
    global &= g.kernel[a] == in && g.pad_begin[a] == 0 && g.pad_end[a] == 0;
  }
  Tensor& out = outputs[0];
  EDGEC_TRY(spatial::resize_spatial(x, x.sizes[1], out_sizes, g.nd, out));
  auto run = [&]<typename T>() {
    if (global) {
      global_avg_pool_typed<T>(x5, p, out);
    } else {
      avg_pool_typed<T>(x5, p, g, out_sizes, count_include_pad, out);
    }
  };
  if (x.dtype == DType::Int8) {
    run.template operator()<int8_t>();
  } else {
    run.template operator()<uint8_t>();
  }
  return Error::Ok;
}

// ---- qlinear_sigmoid, qlinear_leaky_relu ------------------------------------------

/// MLAS's logistic function as its FMA3 kernel computes it (Eigen's
/// rational approximation on [-18, 18]).
float mlas_logistic(float x) {
  x = std::min(18.0f, std::max(-18.0f, x));
  const float x2 = x * x;
  float p = std::fma(x2, 4.37031012579801e-11f, 1.15627324459942e-07f);
  p = std::fma(x2, p, 6.08574864600143e-05f);
  p = std::fma(x2, p, 8.51377133304701e-03f);
  p = std::fma(x2, p, 2.48287947061529e-01f);
  float q = std::fma(x2, 6.10247389755681e-13f, 5.76102136993427e-09f);
  q = std::fma(x2, q, 6.29106785017040e-06f);
  q = std::fma(x2, q, 1.70198817374094e-03f);
  q = std::fma(x2, q, 1.16817656904453e-01f);
  q = std::fma(x2, q, 9.93151921023180e-01f);
  p = x * p;
  return std::max(0.0f, p / q + 0.5f);
}

enum class Lut { Sigmoid, LeakyRelu };

template <typename T>
EDGEC_NO_FMA void build_table(Lut fn, float alpha, const PoolParams& p, T table[256]) {
  const int32_t lo = int32_t{std::numeric_limits<T>::min()};
  const int32_t hi = int32_t{std::numeric_limits<T>::max()};
  for (int i = 0; i < 256; ++i) {
    const T x = static_cast<T>(static_cast<uint8_t>(i));
    const float v = p.sx * static_cast<float>(int32_t{x} - p.zx);
    const float f = fn == Lut::Sigmoid ? mlas_logistic(v) : (v >= 0.0f ? v : alpha * v);
    // MLAS's QuantizeLinear: divide, clamp to the range less the zero point, round.
    const float c = std::min(static_cast<float>(hi - p.zy), std::max(static_cast<float>(lo - p.zy), f / p.sy));
    table[static_cast<uint8_t>(x)] = static_cast<T>(cvt_rne(c) + p.zy);
  }
}

/// o[i] = table[x[i]] over a contiguous row, eight elements per step: one
/// 8-byte load and one 8-byte store around eight table reads (byte stores
/// one at a time cost more than the reads; the pointers are restrict so
/// the table's address is not reloaded after each store).
inline void lookup_row(const uint8_t* __restrict table, const uint8_t* __restrict x, uint8_t* __restrict o,
                       int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t v;
    std::memcpy(&v, x + i, sizeof v);
    uint64_t r = 0;
    for (int b = 0; b < 8; ++b) r |= uint64_t{table[(v >> (8 * b)) & 0xff]} << (8 * b);
    std::memcpy(o + i, &r, sizeof r);
  }
  for (; i < n; ++i) o[i] = table[x[i]];
}

Error qlinear_lookup(std::string_view op, Lut fn, KernelContext& ctx, std::span<const Tensor> inputs,
                     const Attrs& attrs, std::span<Tensor> outputs) {
  EDGEC_TRY(check_counts(op, inputs, 5, outputs));
  const Tensor& x = inputs[0];
  PoolParams p{};
  EDGEC_TRY(read_scale(op, inputs[1], "x_scale", p.sx));
  EDGEC_TRY(read_zero_point(op, inputs[2], x.dtype, "x_zero_point", p.zx));
  EDGEC_TRY(read_scale(op, inputs[3], "y_scale", p.sy));
  EDGEC_TRY(read_zero_point(op, inputs[4], x.dtype, "y_zero_point", p.zy));
  double alpha = 0.01;
  if (fn == Lut::LeakyRelu) EDGEC_TRY(read_attr(op, attrs, declared<QuantMsDecls>().alpha, alpha));
  Tensor& out = outputs[0];
  EDGEC_TRY(out.resize(x.shape()));
  auto run = [&]<typename T>() {
    T table[256];
    build_table<T>(fn, static_cast<float>(alpha), p, table);
    const T* xd = x.data_as<T>();
    T* od = out.data_as<T>();
    StridedLoop<2> loop(x.shape(), {&out, &x});
    loop.run_rows(ctx.num_threads, [&](const auto& off, const auto& st, int64_t n) {
      if (st[0] == 1 && st[1] == 1) {
        // i8 data and table read as their bytes, as the index already is.
        lookup_row(reinterpret_cast<const uint8_t*>(table), reinterpret_cast<const uint8_t*>(xd + off[1]),
                   reinterpret_cast<uint8_t*>(od + off[0]), n);
      } else {
        for (int64_t i = 0; i < n; ++i)
          od[off[0] + i * st[0]] = table[static_cast<uint8_t>(xd[off[1] + i * st[1]])];
      }
    });
  };
  if (x.dtype == DType::Int8) {
    run.template operator()<int8_t>();
  } else {
    run.template operator()<uint8_t>();
  }
  return Error::Ok;
}

Error qlinear_sigmoid(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                      std::span<Tensor> outputs) {
  return qlinear_lookup("qlinear_sigmoid", Lut::Sigmoid, ctx, inputs, attrs, outputs);
}

Error qlinear_leaky_relu(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                         std::span<Tensor> outputs) {
  return qlinear_lookup("qlinear_leaky_relu", Lut::LeakyRelu, ctx, inputs, attrs, outputs);
}

}  // namespace

std::span<const KernelEntry> quantized_ms_kernels() {
  const QuantMsDecls& d = declared<QuantMsDecls>();
  const spatial::SharedDecls& s = declared<spatial::SharedDecls>();
  const std::vector<OperandDecl> binary = {{"a"}, {"a_scale"}, {"a_zero_point"}, {"b"},
                                           {"b_scale"}, {"b_zero_point"}, {"y_scale"}, {"y_zero_point"}};
  const std::vector<OperandDecl> unary = {{"x"}, {"x_scale"}, {"x_zero_point"}, {"y_scale"}, {"y_zero_point"}};
  static const KernelEntry kKernels[] = {
      {declare("qlinear_add", "quantized", binary, {}, kQuantDTypes, 0,
               "a + b of per-tensor quantized i8 / u8 tensors, requantized to y's scale and zero point (broadcasting; "
               "ONNX Runtime's QLinearAdd)"),
       qlinear_add},
      {declare("qlinear_avg_pool", "quantized", unary,
               {d.kernel_size, s.stride, s.padding, d.ceil_mode, d.count_include_pad}, kQuantDTypes, 0,
               "1-d / 2-d / 3-d average pooling of a quantized i8 / u8 tensor, requantized (ONNX Runtime's "
               "QLinearAveragePool and QLinearGlobalAveragePool)"),
       qlinear_avg_pool},
      {declare("qlinear_leaky_relu", "quantized", unary, {d.alpha}, kQuantDTypes, 0,
               "leaky relu of a quantized i8 / u8 tensor through a 256-entry table (ONNX Runtime's QLinearLeakyRelu)"),
       qlinear_leaky_relu},
      {declare("qlinear_mul", "quantized", binary, {}, kQuantDTypes, 0,
               "a * b of per-tensor quantized i8 / u8 tensors, requantized to y's scale and zero point (broadcasting; "
               "ONNX Runtime's QLinearMul)"),
       qlinear_mul},
      {declare("qlinear_sigmoid", "quantized", unary, {}, kQuantDTypes, 0,
               "sigmoid of a quantized i8 / u8 tensor through a 256-entry table (ONNX Runtime's QLinearSigmoid)"),
       qlinear_sigmoid},
  };
  return kKernels;
}

}  // namespace edgec

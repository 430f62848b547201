// Pooling kernels over NCL / NCHW / NCDHW tensors with PyTorch semantics:
//   max_pool(x; kernel_size, stride, padding, dilation, ceil_mode)
//   max_pool_with_indices(x; the same, storage_order)     (ONNX MaxPool's Indices)
//   avg_pool(x; kernel_size, stride, padding, ceil_mode, count_include_pad, dilation)
//   adaptive_avg_pool(x; output_size)                     (1-D and 2-D only)
// max_pool and avg_pool run as 3-D pooling with a depth-1 (and for 1-D a
// height-1) window (conv_spatial.h). Padding may be asymmetric (ONNX pads);
// windows are clipped to the input, so padded positions never read memory.
//
// avg_pool's dilation is ONNX AveragePool's (opset 19; torch has none): the
// window's elements lie `dilation` apart; count_include_pad divides by the
// elements that lie inside the input or its padding (never the ceil_mode
// overhang, as without dilation), else by those inside the input. ONNX
// Runtime computes the same.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/conv_spatial.h"
#include "kernels/families.h"
#include "kernels/kernel_checks.h"

namespace edgec {
namespace {

using spatial::axes_string;
using spatial::ceil_div;
using spatial::cat;
using spatial::floor_div;

// The attributes only pooling has, declared once: the rows at the end of
// this file and the kernels read them (stride, padding, dilation and
// output_size are conv_spatial.h's).
struct PoolDecls {
  AttrDecl kernel_size = required(attr_ints("kernel_size", AttrRule::Positive));
  AttrDecl ceil_mode = attr_bool("ceil_mode", false);
  AttrDecl count_include_pad = attr_bool("count_include_pad", true);
  AttrDecl storage_order = attr_int("storage_order", 0, AttrRule::NonNegative);  // 0 or 1
};

/// Where the windows of a pooling operator lie, per axis (index 0 = D,
/// 1 = H, 2 = W).
struct PoolGeometry : spatial::Window {
  int64_t in[spatial::kAxes] = {1, 1, 1};
  int64_t out[spatial::kAxes] = {1, 1, 1};
  bool ceil_mode = false;
};

// torch's pooling_output_shape: with ceil_mode the last window must still
// start inside the input or the left padding, never in the right padding.
int64_t pooled_size(int64_t in, int64_t k, int64_t s, int64_t pb, int64_t pe, int64_t d,
                    bool ceil_mode) {
  int64_t out = floor_div(in + pb + pe - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0), s) + 1;
  if (ceil_mode && (out - 1) * s >= in + pb) --out;
  return out;
}

// One input and one output of its dtype; with `float_input` (the average
// poolings), an f32 or f16 input.
Error check_arity(std::string_view op, std::span<const Tensor> inputs, std::span<Tensor> outputs,
                  bool float_input = false) {
  if (inputs.size() != 1 || outputs.size() != 1) {
    return fail(Error::InvalidArgument, cat(op, ": expected 1 input and 1 output, got ", inputs.size(),
                                            " inputs and ", outputs.size(), " outputs"));
  }
  if (outputs[0].dtype != inputs[0].dtype) {
    return fail(Error::InvalidType, cat(op, ": output dtype must match the input's ",
                                        dtype_name(inputs[0].dtype), ", got ", dtype_name(outputs[0].dtype)));
  }
  if (float_input && !kFloatDTypes.contains(inputs[0].dtype)) {
    return fail(Error::InvalidType, cat(op, ": expected an f32 or f16 input, got ", dtype_name(inputs[0].dtype)));
  }
  return Error::Ok;
}

/// Validates the pooling attributes against `x` and computes the output size.
Error read_pool_geometry(std::string_view op, const Tensor& x, const Attrs& attrs, PoolGeometry& g) {
  constexpr int kAxes = spatial::kAxes;
  EDGEC_TRY(spatial::read_spatial_rank(op, x, attrs, declared<PoolDecls>().kernel_size, "window", g.nd, kAxes));
  EDGEC_TRY(spatial::read_axis_ints(op, attrs, declared<PoolDecls>().kernel_size, g.nd, 1, g.kernel));
  std::copy_n(g.kernel, kAxes, g.stride);
  EDGEC_TRY(spatial::read_axis_ints(op, attrs, declared<spatial::SharedDecls>().stride, g.nd, 1, g.stride));
  EDGEC_TRY(spatial::read_padding(op, attrs, g.nd, g.pad_begin, g.pad_end));
  EDGEC_TRY(spatial::read_axis_ints(op, attrs, declared<spatial::SharedDecls>().dilation, g.nd, 1, g.dilation));
  g.ceil_mode = declared<PoolDecls>().ceil_mode.bool_value(attrs);
  for (int a = kAxes - g.nd; a < kAxes; ++a) {
    g.in[a] = x.sizes[a - (kAxes - g.nd) + 2];
    g.out[a] = pooled_size(g.in[a], g.kernel[a], g.stride[a], g.pad_begin[a], g.pad_end[a],
                           g.dilation[a], g.ceil_mode);
    if (g.out[a] < 1) {
      return fail(Error::InvalidShape,
                  cat(op, ": window ", axes_string(g.kernel, g.nd), " (dilation ",
                      axes_string(g.dilation, g.nd), ") does not fit the input ",
                      shape_string(x.shape()), " padded by ", axes_string(g.pad_begin, g.nd), " + ",
                      axes_string(g.pad_end, g.nd)));
    }
  }
  return Error::Ok;
}

/// Output columns [lo, hi), clipped to [c0, c0 + n), whose window element
/// `t` (input column o * s - pb + t * d) lies inside [0, in).
void tap_columns(int64_t in, int64_t s, int64_t pb, int64_t d, int64_t t, int64_t c0, int64_t n,
                 int64_t& lo, int64_t& hi) {
  const int64_t off = t * d - pb;
  const int64_t first = off >= 0 ? 0 : ceil_div(-off, s);
  const int64_t end = in - 1 - off < 0 ? 0 : (in - 1 - off) / s + 1;
  lo = std::clamp(first, c0, c0 + n);
  hi = std::clamp(end, lo, c0 + n);
}

// ---- max_pool ---------------------------------------------------------------

// Calls run.operator()<T>() for the dtypes max pooling takes (max_pool and
// max_pool_with_indices declare the same ones), or fails naming `op`.
template <typename Run>
Error dispatch_max_pool_dtype(std::string_view op, DType dtype, Run& run) {
  switch (dtype) {
    case DType::Float32: run.template operator()<float>(); break;
    case DType::Float16: run.template operator()<Half>(); break;
    case DType::Int64: run.template operator()<int64_t>(); break;
    case DType::Int32: run.template operator()<int32_t>(); break;
    case DType::Int8: run.template operator()<int8_t>(); break;
    case DType::UInt8: run.template operator()<uint8_t>(); break;
    default:
      return fail(Error::InvalidType, cat(op, ": expected a float or integer input, got ", dtype_name(dtype)));
  }
  return Error::Ok;
}

// A select, not a branch, so that the row loops below vectorize.
template <typename A>
inline void take_max(A& m, A v) {
  if constexpr (std::is_floating_point_v<A>) {
    m = (v > m || std::isnan(v)) ? v : m;  // NaN wins, as in torch
  } else {
    m = v > m ? v : m;
  }
}

template <typename A>
constexpr A lowest_value() {
  if constexpr (std::is_floating_point_v<A>) {
    return -std::numeric_limits<A>::infinity();
  } else {
    return std::numeric_limits<A>::lowest();
  }
}

/// Output columns per accumulator row; the row lives on the stack.
constexpr int64_t kRowChunk = 256;

// Each output row is built a window element at a time: for every (kz, ky,
// kx) one pass over the row's outputs, which vectorizes. (A loop over each
// output's window instead runs a compare-select chain per output, several
// times slower.) Padding is never read: each pass covers only the outputs
// whose element lies inside the input. kVolume false compiles the depth
// loop away for 1-D and 2-D.
template <typename T, bool kVolume>
void max_pool_typed(const Tensor& x5, const PoolGeometry& g, Tensor& out, int threads) {
  using A = Compute<T>;
  const int64_t D = x5.sizes[2], H = x5.sizes[3], W = x5.sizes[4];
  const int64_t sD = x5.strides[2], sH = x5.strides[3], sW = x5.strides[4];
  const int64_t OD = kVolume ? g.out[0] : 1, OH = g.out[1], OW = g.out[2];
  const int64_t kd = kVolume ? g.kernel[0] : 1, kh = g.kernel[1], kw = g.kernel[2];
  const int64_t dd = g.dilation[0], dh = g.dilation[1], dw = g.dilation[2];
  const int64_t step = g.stride[2] * sW;
  spatial::for_each_plane<T>(x5, out, OD * OH, OW, threads, [&](const T* plane, T* op) {
    A acc[kRowChunk];
    for (int64_t od = 0; od < OD; ++od) {
      const int64_t zs = od * g.stride[0] - g.pad_begin[0];
      for (int64_t oh = 0; oh < OH; ++oh) {
        const int64_t hs = oh * g.stride[1] - g.pad_begin[1];
        for (int64_t c0 = 0; c0 < OW; c0 += kRowChunk) {
          const int64_t cn = std::min(kRowChunk, OW - c0);
          std::fill_n(acc, cn, lowest_value<A>());
          for (int64_t kz = 0; kz < kd; ++kz) {
            const int64_t iz = kVolume ? zs + kz * dd : 0;
            if (kVolume && (iz < 0 || iz >= D)) continue;
            for (int64_t ky = 0; ky < kh; ++ky) {
              const int64_t iy = hs + ky * dh;
              if (iy < 0 || iy >= H) continue;
              const T* row = plane + iz * sD + iy * sH;
              for (int64_t kx = 0; kx < kw; ++kx) {
                int64_t lo, hi;
                tap_columns(W, g.stride[2], g.pad_begin[2], dw, kx, c0, cn, lo, hi);
                if (hi <= lo) continue;
                const T* src = row + (lo * g.stride[2] - g.pad_begin[2] + kx * dw) * sW;
                A* a = acc + (lo - c0);
                if (step == 1) {
                  for (int64_t i = 0; i < hi - lo; ++i) take_max<A>(a[i], widen<T>(src[i]));
                } else {
                  for (int64_t i = 0; i < hi - lo; ++i) take_max<A>(a[i], widen<T>(src[i * step]));
                }
              }
            }
          }
          T* orow = op + (od * OH + oh) * OW + c0;
          if constexpr (std::is_same_v<T, Half>) {
            for (int64_t i = 0; i < cn; ++i) orow[i] = narrow<Half>(acc[i]);
          } else {
            std::copy_n(acc, cn, orow);
          }
        }
      }
    }
  });
}

Error max_pool(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
               std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "max_pool";
  EDGEC_TRY(check_arity(kOp, inputs, outputs));
  const Tensor& x = inputs[0];
  PoolGeometry g;
  EDGEC_TRY(read_pool_geometry(kOp, x, attrs, g));
  Tensor& out = outputs[0];
  EDGEC_TRY(spatial::resize_spatial(x, x.sizes[1], g.out, g.nd, out));
  const Tensor x5 = spatial::lift_to_3d(x);
  const int threads = spatial::threads_for(ctx.num_threads, out.numel() * g.kernel[0] * g.kernel[1] * g.kernel[2]);
  auto run = [&]<typename T>() {
    if (g.nd == 3) {
      max_pool_typed<T, true>(x5, g, out, threads);
    } else {
      max_pool_typed<T, false>(x5, g, out, threads);
    }
  };
  return dispatch_max_pool_dtype(kOp, x.dtype, run);
}

// ---- max_pool_with_indices --------------------------------------------------

// ONNX MaxPool's second output: besides each window's maximum, the flat
// index of the element it was taken from, counted over the whole input
// N x C x spatial (padding is never counted), row major over the spatial
// dims for storage_order 0 and column major (the first spatial dim fastest)
// for 1, as ONNX Runtime computes it. Of equal maxima the first in the
// window's row-major order wins; the first NaN wins over numbers, as NaN
// does in max_pool. A window with no element inside the input (padding as
// large as the window, which the ONNX importer refuses) gives the lowest
// value and index -1. One loop per output element: this output feeds
// MaxUnpool, not a hot path.
template <typename T>
void max_pool_indices_typed(const Tensor& x5, const PoolGeometry& g, bool column_major, Tensor& out,
                            Tensor& indices) {
  using A = Compute<T>;
  const int64_t N = x5.sizes[0], C = x5.sizes[1], D = x5.sizes[2], H = x5.sizes[3], W = x5.sizes[4];
  const int64_t plane = D * H * W;
  T* o = out.data_as<T>();
  int64_t* at = indices.data_as<int64_t>();
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t c = 0; c < C; ++c) {
      const T* xp = x5.data_as<T>() + n * x5.strides[0] + c * x5.strides[1];
      const int64_t base = (n * C + c) * plane;
      for (int64_t od = 0; od < g.out[0]; ++od) {
        for (int64_t oh = 0; oh < g.out[1]; ++oh) {
          for (int64_t ow = 0; ow < g.out[2]; ++ow) {
            A best = lowest_value<A>();
            int64_t found = -1;
            for (int64_t kz = 0; kz < g.kernel[0]; ++kz) {
              const int64_t iz = od * g.stride[0] - g.pad_begin[0] + kz * g.dilation[0];
              if (iz < 0 || iz >= D) continue;
              for (int64_t ky = 0; ky < g.kernel[1]; ++ky) {
                const int64_t iy = oh * g.stride[1] - g.pad_begin[1] + ky * g.dilation[1];
                if (iy < 0 || iy >= H) continue;
                for (int64_t kx = 0; kx < g.kernel[2]; ++kx) {
                  const int64_t ix = ow * g.stride[2] - g.pad_begin[2] + kx * g.dilation[2];
                  if (ix < 0 || ix >= W) continue;
                  const A v = widen<T>(xp[iz * x5.strides[2] + iy * x5.strides[3] + ix * x5.strides[4]]);
                  bool take = found < 0 || v > best;
                  if constexpr (std::is_floating_point_v<A>) take = take || (std::isnan(v) && !std::isnan(best));
                  if (take) {
                    best = v;
                    found = column_major ? iz + iy * D + ix * D * H : (iz * H + iy) * W + ix;
                  }
                }
              }
            }
            if constexpr (std::is_same_v<T, Half>) {
              *o++ = narrow<Half>(best);
            } else {
              *o++ = best;
            }
            *at++ = found < 0 ? -1 : base + found;
          }
        }
      }
    }
  }
}

Error max_pool_with_indices(KernelContext&, std::span<const Tensor> inputs, const Attrs& attrs,
                            std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "max_pool_with_indices";
  EDGEC_TRY(edgec::check_arity(kOp, inputs, 1, outputs, 2));
  const Tensor& x = inputs[0];
  EDGEC_TRY(check_output_dtype(kOp, outputs[0], x.dtype));
  EDGEC_TRY(check_output_dtype(kOp, outputs[1], DType::Int64));
  int64_t order = 0;
  EDGEC_TRY(read_attr(kOp, attrs, declared<PoolDecls>().storage_order, order));
  if (order > 1) return fail(Error::InvalidArgument, cat(kOp, ": expected storage_order 0 or 1, got ", order));
  PoolGeometry g;
  EDGEC_TRY(read_pool_geometry(kOp, x, attrs, g));
  EDGEC_TRY(spatial::resize_spatial(x, x.sizes[1], g.out, g.nd, outputs[0]));
  EDGEC_TRY(spatial::resize_spatial(x, x.sizes[1], g.out, g.nd, outputs[1]));
  const Tensor x5 = spatial::lift_to_3d(x);
  auto run = [&]<typename T>() { max_pool_indices_typed<T>(x5, g, order == 1, outputs[0], outputs[1]); };
  return dispatch_max_pool_dtype(kOp, x.dtype, run);
}

// ---- avg_pool ---------------------------------------------------------------

/// The elements of output `o`'s window along axis `a` (window positions
/// lo + t * dilation, t in [0, kernel)): those inside the input are taps
/// [t0, t1); `padded` counts those inside the input or its padding, what
/// count_include_pad divides by (never the ceil_mode overhang).
struct WindowTaps {
  int64_t lo = 0, t0 = 0, t1 = 0, padded = 0;
};

WindowTaps window_taps(const PoolGeometry& g, int a, int64_t o) {
  WindowTaps w;
  const int64_t k = g.kernel[a], d = g.dilation[a], size = g.in[a];
  w.lo = o * g.stride[a] - g.pad_begin[a];
  if (d == 1) {  // no division on the common path
    w.t0 = std::max<int64_t>(0, -w.lo);
    w.t1 = std::min(k, size - w.lo);
    w.padded = std::min(k, size + g.pad_end[a] - w.lo);
  } else {
    w.t0 = w.lo >= 0 ? 0 : ceil_div(-w.lo, d);
    w.t1 = std::min(k, ceil_div(size - w.lo, d));
    w.padded = std::min(k, ceil_div(size + g.pad_end[a] - w.lo, d));
  }
  return w;
}

// Row passes as in max_pool: each window element adds into the row's sums
// over the outputs whose element lies inside the input (so every output
// still sums its elements in window order), then each sum is divided by its
// output's count.
template <typename T>
void avg_pool_typed(const Tensor& x5, const PoolGeometry& g, bool count_include_pad, Tensor& out,
                    int threads) {
  const int64_t W = x5.sizes[4];
  const int64_t sD = x5.strides[2], sH = x5.strides[3], sW = x5.strides[4];
  const int64_t OD = g.out[0], OH = g.out[1], OW = g.out[2];
  const int64_t kw = g.kernel[2], dw = g.dilation[2];
  const int64_t step = g.stride[2] * sW;
  spatial::for_each_plane<T>(x5, out, OD * OH, OW, threads, [&](const T* plane, T* op) {
    float acc[kRowChunk];
    for (int64_t orow_index = 0; orow_index < OD * OH; ++orow_index) {
      const int64_t od = orow_index / OH, oh = orow_index - od * OH;
      const WindowTaps z = window_taps(g, 0, od);
      const WindowTaps y = window_taps(g, 1, oh);
      const int64_t zy_inside = std::max<int64_t>(z.t1 - z.t0, 0) * std::max<int64_t>(y.t1 - y.t0, 0);
      const int64_t zy_padded = z.padded * y.padded;
      T* orow = op + orow_index * OW;
      for (int64_t c0 = 0; c0 < OW; c0 += kRowChunk) {
        const int64_t cn = std::min(kRowChunk, OW - c0);
        std::fill_n(acc, cn, 0.0f);
        for (int64_t tz = z.t0; tz < z.t1; ++tz) {
          for (int64_t ty = y.t0; ty < y.t1; ++ty) {
            const T* row = plane + (z.lo + tz * g.dilation[0]) * sD + (y.lo + ty * g.dilation[1]) * sH;
            for (int64_t kx = 0; kx < kw; ++kx) {
              int64_t lo, hi;
              tap_columns(W, g.stride[2], g.pad_begin[2], dw, kx, c0, cn, lo, hi);
              if (hi <= lo) continue;
              const T* src = row + (lo * g.stride[2] - g.pad_begin[2] + kx * dw) * sW;
              float* a = acc + (lo - c0);
              if (step == 1) {
                for (int64_t i = 0; i < hi - lo; ++i) a[i] += widen(src[i]);
              } else {
                for (int64_t i = 0; i < hi - lo; ++i) a[i] += widen(src[i * step]);
              }
            }
          }
        }
        for (int64_t i = 0; i < cn; ++i) {
          const WindowTaps x = window_taps(g, 2, c0 + i);
          const int64_t inside = zy_inside * std::max<int64_t>(x.t1 - x.t0, 0);
          // A window wholly inside the padding averages nothing; torch writes 0.
          const int64_t divisor = count_include_pad ? zy_padded * x.padded : inside;
          orow[c0 + i] = narrow<T>(inside == 0 ? 0.0f : acc[i] / static_cast<float>(divisor));
        }
      }
    }
  });
}

Error avg_pool(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
               std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "avg_pool";
  EDGEC_TRY(check_arity(kOp, inputs, outputs, /*float_input=*/true));
  const Tensor& x = inputs[0];
  PoolGeometry g;
  EDGEC_TRY(read_pool_geometry(kOp, x, attrs, g));
  const bool count_include_pad = declared<PoolDecls>().count_include_pad.bool_value(attrs);
  Tensor& out = outputs[0];
  EDGEC_TRY(spatial::resize_spatial(x, x.sizes[1], g.out, g.nd, out));
  const Tensor x5 = spatial::lift_to_3d(x);
  const int threads = spatial::threads_for(ctx.num_threads, out.numel() * g.kernel[0] * g.kernel[1] * g.kernel[2]);
  dispatch_float(x.dtype, [&]<typename T>() { avg_pool_typed<T>(x5, g, count_include_pad, out, threads); });
  return Error::Ok;
}

// ---- adaptive_avg_pool --------------------------------------------------------

/// Sum of n elements `stride` apart, in f32. Eight partial sums make the
/// contiguous case vectorize (float addition is not reassociated for us)
/// and round less on the long runs a global average pool reads.
template <typename T>
float sum_run(const T* p, int64_t n, int64_t stride) {
  float acc[8] = {};
  int64_t i = 0;
  if (stride == 1) {
    for (; i + 8 <= n; i += 8) {
      for (int j = 0; j < 8; ++j) acc[j] += widen(p[i + j]);
    }
  } else {
    for (; i + 8 <= n; i += 8) {
      for (int j = 0; j < 8; ++j) acc[j] += widen(p[(i + j) * stride]);
    }
  }
  for (; i < n; ++i) acc[0] += widen(p[i * stride]);
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

template <typename T>
void adaptive_avg_pool_typed(const Tensor& x4, const int64_t out_size[2], Tensor& out, int threads) {
  const int64_t H = x4.sizes[2], W = x4.sizes[3];
  const int64_t sH = x4.strides[2], sW = x4.strides[3];
  const int64_t OH = out_size[0], OW = out_size[1];
  const bool whole_rows = H == 1 || sH == W * sW;  // consecutive rows continue one another
  spatial::for_each_plane<T>(x4, out, OH, OW, threads, [&](const T* plane, T* op) {
    for (int64_t oh = 0; oh < OH; ++oh) {
      // torch: start = floor(i * in / out), end = ceil((i + 1) * in / out).
      const int64_t h0 = oh * H / OH;
      const int64_t h1 = ((oh + 1) * H + OH - 1) / OH;
      for (int64_t ow = 0; ow < OW; ++ow) {
        const int64_t w0 = ow * W / OW;
        const int64_t w1 = ((ow + 1) * W + OW - 1) / OW;
        float sum = 0.0f;
        if (whole_rows && w0 == 0 && w1 == W) {
          sum = sum_run(plane + h0 * sH, (h1 - h0) * W, sW);  // rows back to back: one run
        } else {
          for (int64_t iy = h0; iy < h1; ++iy) sum += sum_run(plane + iy * sH + w0 * sW, w1 - w0, sW);
        }
        op[oh * OW + ow] = narrow<T>(sum / static_cast<float>((h1 - h0) * (w1 - w0)));
      }
    }
  });
}

Error adaptive_avg_pool(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                        std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "adaptive_avg_pool";
  EDGEC_TRY(check_arity(kOp, inputs, outputs, /*float_input=*/true));
  const Tensor& x = inputs[0];
  int64_t out_size[2];
  Tensor& out = outputs[0];
  EDGEC_TRY(spatial::read_output_size(kOp, "pool", x, attrs, out_size, out));
  const Tensor x4 = spatial::lift_to_2d(x);
  // Windows overlap by at most one row/column when shrinking and hold one or
  // two elements when growing, so this bounds the elements read.
  const int threads = spatial::threads_for(ctx.num_threads, x.numel() + 4 * out.numel());
  dispatch_float(x.dtype, [&]<typename T>() { adaptive_avg_pool_typed<T>(x4, out_size, out, threads); });
  return Error::Ok;
}


}  // namespace

std::span<const KernelEntry> pooling_kernels() {
  const spatial::SharedDecls& s = declared<spatial::SharedDecls>();
  const PoolDecls& p = declared<PoolDecls>();
  auto row = [](std::string_view name, std::vector<AttrDecl> attrs, DTypeSet dtypes, std::string_view summary) {
    return declare(name, "nn", {{"self"}}, std::move(attrs), dtypes, 0, summary);
  };
  static const KernelEntry kPoolingKernels[] = {
      {row("adaptive_avg_pool", {s.output_size}, kFloatDTypes, "1-d / 2-d average pooling to a given output size"),
       adaptive_avg_pool},
      {row("avg_pool", {p.kernel_size, s.stride, s.padding, p.ceil_mode, p.count_include_pad, s.dilation},
           kFloatDTypes, "1-d / 2-d / 3-d average pooling (dilation: ONNX AveragePool's)"),
       avg_pool},
      {row("max_pool", {p.kernel_size, s.stride, s.padding, s.dilation, p.ceil_mode}, kNumericDTypes,
           "1-d / 2-d / 3-d max pooling"),
       max_pool},
      {declare("max_pool_with_indices", "nn", {{"self"}},
               {p.kernel_size, s.stride, s.padding, s.dilation, p.ceil_mode, p.storage_order},
               kNumericDTypes, 0,
               "max pooling and the i64 flat index of each maximum over N x C x spatial (ONNX MaxPool's Indices; "
               "storage_order 1: column major)"),
       max_pool_with_indices},
  };
  return kPoolingKernels;
}

}  // namespace edgec

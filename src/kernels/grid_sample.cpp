// grid_sample(x, grid; mode, padding_mode, align_corners): ONNX GridSample
// (opset 16's 2-D, opset 20's 2-D and 3-D), with ONNX Runtime's arithmetic.
//
// x is [N, C, H, W] (or [N, C, D, H, W]); grid is [N, H_out, W_out, 2] (or
// [N, D_out, H_out, W_out, 3]) of normalized coordinates (x, y[, z]) in
// [-1, 1], x along W. Each is mapped to the input's pixels: with
// align_corners, -1 and 1 are the centres of the corner pixels, (n + 1) / 2
// * (size - 1); without, their outer edges, ((n + 1) * size - 1) / 2. In
// nearest mode the location is rounded half to even first. In nearest and
// linear mode, a location outside [lo, hi] (lo, hi = 0, size - 1 with
// align_corners, -0.5, size - 0.5 without) is clamped to [0, size - 1] in
// border mode and reflected at lo and hi in reflection mode (cubic mode
// keeps the location and pads only its pixels, as ONNX Runtime 1.30 does).
// Then
//   nearest: the pixel at the location;
//   linear:  the 2^d pixels around it, weighted by distance;
//   cubic:   the 4x4 pixels around it with Keys' cubic (a = -0.75), 2-D only;
// where a pixel outside the input is 0 in zeros mode, the nearest edge
// pixel in border mode and its reflection in reflection mode.
#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/f16_compute.h"
#include "kernels/families.h"
#include "kernels/shape_common.h"

namespace edgec {
namespace {

using namespace shape_detail;

std::string str(int64_t v) { return std::to_string(v); }

struct GridSampleDecls {
  AttrDecl mode = attr_string("mode", "linear", {"linear", "nearest", "cubic"});
  AttrDecl padding_mode = attr_string("padding_mode", "zeros", {"zeros", "border", "reflection"});
  AttrDecl align_corners = attr_bool("align_corners", false);
};

// GCC contracts a * b + c into a fused multiply-add where FMA is on (the
// kernels are built for x86-64-v3), which rounds once instead of twice: a
// location that should land exactly on .5 could then round the other way in
// nearest mode, unlike ONNX Runtime's. The mapping is kept uncontracted.
#if defined(__GNUC__) && !defined(__clang__)
#define EDGEC_NO_FMA __attribute__((optimize("fp-contract=off")))
#else
#define EDGEC_NO_FMA
#endif

/// The location of normalized coordinate g along an axis of `size` pixels.
template <typename C>
EDGEC_NO_FMA C denormalize(C g, int64_t size, bool align) {
  const C len = static_cast<C>(size);
  return align ? (g + 1) / C(2) * (len - 1) : ((g + 1) * len - 1) / C(2);
}

enum class Mode { Linear, Nearest, Cubic };
enum class Padding { Zeros, Border, Reflection };

/// Reflects `x` at lo and hi until it lies between them (ONNX Runtime's
/// GsReflect, in float).
float reflect(float x, float lo, float hi) {
  const float range = hi - lo;
  if (range <= 0) return lo;
  if (x < lo) {
    const float dx = lo - x;
    const int n = static_cast<int>(dx / range);
    const float r = dx - static_cast<float>(n) * range;
    return n % 2 == 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    const float dx = x - hi;
    const int n = static_cast<int>(dx / range);
    const float r = dx - static_cast<float>(n) * range;
    return n % 2 == 0 ? hi - r : lo + r;
  }
  return x;
}

/// Keys' cubic convolution coefficients for a fractional offset t.
void cubic_coeffs(float t, float c[4]) {
  constexpr float a = -0.75f;
  t = std::abs(t);
  c[0] = ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a;
  c[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
  c[2] = ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1;
  c[3] = ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a;
}

template <typename T>
struct Sampler {
  using C = Compute<T>;
  const Tensor& x;
  int spatial;                   ///< 2 or 3
  int64_t size[3];               ///< input sizes, innermost (W) first
  float lo[3], hi[3];            ///< the reflection borders per axis
  Padding padding;
  const T* base = nullptr;       ///< x[n, c]
  int64_t stride[3];             ///< x's strides, innermost first

  /// The pixel at integer coordinates q (innermost first), padded.
  C pixel(const int64_t* q) const {
    int64_t off = 0;
    for (int a = 0; a < spatial; ++a) {
      int64_t v = q[a];
      if (v < 0 || v >= size[a]) {
        if (padding == Padding::Zeros) return C(0);
        if (padding == Padding::Border) {
          v = std::clamp<int64_t>(v, 0, size[a] - 1);
        } else {
          v = static_cast<int64_t>(reflect(static_cast<float>(v), lo[a], hi[a]));
          v = std::clamp<int64_t>(v, 0, size[a] - 1);  // a rounding guard; reflect lands inside
        }
      }
      off += v * stride[a];
    }
    return widen(base[off]);
  }
};

template <typename T>
Error grid_sample_typed(const Tensor& x, const Tensor& grid, Tensor& y, Mode mode, Padding padding, bool align) {
  using C = Compute<T>;
  const int spatial = x.rank - 2;
  const int64_t N = x.sizes[0], channels = x.sizes[1];
  Sampler<T> s{x, spatial, {}, {}, {}, padding, nullptr, {}};
  for (int a = 0; a < spatial; ++a) {
    s.size[a] = x.sizes[x.rank - 1 - a];
    s.stride[a] = x.strides[x.rank - 1 - a];
    s.lo[a] = align ? 0.0f : -0.5f;
    s.hi[a] = align ? static_cast<float>(s.size[a]) - 1.0f : static_cast<float>(s.size[a]) - 0.5f;
  }
  int64_t out_points = 1;
  for (int a = 1; a <= spatial; ++a) out_points *= grid.sizes[a];
  const T* gd = grid.data_as<T>();
  T* yd = y.data_as<T>();
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t p = 0; p < out_points; ++p) {
      // The grid point's index along grid dims 1..spatial (row-major).
      int64_t goff = n * grid.strides[0];
      int64_t rest = p;
      for (int a = spatial; a >= 1; --a) {
        goff += (rest % grid.sizes[a]) * grid.strides[a];
        rest /= grid.sizes[a];
      }
      // The location along each axis, innermost first.
      C loc[3] = {};
      bool outside = false;
      for (int a = 0; a < spatial; ++a) {
        const C g = widen(gd[goff + a * grid.strides[spatial + 1]]);
        C v = denormalize(g, s.size[a], align);
        if (mode == Mode::Nearest) v = std::nearbyint(v);
        loc[a] = v;
        outside = outside || v < static_cast<C>(s.lo[a]) || v > static_cast<C>(s.hi[a]);
      }
      // Cubic pads each of its pixels instead (as ONNX Runtime does).
      if (outside && mode != Mode::Cubic) {
        for (int a = 0; a < spatial; ++a) {
          if (padding == Padding::Border) {
            loc[a] = std::clamp(loc[a], C(0), static_cast<C>(s.size[a] - 1));
          } else if (padding == Padding::Reflection) {
            loc[a] = static_cast<C>(reflect(static_cast<float>(loc[a]), s.lo[a], s.hi[a]));
          }
        }
      }
      for (int64_t c = 0; c < channels; ++c) {
        s.base = x.data_as<T>() + n * x.strides[0] + c * x.strides[1];
        C value = 0;
        if (mode == Mode::Nearest) {
          int64_t q[3] = {0, 0, 0};
          for (int a = 0; a < spatial; ++a) q[a] = static_cast<int64_t>(loc[a]);
          value = s.pixel(q);
        } else if (mode == Mode::Linear) {
          int64_t q1[3] = {0, 0, 0};
          C d1[3] = {}, d2[3] = {};  // distance to the lower and to the upper neighbour
          for (int a = 0; a < spatial; ++a) {
            q1[a] = static_cast<int64_t>(std::floor(loc[a]));
            d1[a] = loc[a] - static_cast<C>(q1[a]);
            d2[a] = static_cast<C>(q1[a] + 1) - loc[a];
          }
          // dy2 * (dx2 * p11 + dx1 * p12) + dy1 * (dx2 * p21 + dx1 * p22),
          // nested once more along z in 3-D.
          auto plane = [&](int64_t z) {
            int64_t q[3] = {q1[0], q1[1], z};
            const C p11 = s.pixel(q);
            q[0] = q1[0] + 1;
            const C p12 = s.pixel(q);
            q[0] = q1[0];
            q[1] = q1[1] + 1;
            const C p21 = s.pixel(q);
            q[0] = q1[0] + 1;
            const C p22 = s.pixel(q);
            return d2[1] * (d2[0] * p11 + d1[0] * p12) + d1[1] * (d2[0] * p21 + d1[0] * p22);
          };
          value = spatial == 2 ? plane(0) : d2[2] * plane(q1[2]) + d1[2] * plane(q1[2] + 1);
        } else {
          const int64_t x0 = static_cast<int64_t>(std::floor(loc[0])) - 1;
          const int64_t y0 = static_cast<int64_t>(std::floor(loc[1])) - 1;
          float cx[4], cy[4];
          cubic_coeffs(static_cast<float>(loc[0] - static_cast<C>(x0) - 1), cx);
          cubic_coeffs(static_cast<float>(loc[1] - static_cast<C>(y0) - 1), cy);
          C rows[4];
          for (int h = 0; h < 4; ++h) {
            C r = 0;
            for (int w = 0; w < 4; ++w) {
              const int64_t q[3] = {x0 + w, y0 + h, 0};
              r += static_cast<C>(cx[w]) * s.pixel(q);
            }
            rows[h] = r;
          }
          value = static_cast<C>(cy[0]) * rows[0] + static_cast<C>(cy[1]) * rows[1] +
                  static_cast<C>(cy[2]) * rows[2] + static_cast<C>(cy[3]) * rows[3];
        }
        yd[(n * channels + c) * out_points + p] = narrow<T>(value);
      }
    }
  }
  return Error::Ok;
}

Error grid_sample_kernel(KernelContext&, std::span<const Tensor> inputs, const Attrs& attrs,
                         std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "grid_sample";
  const GridSampleDecls& d = declared<GridSampleDecls>();
  EDGEC_TRY(check_arity(kOp, inputs, 2, outputs, 1));
  const Tensor& x = inputs[0];
  const Tensor& grid = inputs[1];
  if (x.dtype != DType::Float32 && x.dtype != DType::Float16 && x.dtype != DType::Float64)
    return fail(Error::InvalidType, "grid_sample: expected an input of dtype f32, f16 or f64, got " +
                                        std::string(dtype_name(x.dtype)));
  if (grid.dtype != x.dtype)
    return fail(Error::InvalidType, "grid_sample: expected a grid of the input's dtype " +
                                        std::string(dtype_name(x.dtype)) + ", got " +
                                        std::string(dtype_name(grid.dtype)));
  EDGEC_TRY(check_output_dtype(kOp, outputs[0], x.dtype));
  if (x.rank != 4 && x.rank != 5)
    return fail(Error::InvalidShape, "grid_sample: expected an input [N, C, H, W] or [N, C, D, H, W], got shape " +
                                         shape_string(x.shape()));
  const int spatial = x.rank - 2;
  if (grid.rank != x.rank || grid.sizes[0] != x.sizes[0] || grid.sizes[x.rank - 1] != spatial)
    return fail(Error::InvalidShape, "grid_sample: expected a grid [" + str(x.sizes[0]) + ", ..., " + str(spatial) +
                                         "] of rank " + str(x.rank) + " for an input of shape " +
                                         shape_string(x.shape()) + ", got shape " + shape_string(grid.shape()));
  std::string_view mode_name, padding_name;
  bool align = false;
  EDGEC_TRY(read_attr(kOp, attrs, d.mode, mode_name));
  EDGEC_TRY(read_attr(kOp, attrs, d.padding_mode, padding_name));
  EDGEC_TRY(read_attr(kOp, attrs, d.align_corners, align));
  const Mode mode = mode_name == "nearest" ? Mode::Nearest : mode_name == "cubic" ? Mode::Cubic : Mode::Linear;
  if (mode == Mode::Cubic && spatial != 2)
    return fail(Error::NotSupported, "grid_sample: cubic mode is for 2-D inputs [N, C, H, W], got shape " +
                                         shape_string(x.shape()));
  const Padding padding = padding_name == "border"       ? Padding::Border
                          : padding_name == "reflection" ? Padding::Reflection
                                                         : Padding::Zeros;
  int64_t shape[5] = {x.sizes[0], x.sizes[1], 0, 0, 0};
  for (int a = 0; a < spatial; ++a) shape[2 + a] = grid.sizes[1 + a];
  EDGEC_TRY(resize_output(kOp, outputs[0], std::span<const int64_t>(shape, static_cast<size_t>(x.rank))));
  if (outputs[0].numel() == 0) return Error::Ok;
  for (int a = 2; a < x.rank; ++a)
    if (x.sizes[a] == 0)
      return fail(Error::InvalidShape, "grid_sample: expected an input of nonzero spatial sizes, got shape " +
                                           shape_string(x.shape()));
  switch (x.dtype) {
    case DType::Float16: return grid_sample_typed<Half>(x, grid, outputs[0], mode, padding, align);
    case DType::Float64: return grid_sample_typed<double>(x, grid, outputs[0], mode, padding, align);
    default: return grid_sample_typed<float>(x, grid, outputs[0], mode, padding, align);
  }
}

}  // namespace

std::span<const KernelEntry> grid_sample_kernels() {
  const GridSampleDecls& d = declared<GridSampleDecls>();
  static const KernelEntry kGridSampleKernels[] = {
      {declare("grid_sample", "nn", {{"self"}, {"grid"}}, {d.mode, d.padding_mode, d.align_corners},
               {DType::Float32, DType::Float16, DType::Float64}, 0,
               "ONNX GridSample: x sampled at a grid of normalized 2-D or 3-D locations"),
       grid_sample_kernel},
  };
  return kGridSampleKernels;
}

}  // namespace edgec

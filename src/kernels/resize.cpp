// Resize kernels:
//   upsample_nearest(x; output_size)                   torch 'nearest'
//   upsample_bilinear(x; output_size, align_corners)   torch 'linear' / 'bilinear'
//   resize(x; axes, output_size, scales, roi, mode, ...)  ONNX Resize, every mode
// The upsample kernels work over NCL / NCHW tensors with PyTorch's index
// arithmetic (float scale; float index for nearest, double index for
// linear) so that non-integer scale factors pick the same source pixels and
// weights as torch. They are the fast paths; the importer uses them only
// where they compute what the ONNX node asks for.
//
// `resize` is ONNX's operator in general: any axes, any scale (the scale,
// not in / out, maps coordinates), nearest / linear / cubic interpolation,
// every coordinate_transformation_mode and nearest_mode, exclude_outside
// and antialias. It is separable: per resized axis, each output coordinate
// has a few (input index, weight) taps, and an output element is the sum
// over the tensor product of its coordinates' taps. The coordinate
// arithmetic is resize_coords.h's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <variant>
#include <vector>

#include "kernels/conv_spatial.h"
#include "kernels/families.h"
#include "kernels/resize_coords.h"

namespace edgec {

// ---- coordinates (resize_coords.h) --------------------------------------------

namespace resize {

// GCC contracts a * b + c into a fused multiply-add where FMA is on (the kernels
// are built for x86-64-v3), which rounds once instead of twice: a coordinate that should land exactly on .5
// could then round the other way in nearest mode, and differ from what the
// importer (built without FMA) computed. Clang only contracts within one
// expression, which the statements below never give it.
#if defined(__GNUC__) && !defined(__clang__)
#define EDGEC_NO_FMA __attribute__((optimize("fp-contract=off")))
#else
#define EDGEC_NO_FMA
#endif

std::optional<CoordMode> coord_mode_named(std::string_view name) {
  if (name == "half_pixel") return CoordMode::HalfPixel;
  if (name == "half_pixel_symmetric") return CoordMode::HalfPixelSymmetric;
  if (name == "pytorch_half_pixel") return CoordMode::PytorchHalfPixel;
  if (name == "align_corners") return CoordMode::AlignCorners;
  if (name == "asymmetric") return CoordMode::Asymmetric;
  if (name == "tf_half_pixel_for_nn") return CoordMode::TfHalfPixelForNn;
  if (name == "tf_crop_and_resize") return CoordMode::TfCropAndResize;
  return std::nullopt;
}

std::optional<NearestMode> nearest_mode_named(std::string_view name) {
  if (name == "round_prefer_floor") return NearestMode::RoundPreferFloor;
  if (name == "round_prefer_ceil") return NearestMode::RoundPreferCeil;
  if (name == "floor") return NearestMode::Floor;
  if (name == "ceil") return NearestMode::Ceil;
  return std::nullopt;
}

EDGEC_NO_FMA double source_coordinate(CoordMode mode, const AxisGeometry& g, int64_t o) {
  const double x = static_cast<double>(o);
  const double in = static_cast<double>(g.in);
  const double length = g.scale * in;  // length_resized
  switch (mode) {
    case CoordMode::HalfPixel:
      return (x + 0.5) / g.scale - 0.5;
    case CoordMode::HalfPixelSymmetric: {
      // Centres the output on the input when the output size was rounded
      // down from scale * in; otherwise it is half_pixel.
      const double adjustment = static_cast<double>(g.out) / length;
      const double offset = in / 2 * (1 - adjustment);
      return offset + (x + 0.5) / g.scale - 0.5;
    }
    case CoordMode::PytorchHalfPixel:
      return length > 1 ? (x + 0.5) / g.scale - 0.5 : 0.0;
    case CoordMode::AlignCorners:
      return length == 1 ? 0.0 : x * (in - 1) / (length - 1);
    case CoordMode::Asymmetric:
      return x / g.scale;
    case CoordMode::TfHalfPixelForNn:
      return (x + 0.5) / g.scale;
    case CoordMode::TfCropAndResize: {
      if (!(length > 1)) return 0.5 * (g.roi_start + g.roi_end) * (in - 1);
      const double start = g.roi_start * (in - 1);
      const double step = x * (g.roi_end - g.roi_start) * (in - 1) / (length - 1);
      return start + step;
    }
  }
  return x;
}

int64_t nearest_index(double x, NearestMode mode) {
  // Far outside any tensor, and inside int64's range.
  constexpr double kLimit = 4611686018427387904.0;  // 2^62
  x = std::clamp(x, -kLimit, kLimit);
  const double below = std::floor(x);
  const double frac = x - below;
  const auto lo = static_cast<int64_t>(below);
  if (frac == 0) return lo;
  switch (mode) {
    case NearestMode::RoundPreferFloor: return frac <= 0.5 ? lo : lo + 1;
    case NearestMode::RoundPreferCeil: return frac < 0.5 ? lo : lo + 1;
    case NearestMode::Floor: return lo;
    case NearestMode::Ceil: return lo + 1;
  }
  return lo;
}

int64_t upsample_nearest_source(int64_t dst, int64_t in, int64_t out) {
  if (out == in) return dst;
  if (out == 2 * in) return dst >> 1;
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  const auto src = static_cast<int64_t>(std::floor(static_cast<float>(dst) * scale));
  return std::min(src, in - 1);
}

}  // namespace resize

namespace {

using spatial::cat;

/// Output columns handled per index table; the tables live on the stack.
constexpr int64_t kColumnChunk = 512;

// upsample_bilinear's own attribute, declared once: its row at the end of
// this file and its kernel read it (output_size is conv_spatial.h's).
struct ResizeDecls {
  AttrDecl align_corners = attr_bool("align_corners", false);
};

// resize's attributes, named as ONNX names them (axes, scales and roi per
// resized axis, in the order of `axes`). An output_size of -1 (kSizeByScale)
// sizes its axis at run time as ONNX does, floor(input size * scale): the
// axis of a symbolic dim resized by a scale.
struct OnnxResizeDecls {
  AttrDecl axes = required(attr_ints("axes", AttrRule::NonNegative));
  AttrDecl output_size = required(attr_ints("output_size"));
  AttrDecl scales = attr_floats("scales");
  AttrDecl roi = attr_floats("roi");
  AttrDecl mode = attr_string("mode", "nearest", {"nearest", "linear", "cubic"});
  AttrDecl coordinate_transformation_mode =
      attr_string("coordinate_transformation_mode", "half_pixel",
                  {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
                   "tf_half_pixel_for_nn", "tf_crop_and_resize"});
  AttrDecl nearest_mode =
      attr_string("nearest_mode", "round_prefer_floor", {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"});
  AttrDecl cubic_coeff_a = attr_float("cubic_coeff_a", -0.75);
  AttrDecl exclude_outside = attr_bool("exclude_outside", false);
  AttrDecl extrapolation_value = attr_float("extrapolation_value", 0.0);
  AttrDecl antialias = attr_bool("antialias", false);
};

/// One f32 or f16 input and one output of its dtype.
Error check_float_io(std::string_view op, std::span<const Tensor> inputs, std::span<Tensor> outputs) {
  if (inputs.size() != 1 || outputs.size() != 1) {
    return fail(Error::InvalidArgument, cat(op, ": expected 1 input and 1 output, got ", inputs.size(),
                                            " inputs and ", outputs.size(), " outputs"));
  }
  const Tensor& x = inputs[0];
  if (!kFloatDTypes.contains(x.dtype)) {
    return fail(Error::InvalidType, cat(op, ": expected an f32 or f16 input, got ", dtype_name(x.dtype)));
  }
  if (outputs[0].dtype != x.dtype) {
    return fail(Error::InvalidType, cat(op, ": output dtype must match the input's ", dtype_name(x.dtype),
                                        ", got ", dtype_name(outputs[0].dtype)));
  }
  return Error::Ok;
}

/// Validates (x, output_size) and sizes `out`. out_size gets 2-D coordinates
/// (a 1-D resize has out_size[0] = 1).
Error prepare_resize(std::string_view op, std::span<const Tensor> inputs, const Attrs& attrs,
                     std::span<Tensor> outputs, int64_t out_size[2]) {
  EDGEC_TRY(check_float_io(op, inputs, outputs));
  return spatial::read_output_size(op, "resize", inputs[0], attrs, out_size, outputs[0]);
}

// ---- upsample_nearest ---------------------------------------------------------

template <typename T>
void upsample_nearest_typed(const Tensor& x4, Tensor& out, const int64_t out_size[2], int threads) {
  const int64_t H = x4.sizes[2], W = x4.sizes[3];
  const int64_t sH = x4.strides[2], sW = x4.strides[3];
  const int64_t OH = out_size[0], OW = out_size[1];
  spatial::for_each_plane<T>(x4, out, OH, OW, threads, [&](const T* plane, T* op) {
    int64_t src_offset[kColumnChunk];
    for (int64_t c0 = 0; c0 < OW; c0 += kColumnChunk) {
      const int64_t n = std::min(kColumnChunk, OW - c0);
      for (int64_t j = 0; j < n; ++j) src_offset[j] = resize::upsample_nearest_source(c0 + j, W, OW) * sW;
      for (int64_t oh = 0; oh < OH; ++oh) {
        const T* row = plane + resize::upsample_nearest_source(oh, H, OH) * sH;
        T* orow = op + oh * OW + c0;
        for (int64_t j = 0; j < n; ++j) orow[j] = row[src_offset[j]];
      }
    }
  });
}

Error upsample_nearest(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                       std::span<Tensor> outputs) {
  int64_t out_size[2];
  EDGEC_TRY(prepare_resize("upsample_nearest", inputs, attrs, outputs, out_size));
  const Tensor x4 = spatial::lift_to_2d(inputs[0]);
  Tensor& out = outputs[0];
  const int threads = spatial::threads_for(ctx.num_threads, out.numel());
  dispatch_float(out.dtype, [&]<typename T>() { upsample_nearest_typed<T>(x4, out, out_size, threads); });
  return Error::Ok;
}

// ---- upsample_bilinear --------------------------------------------------------

/// The two source taps and their weights for one output coordinate.
struct LinearTap {
  int64_t i0;
  int64_t i1;
  float w0;
  float w1;
};

/// torch's compute_source_index_and_lambda: the scale is rounded to float,
/// but the source coordinate is computed in double (torch's accumulate type)
/// and only the weight is rounded back to float. align_corners maps the
/// corner pixels onto each other; otherwise pixel centres are aligned
/// (half-pixel) and the source coordinate is clamped at 0. The double
/// products are exact for any realistic size, so no FMA contraction can
/// change them.
LinearTap linear_tap(int64_t dst, int64_t in, int64_t out, bool align_corners) {
  if (in == out) return {dst, dst, 1.0f, 0.0f};
  double src;
  if (align_corners) {
    const float scale = out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.0f;
    src = static_cast<double>(scale) * static_cast<double>(dst);
  } else {
    const float scale = static_cast<float>(in) / static_cast<float>(out);
    src = std::max(static_cast<double>(scale) * (static_cast<double>(dst) + 0.5) - 0.5, 0.0);
  }
  const auto i0 = static_cast<int64_t>(src);
  const int64_t i1 = i0 < in - 1 ? i0 + 1 : i0;
  const auto w1 = static_cast<float>(src - static_cast<double>(i0));
  return {i0, i1, 1.0f - w1, w1};
}

template <typename T>
void upsample_bilinear_typed(const Tensor& x4, Tensor& out, const int64_t out_size[2],
                             bool align_corners, int threads) {
  const int64_t H = x4.sizes[2], W = x4.sizes[3];
  const int64_t sH = x4.strides[2], sW = x4.strides[3];
  const int64_t OH = out_size[0], OW = out_size[1];
  spatial::for_each_plane<T>(x4, out, OH, OW, threads, [&](const T* plane, T* op) {
    int64_t off0[kColumnChunk];
    int64_t off1[kColumnChunk];
    float cw0[kColumnChunk];
    float cw1[kColumnChunk];
    for (int64_t c0 = 0; c0 < OW; c0 += kColumnChunk) {
      const int64_t n = std::min(kColumnChunk, OW - c0);
      for (int64_t j = 0; j < n; ++j) {
        const LinearTap t = linear_tap(c0 + j, W, OW, align_corners);
        off0[j] = t.i0 * sW;
        off1[j] = t.i1 * sW;
        cw0[j] = t.w0;
        cw1[j] = t.w1;
      }
      for (int64_t oh = 0; oh < OH; ++oh) {
        const LinearTap r = linear_tap(oh, H, OH, align_corners);
        const T* row0 = plane + r.i0 * sH;
        const T* row1 = plane + r.i1 * sH;
        T* orow = op + oh * OW + c0;
        for (int64_t j = 0; j < n; ++j) {
          const float top = cw0[j] * widen(row0[off0[j]]) + cw1[j] * widen(row0[off1[j]]);
          const float bottom = cw0[j] * widen(row1[off0[j]]) + cw1[j] * widen(row1[off1[j]]);
          orow[j] = narrow<T>(r.w0 * top + r.w1 * bottom);
        }
      }
    }
  });
}

Error upsample_bilinear(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                        std::span<Tensor> outputs) {
  int64_t out_size[2];
  EDGEC_TRY(prepare_resize("upsample_bilinear", inputs, attrs, outputs, out_size));
  const bool align_corners = declared<ResizeDecls>().align_corners.bool_value(attrs);
  const Tensor x4 = spatial::lift_to_2d(inputs[0]);
  Tensor& out = outputs[0];
  const int threads = spatial::threads_for(ctx.num_threads, 4 * out.numel());
  dispatch_float(out.dtype, [&]<typename T>() {
    upsample_bilinear_typed<T>(x4, out, out_size, align_corners, threads);
  });
  return Error::Ok;
}

// ---- resize (ONNX) -------------------------------------------------------------

enum class Interp : uint8_t { Nearest, Linear, Cubic };

/// Taps one output coordinate may have on one axis. Antialiasing stretches
/// the filter by 1 / scale, so this bounds how far one resize may
/// downscale with it (1/64 cubic, 1/128 linear); the tap tables below live
/// on the stack, sized by it.
constexpr int kMaxTaps = 256;
/// Entries (columns x taps) of the innermost axis's tap table.
constexpr int64_t kTapTable = 2048;

struct ResizeParams {
  Interp interp = Interp::Nearest;
  resize::CoordMode coord = resize::CoordMode::HalfPixel;
  resize::NearestMode nearest = resize::NearestMode::RoundPreferFloor;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  bool antialias = false;
  float extrapolation = 0;
};

/// One resized axis: its geometry, the input's stride along it, and the
/// taps of each output coordinate: `taps` input indices starting `first`
/// after the coordinate's base index, weighted by the filter stretched by
/// 1 / filter_scale.
struct AxisPlan {
  resize::AxisGeometry g;
  int64_t stride = 0;
  int taps = 1;
  int first = 0;
  double filter_scale = 1;
};

/// The interpolation filter at distance d >= 0, in input elements.
double filter_weight(Interp interp, double a, double d) {
  if (interp == Interp::Linear) return d < 1 ? 1 - d : 0.0;
  // Keys' cubic convolution kernel with coefficient a.
  if (d <= 1) return ((a + 2) * d - (a + 3)) * d * d + 1;
  if (d < 2) return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  return 0.0;
}

/// Writes the taps of output coordinate `o` on the axis of `p`: input
/// offsets (index times stride, the index clamped: ONNX pads the input
/// with its edge values) and weights. Returns false where `o` maps outside
/// the input in tf_crop_and_resize: the output there is the extrapolation
/// value.
bool axis_taps(const AxisPlan& p, const ResizeParams& r, int64_t o, int64_t* offsets, float* weights) {
  const int64_t last = p.g.in - 1;
  double x = resize::source_coordinate(r.coord, p.g, o);
  if (r.coord == resize::CoordMode::TfCropAndResize && !(x >= 0 && x <= static_cast<double>(last))) {
    // Taps that read the first element with weight 0: the caller fills
    // the output, but may sum these first.
    std::fill(offsets, offsets + p.taps, int64_t{0});
    std::fill(weights, weights + p.taps, 0.0f);
    return false;
  }
  // Every coordinate beyond the taps' reach clamps to the edge; bounding it
  // keeps the index arithmetic in range whatever the scale (a tiny one
  // overflows half_pixel_symmetric's offset into inf - inf).
  const double reach = static_cast<double>(p.g.in) + kMaxTaps;
  x = std::isnan(x) ? 0.0 : std::clamp(x, -reach, reach);
  if (r.interp == Interp::Nearest) {
    offsets[0] = std::clamp<int64_t>(resize::nearest_index(x, r.nearest), 0, last) * p.stride;
    weights[0] = 1;
    return true;
  }
  // x = base + t with t in (0, 1]: an integer coordinate is the right-hand
  // end of its interval, as ONNX's reference picks the neighbours.
  const double below = std::floor(x);
  auto base = static_cast<int64_t>(below);
  double t = x - below;
  if (t == 0) {
    base -= 1;
    t = 1;
  }
  double w[kMaxTaps];
  double sum = 0;
  for (int i = 0; i < p.taps; ++i) {
    const int k = p.first + i;
    const int64_t src = base + k;
    w[i] = filter_weight(r.interp, r.cubic_a, std::abs(k - t) * p.filter_scale);
    if (r.exclude_outside && (src < 0 || src > last)) w[i] = 0;
    sum += w[i];
    offsets[i] = std::clamp<int64_t>(src, 0, last) * p.stride;
  }
  // The stretched filter, and the filter without its outside taps, no
  // longer sum to 1: ONNX renormalizes them.
  const double norm = (r.antialias || r.exclude_outside) && sum != 0 ? 1 / sum : 1.0;
  for (int i = 0; i < p.taps; ++i) weights[i] = static_cast<float>(w[i] * norm);
  return true;
}

/// How resize walks its output: rows of the innermost dim (at least one
/// dim: a scalar is [1]), each axis's plan (or -1: not resized) and the
/// input's strides.
struct ResizeWalk {
  int rank = 1;
  int64_t out_sizes[kMaxRank] = {};
  int64_t in_strides[kMaxRank] = {};
  int plan_of[kMaxRank] = {};
  const AxisPlan* plans = nullptr;
};

/// acc[j] += weight * (the innermost taps of column j over `src`), for
/// `Taps` taps (0: `taps`, known only at run time).
template <int Taps, typename T>
void accumulate_columns_n(const T* src, const int64_t* offset, const float* tap_weight, int taps, int64_t n,
                          float weight, float* acc) {
  const int count = Taps > 0 ? Taps : taps;
  for (int64_t j = 0; j < n; ++j) {
    const int64_t* o = offset + j * count;
    const float* w = tap_weight + j * count;
    float s = 0;
    for (int k = 0; k < count; ++k) s += w[k] * widen(src[o[k]]);
    acc[j] += weight * s;
  }
}

template <typename T>
void accumulate_columns(const T* src, const int64_t* offset, const float* tap_weight, int taps, int64_t n,
                        float weight, float* acc) {
  switch (taps) {
    case 1:  // not resized, or nearest: weight 1 (0 in an outside column, which the caller fills)
      for (int64_t j = 0; j < n; ++j) acc[j] += weight * widen(src[offset[j]]);
      return;
    case 2: return accumulate_columns_n<2>(src, offset, tap_weight, taps, n, weight, acc);
    case 4: return accumulate_columns_n<4>(src, offset, tap_weight, taps, n, weight, acc);
    default: return accumulate_columns_n<0>(src, offset, tap_weight, taps, n, weight, acc);
  }
}

/// Combinations of the outer axes' taps that one pass over a row takes
/// together (2 x 2 for bilinear, 4 x 4 for bicubic of three axes...);
/// more (antialiasing's wide filters) go through resize_block's sums.
constexpr int kMaxCombos = 64;

/// orow[j] = the sum over the outer combinations c (rows srcs[c] weighted
/// combo_weight[c]) of column j's innermost taps, in one pass. `Combos`
/// combinations of `Taps` taps each (0: `combos` / `taps`, known only at
/// run time), so that the common ones unroll. Outside columns
/// (tf_crop_and_resize) have zero taps here and are filled by the caller.
template <int Combos, int Taps, typename T>
void interpolate_columns(const T* const* srcs, const float* combo_weight, int combos, const int64_t* offset,
                         const float* tap_weight, int taps, int64_t n, T* orow) {
  const int nc = Combos > 0 ? Combos : combos;
  const int nt = Taps > 0 ? Taps : taps;
  for (int64_t j = 0; j < n; ++j) {
    const int64_t* o = offset + j * nt;
    const float* w = tap_weight + j * nt;
    float total = 0;
    for (int c = 0; c < nc; ++c) {
      const T* src = srcs[c];
      float s = 0;
      for (int k = 0; k < nt; ++k) s += w[k] * widen(src[o[k]]);
      total += combo_weight[c] * s;
    }
    orow[j] = narrow<T>(total);
  }
}

template <int Combos, typename T>
void interpolate_taps(const T* const* srcs, const float* combo_weight, int combos, const int64_t* offset,
                      const float* tap_weight, int taps, int64_t n, T* orow) {
  switch (taps) {
    case 1: return interpolate_columns<Combos, 1>(srcs, combo_weight, combos, offset, tap_weight, taps, n, orow);
    case 2: return interpolate_columns<Combos, 2>(srcs, combo_weight, combos, offset, tap_weight, taps, n, orow);
    case 4: return interpolate_columns<Combos, 4>(srcs, combo_weight, combos, offset, tap_weight, taps, n, orow);
    default: return interpolate_columns<Combos, 0>(srcs, combo_weight, combos, offset, tap_weight, taps, n, orow);
  }
}

template <typename T>
void interpolate_row(const T* const* srcs, const float* combo_weight, int combos, const int64_t* offset,
                     const float* tap_weight, int taps, int64_t n, T* orow) {
  if (combos == 1 && taps == 1 && combo_weight[0] == 1) {
    // Nearest (every weight 1): a copy, which also keeps -0 and NaN payloads.
    const T* src = srcs[0];
    for (int64_t j = 0; j < n; ++j) orow[j] = src[offset[j]];
    return;
  }
  switch (combos) {
    case 1: return interpolate_taps<1>(srcs, combo_weight, combos, offset, tap_weight, taps, n, orow);
    case 2: return interpolate_taps<2>(srcs, combo_weight, combos, offset, tap_weight, taps, n, orow);
    case 4: return interpolate_taps<4>(srcs, combo_weight, combos, offset, tap_weight, taps, n, orow);
    default: return interpolate_taps<0>(srcs, combo_weight, combos, offset, tap_weight, taps, n, orow);
  }
}

/// Output columns [c0, c0 + n) of rows [row_begin, row_end).
template <typename T>
void resize_block(const T* xd, T* od, const ResizeWalk& w, const ResizeParams& p, int64_t c0, int64_t n,
                  int64_t row_begin, int64_t row_end) {
  const int inner = w.rank - 1;
  const int64_t cols = w.out_sizes[inner];
  const T fill = narrow<T>(p.extrapolation);
  // The innermost axis's taps for these columns, shared by every row.
  const AxisPlan* ip = w.plan_of[inner] >= 0 ? &w.plans[w.plan_of[inner]] : nullptr;
  const int col_taps = ip ? ip->taps : 1;
  int64_t col_offset[kTapTable];
  float col_weight[kTapTable];
  bool col_outside[kColumnChunk];
  bool any_col_outside = false;
  for (int64_t j = 0; j < n; ++j) {
    if (ip) {
      col_outside[j] = !axis_taps(*ip, p, c0 + j, col_offset + j * col_taps, col_weight + j * col_taps);
      any_col_outside = any_col_outside || col_outside[j];
    } else {
      col_offset[j] = (c0 + j) * w.in_strides[inner];
      col_weight[j] = 1;
      col_outside[j] = false;
    }
  }
  // Each outer resized axis's taps at the current row's coordinate, redone
  // only when that coordinate changes (by plan index).
  int64_t row_offset[kMaxRank][kMaxTaps];
  float row_weight[kMaxRank][kMaxTaps];
  bool row_outside[kMaxRank] = {};
  int64_t cached[kMaxRank];
  std::fill(cached, cached + kMaxRank, int64_t{-1});
  int64_t outer_combos = 1;
  for (int a = 0; a < inner; ++a)
    if (w.plan_of[a] >= 0) outer_combos *= w.plans[w.plan_of[a]].taps;
  const bool few_combos = outer_combos <= kMaxCombos;
  float acc[kColumnChunk];
  for (int64_t row = row_begin; row < row_end; ++row) {
    int64_t rem = row, base = 0;
    bool outside = false;
    for (int a = inner - 1; a >= 0; --a) {
      const int64_t c = rem % w.out_sizes[a];
      rem /= w.out_sizes[a];
      const int k = w.plan_of[a];
      if (k < 0) {
        base += c * w.in_strides[a];
        continue;
      }
      if (cached[k] != c) {
        row_outside[k] = !axis_taps(w.plans[k], p, c, row_offset[k], row_weight[k]);
        cached[k] = c;
      }
      outside = outside || row_outside[k];
    }
    T* orow = od + row * cols + c0;
    if (outside) {
      std::fill(orow, orow + n, fill);
      continue;
    }
    // Every combination of the outer axes' taps, as an odometer: gathered
    // for one pass over the row when there are few, else summed in acc.
    const T* combo_src[kMaxCombos];
    float combo_weight[kMaxCombos];
    int combos = 0;
    if (!few_combos) std::fill(acc, acc + n, 0.0f);
    int pick[kMaxRank] = {};
    for (;;) {
      float weight = 1;
      int64_t offset = base;
      for (int a = 0; a < inner; ++a) {
        const int k = w.plan_of[a];
        if (k < 0) continue;
        weight *= row_weight[k][pick[a]];
        offset += row_offset[k][pick[a]];
      }
      if (weight != 0 && few_combos) {
        combo_src[combos] = xd + offset;
        combo_weight[combos++] = weight;
      } else if (weight != 0) {
        accumulate_columns(xd + offset, col_offset, col_weight, col_taps, n, weight, acc);
      }
      int a = inner - 1;
      for (; a >= 0; --a) {
        const int k = w.plan_of[a];
        if (k < 0) continue;
        if (++pick[a] < w.plans[k].taps) break;
        pick[a] = 0;
      }
      if (a < 0) break;
    }
    if (few_combos) {
      interpolate_row(combo_src, combo_weight, combos, col_offset, col_weight, col_taps, n, orow);
    } else {
      for (int64_t j = 0; j < n; ++j) orow[j] = narrow<T>(acc[j]);
    }
    if (any_col_outside) {
      for (int64_t j = 0; j < n; ++j)
        if (col_outside[j]) orow[j] = fill;
    }
  }
}

/// Cuts the output into tasks (a block of rows x a chunk of columns, so
/// that every thread has work even for one long row) and runs them.
template <typename T>
void resize_typed(const Tensor& x, Tensor& out, const ResizeWalk& w, const ResizeParams& p, int threads) {
  const int inner = w.rank - 1;
  const int col_taps = w.plan_of[inner] >= 0 ? w.plans[w.plan_of[inner]].taps : 1;
  const int64_t cols = w.out_sizes[inner];
  int64_t rows = 1;
  for (int a = 0; a < inner; ++a) rows *= w.out_sizes[a];
  const int64_t chunk = std::min<int64_t>(kColumnChunk, kTapTable / col_taps);
  const int64_t chunks = (cols + chunk - 1) / chunk;
  const int64_t blocks = std::min<int64_t>(rows, threads);
  const int64_t tasks = blocks * chunks;
  const T* xd = x.data_as<T>();
  T* od = out.data_as<T>();
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (int64_t task = 0; task < tasks; ++task) {
    const int64_t block = task / chunks;
    const int64_t c0 = (task % chunks) * chunk;
    const int64_t per = rows / blocks, extra = rows % blocks;
    const int64_t row_begin = block * per + std::min(block, extra);
    const int64_t row_end = row_begin + per + (block < extra ? 1 : 0);
    resize_block<T>(xd, od, w, p, c0, std::min(chunk, cols - c0), row_begin, row_end);
  }
}

/// The int list `decl` (required). An empty list may be stored as either
/// list kind.
Error read_ints(const Attrs& attrs, const AttrDecl& decl, const std::vector<int64_t>*& list) {
  static const std::vector<int64_t> kEmpty;
  const AttrValue* v = attrs.find(decl.name);
  list = v ? std::get_if<std::vector<int64_t>>(v) : nullptr;
  if (const auto* floats = v ? std::get_if<std::vector<double>>(v) : nullptr; floats && floats->empty()) {
    list = &kEmpty;
  }
  if (list == nullptr) {
    return fail(Error::InvalidArgument, cat("resize: expected attribute '", decl.name, "' to be int[], got ",
                                            v ? attr_kind_name(attr_kind(*v)) : "none"));
  }
  return Error::Ok;
}

/// The float list `decl`: absent or empty leaves `list` null, otherwise it
/// has `count` finite entries (`what` says what they are).
Error read_floats(const Attrs& attrs, const AttrDecl& decl, size_t count, std::string_view what,
                  const std::vector<double>*& list) {
  list = nullptr;
  const AttrValue* v = attrs.find(decl.name);
  if (v == nullptr) return Error::Ok;
  const auto* values = std::get_if<std::vector<double>>(v);
  if (const auto* ints = std::get_if<std::vector<int64_t>>(v); ints && ints->empty()) return Error::Ok;
  if (values == nullptr) {
    return fail(Error::InvalidArgument, cat("resize: expected attribute '", decl.name, "' to be float[], got ",
                                            attr_kind_name(attr_kind(*v))));
  }
  if (values->empty()) return Error::Ok;
  if (values->size() != count) {
    return fail(Error::InvalidArgument,
                cat("resize: expected ", count, " entries in '", decl.name, "' (", what, "), got ", values->size()));
  }
  for (double value : *values) {
    if (!std::isfinite(value)) {
      return fail(Error::InvalidArgument, cat("resize: expected finite entries in '", decl.name, "', got ",
                                              std::to_string(value)));
    }
  }
  list = values;
  return Error::Ok;
}

/// Reads the string attributes into `p`.
Error read_modes(const Attrs& attrs, ResizeParams& p) {
  const OnnxResizeDecls& d = declared<OnnxResizeDecls>();
  std::string_view mode, coord, nearest;
  EDGEC_TRY(read_attr("resize", attrs, d.mode, mode));
  EDGEC_TRY(read_attr("resize", attrs, d.coordinate_transformation_mode, coord));
  EDGEC_TRY(read_attr("resize", attrs, d.nearest_mode, nearest));
  p.interp = mode == "linear" ? Interp::Linear : mode == "cubic" ? Interp::Cubic : Interp::Nearest;
  // The declarations allow exactly the names these know.
  p.coord = resize::coord_mode_named(coord).value_or(resize::CoordMode::HalfPixel);
  p.nearest = resize::nearest_mode_named(nearest).value_or(resize::NearestMode::RoundPreferFloor);
  double extrapolation = 0;
  EDGEC_TRY(read_attr("resize", attrs, d.cubic_coeff_a, p.cubic_a));
  EDGEC_TRY(read_attr("resize", attrs, d.exclude_outside, p.exclude_outside));
  EDGEC_TRY(read_attr("resize", attrs, d.extrapolation_value, extrapolation));
  EDGEC_TRY(read_attr("resize", attrs, d.antialias, p.antialias));
  p.extrapolation = static_cast<float>(extrapolation);
  return Error::Ok;
}

/// The taps of `plan` for its mode; antialiasing widens the filter when
/// downscaling, up to kMaxTaps.
Error plan_taps(const ResizeParams& p, int axis, AxisPlan& plan) {
  if (p.interp == Interp::Nearest) return Error::Ok;  // one tap; ONNX antialiases only linear and cubic
  const double support = p.interp == Interp::Linear ? 1 : 2;
  plan.filter_scale = p.antialias ? std::min(plan.g.scale, 1.0) : 1.0;
  const double first = std::floor(-support / plan.filter_scale) + 1;
  const double taps = 2 - 2 * first;
  if (taps > kMaxTaps) {
    return fail(Error::InvalidArgument,
                cat("resize: antialias at scale ", std::to_string(plan.g.scale), " on axis ", axis, " needs ",
                    std::to_string(taps), " taps per output, more than the ", kMaxTaps,
                    " supported (downscale in several steps)"));
  }
  plan.first = static_cast<int>(first);
  plan.taps = static_cast<int>(taps);
  return Error::Ok;
}

Error resize_onnx(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                  std::span<Tensor> outputs) {
  EDGEC_TRY(check_float_io("resize", inputs, outputs));
  const OnnxResizeDecls& d = declared<OnnxResizeDecls>();
  const Tensor& x = inputs[0];
  Tensor& out = outputs[0];

  // axes and sizes: each resized axis once, in increasing order.
  const std::vector<int64_t>* axes = nullptr;
  const std::vector<int64_t>* sizes = nullptr;
  EDGEC_TRY(read_ints(attrs, d.axes, axes));
  EDGEC_TRY(read_ints(attrs, d.output_size, sizes));
  const size_t count = axes->size();
  for (size_t i = 0; i < count; ++i) {
    const int64_t a = (*axes)[i];
    if (a < 0 || a >= x.rank || (i > 0 && a <= (*axes)[i - 1])) {
      return fail(Error::InvalidArgument, cat("resize: expected 'axes' to be increasing axes of the rank-", x.rank,
                                              " input, got ", shape_string(*axes)));
    }
  }
  if (sizes->size() != count) {
    return fail(Error::InvalidArgument,
                cat("resize: expected ", count, " entries in 'output_size' (one per axis), got ", sizes->size()));
  }
  const std::vector<double>* scales = nullptr;
  const std::vector<double>* roi = nullptr;
  EDGEC_TRY(read_floats(attrs, d.scales, count, "one per axis", scales));
  EDGEC_TRY(read_floats(attrs, d.roi, 2 * count, "the starts, then the ends, of each axis", roi));
  ResizeParams p;
  EDGEC_TRY(read_modes(attrs, p));

  // Size the output.
  int64_t shape[kMaxRank];
  for (int i = 0; i < x.rank; ++i) shape[i] = x.sizes[i];
  for (size_t i = 0; i < count; ++i) {
    const auto a = static_cast<int>((*axes)[i]);
    int64_t size = (*sizes)[i];
    if (size == resize::kSizeByScale && scales) {
      // ONNX's floor(in * scale), in double as resize_shape bounds it.
      const double sized = std::floor(static_cast<double>(x.sizes[a]) * (*scales)[i]);
      if (!(sized <= static_cast<double>(spatial::kMaxAttrValue))) {
        return fail(Error::InvalidShape, cat("resize: scale ", std::to_string((*scales)[i]), " gives axis ", a,
                                             " of input ", shape_string(x.shape()), " more than ",
                                             spatial::kMaxAttrValue, " elements"));
      }
      size = static_cast<int64_t>(sized);
    } else if (size < 0) {
      return fail(Error::InvalidArgument,
                  cat("resize: expected 'output_size' entries >= 0, or -1 (floor(size * scale)) with 'scales', got ",
                      shape_string(*sizes)));
    }
    if (x.sizes[a] == 0 && size > 0) {
      return fail(Error::InvalidShape, cat("resize: cannot resize the empty axis ", a, " of input ",
                                           shape_string(x.shape()), " to ", size));
    }
    if (scales && !((*scales)[i] > 0)) {
      return fail(Error::InvalidArgument, cat("resize: expected 'scales' entries > 0, got ",
                                              std::to_string((*scales)[i]), " for axis ", a));
    }
    shape[a] = size;
  }
  EDGEC_TRY(out.resize({shape, static_cast<size_t>(x.rank)}));
  if (out.numel() == 0) return Error::Ok;

  // Plan each resized axis; a scalar walks as [1].
  AxisPlan plans[kMaxRank];
  ResizeWalk walk;
  walk.rank = std::max(x.rank, 1);
  walk.plans = plans;
  walk.out_sizes[0] = 1;
  for (int i = 0; i < walk.rank; ++i) walk.plan_of[i] = -1;
  for (int i = 0; i < x.rank; ++i) {
    walk.out_sizes[i] = shape[i];
    walk.in_strides[i] = x.strides[i];
  }
  double taps = 1;
  for (size_t i = 0; i < count; ++i) {
    const auto a = static_cast<int>((*axes)[i]);
    AxisPlan& plan = plans[i];
    plan.g.in = x.sizes[a];
    plan.g.out = shape[a];
    plan.g.scale = scales ? (*scales)[i] : static_cast<double>(plan.g.out) / static_cast<double>(plan.g.in);
    if (roi) {
      plan.g.roi_start = (*roi)[i];
      plan.g.roi_end = (*roi)[count + i];
    }
    plan.stride = x.strides[a];
    EDGEC_TRY(plan_taps(p, a, plan));
    walk.plan_of[a] = static_cast<int>(i);
    taps *= plan.taps;
  }
  const double work = static_cast<double>(out.numel()) * taps;
  const int64_t capped = work > 1e15 ? int64_t{1} << 50 : static_cast<int64_t>(work);
  const int threads = spatial::threads_for(ctx.num_threads, capped);
  dispatch_float(out.dtype, [&]<typename T>() { resize_typed<T>(x, out, walk, p, threads); });
  return Error::Ok;
}

}  // namespace

std::span<const KernelEntry> resize_kernels() {
  const AttrDecl& output_size = declared<spatial::SharedDecls>().output_size;
  const AttrDecl& align_corners = declared<ResizeDecls>().align_corners;
  const OnnxResizeDecls& r = declared<OnnxResizeDecls>();
  static const KernelEntry kResizeKernels[] = {
      {declare("resize", "nn", {{"self"}},
               {r.axes, r.output_size, r.scales, r.roi, r.mode, r.coordinate_transformation_mode, r.nearest_mode,
                r.cubic_coeff_a, r.exclude_outside, r.extrapolation_value, r.antialias},
               kFloatDTypes, 0,
               "ONNX Resize of any axes: nearest, linear or cubic, in each coordinate transformation"),
       resize_onnx},
      {declare("upsample_bilinear", "nn", {{"self"}}, {output_size, align_corners}, kFloatDTypes, 0,
               "linear (1-d) / bilinear (2-d) resize of the spatial dims"),
       upsample_bilinear},
      {declare("upsample_nearest", "nn", {{"self"}}, {output_size}, kFloatDTypes, kOpShapeOnly,
               "nearest-neighbour resize of the spatial dims (torch 'nearest')"),
       upsample_nearest},
  };
  return kResizeKernels;
}

}  // namespace edgec

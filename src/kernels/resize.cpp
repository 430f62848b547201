// Resize kernels over NCL / NCHW tensors with PyTorch's index arithmetic:
//   upsample_nearest(x; output_size)                   torch 'nearest'
//   upsample_bilinear(x; output_size, align_corners)   torch 'linear' / 'bilinear'
// Source coordinates follow torch's arithmetic (float scale; float index for
// nearest, double index for linear) so that non-integer scale factors pick
// the same source pixels and weights.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernels/conv_spatial.h"
#include "kernels/families.h"

namespace edgec {
namespace {

using spatial::cat;

/// Output columns handled per index table; the tables live on the stack.
constexpr int64_t kColumnChunk = 512;

// upsample_bilinear's own attribute, declared once: its row at the end of
// this file and its kernel read it (output_size is conv_spatial.h's).
struct ResizeDecls {
  AttrDecl align_corners = attr_bool("align_corners", false);
};

/// Validates (x, output_size) and sizes `out`. out_size gets 2-D coordinates
/// (a 1-D resize has out_size[0] = 1).
Error prepare_resize(std::string_view op, std::span<const Tensor> inputs, const Attrs& attrs,
                     std::span<Tensor> outputs, int64_t out_size[2]) {
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
  return spatial::read_output_size(op, "resize", x, attrs, out_size, outputs[0]);
}

// ---- upsample_nearest ---------------------------------------------------------

/// torch's nearest_idx: the scale is in/out rounded to float, and the product
/// is floored in float; the exact 1x and 2x cases are special-cased as in torch.
int64_t nearest_source(int64_t dst, int64_t in, int64_t out) {
  if (out == in) return dst;
  if (out == 2 * in) return dst >> 1;
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  const auto src = static_cast<int64_t>(std::floor(static_cast<float>(dst) * scale));
  return std::min(src, in - 1);
}

template <typename T>
void upsample_nearest_typed(const Tensor& x4, Tensor& out, const int64_t out_size[2], int threads) {
  const int64_t H = x4.sizes[2], W = x4.sizes[3];
  const int64_t sH = x4.strides[2], sW = x4.strides[3];
  const int64_t OH = out_size[0], OW = out_size[1];
  spatial::for_each_plane<T>(x4, out, OH, OW, threads, [&](const T* plane, T* op) {
    int64_t src_offset[kColumnChunk];
    for (int64_t c0 = 0; c0 < OW; c0 += kColumnChunk) {
      const int64_t n = std::min(kColumnChunk, OW - c0);
      for (int64_t j = 0; j < n; ++j) src_offset[j] = nearest_source(c0 + j, W, OW) * sW;
      for (int64_t oh = 0; oh < OH; ++oh) {
        const T* row = plane + nearest_source(oh, H, OH) * sH;
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


}  // namespace

std::span<const KernelEntry> resize_kernels() {
  const AttrDecl& output_size = declared<spatial::SharedDecls>().output_size;
  const AttrDecl& align_corners = declared<ResizeDecls>().align_corners;
  static const KernelEntry kResizeKernels[] = {
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

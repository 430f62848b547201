// The quantized family's elementwise operators, with ONNX's semantics
// (docs/semantics.md §9):
//   quantize_linear(x, scale, zero_point?; axis, dtype)   y = saturate(nearbyint(x / scale) + zp)
//   dequantize_linear(x, scale, zero_point?; axis)        y = float(x - zp) * scale
//   dynamic_quantize_linear(x) -> (y u8, scale f32[], zero_point u8[])
// The scale and zero point are per tensor, or per index of `axis` (1-D).
// The integer convolutions are in quantized_conv.cpp, the integer matmuls
// in quantized_matmul.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/axis_util.h"
#include "kernels/families.h"
#include "kernels/kernel_checks.h"
#include "kernels/quantized_common.h"

namespace edgec {
namespace {

using quant::cat;
using quant::QParams;

/// Which axis a per-axis scale runs along (wrapped), and its length; -1 and
/// -1 when the scale is per tensor. A 1-D scale of more than one entry needs
/// a valid axis.
Error read_axis(std::string_view op, const Tensor& x, const Tensor& scale, const Attrs& attrs, int& axis,
                int64_t& channels) {
  axis = -1;
  channels = -1;
  int64_t a = 0;
  EDGEC_TRY(read_attr(op, attrs, declared<quant::QuantDecls>().axis, a));
  const bool per_axis = scale.rank == 1 && scale.sizes[0] != 1;
  if (!per_axis) return Error::Ok;
  if (x.rank == 0 || a < -x.rank || a >= x.rank) {
    return fail(Error::InvalidArgument, cat(op, ": axis ", a, " is out of range for input ", shape_string(x.shape()),
                                            " (a per-axis scale of ", scale.sizes[0], " entries)"));
  }
  axis = static_cast<int>(a < 0 ? a + x.rank : a);
  channels = x.sizes[axis];
  return Error::Ok;
}

/// The walk of x (operand 0), the contiguous output (1) and the channel
/// index along `axis` (2: stride 1 along the axis, 0 elsewhere).
axis::StridedDims<3> walk(const Tensor& x, int axis) {
  axis::StridedDims<3> d;
  int64_t out_stride = 1;
  std::array<int64_t, kMaxRank> out_strides{};
  for (int i = x.rank - 1; i >= 0; --i) {
    out_strides[i] = out_stride;
    out_stride *= x.sizes[i];
  }
  for (int i = 0; i < x.rank; ++i) d.push(x.sizes[i], {x.strides[i], out_strides[i], i == axis ? 1 : 0});
  d.coalesce();
  return d;
}

// ---- quantize_linear ------------------------------------------------------------

template <typename X, typename Y>
void quantize_typed(const Tensor& x, const QParams& p, int axis, Tensor& y) {
  const axis::StridedDims<3> d = walk(x, axis);
  const X* xd = x.data_as<X>();
  Y* yd = y.data_as<Y>();
  const int32_t lo = std::numeric_limits<Y>::min();
  const int32_t hi = std::numeric_limits<Y>::max();
  const int64_t len = d.line_len();
  const int64_t xs = d.line_stride(0);
  const int64_t cs = d.line_stride(2);
  axis::for_each_line(d, [&](const std::array<int64_t, 3>& off) {
    const X* src = xd + off[0];
    Y* dst = yd + off[1];
    if (cs == 0) {
      const float s = p.scale_at(off[2]);
      const int32_t zp = p.zero_at(off[2]);
      axis::with_step(xs, [&](auto step) {
        for (int64_t i = 0; i < len; ++i) {
          dst[i] = static_cast<Y>(quant::round_saturate(widen(src[i * step]) / s, zp, lo, hi));
        }
      });
    } else {
      for (int64_t i = 0; i < len; ++i) {
        const int64_t c = off[2] + i * cs;
        dst[i] = static_cast<Y>(quant::round_saturate(widen(src[i * xs]) / p.scale_at(c), p.zero_at(c), lo, hi));
      }
    }
  });
}

Error quantize_linear(KernelContext&, std::span<const Tensor> inputs, const Attrs& attrs, std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "quantize_linear";
  if (inputs.size() < 2 || inputs.size() > 3 || outputs.size() != 1) {
    return fail(Error::InvalidArgument, cat(kOp, ": expected inputs (x, scale) or (x, scale, zero_point) and 1 "
                                                 "output, got ",
                                            inputs.size(), " inputs and ", outputs.size(), " outputs"));
  }
  const Tensor& x = inputs[0];
  if (x.dtype != DType::Float32 && x.dtype != DType::Float16) {
    return fail(Error::InvalidType, cat(kOp, ": expected an f32 or f16 input, got ", dtype_name(x.dtype)));
  }
  const Tensor* zp = inputs.size() == 3 ? &inputs[2] : nullptr;
  DType out_dtype = DType::UInt8;
  if (zp != nullptr) {
    out_dtype = zp->dtype;
  } else {
    const AttrDecl& decl = declared<quant::QuantDecls>().dtype;
    if (const AttrValue* v = attrs.find(decl.name); v != nullptr && attr_kind(*v) != AttrKind::DType) {
      return fail(Error::InvalidArgument,
                  cat(kOp, ": attribute 'dtype' must be a dtype, got ", attr_kind_name(attr_kind(*v))));
    }
    out_dtype = decl.dtype_value(attrs);
  }
  if (!quant::is_quant_dtype(out_dtype)) {
    return fail(Error::InvalidType, cat(kOp, ": the result must be i8 or u8, got ", dtype_name(out_dtype)));
  }
  int axis = -1;
  int64_t channels = -1;
  EDGEC_TRY(read_axis(kOp, x, inputs[1], attrs, axis, channels));
  QParams p;
  EDGEC_TRY(quant::read_qparams(kOp, "y", &inputs[1], zp, out_dtype, channels, "index of the axis", p));
  Tensor& y = outputs[0];
  EDGEC_TRY(check_output_dtype(kOp, y, out_dtype));
  EDGEC_TRY(resize_output(kOp, y, x.shape()));
  const bool f32 = x.dtype == DType::Float32;
  if (out_dtype == DType::UInt8) {
    f32 ? quantize_typed<float, uint8_t>(x, p, axis, y) : quantize_typed<Half, uint8_t>(x, p, axis, y);
  } else {
    f32 ? quantize_typed<float, int8_t>(x, p, axis, y) : quantize_typed<Half, int8_t>(x, p, axis, y);
  }
  return Error::Ok;
}

// ---- dequantize_linear ------------------------------------------------------------

template <typename X>
void dequantize_typed(const Tensor& x, const QParams& p, int axis, Tensor& y) {
  const axis::StridedDims<3> d = walk(x, axis);
  const X* xd = x.data_as<X>();
  float* yd = y.data_as<float>();
  const int64_t len = d.line_len();
  const int64_t xs = d.line_stride(0);
  const int64_t cs = d.line_stride(2);
  // int32 (a bias): the subtraction in 64 bits, so that no zero point
  // overflows it (ONNX requires 0 there).
  using Wide = std::conditional_t<std::is_same_v<X, int32_t>, int64_t, int32_t>;
  axis::for_each_line(d, [&](const std::array<int64_t, 3>& off) {
    const X* src = xd + off[0];
    float* dst = yd + off[1];
    if (cs == 0) {
      const float s = p.scale_at(off[2]);
      const Wide zp = p.zero_at(off[2]);
      axis::with_step(xs, [&](auto step) {
        for (int64_t i = 0; i < len; ++i) dst[i] = static_cast<float>(static_cast<Wide>(src[i * step]) - zp) * s;
      });
    } else {
      for (int64_t i = 0; i < len; ++i) {
        const int64_t c = off[2] + i * cs;
        dst[i] = static_cast<float>(static_cast<Wide>(src[i * xs]) - static_cast<Wide>(p.zero_at(c))) * p.scale_at(c);
      }
    }
  });
}

Error dequantize_linear(KernelContext&, std::span<const Tensor> inputs, const Attrs& attrs,
                        std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "dequantize_linear";
  if (inputs.size() < 2 || inputs.size() > 3 || outputs.size() != 1) {
    return fail(Error::InvalidArgument, cat(kOp, ": expected inputs (x, scale) or (x, scale, zero_point) and 1 "
                                                 "output, got ",
                                            inputs.size(), " inputs and ", outputs.size(), " outputs"));
  }
  const Tensor& x = inputs[0];
  if (!quant::is_quant_dtype(x.dtype) && x.dtype != DType::Int32) {
    return fail(Error::InvalidType, cat(kOp, ": expected an i8, u8 or i32 input, got ", dtype_name(x.dtype)));
  }
  int axis = -1;
  int64_t channels = -1;
  EDGEC_TRY(read_axis(kOp, x, inputs[1], attrs, axis, channels));
  QParams p;
  EDGEC_TRY(quant::read_qparams(kOp, "x", &inputs[1], inputs.size() == 3 ? &inputs[2] : nullptr, x.dtype, channels,
                                "index of the axis", p));
  Tensor& y = outputs[0];
  EDGEC_TRY(check_output_dtype(kOp, y, DType::Float32));
  EDGEC_TRY(resize_output(kOp, y, x.shape()));
  switch (x.dtype) {
    case DType::Int8: dequantize_typed<int8_t>(x, p, axis, y); break;
    case DType::UInt8: dequantize_typed<uint8_t>(x, p, axis, y); break;
    default: dequantize_typed<int32_t>(x, p, axis, y); break;
  }
  return Error::Ok;
}

// ---- dynamic_quantize_linear -------------------------------------------------------

Error dynamic_quantize_linear(KernelContext&, std::span<const Tensor> inputs, const Attrs&,
                              std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "dynamic_quantize_linear";
  EDGEC_TRY(check_arity(kOp, inputs, 1, outputs, 3));
  const Tensor& x = inputs[0];
  if (x.dtype != DType::Float32) {
    return fail(Error::InvalidType, cat(kOp, ": expected an f32 input, got ", dtype_name(x.dtype)));
  }
  EDGEC_TRY(check_output_dtype(kOp, outputs[0], DType::UInt8));
  EDGEC_TRY(check_output_dtype(kOp, outputs[1], DType::Float32));
  EDGEC_TRY(check_output_dtype(kOp, outputs[2], DType::UInt8));
  EDGEC_TRY(resize_output(kOp, outputs[0], x.shape()));
  EDGEC_TRY(resize_output(kOp, outputs[1], std::span<const int64_t>()));
  EDGEC_TRY(resize_output(kOp, outputs[2], std::span<const int64_t>()));
  // The range always holds 0 (ONNX), so that 0 is exact.
  float lo = 0.0f, hi = 0.0f;
  const axis::StridedDims<3> d = walk(x, -1);
  const float* xd = x.data_as<float>();
  const int64_t len = d.line_len();
  const int64_t xs = d.line_stride(0);
  axis::for_each_line(d, [&](const std::array<int64_t, 3>& off) {
    const float* src = xd + off[0];
    for (int64_t i = 0; i < len; ++i) {
      lo = std::min(lo, src[i * xs]);
      hi = std::max(hi, src[i * xs]);
    }
  });
  // ONNX Runtime's: scale 1 for an all-zero input (the range is empty), and
  // the zero point clamped to [0, 255] before it is rounded.
  const float scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  const float zp_real = std::clamp(0.0f - lo / scale, 0.0f, 255.0f);
  const int32_t zp = static_cast<int32_t>(std::nearbyint(zp_real));
  outputs[1].data_as<float>()[0] = scale;
  outputs[2].data_as<uint8_t>()[0] = static_cast<uint8_t>(zp);
  uint8_t* yd = outputs[0].data_as<uint8_t>();
  axis::for_each_line(d, [&](const std::array<int64_t, 3>& off) {
    const float* src = xd + off[0];
    uint8_t* dst = yd + off[1];
    axis::with_step(xs, [&](auto step) {
      for (int64_t i = 0; i < len; ++i) dst[i] = static_cast<uint8_t>(quant::round_saturate(src[i * step] / scale, zp, 0, 255));
    });
  });
  return Error::Ok;
}

}  // namespace

std::span<const KernelEntry> quantized_kernels() {
  const quant::QuantDecls& q = declared<quant::QuantDecls>();
  static const KernelEntry kQuantizedKernels[] = {
      {declare("quantize_linear", "quantized", {{"x"}, {"scale"}, {"zero_point", OperandKind::Optional}},
               {q.axis, q.dtype}, kFloatDTypes, 0,
               "y = saturate(nearbyint(x / scale) + zero_point), per tensor or per index of axis (ONNX "
               "QuantizeLinear)"),
       quantize_linear},
      {declare("dequantize_linear", "quantized", {{"x"}, {"scale"}, {"zero_point", OperandKind::Optional}},
               {q.axis}, {DType::Int8, DType::UInt8, DType::Int32}, 0,
               "y = float(x - zero_point) * scale, per tensor or per index of axis (ONNX DequantizeLinear)"),
       dequantize_linear},
      {declare("dynamic_quantize_linear", "quantized", {{"x"}}, {}, {DType::Float32}, 0,
               "u8 quantization of x over its range widened to hold 0; results y, scale, zero_point (ONNX "
               "DynamicQuantizeLinear)"),
       dynamic_quantize_linear},
  };
  return kQuantizedKernels;
}

}  // namespace edgec

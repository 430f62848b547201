// What the quantized kernels share (quantized.cpp, quantized_conv.cpp,
// quantized_matmul.cpp, and the com.microsoft ones): the attribute
// declarations of the "quantized" family, reading a scale or zero point
// operand (per tensor or per axis), and ONNX's rounding and saturation.
// docs/semantics.md §9 states the arithmetic.
//
// A scale is f32, a scalar [] or 1-D: [C] (one per index of the quantized
// axis) or [1] (per tensor, as ONNX Runtime also takes it). A zero point
// has its scale's shape and the quantized tensor's dtype (i8 or u8; i32 for
// a bias or an int32 dequantize_linear).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/error.h"
#include "kernels/conv_spatial.h"
#include "kernels/op_decl.h"
#include "kernels/tensor.h"

namespace edgec::quant {

using spatial::cat;

/// The attributes of the quantized family, declared once (the window
/// attributes of qlinear_conv and conv_integer are conv_spatial.h's).
struct QuantDecls {
  AttrDecl axis = attr_int("axis", 1);
  /// quantize_linear's result dtype when it has no zero point (ONNX: u8).
  AttrDecl dtype = attr_dtype("dtype", DType::UInt8);
  AttrDecl groups = attr_int("groups", 1, AttrRule::Positive);
  // Set by the onednn backend on the qlinear_conv / qlinear_matmul whose
  // int8 weights it stores flat, in oneDNN's layout with its compensation
  // (BackendCompiler::prepare_constants, docs/semantics.md §6.5): the
  // weights' own shape, and the layout (oneDNN's dims, see
  // backends/onednn/runtime_quant.cpp). Only that delegate reads such calls.
  AttrDecl weights_shape = attr_ints("weights_shape");
  AttrDecl weights_strides = attr_ints("weights_strides");
  AttrDecl weights_blocks = attr_ints("weights_blocks");
  AttrDecl weights_block_dims = attr_ints("weights_block_dims");
  AttrDecl weights_extra = attr_ints("weights_extra");
};

/// A qlinear_conv / qlinear_matmul whose weights the onednn backend stored
/// in its own layout (the weights_shape attribute): the portable kernels do
/// not read that layout, and lowering never gives them such a call.
inline Error refuse_stored_weights(std::string_view op, const Attrs& attrs) {
  if (attrs.find("weights_shape") == nullptr) return Error::Ok;
  return fail(Error::NotSupported, cat(op, ": the weights are stored in oneDNN's int8 layout (attribute weights_shape); "
                                           "only the onednn delegate reads them"));
}

/// The dtypes a quantized tensor (and its zero point) may have.
inline bool is_quant_dtype(DType d) { return d == DType::Int8 || d == DType::UInt8; }

/// The saturation range of a quantized dtype.
inline int32_t quant_min(DType d) { return d == DType::Int8 ? -128 : d == DType::UInt8 ? 0 : INT32_MIN; }
inline int32_t quant_max(DType d) { return d == DType::Int8 ? 127 : d == DType::UInt8 ? 255 : INT32_MAX; }

/// Element i of an integer tensor of dtype i8, u8 or i32, contiguous or
/// not: `off` is an element offset.
inline int32_t int_at(const Tensor& t, int64_t off) {
  switch (t.dtype) {
    case DType::Int8: return t.data_as<int8_t>()[off];
    case DType::UInt8: return t.data_as<uint8_t>()[off];
    default: return t.data_as<int32_t>()[off];
  }
}

/// A scale and its zero point, per tensor (count 1) or per axis (count C),
/// read into place once: at most kMaxChannels channels are held here, more
/// are read through the tensors.
struct QParams {
  const Tensor* scale = nullptr;  ///< nullptr: no scale (conv_integer, matmul_integer)
  const Tensor* zero_point = nullptr;  ///< nullptr: zero
  int64_t count = 1;

  float scale_at(int64_t c) const {
    const int64_t i = count == 1 ? 0 : c;
    return scale->data_as<float>()[scale->rank == 0 ? 0 : i * scale->strides[0]];
  }
  int32_t zero_at(int64_t c) const {
    if (zero_point == nullptr) return 0;
    const int64_t i = count == 1 ? 0 : c;
    return int_at(*zero_point, zero_point->rank == 0 ? 0 : i * zero_point->strides[0]);
  }
};

/// Checks a scale (f32, [] or [1] or [channels]) and its optional zero point
/// (the scale's shape, dtype `zp_dtype`), naming them `what` ("x", "w", ...)
/// in messages; channels < 0: only per tensor is allowed. `scale` may be
/// nullptr when the operator has none (a lone zero point).
inline Error read_qparams(std::string_view op, std::string_view what, const Tensor* scale, const Tensor* zero_point,
                          DType zp_dtype, int64_t channels, std::string_view axis_name, QParams& out) {
  out = QParams{};
  out.scale = scale;
  out.zero_point = zero_point;
  const Tensor* shape_of = scale != nullptr ? scale : zero_point;
  if (shape_of == nullptr) return Error::Ok;
  if (scale != nullptr && scale->dtype != DType::Float32) {
    return fail(Error::InvalidType, cat(op, ": ", what, "_scale must be f32, got ", dtype_name(scale->dtype)));
  }
  const std::string_view kind = scale != nullptr ? "_scale" : "_zero_point";
  if (shape_of->rank > 1) {
    return fail(Error::InvalidShape, cat(op, ": ", what, kind, " must be a scalar (per tensor) or 1-D (per ",
                                         axis_name, "), got shape ", shape_string(shape_of->shape())));
  }
  if (shape_of->rank == 1) {
    const int64_t n = shape_of->sizes[0];
    if (n != 1 && (channels < 0 || n != channels)) {
      return fail(Error::InvalidShape,
                  channels < 0
                      ? cat(op, ": ", what, kind, " must be per tensor (shape [] or [1]), got shape ",
                            shape_string(shape_of->shape()))
                      : cat(op, ": ", what, kind, " has ", n, " entries; expected 1 (per tensor) or ", channels,
                            " (one per ", axis_name, ")"));
    }
    out.count = n;
  }
  if (zero_point != nullptr) {
    if (zero_point->dtype != zp_dtype) {
      return fail(Error::InvalidType, cat(op, ": ", what, "_zero_point must have dtype ", dtype_name(zp_dtype),
                                          " (", what, "'s), got ", dtype_name(zero_point->dtype)));
    }
    if (scale != nullptr && (zero_point->rank != scale->rank || (scale->rank == 1 && zero_point->sizes[0] != scale->sizes[0]))) {
      return fail(Error::InvalidShape, cat(op, ": ", what, "_zero_point shape ", shape_string(zero_point->shape()),
                                           " must equal ", what, "_scale's ", shape_string(scale->shape())));
    }
  }
  return Error::Ok;
}

/// ONNX's rounding and saturation of a float that becomes an integer of
/// [lo, hi] after adding zp: round half to even in the default rounding
/// mode, clamped first in float (as ONNX Runtime's MLAS does; the same result
/// as clamping after rounding, since the bounds are integers); NaN gives lo.
inline int32_t round_saturate(float v, int32_t zp, int32_t lo, int32_t hi) {
  const float flo = static_cast<float>(lo - zp);
  const float fhi = static_cast<float>(hi - zp);
  if (!(v >= flo)) v = flo;
  if (v > fhi) v = fhi;
  return static_cast<int32_t>(std::nearbyint(v)) + zp;
}

/// The requantization of an int32 accumulator: saturate(nearbyint(acc *
/// multiplier) + zp), the multiplier computed by the caller in float32 as
/// in_scale * w_scale / out_scale (docs/semantics.md §9.4).
inline int32_t requantize(int32_t acc, float multiplier, int32_t zp, int32_t lo, int32_t hi) {
  return round_saturate(static_cast<float>(acc) * multiplier, zp, lo, hi);
}

}  // namespace edgec::quant

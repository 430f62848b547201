// The xnnpack delegate's operator table (op_table.h): each operator once,
// with its support check, its builder (runtime_ops.cpp), the output range
// of a clamping operator, and whether this XNNPACK (Debian's 2022-02
// snapshot) has it for f16. Attributes are read through the operator's
// declaration (kernels/op_decl.h), so their defaults are the portable
// kernel's.
#include "backends/xnnpack/op_table.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "backends/xnnpack/runtime_state.h"
#include "kernels/registry.h"
#include "runtime/delegate_geometry.h"

namespace edgec::xnnpack {
namespace {

using Reason = std::optional<std::string>;

std::string num(int64_t v) { return std::to_string(v); }

// ---- support checks: what each operator needs beyond static shapes and dtypes ----

// 2-D, and 1-D as 2-D over an image of height 1; conv_transpose the same
// way, as XNNPACK's deconvolution.
Reason check_conv(const CallView& call) {
  const size_t rank = call.inputs[0].size();
  if (rank != 3 && rank != 4)
    return std::string(call.op) + " of a rank-" + num(static_cast<int64_t>(rank)) +
           " input (XNNPACK's convolutions are 2-D, or 1-D as 2-D)";
  if (!call.constant[1])
    return std::string(call.op) + " weights (input 1) are not a constant (XNNPACK packs them at init)";
  if (call.inputs.size() > 2 && !call.constant[2])
    return std::string(call.op) + " bias (input 2) is not a constant (XNNPACK packs it at init)";
  if (!spatial_sizes_ok(call.attrs, {"stride", "dilation", "padding", "output_padding"}, rank - 2) ||
      !spatial_values_in(call.attrs, {"stride", "dilation", "padding", "output_padding"}, 0, INT32_MAX))
    return std::string(call.op) + " geometry out of XNNPACK's range";
  return std::nullopt;
}

// torch allows an output_padding below the stride or the dilation;
// XNNPACK's adjustment must be below the stride.
Reason check_conv_transpose(const CallView& call) {
  if (auto r = check_conv(call)) return r;
  const size_t nd = call.inputs[0].size() - 2;
  const auto s = spatial_ints(call.attrs, "stride", nd, 1), a = spatial_ints(call.attrs, "output_padding", nd, 0);
  for (size_t i = 0; i < nd; ++i)
    if (a[i] >= s[i]) return std::string("conv_transpose output_padding not below its stride (XNNPACK's adjustment)");
  return std::nullopt;
}

Reason check_matmul(const CallView& call) {
  const auto& w = call.inputs[1];
  if (call.inputs[0].empty()) return std::string("matmul of a scalar");
  if (w.size() != 2)
    return "matmul by a rank-" + num(static_cast<int64_t>(w.size())) +
           " operand (XNNPACK's fully connected takes 2-D weights)";
  if (!call.constant[1]) return std::string("matmul weights (input 1) are not a constant (XNNPACK packs them at init)");
  return std::nullopt;
}

Reason check_pool(const CallView& call) {
  const bool avg = call.op == "avg_pool";
  const auto& x = call.inputs[0];
  const auto& y = call.results[0];
  if (x.size() != 4)
    return std::string(call.op) + " of a rank-" + num(static_cast<int64_t>(x.size())) +
           " input (XNNPACK's pooling is 2-D)";
  if (!spatial_sizes_ok(call.attrs, {"kernel_size", "stride", "dilation", "padding"}, 2) ||
      !spatial_values_in(call.attrs, {"kernel_size", "stride", "dilation", "padding"}, 0, INT32_MAX))
    return std::string("pooling geometry out of XNNPACK's range");
  const auto k = spatial_ints(call.attrs, "kernel_size", 2, 1);
  const auto s = spatial_ints(call.attrs, "stride", 2, 0);
  const auto d = spatial_ints(call.attrs, "dilation", 2, 1);
  std::vector<int64_t> pb, pe;
  spatial_padding(call.attrs, 2, pb, pe);
  if (k[0] * k[1] == 1) return std::string("1x1 pooling window (XNNPACK takes none)");
  for (size_t i = 0; i < 2; ++i) {
    if (avg && d[i] != 1) return std::string("dilated avg_pool (XNNPACK's average pooling has no dilation)");
    // XNNPACK's average leaves the padding out of the divisor.
    if (avg && pb[i] + pe[i] > 0 && call.bool_attr("count_include_pad"))
      return std::string("avg_pool counting its padding (XNNPACK's average leaves padding out)");
    const int64_t stride = s[i] > 0 ? s[i] : k[i];
    if (pool_pad_right(x[2 + i], y[2 + i], k[i], stride, d[i], pb[i]) < 0)
      return std::string("pooling geometry XNNPACK cannot express (negative right padding)");
  }
  return std::nullopt;
}

Reason check_adaptive_pool(const CallView& call) {
  const auto& x = call.inputs[0];
  const auto& y = call.results[0];
  if (x.size() != 4) return "adaptive_avg_pool of a rank-" + num(static_cast<int64_t>(x.size())) + " input";
  for (size_t i = 2; i < 4; ++i)
    if (x[i] % y[i] != 0)
      return "adaptive_avg_pool output size " + num(y[i]) + " does not divide input size " + num(x[i]);
  if (x[2] == y[2] && x[3] == y[3]) return std::string("adaptive_avg_pool to the input's own size (a 1x1 window)");
  return std::nullopt;
}

// ONNX's GlobalAveragePool: a mean over H and W.
Reason check_mean(const CallView& call) {
  const auto& x = call.inputs[0];
  const std::vector<bool> reduced = reduced_dims(call.attrs, static_cast<int>(x.size()));
  if (x.size() != 4 || reduced != std::vector<bool>{false, false, true, true})
    return std::string("mean over other dims than H and W of a rank-4 value (XNNPACK's global average pooling)");
  return std::nullopt;
}

Reason check_upsample_bilinear(const CallView& call) {
  if (call.inputs[0].size() != 4)
    return "upsample_bilinear of a rank-" + num(static_cast<int64_t>(call.inputs[0].size())) +
           " input (XNNPACK's resize is 2-D)";
  return std::nullopt;
}

Reason check_resize(const CallView& call) {
  const auto& x = call.inputs[0];
  const auto& y = call.results[0];
  if (call.string_attr("mode") != "linear")
    return "resize mode " + std::string(call.string_attr("mode")) + " (XNNPACK resizes bilinearly only)";
  if (x.size() != 4 || x[0] != y[0] || x[1] != y[1]) return std::string("resize of other dims than H and W");
  const std::string_view coord = call.string_attr("coordinate_transformation_mode");
  if (coord != "half_pixel" && coord != "pytorch_half_pixel" && coord != "align_corners")
    return "resize coordinate_transformation_mode " + std::string(coord);
  // pytorch_half_pixel puts a one-pixel output at 0, half_pixel at the centre.
  if (coord == "pytorch_half_pixel" && (y[2] == 1 || y[3] == 1)) return std::string("resize to one pixel with pytorch_half_pixel");
  if (call.bool_attr("antialias")) return std::string("resize with antialias");
  // XNNPACK scales by in / out; ONNX by the scales given, the same only
  // when the output is the input times the scale exactly.
  if (const auto* scales = call.attrs.get_floats("scales"); scales && !scales->empty()) {
    const auto* axes = call.attrs.get_ints("axes");
    for (size_t i = 0; axes && i < axes->size() && i < scales->size(); ++i) {
      const auto a = static_cast<size_t>((*axes)[i]);
      if (a < 4 && static_cast<double>(x[a]) * (*scales)[i] != static_cast<double>(y[a]))
        return std::string("resize by a scale that does not give its output size exactly");
    }
  }
  return std::nullopt;
}

Reason check_softmax(const CallView& call) {
  const auto rank = static_cast<int64_t>(call.inputs[0].size());
  int64_t dim = call.int_attr("dim");
  if (dim < 0) dim += rank;
  if (rank == 0 || (dim != rank - 1 && !(rank == 4 && dim == 1)))
    return "softmax along dim " + num(dim) + " of rank " + num(rank) + " (XNNPACK's is over the last axis, or channels)";
  return std::nullopt;
}

Reason check_clamp(const CallView& call) {
  if (!(call.float_attr("min") < call.float_attr("max"))) return std::string("clamp with min >= max");
  return std::nullopt;
}

Reason check_binary(const CallView& call) {
  if (call.results[0].size() > XNN_MAX_TENSOR_DIMS)
    return "binary operator of rank " + num(static_cast<int64_t>(call.results[0].size())) + " (XNNPACK's reach " +
           num(XNN_MAX_TENSOR_DIMS) + ")";
  if (call.op == "div" && call.string_attr("rounding_mode") != "none")
    return "attribute rounding_mode " + std::string(call.string_attr("rounding_mode")) + " for div";
  return std::nullopt;
}

Reason check_concat(const CallView& call) {
  for (const auto& s : call.inputs)
    if (s.size() != call.results[0].size()) return std::string("concat of operands of different ranks");
  return std::nullopt;
}

// ---- the integer operators (runtime_quant.cpp) ----

bool is_8bit(DType t) { return t == DType::UInt8 || t == DType::Int8; }

std::string dt(DType t) { return std::string(dtype_name(t)); }

// Operands `scale` and `zp` (x's, w's or y's): constants (init reads them),
// an f32 scale and a zero point of dtype `zp_dtype` (8-bit, or any 8-bit
// when Undefined), one value or one per `channels` (a 1-D [C]).
Reason check_params(const CallView& call, const std::string& what, size_t scale, size_t zp, int64_t channels) {
  for (size_t i : {scale, zp}) {
    if (!call.constant[i])
      return what + (i == scale ? " scale" : " zero point") + " (input " + num(static_cast<int64_t>(i)) +
             ") is not a constant (XNNPACK takes the quantization parameters at init)";
    int64_t n = 1;
    for (int64_t v : call.inputs[i]) n *= v;
    if (n != 1 && !(channels > 1 && call.inputs[i].size() == 1 && n == channels))
      return what + (i == scale ? " scale" : " zero point") + " of shape " + shape_string(call.inputs[i]) +
             ", expected one value" + (channels > 1 ? " or one per channel (" + num(channels) + ")" : "");
  }
  if (call.dtypes[scale] != DType::Float32) return what + " scale of dtype " + dt(call.dtypes[scale]) + ", expected f32";
  if (!is_8bit(call.dtypes[zp])) return what + " zero point of dtype " + dt(call.dtypes[zp]) + ", expected u8 or i8";
  return std::nullopt;
}

// What qlinear_conv and qlinear_matmul share: operands 0-2 (x), 3-5 (w),
// 6-7 (y); the result's dtype is y's zero point's. x and y may be u8 or
// i8 in any pair (runtime_quant.cpp flips what its XNNPACK operator does
// not compute in); the weights' parameters are plan_quantized's.
Reason check_qlinear(const CallView& call, int64_t channels) {
  const std::string op(call.op);
  if (!is_8bit(call.dtypes[0])) return op + " input of dtype " + dt(call.dtypes[0]) + " (XNNPACK takes u8 or i8)";
  if (!is_8bit(call.dtypes[3])) return op + " weights of dtype " + dt(call.dtypes[3]) + " (XNNPACK takes u8 or i8)";
  if (!call.constant[3]) return op + " weights (input 3) are not a constant (XNNPACK packs them at init)";
  if (auto r = check_params(call, op + " x", 1, 2, 1)) return r;
  if (auto r = check_params(call, op + " w", 4, 5, channels)) return r;
  if (auto r = check_params(call, op + " y", 6, 7, 1)) return r;
  if (call.dtypes[2] != call.dtypes[0])
    return op + " x zero point of dtype " + dt(call.dtypes[2]) + " for an input of " + dt(call.dtypes[0]);
  if (call.dtypes[5] != call.dtypes[3])
    return op + " w zero point of dtype " + dt(call.dtypes[5]) + " for weights of " + dt(call.dtypes[3]);
  return std::nullopt;
}

// 2-D, and 1-D as 2-D over an image of height 1 (as conv); the bias, when
// present, an i32 constant of [Cout].
Reason check_qlinear_conv(const CallView& call) {
  if (call.inputs.size() < 8 || call.inputs.size() > 9)
    return "qlinear_conv with " + num(static_cast<int64_t>(call.inputs.size())) + " operands";
  const size_t rank = call.inputs[0].size();
  if ((rank != 3 && rank != 4) || call.inputs[3].size() != rank)
    return "qlinear_conv of a rank-" + num(static_cast<int64_t>(rank)) +
           " input (XNNPACK's convolutions are 2-D, or 1-D as 2-D)";
  if (auto r = check_qlinear(call, call.inputs[3][0])) return r;
  if (call.inputs.size() == 9 && !(call.inputs[8].size() == 1 && call.inputs[8][0] == 0)) {
    if (call.dtypes[8] != DType::Int32) return "qlinear_conv bias of dtype " + dt(call.dtypes[8]) + ", expected i32";
    if (!call.constant[8]) return std::string("qlinear_conv bias (input 8) is not a constant (XNNPACK packs it at init)");
  }
  if (!spatial_sizes_ok(call.attrs, {"stride", "dilation", "padding"}, rank - 2) ||
      !spatial_values_in(call.attrs, {"stride", "dilation", "padding"}, 0, INT32_MAX))
    return std::string("qlinear_conv geometry out of XNNPACK's range");
  return std::nullopt;
}

// By constant 2-D weights [K, N] (XNNPACK's fully connected, as a 1x1
// convolution over the rows).
Reason check_qlinear_matmul(const CallView& call) {
  if (call.inputs.size() != 8) return "qlinear_matmul with " + num(static_cast<int64_t>(call.inputs.size())) + " operands";
  const auto& b = call.inputs[3];
  if (call.inputs[0].size() < 2) return std::string("qlinear_matmul of a 1-D operand a");
  if (b.size() != 2)
    return "qlinear_matmul by a rank-" + num(static_cast<int64_t>(b.size())) +
           " operand b (XNNPACK's fully connected takes 2-D weights)";
  return check_qlinear(call, b[1]);
}

// ---- output ranges of the clamping operators ----

Range relu(const OpDecl&, const Attrs&) { return {0.f, std::numeric_limits<float>::infinity()}; }
Range clamp(const OpDecl& d, const Attrs& a) {
  return {static_cast<float>(declared_attr_of(&d, d.name, "min").float_value(a)),
          static_cast<float>(declared_attr_of(&d, d.name, "max").float_value(a))};
}

namespace rt = runtime::xnnpack;

// f16: what this snapshot has for f16 (operators of its own in the f16
// kernels' list); the others take f32 only.
OpRow row(std::string_view name, BuildFn build, SupportCheck check, bool f16) {
  return {name, check, build, nullptr, f16};
}
OpRow clamping(std::string_view name, RangeFn range, SupportCheck check = nullptr) {
  return {name, check, rt::build_unary, range, true};
}
OpRow view(std::string_view name) { return {name, nullptr, rt::build_view, nullptr, true, true}; }
OpRow quantized(std::string_view name, BuildFn build, SupportCheck check) {
  return {name, check, build, nullptr, false, false, true};
}

std::vector<OpRow> unsorted_rows() {
  return {
      row("conv", rt::build_conv, check_conv, true),
      row("conv_transpose", rt::build_conv_transpose, check_conv_transpose, true),
      row("matmul", rt::build_matmul, check_matmul, true),
      row("max_pool", rt::build_pool, check_pool, true),
      row("avg_pool", rt::build_pool, check_pool, false),
      row("adaptive_avg_pool", rt::build_adaptive_pool, check_adaptive_pool, false),
      row("mean", rt::build_mean, check_mean, true),
      row("upsample_bilinear", rt::build_resize, check_upsample_bilinear, true),
      row("resize", rt::build_resize, check_resize, true),
      row("softmax", rt::build_softmax, check_softmax, false),
      clamping("relu", relu),
      clamping("clamp", clamp, check_clamp),
      row("leaky_relu", rt::build_unary, nullptr, true),
      row("hardswish", rt::build_unary, nullptr, true),
      row("elu", rt::build_unary, nullptr, false),
      row("sigmoid", rt::build_unary, nullptr, false),
      row("abs", rt::build_unary, nullptr, false),
      row("neg", rt::build_unary, nullptr, false),
      row("floor", rt::build_unary, nullptr, false),
      row("ceil", rt::build_unary, nullptr, false),
      row("round", rt::build_unary, nullptr, false),
      row("sqrt", rt::build_unary, nullptr, false),
      row("add", rt::build_binary, check_binary, true),
      row("mul", rt::build_binary, check_binary, true),
      row("sub", rt::build_binary, check_binary, false),
      row("div", rt::build_binary, check_binary, false),
      row("maximum", rt::build_binary, check_binary, false),
      row("minimum", rt::build_binary, check_binary, false),
      row("concat", rt::build_concat, check_concat, true),
      row("clone", rt::build_clone, nullptr, true),
      view("reshape"), view("flatten"), view("squeeze"), view("unsqueeze"),
      quantized("qlinear_conv", rt::build_qlinear_conv, check_qlinear_conv),
      quantized("qlinear_matmul", rt::build_qlinear_matmul, check_qlinear_matmul),
  };
}

}  // namespace

std::span<const OpRow> op_table() {
  static const std::vector<OpRow> kRows = sorted_op_rows(unsorted_rows(), "xnnpack");
  return kRows;
}

const OpRow* find_op_row(std::string_view op) { return find_sorted_row(op_table(), op); }

std::optional<std::string> check_call(const OpRow& row, const CallView& call) {
  return row.check ? row.check(call) : std::nullopt;
}

std::optional<std::string> plan_quantized(std::string_view op, DType w_dtype, const std::vector<int32_t>& w_zp,
                                          const std::vector<float>& w_scale, float x_scale, float y_scale,
                                          int64_t channels, bool w_min, QuantPlan& plan) {
  const std::string name(op);
  auto usable = [](float s) { return s > 0 && std::isnormal(s); };
  if (!usable(x_scale) || !usable(y_scale))
    return name + " x or y scale " + std::to_string(usable(x_scale) ? y_scale : x_scale) +
           " (XNNPACK takes positive normal scales)";
  if (w_scale.empty() || w_zp.empty() || channels < 1) return name + " without weight scales or zero points";
  plan = {};
  plan.x_scale = x_scale;
  plan.y_scale = y_scale;
  for (int64_t c = 0; c < channels; ++c) {
    const float s = w_scale[w_scale.size() == 1 ? 0 : static_cast<size_t>(c)];
    if (!usable(s)) return name + " weight scale " + std::to_string(s) + " (XNNPACK takes positive normal scales)";
    // XNNPACK's limits on x_scale * w_scale / y_scale (its create refuses
    // 256 and above; its parameter setup asserts 2^-32 and above), with a
    // margin for its own order of operations.
    const float m = x_scale * s / y_scale;
    if (!(m >= 0x1.0p-31f && m < 255.f))
      return name + " requantization scale x_scale * w_scale / y_scale = " + std::to_string(m) + " at channel " +
             std::to_string(c) + " (XNNPACK takes [2^-31, 255))";
    plan.w_scale.push_back(s);
  }
  const int32_t zero = w_dtype == DType::UInt8 ? 128 : 0;  // The zero point qc8 takes, flipped or not.
  const bool symmetric = std::all_of(w_zp.begin(), w_zp.end(), [&](int32_t z) { return z == zero; });
  if (symmetric && !w_min) {
    plan.flip_weights = w_dtype == DType::UInt8;
    return std::nullopt;
  }
  const bool one_zp = std::all_of(w_zp.begin(), w_zp.end(), [&](int32_t z) { return z == w_zp[0]; });
  const bool one_scale = std::all_of(plan.w_scale.begin(), plan.w_scale.end(),
                                     [&](float s) { return s == plan.w_scale[0]; });
  if (symmetric && !one_scale)
    return name + " weights of dtype " + std::string(dtype_name(w_dtype)) + " holding " +
           (w_dtype == DType::UInt8 ? "0 with zero point 128" : "-128") +
           " with per-channel scales (XNNPACK's qc8 operators take weights in [-127, 127]: its ARM kernels sum "
           "pairs of products in int16; its qu8 ones one scale; ONNX Runtime's quantizer writes symmetric int8 "
           "weights in [-127, 127])";
  if (!one_zp || !one_scale)
    return name + " weights of dtype " + std::string(dtype_name(w_dtype)) + " with zero points other than " +
           std::to_string(zero) + " and " + (one_zp ? "per-channel scales" : "per-channel zero points") +
           " (XNNPACK's qc8 operators take symmetric weights, its qu8 ones one zero point and one scale; ONNX "
           "Runtime's quantizer writes symmetric int8 weights)";
  plan.qu8 = true;
  plan.flip_weights = w_dtype == DType::Int8;
  plan.w_zp = w_zp[0] + (plan.flip_weights ? 128 : 0);
  return std::nullopt;
}

bool holds_qc8_min(DType w_dtype, const std::vector<int32_t>& w_zp, const uint8_t* values, size_t n) {
  // What qc8 would see as -128: i8 -128 (0x80), or u8 0 (flipped to it;
  // only u8 weights with zero point 128 are flipped to qc8).
  const bool u8 = w_dtype == DType::UInt8;
  if (u8 && !std::all_of(w_zp.begin(), w_zp.end(), [](int32_t z) { return z == 128; })) return false;
  const uint8_t min = u8 ? 0x00 : 0x80;
  return std::find(values, values + n, min) != values + n;
}

}  // namespace edgec::xnnpack

// Convolution kernels over NCL / NCHW / NCDHW tensors with PyTorch semantics:
//   conv(x, w, bias?; stride, padding, dilation, groups)            w = [Cout, Cin/g, k...]
//   conv_transpose(x, w, bias?; stride, padding, output_padding,
//                  dilation, groups)                                w = [Cin, Cout/g, k...]
//
// They run on one engine, an implicit GEMM per group (kernels/conv_engine.h,
// which says how); this file checks operands and attributes and sets each
// operator up for it.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>

#include "kernels/conv_engine.h"
#include "kernels/conv_spatial.h"
#include "kernels/families.h"
#include "kernels/gemm.h"

namespace edgec {
namespace {

using spatial::axes_string;
using spatial::cat;
using conv_engine::ConvAxes;
using conv_engine::ConvAxis;
using conv_engine::ConvOperands;
using conv_engine::depthwise_conv;
using conv_engine::run_phase;

// ---- validation shared by conv and conv_transpose ----------------------------

// The attributes only the convolutions have, declared once: the rows at the
// end of this file and the kernels read them (stride, padding and dilation
// are conv_spatial.h's).
struct ConvDecls {
  AttrDecl groups = attr_int("groups", 1, AttrRule::Positive);
  AttrDecl output_padding = attr_ints("output_padding", AttrRule::NonNegative);
  // Set by the onednn backend on the convolutions whose weights it stores
  // in its own blocked layout (BackendCompiler::prepare_constants).
  AttrDecl weights_strides = attr_ints("weights_strides");
  AttrDecl weights_blocks = attr_ints("weights_blocks");
  AttrDecl weights_block_dims = attr_ints("weights_block_dims");
};

/// The window (kernel from the weights) and the other attributes, per axis
/// in 3-D coordinates.
struct ConvAttrs : spatial::Window {
  int64_t output_padding[spatial::kAxes] = {0, 0, 0};
  int64_t groups = 1;
};

/// Checks operand count, dtypes and ranks, and reads the attributes.
Error read_conv_common(std::string_view op, std::span<const Tensor> inputs, const Attrs& attrs,
                       std::span<Tensor> outputs, ConvAttrs& ca) {
  if (inputs.size() < 2 || inputs.size() > 3 || outputs.size() != 1) {
    return fail(Error::InvalidArgument, cat(op, ": expected inputs (x, w) or (x, w, bias) and 1 output, got ",
                                            inputs.size(), " inputs and ", outputs.size(), " outputs"));
  }
  const Tensor& x = inputs[0];
  const Tensor& w = inputs[1];
  if (!kFloatDTypes.contains(x.dtype)) {
    return fail(Error::InvalidType, cat(op, ": expected an f32 or f16 input, got ", dtype_name(x.dtype)));
  }
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i].dtype != x.dtype) {
      return fail(Error::InvalidType, cat(op, ": ", i == 1 ? "weight" : "bias", " dtype ",
                                          dtype_name(inputs[i].dtype), " does not match the input's ",
                                          dtype_name(x.dtype)));
    }
  }
  if (outputs[0].dtype != x.dtype) {
    return fail(Error::InvalidType, cat(op, ": output dtype must match the input's ", dtype_name(x.dtype),
                                        ", got ", dtype_name(outputs[0].dtype)));
  }
  if (x.rank < 3 || x.rank > 5) {
    return fail(Error::InvalidShape, cat(op,
                                         ": expected a rank-3 (N, C, L), rank-4 (N, C, H, W) or rank-5 (N, C, D, H, W) "
                                         "input, got shape ",
                                         shape_string(x.shape())));
  }
  if (w.rank != x.rank) {
    return fail(Error::InvalidShape, cat(op, ": weight ", shape_string(w.shape()), " must have the input's rank ",
                                         x.rank, " (input ", shape_string(x.shape()), ")"));
  }
  ca.nd = x.rank - 2;
  for (int i = 0; i < ca.nd; ++i) {
    const int64_t k = w.sizes[2 + i];
    if (k < 1 || k > spatial::kMaxAttrValue) {
      return fail(Error::InvalidShape, cat(op, ": weight ", shape_string(w.shape()), " has an empty kernel"));
    }
    ca.kernel[spatial::kAxes - ca.nd + i] = k;
  }
  EDGEC_TRY(spatial::read_axis_ints(op, attrs, declared<spatial::SharedDecls>().stride, ca.nd, 1, ca.stride));
  EDGEC_TRY(spatial::read_axis_ints(op, attrs, declared<spatial::SharedDecls>().dilation, ca.nd, 1, ca.dilation));
  EDGEC_TRY(spatial::read_padding(op, attrs, ca.nd, ca.pad_begin, ca.pad_end));
  // Only an int: the declaration's reader would also take a bool.
  const AttrDecl& groups = declared<ConvDecls>().groups;
  if (const AttrValue* g = attrs.find(groups.name); g != nullptr && attr_kind(*g) != AttrKind::Int) {
    return fail(Error::InvalidArgument,
                cat(op, ": attribute '", groups.name, "' must be an int, got ", attr_kind_name(attr_kind(*g))));
  }
  ca.groups = groups.int_value(attrs);
  if (ca.groups < 1) {
    return fail(Error::InvalidArgument, cat(op, ": ", groups.name, " must be >= 1, got ", ca.groups));
  }
  return Error::Ok;
}

Error check_bias(std::string_view op, std::span<const Tensor> inputs, int64_t cout) {
  if (inputs.size() < 3) return Error::Ok;
  const Tensor& b = inputs[2];
  if (b.rank != 1 || b.sizes[0] != cout) {
    return fail(Error::InvalidShape, cat(op, ": bias must have shape [", cout, "] (output channels), got ",
                                         shape_string(b.shape())));
  }
  return Error::Ok;
}

/// Fills the fields of ConvOperands that do not depend on the operator (all
/// but the weights' per-group, output-channel and input-channel steps and
/// the channel counts per group).
template <typename T>
ConvOperands<T> base_operands(const ConvAttrs& ca, std::span<const Tensor> inputs, const Tensor& x5,
                              const Tensor& w5, const int64_t out_dhw[3], Tensor& out) {
  ConvOperands<T> op;
  op.x = x5.data_as<T>();
  for (int i = 0; i < 5; ++i) op.x_stride[i] = x5.strides[i];
  op.in_d = x5.sizes[2];
  op.in_h = x5.sizes[3];
  op.in_w = x5.sizes[4];
  op.w = w5.data_as<T>();
  op.w_z = w5.strides[2];
  op.w_y = w5.strides[3];
  op.w_x = w5.strides[4];
  if (inputs.size() == 3) {
    op.bias = inputs[2].data_as<T>();
    op.bias_stride = inputs[2].strides[0];
  }
  op.out = out.data_as<T>();
  op.out_d = out_dhw[0];
  op.out_h = out_dhw[1];
  op.out_w = out_dhw[2];
  op.groups = ca.groups;
  return op;
}

/// The typed body of conv or conv_transpose, on the 3-D views of x and w.
using TypedConv = void (*)(const ConvAttrs& ca, std::span<const Tensor> inputs, const Tensor& x5, const Tensor& w5,
                           int64_t cout, const int64_t out_dhw[3], Tensor& out, int max_threads);

/// Sizes the output [N, cout, out_dhw...] and runs the f32 or f16 body.
Error run_conv(const ConvAttrs& ca, std::span<const Tensor> inputs, int64_t cout, const int64_t out_dhw[3],
               Tensor& out, int max_threads, TypedConv f32, TypedConv f16) {
  const Tensor& x = inputs[0];
  EDGEC_TRY(spatial::resize_spatial(x, cout, out_dhw, ca.nd, out));
  const Tensor x5 = spatial::lift_to_3d(x);
  const Tensor w5 = spatial::lift_to_3d(inputs[1]);
  (x.dtype == DType::Float32 ? f32 : f16)(ca, inputs, x5, w5, cout, out_dhw, out, max_threads);
  return Error::Ok;
}

// ---- conv -------------------------------------------------------------------

template <typename T>
void conv_typed(const ConvAttrs& ca, std::span<const Tensor> inputs, const Tensor& x5,
                const Tensor& w5, int64_t cout, const int64_t out_dhw[3], Tensor& out, int max_threads) {
  ConvOperands<T> op = base_operands<T>(ca, inputs, x5, w5, out_dhw, out);
  op.cig = w5.sizes[1];
  op.cog = cout / ca.groups;
  op.w_group = op.cog * w5.strides[0];
  op.w_m = w5.strides[0];
  op.w_ci = w5.strides[1];
  ConvAxes axis;
  for (int a = 0; a < 3; ++a) {
    axis[a].count = out_dhw[a];
    axis[a].in_step = ca.stride[a];
    axis[a].off0 = -ca.pad_begin[a];
    axis[a].off_step = ca.dilation[a];
    axis[a].taps = ca.kernel[a];
  }
  if (op.cig == 1) {
    if (ca.nd == 3) {
      depthwise_conv<T, true>(op, axis, x5.sizes[0], max_threads);
    } else {
      depthwise_conv<T, false>(op, axis, x5.sizes[0], max_threads);
    }
  } else {
    run_phase(op, axis, x5.sizes[0], max_threads);
  }
}

Error conv(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
           std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "conv";
  ConvAttrs ca;
  EDGEC_TRY(read_conv_common(kOp, inputs, attrs, outputs, ca));
  const Tensor& x = inputs[0];
  const Tensor& w = inputs[1];
  const int64_t cin = x.sizes[1];
  const int64_t cout = w.sizes[0];
  if (cin % ca.groups != 0 || cout % ca.groups != 0) {
    return fail(Error::InvalidShape, cat(kOp, ": groups ", ca.groups, " must divide both the input channels ",
                                         cin, " and the output channels ", cout));
  }
  if (w.sizes[1] * ca.groups != cin) {
    return fail(Error::InvalidShape, cat(kOp, ": weight ", shape_string(w.shape()), " expects ",
                                         w.sizes[1] * ca.groups, " input channels (", w.sizes[1], " per group x ",
                                         ca.groups, " groups), but the input ", shape_string(x.shape()), " has ",
                                         cin));
  }
  EDGEC_TRY(check_bias(kOp, inputs, cout));
  int64_t out_dhw[3] = {1, 1, 1};
  for (int a = spatial::kAxes - ca.nd; a < spatial::kAxes; ++a) {
    const int64_t in = x.sizes[a - (spatial::kAxes - ca.nd) + 2];
    const int64_t span = ca.dilation[a] * (ca.kernel[a] - 1) + 1;
    const int64_t padded = in + ca.pad_begin[a] + ca.pad_end[a];
    if (padded < span) {
      return fail(Error::InvalidShape, cat(kOp, ": kernel ", axes_string(ca.kernel, ca.nd), " (dilation ",
                                           axes_string(ca.dilation, ca.nd), ") is larger than the input ",
                                           shape_string(x.shape()), " padded by ", axes_string(ca.pad_begin, ca.nd),
                                           " + ", axes_string(ca.pad_end, ca.nd)));
    }
    out_dhw[a] = (padded - span) / ca.stride[a] + 1;
  }
  return run_conv(ca, inputs, cout, out_dhw, outputs[0], ctx.num_threads, conv_typed<float>, conv_typed<Half>);
}

// ---- conv_transpose -------------------------------------------------------------

/// The phase of output residue `r` (coordinates o with (o + pad_begin) % stride
/// == r) along one axis: which outputs it covers, which taps reach them and
/// from where. An output o = i * s - pb + t * d receives input i through tap
/// t, so t * d must be congruent to r modulo s; those taps form an arithmetic
/// progression with period s / gcd(s, d).
ConvAxis transpose_phase(int64_t r, int64_t out, int64_t k, int64_t s, int64_t d,
                         int64_t pb) {
  ConvAxis axis;
  axis.out_step = s;
  axis.in_step = 1;
  axis.out0 = ((r - pb) % s + s) % s;
  axis.count = axis.out0 < out ? (out - 1 - axis.out0) / s + 1 : 0;
  const int64_t gcd = std::gcd(s, d);
  const int64_t period = s / gcd;
  int64_t t0 = 0;
  while (t0 < period && (t0 * d) % s != r) ++t0;
  if (t0 == period || t0 >= k) {
    axis.taps = 0;  // no tap reaches this phase: bias only
  } else {
    axis.taps = (k - 1 - t0) / period + 1;
  }
  axis.w0 = t0 < k ? t0 : 0;
  axis.w_step = period;
  // i = a + (out0 + pb - t0 * d) / s - u * d / gcd for tap t = t0 + u * period.
  axis.off0 = (axis.out0 + pb - t0 * d) / s;  // exact: out0 + pb and t0 * d are both = r (mod s)
  axis.off_step = -(d / gcd);
  return axis;
}

template <typename T>
void conv_transpose_typed(const ConvAttrs& ca, std::span<const Tensor> inputs, const Tensor& x5,
                          const Tensor& w5, int64_t cout, const int64_t out_dhw[3], Tensor& out,
                          int max_threads) {
  ConvOperands<T> op = base_operands<T>(ca, inputs, x5, w5, out_dhw, out);
  op.cig = x5.sizes[1] / ca.groups;
  op.cog = cout / ca.groups;
  op.w_group = op.cig * w5.strides[0];
  op.w_m = w5.strides[1];
  op.w_ci = w5.strides[0];
  for (int64_t rz = 0; rz < ca.stride[0]; ++rz) {
    for (int64_t ry = 0; ry < ca.stride[1]; ++ry) {
      for (int64_t rx = 0; rx < ca.stride[2]; ++rx) {
        ConvAxes axis;
        const int64_t r[3] = {rz, ry, rx};
        for (int a = 0; a < 3; ++a) {
          axis[a] = transpose_phase(r[a], out_dhw[a], ca.kernel[a], ca.stride[a], ca.dilation[a], ca.pad_begin[a]);
        }
        run_phase(op, axis, x5.sizes[0], max_threads);
      }
    }
  }
}

Error conv_transpose(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                     std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "conv_transpose";
  ConvAttrs ca;
  EDGEC_TRY(read_conv_common(kOp, inputs, attrs, outputs, ca));
  EDGEC_TRY(spatial::read_axis_ints(kOp, attrs, declared<ConvDecls>().output_padding, ca.nd, 0, ca.output_padding));
  const Tensor& x = inputs[0];
  const Tensor& w = inputs[1];
  const int64_t cin = x.sizes[1];
  if (w.sizes[0] != cin) {
    return fail(Error::InvalidShape, cat(kOp, ": weight ", shape_string(w.shape()), " expects ", w.sizes[0],
                                         " input channels, but the input ", shape_string(x.shape()), " has ", cin));
  }
  if (cin % ca.groups != 0) {
    return fail(Error::InvalidShape, cat(kOp, ": groups ", ca.groups, " must divide the input channels ", cin));
  }
  const int64_t cout = w.sizes[1] * ca.groups;
  EDGEC_TRY(check_bias(kOp, inputs, cout));
  int64_t out_dhw[3] = {1, 1, 1};
  for (int a = spatial::kAxes - ca.nd; a < spatial::kAxes; ++a) {
    // torch: output padding only selects among the sizes a strided conv
    // could have come from, so it must stay below stride or dilation.
    if (ca.output_padding[a] >= std::max(ca.stride[a], ca.dilation[a])) {
      return fail(Error::InvalidArgument, cat(kOp, ": output_padding ", axes_string(ca.output_padding, ca.nd),
                                              " must be smaller than stride ", axes_string(ca.stride, ca.nd),
                                              " or dilation ", axes_string(ca.dilation, ca.nd)));
    }
    const int64_t in = x.sizes[a - (spatial::kAxes - ca.nd) + 2];
    out_dhw[a] = (in - 1) * ca.stride[a] - ca.pad_begin[a] - ca.pad_end[a] +
                 ca.dilation[a] * (ca.kernel[a] - 1) + ca.output_padding[a] + 1;
    if (in < 1 || out_dhw[a] < 1) {
      return fail(Error::InvalidShape, cat(kOp, ": input ", shape_string(x.shape()), " with kernel ",
                                           axes_string(ca.kernel, ca.nd), " and padding ",
                                           axes_string(ca.pad_begin, ca.nd), " + ", axes_string(ca.pad_end, ca.nd),
                                           " gives an empty output"));
    }
  }
  return run_conv(ca, inputs, cout, out_dhw, outputs[0], ctx.num_threads, conv_transpose_typed<float>,
                  conv_transpose_typed<Half>);
}


}  // namespace

std::span<const KernelEntry> convolution_kernels() {
  const spatial::SharedDecls& s = declared<spatial::SharedDecls>();
  const ConvDecls& c = declared<ConvDecls>();
  const std::vector<OperandDecl> operands = {{"input"}, {"weight"}, {"bias", OperandKind::Optional}};
  static const KernelEntry kConvolutionKernels[] = {
      {declare("conv", "nn", operands,
               {s.stride, s.padding, s.dilation, c.groups, c.weights_strides, c.weights_blocks, c.weights_block_dims},
               kFloatDTypes, 0, "1-d / 2-d / 3-d convolution (NCL / NCHW / NCDHW), weight [Cout, Cin/groups, k...]"),
       conv},
      {declare("conv_transpose", "nn", operands, {s.stride, s.padding, c.output_padding, s.dilation, c.groups},
               kFloatDTypes, 0, "1-d / 2-d / 3-d transposed convolution, weight [Cin, Cout/groups, k...]"),
       conv_transpose},
  };
  return kConvolutionKernels;
}

}  // namespace edgec

// Shape functions of the quantized family's standard operators (declared
// with their kernels in src/kernels/quantized.cpp, quantized_conv.cpp and
// quantized_matmul.cpp). These are the verifier's rules for quantization
// parameters (docs/semantics.md §9.1, §9.2): a scale is f32, a scalar [] or
// 1-D [1] (per tensor) or 1-D [C] (per axis, C the size of the quantized
// axis); a zero point has its scale's shape and the quantized tensor's
// dtype; a bias is i32 [Cout]. The convolutions' and matmuls' result shapes
// are conv's and matmul's (asked of their rows on f32 stand-ins), so the
// window and broadcast rules cannot drift apart.
#include <string>
#include <vector>

#include "ops/op_rows.h"

namespace edgec::ops {
namespace {

std::string num(int64_t v) { return std::to_string(v); }

bool is_quant(DType d) { return d == DType::Int8 || d == DType::UInt8; }

/// Requires between lo and hi inputs.
void expect_inputs_between(const ShapeQuery& q, size_t lo, size_t hi) {
  if (q.inputs.size() < lo || q.inputs.size() > hi)
    op_error(q.op, "expected " + num(static_cast<int64_t>(lo)) + " to " + num(static_cast<int64_t>(hi)) +
                       " tensor inputs, got " + num(static_cast<int64_t>(q.inputs.size())));
}

void expect_quant(const ShapeQuery& q, const TensorType& t, const std::string& what) {
  if (!is_quant(t.dtype)) op_error(q.op, "expected " + what + " of dtype i8 or u8, got " + t.str());
}

/// How many entries a 1-D parameter has when static, else -1.
int64_t static_len(const TensorType& t) { return t.rank() == 1 && t.dims[0].is_static() ? t.dims[0].value : -1; }

/// Checks one scale (when `scale` >= 0, its operand index) and one zero
/// point (when `zp` >= 0) of the tensor `what`: a scalar or [1] (per tensor),
/// or [channels] when `channels` is given (per `per`); the zero point of
/// dtype `zp_dtype` and of the scale's shape.
void expect_params(const ShapeQuery& q, int scale, int zp, DType zp_dtype, const std::string& what,
                   const Dim* channels, const std::string& per) {
  const int first = scale >= 0 ? scale : zp;
  if (first < 0) return;
  const std::string kind = scale >= 0 ? "_scale" : "_zero_point";
  const TensorType& p = q.inputs[first];
  if (scale >= 0 && p.dtype != DType::Float32)
    op_error(q.op, "expected " + what + "_scale of dtype f32, got " + p.str());
  const std::string allowed = channels != nullptr
                                  ? "a scalar or [1] (per tensor) or [" + channels->str() + "] (one per " + per + ")"
                                  : "a scalar or [1] (per tensor)";
  if (p.rank() > 1) op_error(q.op, "expected " + what + kind + " to be " + allowed + ", got " + p.str());
  if (p.rank() == 1) {
    const int64_t n = static_len(p);
    const bool per_tensor = n == 1;
    const bool per_axis = channels != nullptr &&
                          (!channels->is_static() || n < 0 || n == channels->value);
    if (!per_tensor && !per_axis) op_error(q.op, "expected " + what + kind + " to be " + allowed + ", got " + p.str());
  }
  if (scale >= 0 && zp >= 0) {
    const TensorType& z = q.inputs[zp];
    if (z.dtype != zp_dtype)
      op_error(q.op, "expected " + what + "_zero_point of dtype " + std::string(dtype_name(zp_dtype)) + " (" + what +
                         "'s), got " + z.str());
    if (z.dims != p.dims)
      op_error(q.op, "expected " + what + "_zero_point of " + what + "_scale's shape " + p.str() + ", got " + z.str());
  } else if (zp >= 0 && q.inputs[zp].dtype != zp_dtype) {
    op_error(q.op, "expected " + what + "_zero_point of dtype " + std::string(dtype_name(zp_dtype)) + " (" + what +
                       "'s), got " + q.inputs[zp].str());
  }
}

/// The dim a per-axis parameter of x runs along (nullptr when the scale is
/// per tensor); throws for an axis out of range.
const Dim* axis_dim(const ShapeQuery& q, const TensorType& x, const TensorType& scale) {
  if (scale.rank() != 1 || static_len(scale) == 1) return nullptr;
  const int64_t axis = int_attr(q, "axis");
  if (x.rank() == 0 || axis < -x.rank() || axis >= x.rank())
    op_error(q.op, "expected axis in [" + num(-x.rank()) + ", " + num(x.rank() - 1) + "] for input " + x.str() +
                       " (a per-axis scale), got " + num(axis));
  return &x.dims[axis < 0 ? axis + x.rank() : axis];
}

std::vector<TensorType> quantize_linear_shape(const ShapeQuery& q) {
  expect_inputs_between(q, 2, 3);
  const TensorType& x = q.inputs[0];
  expect_dtype(q, x, q.decl->dtypes, "x");
  DType out = q.attr("dtype").dtype_value(q.attrs);
  if (q.inputs.size() == 3) {
    const DType zp = q.inputs[2].dtype;
    if (q.attrs.find("dtype") != nullptr && out != zp)
      op_error(q.op, "expected attribute dtype " + std::string(dtype_name(out)) + " to equal y_zero_point's dtype, got " +
                         q.inputs[2].str());
    out = zp;
  }
  if (!is_quant(out))
    op_error(q.op, "expected a result of dtype i8 or u8 (the zero point's, or attribute dtype), got " +
                       std::string(dtype_name(out)));
  const Dim* channels = axis_dim(q, x, q.inputs[1]);
  expect_params(q, 1, q.inputs.size() == 3 ? 2 : -1, out, "y", channels, "index of the axis");
  return {TensorType(out, x.dims)};
}

std::vector<TensorType> dequantize_linear_shape(const ShapeQuery& q) {
  expect_inputs_between(q, 2, 3);
  const TensorType& x = q.inputs[0];
  expect_dtype(q, x, q.decl->dtypes, "x");
  const Dim* channels = axis_dim(q, x, q.inputs[1]);
  expect_params(q, 1, q.inputs.size() == 3 ? 2 : -1, x.dtype, "x", channels, "index of the axis");
  return {TensorType(DType::Float32, x.dims)};
}

std::vector<TensorType> dynamic_quantize_linear_shape(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  expect_dtype(q, x, q.decl->dtypes, "x");
  return {TensorType(DType::UInt8, x.dims), TensorType(DType::Float32, {}), TensorType(DType::UInt8, {})};
}

/// conv's result shape for x and w (i8 or u8), asked of conv's row on f32
/// stand-ins with the call's window attributes.
TensorType conv_result(const ShapeQuery& q, const TensorType& x, const TensorType& w, DType dtype) {
  expect_quant(q, x, "x");
  expect_quant(q, w, "w");
  const OpInfo* conv = find_op_by_name("conv");
  const std::vector<TensorType> operands = {TensorType(DType::Float32, x.dims), TensorType(DType::Float32, w.dims)};
  const std::vector<OperandGroup> groups(operands.size());
  TensorType out = conv->shape(ShapeQuery{q.op, operands, groups, q.attrs, conv})[0];
  out.dtype = dtype;
  return out;
}

std::vector<TensorType> conv_integer_shape(const ShapeQuery& q) {
  expect_inputs_between(q, 2, 4);
  const TensorType& x = q.inputs[0];
  const TensorType& w = q.inputs[1];
  TensorType out = conv_result(q, x, w, DType::Int32);
  if (q.inputs.size() > 2) expect_params(q, -1, 2, x.dtype, "x", nullptr, "");
  if (q.inputs.size() > 3) expect_params(q, -1, 3, w.dtype, "w", &w.dims[0], "output channel");
  return {out};
}

/// The weights' type: operand 3, or, where the onednn backend stored them
/// flat in its own layout (attribute weights_shape, docs/semantics.md §6.5),
/// an i8 of that shape, the operand being i8 [bytes] of at least its size.
TensorType weights_of(const ShapeQuery& q) {
  const TensorType& w = q.inputs[3];
  const std::vector<int64_t>* shape = q.attrs.get_ints("weights_shape");
  if (shape == nullptr) return w;
  Dims dims;
  int64_t n = 1;
  for (int64_t d : *shape) {
    if (d < 1 || d > (int64_t{1} << 40) / n) op_error(q.op, "expected weights_shape of positive dims");
    dims.push_back(Dim::fixed(d));
    n *= d;
  }
  const TensorType stored(DType::Int8, dims);
  if (w.dtype != DType::Int8 || w.rank() != 1 || !w.dims[0].is_static() || w.dims[0].value < n)
    op_error(q.op, "expected weights stored in oneDNN's layout (weights_shape of " + stored.str() +
                       ") as i8 [bytes] of at least " + num(n) + " bytes, got " + w.str());
  return stored;
}

std::vector<TensorType> qlinear_conv_shape(const ShapeQuery& q) {
  expect_inputs_between(q, 8, 9);
  const TensorType& x = q.inputs[0];
  const TensorType w = weights_of(q);
  const DType out_dtype = q.inputs[7].dtype;
  if (!is_quant(out_dtype)) op_error(q.op, "expected y_zero_point of dtype i8 or u8, got " + q.inputs[7].str());
  TensorType out = conv_result(q, x, w, out_dtype);
  expect_params(q, 1, 2, x.dtype, "x", nullptr, "");
  expect_params(q, 4, 5, w.dtype, "w", &w.dims[0], "output channel");
  expect_params(q, 6, 7, out_dtype, "y", nullptr, "");
  if (q.inputs.size() == 9) {
    const TensorType& b = q.inputs[8];
    const Dim& cout = w.dims[0];
    if (b.dtype != DType::Int32 || b.rank() != 1 ||
        (cout.is_static() && b.dims[0].is_static() && b.dims[0].value != cout.value))
      op_error(q.op, "expected bias of dtype i32 and shape [" + cout.str() + "] (output channels), got " + b.str());
  }
  return {out};
}

/// matmul's result shape for a and b (i8 or u8), asked of matmul's row on
/// f32 stand-ins; `rows` and `cols` get the dims M and N (nullptr for a 1-D
/// operand's promoted one).
TensorType matmul_result(const ShapeQuery& q, const TensorType& a, const TensorType& b, DType dtype, const Dim*& rows,
                         const Dim*& cols) {
  expect_quant(q, a, "a");
  expect_quant(q, b, "b");
  const OpInfo* matmul = find_op_by_name("matmul");
  const std::vector<TensorType> operands = {TensorType(DType::Float32, a.dims), TensorType(DType::Float32, b.dims)};
  const std::vector<OperandGroup> groups(operands.size());
  TensorType out = matmul->shape(ShapeQuery{q.op, operands, groups, Attrs(), matmul})[0];
  out.dtype = dtype;
  rows = a.rank() >= 2 ? &a.dims[a.rank() - 2] : nullptr;
  cols = b.rank() >= 2 ? &b.dims[b.rank() - 1] : nullptr;
  return out;
}

std::vector<TensorType> matmul_integer_shape(const ShapeQuery& q) {
  expect_inputs_between(q, 2, 4);
  const TensorType& a = q.inputs[0];
  const TensorType& b = q.inputs[1];
  const Dim* rows = nullptr;
  const Dim* cols = nullptr;
  TensorType out = matmul_result(q, a, b, DType::Int32, rows, cols);
  if (q.inputs.size() > 2) expect_params(q, -1, 2, a.dtype, "a", rows, "row of a");
  if (q.inputs.size() > 3) expect_params(q, -1, 3, b.dtype, "b", cols, "column of b");
  return {out};
}

std::vector<TensorType> qlinear_matmul_shape(const ShapeQuery& q) {
  expect_inputs(q, 8);
  const TensorType& a = q.inputs[0];
  const TensorType b = weights_of(q);
  const DType out_dtype = q.inputs[7].dtype;
  if (!is_quant(out_dtype)) op_error(q.op, "expected y_zero_point of dtype i8 or u8, got " + q.inputs[7].str());
  const Dim* rows = nullptr;
  const Dim* cols = nullptr;
  TensorType out = matmul_result(q, a, b, out_dtype, rows, cols);
  expect_params(q, 1, 2, a.dtype, "a", nullptr, "");
  expect_params(q, 4, 5, b.dtype, "b", cols, "column of b");
  expect_params(q, 6, 7, out_dtype, "y", nullptr, "");
  return {out};
}

}  // namespace

std::vector<std::pair<std::string_view, ShapeFn>> quantized_shapes() {
  return {{"quantize_linear", quantize_linear_shape},
          {"dequantize_linear", dequantize_linear_shape},
          {"dynamic_quantize_linear", dynamic_quantize_linear_shape},
          {"conv_integer", conv_integer_shape},
          {"qlinear_conv", qlinear_conv_shape},
          {"matmul_integer", matmul_integer_shape},
          {"qlinear_matmul", qlinear_matmul_shape}};
}

}  // namespace edgec::ops

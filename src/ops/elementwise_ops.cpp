// Shape functions of the elementwise family (numpy broadcasting, one dtype
// across tensor operands: importers insert casts; comparisons give bool):
// the rules that most elementwise operators declare (ResultRule), with the
// dtypes of their declarations (src/kernels/elementwise*.cpp), and the few
// custom ones (div, gelu, where, cast).
#include <cmath>

#include "ops/op_rows.h"

namespace edgec::ops {
namespace {

const DTypeSet kBool = {DType::Bool};

void expect_same_dtype(const ShapeQuery& q, const TensorType& a, const TensorType& b) {
  if (a.dtype != b.dtype)
    op_error(q.op, "operands must have one dtype, got " + std::string(dtype_name(a.dtype)) + " and " +
                       std::string(dtype_name(b.dtype)));
}

// Binary rule: both operands of one of the declared dtypes (or the given
// ones), broadcast; the result is theirs, or bool for comparisons.
template <bool ToBool>
std::vector<TensorType> binary_of(const ShapeQuery& q, DTypeSet allowed) {
  expect_inputs(q, 2);
  expect_dtype(q, q.inputs[0], allowed, "input 0");
  expect_same_dtype(q, q.inputs[0], q.inputs[1]);
  return {TensorType(ToBool ? DType::Bool : q.inputs[0].dtype, broadcast_dims(q, q.inputs[0].dims, q.inputs[1].dims))};
}

template <bool ToBool>
std::vector<TensorType> binary(const ShapeQuery& q) {
  return binary_of<ToBool>(q, q.decl->dtypes);
}

// Unary rule: input 0 of one of the declared dtypes; the result has its
// type, or bool of its shape for predicates.
template <bool ToBool>
std::vector<TensorType> unary(const ShapeQuery& q) {
  expect_inputs(q, 1);
  expect_dtype(q, q.inputs[0], q.decl->dtypes, "input");
  return {TensorType(ToBool ? DType::Bool : q.inputs[0].dtype, q.inputs[0].dims)};
}

std::vector<TensorType> div_shape(const ShapeQuery& q) {
  auto out = binary<false>(q);
  const std::string_view mode = q.attr("rounding_mode").string_value(q.attrs);
  if (mode != "none" && mode != "trunc" && mode != "floor")
    op_error(q.op, "rounding_mode must be none, trunc or floor, got '" + std::string(mode) + "'");
  if (mode == "none" && !is_floating(q.inputs[0].dtype))
    op_error(q.op, "rounding_mode 'none' expected float inputs, got " + std::string(dtype_name(q.inputs[0].dtype)));
  return out;
}

std::vector<TensorType> gelu_shape(const ShapeQuery& q) {
  const std::string_view mode = q.attr("approximate").string_value(q.attrs);
  if (mode != "none" && mode != "tanh")
    op_error(q.op, "approximate must be none or tanh, got '" + std::string(mode) + "'");
  return unary<false>(q);
}

std::vector<TensorType> where_shape(const ShapeQuery& q) {
  expect_inputs(q, 3);
  expect_dtype(q, q.inputs[0], kBool, "condition");
  expect_same_dtype(q, q.inputs[1], q.inputs[2]);
  auto dims = broadcast_dims(q, q.inputs[0].dims, q.inputs[1].dims);
  return {TensorType(q.inputs[1].dtype, broadcast_dims(q, dims, q.inputs[2].dims))};
}

std::vector<TensorType> cast_shape(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const AttrDecl& dtype = q.attr("dtype");
  if (!q.attrs.has(dtype.name)) op_error(q.op, "expected a dtype attribute");
  return {TensorType(dtype.dtype_value(q.attrs), q.inputs[0].dims)};
}

}  // namespace

ShapeFn rule_shape(ResultRule rule) {
  switch (rule) {
    case ResultRule::SameAsInput: return unary<false>;
    case ResultRule::SameShapeBool: return unary<true>;
    case ResultRule::Broadcast: return binary<false>;
    case ResultRule::BroadcastToBool: return binary<true>;
    case ResultRule::Custom: return nullptr;
  }
  return nullptr;
}

std::vector<std::pair<std::string_view, ShapeFn>> elementwise_shapes() {
  return {{"div", div_shape}, {"gelu", gelu_shape}, {"where", where_shape}, {"cast", cast_shape}};
}

}  // namespace edgec::ops

// Operator-table rows of the elementwise family: numpy broadcasting, one
// dtype across tensor operands (importers insert casts), comparisons give
// bool. The dtype sets mirror the kernels in src/kernels/elementwise*.cpp.
#include <cmath>

#include "ops/op_rows.h"

namespace edgec::ops {
namespace {

constexpr std::initializer_list<DType> kNumeric = {DType::Float32, DType::Float16, DType::Int64,
                                                   DType::Int32,   DType::Int8,    DType::UInt8};
constexpr std::initializer_list<DType> kAll = {DType::Float32, DType::Float16, DType::Int64, DType::Int32,
                                               DType::Int8,    DType::UInt8,   DType::Bool};
constexpr std::initializer_list<DType> kFloat = {DType::Float32, DType::Float16};
constexpr std::initializer_list<DType> kBool = {DType::Bool};

void expect_same_dtype(const ShapeQuery& q, const TensorType& a, const TensorType& b) {
  if (a.dtype != b.dtype)
    op_error(q.op, "operands must have one dtype, got " + std::string(dtype_name(a.dtype)) + " and " +
                       std::string(dtype_name(b.dtype)));
}

template <const std::initializer_list<DType>& Allowed, bool ToBool>
std::vector<TensorType> binary(const ShapeQuery& q) {
  expect_inputs(q, 2);
  expect_dtype(q, q.inputs[0], Allowed, "input 0");
  expect_same_dtype(q, q.inputs[0], q.inputs[1]);
  return {TensorType(ToBool ? DType::Bool : q.inputs[0].dtype, broadcast_dims(q, q.inputs[0].dims, q.inputs[1].dims))};
}

std::vector<TensorType> div_shape(const ShapeQuery& q) {
  auto out = binary<kNumeric, false>(q);
  const auto mode = q.attrs.get_string("rounding_mode", "none");
  if (mode != "none" && mode != "trunc" && mode != "floor")
    op_error(q.op, "rounding_mode must be none, trunc or floor, got '" + std::string(mode) + "'");
  if (mode == "none" && !is_floating(q.inputs[0].dtype))
    op_error(q.op, "rounding_mode 'none' expected float inputs, got " + std::string(dtype_name(q.inputs[0].dtype)));
  return out;
}

template <const std::initializer_list<DType>& Allowed, bool ToBool>
std::vector<TensorType> unary(const ShapeQuery& q) {
  expect_inputs(q, 1);
  expect_dtype(q, q.inputs[0], Allowed, "input");
  return {TensorType(ToBool ? DType::Bool : q.inputs[0].dtype, q.inputs[0].dims)};
}

std::vector<TensorType> gelu_shape(const ShapeQuery& q) {
  const auto mode = q.attrs.get_string("approximate", "none");
  if (mode != "none" && mode != "tanh")
    op_error(q.op, "approximate must be none or tanh, got '" + std::string(mode) + "'");
  return unary<kFloat, false>(q);
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
  if (!q.attrs.has("dtype")) op_error(q.op, "expected a dtype attribute");
  return {TensorType(q.attrs.get_dtype("dtype", DType::Float32), q.inputs[0].dims)};
}

// masked_fill(x, mask, value) = where(mask, full_like(value), x).
std::vector<TensorType> masked_fill_shape(const ShapeQuery& q) {
  expect_inputs(q, 2);
  expect_dtype(q, q.inputs[1], kBool, "mask");
  return {TensorType(q.inputs[0].dtype, broadcast_dims(q, q.inputs[0].dims, q.inputs[1].dims))};
}

const std::vector<OperandDecl> kAB = {{"self"}, {"other"}};
const std::vector<OperandDecl> kX = {{"self"}};

OpInfo bin(std::string_view name, ShapeFn fn, std::string_view summary, std::vector<AttrDecl> attrs = {}) {
  return make_row(name, "Tensor", kAB, std::move(attrs), fn, kOpElementwise, summary);
}
OpInfo un(std::string_view name, ShapeFn fn, std::string_view summary, std::vector<AttrDecl> attrs = {}) {
  return make_row(name, "default", kX, std::move(attrs), fn, kOpElementwise, summary);
}

}  // namespace

std::vector<OpInfo> elementwise_rows() {
  std::vector<OpInfo> rows = {
      bin("add", binary<kNumeric, false>, "a + b"),
      bin("sub", binary<kNumeric, false>, "a - b"),
      bin("mul", binary<kNumeric, false>, "a * b"),
      bin("div", div_shape, "a / b; rounding_mode none (float), trunc or floor",
          {attr_string("rounding_mode", "none", {"none", "trunc", "floor"})}),
      bin("pow", binary<kNumeric, false>, "a ** b"),
      bin("maximum", binary<kAll, false>, "elementwise max"),
      bin("minimum", binary<kAll, false>, "elementwise min"),
      bin("remainder", binary<kNumeric, false>, "python-style modulo (sign of the divisor)"),
      bin("fmod", binary<kNumeric, false>, "C-style modulo (sign of the dividend)"),
      bin("eq", binary<kAll, true>, "a == b"),
      bin("ne", binary<kAll, true>, "a != b"),
      bin("lt", binary<kAll, true>, "a < b"),
      bin("le", binary<kAll, true>, "a <= b"),
      bin("gt", binary<kAll, true>, "a > b"),
      bin("ge", binary<kAll, true>, "a >= b"),
      bin("logical_and", binary<kBool, true>, "a and b"),
      bin("logical_or", binary<kBool, true>, "a or b"),
      bin("logical_xor", binary<kBool, true>, "a xor b"),
      make_row("where", "default", {{"condition"}, {"self"}, {"other"}}, {}, where_shape, kOpElementwise,
               "condition ? a : b"),
      un("neg", unary<kNumeric, false>, "-x"),
      un("abs", unary<kNumeric, false>, "|x|"),
      un("relu", unary<kNumeric, false>, "max(x, 0)"),
      un("sign", unary<kNumeric, false>, "-1, 0 or 1"),
      un("clamp", unary<kNumeric, false>, "min(max(x, min), max); either bound optional",
         {attr_float("min", -INFINITY), attr_float("max", INFINITY)}),
      un("exp", unary<kFloat, false>, "e^x"),
      un("log", unary<kFloat, false>, "natural log"),
      un("sqrt", unary<kFloat, false>, "square root"),
      un("rsqrt", unary<kFloat, false>, "1 / sqrt(x)"),
      un("reciprocal", unary<kFloat, false>, "1 / x"),
      un("sin", unary<kFloat, false>, "sine"),
      un("cos", unary<kFloat, false>, "cosine"),
      un("tanh", unary<kFloat, false>, "hyperbolic tangent"),
      un("sigmoid", unary<kFloat, false>, "1 / (1 + e^-x)"),
      un("erf", unary<kFloat, false>, "error function"),
      un("floor", unary<kFloat, false>, "round down"),
      un("ceil", unary<kFloat, false>, "round up"),
      un("round", unary<kFloat, false>, "round half to even"),
      un("hardsigmoid", unary<kFloat, false>, "relu6(x + 3) / 6"),
      un("hardswish", unary<kFloat, false>, "x * relu6(x + 3) / 6"),
      un("isnan", unary<kFloat, true>, "x is NaN"),
      un("softplus", unary<kFloat, false>, "log(1 + e^(beta x)) / beta, linear above threshold",
         {attr_float("beta", 1.0, AttrRule::NonZero), attr_float("threshold", 20.0)}),
      un("mish", unary<kFloat, false>, "x * tanh(softplus(x))"),
      un("leaky_relu", unary<kFloat, false>, "x if x > 0 else negative_slope * x", {attr_float("negative_slope", 0.01)}),
      un("elu", unary<kFloat, false>, "x if x > 0 else alpha (e^x - 1)", {attr_float("alpha", 1.0)}),
      un("gelu", gelu_shape, "x * Phi(x); approximate none (erf) or tanh", {attr_string("approximate", "none", {"none", "tanh"})}),
      un("logical_not", unary<kBool, false>, "not x"),
      un("clone", unary<kAll, false>, "a contiguous copy"),
      make_row("cast", "default", kX, {required(attr_dtype("dtype", DType::Float32))}, cast_shape, kOpElementwise,
               "converts to dtype (float to int truncates toward zero)"),
  };
  OpInfo masked_fill = make_row("masked_fill", "Scalar", {{"self"}, {"mask"}}, {required(attr_float("value", 0))},
                                masked_fill_shape, kOpElementwise, "x with value where mask is true");
  masked_fill.core = false;
  rows.push_back(std::move(masked_fill));
  return rows;
}

}  // namespace edgec::ops

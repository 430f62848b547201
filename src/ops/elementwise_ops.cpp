// Operator-table rows of the elementwise family.
#include "ops/op_rows.h"

namespace edgec::ops {
namespace {

constexpr std::initializer_list<DType> kNumeric = {DType::Float32, DType::Float16, DType::Int64,
                                                   DType::Int32,   DType::Int8,    DType::UInt8};
constexpr std::initializer_list<DType> kFloat = {DType::Float32, DType::Float16};

std::vector<TensorType> binary_arith(const ShapeQuery& q) {
  expect_inputs(q, 2);
  expect_dtype(q, q.inputs[0], kNumeric, "input 0");
  if (q.inputs[1].dtype != q.inputs[0].dtype)
    op_error(q.op, "operands must have one dtype, got " + std::string(dtype_name(q.inputs[0].dtype)) +
                       " and " + std::string(dtype_name(q.inputs[1].dtype)));
  return {TensorType(q.inputs[0].dtype, broadcast_dims(q, q.inputs[0].dims, q.inputs[1].dims))};
}

std::vector<TensorType> unary_float(const ShapeQuery& q) {
  expect_inputs(q, 1);
  expect_dtype(q, q.inputs[0], kFloat, "input");
  return {q.inputs[0]};
}

std::vector<TensorType> unary_any(const ShapeQuery& q) {
  expect_inputs(q, 1);
  return {q.inputs[0]};
}

OpInfo row(std::string name, std::string overload, std::vector<OperandSpec> operands, ShapeFn shape,
           uint32_t flags, std::string summary) {
  OpInfo op;
  op.name = std::move(name);
  op.overload = std::move(overload);
  op.operands = std::move(operands);
  op.shape = shape;
  op.flags = flags;
  op.summary = std::move(summary);
  return op;
}

}  // namespace

std::vector<OpInfo> elementwise_rows() {
  const std::vector<OperandSpec> ab = {{"self"}, {"other"}};
  const std::vector<OperandSpec> x = {{"self"}};
  return {
      row("add", "Tensor", ab, binary_arith, kOpElementwise, "a + b with numpy broadcasting"),
      row("mul", "Tensor", ab, binary_arith, kOpElementwise, "a * b with numpy broadcasting"),
      row("sin", "default", x, unary_float, kOpElementwise, "sine"),
      row("clone", "default", x, unary_any, kOpElementwise, "a contiguous copy"),
  };
}

}  // namespace edgec::ops

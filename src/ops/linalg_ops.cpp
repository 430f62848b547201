// Operator-table rows of linear algebra: matmul (core, numpy semantics) and
// the composites linear and addmm, which to_edge lowers to matmul + add.
#include "ops/op_rows.h"

namespace edgec::ops {
namespace {

constexpr std::initializer_list<DType> kFloat = {DType::Float32, DType::Float16};

bool dims_conflict(const Dim& a, const Dim& b) {
  return a.is_static() && b.is_static() && a.value != b.value;
}

std::vector<TensorType> matmul_types(const ShapeQuery& q, const TensorType& a, const TensorType& b) {
  expect_dtype(q, a, kFloat, "input 0");
  if (a.dtype != b.dtype)
    op_error(q.op, "operands must have one dtype, got " + std::string(dtype_name(a.dtype)) + " and " +
                       std::string(dtype_name(b.dtype)));
  if (a.rank() < 1 || b.rank() < 1)
    op_error(q.op, "expected inputs of rank >= 1, got " + a.str() + " and " + b.str());
  const bool a_vec = a.rank() == 1, b_vec = b.rank() == 1;
  const Dim& k_a = a.dims.back();
  const Dim& k_b = b_vec ? b.dims[0] : b.dims[b.rank() - 2];
  if (dims_conflict(k_a, k_b))
    op_error(q.op, "inner dimensions differ: " + a.str() + " @ " + b.str() + " (" + k_a.str() + " vs " + k_b.str() + ")");
  Dims batch_a(a.dims.begin(), a.dims.end() - (a_vec ? 1 : 2));
  Dims batch_b(b.dims.begin(), b.dims.end() - (b_vec ? 1 : 2));
  Dims out = broadcast_dims(q, batch_a, batch_b);
  if (!a_vec) out.push_back(a.dims[a.rank() - 2]);
  if (!b_vec) out.push_back(b.dims.back());
  return {TensorType(a.dtype, out)};
}

std::vector<TensorType> matmul_shape(const ShapeQuery& q) {
  expect_inputs(q, 2);
  return matmul_types(q, q.inputs[0], q.inputs[1]);
}

// linear(x, w[out, in], b[out]?) = x @ w^T + b
std::vector<TensorType> linear_shape(const ShapeQuery& q) {
  if (q.inputs.size() < 2 || q.inputs.size() > 3)
    op_error(q.op, "expected 2 or 3 tensor inputs, got " + std::to_string(q.inputs.size()));
  const TensorType& w = q.inputs[1];
  if (w.rank() != 2) op_error(q.op, "expected a 2-D weight, got " + w.str());
  TensorType wt(w.dtype, {w.dims[1], w.dims[0]});
  auto out = matmul_types(q, q.inputs[0], wt);
  if (q.inputs.size() == 3) out[0].dims = broadcast_dims(q, out[0].dims, q.inputs[2].dims);
  return out;
}

// addmm(bias, a, b; beta, alpha) = beta * bias + alpha * (a @ b)
std::vector<TensorType> addmm_shape(const ShapeQuery& q) {
  expect_inputs(q, 3);
  if (q.inputs[1].rank() != 2 || q.inputs[2].rank() != 2)
    op_error(q.op, "expected 2-D matrices, got " + q.inputs[1].str() + " and " + q.inputs[2].str());
  auto out = matmul_types(q, q.inputs[1], q.inputs[2]);
  out[0].dims = broadcast_dims(q, out[0].dims, q.inputs[0].dims);
  return out;
}

}  // namespace

std::vector<OpInfo> linalg_rows() {
  OpInfo linear = make_row("linear", "default", {{"input"}, {"weight"}, {"bias", OperandKind::Optional}}, {},
                           linear_shape, 0, "x @ weight^T + bias");
  linear.core = false;
  OpInfo addmm = make_row("addmm", "default", {{"self"}, {"mat1"}, {"mat2"}},
                          {attr_float("beta", 1.0), attr_float("alpha", 1.0)}, addmm_shape, 0,
                          "beta * self + alpha * (mat1 @ mat2)");
  addmm.core = false;
  return {
      make_row("matmul", "default", {{"self"}, {"other"}}, {}, matmul_shape, 0,
               "numpy matmul: 1-D operands and batch broadcasting"),
      std::move(linear),
      std::move(addmm),
  };
}

}  // namespace edgec::ops

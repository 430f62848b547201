// Shape functions of matmul and det (declared with their kernels in
// src/kernels/linalg.cpp), matmul with numpy semantics. The composites
// linear and addmm, which to_edge lowers to matmul + add, are in
// composite_ops.cpp.
#include "ops/op_rows.h"

namespace edgec::ops {
namespace {

bool dims_conflict(const Dim& a, const Dim& b) {
  return a.is_static() && b.is_static() && a.value != b.value;
}

std::vector<TensorType> matmul_shape(const ShapeQuery& q) {
  expect_inputs(q, 2);
  const TensorType& a = q.inputs[0];
  const TensorType& b = q.inputs[1];
  expect_dtype(q, a, q.decl->dtypes, "input 0");
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

// det: [..., n, n] to [...], and the kernel's workspace, f64 [n * n].
std::vector<TensorType> det_shape(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  expect_dtype(q, x, q.decl->dtypes, "input 0");
  if (x.rank() < 2 || dims_conflict(x.dims[x.rank() - 1], x.dims[x.rank() - 2]))
    op_error(q.op, "expected square matrices [..., n, n], got " + x.str());
  const Dim& n = x.dims.back().is_static() ? x.dims.back() : x.dims[x.rank() - 2];
  if (!n.is_static()) op_error(q.op, "expected a static matrix size n, got " + x.str());
  Dims ws;
  ws.push_back(Dim::fixed(n.value * n.value));
  return {TensorType(x.dtype, Dims(x.dims.begin(), x.dims.end() - 2)), TensorType(DType::Float64, ws)};
}

}  // namespace

std::vector<std::pair<std::string_view, ShapeFn>> linalg_shapes() {
  return {{"matmul", matmul_shape}, {"det", det_shape}};
}

}  // namespace edgec::ops

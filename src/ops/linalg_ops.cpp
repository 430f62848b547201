// Shape functions of matmul and det (declared with their kernels in
// src/kernels/linalg.cpp), matmul with numpy semantics, and of dft (declared in
// src/kernels/spectral.cpp). The composites linear and addmm, which to_edge
// lowers to matmul + add, are in composite_ops.cpp.
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

// dft: [..., n, c] (c = 1 real, 2 complex) to [..., bins, 2] along 'axis',
// bins = n or n / 2 + 1 (onesided), n = 'length' or the axis's size (which
// must then be static); and the kernel's workspace, f64 [8 n].
std::vector<TensorType> dft_shape(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  expect_dtype(q, x, q.decl->dtypes, "input 0");
  const Dim* c = x.rank() >= 2 ? &x.dims.back() : nullptr;
  if (!c || !c->is_static() || (c->value != 1 && c->value != 2))
    op_error(q.op, "expected a signal [..., n, 1] (real) or [..., n, 2] (complex), got " + x.str());
  const int64_t axis = int_attr(q, "axis");
  if (axis > x.rank() - 2)
    op_error(q.op, "expected axis in [0, " + std::to_string(x.rank() - 2) + "] (not the last dim, which holds the "
                   "components), got " + std::to_string(axis) + " for " + x.str());
  int64_t n = int_attr(q, "length");
  if (n == 0) {
    const Dim& d = x.dims[static_cast<size_t>(axis)];
    if (!d.is_static())
      op_error(q.op, "expected a static signal length along axis " + std::to_string(axis) +
                         " or a 'length', got " + x.str());
    n = d.value;
  }
  if (n < 1) op_error(q.op, "expected a transform of at least 1 point, got " + x.str() + " along axis " +
                                std::to_string(axis));
  Dims out = x.dims;
  out[static_cast<size_t>(axis)] = Dim::fixed(bool_attr(q, "onesided") ? n / 2 + 1 : n);
  out.back() = Dim::fixed(2);
  Dims ws;
  ws.push_back(Dim::fixed(8 * n));
  return {TensorType(x.dtype, out), TensorType(DType::Float64, ws)};
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
  return {{"matmul", matmul_shape}, {"dft", dft_shape}, {"det", det_shape}};
}

}  // namespace edgec::ops

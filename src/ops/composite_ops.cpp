// Composite operators: aten-only, with no kernel of their own; to_edge
// decomposes each into core operators (src/passes/decompositions.cpp). Their
// declarations live here, each tagged with the family it belongs to, beside
// their shape functions. Where a composite is a core operator on rearranged
// inputs, its shape function asks that operator's row, so the two cannot
// drift apart; errors still name the composite.
#include "kernels/registry.h"
#include "ops/op_rows.h"

namespace edgec::ops {
namespace {

const DTypeSet kBool = {DType::Bool};

/// The shape function of core operator `core` on `inputs` and `attrs`.
std::vector<TensorType> core_shape(const ShapeQuery& q, std::string_view core, TypeList inputs,
                                   const Attrs& attrs) {
  const OpInfo* row = find_op_by_name(core);
  if (!row) throw CompileError("internal error: no core operator '" + std::string(core) + "'");
  const std::vector<OperandGroup> groups(inputs.size());
  return row->shape(ShapeQuery{q.op, inputs, groups, attrs, row});
}

// ---- elementwise ---------------------------------------------------------------

// masked_fill(x, mask, value) = where(mask, full_like(value), x).
std::vector<TensorType> masked_fill_shape(const ShapeQuery& q) {
  expect_inputs(q, 2);
  expect_dtype(q, q.inputs[1], kBool, "mask");
  return {TensorType(q.inputs[0].dtype, broadcast_dims(q, q.inputs[0].dims, q.inputs[1].dims))};
}

// ---- linalg ----------------------------------------------------------------------

// linear(x, w[out, in], b[out]?) = x @ w^T + b
std::vector<TensorType> linear_shape(const ShapeQuery& q) {
  if (q.inputs.size() < 2 || q.inputs.size() > 3)
    op_error(q.op, "expected 2 or 3 tensor inputs, got " + std::to_string(q.inputs.size()));
  const TensorType& w = q.inputs[1];
  if (w.rank() != 2) op_error(q.op, "expected a 2-D weight, got " + w.str());
  const std::vector<TensorType> operands = {q.inputs[0], TensorType(w.dtype, {w.dims[1], w.dims[0]})};
  auto out = core_shape(q, "matmul", operands, Attrs());
  if (q.inputs.size() == 3) out[0].dims = broadcast_dims(q, out[0].dims, q.inputs[2].dims);
  return out;
}

// addmm(bias, a, b; beta, alpha) = beta * bias + alpha * (a @ b)
std::vector<TensorType> addmm_shape(const ShapeQuery& q) {
  expect_inputs(q, 3);
  if (q.inputs[1].rank() != 2 || q.inputs[2].rank() != 2)
    op_error(q.op, "expected 2-D matrices, got " + q.inputs[1].str() + " and " + q.inputs[2].str());
  auto out = core_shape(q, "matmul", q.inputs.subspan(1), Attrs());
  out[0].dims = broadcast_dims(q, out[0].dims, q.inputs[0].dims);
  return out;
}

// ---- indexing --------------------------------------------------------------------

// embedding(weight, indices) = take(weight, indices, dim = 0).
std::vector<TensorType> embedding_shape(const ShapeQuery& q) {
  expect_inputs(q, 2);
  if (q.inputs[0].rank() != 2) op_error(q.op, "expected a 2-D weight, got " + q.inputs[0].str());
  Attrs attrs;
  attrs.set("dim", int64_t{0});
  return core_shape(q, "take", q.inputs, attrs);
}

// index_select(x, index; dim) = take(x, index; dim) with a 1-D index.
std::vector<TensorType> index_select_shape(const ShapeQuery& q) {
  expect_inputs(q, 2);
  if (q.inputs[1].rank() != 1) op_error(q.op, "expected a 1-D index, got " + q.inputs[1].str());
  return core_shape(q, "take", q.inputs, q.attrs);
}

// ---- creation --------------------------------------------------------------------

// zeros/ones(shape, dtype) = full(shape, value = 0 or 1, dtype).
std::vector<TensorType> filled_shape(const ShapeQuery& q) {
  Attrs attrs = q.attrs;
  attrs.set("value", 0.0);
  return core_shape(q, "full", q.inputs, attrs);
}

/// A composite's row: its declaration (core = false) and shape function.
OpInfo composite(OpDecl decl, ShapeFn shape) {
  OpInfo row;
  static_cast<OpDecl&>(row) = std::move(decl);
  row.core = false;
  row.shape = shape;
  return row;
}

}  // namespace

std::vector<OpInfo> composite_rows() {
  OpDecl masked_fill = declare("masked_fill", "elementwise", {{"self"}, {"mask"}}, {required(attr_float("value", 0))},
                               {}, kOpElementwise, "x with value where mask is true");
  masked_fill.overload = "Scalar";
  // zeros and ones take full's declarations of shape and dtype.
  const OpDecl& full = *find_kernel_decl("full");
  const std::vector<AttrDecl> filled = {*full.attr("shape"), *full.attr("dtype")};
  return {
      composite(std::move(masked_fill), masked_fill_shape),
      composite(declare("linear", "linalg", {{"input"}, {"weight"}, {"bias", OperandKind::Optional}}, {}, {}, 0,
                        "x @ weight^T + bias"),
                linear_shape),
      composite(declare("addmm", "linalg", {{"self"}, {"mat1"}, {"mat2"}},
                        {attr_float("beta", 1.0), attr_float("alpha", 1.0)}, {}, 0,
                        "beta * self + alpha * (mat1 @ mat2)"),
                addmm_shape),
      composite(declare("embedding", "indexing", {{"weight"}, {"indices"}}, {}, {}, kOpShapeOnly,
                        "rows of weight picked by indices (composite: take along dim 0)"),
                embedding_shape),
      composite(declare("index_select", "indexing", {{"self"}, {"index"}}, {required(attr_int("dim", 0))}, {},
                        kOpShapeOnly, "slices along dim picked by a 1-D index (composite: take)"),
                index_select_shape),
      composite(declare("zeros", "creation", {}, filled, {}, kOpAllocation,
                        "a tensor of shape and dtype filled with 0 (composite: full)"),
                filled_shape),
      composite(declare("ones", "creation", {}, filled, {}, kOpAllocation,
                        "a tensor of shape and dtype filled with 1 (composite: full)"),
                filled_shape),
  };
}

}  // namespace edgec::ops

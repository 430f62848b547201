// Operator-table rows of the shape and data-movement family.
#include "ops/op_rows.h"

namespace edgec::ops {
namespace {

std::vector<TensorType> concat_shape(const ShapeQuery& q) {
  if (q.inputs.empty()) op_error(q.op, "expected at least one tensor, got none");
  const TensorType& first = q.inputs[0];
  const int64_t rank = first.rank();
  const int64_t dim = normalize_dim(q, q.attrs.get_int("dim", 0), rank);
  TensorType out = first;
  for (size_t i = 1; i < q.inputs.size(); ++i) {
    const TensorType& t = q.inputs[i];
    if (t.dtype != first.dtype)
      op_error(q.op, "tensor " + std::to_string(i) + " has dtype " +
                         std::string(dtype_name(t.dtype)) + ", expected " +
                         std::string(dtype_name(first.dtype)));
    if (t.rank() != rank)
      op_error(q.op, "tensor " + std::to_string(i) + " has shape " + t.str() +
                         ", expected rank " + std::to_string(rank) + " like " + first.str());
    for (int64_t d = 0; d < rank; ++d) {
      if (d == dim) continue;
      const Dim &a = first.dims[d], &b = t.dims[d];
      if (a.is_static() && b.is_static() && a.value != b.value)
        op_error(q.op, "tensor " + std::to_string(i) + " has shape " + t.str() + ", expected " +
                           first.str() + " outside dim " + std::to_string(dim));
    }
    out.dims[dim] = add_dims(out.dims[dim], t.dims[dim]);
  }
  return {out};
}

}  // namespace

std::vector<OpInfo> shape_rows() {
  OpInfo concat;
  concat.name = "concat";
  concat.overload = "default";
  concat.operands = {{"tensors", OperandKind::List}};
  concat.attrs = {{"dim", AttrKind::Int, false}};
  concat.shape = concat_shape;
  concat.flags = kOpShapeOnly;
  concat.summary = "joins tensors along dim";
  return {concat};
}

}  // namespace edgec::ops

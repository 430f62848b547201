// Shape functions of the reduction family (declared with their kernels in
// src/kernels/reduction.cpp). dims: int[] (empty or absent = every dim),
// keepdim: bool.
#include <set>

#include "ops/op_rows.h"

namespace edgec::ops {
namespace {


Dims reduced_dims(const ShapeQuery& q, const TensorType& x, std::set<int64_t> dims, bool keepdim) {
  Dims out;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (!dims.count(d)) {
      out.push_back(x.dims[d]);
    } else if (keepdim) {
      out.push_back(Dim::fixed(1));
    }
  }
  (void)q;
  return out;
}

std::set<int64_t> dim_set(const ShapeQuery& q, const TensorType& x) {
  std::set<int64_t> dims;
  // A single int is accepted like the kernels accept it (dims = 1 means [1]).
  std::vector<int64_t> single;
  const AttrDecl& dims_attr = q.attr("dims");
  const auto* list = dims_attr.ints_value(q.attrs);
  if (const AttrValue* v = q.attrs.find(dims_attr.name); v && std::holds_alternative<int64_t>(*v)) {
    single = {std::get<int64_t>(*v)};
    list = &single;
  }
  if (!list || list->empty()) {
    for (int64_t d = 0; d < x.rank(); ++d) dims.insert(d);
    return dims;
  }
  for (int64_t d : *list) {
    const int64_t n = normalize_dim(q, d, x.rank());
    if (!dims.insert(n).second) op_error(q.op, "dim " + std::to_string(d) + " appears twice in dims");
  }
  return dims;
}

template <bool NonEmpty>
std::vector<TensorType> reduce(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  expect_dtype(q, x, q.decl->dtypes, "input");
  const auto dims = dim_set(q, x);
  if (NonEmpty) {
    for (int64_t d : dims)
      if (x.dims[d].is_static() && x.dims[d].value == 0)
        op_error(q.op, "cannot reduce over the empty dim " + std::to_string(d) + " of " + x.str());
  }
  return {TensorType(x.dtype, reduced_dims(q, x, dims, q.attr("keepdim").bool_value(q.attrs)))};
}

std::vector<TensorType> arg_reduce(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  expect_dtype(q, x, q.decl->dtypes, "input");
  if (!q.attrs.has("dim")) op_error(q.op, "expected a dim attribute");
  const int64_t d = normalize_dim(q, q.attr("dim").int_value(q.attrs), x.rank());
  if (x.rank() > 0 && x.dims[d].is_static() && x.dims[d].value == 0)
    op_error(q.op, "cannot reduce over the empty dim " + std::to_string(d) + " of " + x.str());
  std::set<int64_t> dims;
  if (x.rank() > 0) dims.insert(d);
  return {TensorType(DType::Int64, reduced_dims(q, x, dims, q.attr("keepdim").bool_value(q.attrs)))};
}

std::vector<TensorType> cumsum_shape(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  expect_dtype(q, x, q.decl->dtypes, "input");
  if (!q.attrs.has("dim")) op_error(q.op, "expected a dim attribute");
  normalize_dim(q, q.attr("dim").int_value(q.attrs), x.rank());
  return {x};
}

}  // namespace

std::vector<std::pair<std::string_view, ShapeFn>> reduction_shapes() {
  return {{"sum", reduce<false>},     {"mean", reduce<false>},   {"prod", reduce<false>},
          {"amax", reduce<true>},     {"amin", reduce<true>},    {"argmax", arg_reduce},
          {"argmin", arg_reduce},     {"cumsum", cumsum_shape}};
}

}  // namespace edgec::ops

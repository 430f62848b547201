// Operator-table rows of the reduction family. dims: int[] (empty or absent
// = every dim), keepdim: bool. Dtype sets mirror src/kernels/reduction.cpp.
#include <set>

#include "ops/op_rows.h"

namespace edgec::ops {
namespace {

constexpr std::initializer_list<DType> kFloat = {DType::Float32, DType::Float16};
constexpr std::initializer_list<DType> kSumTypes = {DType::Float32, DType::Float16, DType::Int64, DType::Int32};
constexpr std::initializer_list<DType> kExtremumTypes = {DType::Float32, DType::Float16, DType::Int64,
                                                         DType::Int32, DType::Bool};
constexpr std::initializer_list<DType> kArgTypes = {DType::Float32, DType::Float16, DType::Int64,
                                                    DType::Int32,   DType::Int8,    DType::UInt8, DType::Bool};

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
  const auto* list = q.attrs.get_ints("dims");
  if (const AttrValue* v = q.attrs.find("dims"); v && std::holds_alternative<int64_t>(*v)) {
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

template <const std::initializer_list<DType>& Allowed, bool NonEmpty>
std::vector<TensorType> reduce(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  expect_dtype(q, x, Allowed, "input");
  const auto dims = dim_set(q, x);
  if (NonEmpty) {
    for (int64_t d : dims)
      if (x.dims[d].is_static() && x.dims[d].value == 0)
        op_error(q.op, "cannot reduce over the empty dim " + std::to_string(d) + " of " + x.str());
  }
  return {TensorType(x.dtype, reduced_dims(q, x, dims, q.attrs.get_bool("keepdim", false)))};
}

std::vector<TensorType> arg_reduce(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  expect_dtype(q, x, kArgTypes, "input");
  if (!q.attrs.has("dim")) op_error(q.op, "expected a dim attribute");
  const int64_t d = normalize_dim(q, q.attrs.get_int("dim"), x.rank());
  if (x.rank() > 0 && x.dims[d].is_static() && x.dims[d].value == 0)
    op_error(q.op, "cannot reduce over the empty dim " + std::to_string(d) + " of " + x.str());
  std::set<int64_t> dims;
  if (x.rank() > 0) dims.insert(d);
  return {TensorType(DType::Int64, reduced_dims(q, x, dims, q.attrs.get_bool("keepdim", false)))};
}

std::vector<TensorType> cumsum_shape(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  expect_dtype(q, x, kSumTypes, "input");
  if (!q.attrs.has("dim")) op_error(q.op, "expected a dim attribute");
  normalize_dim(q, q.attrs.get_int("dim"), x.rank());
  return {x};
}

}  // namespace

std::vector<OpInfo> reduction_rows() {
  const std::vector<AttrDecl> reduce_attrs = {attr_ints("dims"), attr_bool("keepdim", false)};
  const std::vector<AttrDecl> arg_attrs = {required(attr_int("dim", 0)), attr_bool("keepdim", false),
                                           attr_bool("select_last_index", false)};
  return {
      make_row("sum", "default", {{"self"}}, reduce_attrs, reduce<kSumTypes, false>, 0, "sum over dims"),
      make_row("mean", "default", {{"self"}}, reduce_attrs, reduce<kFloat, false>, 0, "mean over dims"),
      make_row("prod", "default", {{"self"}}, reduce_attrs, reduce<kSumTypes, false>, 0, "product over dims"),
      make_row("amax", "default", {{"self"}}, reduce_attrs, reduce<kExtremumTypes, true>, 0, "maximum over dims"),
      make_row("amin", "default", {{"self"}}, reduce_attrs, reduce<kExtremumTypes, true>, 0, "minimum over dims"),
      make_row("argmax", "default", {{"self"}}, arg_attrs, arg_reduce, 0, "index of the maximum along dim"),
      make_row("argmin", "default", {{"self"}}, arg_attrs, arg_reduce, 0, "index of the minimum along dim"),
      make_row("cumsum", "default", {{"self"}},
               {required(attr_int("dim", 0)), attr_bool("exclusive", false), attr_bool("reverse", false)},
               cumsum_shape, 0, "running sum along dim (ONNX CumSum)"),
  };
}

}  // namespace edgec::ops

// Shape functions of the creation family: arange and full, tensors made
// from attributes alone, and rand_like (declared with their kernels in
// src/kernels/creation.cpp). The result dtype of arange and full is the
// required `dtype` attribute; the kernels read the dtype from the output
// tensor they are handed, which the interpreter allocates from these shape
// functions, so the two agree. Lengths follow the kernel exactly (the exact
// integer length is the kernel's own function).
#include <cmath>
#include <optional>
#include <string>
#include <variant>

#include "kernels/shape_common.h"  // arange_int_length, Number
#include "kernels/tensor.h"        // kMaxRank
#include "ops/op_rows.h"

namespace edgec::ops {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

DType dtype_attr(const ShapeQuery& q) {
  const AttrDecl& decl = q.attr("dtype");
  const AttrValue* v = find_attr(q, decl);
  if (const auto* d = std::get_if<DType>(v)) return *d;
  wrong_attr(q, decl, *v);
}

using shape_detail::Number;

/// A number written as an int, a float or a bool, as the kernel reads it:
/// ints stay exact, and so does a whole default.
Number number_attr(const ShapeQuery& q, std::string_view name) {
  const AttrDecl& decl = q.attr(name);
  const AttrValue* v = find_attr(q, decl);
  if (!v) {
    if (decl.number == std::floor(decl.number)) return Number{true, static_cast<int64_t>(decl.number), 0.0};
    return Number{false, 0, decl.number};
  }
  if (const auto* i = std::get_if<int64_t>(v)) return Number{true, *i, 0.0};
  if (const auto* f = std::get_if<double>(v)) return Number{false, 0, *f};
  if (const auto* b = std::get_if<bool>(v)) return Number{true, *b ? 1 : 0, 0.0};
  wrong_attr(q, decl, *v);
}

// [start, end) by step: length ceil((end - start) / step), computed exactly
// in integers when all three are ints, else in double (like the kernel).
std::vector<TensorType> arange_shape(const ShapeQuery& q) {
  expect_inputs(q, 0);
  const DType dtype = dtype_attr(q);
  if (!q.decl->dtypes.contains(dtype))
    op_error(q.op, "expected a numeric dtype, got " + std::string(dtype_name(dtype)));
  // A missing end is reported before the kinds of the others (as in the kernel).
  if (!q.attrs.has(q.attr("end").name)) missing_attr(q, q.attr("end"));
  const Number start = number_attr(q, "start");
  const Number end = number_attr(q, "end");
  const Number step = number_attr(q, "step");
  int64_t n = 0;
  if (start.is_int && end.is_int && step.is_int) {
    if (step.i == 0) op_error(q.op, "expected a nonzero step, got 0");
    n = shape_detail::arange_int_length(start.i, end.i, step.i);
  } else {
    const double s = start.as_double(), e = end.as_double(), st = step.as_double();
    if (st == 0.0) op_error(q.op, "expected a nonzero step, got 0");
    if (!std::isfinite(s) || !std::isfinite(e) || !std::isfinite(st))
      op_error(q.op, "expected finite start, end and step, got " + std::to_string(s) + ", " +
                         std::to_string(e) + ", " + std::to_string(st));
    const double len = std::ceil((e - s) / st);
    if (len >= 9.2e18) op_error(q.op, "expected a length that fits in int64, got " + std::to_string(len));
    n = len > 0 ? static_cast<int64_t>(len) : 0;
  }
  TensorType result(dtype, {Dim::fixed(n)});
  if (result.size_overflows())
    op_error(q.op, "expected a length whose size in bytes fits in int64, got " + str(n) + " elements of " +
                       std::string(dtype_name(dtype)));
  return {result};
}

std::vector<TensorType> full_shape(const ShapeQuery& q) {
  expect_inputs(q, 0);
  const DType dtype = dtype_attr(q);
  const std::vector<int64_t>& shape = required_ints(q, "shape");
  if (static_cast<int64_t>(shape.size()) > kMaxRank)
    op_error(q.op, "expected a shape of rank at most " + str(kMaxRank) + ", got rank " +
                       str(static_cast<int64_t>(shape.size())));
  Dims dims;
  for (int64_t s : shape) {
    if (s < 0) {
      std::string list = "[";
      for (size_t i = 0; i < shape.size(); ++i) list += (i ? ", " : "") + str(shape[i]);
      op_error(q.op, "expected sizes >= 0, got " + list + "]");
    }
    dims.push_back(Dim::fixed(s));
  }
  number_attr(q, "value");  // kind check only
  TensorType result(dtype, std::move(dims));
  // Sizes come from attributes, i.e. from a file: [2^32, 2^32] must not
  // wrap the element count (nor 2^61 elements of i64 the bytes).
  if (result.size_overflows())
    op_error(q.op, "expected a shape whose size in bytes fits in int64, got " + result.str());
  return {result};
}

std::vector<TensorType> rand_like_shape(const ShapeQuery& q) {
  expect_inputs(q, 1);
  expect_dtype(q, q.inputs[0], q.decl->dtypes, "input");
  return {q.inputs[0]};
}

}  // namespace

std::vector<std::pair<std::string_view, ShapeFn>> creation_shapes() {
  return {{"arange", arange_shape}, {"full", full_shape}, {"rand_like", rand_like_shape}};
}

}  // namespace edgec::ops

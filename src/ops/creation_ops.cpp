// Operator-table rows of the creation family: arange and full, tensors made
// from attributes alone. Their result dtype is the required `dtype`
// attribute; the kernels (src/kernels/creation.cpp) read the dtype from the
// output tensor they are handed, which the interpreter allocates from these
// shape functions, so the two agree. Lengths follow the kernel exactly.
#include <cmath>
#include <optional>
#include <string>
#include <variant>

#include "kernels/tensor.h"  // kMaxRank
#include "ops/op_rows.h"

namespace edgec::ops {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

[[noreturn]] void wrong_attr(const ShapeQuery& q, std::string_view name, AttrKind kind,
                             const AttrValue& got) {
  op_error(q.op, "expected attribute '" + std::string(name) + "' of kind " +
                     std::string(attr_kind_name(kind)) + ", got " +
                     std::string(attr_kind_name(attr_kind(got))));
}

[[noreturn]] void missing_attr(const ShapeQuery& q, std::string_view name, AttrKind kind) {
  op_error(q.op, "expected attribute '" + std::string(name) + "' (" +
                     std::string(attr_kind_name(kind)) + "), got none");
}

DType dtype_attr(const ShapeQuery& q) {
  const AttrValue* v = q.attrs.find("dtype");
  if (!v) missing_attr(q, "dtype", AttrKind::DType);
  if (const auto* d = std::get_if<DType>(v)) return *d;
  wrong_attr(q, "dtype", AttrKind::DType, *v);
}

/// A number written as an int, a float or a bool, as the kernel reads it:
/// ints stay exact.
struct Number {
  bool is_int = true;
  int64_t i = 0;
  double f = 0.0;
  double as_double() const { return is_int ? static_cast<double>(i) : f; }
};

Number number_attr(const ShapeQuery& q, std::string_view name, Number dflt) {
  const AttrValue* v = q.attrs.find(name);
  if (!v) return dflt;
  if (const auto* i = std::get_if<int64_t>(v)) return Number{true, *i, 0.0};
  if (const auto* f = std::get_if<double>(v)) return Number{false, 0, *f};
  if (const auto* b = std::get_if<bool>(v)) return Number{true, *b ? 1 : 0, 0.0};
  wrong_attr(q, name, AttrKind::Float, *v);
}

// [start, end) by step: length ceil((end - start) / step), computed exactly
// in integers when all three are ints, else in double (like the kernel).
std::vector<TensorType> arange_shape(const ShapeQuery& q) {
  expect_inputs(q, 0);
  const DType dtype = dtype_attr(q);
  if (dtype == DType::Bool) op_error(q.op, "expected a numeric dtype, got bool");
  if (!q.attrs.has("end")) missing_attr(q, "end", AttrKind::Float);
  const Number start = number_attr(q, "start", Number{});
  const Number end = number_attr(q, "end", Number{});
  const Number step = number_attr(q, "step", Number{true, 1, 0.0});
  int64_t n = 0;
  if (start.is_int && end.is_int && step.is_int) {
    if (step.i == 0) op_error(q.op, "expected a nonzero step, got 0");
    const __int128 span = static_cast<__int128>(end.i) - start.i;
    const __int128 s = step.i;
    __int128 len = span / s;
    if (len * s != span && ((span > 0) == (s > 0))) ++len;
    n = len > 0 ? static_cast<int64_t>(len) : 0;
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
  const AttrValue* v = q.attrs.find("shape");
  if (!v) missing_attr(q, "shape", AttrKind::Ints);
  static const std::vector<int64_t> kEmpty;
  const std::vector<int64_t>* shape = std::get_if<std::vector<int64_t>>(v);
  if (!shape) {
    // An empty list may be stored as either list kind.
    const auto* floats = std::get_if<std::vector<double>>(v);
    if (!floats || !floats->empty()) wrong_attr(q, "shape", AttrKind::Ints, *v);
    shape = &kEmpty;
  }
  if (static_cast<int64_t>(shape->size()) > kMaxRank)
    op_error(q.op, "expected a shape of rank at most " + str(kMaxRank) + ", got rank " +
                       str(static_cast<int64_t>(shape->size())));
  Dims dims;
  for (int64_t s : *shape) {
    if (s < 0) {
      std::string list = "[";
      for (size_t i = 0; i < shape->size(); ++i) list += (i ? ", " : "") + str((*shape)[i]);
      op_error(q.op, "expected sizes >= 0, got " + list + "]");
    }
    dims.push_back(Dim::fixed(s));
  }
  number_attr(q, "value", Number{});  // kind check only
  TensorType result(dtype, std::move(dims));
  // Sizes come from attributes, i.e. from a file: [2^32, 2^32] must not
  // wrap the element count (nor 2^61 elements of i64 the bytes).
  if (result.size_overflows())
    op_error(q.op, "expected a shape whose size in bytes fits in int64, got " + result.str());
  return {result};
}

std::vector<TensorType> rand_like_shape(const ShapeQuery& q) {
  expect_inputs(q, 1);
  expect_dtype(q, q.inputs[0], {DType::Float32, DType::Float16}, "input");
  return {q.inputs[0]};
}

// zeros/ones(shape, dtype) = full(shape, value = 0 or 1, dtype).
std::vector<TensorType> filled_shape(const ShapeQuery& q) {
  Attrs attrs = q.attrs;
  attrs.set("value", 0.0);
  return full_shape(ShapeQuery{q.op, q.inputs, q.groups, attrs, q.decl});
}

}  // namespace

std::vector<OpInfo> creation_rows() {
  const AttrDecl shape = required(attr_ints("shape", AttrRule::NonNegative));
  const AttrDecl dtype = required(attr_dtype("dtype", DType::Float32));
  std::vector<OpInfo> rows = {
      make_row("arange", "default", {},
               {attr_float("start", 0), required(attr_float("end", 0)), attr_float("step", 1, AttrRule::NonZero), dtype},
               arange_shape, kOpAllocation, "[start, end) by step (default 0 and 1) as a 1-D tensor of dtype"),
      make_row("full", "default", {}, {shape, attr_float("value", 0), dtype}, full_shape, kOpAllocation,
               "a tensor of shape and dtype filled with value (default 0)"),
      make_row("rand_like", "default", {{"self"}}, {attr_int("seed", 0)}, rand_like_shape, kOpRandom,
               "uniform [0, 1) values with self's shape and dtype (never folded)"),
  };
  for (auto [name, summary] : {std::pair{"zeros", "a tensor of shape and dtype filled with 0 (composite: full)"},
                               std::pair{"ones", "a tensor of shape and dtype filled with 1 (composite: full)"}}) {
    OpInfo row = make_row(name, "default", {}, {shape, dtype}, filled_shape, kOpAllocation, summary);
    row.core = false;
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace edgec::ops

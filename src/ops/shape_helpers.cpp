#include <algorithm>
#include <variant>

#include "ops/op_rows.h"

namespace edgec::ops {

void op_error(std::string_view op, const std::string& message) {
  // Appended piecewise: GCC 12 warns (-Wrestrict, falsely) on the chained form.
  std::string text = "[";
  text.append(op).append("] ").append(message);
  throw CompileError(text);
}

namespace {
std::string quoted(std::string_view name) { return "'" + std::string(name) + "'"; }
}  // namespace

void missing_attr(const ShapeQuery& q, const AttrDecl& decl) {
  op_error(q.op, "expected attribute " + quoted(decl.name) + " (" + std::string(attr_kind_name(decl.kind)) +
                     "), got none");
}

void wrong_attr(const ShapeQuery& q, const AttrDecl& decl, const AttrValue& got) {
  op_error(q.op, "expected attribute " + quoted(decl.name) + " of kind " + std::string(attr_kind_name(decl.kind)) +
                     ", got " + std::string(attr_kind_name(attr_kind(got))));
}

const AttrValue* find_attr(const ShapeQuery& q, const AttrDecl& decl) {
  const AttrValue* v = q.attrs.find(decl.name);
  if (!v && decl.required) missing_attr(q, decl);
  return v;
}

int64_t int_attr(const ShapeQuery& q, std::string_view name) {
  const AttrDecl& decl = q.attr(name);
  const AttrValue* v = find_attr(q, decl);
  if (!v) return static_cast<int64_t>(decl.number);
  if (const auto* i = std::get_if<int64_t>(v)) return *i;
  wrong_attr(q, decl, *v);
}

bool bool_attr(const ShapeQuery& q, std::string_view name) {
  const AttrDecl& decl = q.attr(name);
  const AttrValue* v = find_attr(q, decl);
  if (!v) return decl.number != 0;
  if (const auto* b = std::get_if<bool>(v)) return *b;
  if (const auto* i = std::get_if<int64_t>(v)) return *i != 0;  // ONNX writes bools as ints
  wrong_attr(q, decl, *v);
}

const std::vector<int64_t>* ints_attr(const ShapeQuery& q, std::string_view name) {
  static const std::vector<int64_t> kEmpty;
  const AttrDecl& decl = q.attr(name);
  const AttrValue* v = find_attr(q, decl);
  if (!v) return nullptr;
  if (const auto* ints = std::get_if<std::vector<int64_t>>(v)) return ints;
  // An empty list may be stored as either list kind.
  if (const auto* floats = std::get_if<std::vector<double>>(v); floats && floats->empty()) return &kEmpty;
  wrong_attr(q, decl, *v);
}

const std::vector<int64_t>& required_ints(const ShapeQuery& q, std::string_view name) {
  const std::vector<int64_t>* list = ints_attr(q, name);
  if (!list)
    throw CompileError("internal error: [" + std::string(q.op) + "] declares '" + std::string(name) +
                       "' optional but reads it as required");
  return *list;
}

void expect_inputs(const ShapeQuery& q, size_t n) {
  if (q.inputs.size() != n)
    op_error(q.op, "expected " + std::to_string(n) + " tensor input(s), got " +
                       std::to_string(q.inputs.size()));
}

void expect_dtype(const ShapeQuery& q, const TensorType& t, DTypeSet allowed, const std::string& what) {
  if (allowed.contains(t.dtype)) return;
  op_error(q.op, what + ": expected dtype " + allowed.str() + ", got " + std::string(dtype_name(t.dtype)));
}

void expect_dtype(const ShapeQuery& q, const TensorType& t, std::initializer_list<DType> allowed,
                  const std::string& what) {
  expect_dtype(q, t, DTypeSet(allowed), what);
}

int64_t normalize_dim(const ShapeQuery& q, int64_t dim, int64_t rank) {
  const int64_t lo = rank == 0 ? -1 : -rank, hi = rank == 0 ? 0 : rank - 1;
  if (dim < lo || dim > hi)
    op_error(q.op, "dim " + std::to_string(dim) + " out of range [" + std::to_string(lo) + ", " +
                       std::to_string(hi) + "] for rank " + std::to_string(rank));
  return dim < 0 ? dim + std::max<int64_t>(rank, 1) : dim;
}

namespace {
std::string dims_str(const Dims& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + dims[i].str();
  return s + "]";
}
}  // namespace

Dims broadcast_dims(const ShapeQuery& q, const Dims& a,
                                const Dims& b) {
  const size_t rank = std::max(a.size(), b.size());
  Dims out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const Dim* da = i < rank - a.size() ? nullptr : &a[i - (rank - a.size())];
    const Dim* db = i < rank - b.size() ? nullptr : &b[i - (rank - b.size())];
    if (!da) { out[i] = *db; continue; }
    if (!db) { out[i] = *da; continue; }
    if (*da == *db) { out[i] = *da; continue; }
    const bool a_one = da->is_static() && da->value == 1;
    const bool b_one = db->is_static() && db->value == 1;
    if (a_one) { out[i] = *db; continue; }
    if (b_one) { out[i] = *da; continue; }
    if (da->is_static() && db->is_static())
      op_error(q.op, "shapes " + dims_str(a) + " and " + dims_str(b) +
                         " cannot be broadcast (dim " + std::to_string(i) + ": " +
                         std::to_string(da->value) + " vs " + std::to_string(db->value) + ")");
    // A static size wins over a symbol (the symbol must equal it at run time);
    // between two symbols keep the first.
    out[i] = da->is_static() ? *da : (db->is_static() ? *db : *da);
  }
  return out;
}

Dim add_dims(const Dim& a, const Dim& b) {
  if (a.is_static() && b.is_static()) return Dim::fixed(a.value + b.value);
  auto ua = a.upper_bound(), ub = b.upper_bound();
  if (ua && ub) return Dim::dynamic(*ua + *ub);
  // An unbounded sum has no name of its own; name it after its parts so that
  // equal sums compare equal.
  auto part = [](const Dim& d) {
    return d.kind == Dim::Kind::Symbolic ? d.symbol.str() : d.kind == Dim::Kind::Static ? std::to_string(d.value) : "dyn";
  };
  return Dim::symbolic(part(a) + "_plus_" + part(b), -1);
}

}  // namespace edgec::ops

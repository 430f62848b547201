// Tensors whose sizes are symbolic dims, built at run time from a tensor
// that has the dim (a "carrier"): ConstantOfShape, Expand and Range with
// symbolic targets, and shape values read as data.
//
// The carrier of dim `axis` of a value is the value with every other dim
// selected at index 0, cast to bool: a 1-D tensor of exactly that size.
// Its contents never matter: where(c, y, y) broadcasts y against c's shape.
//
// Handlers check that every size they pass is static or one dim of a
// tensor (SymInt::is_single_dim) before calling these.
#include "frontends/onnx/context.h"

namespace edgec::onnx_import {

Value* Importer::dim_carrier(const SymPart& part, const std::string& hint) {
  if (!part.source) internal_error("no tensor has the symbolic size " + part.dim.str());
  Value* v = part.source;
  for (int d = v->type().rank() - 1; d >= 0; --d)
    if (d != part.axis) v = emit("select", {v}, attrs_of({{"dim", int64_t{d}}, {"index", int64_t{0}}}), hint);
  if (v->type().dtype != DType::Bool) v = emit("cast", {v}, attrs_of({{"dtype", DType::Bool}}), hint);
  return v;
}

namespace {

/// Dims of a broadcast target: static sizes, or 1 where a carrier supplies the size.
std::vector<int64_t> static_or_one(const std::vector<SymInt>& dims) {
  std::vector<int64_t> out;
  for (const SymInt& d : dims) {
    if (!d.is_static() && !d.is_single_dim()) internal_error("a tensor of the computed size " + d.str());
    out.push_back(d.is_static() ? d.factor : 1);
  }
  return out;
}

}  // namespace

Value* Importer::broadcast_to(Value* x, const std::vector<SymInt>& dims, const std::string& hint) {
  static_or_one(dims);  // validates
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t xr = x->type().rank();
  std::vector<int64_t> shape(dims.size());
  Value* cond = nullptr;
  for (int64_t i = 0; i < rank; ++i) {
    const SymInt& d = dims[i];
    const int64_t xi = i - (rank - xr);
    const Dim* xd = xi >= 0 ? &x->type().dims[xi] : nullptr;
    if (d.is_static()) {
      shape[i] = d.factor;
      continue;
    }
    if (xd && !(xd->is_static() && xd->value == 1)) {
      shape[i] = -1;  // the input has the size already
      continue;
    }
    shape[i] = 1;
    std::vector<int64_t> others;
    for (int64_t j = 0; j < rank; ++j)
      if (j != i) others.push_back(j);
    Value* c = dim_carrier(d.parts[0], hint + "_size");
    if (!others.empty()) c = emit("unsqueeze", {c}, attrs_of({{"dims", others}}), hint + "_size");
    cond = cond ? emit("logical_and", {cond, c}, {}, hint + "_size") : c;
  }
  if (rank < xr) internal_error("broadcasting " + x->type().str() + " to fewer dims");
  Value* y = x;
  bool trivial = rank == xr;
  for (int64_t i = 0; trivial && i < rank; ++i)
    trivial = shape[i] == -1 || (x->type().dims[i].is_static() && x->type().dims[i].value == shape[i]);
  if (!trivial) y = emit("expand", {x}, attrs_of({{"shape", shape}}), hint);
  if (cond) y = emit("where", {cond, y, y}, {}, hint);
  return y;
}

Value* Importer::filled(const std::vector<SymInt>& dims, double value, DType dtype, const std::string& hint) {
  const std::vector<int64_t> base = static_or_one(dims);
  Value* f = full(base, value, dtype, hint);
  bool symbolic = false;
  for (const SymInt& d : dims) symbolic |= !d.is_static();
  return symbolic ? broadcast_to(f, dims, hint) : f;
}

Value* Importer::sym_scalar(const SymInt& s, const std::string& hint) {
  Value* r = full({}, static_cast<double>(s.factor), DType::Int64, hint);
  for (const SymPart& p : s.parts) {
    Value* c = dim_carrier(p, hint);
    Value* one = full({}, 1.0, DType::Int64, hint);
    Value* ones = emit("where", {c, one, one}, {}, hint);
    Value* n = emit("sum", {ones}, {}, hint);
    r = emit("mul", {r, n}, {}, hint);
  }
  return r;
}

}  // namespace edgec::onnx_import

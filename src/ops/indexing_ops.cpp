// Shape functions of the indexing family: take (ONNX Gather), gather
// (torch.gather / GatherElements), index (PyTorch advanced indexing of the
// leading dims, or a bool mask), nonzero and pick, declared with their
// kernels in src/kernels/indexing.cpp; scatter (ONNX ScatterElements) and
// scatter_nd (ONNX ScatterND), declared in src/kernels/scatter.cpp. topk is
// in shape_ops.cpp.
//
// Static inputs give exactly the shapes of src/kernels/indexing.cpp. Index
// values come from data, so only the errors types decide are raised here
// (wrong dtypes, ranks, shapes, and any index into a dim of size 0). A mask
// index and nonzero have a data-dependent row count: ?<=N where N bounds the
// number of mask elements. pick's result has, in each dim where its
// candidates differ, a data-dependent size ?<=N, N the largest candidate's.
#include <algorithm>
#include <optional>
#include <string>
#include <variant>

#include "kernels/tensor.h"  // kMaxRank
#include "ops/op_rows.h"

namespace edgec::ops {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

/// Wraps a possibly negative dim into [0, rank), rank >= 1.
int wrap_dim(const ShapeQuery& q, int64_t dim, int64_t rank) {
  const int64_t wrapped = dim < 0 ? dim + rank : dim;
  if (wrapped < 0 || wrapped >= rank)
    op_error(q.op, "expected a dim in [" + str(-rank) + ", " + str(rank - 1) + "] for rank " +
                       str(rank) + ", got " + str(dim));
  return static_cast<int>(wrapped);
}

void check_rank_fits(const ShapeQuery& q, int64_t rank) {
  if (rank > kMaxRank)
    op_error(q.op, "expected a result of rank at most " + str(kMaxRank) + ", got rank " + str(rank));
}

void expect_index_dtype(const ShapeQuery& q, const TensorType& t, const std::string& what) {
  expect_dtype(q, t, {DType::Int64, DType::Int32}, what);
}

bool has_elements(const TensorType& t) {
  return t.is_static() && std::all_of(t.dims.begin(), t.dims.end(), [](const Dim& d) { return d.value > 0; });
}

/// Every index value is out of range for a dim of size 0, so an index
/// tensor known to hold elements fails whatever its values.
void check_not_empty_dim(const ShapeQuery& q, const TensorType& x, int dim, const TensorType& index) {
  const Dim& d = x.dims[dim];
  if (d.is_static() && d.value == 0 && has_elements(index))
    op_error(q.op, "expected a non-empty dim " + str(dim) + " of " + x.str() + " to index with " +
                       index.str() + ", got size 0");
}

/// The row count of a data-dependent result: the number of nonzero elements
/// of a mask whose dims are `dims` (each dim bounded by the tighter of
/// `dims[i]` and `also[i]`, which may be shorter or empty). Unbounded masks
/// give a symbol named after their dims.
Dim nonzero_count(const Dims& dims, const Dims& also) {
  std::optional<int64_t> bound = 1;
  std::string name;
  for (size_t i = 0; i < dims.size(); ++i) {
    std::optional<int64_t> ub = dims[i].upper_bound();
    if (i < also.size()) {
      const auto other = also[i].upper_bound();
      if (other) ub = ub ? std::min(*ub, *other) : *other;
    }
    if (!dims[i].is_static()) {
      const Dim& named = dims[i].kind == Dim::Kind::Symbolic || i >= also.size() ? dims[i] : also[i];
      if (!name.empty()) name += "_x_";
      name += named.kind == Dim::Kind::Symbolic ? named.symbol.str() : "dyn";
    }
    if (!bound || !ub || __builtin_mul_overflow(*bound, *ub, &*bound)) bound.reset();
  }
  if (bound) return Dim::dynamic(*bound);
  return Dim::symbolic(name + "_nonzero", -1);
}

// ---- take, gather ----------------------------------------------------------------

// What take and gather share: (x, index) with an index of an index dtype
// (`index_name` in messages) and x of rank >= 1. Returns the wrapped dim.
int take_dim(const ShapeQuery& q, const std::string& index_name) {
  expect_inputs(q, 2);
  const TensorType& x = q.inputs[0];
  expect_index_dtype(q, q.inputs[1], index_name);
  if (x.rank() == 0) op_error(q.op, "expected an input of rank >= 1, got " + x.str());
  return wrap_dim(q, int_attr(q, "dim"), x.rank());
}

// ONNX Gather: x.shape[:dim] + indices.shape + x.shape[dim+1:].
std::vector<TensorType> take_shape(const ShapeQuery& q) {
  const int dim = take_dim(q, "indices");
  const TensorType& x = q.inputs[0];
  const TensorType& index = q.inputs[1];
  check_rank_fits(q, x.rank() - 1 + index.rank());
  check_not_empty_dim(q, x, dim, index);
  Dims out(x.dims.begin(), x.dims.begin() + dim);
  out.insert(out.end(), index.dims.begin(), index.dims.end());
  out.insert(out.end(), x.dims.begin() + dim + 1, x.dims.end());
  return {TensorType(x.dtype, std::move(out))};
}

// torch.gather: the result has the index's shape; the index may be smaller
// than x outside dim.
std::vector<TensorType> gather_shape(const ShapeQuery& q) {
  const int dim = take_dim(q, "index");
  const TensorType& x = q.inputs[0];
  const TensorType& index = q.inputs[1];
  bool fits = index.rank() == x.rank();
  for (int d = 0; fits && d < x.rank(); ++d) {
    const Dim &i = index.dims[d], &s = x.dims[d];
    const auto ub = s.upper_bound();
    fits = d == dim || !i.is_static() || !ub || i.value <= *ub;
  }
  if (!fits)
    op_error(q.op, "expected an index of rank " + str(x.rank()) + " no larger than " + x.str() +
                       " outside dim " + str(dim) + ", got " + index.str());
  check_not_empty_dim(q, x, dim, index);
  return {TensorType(x.dtype, index.dims)};
}

// ---- index -----------------------------------------------------------------------

// x[mask]: [count] + x.shape[mask.rank:], count data-dependent.
std::vector<TensorType> index_by_mask(const ShapeQuery& q, const TensorType& x, const TensorType& mask) {
  bool matches = mask.rank() <= x.rank();
  for (int d = 0; matches && d < mask.rank(); ++d) {
    const Dim &m = mask.dims[d], &s = x.dims[d];
    matches = !m.is_static() || !s.is_static() || m.value == s.value;
  }
  if (!matches)
    op_error(q.op, "expected a bool mask matching the leading dims of " + x.str() + ", got " + mask.str());
  check_rank_fits(q, 1 + x.rank() - mask.rank());
  Dims out = {nonzero_count(mask.dims, x.dims)};
  out.insert(out.end(), x.dims.begin() + mask.rank(), x.dims.end());
  return {TensorType(x.dtype, std::move(out))};
}

// x[i0, i1, ...]: broadcast(index shapes) + x.shape[count:].
std::vector<TensorType> index_by_integers(const ShapeQuery& q, const TensorType& x,
                                          TypeList indices) {
  const int64_t count = static_cast<int64_t>(indices.size());
  if (count > x.rank())
    op_error(q.op, "expected at most " + str(x.rank()) + " indices for " + x.str() + ", got " +
                       str(count));
  Dims shape;
  for (const TensorType& t : indices) shape = broadcast_dims(q, shape, t.dims);
  check_rank_fits(q, static_cast<int64_t>(shape.size()) + x.rank() - count);
  for (int j = 0; j < count; ++j) check_not_empty_dim(q, x, j, indices[j]);
  shape.insert(shape.end(), x.dims.begin() + count, x.dims.end());
  return {TensorType(x.dtype, std::move(shape))};
}

std::vector<TensorType> index_shape(const ShapeQuery& q) {
  if (q.inputs.size() < 2)
    op_error(q.op, "expected an input and at least 1 index, got " + str(static_cast<int64_t>(q.inputs.size())) +
                       " tensor(s)");
  const TensorType& x = q.inputs[0];
  const TypeList indices = q.inputs.subspan(1);
  bool any_mask = false;
  for (size_t j = 0; j < indices.size(); ++j) {
    if (indices[j].dtype == DType::Bool) {
      any_mask = true;
    } else {
      expect_index_dtype(q, indices[j], "index " + str(static_cast<int64_t>(j)));
    }
  }
  if (any_mask) {
    if (indices.size() != 1)
      op_error(q.op, "expected a single bool mask or only integer indices, got a mask among " +
                         str(static_cast<int64_t>(indices.size())) + " indices (not supported)");
    return index_by_mask(q, x, indices[0]);
  }
  return index_by_integers(q, x, indices);
}

// ---- nonzero ---------------------------------------------------------------------

// torch.nonzero: i64 [count, rank].
std::vector<TensorType> nonzero_shape(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  return {TensorType(DType::Int64, {nonzero_count(x.dims, {}), Dim::fixed(x.rank())})};
}

// ---- unique ------------------------------------------------------------------------
// src/kernels/unique.cpp: y of x's dtype ([?<=numel], or x's dims with
// ?<=size along dim), i64 indices [?<=n], inverse [n], counts [?<=n], and
// an i64 [3n] workspace; n is the number of elements, or of slices along dim.
std::vector<TensorType> unique_shape(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  const std::vector<int64_t>* dims = ints_attr(q, "dim");
  // A dim whose size is decided at run time, at most `times` * n.
  auto up_to = [](const Dim& n, int64_t times, const char* name) {
    const auto ub = n.upper_bound();
    int64_t b = 0;
    if (ub && !__builtin_mul_overflow(*ub, times, &b)) return Dim::dynamic(b);
    return Dim::symbolic(name);
  };
  Dim n;
  Dims y;
  int d = -1;
  if (!dims) {
    n = x.is_static() ? Dim::fixed(x.max_numel().value_or(0)) : nonzero_count(x.dims, {});
  } else {
    if (dims->size() != 1) op_error(q.op, "expected attribute 'dim' to hold one dim, got " + str(static_cast<int64_t>(dims->size())));
    if (x.rank() == 0) op_error(q.op, "expected an input of rank >= 1 for a dim, got " + x.str());
    d = wrap_dim(q, (*dims)[0], x.rank());
    n = x.dims[d];
    y = x.dims;
  }
  const Dim k = up_to(n, 1, "unique_count");
  if (d < 0) {
    y = {k};
  } else {
    y[d] = k;
  }
  const Dim ws = n.is_static() ? Dim::fixed(3 * n.value) : up_to(n, 3, "unique_workspace");
  return {TensorType(x.dtype, std::move(y)), TensorType(DType::Int64, {k}), TensorType(DType::Int64, {n}),
          TensorType(DType::Int64, {k}), TensorType(DType::Int64, {ws})};
}

// ---- scatter, scatter_nd ---------------------------------------------------------

/// False only where both dims are static and differ.
bool may_equal(const Dim& a, const Dim& b) { return !a.is_static() || !b.is_static() || a.value == b.value; }

/// What scatter and scatter_nd share: (self, indices, updates), updates of
/// self's dtype, self of rank >= 1; the result is self's type.
void scatter_args(const ShapeQuery& q) {
  expect_inputs(q, 3);
  const TensorType& x = q.inputs[0];
  expect_index_dtype(q, q.inputs[1], "indices");
  if (q.inputs[2].dtype != x.dtype)
    op_error(q.op, "expected updates of dtype " + std::string(dtype_name(x.dtype)) + " like the input, got " +
                       q.inputs[2].str());
  if (x.rank() == 0) op_error(q.op, "expected an input of rank >= 1, got " + x.str());
}

// ONNX ScatterElements: indices and updates of one shape, of self's rank,
// no larger than self outside dim.
std::vector<TensorType> scatter_shape(const ShapeQuery& q) {
  scatter_args(q);
  const TensorType& x = q.inputs[0];
  const TensorType& index = q.inputs[1];
  const TensorType& upd = q.inputs[2];
  const int dim = wrap_dim(q, int_attr(q, "dim"), x.rank());
  bool fits = index.rank() == x.rank();
  for (int d = 0; fits && d < x.rank(); ++d) {
    const auto ub = x.dims[d].upper_bound();
    fits = d == dim || !index.dims[d].is_static() || !ub || index.dims[d].value <= *ub;
  }
  if (!fits)
    op_error(q.op, "expected indices of rank " + str(x.rank()) + " no larger than " + x.str() + " outside dim " +
                       str(dim) + ", got " + index.str());
  bool same = upd.rank() == index.rank();
  for (int d = 0; same && d < index.rank(); ++d) same = may_equal(upd.dims[d], index.dims[d]);
  if (!same) op_error(q.op, "expected updates of the indices' shape " + index.str() + ", got " + upd.str());
  check_not_empty_dim(q, x, dim, index);
  return {x};
}

// ONNX ScatterND: indices [..., k] with a static k in [1, rank]; updates
// indices.shape[:-1] + self.shape[k:].
std::vector<TensorType> scatter_nd_shape(const ShapeQuery& q) {
  scatter_args(q);
  const TensorType& x = q.inputs[0];
  const TensorType& index = q.inputs[1];
  const TensorType& upd = q.inputs[2];
  if (index.rank() == 0 || !index.dims.back().is_static() || index.dims.back().value < 1 ||
      index.dims.back().value > x.rank())
    op_error(q.op, "expected indices of rank >= 1 whose last dim is 1 to " + str(x.rank()) + " for " + x.str() +
                       ", got " + index.str());
  const int64_t k = index.dims.back().value;
  Dims expected(index.dims.begin(), index.dims.end() - 1);
  expected.insert(expected.end(), x.dims.begin() + k, x.dims.end());
  bool same = upd.dims.size() == expected.size();
  for (size_t d = 0; same && d < expected.size(); ++d) same = may_equal(upd.dims[d], expected[d]);
  if (!same)
    op_error(q.op, "expected updates of shape " + TensorType(x.dtype, expected).str() + " (indices.shape[:-1] + " +
                       "input.shape[" + str(k) + ":]), got " + upd.str());
  return {x};
}

// ---- pick ------------------------------------------------------------------------

// (index, t0, ..., tn-1): a scalar index and tensors of one dtype and rank.
// Each dim is the candidates' own where they all agree; where they differ,
// it is data-dependent, bounded by the largest candidate's (so the memory
// plan reserves room for any of them).
std::vector<TensorType> pick_shape(const ShapeQuery& q) {
  if (q.inputs.size() < 2)
    op_error(q.op, "expected an index and at least 1 tensor, got " + str(static_cast<int64_t>(q.inputs.size())) +
                       " tensor(s)");
  const TensorType& index = q.inputs[0];
  expect_index_dtype(q, index, "index");
  if (index.rank() != 0) op_error(q.op, "expected a scalar index, got " + index.str());
  const TypeList tensors = q.inputs.subspan(1);
  const TensorType& first = tensors[0];
  Dims out = first.dims;
  for (const TensorType& t : tensors) {
    if (t.dtype != first.dtype || t.rank() != first.rank())
      op_error(q.op, "expected tensors of one dtype and rank, got " + first.str() + " and " + t.str());
    for (size_t d = 0; d < out.size(); ++d) {
      if (t.dims[d] == first.dims[d]) continue;
      std::optional<int64_t> bound;
      for (const TensorType& u : tensors) {
        const auto ub = u.dims[d].upper_bound();
        if (!ub)
          op_error(q.op, "expected bounded dims where the tensors differ, got dim " + str(static_cast<int64_t>(d)) +
                             " of " + u.str() + " among tensors of other sizes there");
        bound = std::max(bound.value_or(0), *ub);
      }
      out[d] = Dim::dynamic(*bound);
    }
  }
  return {TensorType(first.dtype, std::move(out))};
}

}  // namespace

std::vector<std::pair<std::string_view, ShapeFn>> indexing_shapes() {
  return {{"take", take_shape},       {"gather", gather_shape},   {"index", index_shape},
          {"nonzero", nonzero_shape}, {"scatter", scatter_shape}, {"scatter_nd", scatter_nd_shape},
          {"pick", pick_shape},     {"unique", unique_shape}};
}

}  // namespace edgec::ops

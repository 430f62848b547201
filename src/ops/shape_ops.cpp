// Shape functions of the shape and data-movement family: reshape, permute,
// expand, squeeze, unsqueeze, flatten, concat, split, slice, select, pad,
// tile, triu, tril and topk, declared with their kernels.
//
// Static inputs give exactly the portable kernels' output shapes
// (src/kernels/shape.cpp, shape_pad.cpp, shape_topk.cpp), and the errors are
// the kernels' errors that types and attributes alone decide. A symbolic or
// data-dependent dim that an op only moves passes through unchanged; one that
// an op computes with becomes a derived dim named after its inputs
// (batch_mul12, seq_plus2, seq_slice_1_m1_1), bounded when they are, and
// data-dependent (?<=bound) when one of them is.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <variant>

#include "kernels/tensor.h"  // kMaxRank
#include "ops/op_rows.h"

namespace edgec::ops {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

std::string list_str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + str(v[i]);
  return s + "]";
}

// ---- dims ------------------------------------------------------------------------

/// Wraps a possibly negative dim into [0, rank) like the kernels do (a rank-0
/// input has no dims at all), or throws.
int wrap_dim(const ShapeQuery& q, int64_t dim, int64_t rank) {
  if (rank == 0) op_error(q.op, "expected an input with a dim " + str(dim) + ", got rank 0");
  const int64_t wrapped = dim < 0 ? dim + rank : dim;
  if (wrapped < 0 || wrapped >= rank)
    op_error(q.op, "expected a dim in [" + str(-rank) + ", " + str(rank - 1) + "] for rank " +
                       str(rank) + ", got " + str(dim));
  return static_cast<int>(wrapped);
}

/// Wraps a list of distinct dims against `rank`.
std::vector<int> wrap_dim_list(const ShapeQuery& q, const std::vector<int64_t>& dims,
                               int64_t rank) {
  if (static_cast<int64_t>(dims.size()) > rank)
    op_error(q.op, "expected at most " + str(rank) + " dims for rank " + str(rank) + ", got " +
                       list_str(dims));
  std::vector<int> out;
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t d : dims) {
    const int w = wrap_dim(q, d, rank);
    if (seen[w]) op_error(q.op, "expected distinct dims, got dim " + str(d) + " twice in " + list_str(dims));
    seen[w] = true;
    out.push_back(w);
  }
  return out;
}

void check_rank_fits(const ShapeQuery& q, int64_t rank) {
  if (rank > kMaxRank)
    op_error(q.op, "expected a result of rank at most " + str(kMaxRank) + ", got rank " + str(rank));
}

bool is_static_size(const Dim& d, int64_t size) { return d.is_static() && d.value == size; }

/// What a derived name calls a non-static dim.
std::string dim_name(const Dim& d) { return d.kind == Dim::Kind::Symbolic ? d.symbol.str() : "dyn"; }

/// |v| in decimal, INT64_MIN included.
std::string abs_str(int64_t v) {
  return std::to_string(v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v));
}

/// A number as part of a symbol name: "3", "m3" for -3.
std::string num_tag(int64_t v) { return (v < 0 ? "m" : "") + abs_str(v); }

/// A dim computed from the non-static dims `parts`: data-dependent when one
/// of them is (and a bound is known), else a symbol named `name`.
Dim derived_dim(const Dims& parts, std::string name, std::optional<int64_t> bound) {
  const bool dynamic = std::any_of(parts.begin(), parts.end(),
                                   [](const Dim& d) { return d.kind == Dim::Kind::Dynamic; });
  if (dynamic && bound) return Dim::dynamic(*bound);
  return Dim::symbolic(std::move(name), bound ? *bound : -1);
}

/// A product of dims: a static factor times the non-static parts.
struct DimProduct {
  int64_t factor = 1;
  Dims parts;
};

DimProduct product_of(const ShapeQuery& q, const Dims& dims, size_t begin, size_t end) {
  DimProduct p;
  for (size_t i = begin; i < end; ++i) {
    if (dims[i].is_static()) {
      if (__builtin_mul_overflow(p.factor, dims[i].value, &p.factor))
        op_error(q.op, "expected an element count that fits in int64, got dims " +
                           TensorType(DType::Float32, dims).str().substr(3));
    } else {
      p.parts.push_back(dims[i]);
    }
  }
  return p;
}

/// The dim p / divisor (divisor > 0): static when p is, the single part
/// itself when p is one part times 1, else derived ("batch_x_seq_mul3_div2").
Dim product_dim(DimProduct p, int64_t divisor) {
  if (p.factor == 0) return Dim::fixed(0);
  const int64_t g = std::gcd(p.factor, divisor);
  const int64_t factor = p.factor / g;
  divisor /= g;
  if (p.parts.empty()) return Dim::fixed(factor / divisor);
  if (p.parts.size() == 1 && factor == 1 && divisor == 1) return p.parts[0];
  std::string name;
  for (size_t i = 0; i < p.parts.size(); ++i) name += (i ? "_x_" : "") + dim_name(p.parts[i]);
  if (factor != 1) name += "_mul" + str(factor);
  if (divisor != 1) name += "_div" + str(divisor);
  std::optional<int64_t> bound = factor;
  for (const Dim& d : p.parts) {
    const auto ub = d.upper_bound();
    if (!ub || !bound || __builtin_mul_overflow(*bound, *ub, &*bound)) bound.reset();
  }
  if (bound) *bound /= divisor;
  return derived_dim(p.parts, std::move(name), bound);
}

/// A non-static dim plus `delta` (pad): "seq_plus2", "seq_minus1".
Dim offset_dim(const Dim& d, int64_t delta) {
  if (delta == 0) return d;
  const std::string name = dim_name(d) + (delta > 0 ? "_plus" : "_minus") + abs_str(delta);
  std::optional<int64_t> bound = d.upper_bound();
  int64_t sum = 0;
  if (bound) {
    if (__builtin_add_overflow(*bound, delta, &sum)) bound.reset();
    else bound = std::max<int64_t>(sum, 0);
  }
  return derived_dim({d}, name, bound);
}

// ---- reshape, squeeze, unsqueeze, flatten ----------------------------------------

std::vector<TensorType> reshape_shape(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  const auto& spec = required_ints(q, "shape");
  check_rank_fits(q, static_cast<int64_t>(spec.size()));
  int inferred = -1;
  int64_t known = 1;
  bool overflow = false;
  for (size_t i = 0; i < spec.size(); ++i) {
    if (spec[i] == -1) {
      if (inferred >= 0) op_error(q.op, "expected at most one -1 in shape, got " + list_str(spec));
      inferred = static_cast<int>(i);
    } else if (spec[i] < 0) {
      op_error(q.op, "expected sizes >= 0 (or one -1) in shape, got " + list_str(spec));
    } else {
      overflow = overflow || __builtin_mul_overflow(known, spec[i], &known);
    }
  }
  const DimProduct numel = product_of(q, x.dims, 0, x.dims.size());
  auto mismatch = [&](const std::string& why) {
    op_error(q.op, "expected a shape with as many elements as " + x.str() + ", got " +
                       list_str(spec) + why);
  };
  Dims out(spec.size());
  for (size_t i = 0; i < spec.size(); ++i)
    if (static_cast<int>(i) != inferred) out[i] = Dim::fixed(spec[i]);
  if (inferred >= 0) {
    if (overflow || known == 0) mismatch(" (the -1 cannot be inferred)");
    if (numel.parts.empty() && numel.factor % known != 0)
      mismatch(" (" + str(numel.factor) + " elements is not a multiple of " + str(known) + ")");
    out[inferred] = product_dim(numel, known);
  } else if (numel.parts.empty()) {
    if (overflow || known != numel.factor)
      mismatch(" (" + str(numel.factor) + " elements vs " + (overflow ? "too many" : str(known)) + ")");
  } else {
    // numel = factor * (non-static dims) must equal `known`.
    if (overflow || (numel.factor == 0 ? known != 0 : known % numel.factor != 0))
      mismatch(" (" + (overflow ? std::string("too many") : str(known)) +
               " elements is not a multiple of " + str(numel.factor) + ")");
    const std::optional<int64_t> most = x.max_numel();
    if (most && known > *most)
      mismatch(" (" + str(known) + " elements, more than its bound " + str(*most) + ")");
  }
  return {TensorType(x.dtype, std::move(out))};
}

std::vector<TensorType> squeeze_shape(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  const std::vector<int64_t>* dims = ints_attr(q, "dims");
  std::vector<bool> drop(x.dims.size(), false);
  if (!dims) {
    // Without dims only the dims known to be 1 go; a symbol that turns out
    // to be 1 at run time stays (the kernel would drop it).
    for (size_t d = 0; d < x.dims.size(); ++d) drop[d] = is_static_size(x.dims[d], 1);
  } else if (x.rank() == 0) {
    // Like torch, dim 0 or -1 of a scalar leaves it unchanged.
    for (int64_t d : *dims)
      if (d != 0 && d != -1) op_error(q.op, "expected dim 0 or -1 for rank 0, got " + str(d));
  } else {
    const std::vector<int> wrapped = wrap_dim_list(q, *dims, x.rank());
    for (size_t i = 0; i < wrapped.size(); ++i) {
      const Dim& d = x.dims[wrapped[i]];
      if (d.is_static() && d.value != 1)
        op_error(q.op, "expected dim " + str((*dims)[i]) + " of " + x.str() + " to have size 1, got " +
                           str(d.value));
      drop[wrapped[i]] = true;  // a listed symbol must be 1 at run time
    }
  }
  Dims out;
  for (size_t d = 0; d < x.dims.size(); ++d)
    if (!drop[d]) out.push_back(x.dims[d]);
  return {TensorType(x.dtype, std::move(out))};
}

std::vector<TensorType> unsqueeze_shape(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  const auto& dims = required_ints(q, "dims");
  const int64_t out_rank = x.rank() + static_cast<int64_t>(dims.size());
  check_rank_fits(q, out_rank);
  std::vector<bool> inserted(static_cast<size_t>(out_rank), false);
  for (int d : wrap_dim_list(q, dims, out_rank)) inserted[d] = true;
  Dims out;
  size_t next = 0;
  for (int64_t d = 0; d < out_rank; ++d) out.push_back(inserted[d] ? Dim::fixed(1) : x.dims[next++]);
  return {TensorType(x.dtype, std::move(out))};
}

std::vector<TensorType> flatten_shape(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  const int64_t start_attr = int_attr(q, "start_dim");
  const int64_t end_attr = int_attr(q, "end_dim");
  // A scalar flattens to [1] (torch): dims are taken against rank >= 1.
  const int64_t rank = std::max(x.rank(), 1);
  const int start = wrap_dim(q, start_attr, rank);
  const int end = wrap_dim(q, end_attr, rank);
  if (start > end)
    op_error(q.op, "expected start_dim <= end_dim, got start_dim " + str(start_attr) +
                       " after end_dim " + str(end_attr) + " for rank " + str(x.rank()));
  if (x.rank() == 0) return {TensorType(x.dtype, {Dim::fixed(1)})};
  Dims out(x.dims.begin(), x.dims.begin() + start);
  out.push_back(product_dim(product_of(q, x.dims, start, end + 1), 1));
  out.insert(out.end(), x.dims.begin() + end + 1, x.dims.end());
  return {TensorType(x.dtype, std::move(out))};
}

// ---- permute, expand ---------------------------------------------------------------

/// The one input's required int list `name` with an entry per dim of the
/// input (permute's dims, tile's repeats).
const std::vector<int64_t>& per_dim_ints(const ShapeQuery& q, std::string_view name) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  const auto& list = required_ints(q, name);
  if (static_cast<int64_t>(list.size()) != x.rank())
    op_error(q.op, "expected " + str(x.rank()) + " " + std::string(name) + " for " + x.str() + ", got " +
                       list_str(list));
  return list;
}

std::vector<TensorType> permute_shape(const ShapeQuery& q) {
  const auto& dims = per_dim_ints(q, "dims");
  const TensorType& x = q.inputs[0];
  Dims out;
  for (int d : wrap_dim_list(q, dims, x.rank())) out.push_back(x.dims[d]);
  return {TensorType(x.dtype, std::move(out))};
}

// Bidirectional like ONNX Expand and the kernel: a target 1 keeps the input's
// size, -1 keeps it too, and the target may have fewer dims than the input.
std::vector<TensorType> expand_shape(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  const auto& target = required_ints(q, "shape");
  check_rank_fits(q, static_cast<int64_t>(target.size()));
  const int64_t rank = std::max<int64_t>(x.rank(), static_cast<int64_t>(target.size()));
  Dims out(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t xi = i - (rank - x.rank());
    const int64_t ti = i - (rank - static_cast<int64_t>(target.size()));
    const Dim in = xi >= 0 ? x.dims[xi] : Dim::fixed(1);
    const int64_t want = ti >= 0 ? target[ti] : -1;
    if (want == -1) {
      if (xi < 0)
        op_error(q.op, "expected a size for the new leading dim " + str(i) + ", got -1 in " +
                           list_str(target));
      out[i] = in;
    } else if (want < 0) {
      op_error(q.op, "expected sizes >= 0 (or -1) in shape, got " + list_str(target));
    } else if (want == 1) {
      out[i] = in;
    } else if (in.is_static() && in.value != 1 && in.value != want) {
      op_error(q.op, "expected a shape " + x.str() + " broadcasts to, got " + list_str(target) +
                         " (dim " + str(i) + " has size " + str(in.value) + ", target " +
                         str(want) + ")");
    } else {
      out[i] = Dim::fixed(want);  // a symbol here must be 1 or `want` at run time
    }
  }
  return {TensorType(x.dtype, std::move(out))};
}

// ---- concat, split ---------------------------------------------------------------

// torch.cat's legacy rule, as in the kernel: a 1-D input known to be empty
// ([0]) is skipped whatever the other inputs' shape.
bool is_legacy_empty(const TensorType& t) { return t.rank() == 1 && is_static_size(t.dims[0], 0); }

std::vector<TensorType> concat_shape(const ShapeQuery& q) {
  if (q.inputs.empty()) op_error(q.op, "expected at least one tensor, got none");
  // The reference is the first input that is not a legacy empty one.
  size_t ref_index = 0;
  while (ref_index + 1 < q.inputs.size() && is_legacy_empty(q.inputs[ref_index])) ++ref_index;
  const TensorType& ref = q.inputs[ref_index];
  const int64_t rank = ref.rank();
  if (rank == 0) op_error(q.op, "expected tensors of rank >= 1, got " + ref.str());
  const int dim = wrap_dim(q, q.attr("dim").int_value(q.attrs), rank);
  // The sum along dim: non-static parts first, then the static total, so
  // that a derived name starts with a symbol.
  int64_t total = 0;
  Dims parts;
  for (size_t i = 0; i < q.inputs.size(); ++i) {
    const TensorType& t = q.inputs[i];
    if (t.dtype != ref.dtype)
      op_error(q.op, "expected tensor " + std::to_string(i) + " of dtype " +
                         std::string(dtype_name(ref.dtype)) + ", got " + std::string(dtype_name(t.dtype)));
    if (is_legacy_empty(t) && t.rank() != rank) continue;
    bool same = t.rank() == rank;
    for (int64_t d = 0; same && d < rank; ++d) {
      const Dim &a = ref.dims[d], &b = t.dims[d];
      same = d == dim || !a.is_static() || !b.is_static() || a.value == b.value;
    }
    if (!same)
      op_error(q.op, "expected tensor " + std::to_string(i) + " to match " + ref.str() +
                         " outside dim " + std::to_string(dim) + ", got " + t.str());
    const Dim& d = t.dims[dim];
    if (!d.is_static()) {
      parts.push_back(d);
    } else if (__builtin_add_overflow(total, d.value, &total)) {
      op_error(q.op, "expected a result size along dim " + std::to_string(dim) + " that fits in int64");
    }
  }
  Dim sum = Dim::fixed(total);
  if (!parts.empty()) {
    sum = parts[0];
    for (size_t i = 1; i < parts.size(); ++i) sum = add_dims(sum, parts[i]);
    if (total != 0) sum = add_dims(sum, Dim::fixed(total));
  }
  TensorType out = ref;
  out.dims[dim] = sum;
  return {out};
}

// One result per entry of `sizes` (required here: the number of results
// must follow from the attributes).
std::vector<TensorType> split_shape(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  if (x.rank() == 0) op_error(q.op, "expected an input of rank >= 1, got " + x.str());
  const int dim = wrap_dim(q, int_attr(q, "dim"), x.rank());
  const auto& sizes = required_ints(q, "sizes");
  if (sizes.empty()) op_error(q.op, "expected at least one size (one per result), got []");
  int64_t sum = 0;
  for (int64_t s : sizes) {
    if (s < 0) op_error(q.op, "expected sizes >= 0, got " + list_str(sizes));
    if (__builtin_add_overflow(sum, s, &sum))
      op_error(q.op, "expected sizes that sum within int64, got " + list_str(sizes));
  }
  const Dim& total = x.dims[dim];
  const auto ub = total.upper_bound();
  if ((total.is_static() && sum != total.value) || (ub && sum > *ub))
    op_error(q.op, "expected sizes summing to dim " + str(dim) + " of " + x.str() + ", got " +
                       list_str(sizes) + " (sum " + str(sum) + ")");
  std::vector<TensorType> out;
  for (int64_t s : sizes) {
    TensorType part = x;
    part.dims[dim] = Dim::fixed(s);
    out.push_back(std::move(part));
  }
  return out;
}

// ---- slice, select ---------------------------------------------------------------

// ONNX Slice on a static size, as the kernel computes it.
int64_t slice_length(int64_t size, int64_t start, int64_t end, int64_t step) {
  if (start < 0) start += size;
  if (end < 0) end += size;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, size);
    end = std::clamp<int64_t>(end, 0, size);
    return end > start ? (end - start - 1) / step + 1 : 0;
  }
  if (size == 0) return 0;
  start = std::clamp<int64_t>(start, 0, size - 1);
  end = std::clamp<int64_t>(end, -1, size - 1);
  const uint64_t abs_step = uint64_t{0} - static_cast<uint64_t>(step);
  return start > end ? static_cast<int64_t>(static_cast<uint64_t>(start - end - 1) / abs_step) + 1 : 0;
}

// Starts/ends this far out mean "from the edge" whatever the size.
constexpr int64_t kHuge = int64_t{1} << 62;

// A slice of a non-static dim: the dim itself when the slice takes all of it
// in order (or reversed), else a derived dim bounded by the input's bound.
Dim slice_dim(const Dim& d, int64_t start, int64_t end, int64_t step) {
  const auto ub = d.upper_bound();
  const bool from_begin = start == 0 || start <= -kHuge || (ub && start <= -*ub);
  const bool to_end = end >= kHuge || (ub && end >= *ub);
  const bool from_end = start >= kHuge || (ub && start >= *ub - 1) || start == -1;
  const bool to_begin = end <= -kHuge || (ub && end <= -*ub - 1);
  if ((step == 1 && from_begin && to_end) || (step == -1 && from_end && to_begin)) return d;
  std::optional<int64_t> bound;
  if (ub) {
    // At most every |step|-th element; with both bounds non-negative and a
    // positive step, at most ceil((end - start) / step).
    const uint64_t abs_step = step > 0 ? static_cast<uint64_t>(step) : uint64_t{0} - static_cast<uint64_t>(step);
    int64_t b = static_cast<int64_t>((static_cast<uint64_t>(*ub) + abs_step - 1) / abs_step);
    if (step > 0 && start >= 0 && end >= 0) b = std::min(b, slice_length(INT64_MAX, start, end, step));
    bound = b;
  }
  const std::string name = dim_name(d) + "_slice_" + num_tag(start) + "_" + num_tag(end) + "_" + num_tag(step);
  return derived_dim({d}, name, bound);
}

std::vector<TensorType> slice_shape(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  const auto& starts = required_ints(q, "starts");
  const auto& ends = required_ints(q, "ends");
  const std::vector<int64_t>* dims_attr = ints_attr(q, "dims");
  const std::vector<int64_t>* steps = ints_attr(q, "steps");
  const size_t n = starts.size();
  if (ends.size() != n || (dims_attr && dims_attr->size() != n) || (steps && steps->size() != n))
    op_error(q.op, "expected starts, ends, dims and steps of one length, got " + str(n) + ", " +
                       str(static_cast<int64_t>(ends.size())) + ", " +
                       (dims_attr ? str(static_cast<int64_t>(dims_attr->size())) : "absent") + ", " +
                       (steps ? str(static_cast<int64_t>(steps->size())) : "absent"));
  if (static_cast<int64_t>(n) > x.rank())
    op_error(q.op, "expected at most " + str(x.rank()) + " sliced dims for " + x.str() + ", got " +
                       str(static_cast<int64_t>(n)));
  std::vector<int64_t> default_dims(n);
  std::iota(default_dims.begin(), default_dims.end(), 0);
  const std::vector<int> dims = wrap_dim_list(q, dims_attr ? *dims_attr : default_dims, x.rank());
  Dims out = x.dims;
  for (size_t i = 0; i < n; ++i) {
    const int64_t step = steps ? (*steps)[i] : 1;
    if (step == 0) op_error(q.op, "expected nonzero steps, got step 0 for dim " + str(dims[i]));
    const Dim& d = x.dims[dims[i]];
    out[dims[i]] = d.is_static() ? Dim::fixed(slice_length(d.value, starts[i], ends[i], step))
                                 : slice_dim(d, starts[i], ends[i], step);
  }
  return {TensorType(x.dtype, std::move(out))};
}

std::vector<TensorType> select_shape(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  const int dim = wrap_dim(q, int_attr(q, "dim"), x.rank());
  const int64_t index = int_attr(q, "index");
  const Dim& d = x.dims[dim];
  // Negative indices wrap once; the size (or its bound) decides the rest.
  const auto ub = d.upper_bound();
  if (ub && (index >= *ub || index < -*ub))
    op_error(q.op, "expected an index in [" + str(-*ub) + ", " + str(*ub - 1) + "] for dim " +
                       str(dim) + " of " + x.str() + ", got " + str(index));
  Dims out = x.dims;
  out.erase(out.begin() + dim);
  return {TensorType(x.dtype, std::move(out))};
}

// ---- pad, tile, triu, tril -------------------------------------------------------

std::vector<TensorType> pad_shape(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  const auto& pads = required_ints(q, "pads");
  const int64_t rank = x.rank();
  if (static_cast<int64_t>(pads.size()) != 2 * rank)
    op_error(q.op, "expected " + str(2 * rank) + " pads (begins, then ends) for " + x.str() +
                       ", got " + list_str(pads));
  const std::string_view mode = q.attr("mode").string_value(q.attrs);
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    op_error(q.op, "expected mode constant, reflect or edge, got '" + std::string(mode) + "'");
  Dims out(x.dims.size());
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t b = pads[d], e = pads[d + rank];
    const Dim& n = x.dims[d];
    const int64_t widest = std::max(b, e);
    const auto ub = n.upper_bound();
    if (mode == "reflect" && widest > 0 && ub && widest >= *ub)
      op_error(q.op, "expected dim " + str(d) + " of " + x.str() + " to be larger than its reflect padding " +
                         str(widest) + ", got size " + (n.is_static() ? str(n.value) : "at most " + str(*ub)));
    if (mode == "edge" && widest > 0 && is_static_size(n, 0))
      op_error(q.op, "expected a non-empty dim " + str(d) + " for edge padding, got size 0");
    // Summed in the kernel's order, so that overflow fails alike.
    int64_t delta = 0;
    int64_t size = 0;
    const bool overflow =
        n.is_static() ? __builtin_add_overflow(n.value, b, &size) || __builtin_add_overflow(size, e, &size)
                      : __builtin_add_overflow(b, e, &delta);
    if (overflow || (n.is_static() && size < 0))
      op_error(q.op, "expected pads that leave dim " + str(d) + " of " + x.str() +
                         " a size >= 0, got " + str(b) + ", " + str(e));
    out[d] = n.is_static() ? Dim::fixed(size) : offset_dim(n, delta);
  }
  return {TensorType(x.dtype, std::move(out))};
}

std::vector<TensorType> tile_shape(const ShapeQuery& q) {
  const auto& repeats = per_dim_ints(q, "repeats");
  const TensorType& x = q.inputs[0];
  Dims out(x.dims.size());
  for (size_t d = 0; d < repeats.size(); ++d) {
    if (repeats[d] < 0) op_error(q.op, "expected repeats >= 0, got " + list_str(repeats));
    const Dim& n = x.dims[d];
    if (n.is_static()) {
      int64_t size = 0;
      if (__builtin_mul_overflow(n.value, repeats[d], &size))
        op_error(q.op, "expected repeats whose result fits in int64, got " + list_str(repeats) +
                           " for " + x.str());
      out[d] = Dim::fixed(size);
    } else {
      out[d] = product_dim(DimProduct{repeats[d], {n}}, 1);
    }
  }
  return {TensorType(x.dtype, std::move(out))};
}

std::vector<TensorType> triangle_shape(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  if (x.rank() < 2) op_error(q.op, "expected an input of rank >= 2, got " + x.str());
  int_attr(q, "diagonal");  // kind check only
  return {x};
}

// ---- topk ------------------------------------------------------------------------

std::vector<TensorType> topk_shape(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  if (!q.decl->dtypes.contains(x.dtype)) op_error(q.op, "expected a numeric input, got " + x.str());
  const int64_t k = int_attr(q, "k");
  // A scalar is a slice of one element (torch accepts dim 0 or -1).
  const int dim = wrap_dim(q, int_attr(q, "dim"), std::max(x.rank(), 1));
  bool_attr(q, "largest");
  bool_attr(q, "sorted");
  const Dim n = x.rank() == 0 ? Dim::fixed(1) : x.dims[dim];
  const auto ub = n.upper_bound();
  if (k < 0 || (ub && k > *ub))
    op_error(q.op, "expected k in [0, " + (ub ? str(*ub) : n.str()) + "] for dim " + str(dim) +
                       " of " + x.str() + ", got " + str(k));
  TensorType values = x;
  if (x.rank() > 0) values.dims[dim] = Dim::fixed(k);
  return {values, TensorType(DType::Int64, values.dims)};
}

}  // namespace

std::vector<std::pair<std::string_view, ShapeFn>> shape_shapes() {
  return {{"concat", concat_shape},   {"reshape", reshape_shape}, {"permute", permute_shape},
          {"expand", expand_shape},   {"squeeze", squeeze_shape}, {"unsqueeze", unsqueeze_shape},
          {"flatten", flatten_shape}, {"split", split_shape},     {"slice", slice_shape},
          {"select", select_shape},   {"pad", pad_shape},         {"tile", tile_shape},
          {"triu", triangle_shape},   {"tril", triangle_shape},   {"topk", topk_shape}};
}

}  // namespace edgec::ops

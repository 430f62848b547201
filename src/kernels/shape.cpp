// Shape kernels: reshape and friends, permute, expand, slice, select, concat
// and split. Each builds a strided view of its input (or of its output, for
// concat) and hands it to one copy routine; views are checked in full before
// the output is touched. pad, tile, triu and tril live in shape_pad.cpp,
// topk in shape_topk.cpp; shape_kernels() gathers their rows too.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "kernels/families.h"
#include "kernels/shape_common.h"
#include "kernels/shape_ops.h"

namespace edgec {
namespace {

using namespace shape_detail;

std::string str(int64_t v) { return std::to_string(v); }

// The attributes of the operators in this file, declared once: the rows at
// the end of the file and the kernels read them.
struct ShapeDecls {
  AttrDecl shape = required(attr_ints("shape"));  // reshape, expand
  AttrDecl dims = required(attr_ints("dims"));    // permute, unsqueeze
  AttrDecl optional_dims = attr_ints("dims");     // squeeze, slice
  AttrDecl start_dim = attr_int("start_dim", 0);
  AttrDecl end_dim = attr_int("end_dim", -1);
  AttrDecl dim = attr_int("dim", 0);  // concat, split
  AttrDecl sizes = required(attr_ints("sizes", AttrRule::NonNegative));
  AttrDecl starts = required(attr_ints("starts"));
  AttrDecl ends = required(attr_ints("ends"));
  AttrDecl steps = attr_ints("steps");
  AttrDecl select_dim = required(attr_int("dim", 0));
  AttrDecl index = required(attr_int("index", 0));
};

// Writes `view` (a strided view into an input) contiguously as the output.
Error write_view(std::string_view op, KernelContext& ctx, const Tensor& view, Tensor& out) {
  EDGEC_TRY(resize_output(op, out, view.shape()));
  copy_to_contiguous(ctx, view, out.data);
  return Error::Ok;
}

// The element order of reshape, squeeze, unsqueeze and flatten is the
// input's row-major order, so they are one copy into the new shape.
Error write_reshaped(std::string_view op, KernelContext& ctx, const Tensor& x,
                     std::span<const int64_t> shape, Tensor& out) {
  EDGEC_TRY(resize_output(op, out, shape));
  copy_to_contiguous(ctx, x, out.data);
  return Error::Ok;
}

Error check_rank_fits(std::string_view op, int64_t rank) {
  if (rank > kMaxRank) {
    return fail(Error::InvalidShape, std::string(op) + ": expected a result of rank at most " +
                                         str(kMaxRank) + ", got rank " + str(rank));
  }
  return Error::Ok;
}

// Normalizes a list of dims against `rank`, rejecting repeats.
Error normalize_dim_list(std::string_view op, std::span<const int64_t> dims, int rank,
                         std::array<int, kMaxRank>& out) {
  if (dims.size() > static_cast<size_t>(rank)) {
    return fail(Error::InvalidArgument, std::string(op) + ": expected at most " + str(rank) +
                                            " dims for rank " + str(rank) + ", got " +
                                            shape_string(dims));
  }
  std::array<bool, kMaxRank> seen{};
  for (size_t i = 0; i < dims.size(); ++i) {
    EDGEC_TRY(normalize_dim(op, dims[i], rank, out[i]));
    if (seen[out[i]]) {
      return fail(Error::InvalidArgument,
                  std::string(op) + ": dim " + str(dims[i]) + " appears twice in " +
                      shape_string(dims));
    }
    seen[out[i]] = true;
  }
  return Error::Ok;
}

// ---- reshape -----------------------------------------------------------------

Error reshape_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                     std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "reshape";
  std::span<const int64_t> spec;
  EDGEC_TRY(one_to_one_list(kOp, inputs, outputs, attrs, declared<ShapeDecls>().shape, spec));
  const Tensor& x = inputs[0];
  Tensor& out = outputs[0];
  EDGEC_TRY(check_rank_fits(kOp, static_cast<int64_t>(spec.size())));

  // Resolve the shape: at most one -1, inferred from the element count.
  std::array<int64_t, kMaxRank> shape{};
  int inferred = -1;
  int64_t known = 1;
  bool overflow = false;
  for (size_t i = 0; i < spec.size(); ++i) {
    shape[i] = spec[i];
    if (spec[i] == -1) {
      if (inferred >= 0) {
        return fail(Error::InvalidShape,
                    "reshape: expected at most one -1 in shape, got " + shape_string(spec));
      }
      inferred = static_cast<int>(i);
    } else if (spec[i] < 0) {
      return fail(Error::InvalidShape, "reshape: invalid size " + str(spec[i]) + " in shape " +
                                           shape_string(spec));
    } else {
      overflow = overflow || __builtin_mul_overflow(known, spec[i], &known);
    }
  }
  const int64_t numel = x.numel();
  if (inferred >= 0) {
    if (overflow || known == 0 || numel % known != 0) {
      return fail(Error::InvalidShape, "reshape: cannot reshape " + shape_string(x.shape()) +
                                           " (" + str(numel) + " elements) into " +
                                           shape_string(spec));
    }
    shape[inferred] = numel / known;
  } else if (overflow || known != numel) {
    return fail(Error::InvalidShape, "reshape: cannot reshape " + shape_string(x.shape()) + " (" +
                                         str(numel) + " elements) into " + shape_string(spec) +
                                         (overflow ? "" : " (" + str(known) + " elements)"));
  }
  return write_reshaped(kOp, ctx, x, {shape.data(), spec.size()}, out);
}

// ---- permute -----------------------------------------------------------------

Error permute_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                     std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "permute";
  std::span<const int64_t> dims;
  EDGEC_TRY(one_to_one_list(kOp, inputs, outputs, attrs, declared<ShapeDecls>().dims, dims));
  const Tensor& x = inputs[0];
  if (dims.size() != static_cast<size_t>(x.rank)) {
    return fail(Error::InvalidArgument, "permute: expected " + str(x.rank) +
                                            " dims for an input of shape " +
                                            shape_string(x.shape()) + ", got " +
                                            shape_string(dims));
  }
  std::array<int, kMaxRank> perm{};
  EDGEC_TRY(normalize_dim_list(kOp, dims, x.rank, perm));

  Tensor view = x;
  for (int i = 0; i < x.rank; ++i) {
    view.sizes[i] = x.sizes[perm[i]];
    view.strides[i] = x.strides[perm[i]];
  }
  return write_view(kOp, ctx, view, outputs[0]);
}

// ---- expand ------------------------------------------------------------------

// Broadcasting is bidirectional like ONNX Expand (a target 1 keeps the
// input's size, and the target may have fewer dims than the input); this is
// a superset of numpy's broadcast_to and torch's expand, where -1 keeps a size.
Error expand_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                    std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "expand";
  std::span<const int64_t> target;
  EDGEC_TRY(one_to_one_list(kOp, inputs, outputs, attrs, declared<ShapeDecls>().shape, target));
  const Tensor& x = inputs[0];
  EDGEC_TRY(check_rank_fits(kOp, static_cast<int64_t>(target.size())));
  const int rank = std::max(x.rank, static_cast<int>(target.size()));

  Tensor view = x;
  view.rank = rank;
  for (int i = 0; i < rank; ++i) {
    // Align both shapes on the right.
    const int xi = i - (rank - x.rank);
    const int ti = i - (rank - static_cast<int>(target.size()));
    const int64_t in_size = xi >= 0 ? x.sizes[xi] : 1;
    const int64_t in_stride = xi >= 0 ? x.strides[xi] : 0;
    int64_t want = ti >= 0 ? target[ti] : -1;
    if (want == -1) {
      if (xi < 0) {
        return fail(Error::InvalidShape, "expand: -1 is not allowed for the new leading dim " +
                                             str(i) + " in " + shape_string(target));
      }
      want = in_size;
    }
    if (want < 0) {
      return fail(Error::InvalidShape,
                  "expand: invalid size " + str(want) + " in " + shape_string(target));
    }
    if (in_size == want || want == 1) {
      view.sizes[i] = in_size;
      view.strides[i] = in_stride;
    } else if (in_size == 1) {
      view.sizes[i] = want;
      view.strides[i] = 0;
    } else {
      return fail(Error::InvalidShape, "expand: cannot expand " + shape_string(x.shape()) +
                                           " to " + shape_string(target) + ": dim " + str(i) +
                                           " has size " + str(in_size) + ", target " + str(want));
    }
  }
  return write_view(kOp, ctx, view, outputs[0]);
}

// ---- squeeze, unsqueeze, flatten ---------------------------------------------

Error squeeze_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                     std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "squeeze";
  std::span<const int64_t> dims;
  bool has_dims = false;
  EDGEC_TRY(one_to_one_list(kOp, inputs, outputs, attrs, declared<ShapeDecls>().optional_dims, dims, &has_dims));
  const Tensor& x = inputs[0];

  std::array<bool, kMaxRank> drop{};
  if (!has_dims) {
    for (int d = 0; d < x.rank; ++d) drop[d] = x.sizes[d] == 1;
  } else if (x.rank == 0) {
    // torch accepts dim 0 or -1 on a scalar and leaves it unchanged.
    for (int64_t d : dims) {
      if (d != 0 && d != -1) {
        return fail(Error::InvalidArgument,
                    "squeeze: dim " + str(d) + " is out of range for rank 0");
      }
    }
  } else {
    std::array<int, kMaxRank> norm{};
    EDGEC_TRY(normalize_dim_list(kOp, dims, x.rank, norm));
    for (size_t i = 0; i < dims.size(); ++i) {
      if (x.sizes[norm[i]] != 1) {
        return fail(Error::InvalidShape, "squeeze: dim " + str(dims[i]) + " of shape " +
                                             shape_string(x.shape()) + " has size " +
                                             str(x.sizes[norm[i]]) + ", expected 1");
      }
      drop[norm[i]] = true;
    }
  }
  std::array<int64_t, kMaxRank> shape{};
  int rank = 0;
  for (int d = 0; d < x.rank; ++d)
    if (!drop[d]) shape[rank++] = x.sizes[d];
  return write_reshaped(kOp, ctx, x, {shape.data(), static_cast<size_t>(rank)}, outputs[0]);
}

Error unsqueeze_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                       std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "unsqueeze";
  std::span<const int64_t> dims;
  EDGEC_TRY(one_to_one_list(kOp, inputs, outputs, attrs, declared<ShapeDecls>().dims, dims));
  const Tensor& x = inputs[0];
  const int64_t out_rank = x.rank + static_cast<int64_t>(dims.size());
  EDGEC_TRY(check_rank_fits(kOp, out_rank));

  // Dims are positions in the output.
  std::array<int, kMaxRank> norm{};
  EDGEC_TRY(normalize_dim_list(kOp, dims, static_cast<int>(out_rank), norm));
  std::array<bool, kMaxRank> inserted{};
  for (size_t i = 0; i < dims.size(); ++i) inserted[norm[i]] = true;
  std::array<int64_t, kMaxRank> shape{};
  int next_in = 0;
  for (int d = 0; d < out_rank; ++d) shape[d] = inserted[d] ? 1 : x.sizes[next_in++];
  return write_reshaped(kOp, ctx, x, {shape.data(), static_cast<size_t>(out_rank)}, outputs[0]);
}

Error flatten_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                     std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "flatten";
  EDGEC_TRY(check_one_to_one(kOp, inputs, outputs));
  const Tensor& x = inputs[0];
  int64_t start_attr = 0;
  int64_t end_attr = -1;
  EDGEC_TRY(int_attr(kOp, attrs, declared<ShapeDecls>().start_dim, start_attr));
  EDGEC_TRY(int_attr(kOp, attrs, declared<ShapeDecls>().end_dim, end_attr));

  // A scalar flattens to [1] (torch), so dims are taken against rank >= 1.
  const int rank = std::max(x.rank, 1);
  int start = 0;
  int end = 0;
  EDGEC_TRY(normalize_dim(kOp, start_attr, rank, start));
  EDGEC_TRY(normalize_dim(kOp, end_attr, rank, end));
  if (start > end) {
    return fail(Error::InvalidArgument, "flatten: start_dim " + str(start_attr) +
                                            " comes after end_dim " + str(end_attr) +
                                            " for rank " + str(x.rank));
  }
  std::array<int64_t, kMaxRank> shape{};
  int out_rank = 0;
  if (x.rank == 0) {
    shape[out_rank++] = 1;
  } else {
    for (int d = 0; d < start; ++d) shape[out_rank++] = x.sizes[d];
    int64_t merged = 1;
    for (int d = start; d <= end; ++d) merged *= x.sizes[d];
    shape[out_rank++] = merged;
    for (int d = end + 1; d < x.rank; ++d) shape[out_rank++] = x.sizes[d];
  }
  return write_reshaped(kOp, ctx, x, {shape.data(), static_cast<size_t>(out_rank)}, outputs[0]);
}

// ---- slice, select -----------------------------------------------------------

// ONNX Slice rules: negative starts/ends count from the end, then clamp;
// for a negative step the start clamps to [0, n-1] and the end to [-1, n-1]
// so that "to the beginning" is expressible.
Error slice_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                   std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "slice";
  EDGEC_TRY(check_one_to_one(kOp, inputs, outputs));
  const Tensor& x = inputs[0];
  const ShapeDecls& decls = declared<ShapeDecls>();
  std::span<const int64_t> dims, starts, ends, steps;
  bool has_dims = false;
  bool has_steps = false;
  EDGEC_TRY(ints_attr(kOp, attrs, decls.starts, starts));
  EDGEC_TRY(ints_attr(kOp, attrs, decls.ends, ends));
  EDGEC_TRY(ints_attr(kOp, attrs, decls.optional_dims, dims, &has_dims));
  EDGEC_TRY(ints_attr(kOp, attrs, decls.steps, steps, &has_steps));
  const size_t n = starts.size();
  if (ends.size() != n || (has_dims && dims.size() != n) || (has_steps && steps.size() != n)) {
    return fail(Error::InvalidArgument,
                "slice: expected starts, ends, dims and steps of one length, got " + str(n) +
                    ", " + str(static_cast<int64_t>(ends.size())) + ", " +
                    (has_dims ? str(static_cast<int64_t>(dims.size())) : "absent") + ", " +
                    (has_steps ? str(static_cast<int64_t>(steps.size())) : "absent"));
  }
  if (n > static_cast<size_t>(x.rank)) {
    return fail(Error::InvalidArgument, "slice: expected at most " + str(x.rank) +
                                            " sliced dims for rank " + str(x.rank) + ", got " +
                                            str(static_cast<int64_t>(n)));
  }
  std::array<int64_t, kMaxRank> default_dims{};
  for (size_t i = 0; i < n; ++i) default_dims[i] = static_cast<int64_t>(i);
  if (!has_dims) dims = {default_dims.data(), n};
  std::array<int, kMaxRank> norm{};
  EDGEC_TRY(normalize_dim_list(kOp, dims, x.rank, norm));

  Tensor view = x;
  int64_t offset = 0;
  for (size_t i = 0; i < n; ++i) {
    const int d = norm[i];
    const int64_t size = x.sizes[d];
    const int64_t step = has_steps ? steps[i] : 1;
    if (step == 0) {
      return fail(Error::InvalidArgument, "slice: step 0 for dim " + str(dims[i]));
    }
    int64_t start = starts[i];
    int64_t end = ends[i];
    if (start < 0) start += size;
    if (end < 0) end += size;
    int64_t len = 0;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, size);
      end = std::clamp<int64_t>(end, 0, size);
      if (end > start) len = (end - start - 1) / step + 1;
    } else if (size > 0) {
      start = std::clamp<int64_t>(start, 0, size - 1);
      end = std::clamp<int64_t>(end, -1, size - 1);
      // -step overflows for INT64_MIN; unsigned arithmetic does not.
      const uint64_t abs_step = uint64_t{0} - static_cast<uint64_t>(step);
      if (start > end) len = static_cast<int64_t>(static_cast<uint64_t>(start - end - 1) / abs_step) + 1;
    }
    view.sizes[d] = len;
    if (len > 0) {
      offset += start * x.strides[d];
      // |step| < size whenever len > 1, so the product cannot overflow.
      view.strides[d] = len > 1 ? x.strides[d] * step : x.strides[d];
    }
  }
  view.data = const_cast<char*>(at(x.data, view.numel() > 0 ? offset : 0, dtype_size(x.dtype)));
  return write_view(kOp, ctx, view, outputs[0]);
}

Error select_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                    std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "select";
  EDGEC_TRY(check_one_to_one(kOp, inputs, outputs));
  const Tensor& x = inputs[0];
  int64_t dim_attr = 0;
  int64_t index = 0;
  EDGEC_TRY(int_attr(kOp, attrs, declared<ShapeDecls>().select_dim, dim_attr));
  EDGEC_TRY(int_attr(kOp, attrs, declared<ShapeDecls>().index, index));
  int dim = 0;
  EDGEC_TRY(normalize_dim(kOp, dim_attr, x.rank, dim));
  const int64_t wrapped_index = index;
  int64_t i = index;
  if (!wrap_index(i, x.sizes[dim])) return index_out_of_range(kOp, wrapped_index, x.sizes[dim]);

  Tensor view = x;
  view.rank = x.rank - 1;
  for (int d = dim; d < view.rank; ++d) {
    view.sizes[d] = x.sizes[d + 1];
    view.strides[d] = x.strides[d + 1];
  }
  view.data = const_cast<char*>(at(x.data, i * x.strides[dim], dtype_size(x.dtype)));
  return write_view(kOp, ctx, view, outputs[0]);
}

// ---- concat, split -----------------------------------------------------------

// torch.cat's legacy rule: a 1-D empty input ([0]) is skipped whatever the
// other inputs' shape, so code that starts from an empty tensor works.
bool is_legacy_empty(const Tensor& t) { return t.rank == 1 && t.sizes[0] == 0; }

Error concat_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                    std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "concat";
  EDGEC_TRY(check_num_outputs(kOp, outputs, 1));
  if (inputs.empty()) return fail(Error::InvalidArgument, "concat: expected at least 1 input, got 0");
  // The reference shape is the first input that is not a legacy empty one.
  size_t ref_index = 0;
  while (ref_index + 1 < inputs.size() && is_legacy_empty(inputs[ref_index])) ++ref_index;
  const Tensor& ref = inputs[ref_index];
  Tensor& out = outputs[0];
  EDGEC_TRY(check_output_dtype(kOp, out, ref.dtype));
  if (ref.rank == 0) {
    return fail(Error::InvalidShape, "concat: expected inputs of rank >= 1, got a scalar");
  }
  int64_t dim_attr = 0;
  EDGEC_TRY(int_attr(kOp, attrs, declared<ShapeDecls>().dim, dim_attr));
  int dim = 0;
  EDGEC_TRY(normalize_dim(kOp, dim_attr, ref.rank, dim));

  // Every input matches the reference except along `dim`.
  std::array<int64_t, kMaxRank> shape = ref.sizes;
  shape[dim] = 0;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Tensor& in = inputs[k];
    if (in.dtype != ref.dtype) {
      return fail(Error::InvalidType, "concat: expected input " + str(static_cast<int64_t>(k)) +
                                          " of dtype " + std::string(dtype_name(ref.dtype)) +
                                          ", got " + std::string(dtype_name(in.dtype)));
    }
    if (is_legacy_empty(in) && in.rank != ref.rank) continue;
    bool same = in.rank == ref.rank;
    for (int d = 0; same && d < ref.rank; ++d) same = d == dim || in.sizes[d] == ref.sizes[d];
    if (!same) {
      return fail(Error::InvalidShape,
                  "concat: expected input " + str(static_cast<int64_t>(k)) + " to match " +
                      shape_string(ref.shape()) + " except in dim " + str(dim) + ", got " +
                      shape_string(in.shape()));
    }
    shape[dim] += in.sizes[dim];
  }
  EDGEC_TRY(resize_output(kOp, out, {shape.data(), static_cast<size_t>(ref.rank)}));

  // Each input is a box of the output at a growing offset along `dim`.
  const size_t esz = dtype_size(ref.dtype);
  int64_t offset = 0;
  for (const Tensor& in : inputs) {
    if (in.rank != ref.rank) continue;  // a skipped legacy empty input
    CopyPlan plan;
    for (int d = 0; d < in.rank; ++d) plan.add_dim(in.sizes[d], in.strides[d], out.strides[d]);
    copy_strided(ctx, esz, plan, in.data, at(out.data, offset * out.strides[dim], esz));
    offset += in.sizes[dim];
  }
  return Error::Ok;
}

Error split_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                   std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "split";
  if (inputs.size() != 1) {
    return fail(Error::InvalidArgument,
                "split: expected 1 input, got " + str(static_cast<int64_t>(inputs.size())));
  }
  if (outputs.empty()) return fail(Error::InvalidArgument, "split: expected at least 1 output, got 0");
  const Tensor& x = inputs[0];
  if (x.rank == 0) return fail(Error::InvalidShape, "split: expected an input of rank >= 1, got a scalar");
  int64_t dim_attr = 0;
  EDGEC_TRY(int_attr(kOp, attrs, declared<ShapeDecls>().dim, dim_attr));
  int dim = 0;
  EDGEC_TRY(normalize_dim(kOp, dim_attr, x.rank, dim));
  // Sizes are required, so that the number of results follows from the
  // attributes (the operator table's rule).
  std::span<const int64_t> sizes;
  EDGEC_TRY(ints_attr(kOp, attrs, declared<ShapeDecls>().sizes, sizes));
  const int64_t count = static_cast<int64_t>(outputs.size());
  const int64_t total = x.sizes[dim];
  if (static_cast<int64_t>(sizes.size()) != count) {
    return fail(Error::InvalidArgument, "split: expected " + str(count) +
                                            " sizes (one per output), got " + shape_string(sizes));
  }
  int64_t sum = 0;
  for (int64_t s : sizes) {
    if (s < 0) return fail(Error::InvalidArgument, "split: negative size in " + shape_string(sizes));
    if (__builtin_add_overflow(sum, s, &sum)) {
      return fail(Error::InvalidArgument, "split: sizes " + shape_string(sizes) + " overflow");
    }
  }
  if (sum != total) {
    return fail(Error::InvalidShape, "split: sizes " + shape_string(sizes) + " sum to " + str(sum) +
                                         ", expected size " + str(total) + " of dim " + str(dim));
  }
  for (const Tensor& out : outputs) EDGEC_TRY(check_output_dtype(kOp, out, x.dtype));

  int64_t offset = 0;
  for (int64_t k = 0; k < count; ++k) {
    Tensor view = x;
    view.sizes[dim] = sizes[k];
    view.data = const_cast<char*>(at(x.data, offset * x.strides[dim], dtype_size(x.dtype)));
    if (view.sizes[dim] == 0) view.data = x.data;
    EDGEC_TRY(write_view(kOp, ctx, view, outputs[k]));
    offset += view.sizes[dim];
  }
  return Error::Ok;
}


}  // namespace

std::span<const KernelEntry> shape_kernels() {
  static const std::vector<KernelEntry> all = [] {
    const ShapeDecls& d = declared<ShapeDecls>();
    auto row = [](std::string_view name, std::vector<AttrDecl> attrs, std::string_view summary) {
      return declare(name, "shape", {{"self"}}, std::move(attrs), kAllDTypes, kOpShapeOnly, summary);
    };
    std::vector<KernelEntry> v = {
        {declare("concat", "shape", {{"tensors", OperandKind::List}}, {d.dim}, kAllDTypes, kOpShapeOnly,
                 "joins tensors along dim"),
         concat_kernel},
        {row("expand", {d.shape}, "broadcasts to shape (ONNX Expand; -1 or 1 keeps a size)"), expand_kernel},
        {row("flatten", {d.start_dim, d.end_dim}, "merges dims start_dim..end_dim into one"), flatten_kernel},
        {row("permute", {d.dims}, "reorders dims: result dim i is input dim dims[i]"), permute_kernel},
        {row("reshape", {d.shape}, "the same elements in a new shape; one size may be -1 (inferred)"),
         reshape_kernel},
        {row("select", {d.select_dim, d.index}, "picks one index along dim, removing the dim"), select_kernel},
        {row("slice", {d.optional_dims, d.starts, d.ends, d.steps}, "ONNX Slice: starts:ends:steps along dims"),
         slice_kernel},
        {row("split", {d.dim, d.sizes}, "splits along dim into parts of the given sizes"), split_kernel},
        {row("squeeze", {d.optional_dims}, "removes size-1 dims (the listed ones, or all)"), squeeze_kernel},
        {row("unsqueeze", {d.dims}, "inserts size-1 dims at result positions dims"), unsqueeze_kernel},
    };
    for (auto list : {shape_detail::pad_kernels(), shape_detail::topk_kernels()})
      v.insert(v.end(), list.begin(), list.end());
    return v;
  }();
  return all;
}

}  // namespace edgec

// Scatter kernels, the inverses of the gathers in indexing.cpp: scatter
// (ONNX ScatterElements and the deprecated Scatter, torch.scatter: the
// inverse of gather) and scatter_nd (ONNX ScatterND: the inverse of
// GatherND). Both copy `self` to the output and then combine each element
// (scatter) or slice (scatter_nd) of `updates` into the position its index
// names, by `reduction`: none (replace), add, mul, min or max.
//
// Index values come from data. As in take and gather, every index is checked
// in a first pass (negative values wrap once, anything else out of range
// fails with IndexOutOfRange naming the index and the size) before the
// output is written, so no out-of-range address is ever formed. Duplicate
// indices combine in row-major order of the indices: with reduction none
// the last update wins, as in ONNX's reference implementation (ONNX leaves
// the order undefined). The updates are applied on one thread for that
// reason; only the copy of `self` is parallel.
//
// Arithmetic follows numpy on the dtype (ONNX's reference): integers wrap,
// float16 is computed in float32 and rounded back, min and max propagate
// NaN, and on bool add and max are `or`, mul and min are `and`.
#include <string>

#include "base/half.h"
#include "kernels/elementwise_common.h"
#include "kernels/families.h"
#include "kernels/shape_common.h"

namespace edgec {
namespace {

using namespace shape_detail;

std::string str(int64_t v) { return std::to_string(v); }

// The attributes, declared once: the rows at the end of this file and the
// kernels read them.
struct ScatterDecls {
  AttrDecl dim = attr_int("dim", 0);
  AttrDecl reduction = attr_string("reduction", "none", {"none", "add", "mul", "min", "max"});
};

enum class Reduction { None, Add, Mul, Min, Max };

Error read_reduction(std::string_view op, const Attrs& attrs, Reduction& out) {
  std::string_view r;
  EDGEC_TRY(read_attr(op, attrs, declared<ScatterDecls>().reduction, r));
  out = r == "add"   ? Reduction::Add
        : r == "mul" ? Reduction::Mul
        : r == "min" ? Reduction::Min
        : r == "max" ? Reduction::Max
                     : Reduction::None;
  return Error::Ok;
}

// ---- combining one element ---------------------------------------------------

template <typename C>
inline C combine(Reduction r, C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    switch (r) {
      case Reduction::None: return b;
      case Reduction::Add: return a + b;
      case Reduction::Mul: return a * b;
      // numpy's minimum and maximum: a NaN on either side is the result.
      case Reduction::Min: return a != a ? a : b != b ? b : (b < a ? b : a);
      case Reduction::Max: return a != a ? a : b != b ? b : (b > a ? b : a);
    }
  } else {
    switch (r) {
      case Reduction::None: return b;
      case Reduction::Add: return wrapping_add(a, b);
      case Reduction::Mul: return wrapping_mul(a, b);
      case Reduction::Min: return b < a ? b : a;
      case Reduction::Max: return b > a ? b : a;
    }
  }
  return b;
}

/// *dst = combine(*dst, *src) for storage type T. Without a reduction the
/// element is copied as it is (a float16 NaN keeps its payload).
template <typename T>
inline void combine_into(Reduction r, T* dst, const T* src) {
  if (r == Reduction::None) {
    std::memcpy(dst, src, sizeof(T));
  } else if constexpr (std::is_same_v<T, Half>) {
    *dst = float_to_half(combine(r, half_to_float(*dst), half_to_float(*src)));
  } else if constexpr (std::is_same_v<T, bool>) {
    // Bools are read as bytes (elementwise_common.h: load) and written as 0/1.
    const bool a = load(dst), b = load(src);
    const bool any = r == Reduction::Add || r == Reduction::Max;
    const bool v = any ? (a || b) : (a && b);
    const uint8_t byte = v ? 1 : 0;
    std::memcpy(dst, &byte, 1);
  } else {
    *dst = combine(r, *dst, *src);
  }
}

// ---- shared checks -----------------------------------------------------------

// (self, index, updates) in, one output of self's dtype; updates of self's
// dtype, an i64 or i32 index, self of rank >= 1.
Error check_scatter_args(std::string_view op, std::span<const Tensor> inputs, std::span<Tensor> outputs) {
  EDGEC_TRY(check_arity(op, inputs, 3, outputs, 1));
  const Tensor& x = inputs[0];
  EDGEC_TRY(check_output_dtype(op, outputs[0], x.dtype));
  EDGEC_TRY(check_index_dtype(op, inputs[1], "indices"));
  if (inputs[2].dtype != x.dtype) {
    return fail(Error::InvalidType, std::string(op) + ": expected updates of dtype " +
                                        std::string(dtype_name(x.dtype)) + " like the input, got " +
                                        std::string(dtype_name(inputs[2].dtype)));
  }
  if (x.rank == 0) {
    return fail(Error::InvalidShape, std::string(op) + ": expected an input of rank >= 1, got a scalar");
  }
  return Error::Ok;
}

/// The output as a contiguous copy of self, then fn(T) with T the storage
/// type of self's dtype.
template <typename Fn>
void copy_then_dispatch(const KernelContext& ctx, const Tensor& x, Tensor& out, Fn&& fn) {
  copy_to_contiguous(ctx, x, out.data);
  dispatch_dtype(AllTypes{}, x.dtype, [&](auto type) { fn(typename decltype(type)::type{}); });
}

// ---- scatter -----------------------------------------------------------------

// ONNX ScatterElements: out = copy of self; for each position p of index,
// out[p with p[dim] = index[p]] = combine(that, updates[p]). index and
// updates have one shape, of self's rank, no larger than self outside dim.
Error scatter_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                     std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "scatter";
  EDGEC_TRY(check_scatter_args(kOp, inputs, outputs));
  const Tensor& x = inputs[0];
  const Tensor& index = inputs[1];
  const Tensor& upd = inputs[2];
  Tensor& out = outputs[0];
  int64_t dim_attr = 0;
  EDGEC_TRY(int_attr(kOp, attrs, declared<ScatterDecls>().dim, dim_attr));
  int dim = 0;
  EDGEC_TRY(normalize_dim(kOp, dim_attr, x.rank, dim));
  Reduction reduction = Reduction::None;
  EDGEC_TRY(read_reduction(kOp, attrs, reduction));
  bool fits = index.rank == x.rank;
  for (int d = 0; fits && d < x.rank; ++d) fits = d == dim || index.sizes[d] <= x.sizes[d];
  if (!fits) {
    return fail(Error::InvalidShape, "scatter: expected indices of rank " + str(x.rank) + " no larger than " +
                                         shape_string(x.shape()) + " outside dim " + str(dim) + ", got " +
                                         shape_string(index.shape()));
  }
  bool same = upd.rank == index.rank;
  for (int d = 0; same && d < index.rank; ++d) same = upd.sizes[d] == index.sizes[d];
  if (!same) {
    return fail(Error::InvalidShape, "scatter: expected updates of the indices' shape " +
                                         shape_string(index.shape()) + ", got " + shape_string(upd.shape()));
  }
  // Every index first, so that nothing is written when one is out of range.
  const int64_t size = x.sizes[dim];
  const int64_t n = index.numel();
  {
    Walker w;
    w.rank = index.rank;
    w.num_operands = 1;
    w.sizes = index.sizes;
    w.strides[0] = index.strides;
    for (int64_t p = 0; p < n; ++p, w.next()) {
      int64_t v = read_index(index, w.offset[0]);
      if (!wrap_index(v, size)) return index_out_of_range(kOp, read_index(index, w.offset[0]), size);
    }
  }
  EDGEC_TRY(resize_output(kOp, out, x.shape()));
  if (out.numel() == 0) return Error::Ok;

  // Operands: index, updates, and the output without dim (row-major
  // strides of self's shape).
  Walker walker;
  walker.rank = index.rank;
  walker.num_operands = 3;
  walker.sizes = index.sizes;
  walker.strides[0] = index.strides;
  walker.strides[1] = upd.strides;
  std::array<int64_t, kMaxRank> out_strides{};
  int64_t stride = 1;
  for (int d = x.rank - 1; d >= 0; --d) {
    out_strides[d] = stride;
    stride *= x.sizes[d];
  }
  for (int d = 0; d < x.rank; ++d) walker.strides[2][d] = d == dim ? 0 : out_strides[d];
  copy_then_dispatch(ctx, x, out, [&](auto word) {
    using T = decltype(word);
    const T* src = static_cast<const T*>(upd.data);
    T* dst = static_cast<T*>(out.data);
    Walker w = walker;
    for (int64_t p = 0; p < n; ++p, w.next()) {
      int64_t i = read_index(index, w.offset[0]);
      if (i < 0) i += size;
      combine_into(reduction, dst + w.offset[2] + i * out_strides[dim], src + w.offset[1]);
    }
  });
  return Error::Ok;
}

// ---- scatter_nd --------------------------------------------------------------

// ONNX ScatterND: indices [..., k] name slices self[i0, ..., ik-1] (of
// shape self.shape[k:]); updates are indices.shape[:-1] + self.shape[k:].
Error scatter_nd_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                        std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "scatter_nd";
  EDGEC_TRY(check_scatter_args(kOp, inputs, outputs));
  const Tensor& x = inputs[0];
  const Tensor& index = inputs[1];
  const Tensor& upd = inputs[2];
  Tensor& out = outputs[0];
  Reduction reduction = Reduction::None;
  EDGEC_TRY(read_reduction(kOp, attrs, reduction));
  const int64_t k = index.rank == 0 ? 0 : index.sizes[index.rank - 1];
  if (index.rank == 0 || k < 1 || k > x.rank) {
    return fail(Error::InvalidShape, "scatter_nd: expected indices of rank >= 1 whose last dim is 1 to " +
                                         str(x.rank) + " for an input of shape " + shape_string(x.shape()) +
                                         ", got " + shape_string(index.shape()));
  }
  // updates: indices.shape[:-1] + self.shape[k:].
  const int lead = index.rank - 1;
  bool same = upd.rank == lead + x.rank - static_cast<int>(k);
  for (int d = 0; same && d < upd.rank; ++d)
    same = upd.sizes[d] == (d < lead ? index.sizes[d] : x.sizes[k + d - lead]);
  if (!same) {
    return fail(Error::InvalidShape, "scatter_nd: expected updates of shape indices.shape[:-1] + input.shape[" +
                                         str(k) + ":] for indices " + shape_string(index.shape()) +
                                         " and input " + shape_string(x.shape()) + ", got " +
                                         shape_string(upd.shape()));
  }
  // Rows of indices: its dims but the last; the last (coordinates) has
  // stride `coord_stride`.
  Walker rows_walker;
  rows_walker.rank = lead;
  rows_walker.num_operands = 1;
  for (int d = 0; d < lead; ++d) {
    rows_walker.sizes[d] = index.sizes[d];
    rows_walker.strides[0][d] = index.strides[d];
  }
  const int64_t coord_stride = index.strides[index.rank - 1];
  int64_t rows = 1;
  for (int d = 0; d < lead; ++d) rows *= index.sizes[d];
  // Every index first, so that nothing is written when one is out of range.
  {
    Walker w = rows_walker;
    for (int64_t r = 0; r < rows; ++r, w.next()) {
      for (int64_t j = 0; j < k; ++j) {
        int64_t v = read_index(index, w.offset[0] + j * coord_stride);
        if (!wrap_index(v, x.sizes[j])) {
          return index_out_of_range(kOp, read_index(index, w.offset[0] + j * coord_stride), x.sizes[j]);
        }
      }
    }
  }
  EDGEC_TRY(resize_output(kOp, out, x.shape()));
  if (out.numel() == 0) return Error::Ok;

  std::array<int64_t, kMaxRank> out_strides{};
  int64_t stride = 1;
  for (int d = x.rank - 1; d >= 0; --d) {
    out_strides[d] = stride;
    stride *= x.sizes[d];
  }
  const int64_t slice = out_strides[k - 1];  // the elements of self.shape[k:]
  // updates walked in row-major order: row r's slice is its next `slice`
  // elements.
  Walker upd_walker;
  upd_walker.rank = upd.rank;
  upd_walker.num_operands = 1;
  upd_walker.sizes = upd.sizes;
  upd_walker.strides[0] = upd.strides;
  const bool updates_contiguous = upd.is_contiguous();
  copy_then_dispatch(ctx, x, out, [&](auto word) {
    using T = decltype(word);
    const T* src = static_cast<const T*>(upd.data);
    T* dst = static_cast<T*>(out.data);
    Walker w = rows_walker;
    Walker u = upd_walker;
    for (int64_t r = 0; r < rows; ++r, w.next()) {
      int64_t offset = 0;
      for (int64_t j = 0; j < k; ++j) {
        int64_t i = read_index(index, w.offset[0] + j * coord_stride);
        if (i < 0) i += x.sizes[j];
        offset += i * out_strides[j];
      }
      if (reduction == Reduction::None && updates_contiguous) {
        // A whole slice replaced (a cache update written as ScatterND).
        std::memcpy(dst + offset, src + r * slice, static_cast<size_t>(slice) * sizeof(T));
        continue;
      }
      u.seek(r * slice);
      for (int64_t e = 0; e < slice; ++e, u.next()) combine_into(reduction, dst + offset + e, src + u.offset[0]);
    }
  });
  return Error::Ok;
}

}  // namespace

std::span<const KernelEntry> scatter_kernels() {
  const ScatterDecls& d = declared<ScatterDecls>();
  static const KernelEntry kScatterKernels[] = {
      {declare("scatter", "indexing", {{"self"}, {"index"}, {"src"}}, {d.dim, d.reduction}, kAllDTypes, 0,
               "ONNX ScatterElements: self with src's elements combined in along dim at index (none, add, mul, "
               "min, max)"),
       scatter_kernel},
      {declare("scatter_nd", "indexing", {{"self"}, {"indices"}, {"updates"}}, {d.reduction}, kAllDTypes, 0,
               "ONNX ScatterND: self with the slices at indices[..., :k] combined with updates (none, add, mul, "
               "min, max)"),
       scatter_nd_kernel},
  };
  return kScatterKernels;
}

}  // namespace edgec

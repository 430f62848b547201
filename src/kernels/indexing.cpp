// Indexing kernels: take (ONNX Gather), gather (GatherElements), index
// (PyTorch advanced indexing of the leading dims), nonzero, pick (one of
// several tensors by a run-time index); topk lives in shape_topk.cpp, with
// the shape family.
//
// Index values come from data, so every index tensor is checked in a first
// pass (negative values wrap once, anything else out of range fails) before
// the output is sized or written; the copy passes then trust them.
#include <algorithm>
#include <string>

#include "base/half.h"
#include "kernels/families.h"
#include "kernels/shape_common.h"

namespace edgec {
namespace {

using namespace shape_detail;

std::string str(int64_t v) { return std::to_string(v); }

// take's and gather's one attribute, declared once: their rows at the end
// of this file and their kernels read it.
struct TakeDecls {
  AttrDecl dim = attr_int("dim", 0);
};

// What take and gather share: (x, index) in, one output of x's dtype, an
// index tensor of i64 or i32 (`index_name` in messages), an input of rank
// >= 1, and the dim attribute wrapped against it.
Error read_take_args(std::string_view op, std::string_view index_name, std::span<const Tensor> inputs,
                     const Attrs& attrs, std::span<Tensor> outputs, int& dim) {
  EDGEC_TRY(check_arity(op, inputs, 2, outputs, 1));
  const Tensor& x = inputs[0];
  EDGEC_TRY(check_output_dtype(op, outputs[0], x.dtype));
  EDGEC_TRY(check_index_dtype(op, inputs[1], index_name));
  if (x.rank == 0) {
    return fail(Error::InvalidShape, std::string(op) + ": expected an input of rank >= 1, got a scalar");
  }
  int64_t dim_attr = 0;
  EDGEC_TRY(int_attr(op, attrs, declared<TakeDecls>().dim, dim_attr));
  return normalize_dim(op, dim_attr, x.rank, dim);
}

// Checks every element of `index` against `size`.
Error check_indices(std::string_view op, const Tensor& index, int64_t size) {
  if (index.numel() == 0) return Error::Ok;
  Walker w;
  w.rank = index.rank;
  w.num_operands = 1;
  w.sizes = index.sizes;
  w.strides[0] = index.strides;
  const int64_t n = index.numel();
  for (int64_t i = 0; i < n; ++i, w.next()) {
    int64_t v = read_index(index, w.offset[0]);
    const int64_t original = v;
    if (!wrap_index(v, size)) return index_out_of_range(op, original, size);
  }
  return Error::Ok;
}

/// Calls fn(src, dst, idx) with the data of x and out as unsigned words of
/// x's element size (take and gather only move elements) and the data of
/// `index` as its element type (i64 or i32).
template <typename Fn>
void with_typed_data(const Tensor& x, Tensor& out, const Tensor& index, Fn&& fn) {
  dispatch_elem_size(dtype_size(x.dtype), [&](auto word) {
    using T = decltype(word);
    const T* src = static_cast<const T*>(x.data);
    T* dst = static_cast<T*>(out.data);
    if (index.dtype == DType::Int64) {
      fn(src, dst, static_cast<const int64_t*>(index.data));
    } else {
      fn(src, dst, static_cast<const int32_t*>(index.data));
    }
  });
}

inline int64_t wrapped_index(const Tensor& index, int64_t offset, int64_t size) {
  const int64_t v = read_index(index, offset);
  return v < 0 ? v + size : v;
}

// Copies one block of `elem_count` elements described by `plan` (simplified),
// with the one-element and contiguous cases inlined: take along the last dim
// and embedding lookups are these.
template <typename T>
inline void copy_one_block(const CopyPlan& plan, const T* src, T* dst) {
  if (plan.rank == 0) {
    *dst = *src;
  } else if (plan.rank == 1 && plan.src_strides[0] == 1) {
    std::memcpy(dst, src, static_cast<size_t>(plan.sizes[0]) * sizeof(T));
  } else {
    copy_block(sizeof(T), plan, src, dst);
  }
}

// The copy plan of x's dims [from, rank) into a contiguous block.
CopyPlan trailing_plan(const Tensor& x, int from) {
  CopyPlan plan;
  for (int d = from; d < x.rank; ++d) plan.add_dim(x.sizes[d], x.strides[d], 0);
  int64_t stride = 1;
  for (int i = plan.rank - 1; i >= 0; --i) {
    plan.dst_strides[i] = stride;
    stride *= plan.sizes[i];
  }
  plan.simplify();
  return plan;
}

int64_t product(std::span<const int64_t> sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// Runs body(begin, end) over [0, count), split across threads when the
// output is large.
template <typename Body>
void parallel_ranges(const KernelContext& ctx, int64_t count, int64_t work, Body&& body) {
  if (ctx.num_threads > 1 && work >= kParallelElements && count > 1) {
    const int64_t chunks = std::min<int64_t>(ctx.num_threads, count);
#pragma omp parallel for num_threads(ctx.num_threads) schedule(static)
    for (int64_t c = 0; c < chunks; ++c) body(count * c / chunks, count * (c + 1) / chunks);
  } else {
    body(0, count);
  }
}

// ---- take --------------------------------------------------------------------

// ONNX Gather: out = x[:dim] + indices.shape + x[dim+1:].
Error take_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                  std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "take";
  int dim = 0;
  EDGEC_TRY(read_take_args(kOp, "indices", inputs, attrs, outputs, dim));
  const Tensor& x = inputs[0];
  const Tensor& index = inputs[1];
  Tensor& out = outputs[0];
  const int out_rank = x.rank - 1 + index.rank;
  if (out_rank > kMaxRank) {
    return fail(Error::InvalidShape, "take: expected a result of rank at most " + str(kMaxRank) +
                                         ", got rank " + str(out_rank));
  }
  EDGEC_TRY(check_indices(kOp, index, x.sizes[dim]));

  std::array<int64_t, kMaxRank> shape{};
  int r = 0;
  for (int d = 0; d < dim; ++d) shape[r++] = x.sizes[d];
  for (int d = 0; d < index.rank; ++d) shape[r++] = index.sizes[d];
  for (int d = dim + 1; d < x.rank; ++d) shape[r++] = x.sizes[d];
  EDGEC_TRY(resize_output(kOp, out, {shape.data(), static_cast<size_t>(out_rank)}));
  const int64_t total = out.numel();
  if (total == 0) return Error::Ok;

  // Blocks: for each position of x[:dim], each index in row-major order
  // copies the block x[dim+1:]. A contiguous index is read directly.
  Walker outer;
  outer.num_operands = 1;
  outer.rank = dim;
  for (int d = 0; d < dim; ++d) {
    outer.sizes[d] = x.sizes[d];
    outer.strides[0][d] = x.strides[d];
  }
  Walker index_walker;
  index_walker.num_operands = 1;
  index_walker.rank = index.rank;
  index_walker.sizes = index.sizes;
  index_walker.strides[0] = index.strides;
  const bool index_contiguous = index.is_contiguous();
  const int64_t count = index.numel();
  const CopyPlan block = trailing_plan(x, dim + 1);
  const int64_t block_numel = product({x.sizes.data() + dim + 1, static_cast<size_t>(x.rank - dim - 1)});
  const int64_t blocks = total / block_numel;
  const int64_t size = x.sizes[dim];
  const int64_t stride = x.strides[dim];

  with_typed_data(x, out, index, [&](auto src, auto dst, auto idx) {
    parallel_ranges(ctx, blocks, total, [&](int64_t begin, int64_t end) {
      Walker wo = outer;
      Walker wi = index_walker;
      int64_t q = begin % count;
      wo.seek(begin / count);
      wi.seek(q);
      // Runs of indices under one outer position; a run of single elements
      // from a contiguous index is a plain gather loop.
      for (int64_t b = begin; b < end;) {
        const int64_t run = std::min(end - b, count - q);
        const auto* base = src + wo.offset[0];
        auto* out_run = dst + b * block_numel;
        if (index_contiguous && block.rank == 0) {
          const auto* run_idx = idx + q;
          for (int64_t t = 0; t < run; ++t) {
            const int64_t i = run_idx[t];
            out_run[t] = base[(i < 0 ? i + size : i) * stride];
          }
        } else {
          for (int64_t t = 0; t < run; ++t) {
            int64_t i = idx[index_contiguous ? q + t : wi.offset[0]];
            if (i < 0) i += size;
            copy_one_block(block, base + i * stride, out_run + t * block_numel);
            if (!index_contiguous) wi.next();
          }
        }
        b += run;
        q += run;
        if (q == count) {
          q = 0;
          wo.next();
        }
      }
    });
  });
  return Error::Ok;
}

// ---- gather ------------------------------------------------------------------

// torch.gather / ONNX GatherElements: out[p] = x[p with p[dim] = index[p]].
Error gather_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                    std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "gather";
  int dim = 0;
  EDGEC_TRY(read_take_args(kOp, "index", inputs, attrs, outputs, dim));
  const Tensor& x = inputs[0];
  const Tensor& index = inputs[1];
  Tensor& out = outputs[0];
  bool fits = index.rank == x.rank;
  for (int d = 0; fits && d < x.rank; ++d) fits = d == dim || index.sizes[d] <= x.sizes[d];
  if (!fits) {
    return fail(Error::InvalidShape, "gather: expected an index of rank " + str(x.rank) +
                                         " no larger than " + shape_string(x.shape()) +
                                         " outside dim " + str(dim) + ", got " +
                                         shape_string(index.shape()));
  }
  EDGEC_TRY(check_indices(kOp, index, x.sizes[dim]));
  EDGEC_TRY(resize_output(kOp, out, index.shape()));
  const int64_t total = out.numel();
  if (total == 0) return Error::Ok;

  // Rows: all dims but the last; the last dim runs in the inner loop.
  const int last = x.rank - 1;
  Walker walker;
  walker.num_operands = 2;  // x (without dim), index
  walker.rank = last;
  for (int d = 0; d < last; ++d) {
    walker.sizes[d] = index.sizes[d];
    walker.strides[0][d] = d == dim ? 0 : x.strides[d];
    walker.strides[1][d] = index.strides[d];
  }
  const int64_t n = index.sizes[last];
  const int64_t rows = total / n;
  const int64_t x_inner = last == dim ? 0 : x.strides[last];
  const int64_t idx_inner = index.strides[last];
  const int64_t size = x.sizes[dim];
  const int64_t stride = x.strides[dim];

  with_typed_data(x, out, index, [&](auto src, auto dst, auto idx) {
    parallel_ranges(ctx, rows, total, [&](int64_t begin, int64_t end) {
      Walker w = walker;
      w.seek(begin);
      for (int64_t row = begin; row < end; ++row, w.next()) {
        const auto* base = src + w.offset[0];
        const auto* idx_row = idx + w.offset[1];
        auto* out_row = dst + row * n;
        for (int64_t j = 0; j < n; ++j) {
          int64_t i = idx_row[j * idx_inner];
          if (i < 0) i += size;
          out_row[j] = base[j * x_inner + i * stride];
        }
      }
    });
  });
  return Error::Ok;
}

// ---- nonzero and boolean masks -----------------------------------------------

// Nonzero tests by storage type: floats compare as numbers (-0 is zero, NaN
// is not), half by its bits without the sign, the rest as integers.
struct F32Nonzero {
  using T = float;
  static bool test(float v) { return v != 0.0f; }
};
struct F64Nonzero {
  using T = double;
  static bool test(double v) { return v != 0.0; }
};
struct F16Nonzero {
  using T = uint16_t;
  static bool test(uint16_t v) { return (v & 0x7fffu) != 0; }
};
template <typename I>
struct IntNonzero {
  using T = I;
  static bool test(I v) { return v != 0; }
};

template <typename Fn>
void dispatch_nonzero(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::Float32: fn(F32Nonzero{}); break;
    case DType::Float16: fn(F16Nonzero{}); break;
    case DType::Int64: fn(IntNonzero<int64_t>{}); break;
    case DType::Int32: fn(IntNonzero<int32_t>{}); break;
    case DType::Int8:
    case DType::UInt8:
    case DType::Bool: fn(IntNonzero<uint8_t>{}); break;
    case DType::Float64: fn(F64Nonzero{}); break;
    case DType::Int16:
    case DType::UInt16: fn(IntNonzero<uint16_t>{}); break;
    case DType::UInt32: fn(IntNonzero<uint32_t>{}); break;
    case DType::UInt64: fn(IntNonzero<uint64_t>{}); break;
    case DType::BFloat16: fn(F16Nonzero{}); break;  // the same sign bit: +-0 are zero
  }
}

// A mask seen as rows of its last dim: `rows` walks the other dims (operand
// 0 is the mask; callers add their own operands), `row_len` and `stride`
// describe the last dim. A scalar is one row of one element.
struct MaskRows {
  Walker rows;
  int64_t row_len = 1;
  int64_t stride = 0;
};

MaskRows mask_rows(const Tensor& mask, int num_operands) {
  MaskRows m;
  m.rows.num_operands = num_operands;
  m.rows.rank = std::max(mask.rank - 1, 0);
  for (int d = 0; d < m.rows.rank; ++d) {
    m.rows.sizes[d] = mask.sizes[d];
    m.rows.strides[0][d] = mask.strides[d];
  }
  if (mask.rank > 0) {
    m.row_len = mask.sizes[mask.rank - 1];
    m.stride = mask.strides[mask.rank - 1];
  }
  return m;
}

// Visits the nonzero positions of a mask in row-major order as
// emit(hit, walker, j): the hit's rank among all hits, the walker at its row
// and its index in the row. Threads take contiguous ranges of positions; a
// first pass counts each range's hits so that each knows where its output
// rows start. prepare(count) sizes the output and may fail.
inline constexpr int kMaxMaskChunks = 64;

template <typename Pred, typename Prepare, typename Emit>
Error for_each_nonzero(const KernelContext& ctx, const void* mask_data, int64_t n,
                       const MaskRows& m, Prepare&& prepare, Emit&& emit) {
  using T = typename Pred::T;
  const T* data = static_cast<const T*>(mask_data);
  const int64_t chunks = ctx.num_threads > 1 && n >= kParallelElements
                             ? std::min<int64_t>({ctx.num_threads, kMaxMaskChunks, n})
                             : 1;
  // Calls seg(walker, j0, j1) for the pieces of positions [begin, end), each
  // within one row.
  auto for_each_segment = [&](int64_t begin, int64_t end, auto&& seg) {
    Walker w = m.rows;
    int64_t j = begin % m.row_len;
    w.seek(begin / m.row_len);
    for (int64_t pos = begin; pos < end; w.next()) {
      const int64_t j1 = std::min(m.row_len, j + (end - pos));
      seg(w, j, j1);
      pos += j1 - j;
      j = 0;
    }
  };
  std::array<int64_t, kMaxMaskChunks + 1> first{};
  auto count_range = [&](int64_t c) {
    int64_t hits = 0;
    for_each_segment(n * c / chunks, n * (c + 1) / chunks,
                     [&](const Walker& w, int64_t j0, int64_t j1) {
                       const T* row = data + w.offset[0];
                       const int64_t s = m.stride;
                       for (int64_t j = j0; j < j1; ++j) hits += Pred::test(row[j * s]);
                     });
    first[c + 1] = hits;
  };
  auto emit_range = [&](int64_t c) {
    int64_t hit = first[c];
    for_each_segment(n * c / chunks, n * (c + 1) / chunks,
                     [&](const Walker& w, int64_t j0, int64_t j1) {
                       const T* row = data + w.offset[0];
                       for (int64_t j = j0; j < j1; ++j)
                         if (Pred::test(row[j * m.stride])) emit(hit++, w, j);
                     });
  };

  if (n > 0) {
    if (chunks > 1) {
#pragma omp parallel for num_threads(ctx.num_threads) schedule(static)
      for (int64_t c = 0; c < chunks; ++c) count_range(c);
    } else {
      count_range(0);
    }
  }
  for (int64_t c = 0; c < chunks; ++c) first[c + 1] += first[c];
  EDGEC_TRY(prepare(first[chunks]));
  if (first[chunks] == 0) return Error::Ok;
  if (chunks > 1) {
#pragma omp parallel for num_threads(ctx.num_threads) schedule(static)
    for (int64_t c = 0; c < chunks; ++c) emit_range(c);
  } else {
    emit_range(0);
  }
  return Error::Ok;
}

// torch.nonzero: i64 [count, rank], one row of coordinates per nonzero.
Error nonzero_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs&,
                     std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "nonzero";
  EDGEC_TRY(check_arity(kOp, inputs, 1, outputs, 1));
  const Tensor& x = inputs[0];
  Tensor& out = outputs[0];
  EDGEC_TRY(check_output_dtype(kOp, out, DType::Int64));
  const MaskRows m = mask_rows(x, 1);
  const int rank = x.rank;
  int64_t* dst = nullptr;
  auto prepare = [&](int64_t count) {
    const int64_t shape[2] = {count, rank};
    EDGEC_TRY(resize_output(kOp, out, shape));
    dst = out.data_as<int64_t>();
    return Error::Ok;
  };
  auto emit = [&](int64_t hit, const Walker& w, int64_t j) {
    int64_t* row = dst + hit * rank;
    for (int d = 0; d + 1 < rank; ++d) row[d] = w.coord[d];
    if (rank > 0) row[rank - 1] = j;
  };
  Error err = Error::Ok;
  dispatch_nonzero(x.dtype, [&](auto pred) {
    err = for_each_nonzero<decltype(pred)>(ctx, x.data, x.numel(), m, prepare, emit);
  });
  return err;
}

// ---- index -------------------------------------------------------------------

// x[mask]: the mask covers x's leading dims; each true position copies the
// remaining dims as one output row.
Error index_by_mask(KernelContext& ctx, const Tensor& x, const Tensor& mask, Tensor& out) {
  constexpr std::string_view kOp = "index";
  bool matches = mask.rank <= x.rank;
  for (int d = 0; matches && d < mask.rank; ++d) matches = mask.sizes[d] == x.sizes[d];
  if (!matches) {
    return fail(Error::InvalidShape, "index: expected a bool mask matching the leading dims of " +
                                         shape_string(x.shape()) + ", got " +
                                         shape_string(mask.shape()));
  }
  const int out_rank = 1 + x.rank - mask.rank;
  if (out_rank > kMaxRank) {
    return fail(Error::InvalidShape, "index: expected a result of rank at most " + str(kMaxRank) +
                                         ", got rank " + str(out_rank));
  }
  MaskRows m = mask_rows(mask, 2);  // mask, x
  for (int d = 0; d < m.rows.rank; ++d) m.rows.strides[1][d] = x.strides[d];
  const int64_t x_row_stride = mask.rank > 0 ? x.strides[mask.rank - 1] : 0;
  const CopyPlan block = trailing_plan(x, mask.rank);
  const int64_t block_numel =
      product({x.sizes.data() + mask.rank, static_cast<size_t>(x.rank - mask.rank)});
  const size_t esz = dtype_size(x.dtype);
  return for_each_nonzero<IntNonzero<uint8_t>>(
      ctx, mask.data, mask.numel(), m,
      [&](int64_t count) {
        std::array<int64_t, kMaxRank> shape{};
        shape[0] = count;
        for (int d = mask.rank; d < x.rank; ++d) shape[1 + d - mask.rank] = x.sizes[d];
        return resize_output(kOp, out, {shape.data(), static_cast<size_t>(out_rank)});
      },
      [&](int64_t hit, const Walker& w, int64_t j) {
        copy_block(esz, block, at(x.data, w.offset[1] + j * x_row_stride, esz),
                   at(out.data, hit * block_numel, esz));
      });
}

// x[i0, i1, ...]: integer index tensors broadcast together and pick along
// x's leading dims; result = broadcast shape + x.shape[count:].
Error index_by_integers(KernelContext& ctx, const Tensor& x, std::span<const Tensor> indices,
                        Tensor& out) {
  constexpr std::string_view kOp = "index";
  const int count = static_cast<int>(indices.size());
  if (count > x.rank) {
    return fail(Error::InvalidArgument, "index: expected at most " + str(x.rank) +
                                            " indices for an input of shape " +
                                            shape_string(x.shape()) + ", got " + str(count));
  }
  // Broadcast the index shapes (numpy rules, aligned on the right).
  int brank = 0;
  for (const Tensor& t : indices) brank = std::max(brank, t.rank);
  std::array<int64_t, kMaxRank> bshape{};
  bshape.fill(1);
  for (const Tensor& t : indices) {
    for (int d = 0; d < t.rank; ++d) {
      const int bd = brank - t.rank + d;
      const int64_t s = t.sizes[d];
      if (s == bshape[bd] || s == 1) continue;
      if (bshape[bd] != 1) {
        std::string shapes;
        for (const Tensor& u : indices) shapes += (shapes.empty() ? "" : ", ") + shape_string(u.shape());
        return fail(Error::InvalidShape, "index: index shapes " + shapes + " do not broadcast");
      }
      bshape[bd] = s;
    }
  }
  const int out_rank = brank + x.rank - count;
  if (out_rank > kMaxRank) {
    return fail(Error::InvalidShape, "index: expected a result of rank at most " + str(kMaxRank) +
                                         ", got rank " + str(out_rank));
  }
  for (int j = 0; j < count; ++j) EDGEC_TRY(check_indices(kOp, indices[j], x.sizes[j]));

  std::array<int64_t, kMaxRank> shape{};
  for (int d = 0; d < brank; ++d) shape[d] = bshape[d];
  for (int d = count; d < x.rank; ++d) shape[brank + d - count] = x.sizes[d];
  EDGEC_TRY(resize_output(kOp, out, {shape.data(), static_cast<size_t>(out_rank)}));
  const int64_t total = out.numel();
  if (total == 0) return Error::Ok;

  Walker walker;
  walker.rank = brank;
  walker.num_operands = count;
  for (int d = 0; d < brank; ++d) walker.sizes[d] = bshape[d];
  for (int j = 0; j < count; ++j) {
    const Tensor& t = indices[j];
    for (int d = 0; d < t.rank; ++d) {
      const int bd = brank - t.rank + d;
      walker.strides[j][bd] = t.sizes[d] == 1 ? 0 : t.strides[d];
    }
  }
  const CopyPlan block = trailing_plan(x, count);
  const int64_t block_numel = product({x.sizes.data() + count, static_cast<size_t>(x.rank - count)});
  const int64_t positions = total / block_numel;
  dispatch_elem_size(dtype_size(x.dtype), [&](auto word) {
    using T = decltype(word);
    const T* src = static_cast<const T*>(x.data);
    T* dst = static_cast<T*>(out.data);
    parallel_ranges(ctx, positions, total, [&](int64_t begin, int64_t end) {
      Walker w = walker;
      w.seek(begin);
      for (int64_t p = begin; p < end; ++p, w.next()) {
        int64_t offset = 0;
        for (int j = 0; j < count; ++j)
          offset += wrapped_index(indices[j], w.offset[j], x.sizes[j]) * x.strides[j];
        copy_one_block(block, src + offset, dst + p * block_numel);
      }
    });
  });
  return Error::Ok;
}

Error index_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs&,
                   std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "index";
  EDGEC_TRY(check_num_outputs(kOp, outputs, 1));
  if (inputs.size() < 2) {
    return fail(Error::InvalidArgument, "index: expected an input and at least 1 index, got " +
                                            str(static_cast<int64_t>(inputs.size())) +
                                            " tensors");
  }
  const Tensor& x = inputs[0];
  const std::span<const Tensor> indices = inputs.subspan(1);
  EDGEC_TRY(check_output_dtype(kOp, outputs[0], x.dtype));
  bool any_mask = false;
  for (size_t j = 0; j < indices.size(); ++j) {
    if (indices[j].dtype == DType::Bool) {
      any_mask = true;
    } else {
      EDGEC_TRY(check_index_dtype(kOp, indices[j], "index tensors"));
    }
  }
  if (any_mask) {
    if (indices.size() != 1) {
      return fail(Error::NotSupported,
                  "index: a bool mask combined with other indices is not supported (got " +
                      str(static_cast<int64_t>(indices.size())) +
                      " indices); use a single mask or only integer indices");
    }
    return index_by_mask(ctx, x, indices[0], outputs[0]);
  }
  return index_by_integers(ctx, x, indices, outputs[0]);
}

// ---- pick --------------------------------------------------------------------

// pick(index, t0, ..., tn-1): a copy of t[index], the index a scalar that
// wraps once when negative. The candidates may differ in shape (the ONNX
// importer's sequence elements at a run-time position, src/frontends/onnx/
// ops_sequence.cpp), so the output is sized here, within the capacity the
// shape function's bounds gave it.
Error pick_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs&, std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "pick";
  EDGEC_TRY(check_num_outputs(kOp, outputs, 1));
  if (inputs.size() < 2) {
    return fail(Error::InvalidArgument, "pick: expected an index and at least 1 tensor, got " +
                                            str(static_cast<int64_t>(inputs.size())) + " tensor(s)");
  }
  const Tensor& index = inputs[0];
  const std::span<const Tensor> tensors = inputs.subspan(1);
  EDGEC_TRY(check_index_dtype(kOp, index, "an index"));
  if (index.rank != 0) {
    return fail(Error::InvalidShape, "pick: expected a scalar index, got shape " + shape_string(index.shape()));
  }
  for (const Tensor& t : tensors) {
    if (t.dtype != tensors[0].dtype || t.rank != tensors[0].rank) {
      return fail(Error::InvalidType, "pick: expected tensors of one dtype and rank, got " +
                                          std::string(dtype_name(tensors[0].dtype)) + " " +
                                          shape_string(tensors[0].shape()) + " and " +
                                          std::string(dtype_name(t.dtype)) + " " + shape_string(t.shape()));
    }
  }
  EDGEC_TRY(check_output_dtype(kOp, outputs[0], tensors[0].dtype));
  int64_t i = read_index(index, 0);
  const int64_t original = i;
  const int64_t count = static_cast<int64_t>(tensors.size());
  if (!wrap_index(i, count)) return index_out_of_range(kOp, original, count);
  const Tensor& chosen = tensors[static_cast<size_t>(i)];
  EDGEC_TRY(resize_output(kOp, outputs[0], chosen.shape()));
  copy_to_contiguous(ctx, chosen, outputs[0].data);
  return Error::Ok;
}

}  // namespace

std::span<const KernelEntry> indexing_kernels() {
  const uint32_t kMoves = kOpShapeOnly;
  static const KernelEntry kIndexingKernels[] = {
      {declare("gather", "indexing", {{"self"}, {"index"}}, {declared<TakeDecls>().dim}, kAllDTypes, kMoves,
               "torch.gather: elements along dim picked by an index of the result's shape"),
       gather_kernel},
      {declare("index", "indexing", {{"self"}, {"indices", OperandKind::List}}, {}, kAllDTypes,
               kMoves | kOpDataDependent,
               "x[i0, i1, ...] on the leading dims (integer indices), or x[mask] (one bool mask)"),
       index_kernel},
      {declare("nonzero", "indexing", {{"self"}}, {}, kAllDTypes, kOpDataDependent,
               "i64 [n, rank] coordinates of the nonzero elements"),
       nonzero_kernel},
      {declare("pick", "indexing", {{"index"}, {"tensors", OperandKind::List}}, {}, kAllDTypes,
               kMoves | kOpDataDependent,
               "tensors[index], whole, for a scalar index (negative wraps once); tensors of one dtype and rank"),
       pick_kernel},
      {declare("take", "indexing", {{"self"}, {"indices"}}, {declared<TakeDecls>().dim}, kAllDTypes, kMoves,
               "ONNX Gather: whole slices along dim picked by indices"),
       take_kernel},
  };
  return kIndexingKernels;
}

}  // namespace edgec

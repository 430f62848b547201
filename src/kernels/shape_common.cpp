#include "kernels/shape_common.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "base/half.h"

namespace edgec::shape_detail {

// ---- argument checks ---------------------------------------------------------

Error check_index_dtype(std::string_view op, const Tensor& index, std::string_view what) {
  if (index.dtype != DType::Int64 && index.dtype != DType::Int32) {
    return fail(Error::InvalidType, std::string(op) + ": expected " + std::string(what) +
                                        " of dtype i64 or i32, got " +
                                        std::string(dtype_name(index.dtype)));
  }
  return Error::Ok;
}

Error normalize_dim(std::string_view op, int64_t dim, int rank, int& out) {
  const int64_t wrapped = dim < 0 ? dim + rank : dim;
  if (wrapped < 0 || wrapped >= rank) {
    return fail(Error::InvalidArgument, std::string(op) + ": dim " + std::to_string(dim) +
                                            " is out of range for rank " + std::to_string(rank));
  }
  out = static_cast<int>(wrapped);
  return Error::Ok;
}

Error check_one_to_one(std::string_view op, std::span<const Tensor> inputs, std::span<Tensor> outputs) {
  EDGEC_TRY(check_arity(op, inputs, 1, outputs, 1));
  return check_output_dtype(op, outputs[0], inputs[0].dtype);
}

Error index_out_of_range(std::string_view op, int64_t index, int64_t size) {
  return fail(Error::IndexOutOfRange, std::string(op) + ": index " + std::to_string(index) +
                                          " is out of range for size " + std::to_string(size));
}

// ---- attributes --------------------------------------------------------------

namespace {

Error wrong_attr_kind(std::string_view op, const AttrDecl& decl, const AttrValue& got) {
  return fail(Error::InvalidArgument,
              std::string(op) + ": expected attribute '" + std::string(decl.name) + "' of kind " +
                  std::string(attr_kind_name(decl.kind)) + ", got " + std::string(attr_kind_name(attr_kind(got))));
}

Error missing_attr(std::string_view op, std::string_view name) {
  return fail(Error::InvalidArgument,
              std::string(op) + ": missing required attribute '" + std::string(name) + "'");
}

// The value of `decl` in `attrs`, or nullptr when absent (an error where
// the declaration requires it).
Error find_attr(std::string_view op, const Attrs& attrs, const AttrDecl& decl, const AttrValue*& v) {
  v = attrs.find(decl.name);
  if (v == nullptr && decl.required) return missing_attr(op, decl.name);
  return Error::Ok;
}

}  // namespace

Error int_attr(std::string_view op, const Attrs& attrs, const AttrDecl& decl, int64_t& out) {
  const AttrValue* v = nullptr;
  EDGEC_TRY(find_attr(op, attrs, decl, v));
  if (v == nullptr) {
    out = static_cast<int64_t>(decl.number);
  } else if (const auto* i = std::get_if<int64_t>(v)) {
    out = *i;
  } else {
    return wrong_attr_kind(op, decl, *v);
  }
  return Error::Ok;
}

Error bool_attr(std::string_view op, const Attrs& attrs, const AttrDecl& decl, bool& out) {
  const AttrValue* v = nullptr;
  EDGEC_TRY(find_attr(op, attrs, decl, v));
  if (v == nullptr) {
    out = decl.number != 0;
  } else if (const auto* b = std::get_if<bool>(v)) {
    out = *b;
  } else if (const auto* i = std::get_if<int64_t>(v)) {
    out = *i != 0;  // ONNX writes booleans as ints (TopK's largest/sorted)
  } else {
    return wrong_attr_kind(op, decl, *v);
  }
  return Error::Ok;
}

Error ints_attr(std::string_view op, const Attrs& attrs, const AttrDecl& decl, std::span<const int64_t>& out,
                bool* present) {
  const AttrValue* v = nullptr;
  EDGEC_TRY(find_attr(op, attrs, decl, v));
  if (present != nullptr) *present = v != nullptr;
  out = {};
  if (v == nullptr) return Error::Ok;
  if (const auto* ints = std::get_if<std::vector<int64_t>>(v)) {
    out = *ints;
    return Error::Ok;
  }
  // An empty list may be stored as either list kind.
  if (const auto* floats = std::get_if<std::vector<double>>(v); floats && floats->empty()) return Error::Ok;
  return wrong_attr_kind(op, decl, *v);
}

Error one_to_one_list(std::string_view op, std::span<const Tensor> inputs, std::span<Tensor> outputs,
                      const Attrs& attrs, const AttrDecl& decl, std::span<const int64_t>& list, bool* present) {
  EDGEC_TRY(check_one_to_one(op, inputs, outputs));
  return ints_attr(op, attrs, decl, list, present);
}

Error number_attr(std::string_view op, const Attrs& attrs, const AttrDecl& decl, Number& out) {
  const AttrValue* v = nullptr;
  EDGEC_TRY(find_attr(op, attrs, decl, v));
  if (v == nullptr) {
    // A whole default stays an int, so that all-int bounds stay exact.
    const bool whole = decl.number == std::floor(decl.number);
    out = whole ? Number{true, static_cast<int64_t>(decl.number), 0.0} : Number{false, 0, decl.number};
  } else if (const auto* i = std::get_if<int64_t>(v)) {
    out = Number{true, *i, 0.0};
  } else if (const auto* f = std::get_if<double>(v)) {
    out = Number{false, 0, *f};
  } else if (const auto* b = std::get_if<bool>(v)) {
    out = Number{true, *b ? 1 : 0, 0.0};
  } else {
    return wrong_attr_kind(op, decl, *v);
  }
  return Error::Ok;
}

int64_t arange_int_length(int64_t start, int64_t end, int64_t step) {
  const __int128 span = static_cast<__int128>(end) - start;
  const __int128 s = step;
  // Ceiling division for either sign of step.
  __int128 len = span / s;
  if (len * s != span && ((span > 0) == (s > 0))) ++len;
  return len > 0 ? static_cast<int64_t>(len) : 0;
}

uint64_t scalar_bits(DType dtype, const Number& value) {
  switch (dtype) {
    case DType::Float32: {
      const float f = static_cast<float>(value.as_double());
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof bits);
      return bits;
    }
    case DType::Float16: return float_to_half(static_cast<float>(value.as_double())).bits;
    case DType::BFloat16: return double_to_bfloat16(value.as_double());
    case DType::Float64: {
      const double f = value.as_double();
      uint64_t bits;
      std::memcpy(&bits, &f, sizeof bits);
      return bits;
    }
    case DType::Bool: return value.is_int ? value.i != 0 : value.f != 0.0;
    case DType::Int64:
    case DType::Int32:
    case DType::Int16:
    case DType::Int8:
    case DType::UInt64:
    case DType::UInt32:
    case DType::UInt16:
    case DType::UInt8: {
      // Narrow types keep the low bytes (two's complement wrap, as numpy's astype).
      const int64_t i = value.is_int ? value.i : saturating_int(value.f);
      return static_cast<uint64_t>(i);
    }
  }
  return 0;
}

// ---- strided copies ----------------------------------------------------------

void CopyPlan::simplify() {
  for (int d = 0; d < rank; ++d) {
    if (sizes[d] == 0) {
      rank = 1;
      sizes[0] = 0;
      src_strides[0] = dst_strides[0] = 0;
      return;
    }
  }
  int kept = 0;
  for (int d = 0; d < rank; ++d) {
    if (sizes[d] == 1) continue;
    if (kept > 0) {
      const int last = kept - 1;
      if (src_strides[last] == src_strides[d] * sizes[d] &&
          dst_strides[last] == dst_strides[d] * sizes[d]) {
        sizes[last] *= sizes[d];
        src_strides[last] = src_strides[d];
        dst_strides[last] = dst_strides[d];
        continue;
      }
    }
    sizes[kept] = sizes[d];
    src_strides[kept] = src_strides[d];
    dst_strides[kept] = dst_strides[d];
    ++kept;
  }
  rank = kept;
}

CopyPlan contiguous_plan(const Tensor& src) {
  CopyPlan plan;
  int64_t stride = 1;
  for (int d = src.rank - 1; d >= 0; --d) {
    plan.sizes[d] = src.sizes[d];
    plan.src_strides[d] = src.strides[d];
    plan.dst_strides[d] = stride;
    stride *= src.sizes[d];
  }
  plan.rank = src.rank;
  return plan;
}

namespace {

template <typename T>
inline void copy_row(const T* src, int64_t src_stride, T* dst, int64_t dst_stride, int64_t n) {
  if (src_stride == 1 && dst_stride == 1) {
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(T));
  } else if (src_stride == 0 && dst_stride == 1) {
    std::fill_n(dst, n, *src);
  } else if (dst_stride == 1) {
    for (int64_t j = 0; j < n; ++j) dst[j] = src[j * src_stride];
  } else {
    for (int64_t j = 0; j < n; ++j) dst[j * dst_stride] = src[j * src_stride];
  }
}

// Rows are all dims but the last; copies rows [begin, end).
template <typename T>
void copy_rows(const CopyPlan& plan, const T* src, T* dst, int64_t begin, int64_t end) {
  const int outer = plan.rank - 1;
  const int64_t n = plan.sizes[outer];
  std::array<int64_t, kMaxCopyRank> coord{};
  int64_t src_off = 0;
  int64_t dst_off = 0;
  int64_t flat = begin;
  for (int d = outer - 1; d >= 0; --d) {
    coord[d] = flat % plan.sizes[d];
    flat /= plan.sizes[d];
    src_off += coord[d] * plan.src_strides[d];
    dst_off += coord[d] * plan.dst_strides[d];
  }
  for (int64_t row = begin; row < end; ++row) {
    copy_row(src + src_off, plan.src_strides[outer], dst + dst_off, plan.dst_strides[outer], n);
    for (int d = outer - 1; d >= 0; --d) {
      src_off += plan.src_strides[d];
      dst_off += plan.dst_strides[d];
      if (++coord[d] < plan.sizes[d]) break;
      src_off -= plan.src_strides[d] * plan.sizes[d];
      dst_off -= plan.dst_strides[d] * plan.sizes[d];
      coord[d] = 0;
    }
  }
}

// A transpose-like copy (the source's unit stride is not the inner dim)
// reads one element per cache line; tiling the two dims keeps both sides in
// cache. Returns false when the plan has no such shape.
template <typename T>
bool copy_tiled_transpose(const KernelContext& ctx, const CopyPlan& plan, const T* src, T* dst) {
  // 16: with power-of-two row lengths a tile's source lines share cache
  // sets, and 32 of them overflow an 8-way L1 where 16 mostly do not.
  constexpr int64_t kTile = 16;
  const int inner = plan.rank - 1;
  if (plan.rank < 2 || plan.dst_strides[inner] != 1 || plan.src_strides[inner] == 1) return false;
  int unit = -1;
  for (int d = 0; d < inner; ++d)
    if (plan.src_strides[d] == 1) unit = d;
  if (unit < 0 || plan.sizes[unit] < kTile || plan.sizes[inner] < kTile) return false;

  // Move the source's unit-stride dim next to the inner one, so that each
  // (outer, row tile, column tile) is a 2-D transpose.
  CopyPlan outer_plan;
  for (int d = 0; d < inner; ++d)
    if (d != unit) outer_plan.add_dim(plan.sizes[d], plan.src_strides[d], plan.dst_strides[d]);
  const int64_t rows = plan.sizes[unit];
  const int64_t cols = plan.sizes[inner];
  const int64_t row_tiles = (rows + kTile - 1) / kTile;
  const int64_t col_tiles = (cols + kTile - 1) / kTile;
  const int64_t outer_count = outer_plan.numel();
  const int64_t tasks = outer_count * row_tiles * col_tiles;
  const int64_t src_row = plan.src_strides[unit];  // == 1
  const int64_t src_col = plan.src_strides[inner];
  const int64_t dst_row = plan.dst_strides[unit];

  auto run_task = [&](int64_t task) {
    const int64_t ct = task % col_tiles;
    const int64_t rt = (task / col_tiles) % row_tiles;
    int64_t o = task / (col_tiles * row_tiles);
    int64_t src_off = 0;
    int64_t dst_off = 0;
    for (int d = outer_plan.rank - 1; d >= 0; --d) {
      const int64_t c = o % outer_plan.sizes[d];
      o /= outer_plan.sizes[d];
      src_off += c * outer_plan.src_strides[d];
      dst_off += c * outer_plan.dst_strides[d];
    }
    const int64_t r0 = rt * kTile, r1 = std::min(rows, r0 + kTile);
    const int64_t c0 = ct * kTile, c1 = std::min(cols, c0 + kTile);
    for (int64_t r = r0; r < r1; ++r) {
      const T* s = src + src_off + r * src_row;
      T* d = dst + dst_off + r * dst_row;
      for (int64_t c = c0; c < c1; ++c) d[c] = s[c * src_col];
    }
  };
  const int64_t total = plan.numel();
  if (ctx.num_threads > 1 && total >= kParallelElements) {
#pragma omp parallel for num_threads(ctx.num_threads) schedule(static)
    for (int64_t task = 0; task < tasks; ++task) run_task(task);
  } else {
    for (int64_t task = 0; task < tasks; ++task) run_task(task);
  }
  return true;
}

template <typename T>
void copy_plan_typed(const KernelContext& ctx, const CopyPlan& plan, const T* src, T* dst) {
  const int64_t total = plan.numel();
  const int inner = plan.rank - 1;
  const int64_t n = plan.sizes[inner];
  const int64_t rows = total / n;
  const int threads = ctx.num_threads;
  if (threads <= 1 || total < kParallelElements) {
    if (!copy_tiled_transpose(ctx, plan, src, dst)) copy_rows(plan, src, dst, 0, rows);
    return;
  }
  if (copy_tiled_transpose(ctx, plan, src, dst)) return;
  if (rows == 1) {
    // One long row: split it.
    const int64_t chunks = threads;
    const int64_t ss = plan.src_strides[inner];
    const int64_t ds = plan.dst_strides[inner];
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t c = 0; c < chunks; ++c) {
      const int64_t b = n * c / chunks;
      const int64_t e = n * (c + 1) / chunks;
      copy_row(src + b * ss, ss, dst + b * ds, ds, e - b);
    }
    return;
  }
  const int64_t chunks = std::min<int64_t>(threads, rows);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    copy_rows(plan, src, dst, rows * c / chunks, rows * (c + 1) / chunks);
  }
}

}  // namespace

void copy_strided(const KernelContext& ctx, size_t elem_size, CopyPlan plan, const void* src,
                  void* dst) {
  plan.simplify();
  if (plan.rank == 0 || plan.sizes[0] == 0) {
    copy_block(elem_size, plan, src, dst);  // one element or none
    return;
  }
  dispatch_elem_size(elem_size, [&](auto word) {
    using T = decltype(word);
    copy_plan_typed(ctx, plan, static_cast<const T*>(src), static_cast<T*>(dst));
  });
}

void copy_block(size_t elem_size, const CopyPlan& plan, const void* src, void* dst) {
  if (plan.rank == 0) {
    std::memcpy(dst, src, elem_size);
    return;
  }
  if (plan.sizes[0] == 0) return;
  dispatch_elem_size(elem_size, [&](auto word) {
    using T = decltype(word);
    copy_rows(plan, static_cast<const T*>(src), static_cast<T*>(dst), 0,
              plan.numel() / plan.sizes[plan.rank - 1]);
  });
}

void copy_to_contiguous(const KernelContext& ctx, const Tensor& src, void* dst) {
  copy_strided(ctx, dtype_size(src.dtype), contiguous_plan(src), src.data, dst);
}

void fill_bits(void* dst, int64_t count, size_t elem_size, uint64_t bits) {
  if (count <= 0) return;
  dispatch_elem_size(elem_size, [&](auto word) {
    using T = decltype(word);
    std::fill_n(static_cast<T*>(dst), count, static_cast<T>(bits));
  });
}

}  // namespace edgec::shape_detail

// topk: the k largest (or smallest) elements along a dim, with their
// indices. Each slice keeps a binary heap of the k best indices seen so far
// in the index output itself (k slots per slice are exactly what is there),
// so the kernel needs no scratch memory and runs in O(n log k); a final
// heap sort orders them best first.
//
// Order: NaN ranks above every number (like torch and numpy's sort), and
// equal values keep the lower index first (like ONNX TopK). The result is
// always sorted, which is one valid answer when sorted=false.
#include <algorithm>
#include <cmath>
#include <string>

#include "base/half.h"
#include "kernels/shape_common.h"
#include "kernels/shape_ops.h"

namespace edgec::shape_detail {
namespace {

// topk's attributes, declared once: its row at the end of this file and its
// kernel read them.
struct TopkDecls {
  AttrDecl k = required(attr_int("k", 0, AttrRule::NonNegative));
  AttrDecl dim = attr_int("dim", -1);
  AttrDecl largest = attr_bool("largest", true);
  AttrDecl sorted = attr_bool("sorted", true);
};

// Every dtype but bool: the order needs numbers.
constexpr DTypeSet kTopkTypes = kNumericDTypes | DTypeSet{DType::Float64, DType::Int16, DType::UInt16,
                                                            DType::UInt32, DType::UInt64};

template <typename S>
inline auto load_key(const S* p) {
  if constexpr (std::is_same_v<S, Half>) {
    return half_to_float(*p);
  } else {
    return *p;
  }
}

template <typename K>
inline bool key_greater(K a, K b) {
  if constexpr (std::is_floating_point_v<K>) {
    return (std::isnan(a) && !std::isnan(b)) || a > b;
  } else {
    return a > b;
  }
}

template <typename K>
inline bool key_equal(K a, K b) {
  if constexpr (std::is_floating_point_v<K>) {
    return a == b || (std::isnan(a) && std::isnan(b));
  } else {
    return a == b;
  }
}

struct TopKArgs {
  int64_t n = 0;  // slice length
  int64_t k = 0;
  bool largest = true;
  int64_t x_stride = 0;    // along the dim
  int64_t out_stride = 0;  // along the dim, in both outputs
};

// One slice: x at `src`, outputs at `values` / `indices`.
template <typename S>
void topk_slice(const TopKArgs& a, const S* src, S* values, int64_t* indices) {
  const int64_t xs = a.x_stride;
  const int64_t os = a.out_stride;
  const bool largest = a.largest;
  // before(i, j): element i ranks ahead of element j.
  auto before = [&](int64_t i, int64_t j) {
    const auto vi = load_key(src + i * xs);
    const auto vj = load_key(src + j * xs);
    if (key_equal(vi, vj)) return i < j;
    return largest ? key_greater(vi, vj) : key_greater(vj, vi);
  };
  auto slot = [&](int64_t h) -> int64_t& { return indices[h * os]; };
  // The heap's root is the worst kept element: every child ranks ahead of its parent.
  auto sift_down = [&](int64_t h, int64_t size) {
    for (;;) {
      int64_t worst = 2 * h + 1;
      if (worst >= size) return;
      if (worst + 1 < size && before(slot(worst), slot(worst + 1))) ++worst;
      if (!before(slot(h), slot(worst))) return;
      std::swap(slot(h), slot(worst));
      h = worst;
    }
  };

  const int64_t k = a.k;
  for (int64_t i = 0; i < k; ++i) slot(i) = i;
  for (int64_t h = k / 2 - 1; h >= 0; --h) sift_down(h, k);
  // Every later index is larger than the kept ones, so a tie with the worst
  // kept value loses and only a strictly better value enters; keeping that
  // value in a register makes the common case one load and one compare.
  if (k > 0) {
    auto worst = load_key(src + slot(0) * xs);
    for (int64_t i = k; i < a.n; ++i) {
      const auto v = load_key(src + i * xs);
      if (largest ? key_greater(v, worst) : key_greater(worst, v)) {
        slot(0) = i;
        sift_down(0, k);
        worst = load_key(src + slot(0) * xs);
      }
    }
  }
  // Heap sort: move the worst to the back each round, leaving best first.
  for (int64_t size = k; size > 1; --size) {
    std::swap(slot(0), slot(size - 1));
    sift_down(0, size - 1);
  }
  for (int64_t i = 0; i < k; ++i) values[i * os] = src[slot(i) * xs];
}

Error topk_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                  std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "topk";
  EDGEC_TRY(check_arity(kOp, inputs, 1, outputs, 2));
  const Tensor& x = inputs[0];
  Tensor& values = outputs[0];
  Tensor& indices = outputs[1];
  if (!kTopkTypes.contains(x.dtype)) {
    return fail(Error::InvalidType, "topk: expected a numeric input, got " + std::string(dtype_name(x.dtype)));
  }
  EDGEC_TRY(check_output_dtype(kOp, values, x.dtype));
  if (indices.dtype != DType::Int64) {
    return fail(Error::InvalidType, "topk: expected indices output dtype i64, got " +
                                        std::string(dtype_name(indices.dtype)));
  }
  int64_t k = 0;
  int64_t dim_attr = -1;
  bool largest = true;
  bool sorted = true;
  const TopkDecls& decls = declared<TopkDecls>();
  EDGEC_TRY(int_attr(kOp, attrs, decls.k, k));
  EDGEC_TRY(int_attr(kOp, attrs, decls.dim, dim_attr));
  EDGEC_TRY(bool_attr(kOp, attrs, decls.largest, largest));
  EDGEC_TRY(bool_attr(kOp, attrs, decls.sorted, sorted));
  (void)sorted;  // always sorted; see the header comment

  // A scalar is a slice of one element (torch accepts dim 0 or -1).
  const bool scalar = x.rank == 0;
  int dim = 0;
  EDGEC_TRY(normalize_dim(kOp, dim_attr, scalar ? 1 : x.rank, dim));
  const int64_t n = scalar ? 1 : x.sizes[dim];
  if (k < 0 || k > n) {
    return fail(Error::InvalidArgument, "topk: k " + std::to_string(k) +
                                            " is out of range for dim " + std::to_string(dim) +
                                            " of size " + std::to_string(n));
  }
  std::array<int64_t, kMaxRank> shape = x.sizes;
  if (!scalar) shape[dim] = k;
  const std::span<const int64_t> out_shape{shape.data(), static_cast<size_t>(x.rank)};
  EDGEC_TRY(resize_output(kOp, values, out_shape));
  EDGEC_TRY(resize_output(kOp, indices, out_shape));
  if (values.numel() == 0) return Error::Ok;

  // Slices: every position of x with `dim` removed.
  Walker walker;
  walker.num_operands = 2;  // x, outputs
  for (int d = 0; d < x.rank; ++d) {
    if (d == dim) continue;
    walker.sizes[walker.rank] = x.sizes[d];
    walker.strides[0][walker.rank] = x.strides[d];
    walker.strides[1][walker.rank] = values.strides[d];
    ++walker.rank;
  }
  TopKArgs a;
  a.n = n;
  a.k = k;
  a.largest = largest;
  a.x_stride = scalar ? 0 : x.strides[dim];
  a.out_stride = scalar ? 0 : values.strides[dim];
  const int64_t slices = x.numel() / n;

  auto run = [&](auto tag, int64_t begin, int64_t end) {
    using S = decltype(tag);
    Walker w = walker;
    w.seek(begin);
    const S* src = static_cast<const S*>(x.data);
    S* vals = static_cast<S*>(values.data);
    int64_t* idx = static_cast<int64_t*>(indices.data);
    for (int64_t s = begin; s < end; ++s) {
      topk_slice<S>(a, src + w.offset[0], vals + w.offset[1], idx + w.offset[1]);
      w.next();
    }
  };
  auto dispatch = [&](auto tag) {
    const int64_t chunks =
        ctx.num_threads > 1 && x.numel() >= kParallelElements ? std::min<int64_t>(ctx.num_threads, slices) : 1;
    if (chunks > 1) {
#pragma omp parallel for num_threads(ctx.num_threads) schedule(static)
      for (int64_t c = 0; c < chunks; ++c) run(tag, slices * c / chunks, slices * (c + 1) / chunks);
    } else {
      run(tag, 0, slices);
    }
  };
  switch (x.dtype) {
    case DType::Float32: dispatch(float{}); break;
    case DType::Float16: dispatch(Half{}); break;
    case DType::Int64: dispatch(int64_t{}); break;
    case DType::Int32: dispatch(int32_t{}); break;
    case DType::Int8: dispatch(int8_t{}); break;
    case DType::UInt8: dispatch(uint8_t{}); break;
    case DType::Float64: dispatch(double{}); break;
    case DType::Int16: dispatch(int16_t{}); break;
    case DType::UInt16: dispatch(uint16_t{}); break;
    case DType::UInt32: dispatch(uint32_t{}); break;
    case DType::UInt64: dispatch(uint64_t{}); break;
    case DType::Bool:
    case DType::BFloat16: break;  // rejected above
  }
  return Error::Ok;
}

}  // namespace

std::span<const KernelEntry> topk_kernels() {
  const TopkDecls& d = declared<TopkDecls>();
  static const KernelEntry kTopkKernels[] = {
      {declare("topk", "shape", {{"self"}}, {d.k, d.dim, d.largest, d.sorted}, kTopkTypes, 0,
               "the k largest (or smallest) along dim, sorted, and their i64 indices"),
       topk_kernel},
  };
  return kTopkKernels;
}

}  // namespace edgec::shape_detail

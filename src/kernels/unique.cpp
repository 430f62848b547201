// unique(x; dim, sorted): ONNX Unique. The distinct elements of x (dim
// absent: x flattened) or its distinct slices along dim, and four results:
//   y        the distinct elements / slices: sorted ascending (slices
//            lexicographically), or in the order they first occur;
//   indices  i64 [k], where each first occurs in x;
//   inverse  i64 [n], for each element / slice of x its position in y;
//   counts   i64 [k], how often each occurs;
// and an i64 [3n] workspace, left zero (the kernel allocates nothing). k is
// data dependent. Floats compare as numbers (-0 equals 0); NaNs equal each
// other and sort after every number.
#include <algorithm>
#include <cstring>
#include <string>

#include "kernels/f16_compute.h"
#include "kernels/families.h"
#include "kernels/shape_common.h"

namespace edgec {
namespace {

using namespace shape_detail;

struct UniqueDecls {
  /// Absent: the flattened input; else one entry, the dim.
  AttrDecl dim = attr_ints("dim");
  AttrDecl sorted = attr_bool("sorted", true);
};

/// -1, 0 or 1 for two elements of storage type T (NaN above all, equal to NaN).
template <typename T>
int compare_elements(T a, T b) {
  if constexpr (std::is_same_v<T, Half> || std::is_floating_point_v<T>) {
    const auto fa = widen(a), fb = widen(b);
    const bool na = fa != fa, nb = fb != fb;
    if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
    return fa < fb ? -1 : (fb < fa ? 1 : 0);
  } else {
    return a < b ? -1 : (b < a ? 1 : 0);
  }
}

template <typename T>
Error unique_typed(const Tensor& x, int dim, bool sorted, std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "unique";
  // x seen as [outer, n, inner]: slice j is x[o, j, i] over (o, i); with no
  // dim, the flattened elements (outer = inner = 1), read in row-major order.
  const bool flat = dim < 0;
  const int64_t n = flat ? x.numel() : x.sizes[dim];
  int64_t outer = 1, inner = 1;
  if (!flat) {
    for (int d = 0; d < dim; ++d) outer *= x.sizes[d];
    for (int d = dim + 1; d < x.rank; ++d) inner *= x.sizes[d];
  }
  const T* xd = x.data_as<T>();
  // The storage offset of element e (row-major over x's shape).
  auto offset = [&](int64_t e) {
    int64_t off = 0;
    for (int d = x.rank - 1; d >= 0; --d) {
      off += (e % x.sizes[d]) * x.strides[d];
      e /= x.sizes[d];
    }
    return off;
  };
  auto element = [&](int64_t o, int64_t j, int64_t i) {
    return xd[offset(flat ? j : (o * n + j) * inner + i)];
  };
  auto compare_slices = [&](int64_t a, int64_t b) {
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i)
        if (int c = compare_elements(element(o, a, i), element(o, b, i))) return c;
    return 0;
  };

  const int64_t ws_shape[] = {3 * n};
  EDGEC_TRY(resize_output(kOp, outputs[4], ws_shape));
  int64_t* order = outputs[4].data_as<int64_t>();  // slices in sorted order
  int64_t* run_of = order + n;                      // each slice's run of equal slices
  int64_t* position = order + 2 * n;                // each run's position in y
  for (int64_t j = 0; j < n; ++j) order[j] = j;
  // Equal slices by index, so that each run starts with the first occurrence.
  std::sort(order, order + n, [&](int64_t a, int64_t b) {
    const int c = compare_slices(a, b);
    return c != 0 ? c < 0 : a < b;
  });
  int64_t k = 0;
  for (int64_t p = 0; p < n; ++p) {
    if (p > 0 && compare_slices(order[p - 1], order[p]) != 0) ++k;
    run_of[order[p]] = k;
  }
  if (n > 0) ++k;
  if (sorted) {
    for (int64_t r = 0; r < k; ++r) position[r] = r;
  } else {
    std::fill(position, position + k, int64_t{-1});
    int64_t next = 0;
    for (int64_t j = 0; j < n; ++j)
      if (position[run_of[j]] < 0) position[run_of[j]] = next++;
  }

  int64_t y_shape[kMaxRank];
  for (int d = 0; d < x.rank; ++d) y_shape[d] = x.sizes[d];
  const int64_t flat_shape[] = {k};
  const int64_t k_shape[] = {k};
  const int64_t n_shape[] = {n};
  if (flat) {
    EDGEC_TRY(resize_output(kOp, outputs[0], flat_shape));
  } else {
    y_shape[dim] = k;
    EDGEC_TRY(resize_output(kOp, outputs[0], std::span<const int64_t>(y_shape, static_cast<size_t>(x.rank))));
  }
  EDGEC_TRY(resize_output(kOp, outputs[1], k_shape));
  EDGEC_TRY(resize_output(kOp, outputs[2], n_shape));
  EDGEC_TRY(resize_output(kOp, outputs[3], k_shape));
  T* y = outputs[0].data_as<T>();
  int64_t* first = outputs[1].data_as<int64_t>();
  int64_t* inverse = outputs[2].data_as<int64_t>();
  int64_t* counts = outputs[3].data_as<int64_t>();
  std::fill(counts, counts + k, int64_t{0});
  for (int64_t p = 0; p < n; ++p) {
    const int64_t j = order[p];
    const int64_t pos = position[run_of[j]];
    if (counts[pos]++ == 0) {
      first[pos] = j;  // the run's first slice in sorted order is its first occurrence
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) y[(o * k + pos) * inner + i] = element(o, j, i);
    }
  }
  for (int64_t j = 0; j < n; ++j) inverse[j] = position[run_of[j]];
  std::fill(order, order + 3 * n, int64_t{0});
  return Error::Ok;
}

Error unique_kernel(KernelContext&, std::span<const Tensor> inputs, const Attrs& attrs, std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "unique";
  const UniqueDecls& d = declared<UniqueDecls>();
  EDGEC_TRY(check_arity(kOp, inputs, 1, outputs, 5));
  const Tensor& x = inputs[0];
  EDGEC_TRY(check_output_dtype(kOp, outputs[0], x.dtype));
  for (size_t i = 1; i < 5; ++i) EDGEC_TRY(check_output_dtype(kOp, outputs[i], DType::Int64));
  std::span<const int64_t> dims;
  bool present = false, sorted = true;
  EDGEC_TRY(ints_attr(kOp, attrs, d.dim, dims, &present));
  EDGEC_TRY(bool_attr(kOp, attrs, d.sorted, sorted));
  int dim = -1;
  if (present) {
    if (dims.size() != 1)
      return fail(Error::InvalidArgument, "unique: expected attribute 'dim' to hold one dim, got " +
                                              std::to_string(dims.size()));
    EDGEC_TRY(normalize_dim(kOp, dims[0], x.rank, dim));
  }
  switch (x.dtype) {
    case DType::Float32: return unique_typed<float>(x, dim, sorted, outputs);
    case DType::Float16: return unique_typed<Half>(x, dim, sorted, outputs);
    case DType::Float64: return unique_typed<double>(x, dim, sorted, outputs);
    case DType::Int64: return unique_typed<int64_t>(x, dim, sorted, outputs);
    case DType::Int32: return unique_typed<int32_t>(x, dim, sorted, outputs);
    case DType::Int16: return unique_typed<int16_t>(x, dim, sorted, outputs);
    case DType::Int8: return unique_typed<int8_t>(x, dim, sorted, outputs);
    case DType::UInt8:
    case DType::Bool: return unique_typed<uint8_t>(x, dim, sorted, outputs);
    case DType::UInt16: return unique_typed<uint16_t>(x, dim, sorted, outputs);
    case DType::UInt32: return unique_typed<uint32_t>(x, dim, sorted, outputs);
    case DType::UInt64: return unique_typed<uint64_t>(x, dim, sorted, outputs);
    case DType::BFloat16: break;  // a storage type only (base/dtype.h): not declared
  }
  return fail(Error::InvalidType, "unique: unsupported dtype " + std::string(dtype_name(x.dtype)));
}

}  // namespace

std::span<const KernelEntry> unique_kernels() {
  const UniqueDecls& d = declared<UniqueDecls>();
  static const KernelEntry kUniqueKernels[] = {
      {declare("unique", "indexing", {{"self"}}, {d.dim, d.sorted}, kAllDTypes, kOpDataDependent,
               "ONNX Unique: distinct elements (or slices along dim), first indices, inverse indices, counts "
               "and a workspace"),
       unique_kernel},
  };
  return kUniqueKernels;
}

}  // namespace edgec

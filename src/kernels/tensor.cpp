#include "kernels/tensor.h"

#include <string>

namespace edgec {

Error Tensor::resize(std::span<const int64_t> shape) {
  if (shape.size() > static_cast<size_t>(kMaxRank)) {
    return fail(Error::InvalidShape, "rank " + std::to_string(shape.size()) +
                                         " exceeds the maximum rank " + std::to_string(kMaxRank));
  }
  // Overflow-checked element count.
  uint64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return fail(Error::InvalidShape, "negative dimension in " + shape_string(shape));
    if (d != 0 && n > UINT64_MAX / static_cast<uint64_t>(d))
      return fail(Error::InvalidShape, "element count of " + shape_string(shape) + " overflows");
    n *= static_cast<uint64_t>(d);
  }
  const uint64_t esz = dtype_size(dtype);
  if (n > UINT64_MAX / esz || n * esz > capacity) {
    return fail(Error::OutOfMemory, "output of shape " + shape_string(shape) + " needs " +
                                        std::to_string(n * esz) + " bytes, only " +
                                        std::to_string(capacity) + " available");
  }
  rank = static_cast<int>(shape.size());
  for (int i = 0; i < rank; ++i) sizes[i] = shape[i];
  set_contiguous_strides();
  return Error::Ok;
}

Tensor make_tensor(DType dtype, std::span<const int64_t> shape, void* data, size_t capacity) {
  Tensor t;
  t.dtype = dtype;
  t.rank = static_cast<int>(shape.size());
  for (int i = 0; i < t.rank && i < kMaxRank; ++i) t.sizes[i] = shape[i];
  t.set_contiguous_strides();
  t.data = data;
  t.capacity = capacity;
  return t;
}

std::string shape_string(std::span<const int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

}  // namespace edgec

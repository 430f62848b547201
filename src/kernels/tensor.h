// Tensor: what a kernel reads and writes. A view over memory owned elsewhere
// (the runtime's arena, a constant in the program file, a test's buffer).
//
// Inputs may be strided (e.g. a permuted view); outputs a kernel writes are
// always contiguous. `capacity` bounds what a kernel may write, so a kernel
// whose output size depends on data (nonzero, boolean index) can set the
// actual shape and still never write out of bounds.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "base/dtype.h"
#include "base/error.h"
#include "base/half.h"

namespace edgec {


struct Tensor {
  DType dtype = DType::Float32;
  int rank = 0;
  std::array<int64_t, kMaxRank> sizes{};
  std::array<int64_t, kMaxRank> strides{};  // in elements
  void* data = nullptr;
  size_t capacity = 0;  // bytes writable at `data` (0 for read-only views is fine)

  int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= sizes[i];
    return n;
  }
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype); }
  std::span<const int64_t> shape() const { return {sizes.data(), static_cast<size_t>(rank)}; }
  int64_t size(int dim) const { return sizes[dim]; }

  bool is_contiguous() const {
    int64_t expected = 1;
    for (int i = rank - 1; i >= 0; --i) {
      if (sizes[i] != 1 && strides[i] != expected) return false;
      expected *= sizes[i];
    }
    return true;
  }

  template <typename T>
  T* data_as() { return static_cast<T*>(data); }
  template <typename T>
  const T* data_as() const { return static_cast<const T*>(data); }

  /// Sets a contiguous shape. Fails (without writing anything) if the new
  /// shape needs more than `capacity` bytes or more than kMaxRank dims.
  Error resize(std::span<const int64_t> shape);

  /// Sets contiguous strides for the current sizes.
  void set_contiguous_strides() {
    int64_t s = 1;
    for (int i = rank - 1; i >= 0; --i) {
      strides[i] = s;
      s *= sizes[i];
    }
  }
};

/// A contiguous view of `data` with `shape` (for tests and callers).
Tensor make_tensor(DType dtype, std::span<const int64_t> shape, void* data, size_t capacity);

/// "[2, 3, 4]" for messages.
std::string shape_string(std::span<const int64_t> shape);

}  // namespace edgec

// Tensors with their own storage, and a kernel run on a given number of
// threads, for the kernel tests that compare results across thread counts.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/error.h"
#include "kernels/registry.h"

namespace edgec {

/// A tensor of `dtype` and `shape` whose zeroed bytes it owns.
struct OwnedTensor {
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
  std::vector<std::byte> bytes;

  OwnedTensor(DType d, std::vector<int64_t> s) : dtype(d), shape(std::move(s)) {
    int64_t n = 1;
    for (int64_t v : shape) n *= v;
    bytes.resize(static_cast<size_t>(n) * dtype_size(d));
  }
  template <typename T>
  T* as() { return reinterpret_cast<T*>(bytes.data()); }
  Tensor tensor() { return make_tensor(dtype, shape, bytes.data(), bytes.size()); }
};

/// A float32 tensor of `shape` whose elements, in order, `dist` draws from
/// a std::mt19937 seeded with `seed`.
template <typename Dist>
OwnedTensor random_floats(std::vector<int64_t> shape, uint32_t seed, Dist dist) {
  OwnedTensor t(DType::Float32, std::move(shape));
  std::mt19937 gen(seed);
  float* v = t.as<float>();
  for (size_t i = 0; i < t.bytes.size() / sizeof(float); ++i) v[i] = dist(gen);
  return t;
}

/// Runs kernel `fn` (`op`) on `num_threads` threads into `result`, refilled
/// with `capacity` bytes 0xAB; `nbytes` is what its output holds. A kernel
/// error is a fatal failure.
inline void run_on_threads(KernelFn fn, const std::string& op, std::span<const Tensor> inputs, const Attrs& attrs,
                           DType out_dtype, size_t capacity, int num_threads, std::vector<std::byte>& result,
                           size_t& nbytes) {
  result.assign(capacity, std::byte{0xAB});
  Tensor out;
  out.dtype = out_dtype;
  out.data = result.data();
  out.capacity = capacity;
  KernelContext ctx;
  ctx.num_threads = num_threads;
  std::span<Tensor> outs(&out, 1);
  ASSERT_EQ(fn(ctx, inputs, attrs, outs), Error::Ok) << op << ": " << error_detail();
  nbytes = out.nbytes();
}

}  // namespace edgec

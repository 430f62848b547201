// Reduction, normalization and matmul kernels split their work into tasks
// that each own whole outputs, so the result must not depend on how many
// threads run them. The case driver runs kernels on one thread; this test
// runs inputs large enough to take the parallel paths and requires the
// threaded result to equal the single-threaded one bit for bit.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/registry.h"
#include "support/attrs.h"
#include "support/kernel_buffers.h"

namespace edgec {
namespace {

using Buffer = OwnedTensor;

Buffer random_buffer(std::vector<int64_t> shape, uint32_t seed) {
  return random_floats(std::move(shape), seed, std::normal_distribution<float>(0.0f, 2.0f));
}

// Runs `op` with 1 and with 4 threads and compares the raw output bytes.
void expect_thread_invariant(const std::string& op, std::vector<Buffer> inputs, const Attrs& attrs,
                             DType out_dtype, size_t out_bytes) {
  KernelFn fn = find_kernel(op);
  ASSERT_NE(fn, nullptr) << op;
  std::vector<Tensor> in;
  for (Buffer& b : inputs) in.push_back(b.tensor());
  std::vector<std::byte> results[2];
  for (int pass = 0; pass < 2; ++pass) {
    size_t nbytes = 0;
    ASSERT_NO_FATAL_FAILURE(
        run_on_threads(fn, op, in, attrs, out_dtype, out_bytes, pass == 0 ? 1 : 4, results[pass], nbytes));
    ASSERT_EQ(nbytes, out_bytes) << op;
  }
  EXPECT_TRUE(results[0] == results[1]) << op << " differs between 1 and 4 threads";
}

TEST(ThreadedKernels, ReductionsAreThreadInvariant) {
  const auto x = random_buffer({300, 700}, 1);
  for (const char* op : {"sum", "mean", "prod", "amax", "amin"}) {
    expect_thread_invariant(op, {x}, attrs_of({{"dims", std::vector<int64_t>{0}}}), DType::Float32, 700 * 4);
    expect_thread_invariant(op, {x}, attrs_of({{"dims", std::vector<int64_t>{1}}}), DType::Float32, 300 * 4);
  }
  const auto y = random_buffer({20, 64, 50}, 2);
  expect_thread_invariant("sum", {y}, attrs_of({{"dims", std::vector<int64_t>{0, 2}}}), DType::Float32, 64 * 4);
  expect_thread_invariant("argmax", {x}, attrs_of({{"dim", int64_t{0}}}), DType::Int64, 700 * 8);
  expect_thread_invariant("argmin", {x}, attrs_of({{"dim", int64_t{1}}}), DType::Int64, 300 * 8);
  expect_thread_invariant("cumsum", {x}, attrs_of({{"dim", int64_t{0}}}), DType::Float32, 300 * 700 * 4);
  expect_thread_invariant("cumsum", {x}, attrs_of({{"dim", int64_t{1}}, {"reverse", true}}), DType::Float32,
                          300 * 700 * 4);
}

TEST(ThreadedKernels, NormalizationsAreThreadInvariant) {
  const auto x = random_buffer({300, 700}, 3);
  for (const char* op : {"softmax", "log_softmax"}) {
    expect_thread_invariant(op, {x}, attrs_of({{"dim", int64_t{0}}}), DType::Float32, 300 * 700 * 4);
    expect_thread_invariant(op, {x}, attrs_of({{"dim", int64_t{1}}}), DType::Float32, 300 * 700 * 4);
  }
  expect_thread_invariant("layer_norm", {x, random_buffer({700}, 4), random_buffer({700}, 5)}, {}, DType::Float32,
                          300 * 700 * 4);
  const auto img = random_buffer({4, 8, 32, 32}, 6);
  const size_t bytes = 4 * 8 * 32 * 32 * 4;
  expect_thread_invariant("group_norm", {img, random_buffer({8}, 7), random_buffer({8}, 8)},
                          attrs_of({{"num_groups", int64_t{4}}}), DType::Float32, bytes);
  expect_thread_invariant("instance_norm", {img}, {}, DType::Float32, bytes);
  auto var = random_buffer({8}, 9);
  float* v = var.as<float>();
  for (size_t i = 0; i < var.bytes.size() / sizeof(float); ++i) v[i] = v[i] * v[i] + 0.1f;
  expect_thread_invariant("batch_norm", {img, random_buffer({8}, 10), random_buffer({8}, 11), random_buffer({8}, 12), var},
                          {}, DType::Float32, bytes);
}

TEST(ThreadedKernels, MatmulIsThreadInvariant) {
  // Shared weight (folded into one tall product) and a batch of small products.
  expect_thread_invariant("matmul", {random_buffer({8, 64, 128}, 13), random_buffer({128, 96}, 14)}, {},
                          DType::Float32, 8 * 64 * 96 * 4);
  expect_thread_invariant("matmul", {random_buffer({64, 20, 30}, 15), random_buffer({64, 30, 10}, 16)}, {},
                          DType::Float32, 64 * 20 * 10 * 4);
  expect_thread_invariant("matmul", {random_buffer({300, 400}, 17), random_buffer({400}, 18)}, {}, DType::Float32,
                          300 * 4);
}

}  // namespace
}  // namespace edgec

// Convolution, pooling and resize kernels must give the same bytes whatever
// the thread count. The case driver checks values against numpy on 1 and 3
// threads within a tolerance; this test uses shapes that take the parallel
// paths (and, for conv, the split of output channels across threads) and
// requires 1 and 4 threads to agree bit for bit.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "base/half.h"
#include "kernels/registry.h"
#include "support/attrs.h"
#include "support/kernel_buffers.h"

namespace edgec {
namespace {

using Operand = OwnedTensor;

Operand random_operand(DType dtype, std::vector<int64_t> shape, uint32_t seed) {
  Operand o(dtype, std::move(shape));
  const int64_t n = static_cast<int64_t>(o.bytes.size() / dtype_size(dtype));
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  for (int64_t i = 0; i < n; ++i) {
    if (dtype == DType::Float16) {
      o.as<Half>()[i] = float_to_half(dist(gen));
    } else {
      o.as<float>()[i] = dist(gen);
    }
  }
  return o;
}

void expect_thread_invariant(const std::string& op, std::vector<Operand> operands, const Attrs& attrs) {
  KernelFn fn = find_kernel(op);
  ASSERT_NE(fn, nullptr) << op;
  std::vector<Tensor> inputs;
  for (Operand& o : operands) inputs.push_back(o.tensor());
  constexpr size_t kCapacity = size_t{8} << 20;
  std::vector<std::byte> results[2];
  size_t sizes[2] = {0, 0};
  for (int pass = 0; pass < 2; ++pass) {
    ASSERT_NO_FATAL_FAILURE(run_on_threads(fn, op, inputs, attrs, operands[0].dtype, kCapacity, pass == 0 ? 1 : 4,
                                           results[pass], sizes[pass]));
  }
  ASSERT_EQ(sizes[0], sizes[1]) << op;
  EXPECT_TRUE(std::equal(results[0].begin(), results[0].begin() + static_cast<ptrdiff_t>(sizes[0]),
                         results[1].begin()))
      << op << " differs between 1 and 4 threads";
}

using Ints = std::vector<int64_t>;

// 98 output channels over one 7x7 image: the channels are split across
// threads, and the last split would be 2 rows, which gemm_f32 sums in another
// order; the kernel folds it into its neighbour.
TEST(SpatialThreads, ConvSplitsOutputChannelsWithoutChangingSums) {
  for (DType dt : {DType::Float32, DType::Float16}) {
    expect_thread_invariant("conv",
                            {random_operand(dt, {1, 24, 7, 7}, 1), random_operand(dt, {98, 24, 3, 3}, 2),
                             random_operand(dt, {98}, 3)},
                            attrs_of({{"padding", Ints{1, 1}}}));
  }
}

TEST(SpatialThreads, ConvLargeImageAndFoldedBatch) {
  expect_thread_invariant("conv",
                          {random_operand(DType::Float32, {2, 20, 30, 30}, 4),
                           random_operand(DType::Float32, {36, 20, 3, 3}, 5)},
                          attrs_of({{"padding", Ints{1, 1}}, {"stride", Ints{1, 2}}}));
  // A 1-D horizon of 8: columns are pooled across the 16 images.
  expect_thread_invariant("conv",
                          {random_operand(DType::Float32, {16, 32, 8}, 6),
                           random_operand(DType::Float32, {40, 32, 5}, 7), random_operand(DType::Float32, {40}, 8)},
                          attrs_of({{"padding", Ints{2}}}));
  expect_thread_invariant("conv",
                          {random_operand(DType::Float32, {2, 32, 20, 20}, 9),
                           random_operand(DType::Float32, {32, 1, 3, 3}, 10)},
                          attrs_of({{"padding", Ints{1, 1}}, {"groups", int64_t{32}}}));
}

TEST(SpatialThreads, ConvTranspose) {
  expect_thread_invariant("conv_transpose",
                          {random_operand(DType::Float32, {1, 16, 9, 9}, 11),
                           random_operand(DType::Float32, {16, 70, 3, 3}, 12),
                           random_operand(DType::Float32, {70}, 13)},
                          attrs_of({{"stride", Ints{2, 2}}, {"padding", Ints{1, 1}}, {"output_padding", Ints{1, 1}}}));
}

TEST(SpatialThreads, PoolingAndResize) {
  const std::vector<int64_t> shape = {2, 16, 40, 40};
  expect_thread_invariant("max_pool", {random_operand(DType::Float32, shape, 14)},
                          attrs_of({{"kernel_size", Ints{3, 3}}, {"stride", Ints{2, 2}}, {"padding", Ints{1, 1}}}));
  expect_thread_invariant("avg_pool", {random_operand(DType::Float32, shape, 15)},
                          attrs_of({{"kernel_size", Ints{3, 3}}, {"padding", Ints{1, 1}}, {"ceil_mode", true}}));
  expect_thread_invariant("adaptive_avg_pool", {random_operand(DType::Float32, shape, 16)},
                          attrs_of({{"output_size", Ints{3, 5}}}));
  expect_thread_invariant("upsample_nearest", {random_operand(DType::Float32, shape, 17)},
                          attrs_of({{"output_size", Ints{61, 80}}}));
  expect_thread_invariant("upsample_bilinear", {random_operand(DType::Float16, shape, 18)},
                          attrs_of({{"output_size", Ints{61, 80}}, {"align_corners", false}}));
  // resize cuts rows into blocks and long rows into column chunks.
  expect_thread_invariant("resize", {random_operand(DType::Float32, shape, 19)},
                          attrs_of({{"axes", Ints{1, 2, 3}}, {"output_size", Ints{9, 61, 23}},
                                    {"mode", std::string("cubic")}, {"antialias", true}}));
  expect_thread_invariant("resize", {random_operand(DType::Float16, {2, 3000}, 20)},
                          attrs_of({{"axes", Ints{1}}, {"output_size", Ints{7001}}, {"mode", std::string("linear")}}));
}

}  // namespace
}  // namespace edgec

// What the numpy case files cannot express for the shape, indexing and
// creation kernels: outputs whose capacity is too small (data-dependent
// shapes must fail, not write past the end) and broadcast views (stride 0)
// as inputs, which the case driver only produces through permutations.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/attrs.h"
#include "kernels/registry.h"
#include "support/attrs.h"

namespace edgec {
namespace {

Error run(const char* op, std::vector<Tensor> inputs, const Attrs& attrs,
          std::vector<Tensor> outputs) {
  KernelFn fn = find_kernel(op);
  EXPECT_NE(fn, nullptr) << op;
  if (fn == nullptr) return Error::NotFound;
  KernelContext ctx;
  return fn(ctx, inputs, attrs, outputs);
}

template <typename T>
Tensor view_of(DType dtype, std::vector<T>& data, std::vector<int64_t> shape,
               std::vector<int64_t> strides = {}) {
  Tensor t = make_tensor(dtype, shape, data.data(), data.size() * sizeof(T));
  for (size_t i = 0; i < strides.size(); ++i) t.strides[i] = strides[i];
  return t;
}

// Output buffer with guard elements after the capacity the kernel is given.
template <typename T>
struct Out {
  std::vector<T> data;
  size_t capacity_elems;
  Out(size_t capacity, T guard) : data(capacity + 16, guard), capacity_elems(capacity) {}
  Tensor tensor(DType dtype) {
    Tensor t;
    t.dtype = dtype;
    t.data = data.data();
    t.capacity = capacity_elems * sizeof(T);
    return t;
  }
  bool guard_intact(T guard) const {
    for (size_t i = capacity_elems; i < data.size(); ++i)
      if (data[i] != guard) return false;
    return true;
  }
};

TEST(ShapeKernels, NonzeroFailsWhenTheCountExceedsCapacity) {
  std::vector<float> x = {1, 0, 2, 3, 0, 4};
  Out<int64_t> out(3, -7);  // room for 3 of the 4 hits
  const Error err = run("nonzero", {view_of(DType::Float32, x, {6})}, {}, {out.tensor(DType::Int64)});
  EXPECT_EQ(err, Error::OutOfMemory);
  EXPECT_NE(error_detail().find("nonzero: output of shape [4, 1]"), std::string::npos) << error_detail();
  EXPECT_TRUE(out.guard_intact(-7));
}

TEST(ShapeKernels, MaskIndexFailsWhenTheCountExceedsCapacity) {
  std::vector<int32_t> x = {1, 2, 3, 4, 5, 6};
  std::vector<uint8_t> mask = {1, 0, 1};
  Out<int32_t> out(3, -7);  // two rows of 2 needed
  const Error err = run("index", {view_of(DType::Int32, x, {3, 2}), view_of(DType::Bool, mask, {3})},
                        {}, {out.tensor(DType::Int32)});
  EXPECT_EQ(err, Error::OutOfMemory);
  EXPECT_NE(error_detail().find("index: output of shape [2, 2]"), std::string::npos) << error_detail();
  EXPECT_TRUE(out.guard_intact(-7));
}

TEST(ShapeKernels, ReshapeNamesItselfWhenTheOutputIsTooSmall) {
  std::vector<float> x(15, 1.0f);
  Out<float> out(4, 0.0f);
  Attrs attrs;
  attrs.set("shape", std::vector<int64_t>{15});
  EXPECT_EQ(run("reshape", {view_of(DType::Float32, x, {3, 5})}, attrs, {out.tensor(DType::Float32)}),
            Error::OutOfMemory);
  EXPECT_EQ(error_detail().rfind("reshape: output of shape [15]", 0), 0u) << error_detail();
  EXPECT_TRUE(out.guard_intact(0.0f));
}

// A [3] vector broadcast to [2, 3] (row stride 0), permuted.
TEST(ShapeKernels, PermuteReadsABroadcastView) {
  std::vector<int64_t> x = {1, 2, 3};
  Out<int64_t> out(6, -1);
  Attrs attrs;
  attrs.set("dims", std::vector<int64_t>{1, 0});
  ASSERT_EQ(run("permute", {view_of(DType::Int64, x, {2, 3}, {0, 1})}, attrs, {out.tensor(DType::Int64)}),
            Error::Ok)
      << error_detail();
  EXPECT_EQ(std::vector<int64_t>(out.data.begin(), out.data.begin() + 6),
            (std::vector<int64_t>{1, 1, 2, 2, 3, 3}));
}

TEST(ShapeKernels, TakeAndGatherAcceptBroadcastIndices) {
  std::vector<float> x = {10, 11, 12, 20, 21, 22};  // [2, 3]
  // `op` of x along `dim` with `index` gives `expected`.
  auto expect_along = [&](const char* op, int64_t dim, Tensor index, const std::vector<float>& expected) {
    Out<float> out(expected.size(), 0.0f);
    ASSERT_EQ(run(op, {view_of(DType::Float32, x, {2, 3}), index}, attrs_of({{"dim", dim}}),
                  {out.tensor(DType::Float32)}),
              Error::Ok)
        << error_detail();
    EXPECT_EQ(std::vector<float>(out.data.begin(), out.data.begin() + static_cast<ptrdiff_t>(expected.size())),
              expected);
  };
  std::vector<int64_t> one_index = {2};
  // take(x, index [2, 2] all reading the one element, dim=1) -> [2, 2, 2]
  ASSERT_NO_FATAL_FAILURE(expect_along("take", 1, view_of(DType::Int64, one_index, {2, 2}, {0, 0}),
                                       {12, 12, 12, 12, 22, 22, 22, 22}));

  // gather(x, index [2, 3] broadcast from [1, 3], dim=0)
  std::vector<int32_t> rows = {1, 0, -1};
  expect_along("gather", 0, view_of(DType::Int32, rows, {2, 3}, {0, 1}), {20, 11, 22, 20, 11, 22});
}

TEST(ShapeKernels, TopkOfABroadcastViewKeepsLowerIndicesFirst) {
  std::vector<float> x = {5.0f};
  Out<float> values(3, 0.0f);
  Out<int64_t> indices(3, -1);
  Attrs attrs;
  attrs.set("k", int64_t{3});
  ASSERT_EQ(run("topk", {view_of(DType::Float32, x, {6}, {0})}, attrs,
                {values.tensor(DType::Float32), indices.tensor(DType::Int64)}),
            Error::Ok)
      << error_detail();
  EXPECT_EQ(std::vector<int64_t>(indices.data.begin(), indices.data.begin() + 3),
            (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(std::vector<float>(values.data.begin(), values.data.begin() + 3),
            (std::vector<float>{5, 5, 5}));
}

TEST(ShapeKernels, PadAndConcatReadBroadcastViews) {
  std::vector<uint8_t> x = {7};
  Out<uint8_t> padded(8, 0xEE);
  Attrs pad;
  pad.set("pads", std::vector<int64_t>{0, 1, 0, 1});
  pad.set("mode", std::string("edge"));
  ASSERT_EQ(run("pad", {view_of(DType::UInt8, x, {2, 2}, {0, 0})}, pad, {padded.tensor(DType::UInt8)}),
            Error::Ok)
      << error_detail();
  EXPECT_EQ(std::vector<uint8_t>(padded.data.begin(), padded.data.begin() + 8),
            (std::vector<uint8_t>(8, 7)));

  std::vector<uint8_t> y = {1, 2};
  Out<uint8_t> joined(6, 0xEE);
  Attrs cat;
  cat.set("dim", int64_t{1});
  ASSERT_EQ(run("concat", {view_of(DType::UInt8, x, {2, 1}, {0, 0}), view_of(DType::UInt8, y, {2, 2}, {0, 1})},
                cat, {joined.tensor(DType::UInt8)}),
            Error::Ok)
      << error_detail();
  EXPECT_EQ(std::vector<uint8_t>(joined.data.begin(), joined.data.begin() + 6),
            (std::vector<uint8_t>{7, 1, 2, 7, 1, 2}));
}

}  // namespace
}  // namespace edgec

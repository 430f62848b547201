// TensorType's element and byte counts (types.cpp) never wrap: a count or
// a byte size past INT64_MAX is nullopt (and size_overflows() says so),
// whatever the order of the dims, and a zero dim makes a type empty.
#include <gtest/gtest.h>

#include "base/tensor_type.h"

namespace edgec {
namespace {

constexpr int64_t k2to32 = int64_t{1} << 32;
constexpr int64_t k2to61 = int64_t{1} << 61;

TEST(TensorTypeSize, FitsExactly) {
  const TensorType t = TensorType::of(DType::Float32, {2, 3});
  EXPECT_EQ(t.max_numel(), 6);
  EXPECT_EQ(t.max_nbytes(), 24);
  EXPECT_FALSE(t.size_overflows());
  const TensorType scalar = TensorType::of(DType::Int64, {});
  EXPECT_EQ(scalar.max_numel(), 1);
  EXPECT_EQ(scalar.max_nbytes(), 8);
}

// [2^32, 2^32] has 2^64 elements: the count wraps to 0 in 64 bits.
TEST(TensorTypeSize, CountPastInt64) {
  const TensorType t = TensorType::of(DType::Float32, {k2to32, k2to32});
  EXPECT_EQ(t.max_numel(), std::nullopt);
  EXPECT_EQ(t.max_nbytes(), std::nullopt);
  EXPECT_TRUE(t.size_overflows());
}

// 2^61 elements of i64 fit as a count, but are 2^64 bytes (0 when wrapped).
TEST(TensorTypeSize, BytesPastInt64) {
  const TensorType t = TensorType::of(DType::Int64, {k2to61});
  EXPECT_EQ(t.max_numel(), k2to61);
  EXPECT_EQ(t.max_nbytes(), std::nullopt);
  EXPECT_TRUE(t.size_overflows());
  // One element fewer than 2^60 of i64 is under 2^63 bytes.
  EXPECT_EQ(TensorType::of(DType::Int64, {(int64_t{1} << 60) - 1}).max_nbytes(), ((int64_t{1} << 60) - 1) * 8);
}

// A zero dim anywhere makes the type empty, however large the others.
TEST(TensorTypeSize, ZeroDimInAnyPosition) {
  for (const auto& shape : {std::vector<int64_t>{0, k2to61, k2to61}, std::vector<int64_t>{k2to61, k2to61, 0}}) {
    const TensorType t = TensorType::of(DType::Float32, shape);
    EXPECT_EQ(t.max_numel(), 0) << t.str();
    EXPECT_EQ(t.max_nbytes(), 0) << t.str();
    EXPECT_FALSE(t.size_overflows()) << t.str();
  }
}

// Unbounded dims have no size; the bounded ones may still overflow alone.
TEST(TensorTypeSize, UnboundedDims) {
  const TensorType t(DType::Float32, {Dim::symbolic("batch"), Dim::fixed(4)});
  EXPECT_EQ(t.max_numel(), std::nullopt);
  EXPECT_EQ(t.max_nbytes(), std::nullopt);
  EXPECT_FALSE(t.size_overflows());
  const TensorType huge(DType::Float32, {Dim::symbolic("batch"), Dim::fixed(k2to32), Dim::fixed(k2to32)});
  EXPECT_TRUE(huge.size_overflows());
  const TensorType bounded(DType::Float16, {Dim::symbolic("batch", 8), Dim::dynamic(k2to61)});
  EXPECT_EQ(bounded.max_numel(), std::nullopt);  // 2^64 elements
  EXPECT_TRUE(bounded.size_overflows());
}

}  // namespace
}  // namespace edgec

// tests/support/compare.h cannot let a wrong result pass: each test crafts a
// result that differs from its reference in one way the comparison must
// catch (or one way it must accept), and checks the verdict and the report.
#include "support/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace edgec::compare {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

template <typename T>
ArrayView view(DType dtype, const std::vector<T>& v, std::vector<int64_t> shape = {}) {
  if (shape.empty()) shape = {static_cast<int64_t>(v.size())};
  return {dtype, std::move(shape), v.data(), v.size() * sizeof(T)};
}

ArrayView f32(const std::vector<float>& v, std::vector<int64_t> shape = {}) {
  return view(DType::Float32, v, std::move(shape));
}

std::vector<float> floats(std::initializer_list<double> values) {
  std::vector<float> out;
  for (double v : values) out.push_back(static_cast<float>(v));
  return out;
}

const Tolerance kLoose = Tolerance::sum(1e-3, 1e-3);

TEST(Compare, EqualFloatsMatch) {
  const auto a = floats({1, -2.5, 0, 3e10});
  EXPECT_EQ(compare_arrays("y", f32(a), f32(a), Tolerance::exact()), "");
}

TEST(Compare, NaNInTheResultFails) {
  const auto want = floats({1, 2, 3});
  const auto got = floats({1, kNaN, 3});
  EXPECT_EQ(compare_arrays("y", f32(got), f32(want), kLoose),
            "y: 1 of 3 elements differ (|got - expected| <= 0.001 + 0.001 * |expected|)\n"
            "  at [1] (flat 1): got nan, expected 2");
  // The widest tolerance does not let it through either.
  EXPECT_FALSE(arrays_match("y", f32(got), f32(want), Tolerance::either(kInf, kInf)));
}

TEST(Compare, NaNInBothAtTheSamePlaceMatches) {
  const auto a = floats({1, kNaN, 3});
  const auto b = floats({1, -kNaN, 3});  // the sign of a NaN does not matter
  EXPECT_EQ(compare_arrays("y", f32(a), f32(b), Tolerance::exact()), "");
}

TEST(Compare, NaNInTheReferenceOnlyFails) {
  const auto want = floats({1, kNaN, 3});
  const auto got = floats({1, 2, 3});
  EXPECT_EQ(compare_arrays("y", f32(got), f32(want), kLoose),
            "y: 1 of 3 elements differ (|got - expected| <= 0.001 + 0.001 * |expected|)\n"
            "  at [1] (flat 1): got 2, expected nan");
}

TEST(Compare, NaNAtAnotherPlaceFails) {
  const auto want = floats({kNaN, 2});
  const auto got = floats({1, kNaN});
  EXPECT_NE(compare_arrays("y", f32(got), f32(want), kLoose).find("2 of 2 elements differ"), std::string::npos);
}

TEST(Compare, InfinitiesMustBeTheSameInfinity) {
  const auto want = floats({kInf, -kInf});
  EXPECT_EQ(compare_arrays("y", f32(floats({kInf, -kInf})), f32(want), Tolerance::exact()), "");
  EXPECT_FALSE(arrays_match("y", f32(floats({-kInf, -kInf})), f32(want), kLoose));
  EXPECT_FALSE(arrays_match("y", f32(floats({3e38, -kInf})), f32(want), Tolerance::either(kInf, kInf)));
  EXPECT_FALSE(arrays_match("y", f32(floats({kInf, -kInf})), f32(floats({3e38, -kInf})), Tolerance::either(kInf, kInf)));
}

TEST(Compare, Int64OffByOneFails) {
  const std::vector<int64_t> want = {1000, 7};
  const std::vector<int64_t> got = {1001, 7};
  // Integers ignore the tolerance: 1 is within 1e-3 relative of 1000.
  EXPECT_EQ(compare_arrays("idx", view(DType::Int64, got), view(DType::Int64, want), Tolerance::either(1e-4, 1e-3)),
            "idx: 1 of 2 elements differ (i64: exact)\n  at [0] (flat 0): got 1001, expected 1000");
}

TEST(Compare, Int64BeyondDoublePrecisionFails) {
  const int64_t big = int64_t{1} << 53;  // big + 1 rounds to big as a double
  const std::vector<int64_t> want = {big};
  const std::vector<int64_t> got = {big + 1};
  EXPECT_FALSE(arrays_match("idx", view(DType::Int64, got), view(DType::Int64, want), Tolerance::exact()));
  EXPECT_TRUE(arrays_match("idx", view(DType::Int64, want), view(DType::Int64, want), Tolerance::exact()));
}

TEST(Compare, Int32OffByOneFails) {
  const std::vector<int32_t> want = {-5, 100000};
  const std::vector<int32_t> got = {-5, 100001};
  EXPECT_EQ(compare_arrays("n", view(DType::Int32, got), view(DType::Int32, want), kLoose),
            "n: 1 of 2 elements differ (i32: exact)\n  at [1] (flat 1): got 100001, expected 100000");
}

TEST(Compare, SmallIntegersAreExact) {
  const std::vector<int8_t> want8 = {-128, 127}, got8 = {-128, 126};
  EXPECT_FALSE(arrays_match("a", view(DType::Int8, got8), view(DType::Int8, want8), kLoose));
  const std::vector<uint8_t> wantu = {0, 255}, gotu = {1, 255};
  EXPECT_FALSE(arrays_match("b", view(DType::UInt8, gotu), view(DType::UInt8, wantu), kLoose));
}

TEST(Compare, BoolFlipFails) {
  const std::vector<uint8_t> want = {1, 0, 1};
  const std::vector<uint8_t> got = {1, 1, 1};
  EXPECT_EQ(compare_arrays("m", view(DType::Bool, got), view(DType::Bool, want), kLoose),
            "m: 1 of 3 elements differ (bool: exact)\n  at [1] (flat 1): got true, expected false");
}

TEST(Compare, BoolByteOtherThanOneIsNotTrue) {
  const std::vector<uint8_t> want = {1};
  const std::vector<uint8_t> got = {2};
  EXPECT_EQ(compare_arrays("m", view(DType::Bool, got), view(DType::Bool, want), kLoose),
            "m: 1 of 1 elements differ (bool: exact)\n  at [0] (flat 0): got invalid bool byte 2, expected true");
}

TEST(Compare, ShapeMismatchFails) {
  const auto a = floats({1, 2, 3, 4, 5, 6});
  EXPECT_EQ(compare_arrays("y", f32(a, {2, 3}), f32(a, {3, 2}), kLoose), "y: shape [2, 3], expected [3, 2]");
  EXPECT_FALSE(arrays_match("y", f32(a, {6}), f32(a, {1, 6}), kLoose));
}

TEST(Compare, DtypeMismatchFails) {
  const std::vector<int32_t> ints = {1, 2};
  const auto fl = floats({1, 2});  // the same bytes' size, other type
  EXPECT_EQ(compare_arrays("y", view(DType::Int32, ints), f32(fl), kLoose), "y: dtype i32, expected f32");
  const std::vector<int64_t> i64 = {1, 2};
  EXPECT_EQ(compare_arrays("y", view(DType::Int32, ints), view(DType::Int64, i64), kLoose),
            "y: dtype i32, expected i64");
}

TEST(Compare, SizeThatDoesNotFitTheShapeFails) {
  const auto a = floats({1, 2, 3});
  ArrayView short_view = f32(a);
  short_view.nbytes = 8;
  EXPECT_EQ(compare_arrays("y", short_view, f32(a), kLoose), "y: the result holds 8 bytes, f32[3] takes 12");
}

// The sum form: |g - w| <= atol + rtol * |w|; at w = 100, 1e-3 + 1e-3 * 100 = 0.101.
TEST(Compare, SumFormJustInsideAndOutside) {
  const Tolerance tol = Tolerance::sum(1e-3, 1e-3);
  const auto want = floats({100});
  EXPECT_TRUE(arrays_match("y", f32(floats({100.1})), f32(want), tol));
  EXPECT_TRUE(arrays_match("y", f32(floats({99.9})), f32(want), tol));
  EXPECT_FALSE(arrays_match("y", f32(floats({100.102})), f32(want), tol));
  EXPECT_FALSE(arrays_match("y", f32(floats({99.898})), f32(want), tol));
}

// The either form: |g - w| <= max(atol, rtol * |w|).
TEST(Compare, EitherFormJustInsideAndOutside) {
  const Tolerance tol = Tolerance::either(1e-4, 1e-3);
  // Small values: atol rules.
  EXPECT_TRUE(arrays_match("y", f32(floats({0.01009})), f32(floats({0.01})), tol));
  EXPECT_FALSE(arrays_match("y", f32(floats({0.01011})), f32(floats({0.01})), tol));
  // Large values: rtol rules (0.1 at 100; the sum form would allow 0.1001).
  EXPECT_TRUE(arrays_match("y", f32(floats({100.099})), f32(floats({100})), tol));
  EXPECT_FALSE(arrays_match("y", f32(floats({100.10005})), f32(floats({100})), tol));
  EXPECT_TRUE(arrays_match("y", f32(floats({100.10005})), f32(floats({100})), Tolerance::sum(1e-4, 1e-3)));
}

TEST(Compare, AbsoluteJustInsideAndOutside) {
  const Tolerance tol = Tolerance::absolute(1e-5);
  EXPECT_TRUE(arrays_match("y", f32(floats({1000.0})), f32(floats({1000.0})), tol));
  EXPECT_TRUE(arrays_match("y", f32(floats({0.5 + 0.9e-5})), f32(floats({0.5})), tol));
  EXPECT_FALSE(arrays_match("y", f32(floats({0.5 + 1.1e-5})), f32(floats({0.5})), tol));
  // No relative part: one float step at 1000 is more than 1e-5.
  EXPECT_FALSE(arrays_match("y", f32(floats({1000.0001})), f32(floats({1000.0})), tol));
}

TEST(Compare, ExactFloats) {
  EXPECT_FALSE(arrays_match("y", f32({std::nextafter(1.0f, 2.0f)}), f32({1.0f}), Tolerance::exact()));
  EXPECT_TRUE(arrays_match("y", f32({-0.0f}), f32({0.0f}), Tolerance::exact()));
}

TEST(Compare, Float16NaNAndTolerance) {
  const std::vector<Half> want = {float_to_half(1.0f), float_to_half(2.0f)};
  const std::vector<Half> nan = {float_to_half(1.0f), float_to_half(std::nanf(""))};
  const std::vector<Half> near = {float_to_half(1.0f), float_to_half(2.001953125f)};  // one step above 2
  EXPECT_FALSE(arrays_match("h", view(DType::Float16, nan), view(DType::Float16, want), kLoose));
  EXPECT_TRUE(arrays_match("h", view(DType::Float16, nan), view(DType::Float16, nan), Tolerance::exact()));
  EXPECT_TRUE(arrays_match("h", view(DType::Float16, near), view(DType::Float16, want), Tolerance::sum(0, 1e-3)));
  EXPECT_FALSE(arrays_match("h", view(DType::Float16, near), view(DType::Float16, want), Tolerance::sum(0, 9e-4)));
}

// Thousands of mismatches: the first few with their multi-dimensional
// index, then the count of all of them.
TEST(Compare, ReportsTheFirstFewMismatchesAndTheCount) {
  std::vector<float> want(2000, 1.0f), got(2000, 2.0f);
  const std::string report = compare_arrays("out", f32(got, {2, 1000}), f32(want, {2, 1000}), kLoose);
  EXPECT_EQ(report.rfind("out: 2000 of 2000 elements differ (", 0), 0u) << report;
  EXPECT_NE(report.find("at [0, 4] (flat 4): got 2, expected 1"), std::string::npos) << report;
  EXPECT_EQ(report.find("flat 5"), std::string::npos) << report;
  EXPECT_EQ(report.substr(report.size() - 6), "\n  ...") << report;
  Options three;
  three.max_reported = 3;
  three.indent = "    ";
  const std::string shorter = compare_arrays("out", f32(got), f32(want), kLoose, three);
  EXPECT_NE(shorter.find("\n    at [2] (flat 2)"), std::string::npos) << shorter;
  EXPECT_EQ(shorter.find("flat 3"), std::string::npos) << shorter;
}

TEST(Compare, EmptyTensorsMatch) {
  const std::vector<float> none;
  EXPECT_TRUE(arrays_match("y", f32(none, {0, 3}), f32(none, {0, 3}), Tolerance::exact()));
  EXPECT_FALSE(arrays_match("y", f32(none, {0, 3}), f32(none, {3, 0}), Tolerance::exact()));
}

TEST(Compare, ToleranceText) {
  EXPECT_EQ(Tolerance::sum(1e-5, 1e-5).str(), "|got - expected| <= 1e-05 + 1e-05 * |expected|");
  EXPECT_EQ(Tolerance::either(1e-4, 1e-3).str(), "|got - expected| <= max(0.0001, 0.001 * |expected|)");
  EXPECT_EQ(Tolerance::absolute(1e-4).str(), "|got - expected| <= 0.0001");
  EXPECT_EQ(Tolerance::exact().str(), "|got - expected| <= 0");
}

}  // namespace
}  // namespace edgec::compare

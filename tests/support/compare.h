// The one way the C++ tests compare a computed tensor with its reference
// (tests/support/compare_npz.py applies the same rules to .npz files):
//
//   - dtypes equal and shapes equal, or nothing else is compared;
//   - integers and booleans exactly (int64 as int64, not through double;
//     a bool's raw byte, so 2 is not "true");
//   - floats: NaN where, and only where, the reference has NaN; an infinity
//     only where the reference has the same infinity; every other element
//     within the call site's tolerance.
//
// A bound written as `err > tol` lets NaN through (the comparison is false);
// here every element must prove it matches instead. The report names the
// tensor, gives the first few mismatches (index, got, expected) and the
// tolerance, and how many elements differ in all.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "base/dtype.h"
#include "base/half.h"

namespace edgec::compare {

/// How far a float element may be from its reference `w`. Each call site
/// keeps the form it has always used:
///   sum:    |g - w| <= atol + rtol * |w|        (numpy.isclose's form)
///   either: |g - w| <= max(atol, rtol * |w|)   (within atol, or within rtol relative)
/// absolute(t) is sum(t, 0); exact() is sum(0, 0). Integers ignore it.
struct Tolerance {
  enum class Form { Sum, Either };
  double atol = 0;
  double rtol = 0;
  Form form = Form::Sum;

  static Tolerance sum(double atol, double rtol) { return {atol, rtol, Form::Sum}; }
  static Tolerance either(double atol, double rtol) { return {atol, rtol, Form::Either}; }
  static Tolerance absolute(double atol) { return {atol, 0, Form::Sum}; }
  static Tolerance exact() { return {0, 0, Form::Sum}; }

  double bound(double want) const {
    const double rel = rtol * std::fabs(want);
    return form == Form::Sum ? atol + rel : std::max(atol, rel);
  }
  std::string str() const {
    std::ostringstream os;
    os << "|got - expected| <= ";
    if (atol == 0 && rtol == 0) {
      os << "0";
    } else if (rtol == 0) {
      os << atol;
    } else if (form == Form::Sum) {
      os << atol << " + " << rtol << " * |expected|";
    } else {
      os << "max(" << atol << ", " << rtol << " * |expected|)";
    }
    return os.str();
  }
};

/// A contiguous, row-major tensor's elements as the comparison reads them.
struct ArrayView {
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
  const void* data = nullptr;
  size_t nbytes = 0;
};

/// A flat vector of floats (shape [size]).
inline ArrayView view_of(const std::vector<float>& v) {
  return {DType::Float32, {static_cast<int64_t>(v.size())}, v.data(), v.size() * sizeof(float)};
}

struct Options {
  int max_reported = 5;        ///< mismatching elements listed (the count covers all)
  std::string indent = "  ";  ///< before each listed mismatch, on its own line
};

namespace detail {

inline std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

inline std::string index_text(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  return shape_text(idx);
}

template <typename T>
T load(const void* data, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const std::byte*>(data) + static_cast<size_t>(i) * sizeof(T), sizeof(T));
  return v;
}

inline double load_float(const ArrayView& a, int64_t i) {
  if (a.dtype == DType::Float64) return load<double>(a.data, i);
  return a.dtype == DType::Float16 ? half_to_float(load<Half>(a.data, i)) : load<float>(a.data, i);
}

// Integers as int64 (exact for every integer dtype edgec has; uint64 as
// its bits, so equal values still compare equal).
inline int64_t load_int(const ArrayView& a, int64_t i) {
  switch (a.dtype) {
    case DType::Int64: return load<int64_t>(a.data, i);
    case DType::Int32: return load<int32_t>(a.data, i);
    case DType::Int16: return load<int16_t>(a.data, i);
    case DType::Int8: return load<int8_t>(a.data, i);
    case DType::UInt64: return load<int64_t>(a.data, i);
    case DType::UInt32: return load<uint32_t>(a.data, i);
    case DType::UInt16: return load<uint16_t>(a.data, i);
    case DType::UInt8:
    case DType::Bool: return load<uint8_t>(a.data, i);
    case DType::BFloat16: return load<uint16_t>(a.data, i);  // a storage type: its bits, exactly
    case DType::Float32:
    case DType::Float16:
    case DType::Float64: break;
  }
  return 0;
}

inline std::string element_text(const ArrayView& a, int64_t i) {
  if (a.dtype == DType::Bool) {
    const int64_t b = load_int(a, i);
    return b == 0 ? "false" : b == 1 ? "true" : "invalid bool byte " + std::to_string(b);
  }
  if (a.dtype == DType::UInt64) return std::to_string(static_cast<uint64_t>(load_int(a, i)));
  if (!is_floating(a.dtype)) return std::to_string(load_int(a, i));
  std::ostringstream os;
  os.precision(a.dtype == DType::Float64 ? 17 : 9);
  os << load_float(a, i);
  return os.str();
}

inline bool float_matches(double g, double w, const Tolerance& tol) {
  if (std::isnan(w) || std::isnan(g)) return std::isnan(w) && std::isnan(g);
  if (std::isinf(w) || std::isinf(g)) return g == w;
  return std::fabs(g - w) <= tol.bound(w);
}

}  // namespace detail

/// Compares `got` with the reference `want`; returns "" when they match,
/// else what differs, starting with `name`.
inline std::string compare_arrays(std::string_view name, const ArrayView& got, const ArrayView& want,
                                  const Tolerance& tol, const Options& options = {}) {
  std::ostringstream report;
  report << name << ": ";
  if (got.dtype != want.dtype) {
    report << "dtype " << dtype_name(got.dtype) << ", expected " << dtype_name(want.dtype);
    return report.str();
  }
  if (got.shape != want.shape) {
    report << "shape " << detail::shape_text(got.shape) << ", expected " << detail::shape_text(want.shape);
    return report.str();
  }
  int64_t n = 1;
  for (int64_t d : want.shape) n *= d;
  const size_t needed = static_cast<size_t>(n) * dtype_size(want.dtype);
  for (const ArrayView* a : {&got, &want}) {
    if (a->nbytes != needed || (needed != 0 && a->data == nullptr)) {
      report << (a == &got ? "the result" : "the reference") << " holds " << a->nbytes << " bytes, "
             << dtype_name(want.dtype) << detail::shape_text(want.shape) << " takes " << needed;
      return report.str();
    }
  }
  const bool exact = !is_floating(want.dtype);
  int64_t mismatches = 0;
  std::ostringstream first;
  for (int64_t i = 0; i < n; ++i) {
    const bool same = exact ? detail::load_int(got, i) == detail::load_int(want, i)
                            : detail::float_matches(detail::load_float(got, i), detail::load_float(want, i), tol);
    if (same) continue;
    if (mismatches++ < options.max_reported) {
      first << "\n" << options.indent << "at " << detail::index_text(i, want.shape) << " (flat " << i
            << "): got " << detail::element_text(got, i) << ", expected " << detail::element_text(want, i);
    }
  }
  if (mismatches == 0) return {};
  report << mismatches << " of " << n << " elements differ ("
         << (exact ? std::string(dtype_name(want.dtype)) + ": exact" : tol.str()) << ")" << first.str();
  if (mismatches > options.max_reported) report << "\n" << options.indent << "...";
  return report.str();
}

/// compare_arrays for EXPECT_TRUE / ASSERT_TRUE.
inline ::testing::AssertionResult arrays_match(std::string_view name, const ArrayView& got, const ArrayView& want,
                                               const Tolerance& tol, const Options& options = {}) {
  const std::string problem = compare_arrays(name, got, want, tol, options);
  if (problem.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << problem;
}

}  // namespace edgec::compare

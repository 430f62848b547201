// Types of IR values: a dtype and a shape whose dimensions are static,
// symbolic (a named size fixed per call, e.g. `batch`) or data-dependent with
// an upper bound (the row count of `nonzero`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/dtype.h"

namespace edgec {

struct Dim {
  enum class Kind : uint8_t { Static, Symbolic, Dynamic };
  Kind kind = Kind::Static;
  /// Static: the size. Symbolic: the upper bound, or -1 if unbounded.
  /// Dynamic: the upper bound (always known).
  int64_t value = 0;
  std::string symbol;  ///< Symbolic only.

  static Dim fixed(int64_t size) { return Dim{Kind::Static, size, {}}; }
  static Dim symbolic(std::string name, int64_t upper_bound = -1) {
    return Dim{Kind::Symbolic, upper_bound, std::move(name)};
  }
  static Dim dynamic(int64_t upper_bound) { return Dim{Kind::Dynamic, upper_bound, {}}; }

  bool is_static() const { return kind == Kind::Static; }
  /// The most elements this dimension can have, or nullopt if unbounded.
  std::optional<int64_t> upper_bound() const {
    if (kind == Kind::Symbolic && value < 0) return std::nullopt;
    return value;
  }
  bool operator==(const Dim& o) const = default;
  /// "3", "batch", "batch<=8", "?<=6".
  std::string str() const;
};

struct TensorType {
  DType dtype = DType::Float32;
  std::vector<Dim> dims;

  TensorType() = default;
  TensorType(DType d, std::vector<Dim> ds) : dtype(d), dims(std::move(ds)) {}
  static TensorType of(DType d, const std::vector<int64_t>& shape);

  int rank() const { return static_cast<int>(dims.size()); }
  bool is_static() const;
  /// Sizes of a static type (must be static).
  std::vector<int64_t> static_shape() const;
  /// Element count of a static type, or the upper bound of a bounded one;
  /// nullopt when some dim is unbounded or the count exceeds INT64_MAX. A
  /// dim of size 0 makes the count 0 whatever the others are.
  std::optional<int64_t> max_numel() const;
  /// The bytes of max_numel() elements; nullopt when some dim is unbounded
  /// or the bytes exceed INT64_MAX.
  std::optional<int64_t> max_nbytes() const;
  /// Whether the bytes of the bounded dims alone exceed INT64_MAX (unbounded
  /// dims counted as 1): no tensor has such a type, and sizes computed from
  /// it would wrap. Types read from files are checked with this first.
  bool size_overflows() const;
  bool operator==(const TensorType& o) const = default;
  /// "f32[2, 3]", "i64[?<=6, 2]", "f32[]".
  std::string str() const;
};

}  // namespace edgec

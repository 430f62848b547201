// Types of IR values: a dtype and a shape whose dimensions are static,
// symbolic (a named size fixed per call, e.g. `batch`) or data-dependent with
// an upper bound (the row count of `nonzero`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/dtype.h"
#include "base/small_vector.h"

namespace edgec {

/// A symbolic dim's name, interned: one string per distinct name for the
/// whole process, named by a 32-bit index, so that a Dim is 16 bytes, copied
/// without allocating, and two symbols compare by index. Interned names are
/// never freed (a program has a handful; a model naming a million dims
/// keeps their text).
class Symbol {
 public:
  Symbol() = default;
  Symbol(std::string_view name);  // NOLINT: a name is a symbol
  Symbol(const std::string& name) : Symbol(std::string_view(name)) {}
  Symbol(const char* name) : Symbol(std::string_view(name)) {}

  const std::string& str() const;
  operator const std::string&() const { return str(); }  // NOLINT
  bool empty() const { return id_ == 0; }
  bool operator==(const Symbol& o) const { return id_ == o.id_; }
  bool operator==(std::string_view o) const { return str() == o; }

 private:
  uint32_t id_ = 0;  ///< 0: the empty name.
};

inline std::string operator+(const Symbol& a, const std::string& b) { return a.str() + b; }
inline std::string operator+(const std::string& a, const Symbol& b) { return a + b.str(); }
inline std::string operator+(const Symbol& a, const char* b) { return a.str() + b; }
inline std::string operator+(const char* a, const Symbol& b) { return a + b.str(); }

struct Dim {
  enum class Kind : uint8_t { Static, Symbolic, Dynamic };
  /// Static: the size. Symbolic: the upper bound, or -1 if unbounded.
  /// Dynamic: the upper bound (always known).
  int64_t value = 0;
  Symbol symbol;  ///< Symbolic only.
  Kind kind = Kind::Static;

  static Dim fixed(int64_t size) { return Dim{size, {}, Kind::Static}; }
  static Dim symbolic(Symbol name, int64_t upper_bound = -1) { return Dim{upper_bound, name, Kind::Symbolic}; }
  static Dim dynamic(int64_t upper_bound) { return Dim{upper_bound, {}, Kind::Dynamic}; }

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

static_assert(sizeof(Dim) == 16, "a Dim is two words");

/// A type's dims: inline up to rank 4 (a type is copied without allocating).
using Dims = SmallVector<Dim, 4>;

struct TensorType {
  DType dtype = DType::Float32;
  Dims dims;

  TensorType() = default;
  TensorType(DType d, Dims ds) : dtype(d), dims(std::move(ds)) {}
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

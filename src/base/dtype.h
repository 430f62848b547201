// Element types shared by the compiler and the runtime.
//
// The enum values are stable: they are written into program files.
//
// BFloat16 is a storage type only: values are converted by cast (to and
// from every other dtype, rounding to nearest even) and copied by clone,
// never computed with, so it is not among the float dtypes (is_floating)
// and no other operator declares it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace edgec {

enum class DType : uint8_t {
  Float32 = 0,
  Float16 = 1,
  Int64 = 2,
  Int32 = 3,
  Int8 = 4,
  UInt8 = 5,
  Bool = 6,
  Float64 = 7,
  Int16 = 8,
  UInt16 = 9,
  UInt32 = 10,
  UInt64 = 11,
  BFloat16 = 12,
};

inline constexpr int kNumDTypes = 13;

/// Bytes one element of `dtype` takes in memory.
constexpr size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::Float32: return 4;
    case DType::Float16: return 2;
    case DType::Int64: return 8;
    case DType::Int32: return 4;
    case DType::Int8: return 1;
    case DType::UInt8: return 1;
    case DType::Bool: return 1;
    case DType::Float64: return 8;
    case DType::Int16: return 2;
    case DType::UInt16: return 2;
    case DType::UInt32: return 4;
    case DType::UInt64: return 8;
    case DType::BFloat16: return 2;
  }
  return 0;
}

/// Short name used by the textual IR and in messages: f32, f16, i64, i32, i8, u8, bool,
/// f64, i16, u16, u32, u64, bf16.
constexpr std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "f32";
    case DType::Float16: return "f16";
    case DType::Int64: return "i64";
    case DType::Int32: return "i32";
    case DType::Int8: return "i8";
    case DType::UInt8: return "u8";
    case DType::Bool: return "bool";
    case DType::Float64: return "f64";
    case DType::Int16: return "i16";
    case DType::UInt16: return "u16";
    case DType::UInt32: return "u32";
    case DType::UInt64: return "u64";
    case DType::BFloat16: return "bf16";
  }
  return "?";
}

inline std::optional<DType> parse_dtype(std::string_view name) {
  for (int i = 0; i < kNumDTypes; ++i) {
    auto d = static_cast<DType>(i);
    if (dtype_name(d) == name) return d;
  }
  return std::nullopt;
}

constexpr bool is_floating(DType d) {
  return d == DType::Float32 || d == DType::Float16 || d == DType::Float64;
}
constexpr bool is_integral(DType d) {
  return d == DType::Int64 || d == DType::Int32 || d == DType::Int16 || d == DType::Int8 ||
         d == DType::UInt8 || d == DType::UInt16 || d == DType::UInt32 || d == DType::UInt64;
}
constexpr bool is_valid_dtype(uint8_t raw) { return raw < kNumDTypes; }

/// The largest tensor rank edgec computes with (kernels keep shapes in
/// fixed arrays of this size; the verifier and loaders refuse more).
inline constexpr int kMaxRank = 8;

}  // namespace edgec

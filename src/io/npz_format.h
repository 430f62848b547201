// What reading (io/npz.cpp) and writing (io/npz_write.cpp) .npy and .npz
// share: the .npy magic, numpy's alignment, the dtype names, and the error
// helpers every message goes through.
#pragma once

#include <zip.h>

#include <string>
#include <string_view>
#include <vector>

#include "io/npz.h"

namespace edgec::io::npz_format {

inline constexpr char kNpyMagic[] = "\x93NUMPY";
inline constexpr size_t kNpyMagicLen = 6;
inline constexpr size_t kArrayAlign = 64;  // numpy's ARRAY_ALIGN
inline constexpr size_t kGrowthAxisMaxDigits = 21;  // numpy's GROWTH_AXIS_MAX_DIGITS

// Names and dtype strings read from a file end up in messages; keep them
// printable and short so a hostile file cannot spray control characters.
inline std::string printable(std::string_view s) {
  constexpr size_t kMaxShown = 80;
  std::string out;
  for (size_t i = 0; i < s.size() && i < kMaxShown; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else if (c >= 0x80) {
      out += static_cast<char>(c);  // UTF-8 names stay readable
    } else {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (s.size() > kMaxShown) out += "...";
  return out;
}

[[noreturn]] inline void fail_array(const std::string& what, std::string_view name,
                             const std::string& problem) {
  throw IoError(what + ": array '" + printable(name) + "': " + problem);
}

[[noreturn]] inline void fail_file(const std::string& what, const std::string& problem) {
  throw IoError(what + ": " + problem);
}

inline std::string shape_repr(const std::vector<int64_t>& shape) {
  // Python's tuple repr, as numpy writes it into headers.
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

inline const char* npy_descr(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "<f4";
    case DType::Float16: return "<f2";
    case DType::Int64: return "<i8";
    case DType::Int32: return "<i4";
    case DType::Int8: return "|i1";
    case DType::UInt8: return "|u1";
    case DType::Bool: return "|b1";
    case DType::Float64: return "<f8";
    case DType::Int16: return "<i2";
    case DType::UInt16: return "<u2";
    case DType::UInt32: return "<u4";
    case DType::UInt64: return "<u8";
    // numpy has no bfloat16: its bits, as ONNX's test data stores them (a
    // u16 array is bound to a bf16 input as bits, driver/bind.cpp).
    case DType::BFloat16: return "<u2";
  }
  return "?";
}

inline std::string zip_message(zip_error_t* err) { return zip_error_strerror(err); }

}  // namespace edgec::io::npz_format

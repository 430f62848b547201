// ONNX tensors as edgec data: element types, TensorProto decoding (raw or
// typed fields, validated against the dims), and conversions of small
// tensors to numbers for the importer's import-time reasoning.
#include "frontends/onnx/tensor_data.h"

#include <cctype>
#include <cstring>

#include "base/half.h"
#include "ir/diagnostic.h"
#include "kernels/tensor.h"

namespace edgec::onnx_import {

std::string sanitize_name(const std::string& name) {
  std::string out;
  for (char c : name) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_';
    const char mapped = ok ? c : '_';
    if (mapped == '_' && (out.empty() || out.back() == '_')) continue;
    out += mapped;
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out.empty() ? "v" : out;
}

std::optional<DType> dtype_from_onnx(int32_t elem_type) {
  switch (elem_type) {
    case onnx::TensorProto::FLOAT:
      return DType::Float32;
    case onnx::TensorProto::FLOAT16:
      return DType::Float16;
    case onnx::TensorProto::INT64:
      return DType::Int64;
    case onnx::TensorProto::INT32:
      return DType::Int32;
    case onnx::TensorProto::INT8:
      return DType::Int8;
    case onnx::TensorProto::UINT8:
      return DType::UInt8;
    case onnx::TensorProto::BOOL:
      return DType::Bool;
    default:
      return std::nullopt;
  }
}

int32_t onnx_elem_type(DType dtype) {
  switch (dtype) {
    case DType::Float32:
      return onnx::TensorProto::FLOAT;
    case DType::Float16:
      return onnx::TensorProto::FLOAT16;
    case DType::Int64:
      return onnx::TensorProto::INT64;
    case DType::Int32:
      return onnx::TensorProto::INT32;
    case DType::Int8:
      return onnx::TensorProto::INT8;
    case DType::UInt8:
      return onnx::TensorProto::UINT8;
    case DType::Bool:
      return onnx::TensorProto::BOOL;
  }
  return onnx::TensorProto::UNDEFINED;
}

std::string onnx_type_name(int32_t elem_type) {
  if (!onnx::TensorProto_DataType_IsValid(elem_type)) return "unknown type " + std::to_string(elem_type);
  std::string s = onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(elem_type));
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

TensorData tensor_from_proto(const onnx::TensorProto& t, const std::string& what) {
  const auto dtype = dtype_from_onnx(t.data_type());
  if (!dtype)
    throw CompileError(what + " has element type " + onnx_type_name(t.data_type()) +
                       ", which edgec does not support (float, float16, int64, int32, int8, uint8, bool)");
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    throw CompileError(what +
                       " keeps its data in an external file, which edgec does not read; "
                       "save the model with the data inside it");
  std::vector<int64_t> shape(t.dims().begin(), t.dims().end());
  if (shape.size() > static_cast<size_t>(kMaxRank))
    throw CompileError(what + " has rank " + std::to_string(shape.size()) + "; edgec supports ranks up to " +
                       std::to_string(kMaxRank));
  int64_t numel = 1;
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(numel, d, &numel))
      throw CompileError(what + " has invalid dims " + shape_string(shape));
  }
  const size_t elem = dtype_size(*dtype);
  size_t nbytes = 0;
  if (__builtin_mul_overflow(static_cast<size_t>(numel), elem, &nbytes))
    throw CompileError(what + " is too large (" + shape_string(shape) + ")");
  auto bytes = std::make_shared<std::vector<std::byte>>(nbytes);
  auto mismatch = [&](size_t got, const char* field) {
    throw CompileError(what + " holds " + std::to_string(got) + " " + field + " for dims " + shape_string(shape) +
                       " (" + std::to_string(numel) + " elements); the file may be truncated or corrupt");
  };
  if (t.has_raw_data()) {
    if (t.raw_data().size() != nbytes) mismatch(t.raw_data().size(), "bytes of raw_data");
    if (nbytes > 0) std::memcpy(bytes->data(), t.raw_data().data(), nbytes);
  } else {
    std::byte* out = bytes->data();
    auto check = [&](int n, const char* field) {
      if (static_cast<int64_t>(n) != numel) mismatch(static_cast<size_t>(n), field);
    };
    switch (*dtype) {
      case DType::Float32:
        check(t.float_data_size(), "float_data values");
        if (nbytes > 0) std::memcpy(out, t.float_data().data(), nbytes);
        break;
      case DType::Int64:
        check(t.int64_data_size(), "int64_data values");
        if (nbytes > 0) std::memcpy(out, t.int64_data().data(), nbytes);
        break;
      case DType::Int32:
        check(t.int32_data_size(), "int32_data values");
        if (nbytes > 0) std::memcpy(out, t.int32_data().data(), nbytes);
        break;
      case DType::Float16:
        check(t.int32_data_size(), "int32_data values");
        for (int64_t i = 0; i < numel; ++i) {
          const uint16_t bits = static_cast<uint16_t>(t.int32_data(static_cast<int>(i)));
          std::memcpy(out + 2 * i, &bits, 2);
        }
        break;
      case DType::Int8:
      case DType::UInt8:
      case DType::Bool:
        check(t.int32_data_size(), "int32_data values");
        for (int64_t i = 0; i < numel; ++i) {
          int32_t v = t.int32_data(static_cast<int>(i));
          if (*dtype == DType::Bool) v = v != 0;
          const uint8_t b = static_cast<uint8_t>(v);
          std::memcpy(out + i, &b, 1);
        }
        break;
    }
  }
  return TensorData{TensorType::of(*dtype, shape), std::move(bytes)};
}

TensorData make_data(DType dtype, const std::vector<int64_t>& shape, const std::vector<double>& values) {
  auto bytes = std::make_shared<std::vector<std::byte>>(values.size() * dtype_size(dtype));
  std::byte* out = bytes->data();
  for (size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    switch (dtype) {
      case DType::Float32: {
        const float f = static_cast<float>(v);
        std::memcpy(out + 4 * i, &f, 4);
        break;
      }
      case DType::Float16: {
        const Half h = float_to_half(static_cast<float>(v));
        std::memcpy(out + 2 * i, &h, 2);
        break;
      }
      case DType::Int64: {
        const int64_t x = static_cast<int64_t>(v);
        std::memcpy(out + 8 * i, &x, 8);
        break;
      }
      case DType::Int32: {
        const int32_t x = static_cast<int32_t>(v);
        std::memcpy(out + 4 * i, &x, 4);
        break;
      }
      case DType::Int8: {
        const int8_t x = static_cast<int8_t>(v);
        std::memcpy(out + i, &x, 1);
        break;
      }
      case DType::UInt8: {
        const uint8_t x = static_cast<uint8_t>(v);
        std::memcpy(out + i, &x, 1);
        break;
      }
      case DType::Bool: {
        const uint8_t x = v != 0;
        std::memcpy(out + i, &x, 1);
        break;
      }
    }
  }
  return TensorData{TensorType::of(dtype, shape), std::move(bytes)};
}

TensorData make_int_data(DType dtype, const std::vector<int64_t>& shape, const std::vector<int64_t>& values) {
  if (is_floating(dtype)) {
    std::vector<double> d(values.begin(), values.end());
    return make_data(dtype, shape, d);
  }
  auto bytes = std::make_shared<std::vector<std::byte>>(values.size() * dtype_size(dtype));
  std::byte* out = bytes->data();
  for (size_t i = 0; i < values.size(); ++i) {
    const int64_t v = values[i];
    switch (dtype) {
      case DType::Int64:
        std::memcpy(out + 8 * i, &v, 8);
        break;
      case DType::Int32: {
        const int32_t x = static_cast<int32_t>(v);
        std::memcpy(out + 4 * i, &x, 4);
        break;
      }
      case DType::Int8: {
        const int8_t x = static_cast<int8_t>(v);
        std::memcpy(out + i, &x, 1);
        break;
      }
      case DType::UInt8: {
        const uint8_t x = static_cast<uint8_t>(v);
        std::memcpy(out + i, &x, 1);
        break;
      }
      case DType::Bool: {
        const uint8_t x = v != 0;
        std::memcpy(out + i, &x, 1);
        break;
      }
      default:
        break;
    }
  }
  return TensorData{TensorType::of(dtype, shape), std::move(bytes)};
}

namespace {

template <typename T, typename F>
void for_each_element(const TensorData& d, F&& f) {
  const size_t n = d.bytes->size() / sizeof(T);
  for (size_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, d.bytes->data() + i * sizeof(T), sizeof(T));
    f(v);
  }
}

template <typename R>
std::vector<R> convert_all(const TensorData& d) {
  std::vector<R> out;
  auto push = [&](auto v) { out.push_back(static_cast<R>(v)); };
  switch (d.type.dtype) {
    case DType::Float32:
      for_each_element<float>(d, push);
      break;
    case DType::Float16:
      for_each_element<Half>(d, [&](Half h) { out.push_back(static_cast<R>(half_to_float(h))); });
      break;
    case DType::Int64:
      for_each_element<int64_t>(d, push);
      break;
    case DType::Int32:
      for_each_element<int32_t>(d, push);
      break;
    case DType::Int8:
      for_each_element<int8_t>(d, push);
      break;
    case DType::UInt8:
    case DType::Bool:
      for_each_element<uint8_t>(d, push);
      break;
  }
  return out;
}

}  // namespace

std::vector<int64_t> data_as_ints(const TensorData& d) { return convert_all<int64_t>(d); }
std::vector<double> data_as_doubles(const TensorData& d) { return convert_all<double>(d); }

}  // namespace edgec::onnx_import

// ONNX tensors as edgec data: element types, TensorProto decoding (raw or
// typed fields, or an external file, validated against the dims), and
// conversions of small tensors to numbers for the importer's import-time
// reasoning.
//
// External data is read from a model's folder, and a model file is
// untrusted input: its locations must not reach files outside that folder
// ("../", absolute paths, symlinks leading out), and its offsets and
// lengths must not read past a file's end or allocate more than the file
// holds. Every size is checked before anything is allocated, against the
// bytes really there and against the memory limit (EDGEC_MEMORY_LIMIT).
#include "frontends/onnx/tensor_data.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <utility>

#include "base/half.h"
#include "base/memory_limit.h"
#include "base/diagnostic.h"
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

namespace {

// The ONNX element type of each DType, both ways.
constexpr std::pair<int32_t, DType> kElemTypes[] = {
    {onnx::TensorProto::FLOAT, DType::Float32}, {onnx::TensorProto::FLOAT16, DType::Float16},
    {onnx::TensorProto::INT64, DType::Int64},   {onnx::TensorProto::INT32, DType::Int32},
    {onnx::TensorProto::INT8, DType::Int8},     {onnx::TensorProto::UINT8, DType::UInt8},
    {onnx::TensorProto::BOOL, DType::Bool},     {onnx::TensorProto::DOUBLE, DType::Float64},
    {onnx::TensorProto::INT16, DType::Int16},   {onnx::TensorProto::UINT16, DType::UInt16},
    {onnx::TensorProto::UINT32, DType::UInt32}, {onnx::TensorProto::UINT64, DType::UInt64},
    {onnx::TensorProto::BFLOAT16, DType::BFloat16},
};

}  // namespace

std::optional<DType> dtype_from_onnx(int32_t elem_type) {
  for (const auto& [onnx_type, dtype] : kElemTypes)
    if (onnx_type == elem_type) return dtype;
  return std::nullopt;
}

int32_t onnx_elem_type(DType dtype) {
  for (const auto& [onnx_type, d] : kElemTypes)
    if (d == dtype) return onnx_type;
  return onnx::TensorProto::UNDEFINED;
}

std::string onnx_type_name(int32_t elem_type) {
  if (!onnx::TensorProto_DataType_IsValid(elem_type)) return "unknown type " + std::to_string(elem_type);
  std::string s = onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(elem_type));
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

namespace {

/// The external_data entries of a TensorProto that edgec reads ("checksum"
/// and unknown keys are ignored, as the ONNX spec allows).
struct ExternalRef {
  std::string location;
  std::optional<uint64_t> offset;
  std::optional<uint64_t> length;
};

/// A non-negative decimal integer ("0", "4096"), or nullopt for anything
/// else ("-1", "+1", " 1", "0x10", "1e3", a value past 2^64).
std::optional<uint64_t> parse_size(const std::string& s) {
  uint64_t v = 0;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  if (s.empty() || ec != std::errc() || p != end) return std::nullopt;
  return v;
}

ExternalRef external_ref(const onnx::TensorProto& t, const std::string& what) {
  ExternalRef ref;
  bool has_location = false;
  for (const auto& e : t.external_data()) {
    if (e.key() == "location") {
      ref.location = e.value();
      has_location = true;
    }
  }
  if (!has_location || ref.location.empty())
    throw CompileError(what + " keeps its data in an external file but does not name it (no 'location' in its "
                              "external_data)");
  for (const auto& e : t.external_data()) {
    if (e.key() != "offset" && e.key() != "length") continue;
    const auto v = parse_size(e.value());
    if (!v)
      throw CompileError(what + " keeps its data in external file '" + ref.location + "', whose " + e.key() + " '" +
                         e.value() + "' is not a non-negative integer");
    (e.key() == "offset" ? ref.offset : ref.length) = *v;
  }
  return ref;
}

/// Whether `path` is `folder` or lies below it (both canonical).
bool is_within(const std::filesystem::path& folder, const std::filesystem::path& path) {
  auto p = path.begin();
  for (const auto& part : folder) {
    if (p == path.end() || *p != part) return false;
    ++p;
  }
  return true;
}

/// The canonical path of `ref.location` inside the model's folder; refuses
/// locations that are absolute, have a ".." component, or lead outside the
/// folder through a symlink.
std::filesystem::path resolve_location(const ExternalRef& ref, const std::string& what,
                                       const ExternalDataSource& source) {
  namespace fs = std::filesystem;
  const std::string where = what + " keeps its data in external file '" + ref.location + "'";
  if (source.folder.empty())
    throw CompileError(where +
                       ", but the model was not read from a file (it was imported from bytes), so there is no "
                       "folder to read it from");
  if (ref.location.find('\0') != std::string::npos) throw CompileError(where + ", whose name contains a NUL byte");
  const fs::path location(ref.location);
  if (location.is_absolute())
    throw CompileError(where +
                       ", an absolute path; external data must be named relative to the folder holding the model (" +
                       source.folder.string() + ")");
  for (const auto& part : location)
    if (part == "..")
      throw CompileError(where + ", which has a '..' component; external data must be named within the folder "
                                 "holding the model (" + source.folder.string() + ")");
  std::error_code ec;
  const fs::path resolved = fs::weakly_canonical(source.folder / location, ec);
  if (ec) throw CompileError(where + ", which cannot be resolved: " + ec.message());
  if (!is_within(source.folder, resolved))
    throw CompileError(where + ", which resolves (through a symbolic link) to '" + resolved.string() +
                       "', outside the folder holding the model (" + source.folder.string() + ")");
  return resolved;
}

/// Refuses a tensor of `nbytes` over the memory limit; called once the data
/// is known to be there and before anything is read, mapped, copied or
/// converted (a model naming a 3 GiB external file must fail here, not once
/// it is resident).
void check_memory_limit(const onnx::TensorProto& t, const std::string& what, const std::vector<int64_t>& shape,
                        size_t nbytes) {
  if (const uint64_t limit = memory_limit(); nbytes > limit)
    throw CompileError(what + " has dims " + shape_string(shape) + " of " + onnx_type_name(t.data_type()) + ": " +
                       std::to_string(nbytes) + " bytes, more than the memory limit of " + std::to_string(limit) +
                       " bytes (set EDGEC_MEMORY_LIMIT to change it)");
}

/// Reads the `nbytes` bytes of an external tensor (see the file comment).
std::shared_ptr<std::vector<std::byte>> read_external(const onnx::TensorProto& t, const std::string& what,
                                                      const ExternalDataSource& source,
                                                      const std::vector<int64_t>& shape, size_t nbytes) {
  const ExternalRef ref = external_ref(t, what);
  const std::string where = what + " keeps its data in external file '" + ref.location + "'";
  if (t.has_raw_data() || t.float_data_size() > 0 || t.int32_data_size() > 0 || t.int64_data_size() > 0 ||
      t.double_data_size() > 0 || t.uint64_data_size() > 0 || t.string_data_size() > 0)
    throw CompileError(where + " but also holds data in the model; a tensor's data must be in one place");
  const std::filesystem::path path = resolve_location(ref, what, source);
  // O_NOFOLLOW: the resolved path has no symlinks left, so one appearing
  // now was put there after the check. O_NONBLOCK: a FIFO must not hang
  // the open before fstat refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) throw CompileError(where + ", which does not exist (looked for " + path.string() + ")");
    throw CompileError(where + ", which cannot be opened (" + path.string() + "): " + std::strerror(err));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw CompileError(where + ", which cannot be read: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw CompileError(where + ", which is not a regular file (" + path.string() + ")");
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  const uint64_t offset = ref.offset.value_or(0);
  const std::string need = std::to_string(nbytes) + " bytes that its dims " + shape_string(shape) + " of " +
                           onnx_type_name(t.data_type()) + " need";
  if (offset > file_size)
    throw CompileError(where + ", whose offset " + std::to_string(offset) + " is beyond the end of the file (" +
                       std::to_string(file_size) + " bytes)");
  // file_size - offset cannot wrap: offset <= file_size.
  if (ref.length && *ref.length > file_size - offset)
    throw CompileError(where + ", whose range (offset " + std::to_string(offset) + ", length " +
                       std::to_string(*ref.length) + ") extends beyond the end of the file (" +
                       std::to_string(file_size) + " bytes)");
  if (ref.length && *ref.length != nbytes)
    throw CompileError(where + ", whose length " + std::to_string(*ref.length) + " differs from the " + need);
  if (nbytes > file_size - offset)
    throw CompileError(where + ", which holds " + std::to_string(file_size - offset) + " bytes from offset " +
                       std::to_string(offset) + ", fewer than the " + need);
  check_memory_limit(t, what, shape, nbytes);
  auto bytes = std::make_shared<std::vector<std::byte>>(nbytes);
  size_t done = 0;
  while (done < nbytes) {
    const ssize_t n = ::pread(fd, bytes->data() + done, nbytes - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw CompileError(where + ", which cannot be read: " + std::strerror(errno));
    if (n == 0)
      throw CompileError(where + ", which ended after " + std::to_string(offset + done) +
                         " bytes while being read (was it changed meanwhile?)");
    done += static_cast<size_t>(n);
  }
  return bytes;
}

}  // namespace

TensorData tensor_from_proto(const onnx::TensorProto& t, const std::string& what, const ExternalDataSource& external) {
  const auto dtype = dtype_from_onnx(t.data_type());
  if (!dtype)
    throw CompileError(what + " has element type " + onnx_type_name(t.data_type()) +
                       ", which edgec does not support (float, float16, double, int64, int32, int16, int8, uint64, "
                       "uint32, uint16, uint8, bool)");
  std::vector<int64_t> shape(t.dims().begin(), t.dims().end());
  if (shape.size() > static_cast<size_t>(kMaxRank))
    throw CompileError(what + " has rank " + std::to_string(shape.size()) + "; edgec supports ranks up to " +
                       std::to_string(kMaxRank));
  for (int64_t d : shape)
    if (d < 0) throw CompileError(what + " has invalid dims " + shape_string(shape) + ": a dim is negative");
  // A zero dim makes the tensor empty however large the others are.
  int64_t numel = std::find(shape.begin(), shape.end(), 0) != shape.end() ? 0 : 1;
  for (int64_t d : shape)
    if (numel != 0 && __builtin_mul_overflow(numel, d, &numel))
      throw CompileError(what + " has invalid dims " + shape_string(shape) +
                         ": their element count does not fit in int64");
  int64_t signed_bytes = 0;
  if (__builtin_mul_overflow(numel, static_cast<int64_t>(dtype_size(*dtype)), &signed_bytes))
    throw CompileError(what + " is too large: its dims " + shape_string(shape) + " of " +
                       onnx_type_name(t.data_type()) + " need more bytes than fit in int64");
  const size_t nbytes = static_cast<size_t>(signed_bytes);
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    return TensorData{TensorType::of(*dtype, shape), read_external(t, what, external, shape, nbytes)};
  // The sizes are compared before anything is allocated: dims that declare
  // far more than the model holds must fail, not exhaust memory.
  auto mismatch = [&](size_t got, const char* field) {
    throw CompileError(what + " holds " + std::to_string(got) + " " + field + " for dims " + shape_string(shape) +
                       " (" + std::to_string(numel) + " elements); the file may be truncated or corrupt");
  };
  std::shared_ptr<std::vector<std::byte>> bytes;
  if (t.has_raw_data()) {
    if (t.raw_data().size() != nbytes) mismatch(t.raw_data().size(), "bytes of raw_data");
    check_memory_limit(t, what, shape, nbytes);
    bytes = std::make_shared<std::vector<std::byte>>(nbytes);
    if (nbytes > 0) std::memcpy(bytes->data(), t.raw_data().data(), nbytes);
  } else {
    // float in float_data, double in double_data, int64 in int64_data,
    // uint32 and uint64 in uint64_data, every other type in int32_data.
    const DType d = *dtype;
    const int count = d == DType::Float32                             ? t.float_data_size()
                      : d == DType::Float64                           ? t.double_data_size()
                      : d == DType::Int64                             ? t.int64_data_size()
                      : d == DType::UInt32 || d == DType::UInt64      ? t.uint64_data_size()
                                                                      : t.int32_data_size();
    if (static_cast<int64_t>(count) != numel)
      mismatch(static_cast<size_t>(count), d == DType::Float32                        ? "float_data values"
                                           : d == DType::Float64                      ? "double_data values"
                                           : d == DType::Int64                        ? "int64_data values"
                                           : d == DType::UInt32 || d == DType::UInt64 ? "uint64_data values"
                                                                                      : "int32_data values");
    check_memory_limit(t, what, shape, nbytes);
    bytes = std::make_shared<std::vector<std::byte>>(nbytes);
    std::byte* out = bytes->data();
    // Narrower types are stored widened; each is narrowed back to its width.
    auto narrow_each = [&]<typename T>(const auto& values) {
      for (int64_t i = 0; i < numel; ++i) {
        const T v = static_cast<T>(values[static_cast<int>(i)]);
        std::memcpy(out + sizeof(T) * static_cast<size_t>(i), &v, sizeof(T));
      }
    };
    switch (d) {
      case DType::Float32:
        if (nbytes > 0) std::memcpy(out, t.float_data().data(), nbytes);
        break;
      case DType::Float64:
        if (nbytes > 0) std::memcpy(out, t.double_data().data(), nbytes);
        break;
      case DType::Int64:
        if (nbytes > 0) std::memcpy(out, t.int64_data().data(), nbytes);
        break;
      case DType::UInt64:
        if (nbytes > 0) std::memcpy(out, t.uint64_data().data(), nbytes);
        break;
      case DType::Int32:
        if (nbytes > 0) std::memcpy(out, t.int32_data().data(), nbytes);
        break;
      case DType::UInt32: narrow_each.operator()<uint32_t>(t.uint64_data()); break;
      case DType::Float16:
      case DType::BFloat16:
      case DType::Int16:
      case DType::UInt16: narrow_each.operator()<uint16_t>(t.int32_data()); break;
      case DType::Int8:
      case DType::UInt8: narrow_each.operator()<uint8_t>(t.int32_data()); break;
      case DType::Bool:
        for (int64_t i = 0; i < numel; ++i) {
          const uint8_t b = t.int32_data(static_cast<int>(i)) != 0;
          std::memcpy(out + i, &b, 1);
        }
        break;
    }
  }
  return TensorData{TensorType::of(*dtype, shape), std::move(bytes)};
}

void inline_external_data(onnx::TensorProto& t, const std::string& what, const ExternalDataSource& external) {
  if (t.data_location() != onnx::TensorProto::EXTERNAL) return;
  const TensorData data = tensor_from_proto(t, what, external);
  t.clear_external_data();
  t.set_data_location(onnx::TensorProto::DEFAULT);
  t.set_raw_data(data.bytes->data(), data.bytes->size());
}

namespace {

// Writes `v` as element `i` of `out`, an array of `dtype`: converted as by
// static_cast, a bool as v != 0, a half through float.
template <typename V>
void store_element(std::byte* out, size_t i, DType dtype, V v) {
  auto put = [&](auto x) { std::memcpy(out + sizeof(x) * i, &x, sizeof(x)); };
  switch (dtype) {
    case DType::Float32: put(static_cast<float>(v)); break;
    case DType::Float16: put(float_to_half(static_cast<float>(v))); break;
    case DType::Int64: put(static_cast<int64_t>(v)); break;
    case DType::Int32: put(static_cast<int32_t>(v)); break;
    case DType::Int8: put(static_cast<int8_t>(v)); break;
    case DType::UInt8: put(static_cast<uint8_t>(v)); break;
    case DType::Bool: put(static_cast<uint8_t>(v != 0)); break;
    case DType::Float64: put(static_cast<double>(v)); break;
    case DType::Int16: put(static_cast<int16_t>(v)); break;
    case DType::UInt16: put(static_cast<uint16_t>(v)); break;
    case DType::UInt32: put(static_cast<uint32_t>(v)); break;
    case DType::UInt64: put(static_cast<uint64_t>(v)); break;
    case DType::BFloat16: put(double_to_bfloat16(static_cast<double>(v))); break;
  }
}

template <typename V>
TensorData make_data_of(DType dtype, const std::vector<int64_t>& shape, const std::vector<V>& values) {
  auto bytes = std::make_shared<std::vector<std::byte>>(values.size() * dtype_size(dtype));
  for (size_t i = 0; i < values.size(); ++i) store_element(bytes->data(), i, dtype, values[i]);
  return TensorData{TensorType::of(dtype, shape), std::move(bytes)};
}

}  // namespace

TensorData make_data(DType dtype, const std::vector<int64_t>& shape, const std::vector<double>& values) {
  return make_data_of(dtype, shape, values);
}

TensorData make_int_data(DType dtype, const std::vector<int64_t>& shape, const std::vector<int64_t>& values) {
  // Floating values go through double, as make_data converts them.
  if (is_floating(dtype)) return make_data(dtype, shape, std::vector<double>(values.begin(), values.end()));
  return make_data_of(dtype, shape, values);
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
    case DType::BFloat16:
      for_each_element<uint16_t>(d, [&](uint16_t b) { out.push_back(static_cast<R>(bfloat16_to_float(b))); });
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
    case DType::Float64:
      for_each_element<double>(d, push);
      break;
    case DType::Int16:
      for_each_element<int16_t>(d, push);
      break;
    case DType::UInt16:
      for_each_element<uint16_t>(d, push);
      break;
    case DType::UInt32:
      for_each_element<uint32_t>(d, push);
      break;
    case DType::UInt64:
      for_each_element<uint64_t>(d, push);
      break;
  }
  return out;
}

}  // namespace

std::vector<int64_t> data_as_ints(const TensorData& d) { return convert_all<int64_t>(d); }
std::vector<double> data_as_doubles(const TensorData& d) { return convert_all<double>(d); }

}  // namespace edgec::onnx_import

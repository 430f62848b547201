// .npy parsing/serialization and .npz archives through libzip.
//
// Reading is layered like a program loader: the member count the archive
// claims → archive (libzip, with its consistency checks) → member size
// plausibility → .npy prefix → header dict → shape/size arithmetic, against
// the member's recorded size and the memory limit → data. Nothing is
// allocated from a size read out of the file until that size has been
// checked against the bytes that are really there and against the memory
// limit (the arrays read so far included), so a hostile archive cannot make
// us allocate gigabytes. Nor is a deflated member's recorded size trusted
// beyond what its compressed bytes plausibly hold: such a member is first
// inflated into a small scratch buffer to count its bytes, and one that
// ends early (or runs long) is refused with both sizes before its array is
// allocated.
#include "io/npz.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "base/memory_limit.h"
#include "base/regular_file.h"
#include "io/npz_format.h"

namespace edgec::io {
using namespace npz_format;
namespace {

static_assert(std::endian::native == std::endian::little,
              "npy data is stored little-endian and copied as is");

// numpy refuses headers over 10000 bytes from untrusted files; a rank-64
// shape still fits in far less than this.
constexpr size_t kMaxHeaderLen = 1 << 16;
constexpr size_t kMaxNpyRank = 64;
// Deflate cannot expand more than ~1032:1; a member claiming more is lying.
constexpr uint64_t kMaxDeflateRatio = 1100;
// libzip 1.7.3 returns the whole count from a zip_fread of a deflated
// member past 4 GiB but fills only the count modulo 2^32 (the rest is read
// next, and the CRC then fails): members are read in pieces of at most this.
constexpr uint64_t kMaxReadPiece = uint64_t{1} << 30;
// A deflated member may inflate to this many times its compressed bytes
// (or to 64 MiB, whichever is more) before its recorded size is doubted:
// arrays as they come (weights, images, activations) compress far less.
// A member recording more is inflated once to count its bytes, into a small
// scratch buffer, before its array is allocated: a 16 MB member recording
// 16 GB took 16 GB before it was found to hold 16 MB.
constexpr uint64_t kTrustedDeflateRatio = 16;
constexpr uint64_t kTrustedInflation = uint64_t{64} << 20;
constexpr uint64_t kScratchBytes = uint64_t{1} << 20;
// What opening an archive costs per member besides its central-directory
// record (libzip's entry and directory structures, our array and its name),
// rounded up: an archive listing millions of members is refused before
// libzip allocates them.
constexpr uint64_t kMemoryPerMember = 256;

// ---------------------------------------------------------------------------
// dtype descriptors

// A readable name for a numpy type we refuse, and how to convert it.
void describe_unsupported(char kind, int64_t itemsize, std::string& name, std::string& hint) {
  const std::string bits = std::to_string(itemsize * 8);
  switch (kind) {
    case 'f': name = "float" + bits; hint = ".astype(np.float32)"; return;
    case 'c': name = "complex" + bits; hint = "np.real(...) or np.abs(...), then .astype(np.float32)"; return;
    case 'i': name = "int" + bits; hint = itemsize < 4 ? ".astype(np.int32)" : ".astype(np.int64)"; return;
    case 'u': name = "uint" + bits; hint = itemsize < 4 ? ".astype(np.int32)" : ".astype(np.int64)"; return;
    case 'b': name = "bool" + bits; hint = ".astype(bool)"; return;
    case 'U': name = "unicode string"; return;
    case 'S': case 'a': name = "byte string"; return;
    case 'O': name = "Python object"; return;
    case 'V': name = "raw/structured"; return;
    case 'M': name = "datetime64"; hint = ".astype(np.int64)"; return;
    case 'm': name = "timedelta64"; hint = ".astype(np.int64)"; return;
    default: name = "unknown"; return;
  }
}

DType parse_descr(std::string_view descr, const std::string& what, std::string_view array) {
  std::string_view rest = descr;
  char order = '|';
  if (!rest.empty() && (rest[0] == '<' || rest[0] == '>' || rest[0] == '|' || rest[0] == '=')) {
    order = rest[0];
    rest.remove_prefix(1);
  }
  if (rest.empty()) fail_array(what, array, "malformed dtype '" + printable(descr) + "'");
  const char kind = rest[0];
  rest.remove_prefix(1);
  // The size is absent for some kinds ('?' bool, 'O' object).
  int64_t itemsize = 0;
  if (rest.size() > 6) fail_array(what, array, "malformed dtype '" + printable(descr) + "'");
  for (char c : rest) {
    if (c < '0' || c > '9') fail_array(what, array, "malformed dtype '" + printable(descr) + "'");
    itemsize = itemsize * 10 + (c - '0');
  }
  if (kind == '?' && rest.empty()) itemsize = 1;

  std::optional<DType> dtype;
  if (kind == 'f' && itemsize == 4) dtype = DType::Float32;
  if (kind == 'f' && itemsize == 2) dtype = DType::Float16;
  if (kind == 'i' && itemsize == 8) dtype = DType::Int64;
  if (kind == 'i' && itemsize == 4) dtype = DType::Int32;
  if (kind == 'i' && itemsize == 1) dtype = DType::Int8;
  if (kind == 'u' && itemsize == 1) dtype = DType::UInt8;
  if (kind == 'f' && itemsize == 8) dtype = DType::Float64;
  if (kind == 'i' && itemsize == 2) dtype = DType::Int16;
  if (kind == 'u' && itemsize == 2) dtype = DType::UInt16;
  if (kind == 'u' && itemsize == 4) dtype = DType::UInt32;
  if (kind == 'u' && itemsize == 8) dtype = DType::UInt64;
  if ((kind == 'b' || kind == '?') && itemsize == 1) dtype = DType::Bool;

  if (dtype && order == '>' && itemsize > 1) {
    fail_array(what, array,
               "big-endian dtype '" + printable(descr) + "' is not supported; convert with "
               ".astype('<" + std::string(1, kind) + std::to_string(itemsize) + "')");
  }
  if (!dtype) {
    std::string name, hint;
    describe_unsupported(kind, itemsize, name, hint);
    std::string msg = "unsupported dtype '" + printable(descr) + "' (" + name +
                      "); expected one of f32, f16, f64, i64, i32, i16, i8, u64, u32, u16, u8, bool";
    if (!hint.empty()) msg += " \xe2\x80\x94 convert with " + hint;
    fail_array(what, array, msg);
  }
  return *dtype;
}

// ---------------------------------------------------------------------------
// header dict: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
//
// A tiny parser for exactly the Python literal subset numpy writes, instead of
// an evaluator: keys are the three known ones, each exactly once.

struct NpyHeader {
  DType dtype = DType::Float32;
  bool fortran_order = false;
  std::vector<int64_t> shape;
  uint64_t data_bytes = 0;
};

class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& what, std::string_view array)
      : text_(text), what_(what), array_(array) {}

  NpyHeader parse() {
    NpyHeader h;
    bool have_descr = false, have_fortran = false, have_shape = false;
    std::string descr;
    parse_list('{', '}', "", [&] {
      const std::string key = parse_string();
      expect(':');
      skip_space();
      if (key == "descr") {
        if (have_descr) error("duplicate key 'descr'");
        if (peek() == '[') {
          fail_array(what_, array_, "structured dtypes are not supported; save plain numeric arrays");
        }
        descr = parse_string();
        have_descr = true;
      } else if (key == "fortran_order") {
        if (have_fortran) error("duplicate key 'fortran_order'");
        h.fortran_order = parse_bool();
        have_fortran = true;
      } else if (key == "shape") {
        if (have_shape) error("duplicate key 'shape'");
        h.shape = parse_shape();
        have_shape = true;
      } else {
        error("unexpected key '" + printable(key) + "'");
      }
    });
    skip_space();
    if (pos_ != text_.size()) error("unexpected text after the closing '}'");
    if (!have_descr || !have_fortran || !have_shape) {
      error("expected keys 'descr', 'fortran_order' and 'shape'");
    }
    h.dtype = parse_descr(descr, what_, array_);
    return h;
  }

 private:
  [[noreturn]] void error(const std::string& problem) {
    fail_array(what_, array_, "bad .npy header at offset " + std::to_string(pos_) + ": " + problem +
                                  " in \"" + printable(text_) + "\"");
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' || text_[pos_] == '\r'))
      ++pos_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) error(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string parse_string() {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') error("expected a quoted string");
    const size_t start = ++pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\' || text_[pos_] == '\n') error("unsupported character in string");
      ++pos_;
    }
    if (pos_ >= text_.size()) error("unterminated string");
    return std::string(text_.substr(start, pos_++ - start));
  }
  // Items separated by commas between `open` and `close`, each read by
  // `item` (a trailing comma allowed: Python writes "(3,)"). `context` ends
  // the message for a missing separator.
  template <typename Item>
  void parse_list(char open, char close, const char* context, Item item) {
    expect(open);
    while (true) {
      skip_space();
      if (peek() == close) {
        ++pos_;
        return;
      }
      item();
      skip_space();
      if (peek() == ',') {
        ++pos_;
      } else if (peek() != close) {
        error(std::string("expected ',' or '") + close + "'" + context);
      }
    }
  }
  bool parse_bool() {
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    error("expected True or False");
  }
  std::vector<int64_t> parse_shape() {
    std::vector<int64_t> shape;
    parse_list('(', ')', " in shape", [&] {
      if (peek() < '0' || peek() > '9') error("expected a non-negative integer dimension");
      int64_t d = 0;
      while (peek() >= '0' && peek() <= '9') {
        const int digit = peek() - '0';
        if (d > (INT64_MAX - digit) / 10) error("dimension overflows int64");
        d = d * 10 + digit;
        ++pos_;
      }
      if (peek() == 'L') ++pos_;  // Python 2 longs
      if (shape.size() >= kMaxNpyRank) error("more than " + std::to_string(kMaxNpyRank) + " dims");
      shape.push_back(d);
    });
    // "(3)" is the int 3 in Python, not a tuple; numpy never writes it.
    return shape;
  }

  std::string_view text_;
  size_t pos_ = 0;
  const std::string& what_;
  std::string_view array_;
};

// Overflow-checked element count and byte size of a header's array.
void compute_data_bytes(NpyHeader& h, const std::string& what, std::string_view array) {
  // A zero dim makes the array empty however large the others are.
  for (int64_t d : h.shape) {
    if (d == 0) {
      h.data_bytes = 0;
      return;
    }
  }
  uint64_t n = 1;
  const uint64_t esz = dtype_size(h.dtype);
  for (int64_t d : h.shape) {
    const auto ud = static_cast<uint64_t>(d);
    if (n > static_cast<uint64_t>(INT64_MAX) / esz / ud) {
      fail_array(what, array, "shape " + shape_repr(h.shape) + " is too large (size overflows)");
    }
    n *= ud;
  }
  h.data_bytes = n * esz;
}

// Reads the fixed-size .npy prefix through `read` and returns the header.
// `total` is the member's size; `read(dst, n)` fills exactly n bytes or throws.
template <typename ReadFn>
NpyHeader read_npy_header(ReadFn&& read, uint64_t total, uint64_t& consumed,
                          const std::string& what, std::string_view array) {
  if (total < kNpyMagicLen + 4) {
    fail_array(what, array, "not a .npy: " + std::to_string(total) + " bytes is shorter than the header");
  }
  unsigned char prefix[12];
  read(prefix, 10);
  if (std::memcmp(prefix, kNpyMagic, kNpyMagicLen) != 0) {
    fail_array(what, array, "not a .npy: missing the \\x93NUMPY magic");
  }
  const int major = prefix[6], minor = prefix[7];
  uint64_t header_len = 0;
  consumed = 10;
  if (major == 1 && minor == 0) {
    header_len = prefix[8] | (static_cast<uint64_t>(prefix[9]) << 8);
  } else if ((major == 2 || major == 3) && minor == 0) {
    if (total < 12) fail_array(what, array, "truncated .npy header");
    read(prefix + 10, 2);
    consumed = 12;
    header_len = prefix[8] | (static_cast<uint64_t>(prefix[9]) << 8) |
                 (static_cast<uint64_t>(prefix[10]) << 16) | (static_cast<uint64_t>(prefix[11]) << 24);
  } else {
    fail_array(what, array, "unsupported .npy format version " + std::to_string(major) + "." +
                                std::to_string(minor) + "; expected 1.0, 2.0 or 3.0");
  }
  if (header_len > kMaxHeaderLen) {
    fail_array(what, array, "header of " + std::to_string(header_len) + " bytes exceeds the " +
                                std::to_string(kMaxHeaderLen) + "-byte limit");
  }
  if (const uint64_t limit = memory_limit(); header_len > limit) {
    fail_array(what, array, "header of " + std::to_string(header_len) + " bytes exceeds the memory limit of " +
                                std::to_string(limit) + " bytes (set EDGEC_MEMORY_LIMIT to change it)");
  }
  if (header_len > total - consumed) {
    fail_array(what, array, "truncated .npy: header needs " + std::to_string(header_len) +
                                " bytes, only " + std::to_string(total - consumed) + " remain");
  }
  std::string text(header_len, '\0');
  read(text.data(), header_len);
  consumed += header_len;
  NpyHeader h = HeaderParser(text, what, array).parse();
  compute_data_bytes(h, what, array);
  if (h.data_bytes != total - consumed) {
    fail_array(what, array,
               "data size mismatch: shape " + shape_repr(h.shape) + " of " +
                   std::string(dtype_name(h.dtype)) + " needs " + std::to_string(h.data_bytes) +
                   " bytes, the .npy has " + std::to_string(total - consumed));
  }
  return h;
}

// Column-major `src` into row-major `dst` (both h.data_bytes long).
void fortran_to_c(const NpyHeader& h, const std::byte* src, std::byte* dst) {
  const size_t rank = h.shape.size();
  const size_t esz = dtype_size(h.dtype);
  const uint64_t n = h.data_bytes / esz;
  if (n == 0) return;
  std::vector<uint64_t> fstride(rank), index(rank, 0);
  uint64_t s = 1;
  for (size_t i = 0; i < rank; ++i) {
    fstride[i] = s;
    s *= static_cast<uint64_t>(h.shape[i]);
  }
  uint64_t offset = 0;  // element offset in src of `index`
  for (uint64_t k = 0; k < n; ++k) {
    std::memcpy(dst + k * esz, src + offset * esz, esz);
    for (size_t d = rank; d-- > 0;) {  // odometer, last dim fastest
      if (++index[d] < static_cast<uint64_t>(h.shape[d])) {
        offset += fstride[d];
        break;
      }
      offset -= fstride[d] * (index[d] - 1);
      index[d] = 0;
    }
  }
}

// Refuses an array whose data, with the `before` bytes of the arrays read
// before it, exceeds the memory limit. Called once the header agrees with
// the member's recorded size (`recorded`, `recorded_what`) and before any of
// the data is allocated or inflated.
void check_memory_limit(const NpyHeader& h, uint64_t before, uint64_t recorded, const char* recorded_what,
                        const std::string& what, std::string_view array) {
  const uint64_t limit = memory_limit();
  if (h.data_bytes <= limit && before <= limit - h.data_bytes) return;
  std::string msg = "shape " + shape_repr(h.shape) + " of " + std::string(dtype_name(h.dtype)) + " needs " +
                    std::to_string(h.data_bytes) + " bytes (" + recorded_what + " " + std::to_string(recorded) +
                    " bytes), ";
  if (h.data_bytes <= limit)
    msg += "which with the " + std::to_string(before) + " bytes of the arrays before it is ";
  fail_array(what, array, msg + "more than the memory limit of " + std::to_string(limit) +
                              " bytes (set EDGEC_MEMORY_LIMIT to change it)");
}

// Reads the data that follows the header into a new array.
template <typename ReadFn>
NpyArray read_npy_body(ReadFn&& read, NpyHeader& h, const std::string& name) {
  NpyArray a;
  a.name = name;
  a.dtype = h.dtype;
  a.shape = std::move(h.shape);
  a.data.resize(h.data_bytes);
  const bool needs_transpose = h.fortran_order && a.shape.size() > 1;
  if (!needs_transpose) {
    if (h.data_bytes) read(a.data.data(), h.data_bytes);
    return a;
  }
  std::vector<std::byte> fortran(h.data_bytes);
  if (h.data_bytes) read(fortran.data(), h.data_bytes);
  h.shape = a.shape;
  fortran_to_c(h, fortran.data(), a.data.data());
  return a;
}

// ---------------------------------------------------------------------------
// zip reading

struct ArchiveCloser {
  zip_t* za;
  ~ArchiveCloser() { zip_discard(za); }
};

std::string array_name_of(std::string_view member) {
  constexpr std::string_view kSuffix = ".npy";
  if (member.size() > kSuffix.size() && member.substr(member.size() - kSuffix.size()) == kSuffix) {
    return std::string(member.substr(0, member.size() - kSuffix.size()));
  }
  return std::string(member);
}

// `before`: the bytes of the arrays already read (they count against the
// memory limit too).
NpyArray read_member(zip_t* za, zip_uint64_t index, uint64_t archive_size, uint64_t before,
                     const std::string& what) {
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat_index(za, index, 0, &st) != 0) {
    fail_file(what, "cannot read entry " + std::to_string(index) + ": " + zip_message(zip_get_error(za)));
  }
  constexpr zip_uint64_t kNeeded = ZIP_STAT_NAME | ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE |
                                   ZIP_STAT_COMP_METHOD | ZIP_STAT_ENCRYPTION_METHOD;
  if ((st.valid & kNeeded) != kNeeded || st.name == nullptr) {
    fail_file(what, "entry " + std::to_string(index) + " lacks a name, size or compression method");
  }
  const std::string member = st.name;
  constexpr std::string_view kSuffix = ".npy";
  if (member.size() <= kSuffix.size() || member.substr(member.size() - kSuffix.size()) != kSuffix) {
    fail_file(what, "member '" + printable(member) + "' is not a .npy array (an .npz holds only <name>.npy members)");
  }
  const std::string name = array_name_of(member);
  if (st.encryption_method != ZIP_EM_NONE) fail_array(what, name, "member is encrypted");
  if (st.comp_method != ZIP_CM_STORE && st.comp_method != ZIP_CM_DEFLATE) {
    fail_array(what, name, "unsupported zip compression method " + std::to_string(st.comp_method) +
                               "; expected stored or deflate (np.savez / np.savez_compressed)");
  }
  const bool plausible =
      st.comp_size <= archive_size &&
      (st.comp_method == ZIP_CM_STORE ? st.size == st.comp_size
                                      : st.size / kMaxDeflateRatio <= st.comp_size + 1);
  if (!plausible) {
    fail_array(what, name, "member claims " + std::to_string(st.size) + " bytes from " +
                               std::to_string(st.comp_size) + " compressed bytes in a " +
                               std::to_string(archive_size) + "-byte archive");
  }

  const bool deflated = st.comp_method == ZIP_CM_DEFLATE;
  zip_file_t* zf = nullptr;
  uint64_t delivered = 0;  // bytes of the member read through `zf`
  auto open = [&] {
    if (zf != nullptr) zip_fclose(zf);
    zf = zip_fopen_index(za, index, 0);
    if (zf == nullptr) fail_array(what, name, "cannot open member: " + zip_message(zip_get_error(za)));
    delivered = 0;
  };
  struct Closer {
    zip_file_t*& zf;
    ~Closer() {
      if (zf != nullptr) zip_fclose(zf);
    }
  } closer{zf};
  // A read that fails or ends early says how far the member got: the sizes
  // its entry records are what a hostile archive lies about.
  auto short_member = [&](const char* problem) {
    fail_array(what, name, std::string(deflated ? "member inflates" : "member holds") + " to only " +
                               std::to_string(delivered) + " of the " + std::to_string(st.size) +
                               " bytes its zip entry records" + (problem ? std::string(" (") + problem + ")" : ""));
  };
  // Exactly the recorded size is asked for, so inflation never produces
  // more than the header and the recorded size agree on.
  auto read = [&](void* dst, uint64_t n) {
    auto* out = static_cast<unsigned char*>(dst);
    while (n > 0) {
      const zip_int64_t got = zip_fread(zf, out, std::min(n, kMaxReadPiece));
      if (got < 0) short_member(zip_file_strerror(zf));
      if (got == 0) short_member(nullptr);
      out += got;
      n -= static_cast<uint64_t>(got);
      delivered += static_cast<uint64_t>(got);
    }
  };
  // Reading past the end is what makes libzip verify the CRC; a member
  // holding more than its entry records is refused too.
  auto expect_end = [&] {
    unsigned char extra;
    const zip_int64_t tail = zip_fread(zf, &extra, 1);
    if (tail < 0) fail_array(what, name, "corrupt member: " + std::string(zip_file_strerror(zf)));
    if (tail > 0)
      fail_array(what, name, std::string(deflated ? "member inflates" : "member holds") + " to more than the " +
                                 std::to_string(st.size) + " bytes its zip entry records");
  };
  open();
  uint64_t consumed = 0;
  NpyHeader h = read_npy_header(read, st.size, consumed, what, name);
  check_memory_limit(h, before, st.size, "its zip entry records", what, name);
  // A deflated member recording more than its compressed bytes plausibly
  // hold is inflated once into a scratch buffer, to count, before its array
  // is allocated (kTrustedDeflateRatio); then it is read again.
  const uint64_t trusted = std::max(kTrustedInflation, st.comp_size * kTrustedDeflateRatio);
  if (deflated && st.size > trusted) {
    std::vector<unsigned char> scratch(std::min(kScratchBytes, st.size - consumed));
    for (uint64_t left = st.size - consumed; left > 0;) {
      const uint64_t n = std::min<uint64_t>(left, scratch.size());
      read(scratch.data(), n);
      left -= n;
    }
    expect_end();
    open();
    for (uint64_t left = consumed; left > 0;) {
      const uint64_t n = std::min<uint64_t>(left, scratch.size());
      read(scratch.data(), n);
      left -= n;
    }
  }
  NpyArray a = read_npy_body(read, h, name);
  expect_end();
  return a;
}

// The largest member count and central-directory size that any end of
// central directory record in the archive's tail claims (zip64 ones too,
// which libzip reads wherever their locator is found): libzip allocates its
// entries from these when it opens the archive, before it finds out whether
// the members are there (a 4 KiB sparse file listing 2^24 members took
// 500 MB). Unreadable or absent records claim nothing; libzip reports those.
struct DirectoryClaim {
  uint64_t members = 0, directory_bytes = 0;
};

uint64_t little_endian(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

DirectoryClaim claimed_directory(zip_source_t* src, uint64_t archive_size) {
  constexpr uint64_t kEocd = 22, kLocator = 20, kEocd64 = 56, kMaxComment = 0xffff;
  DirectoryClaim claim;
  if (zip_source_open(src) != 0) return claim;
  struct SourceCloser {
    zip_source_t* s;
    ~SourceCloser() { zip_source_close(s); }
  } closer{src};
  auto read_at = [&](uint64_t offset, unsigned char* out, uint64_t n) {
    return offset <= static_cast<uint64_t>(INT64_MAX) &&
           zip_source_seek(src, static_cast<zip_int64_t>(offset), SEEK_SET) == 0 &&
           zip_source_read(src, out, n) == static_cast<zip_int64_t>(n);
  };
  const uint64_t window = std::min(archive_size, kLocator + kEocd + kMaxComment);
  std::vector<unsigned char> tail(window);
  if (window < kEocd || !read_at(archive_size - window, tail.data(), window)) return claim;
  for (uint64_t p = window - kEocd + 1; p-- > 0;) {
    const unsigned char* eocd = tail.data() + p;
    if (std::memcmp(eocd, "PK\x05\x06", 4) != 0) continue;
    uint64_t members = little_endian(eocd + 10, 2), directory_bytes = little_endian(eocd + 12, 4);
    // A zip64 record's counts replace the 16- and 32-bit ones (0xffff...).
    unsigned char record[kEocd64];
    if (p >= kLocator && std::memcmp(eocd - kLocator, "PK\x06\x07", 4) == 0 &&
        read_at(little_endian(eocd - kLocator + 8, 8), record, kEocd64) && std::memcmp(record, "PK\x06\x06", 4) == 0) {
      members = little_endian(record + 32, 8);
      directory_bytes = little_endian(record + 40, 8);
    }
    claim.members = std::max(claim.members, members);
    claim.directory_bytes = std::max(claim.directory_bytes, directory_bytes);
  }
  return claim;
}

// Takes ownership of `src`.
std::vector<NpyArray> read_archive(zip_source_t* src, uint64_t archive_size, const std::string& what) {
  const DirectoryClaim claim = claimed_directory(src, archive_size);
  const uint64_t limit = memory_limit();
  uint64_t needed = 0;
  if (__builtin_mul_overflow(claim.members, kMemoryPerMember, &needed) ||
      __builtin_add_overflow(needed, claim.directory_bytes, &needed) || needed > limit) {
    zip_source_free(src);
    fail_file(what, "the archive lists " + std::to_string(claim.members) + " members in a central directory of " +
                        std::to_string(claim.directory_bytes) + " bytes; opening it would take more than the memory "
                        "limit of " + std::to_string(limit) + " bytes (set EDGEC_MEMORY_LIMIT to change it)");
  }
  zip_error_t err;
  zip_error_init(&err);
  zip_t* za = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &err);
  if (za == nullptr) {
    zip_source_free(src);
    const std::string reason = zip_message(&err);
    zip_error_fini(&err);
    fail_file(what, "not a valid .npz (zip) archive: " + reason);
  }
  zip_error_fini(&err);
  ArchiveCloser closer{za};
  const zip_int64_t n = zip_get_num_entries(za, 0);
  if (n < 0) fail_file(what, "cannot list the archive's members");
  std::vector<NpyArray> arrays;
  std::set<std::string, std::less<>> seen;
  uint64_t read_bytes = 0;  // cannot wrap: each array is checked against the limit with those before it
  for (zip_int64_t i = 0; i < n; ++i) {
    NpyArray a = read_member(za, static_cast<zip_uint64_t>(i), archive_size, read_bytes, what);
    read_bytes += a.data.size();
    if (!seen.insert(a.name).second) fail_array(what, a.name, "appears twice in the archive");
    arrays.push_back(std::move(a));
  }
  return arrays;
}

}  // namespace

// ---------------------------------------------------------------------------
// NpyArray

int64_t NpyArray::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Tensor NpyArray::view() {
  Tensor t = std::as_const(*this).view();
  t.data = data.data();
  t.capacity = data.size();
  return t;
}

Tensor NpyArray::view() const {
  if (shape.size() > static_cast<size_t>(kMaxRank)) {
    throw IoError("array '" + printable(name) + "': rank " + std::to_string(shape.size()) +
                  " exceeds the maximum rank " + std::to_string(kMaxRank));
  }
  return make_tensor(dtype, shape, const_cast<std::byte*>(data.data()), 0);
}

NpyArray NpyArray::from_tensor(std::string name, const Tensor& tensor) {
  NpyArray a;
  a.name = std::move(name);
  a.dtype = tensor.dtype;
  a.shape.assign(tensor.sizes.begin(), tensor.sizes.begin() + tensor.rank);
  const size_t esz = dtype_size(tensor.dtype);
  const int64_t n = tensor.numel();
  a.data.resize(static_cast<size_t>(n) * esz);
  if (n == 0) return a;
  const auto* src = static_cast<const std::byte*>(tensor.data);
  if (tensor.is_contiguous()) {
    std::memcpy(a.data.data(), src, a.data.size());
    return a;
  }
  std::array<int64_t, kMaxRank> index{};
  int64_t offset = 0;
  for (int64_t k = 0; k < n; ++k) {
    std::memcpy(a.data.data() + k * esz, src + offset * static_cast<int64_t>(esz), esz);
    for (int d = tensor.rank - 1; d >= 0; --d) {
      if (++index[d] < tensor.sizes[d]) {
        offset += tensor.strides[d];
        break;
      }
      offset -= tensor.strides[d] * (index[d] - 1);
      index[d] = 0;
    }
  }
  return a;
}

// ---------------------------------------------------------------------------
// public functions

NpyArray parse_npy(std::span<const std::byte> bytes, const std::string& what,
                   const std::string& name) {
  size_t pos = 0;
  auto read = [&](void* dst, uint64_t n) {
    if (n > bytes.size() - pos) fail_array(what, name, "truncated .npy");
    std::memcpy(dst, bytes.data() + pos, n);
    pos += n;
  };
  uint64_t consumed = 0;
  NpyHeader h = read_npy_header(read, bytes.size(), consumed, what, name);
  check_memory_limit(h, 0, bytes.size(), "the .npy has", what, name);
  return read_npy_body(read, h, name);
}

std::vector<NpyArray> read_npz(const std::string& path) {
  // Opened once, without blocking on a FIFO (refused, as is any other
  // non-regular file); libzip reads the same descriptor.
  struct stat sb;
  std::string why;
  const int fd = open_regular_file(path, &sb, &why);
  if (fd < 0) fail_file(path, why);
  FILE* file = ::fdopen(fd, "rb");
  if (file == nullptr) {
    const std::string reason = std::strerror(errno);
    ::close(fd);
    fail_file(path, "cannot open: " + reason);
  }
  struct FileCloser {
    FILE* file;
    ~FileCloser() {
      if (file) std::fclose(file);
    }
  } closer{file};
  if (sb.st_size == 0) fail_file(path, "not a valid .npz (zip) archive: the file is empty");
  // A lone .npy is a common mistake; say so rather than "not a zip archive".
  char magic[kNpyMagicLen] = {};
  const ssize_t got = ::pread(fd, magic, sizeof magic, 0);
  if (got == static_cast<ssize_t>(kNpyMagicLen) && std::memcmp(magic, kNpyMagic, kNpyMagicLen) == 0) {
    fail_file(path, "is a single .npy array, not an .npz archive; save it with np.savez(path, name=array)");
  }
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* src = zip_source_filep_create(file, 0, 0, &err);
  if (src == nullptr) {
    const std::string reason = zip_message(&err);
    zip_error_fini(&err);
    fail_file(path, "cannot open: " + reason);
  }
  closer.file = nullptr;  // the source closes it
  zip_error_fini(&err);
  return read_archive(src, static_cast<uint64_t>(sb.st_size), path);
}

std::vector<NpyArray> read_npz_bytes(std::span<const std::byte> bytes, const std::string& what) {
  if (bytes.empty()) fail_file(what, "not a valid .npz (zip) archive: no bytes");
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* src = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &err);
  if (src == nullptr) {
    const std::string reason = zip_message(&err);
    zip_error_fini(&err);
    fail_file(what, "cannot read: " + reason);
  }
  zip_error_fini(&err);
  return read_archive(src, bytes.size(), what);
}

}  // namespace edgec::io

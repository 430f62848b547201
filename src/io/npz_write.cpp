// Writing .npy and .npz (io/npz.h): numpy's own header bytes and alignment,
// each array checked before anything is written, archives built whole in
// memory and written to a temporary name, then renamed.
#include <zip.h>

#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "io/npz.h"
#include "io/npz_format.h"
#include "io/pending_files.h"

namespace edgec::io {
using namespace npz_format;
namespace {

std::string npy_header_bytes(const NpyArray& a, int& version) {
  std::string dict = std::string("{'descr': '") + npy_descr(a.dtype) +
                     "', 'fortran_order': False, 'shape': " + shape_repr(a.shape) + ", }";
  // numpy leaves room to grow the first axis in place; we match its bytes.
  if (!a.shape.empty()) {
    const size_t digits = std::to_string(a.shape[0]).size();
    if (digits < kGrowthAxisMaxDigits) dict.append(kGrowthAxisMaxDigits - digits, ' ');
  }
  for (version = 1; version <= 2; ++version) {
    const size_t len_size = version == 1 ? 2 : 4;
    const size_t hlen = dict.size() + 1;
    const size_t padlen = kArrayAlign - ((kNpyMagicLen + 2 + len_size + hlen) % kArrayAlign);
    const size_t total_hlen = hlen + padlen;
    if (version == 1 && total_hlen > 0xffff) continue;
    std::string out(kNpyMagic, kNpyMagicLen);
    out += static_cast<char>(version);
    out += '\0';
    for (size_t i = 0; i < len_size; ++i) out += static_cast<char>((total_hlen >> (8 * i)) & 0xff);
    out += dict;
    out.append(padlen, ' ');
    out += '\n';
    return out;
  }
  throw IoError("array '" + printable(a.name) + "': .npy header too large");
}

void check_array(const NpyArray& a, const std::string& what) {
  if (a.name.empty()) throw IoError(what + ": an array has an empty name");
  uint64_t n = 1;
  for (int64_t d : a.shape) {
    if (d < 0) fail_array(what, a.name, "negative dimension in shape " + shape_repr(a.shape));
    if (d != 0 && n > UINT64_MAX / static_cast<uint64_t>(d)) {
      fail_array(what, a.name, "shape " + shape_repr(a.shape) + " overflows");
    }
    n *= static_cast<uint64_t>(d);
  }
  if (n > UINT64_MAX / dtype_size(a.dtype) || n * dtype_size(a.dtype) != a.data.size()) {
    fail_array(what, a.name, "holds " + std::to_string(a.data.size()) + " bytes, but shape " +
                                 shape_repr(a.shape) + " of " + std::string(dtype_name(a.dtype)) +
                                 " needs " + std::to_string(n * dtype_size(a.dtype)));
  }
}

// Builds the archive in memory and hands it to `sink` in chunks.
void build_npz(const std::vector<NpyArray>& arrays, const std::string& what,
               const std::function<void(const std::byte*, size_t)>& sink) {
  std::set<std::string, std::less<>> names;
  for (const NpyArray& a : arrays) {
    check_array(a, what);
    if (!names.insert(a.name).second) fail_array(what, a.name, "appears twice");
  }
  if (arrays.empty()) {
    // libzip writes nothing at all for an empty archive; numpy writes an
    // end-of-central-directory record alone, which every reader accepts.
    std::byte eocd[22] = {};
    const unsigned char sig[4] = {'P', 'K', 5, 6};
    std::memcpy(eocd, sig, 4);
    sink(eocd, sizeof eocd);
    return;
  }

  std::vector<std::string> headers(arrays.size());
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* out = zip_source_buffer_create(nullptr, 0, 0, &err);
  if (out == nullptr) fail_file(what, "cannot create an in-memory archive: " + zip_message(&err));
  zip_source_keep(out);  // we read the finished archive back from it
  struct SourceFree {
    zip_source_t* s;
    ~SourceFree() { zip_source_free(s); }
  } out_free{out};
  zip_t* za = zip_open_from_source(out, ZIP_CREATE | ZIP_TRUNCATE, &err);
  if (za == nullptr) {
    zip_source_free(out);  // the reference zip_open_from_source did not take
    fail_file(what, "cannot create an in-memory archive: " + zip_message(&err));
  }
  zip_error_fini(&err);

  auto fail_zip = [&](const std::string& doing) {
    const std::string reason = zip_message(zip_get_error(za));
    zip_discard(za);
    fail_file(what, doing + ": " + reason);
  };
  for (size_t i = 0; i < arrays.size(); ++i) {
    const NpyArray& a = arrays[i];
    int version = 1;
    headers[i] = npy_header_bytes(a, version);
    // The fragments point at our data; libzip only reads them (the cast is
    // because its fragment struct is shared with writable buffers).
    zip_buffer_fragment_t frags[2] = {
        {reinterpret_cast<zip_uint8_t*>(headers[i].data()), headers[i].size()},
        {reinterpret_cast<zip_uint8_t*>(const_cast<std::byte*>(a.data.data())), a.data.size()}};
    const zip_uint64_t nfrags = a.data.empty() ? 1 : 2;
    zip_source_t* member = zip_source_buffer_fragment(za, frags, nfrags, 0);
    if (member == nullptr) fail_zip("array '" + printable(a.name) + "'");
    const zip_int64_t idx = zip_file_add(za, (a.name + ".npy").c_str(), member, ZIP_FL_ENC_UTF_8);
    if (idx < 0) {
      zip_source_free(member);
      fail_zip("array '" + printable(a.name) + "'");
    }
    const auto uidx = static_cast<zip_uint64_t>(idx);
    // 1980-01-01 00:00, like numpy's zipfile default: output depends only on the arrays.
    constexpr zip_uint16_t kDosTime = 0, kDosDate = (0 << 9) | (1 << 5) | 1;
    if (zip_set_file_compression(za, uidx, ZIP_CM_STORE, 0) != 0 ||
        zip_file_set_dostime(za, uidx, kDosTime, kDosDate, 0) != 0 ||
        zip_file_set_external_attributes(za, uidx, 0, ZIP_OPSYS_UNIX, 0100644u << 16) != 0) {
      fail_zip("array '" + printable(a.name) + "'");
    }
  }
  if (zip_close(za) != 0) fail_zip("cannot finish the archive");

  if (zip_source_open(out) != 0) {
    fail_file(what, "cannot read back the archive: " + zip_message(zip_source_error(out)));
  }
  std::vector<std::byte> chunk(1 << 20);
  while (true) {
    const zip_int64_t got = zip_source_read(out, chunk.data(), chunk.size());
    if (got < 0) {
      zip_source_close(out);
      fail_file(what, "cannot read back the archive: " + zip_message(zip_source_error(out)));
    }
    if (got == 0) break;
    sink(chunk.data(), static_cast<size_t>(got));
  }
  zip_source_close(out);
}

}  // namespace

std::vector<std::byte> serialize_npy(const NpyArray& array) {
  check_array(array, "serialize_npy");
  int version = 1;
  const std::string header = npy_header_bytes(array, version);
  std::vector<std::byte> out(header.size() + array.data.size());
  std::memcpy(out.data(), header.data(), header.size());
  if (!array.data.empty()) std::memcpy(out.data() + header.size(), array.data.data(), array.data.size());
  return out;
}

std::vector<std::byte> serialize_npz(const std::vector<NpyArray>& arrays) {
  std::vector<std::byte> out;
  build_npz(arrays, "serialize_npz", [&](const std::byte* p, size_t n) { out.insert(out.end(), p, p + n); });
  return out;
}

void write_npz(const std::string& path, const std::vector<NpyArray>& arrays) {
  // Build first: an invalid array must not leave even a temporary file.
  std::vector<std::byte> bytes;
  build_npz(arrays, path, [&](const std::byte* p, size_t n) { bytes.insert(bytes.end(), p, p + n); });

  write_file_atomically(path, bytes);
}

}  // namespace edgec::io

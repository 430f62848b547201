// .npy/.npz reading and writing, checked against numpy itself (files numpy
// writes, files numpy reads back) and against corrupt input.
#include "io/npz.h"
#include "support/scoped_memory_limit.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace edgec::io {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using namespace std::string_view_literals;

constexpr const char* kPython = "/usr/bin/python3";

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "edgec_npz_XXXXXX").string();
    char* made = ::mkdtemp(tmpl.data());
    if (made == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = made;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Runs a Python script with Debian's numpy; returns its exit status.
int run_python(const TempDir& dir, const std::string& script) {
  const std::string path = dir.file("script.py");
  std::ofstream(path) << script;
  const std::string cmd = std::string(kPython) + " " + path + " " + dir.path().string();
  return std::system(cmd.c_str());
}

std::vector<std::byte> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  if (!chars.empty()) std::memcpy(out.data(), chars.data(), chars.size());
  return out;
}

void write_bytes(const std::string& path, std::span<const std::byte> bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::byte> to_bytes(std::string_view s) {
  std::vector<std::byte> out(s.size());
  if (!s.empty()) std::memcpy(out.data(), s.data(), s.size());
  return out;
}

// An array whose bytes follow a pattern, so that a reordering shows.
NpyArray make_array(std::string name, DType dtype, std::vector<int64_t> shape) {
  NpyArray a;
  a.name = std::move(name);
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.data.resize(static_cast<size_t>(a.numel()) * dtype_size(dtype));
  for (size_t i = 0; i < a.data.size(); ++i) {
    a.data[i] = static_cast<std::byte>(dtype == DType::Bool ? (i * 7 + 3) % 5 % 2 : (i * 37 + 11) & 0xff);
  }
  return a;
}

void expect_same(const NpyArray& got, const NpyArray& want) {
  EXPECT_EQ(got.name, want.name);
  EXPECT_EQ(got.dtype, want.dtype) << want.name;
  EXPECT_EQ(got.shape, want.shape) << want.name;
  EXPECT_TRUE(got.data == want.data) << want.name;
}

// A .npy with a hand-written header (the dict text is padded like numpy's).
std::vector<std::byte> npy_with_header(const std::string& dict, std::string_view data,
                                       int major = 1) {
  std::string header = dict + "\n";
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  const size_t len = header.size();
  out += static_cast<char>(len & 0xff);
  out += static_cast<char>((len >> 8) & 0xff);
  if (major >= 2) {
    out += static_cast<char>((len >> 16) & 0xff);
    out += static_cast<char>((len >> 24) & 0xff);
  }
  out += header;
  out += data;
  return to_bytes(out);
}

/// A .npy of dtype `descr` and `shape` (as the header writes it: "(2, 3)")
/// holding `data`.
std::vector<std::byte> npy_of(const std::string& descr, const std::string& shape, std::string_view data,
                              int major = 1) {
  return npy_with_header("{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }", data, major);
}

std::string error_of_npy(std::span<const std::byte> bytes) {
  try {
    parse_npy(bytes, "t.npy", "x");
  } catch (const IoError& e) {
    return e.what();
  }
  return "<no error>";
}

std::string error_of_npz(std::span<const std::byte> bytes) {
  try {
    read_npz_bytes(bytes, "in.npz");
  } catch (const IoError& e) {
    return e.what();
  }
  return "<no error>";
}

const std::vector<DType> kAllDTypes = {DType::Float32, DType::Float16, DType::Int64,  DType::Int32,
                                       DType::Int8,    DType::UInt8,   DType::Bool,   DType::Float64,
                                       DType::Int16,   DType::UInt16,  DType::UInt32, DType::UInt64};

// ---------------------------------------------------------------------------
// round trips

TEST(Npz, RoundTripsEveryDTypeAndShape) {
  const std::vector<std::vector<int64_t>> shapes = {{}, {0}, {5}, {2, 3}, {2, 0, 4}, {1, 2, 1, 3}};
  std::vector<NpyArray> arrays;
  for (DType d : kAllDTypes) {
    for (size_t s = 0; s < shapes.size(); ++s) {
      arrays.push_back(make_array(std::string(dtype_name(d)) + "_" + std::to_string(s), d, shapes[s]));
    }
  }
  const std::vector<NpyArray> back = read_npz_bytes(serialize_npz(arrays), "mem");
  ASSERT_EQ(back.size(), arrays.size());
  for (size_t i = 0; i < arrays.size(); ++i) expect_same(back[i], arrays[i]);

  TempDir dir;
  write_npz(dir.file("a.npz"), arrays);
  const std::vector<NpyArray> from_file = read_npz(dir.file("a.npz"));
  ASSERT_EQ(from_file.size(), arrays.size());
  for (size_t i = 0; i < arrays.size(); ++i) expect_same(from_file[i], arrays[i]);
}

TEST(Npz, NpyRoundTrip) {
  for (DType d : kAllDTypes) {
    const NpyArray a = make_array("x", d, {3, 4});
    expect_same(parse_npy(serialize_npy(a), "t.npy", "x"), a);
  }
}

TEST(Npz, EmptyArchiveRoundTrips) {
  EXPECT_TRUE(read_npz_bytes(serialize_npz({}), "mem").empty());
}

TEST(Npz, OutputIsByteIdenticalForIdenticalInput) {
  const std::vector<NpyArray> arrays = {make_array("b", DType::Float32, {4, 4}),
                                        make_array("a", DType::Int64, {3})};
  const auto first = serialize_npz(arrays);
  const auto second = serialize_npz(arrays);
  EXPECT_TRUE(first == second);
  // Members keep the order given, not a sorted one.
  const auto back = read_npz_bytes(first, "mem");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].name, "b");
  EXPECT_EQ(back[1].name, "a");

  TempDir dir;
  write_npz(dir.file("1.npz"), arrays);
  write_npz(dir.file("2.npz"), arrays);
  EXPECT_TRUE(read_bytes(dir.file("1.npz")) == read_bytes(dir.file("2.npz")));
  EXPECT_TRUE(read_bytes(dir.file("1.npz")) == first);
}

TEST(Npz, ViewAndFromTensor) {
  NpyArray a = make_array("x", DType::Int32, {2, 3});
  Tensor t = a.view();
  EXPECT_EQ(t.rank, 2);
  EXPECT_EQ(t.sizes[0], 2);
  EXPECT_EQ(t.sizes[1], 3);
  EXPECT_EQ(t.strides[0], 3);
  EXPECT_EQ(t.capacity, a.data.size());
  EXPECT_EQ(t.data, a.data.data());
  EXPECT_EQ(std::as_const(a).view().capacity, 0u);

  // A transposed view comes back contiguous in its own (transposed) order.
  Tensor tt = t;
  std::swap(tt.sizes[0], tt.sizes[1]);
  std::swap(tt.strides[0], tt.strides[1]);
  const NpyArray c = NpyArray::from_tensor("y", tt);
  EXPECT_EQ(c.shape, (std::vector<int64_t>{3, 2}));
  const auto* src = reinterpret_cast<const int32_t*>(a.data.data());
  const auto* dst = reinterpret_cast<const int32_t*>(c.data.data());
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) EXPECT_EQ(dst[i * 2 + j], src[j * 3 + i]);

  NpyArray big = make_array("z", DType::Int8, std::vector<int64_t>(kMaxRank + 1, 1));
  EXPECT_THROW(big.view(), IoError);
}

// ---------------------------------------------------------------------------
// interoperability with numpy

// numpy writes every supported dtype, 0-d and empty arrays, Fortran-order
// arrays, compressed archives and .npy format 2.0/3.0 members; a manifest and
// raw C-order bytes say what each array must read as.
TEST(Npz, ReadsWhatNumpyWrites) {
  TempDir dir;
  const std::string script = R"PY(
import sys, os, zipfile, io
import numpy as np
out = sys.argv[1]
rng = np.random.default_rng(0)
arrays = {
  'f32': rng.standard_normal((2, 3)).astype(np.float32),
  'f16': rng.standard_normal((4,)).astype(np.float16),
  'i64': np.arange(-6, 6, dtype=np.int64).reshape(3, 4),
  'i32': np.arange(24, dtype=np.int32).reshape(2, 3, 4),
  'i8': np.array([-128, -1, 0, 127], dtype=np.int8),
  'u8': np.array([[0, 255], [7, 9]], dtype=np.uint8),
  'b': np.array([True, False, True]),
  'f64': np.array([0.1, -1e300, 5e-324, np.nan]),
  'i16': np.array([-32768, -1, 32767], dtype=np.int16),
  'u16': np.array([0, 65535], dtype=np.uint16),
  'u32': np.array([[0, 4294967295]], dtype=np.uint32),
  'u64': np.array([0, 2**64 - 1, 2**63], dtype=np.uint64),
  'scalar': np.array(3.5, dtype=np.float32),
  'empty': np.zeros((2, 0, 3), dtype=np.int32),
  'fortran': np.asfortranarray(np.arange(24, dtype=np.float32).reshape(2, 3, 4)),
  'fortran2': np.asfortranarray(np.arange(6, dtype=np.int64).reshape(2, 3)),
  'special': np.array([np.nan, np.inf, -np.inf, -0.0], dtype=np.float32),
}
np.savez(os.path.join(out, 'plain.npz'), **arrays)
np.savez_compressed(os.path.join(out, 'compressed.npz'), **arrays)
# Format versions 2.0 and 3.0 members, written by numpy's own writer.
with zipfile.ZipFile(os.path.join(out, 'versions.npz'), 'w') as z:
  for name, version in [('v2', (2, 0)), ('v3', (3, 0))]:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arrays['i32'], version=version)
    z.writestr(name + '.npy', buf.getvalue())
with open(os.path.join(out, 'manifest.txt'), 'w') as m:
  for name, a in arrays.items():
    np.ascontiguousarray(a).tofile(os.path.join(out, name + '.raw'))
    m.write('%s %s %s\n' % (name, a.dtype.str, ' '.join(map(str, a.shape))))
np.save(os.path.join(out, 'single.npy'), arrays['i32'])
)PY";
  ASSERT_EQ(run_python(dir, script), 0);

  struct Expected {
    std::string dtype_str;
    std::vector<int64_t> shape;
    std::vector<std::byte> raw;
  };
  std::map<std::string, Expected> expected;
  std::ifstream manifest(dir.file("manifest.txt"));
  std::string line;
  while (std::getline(manifest, line)) {
    std::istringstream ls(line);
    std::string name;
    Expected e;
    ls >> name >> e.dtype_str;
    for (int64_t d; ls >> d;) e.shape.push_back(d);
    e.raw = read_bytes(dir.file(name + ".raw"));
    expected[name] = e;
  }
  ASSERT_EQ(expected.size(), 17u);
  const std::map<std::string, DType> dtypes = {
      {"<f4", DType::Float32}, {"<f2", DType::Float16}, {"<i8", DType::Int64},  {"<i4", DType::Int32},
      {"|i1", DType::Int8},    {"|u1", DType::UInt8},   {"|b1", DType::Bool},   {"<f8", DType::Float64},
      {"<i2", DType::Int16},   {"<u2", DType::UInt16},  {"<u4", DType::UInt32}, {"<u8", DType::UInt64}};

  for (const char* file : {"plain.npz", "compressed.npz"}) {
    SCOPED_TRACE(file);
    const auto arrays = read_npz(dir.file(file));
    ASSERT_EQ(arrays.size(), expected.size());
    for (const NpyArray& a : arrays) {
      ASSERT_TRUE(expected.count(a.name)) << a.name;
      const Expected& e = expected[a.name];
      EXPECT_EQ(a.dtype, dtypes.at(e.dtype_str)) << a.name;
      EXPECT_EQ(a.shape, e.shape) << a.name;
      EXPECT_TRUE(a.data == e.raw) << a.name;
    }
    // The same bytes through the in-memory reader.
    EXPECT_EQ(read_npz_bytes(read_bytes(dir.file(file)), file).size(), expected.size());
  }

  const auto versions = read_npz(dir.file("versions.npz"));
  ASSERT_EQ(versions.size(), 2u);
  for (const NpyArray& a : versions) {
    EXPECT_EQ(a.dtype, DType::Int32) << a.name;
    EXPECT_EQ(a.shape, expected["i32"].shape) << a.name;
    EXPECT_TRUE(a.data == expected["i32"].raw) << a.name;
  }

  // serialize_npy writes exactly what np.save writes.
  NpyArray i32;
  i32.name = "i32";
  i32.dtype = DType::Int32;
  i32.shape = expected["i32"].shape;
  i32.data = expected["i32"].raw;
  EXPECT_TRUE(serialize_npy(i32) == read_bytes(dir.file("single.npy")));
  EXPECT_THAT(error_of_npz(std::vector<std::byte>{}), HasSubstr("no bytes"));
  try {
    read_npz(dir.file("single.npy"));
    ADD_FAILURE() << "a lone .npy was accepted as an .npz";
  } catch (const IoError& e) {
    EXPECT_THAT(e.what(), HasSubstr("single .npy array, not an .npz"));
  }
}

TEST(Npz, NumpyReadsWhatWeWrite) {
  TempDir dir;
  std::vector<NpyArray> arrays;
  for (DType d : kAllDTypes) arrays.push_back(make_array(std::string(dtype_name(d)), d, {2, 3}));
  arrays.push_back(make_array("scalar", DType::Float32, {}));
  arrays.push_back(make_array("empty", DType::Int64, {0, 4}));
  write_npz(dir.file("ours.npz"), arrays);
  // numpy re-saves what it read; the bytes must match ours exactly.
  for (const NpyArray& a : arrays) write_bytes(dir.file(a.name + ".npy"), serialize_npy(a));
  const std::string script = R"PY(
import sys, os
import numpy as np
out = sys.argv[1]
z = np.load(os.path.join(out, 'ours.npz'))
names = ['f32', 'f16', 'i64', 'i32', 'i8', 'u8', 'bool', 'f64', 'i16', 'u16', 'u32', 'u64', 'scalar', 'empty']
assert list(z.keys()) == names, list(z.keys())
for name in names:
  ours = np.load(os.path.join(out, name + '.npy'))
  a = z[name]
  assert a.dtype == ours.dtype and a.shape == ours.shape, name
  assert a.tobytes() == ours.tobytes(), name
  with open(os.path.join(out, name + '.npy'), 'rb') as f:
    import io
    buf = io.BytesIO()
    np.save(buf, a)
    assert buf.getvalue() == f.read(), name
assert z['scalar'].shape == () and z['empty'].shape == (0, 4)
assert z['bool'].dtype == np.bool_ and z['f16'].dtype == np.float16
assert [z[n].dtype.str for n in ('f64', 'i16', 'u16', 'u32', 'u64')] == ['<f8', '<i2', '<u2', '<u4', '<u8']
)PY";
  EXPECT_EQ(run_python(dir, script), 0);
}

// ---------------------------------------------------------------------------
// header variants numpy may write (or accept)

TEST(Npz, AcceptsHeaderSpellings) {
  const std::string four_floats(16, '\0');
  for (const char* descr : {"<f4", "=f4", "f4"}) {
    const auto a = parse_npy(npy_of(descr, "(4,)", four_floats), "t.npy", "x");
    EXPECT_EQ(a.dtype, DType::Float32) << descr;
  }
  for (const char* descr : {"|u1", "<u1", "=u1", ">u1"}) {
    const auto a = parse_npy(
        npy_with_header(std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (2,)}", "ab"),
        "t.npy", "x");
    EXPECT_EQ(a.dtype, DType::UInt8) << descr;
  }
  for (const char* descr : {"|i1", "<i1", "=i1"}) {
    const auto a = parse_npy(
        npy_with_header(std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (2,)}", "ab"),
        "t.npy", "x");
    EXPECT_EQ(a.dtype, DType::Int8) << descr;
  }
  for (const char* descr : {"|b1", "?", "<b1"}) {
    const auto a = parse_npy(
        npy_with_header(std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (1,)}",
                        std::string(1, '\1')),
        "t.npy", "x");
    EXPECT_EQ(a.dtype, DType::Bool) << descr;
  }
  // Keys in another order, double quotes, Python 2 longs, no trailing comma.
  const auto b = parse_npy(
      npy_with_header("{\"shape\": (2L, 1L), \"fortran_order\": False, \"descr\": \"<i8\"}",
                      std::string(16, '\0')),
      "t.npy", "x");
  EXPECT_EQ(b.shape, (std::vector<int64_t>{2, 1}));
  // Format 2.0 and 3.0 headers.
  for (int major : {2, 3}) {
    const auto c = parse_npy(npy_of("<i4", "()", std::string(4, '\0'), major), "t.npy", "x");
    EXPECT_TRUE(c.shape.empty());
  }
}

TEST(Npz, ConvertsFortranOrder) {
  // Column-major [[0, 1, 2], [3, 4, 5]] is stored 0 3 1 4 2 5.
  const std::string data = {0, 3, 1, 4, 2, 5};
  const auto a = parse_npy(
      npy_with_header("{'descr': '|i1', 'fortran_order': True, 'shape': (2, 3), }", data), "t.npy", "x");
  ASSERT_EQ(a.data.size(), 6u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(static_cast<int>(a.data[i]), i);
  // Empty and 1-d Fortran arrays are already C order.
  EXPECT_TRUE(parse_npy(npy_with_header("{'descr': '|i1', 'fortran_order': True, 'shape': (3, 0), }", ""),
                        "t.npy", "x")
                  .data.empty());
}

// ---------------------------------------------------------------------------
// refused and corrupt input

TEST(Npz, RefusesUnsupportedDTypesWithAHint) {
  EXPECT_EQ(error_of_npy(npy_of("<f16", "(1,)", std::string(16, '\0'))),
            "t.npy: array 'x': unsupported dtype '<f16' (float128); expected one of f32, f16, f64, i64, i32, "
            "i16, i8, u64, u32, u16, u8, bool \xe2\x80\x94 convert with .astype(np.float32)");
  EXPECT_THAT(error_of_npy(npy_of("<c8", "(1,)", std::string(8, '\0'))),
              HasSubstr("(complex64); expected one of"));
  EXPECT_THAT(error_of_npy(npy_of("|O", "(1,)", std::string(8, '\0'))),
              HasSubstr("unsupported dtype '|O' (Python object)"));
  EXPECT_THAT(error_of_npy(npy_of("<U3", "(1,)", std::string(12, '\0'))),
              HasSubstr("unicode string"));
  EXPECT_THAT(error_of_npy(npy_of(">f4", "(1,)", std::string(4, '\0'))),
              HasSubstr("big-endian dtype '>f4' is not supported; convert with .astype('<f4')"));
  EXPECT_THAT(error_of_npy(npy_with_header(
                  "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", std::string(4, '\0'))),
              HasSubstr("structured dtypes are not supported"));
}

TEST(Npz, RefusesBadHeaders) {
  const std::string f4 = std::string(4, '\0');
  struct BadHeader {
    std::string dict;
    std::string message;
  };
  const std::vector<BadHeader> cases = {
      {"{'descr': '<f4', 'fortran_order': False}", "expected keys 'descr', 'fortran_order' and 'shape'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}", "unexpected key 'extra'"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", "duplicate key 'descr'"},
      {"{'descr': '<f4', 'fortran_order': maybe, 'shape': (1,)}", "expected True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}", "expected a non-negative integer"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", "overflows int64"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} junk", "unexpected text after"},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': (1,)}", "bad .npy header"},
      {"not a dict", "expected '{'"},
      {"", "expected '{'"},
  };
  for (const BadHeader& c : cases) {
    EXPECT_THAT(error_of_npy(npy_with_header(c.dict, f4)), HasSubstr(c.message)) << c.dict;
  }
  // Shape and data disagree.
  EXPECT_THAT(error_of_npy(npy_of("<f4", "(2, 3)", std::string(20, '\0'))),
              HasSubstr("data size mismatch: shape (2, 3) of f32 needs 24 bytes, the .npy has 20"));
  EXPECT_THAT(error_of_npy(npy_of("<f4", "(1,)", std::string(8, '\0'))),
              HasSubstr("needs 4 bytes, the .npy has 8"));
  // A shape whose byte size overflows is refused before any allocation.
  EXPECT_THAT(error_of_npy(npy_of("<i8", "(4294967296, 4294967296)", "")),
              HasSubstr("too large"));
  // Zero anywhere makes it empty, however large the rest.
  EXPECT_TRUE(parse_npy(npy_with_header("{'descr': '<i8', 'fortran_order': False, "
                                        "'shape': (0, 9223372036854775807, 9223372036854775807), }",
                                        ""),
                        "t.npy", "x")
                  .data.empty());
  // Magic and version.
  EXPECT_THAT(error_of_npy(to_bytes("\x93NUMPZ\x01\x00\x10\x00{}"sv)), HasSubstr("missing the \\x93NUMPY magic"));
  auto v4 = npy_of("<f4", "(1,)", f4);
  v4[6] = std::byte{4};
  EXPECT_THAT(error_of_npy(v4), HasSubstr("unsupported .npy format version 4.0"));
  EXPECT_THAT(error_of_npy(to_bytes("\x93NUMPY\x01")), HasSubstr("shorter than the header"));
  auto long_header = to_bytes("\x93NUMPY\x02\x00\xff\xff\xff\x7f"sv);
  EXPECT_THAT(error_of_npy(long_header), HasSubstr("exceeds the"));
}

TEST(Npz, RefusesEveryTruncationOfAValidArchive) {
  const std::vector<NpyArray> arrays = {make_array("a", DType::Float32, {3, 5}),
                                        make_array("b", DType::Int8, {7})};
  const auto whole = serialize_npz(arrays);
  for (size_t len = 0; len < whole.size(); ++len) {
    const std::span<const std::byte> prefix(whole.data(), len);
    EXPECT_THAT(error_of_npz(prefix), HasSubstr("in.npz: ")) << "length " << len;
  }
  // And of a .npy.
  const auto npy = serialize_npy(arrays[0]);
  for (size_t len = 0; len < npy.size(); ++len) {
    EXPECT_THAT(error_of_npy(std::span<const std::byte>(npy.data(), len)), HasSubstr("t.npy: array 'x': "))
        << "length " << len;
  }
}

TEST(Npz, RefusesJunkAndNonNpyMembers) {
  EXPECT_THAT(error_of_npz(to_bytes("this is not a zip file at all, just some text")),
              HasSubstr("in.npz: not a valid .npz (zip) archive"));
  TempDir dir;
  const std::string script = R"PY(
import sys, os, zipfile, io
import numpy as np
out = sys.argv[1]
with zipfile.ZipFile(os.path.join(out, 'notes.npz'), 'w') as z:
  z.writestr('notes.txt', 'hello')
with zipfile.ZipFile(os.path.join(out, 'junk.npz'), 'w') as z:
  z.writestr('x.npy', 'definitely not an array')
with zipfile.ZipFile(os.path.join(out, 'bzip.npz'), 'w', compression=zipfile.ZIP_BZIP2) as z:
  buf = io.BytesIO(); np.save(buf, np.zeros(3, np.float32)); z.writestr('x.npy', buf.getvalue())
np.savez(os.path.join(out, 'f128.npz'), obs=np.zeros(3, np.longdouble))
np.savez(os.path.join(out, 'big_endian.npz'), obs=np.zeros(3, dtype='>i4'))
)PY";
  ASSERT_EQ(run_python(dir, script), 0);
  auto error_of_file = [&](const std::string& name) -> std::string {
    try {
      read_npz(dir.file(name));
    } catch (const IoError& e) {
      return e.what();
    }
    return "<no error>";
  };
  EXPECT_THAT(error_of_file("notes.npz"), HasSubstr("member 'notes.txt' is not a .npy array"));
  EXPECT_THAT(error_of_file("junk.npz"), HasSubstr("junk.npz: array 'x': not a .npy: missing the"));
  EXPECT_THAT(error_of_file("bzip.npz"), HasSubstr("unsupported zip compression method 12"));
  EXPECT_EQ(error_of_file("f128.npz"),
            dir.file("f128.npz") +
                ": array 'obs': unsupported dtype '<f16' (float128); expected one of f32, f16, f64, i64, i32, "
                "i16, i8, u64, u32, u16, u8, bool \xe2\x80\x94 convert with .astype(np.float32)");
  EXPECT_THAT(error_of_file("big_endian.npz"), HasSubstr("array 'obs': big-endian dtype '>i4'"));
  EXPECT_THAT(error_of_file("missing.npz"), HasSubstr("missing.npz: cannot open: No such file"));
  EXPECT_THAT(error_of_file("."), HasSubstr(": expected a regular file, got a directory"));
  // A FIFO is refused at once, not waited on.
  ASSERT_EQ(::mkfifo(dir.file("fifo.npz").c_str(), 0600), 0);
  EXPECT_THAT(error_of_file("fifo.npz"), HasSubstr("fifo.npz: expected a regular file, got a FIFO"));
  write_bytes(dir.file("empty.npz"), {});
  EXPECT_THAT(error_of_file("empty.npz"), HasSubstr("the file is empty"));
}

TEST(Npz, CorruptDataFailsTheCrc) {
  const auto whole = serialize_npz({make_array("a", DType::Float32, {64})});
  auto corrupt = whole;
  corrupt[200] ^= std::byte{0x01};  // inside a's data (header is 128 + local header)
  EXPECT_THAT(error_of_npz(corrupt), HasSubstr("array 'a'"));
}

// Random byte flips, insertions and truncations of valid archives (stored and
// deflated) either read or fail with IoError: never crash, hang or overread
// (run under EDGEC_SANITIZE to check the last).
TEST(Npz, SurvivesRandomCorruption) {
  TempDir dir;
  ASSERT_EQ(run_python(dir, R"PY(
import sys, os
import numpy as np
np.savez_compressed(os.path.join(sys.argv[1], 'c.npz'), a=np.arange(100, dtype=np.float32).reshape(10, 10),
                    b=np.ones((3, 0), np.int8))
)PY"),
            0);
  const std::vector<std::vector<std::byte>> seeds = {
      serialize_npz({make_array("a", DType::Float32, {4, 5}), make_array("b", DType::Bool, {3})}),
      read_bytes(dir.file("c.npz"))};
  std::mt19937 rng(1234);
  int ok = 0, failed = 0;
  for (const auto& seed : seeds) {
    for (int iter = 0; iter < 3000; ++iter) {
      auto bytes = seed;
      const int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits; ++e) {
        const size_t pos = rng() % bytes.size();
        switch (rng() % 4) {
          case 0: bytes[pos] = static_cast<std::byte>(rng()); break;
          case 1: bytes[pos] ^= static_cast<std::byte>(1u << (rng() % 8)); break;
          case 2: bytes.insert(bytes.begin() + static_cast<ptrdiff_t>(pos), static_cast<std::byte>(rng())); break;
          case 3: bytes.resize(std::max<size_t>(1, pos)); break;
        }
      }
      try {
        read_npz_bytes(bytes, "fuzz");
        ++ok;
      } catch (const IoError& e) {
        EXPECT_THAT(e.what(), HasSubstr("fuzz: "));
        ++failed;
      }
    }
  }
  EXPECT_GT(failed, 0);
}

// ---------------------------------------------------------------------------
// sizes against the memory limit (issue 14): every size an archive records
// or a header claims is checked before anything is allocated or inflated

uint32_t crc32_of(std::string_view data) {
  static const auto table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
      t[i] = c;
    }
    return t;
  }();
  uint32_t crc = 0xffffffffu;
  for (unsigned char c : data) crc = table[(crc ^ c) & 0xff] ^ (crc >> 8);
  return ~crc;
}

void put_le(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

/// put_le of each {value, bytes} of `fields`, in order.
void put_le(std::string& out, std::initializer_list<std::pair<uint64_t, int>> fields) {
  for (const auto& [v, bytes] : fields) put_le(out, v, bytes);
}

/// `data` as deflate "stored" blocks (no compression, so a test can say
/// exactly what a member inflates to); `final` ends the stream.
std::string deflate_stored(std::string_view data, bool final) {
  std::string out;
  do {
    const size_t n = std::min<size_t>(data.size(), 0xffff);
    const bool last = final && n == data.size();
    out += static_cast<char>(last ? 1 : 0);  // BFINAL, BTYPE 00
    put_le(out, n, 2);
    put_le(out, ~n & 0xffff, 2);
    out.append(data.substr(0, n));
    data.remove_prefix(n);
  } while (!data.empty());
  return out;
}

/// `n` zeros as one final deflate block with the fixed Huffman codes: a
/// literal 0, then matches of 258 bytes at distance 1 (13 bits each, about
/// 160:1), then literals for the rest. A small stream that inflates to a lot.
std::string deflate_zeros(uint64_t n) {
  std::string out;
  uint32_t bits = 0;
  int used = 0;
  auto put = [&](uint32_t v, int count) {  // LSB first
    for (int i = 0; i < count; ++i) {
      bits |= ((v >> i) & 1u) << used;
      if (++used == 8) {
        out += static_cast<char>(bits);
        bits = 0;
        used = 0;
      }
    }
  };
  auto put_code = [&](uint32_t code, int count) {  // Huffman codes MSB first
    for (int i = count - 1; i >= 0; --i) put((code >> i) & 1u, 1);
  };
  put(1, 1);  // BFINAL
  put(1, 2);  // BTYPE 01: fixed codes
  uint64_t left = n;
  if (left > 0) {
    put_code(0x30, 8);  // literal 0
    --left;
  }
  for (; left >= 258; left -= 258) {
    put_code(0xc5, 8);  // length symbol 285: 258
    put_code(0, 5);     // distance symbol 0: 1
  }
  for (; left > 0; --left) put_code(0x30, 8);
  put_code(0, 7);  // end of block
  if (used > 0) out += static_cast<char>(bits);
  return out;
}

/// One member of a hand-built archive: the stored bytes (deflated for
/// method 8) and the uncompressed size and CRC the zip entry records, which
/// a test may set to disagree with them.
struct RawMember {
  std::string name;
  uint16_t method = 0;
  std::string stored;
  uint64_t size = 0;
  uint32_t crc = 0;
};

/// A zip (no zip64) of `members`, local and central headers consistent.
std::vector<std::byte> build_zip(const std::vector<RawMember>& members) {
  std::string out, central;
  for (const RawMember& m : members) {
    const uint64_t offset = out.size();
    auto common = [&](std::string& h) {
      put_le(h, 20, 2);  // version needed
      put_le(h, 0, 2);   // flags
      put_le(h, m.method, 2);
      put_le(h, 0, 2);  // time
      put_le(h, (1 << 5) | 1, 2);  // date 1980-01-01
      put_le(h, m.crc, 4);
      put_le(h, m.stored.size(), 4);
      put_le(h, m.size, 4);
      put_le(h, m.name.size(), 2);
      put_le(h, 0, 2);  // extra length
    };
    out += "PK\x03\x04";
    common(out);
    out += m.name;
    out += m.stored;
    central += "PK\x01\x02";
    put_le(central, 20, 2);  // version made by
    common(central);
    put_le(central, 0, 2);  // comment length
    put_le(central, 0, 2);  // disk
    put_le(central, 0, 2);  // internal attributes
    put_le(central, 0, 4);  // external attributes
    put_le(central, offset, 4);
    central += m.name;
  }
  const uint64_t central_offset = out.size();
  out += central;
  out += "PK\x05\x06";
  put_le(out, 0, 4);
  put_le(out, members.size(), 2);
  put_le(out, members.size(), 2);
  put_le(out, central.size(), 4);
  put_le(out, central_offset, 4);
  put_le(out, 0, 2);
  return to_bytes(out);
}

/// The .npy header numpy writes for `shape` of uint8 (a tuple's text).
std::string npy_header_u8(const std::string& shape) {
  const auto bytes = npy_with_header("{'descr': '|u1', 'fortran_order': False, 'shape': " + shape + ", }", "");
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// The hand-built archives are what libzip and numpy read, when their sizes
// agree: a stored and a deflated member.
TEST(Npz, HandBuiltArchivesRead) {
  const std::string npy = npy_header_u8("(5,)") + "abcde";
  const auto bytes = build_zip({{"s.npy", 0, npy, npy.size(), crc32_of(npy)},
                                {"d.npy", 8, deflate_stored(npy, true), npy.size(), crc32_of(npy)}});
  const auto arrays = read_npz_bytes(bytes, "in.npz");
  ASSERT_EQ(arrays.size(), 2u);
  for (const NpyArray& a : arrays) {
    EXPECT_EQ(a.shape, std::vector<int64_t>{5});
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(a.data.data()), a.data.size()), "abcde");
  }
}

// A deflated member of 16 MiB of zeros (a 100 KB stream), its header and
// zip entry agreeing, is refused under a 1 MiB limit once its header is
// inflated and before its data is; under 32 MiB it reads. (A 6 GB member
// was refused only once 5.7 GiB were resident.)
TEST(Npz, DeflatedMemberOverTheMemoryLimitIsRefusedBeforeInflating) {
  const uint64_t n = uint64_t{16} << 20;
  const std::string header = npy_header_u8("(" + std::to_string(n) + ",)");
  const std::string data = header + std::string(n, '\0');
  const auto bytes =
      build_zip({{"x.npy", 8, deflate_stored(header, false) + deflate_zeros(n), data.size(), crc32_of(data)}});
  {
    const ScopedMemoryLimit limit("32MiB");
    const auto arrays = read_npz_bytes(bytes, "in.npz");
    ASSERT_EQ(arrays.size(), 1u);
    EXPECT_EQ(arrays[0].data.size(), n);
  }
  const ScopedMemoryLimit limit("1MiB");
  EXPECT_EQ(error_of_npz(bytes),
            "in.npz: array 'x': shape (16777216,) of u8 needs 16777216 bytes (its zip entry records 16777291 bytes), "
            "more than the memory limit of 1048576 bytes (set EDGEC_MEMORY_LIMIT to change it)");
}

// The same for a stored member, and for members that each fit but not
// together (the arrays are all kept).
TEST(Npz, StoredMembersOverTheMemoryLimitAreRefused) {
  const auto one = serialize_npz({make_array("a", DType::UInt8, {2 << 20})});
  {
    const ScopedMemoryLimit limit("1MiB");
    EXPECT_EQ(error_of_npz(one),
              "in.npz: array 'a': shape (2097152,) of u8 needs 2097152 bytes (its zip entry records 2097280 bytes), "
              "more than the memory limit of 1048576 bytes (set EDGEC_MEMORY_LIMIT to change it)");
  }
  const auto two = serialize_npz({make_array("a", DType::Float32, {150000}), make_array("b", DType::Int32, {150000})});
  const ScopedMemoryLimit limit("1MiB");
  EXPECT_EQ(error_of_npz(two),
            "in.npz: array 'b': shape (150000,) of i32 needs 600000 bytes (its zip entry records 600128 bytes), "
            "which with the 600000 bytes of the arrays before it is more than the memory limit of 1048576 bytes "
            "(set EDGEC_MEMORY_LIMIT to change it)");
  EXPECT_EQ(read_npz_bytes(serialize_npz({make_array("a", DType::Float32, {150000})}), "in.npz").size(), 1u);
}

// A deflated member that inflates to more than its entry records is
// refused as that, after exactly the recorded bytes (no more are inflated).
TEST(Npz, MemberInflatingPastItsRecordedSizeIsRefused) {
  const std::string npy = npy_header_u8("(5,)") + "abcde";
  const std::string longer = npy + "12345";
  const auto bytes = build_zip({{"x.npy", 8, deflate_stored(longer, true), npy.size(), crc32_of(npy)}});
  EXPECT_EQ(error_of_npz(bytes), "in.npz: array 'x': member inflates to more than the 73 bytes its zip entry records");
}

// A lone .npy is held to the limit too: its data, and its header length.
TEST(Npz, NpyOverTheMemoryLimitIsRefused) {
  const auto npy = npy_of("|u1", "(300,)", std::string(300, 'x'));
  {
    const ScopedMemoryLimit limit("256");
    EXPECT_EQ(error_of_npy(npy),
              "t.npy: array 'x': shape (300,) of u8 needs 300 bytes (the .npy has 370 bytes), more than the memory "
              "limit of 256 bytes (set EDGEC_MEMORY_LIMIT to change it)");
  }
  const ScopedMemoryLimit limit("32");
  EXPECT_EQ(error_of_npy(npy),
            "t.npy: array 'x': header of 60 bytes exceeds the memory limit of 32 bytes (set EDGEC_MEMORY_LIMIT to "
            "change it)");
}

// The number of members an archive lists is checked before libzip opens
// it: libzip allocates its entries from the count first (a 4 KiB sparse
// file listing 2^24 members took 500 MB before it was found to hold none).
TEST(Npz, ArchiveListingTooManyMembersIsRefusedBeforeOpening) {
  // 65535 members in a 22-byte archive, with a 1 MiB limit.
  std::string eocd = "PK\x05\x06";
  put_le(eocd, {{0, 4}, {0xffff, 2}, {0xffff, 2}, {0, 4}, {0, 4}, {0, 2}});
  {
    const ScopedMemoryLimit limit("1MiB");
    EXPECT_EQ(error_of_npz(to_bytes(eocd)),
              "in.npz: the archive lists 65535 members in a central directory of 0 bytes; opening it would take "
              "more than the memory limit of 1048576 bytes (set EDGEC_MEMORY_LIMIT to change it)");
  }
  // 2^22 members through zip64 records, their central directory (193 MB)
  // a hole in a sparse file, with a 64 MiB limit.
  TempDir dir;
  const uint64_t members = uint64_t{1} << 22, directory = 46 * members;
  std::string tail = "PK\x06\x06";
  put_le(tail, {{44, 8}, {45, 2}, {45, 2}, {0, 4}, {0, 4}, {members, 8}, {members, 8}, {directory, 8}, {0, 8}});
  tail += "PK\x06\x07";
  put_le(tail, {{0, 4}, {directory, 8}, {1, 4}});  // directory: where the zip64 record starts
  tail += "PK\x05\x06";
  for (int i = 0; i < 4; ++i) put_le(tail, 0xffff, 2);
  put_le(tail, {{0xffffffffu, 4}, {0xffffffffu, 4}, {0, 2}});
  const std::string path = dir.file("many.npz");
  {
    std::ofstream out(path, std::ios::binary);
    out.seekp(static_cast<std::streamoff>(directory));
    out << tail;
  }
  const ScopedMemoryLimit limit("64MiB");
  try {
    read_npz(path);
    ADD_FAILURE() << "no error";
  } catch (const IoError& e) {
    EXPECT_EQ(std::string(e.what()),
              path + ": the archive lists 4194304 members in a central directory of 192937984 bytes; opening it "
                     "would take more than the memory limit of 67108864 bytes (set EDGEC_MEMORY_LIMIT to change it)");
  }
}

// libzip 1.7.3 fills only the count modulo 2^32 of a zip_fread past 4 GiB
// from a deflated member, so a valid 4.6 GB member was refused as "longer
// than its recorded size". Takes 4.5 GB of memory and about 11 s (CI's
// machines have 24 GiB); it runs in every suite, none skips it.
TEST(Npz, ReadsADeflatedMemberPast4GiB) {
  TempDir dir;
  ASSERT_EQ(run_python(dir, R"PY(
import sys, os, zipfile
import numpy as np
n = 4600000000
hdr = "{'descr': '|u1', 'fortran_order': False, 'shape': (%d,), }" % n
hdr += ' ' * (64 - (10 + len(hdr) + 1) % 64) + '\n'
with zipfile.ZipFile(os.path.join(sys.argv[1], 'big.npz'), 'w', zipfile.ZIP_DEFLATED, compresslevel=1) as z:
  with z.open('x.npy', 'w', force_zip64=True) as f:
    f.write(b'\x93NUMPY\x01\x00' + len(hdr).to_bytes(2, 'little') + hdr.encode())
    chunk = bytes(1 << 24)
    for i in range(0, n, len(chunk)):
      f.write(chunk[:min(len(chunk), n - i)])
)PY"),
            0);
  const auto arrays = read_npz(dir.file("big.npz"));
  ASSERT_EQ(arrays.size(), 1u);
  EXPECT_EQ(arrays[0].data.size(), 4600000000u);
}

// ---------------------------------------------------------------------------
// writing

TEST(Npz, WriteIsAtomic) {
  TempDir dir;
  const std::string path = dir.file("out.npz");
  const std::vector<NpyArray> good = {make_array("a", DType::Int32, {2})};
  write_npz(path, good);
  const auto before = read_bytes(path);

  // An invalid array: nothing written, the old file is intact, no temp left.
  NpyArray bad = make_array("b", DType::Int32, {3});
  bad.data.pop_back();
  try {
    write_npz(path, {bad});
    ADD_FAILURE() << "no error";
  } catch (const IoError& e) {
    EXPECT_THAT(e.what(), HasSubstr("array 'b': holds 11 bytes, but shape (3,) of i32 needs 12"));
  }
  EXPECT_THROW(write_npz(path, {good[0], good[0]}), IoError);  // duplicate name
  NpyArray unnamed = good[0];
  unnamed.name.clear();
  EXPECT_THROW(write_npz(path, {unnamed}), IoError);
  // A path that is a folder: the rename fails and the temporary is removed.
  fs::create_directory(dir.file("folder.npz"));
  EXPECT_THROW(write_npz(dir.file("folder.npz"), good), IoError);

  EXPECT_TRUE(read_bytes(path) == before);
  int entries = 0;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    (void)entry;
    ++entries;
  }
  EXPECT_EQ(entries, 2) << "temporary files were left behind";

  // A missing folder.
  try {
    write_npz(dir.file("no/such/dir/out.npz"), good);
    ADD_FAILURE() << "no error";
  } catch (const IoError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot create file"));
  }
  // Replacing an existing file works.
  write_npz(path, {make_array("c", DType::Bool, {5})});
  EXPECT_EQ(read_npz(path).at(0).name, "c");
}

}  // namespace
}  // namespace edgec::io

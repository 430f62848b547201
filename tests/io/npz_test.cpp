// .npy/.npz reading and writing, checked against numpy itself (files numpy
// writes, files numpy reads back) and against corrupt input; archives built
// by hand and the memory limit: npz_archive_test.cpp.
#include "npz_test_support.h"

namespace edgec::io {
namespace {

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

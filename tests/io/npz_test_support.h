// Helpers of the .npy/.npz tests (npz_test.cpp, npz_archive_test.cpp): a
// temporary folder, numpy through Debian's Python, arrays to compare, and
// the error a read of some bytes raises.
#pragma once

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
inline int run_python(const TempDir& dir, const std::string& script) {
  const std::string path = dir.file("script.py");
  std::ofstream(path) << script;
  const std::string cmd = std::string(kPython) + " " + path + " " + dir.path().string();
  return std::system(cmd.c_str());
}

inline std::vector<std::byte> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  if (!chars.empty()) std::memcpy(out.data(), chars.data(), chars.size());
  return out;
}

inline void write_bytes(const std::string& path, std::span<const std::byte> bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

inline std::vector<std::byte> to_bytes(std::string_view s) {
  std::vector<std::byte> out(s.size());
  if (!s.empty()) std::memcpy(out.data(), s.data(), s.size());
  return out;
}

// An array whose bytes follow a pattern, so that a reordering shows.
inline NpyArray make_array(std::string name, DType dtype, std::vector<int64_t> shape) {
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

inline void expect_same(const NpyArray& got, const NpyArray& want) {
  EXPECT_EQ(got.name, want.name);
  EXPECT_EQ(got.dtype, want.dtype) << want.name;
  EXPECT_EQ(got.shape, want.shape) << want.name;
  EXPECT_TRUE(got.data == want.data) << want.name;
}

// A .npy with a hand-written header (the dict text is padded like numpy's).
inline std::vector<std::byte> npy_with_header(const std::string& dict, std::string_view data,
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
inline std::vector<std::byte> npy_of(const std::string& descr, const std::string& shape, std::string_view data,
                              int major = 1) {
  return npy_with_header("{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }", data, major);
}

inline std::string error_of_npy(std::span<const std::byte> bytes) {
  try {
    parse_npy(bytes, "t.npy", "x");
  } catch (const IoError& e) {
    return e.what();
  }
  return "<no error>";
}

inline std::string error_of_npz(std::span<const std::byte> bytes) {
  try {
    read_npz_bytes(bytes, "in.npz");
  } catch (const IoError& e) {
    return e.what();
  }
  return "<no error>";
}

inline const std::vector<DType> kAllDTypes = {DType::Float32, DType::Float16, DType::Int64,  DType::Int32,
                                       DType::Int8,    DType::UInt8,   DType::Bool,   DType::Float64,
                                       DType::Int16,   DType::UInt16,  DType::UInt32, DType::UInt64};

}  // namespace
}  // namespace edgec::io

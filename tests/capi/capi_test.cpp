// The C API (include/edgec/edgec.h, libedgec_c.so): loading from a path and
// from memory, metadata with symbolic and dynamic dims, bind / execute /
// read, every error path with its message, and that execute does not
// allocate. The programs are compiled here with the compiler library; the C
// API is reached only through libedgec_c.so (its own copy of the runtime).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "compiler/pipeline.h"
#include "edgec/edgec.h"
#include "ir/text.h"

// Counts every allocation through operator new in this process (libedgec_c.so
// included: its operator new resolves to these).
static std::atomic<long> g_allocations{0};
void* operator new(size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t n) { return operator new(n); }
void* operator new(size_t n, std::align_val_t a) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  const size_t al = static_cast<size_t>(a);
  const size_t rounded = n > SIZE_MAX - al ? 0 : (n / al + 1) * al;  // a multiple of al, never 0
  if (void* p = rounded == 0 ? nullptr : std::aligned_alloc(al, rounded)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t n, std::align_val_t a) { return operator new(n, a); }
// The nothrow forms too (std::stable_sort's temporary buffer uses them):
// every form that reaches the delete below must allocate with malloc, or
// ASan reports the mismatch.
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(n == 0 ? 1 : n);
}
void* operator new[](size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void* operator new(size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  try {
    return operator new(n, a);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](size_t n, std::align_val_t a, const std::nothrow_t& t) noexcept { return operator new(n, a, t); }
// Out of line, so that GCC does not pair an inlined free with an operator
// new call (-Wmismatched-new-delete).
#define EDGEC_DELETE(...) \
  __attribute__((noinline)) void operator delete(__VA_ARGS__) noexcept { std::free(p); }
EDGEC_DELETE(void* p)
EDGEC_DELETE(void* p, size_t)
EDGEC_DELETE(void* p, std::align_val_t)
EDGEC_DELETE(void* p, size_t, std::align_val_t)
EDGEC_DELETE(void* p, const std::nothrow_t&)
EDGEC_DELETE(void* p, std::align_val_t, const std::nothrow_t&)
#define EDGEC_DELETE_ARRAY(...) \
  __attribute__((noinline)) void operator delete[](__VA_ARGS__) noexcept { std::free(p); }
EDGEC_DELETE_ARRAY(void* p)
EDGEC_DELETE_ARRAY(void* p, size_t)
EDGEC_DELETE_ARRAY(void* p, std::align_val_t)
EDGEC_DELETE_ARRAY(void* p, size_t, std::align_val_t)
EDGEC_DELETE_ARRAY(void* p, const std::nothrow_t&)
EDGEC_DELETE_ARRAY(void* p, std::align_val_t, const std::nothrow_t&)

namespace {

// y = sin(x * w) + 2c over a symbolic batch (at most 4), and the columns of
// y that the mask (an input) picks: a dynamic dim, at most 3.
constexpr const char* kProgram = R"(
program dialect = "aten"
signature {
  input user_input %x target = "x"
  input user_input %mask target = "mask"
  input constant %w target = "w"
  input constant %c target = "c"
  output user_output %y target = "y"
  output user_output %picked target = "picked"
}
graph {
  %x = placeholder : f32[batch<=4, 3]
  %mask = placeholder : bool[3]
  %w = placeholder : f32[3]
  %c = placeholder : f32[3]
  %cc = aten.add.Tensor(%c, %c) : f32[3]
  %xw = aten.mul.Tensor(%x, %w) : f32[batch<=4, 3]
  %s = aten.sin.default(%xw) : f32[batch<=4, 3]
  %y = aten.add.Tensor(%s, %cc) : f32[batch<=4, 3]
  %nz = aten.nonzero.default(%mask) : i64[?<=3, 1]
  %idx = aten.squeeze.default(%nz, dims = [1]) : i64[?<=3]
  %picked = aten.take.default(%y, %idx, dim = 1) : f32[batch<=4, ?<=3]
  output(%y, %picked)
}
constants {
  "w" = dense<[1.0, -2.0, 0.5]> : f32[3]
  "c" = dense<[0.25, 0.5, 0.75]> : f32[3]
}
)";
constexpr float kW[3] = {1.0f, -2.0f, 0.5f};
constexpr float kC[3] = {0.25f, 0.5f, 0.75f};
constexpr uint8_t kMask[3] = {1, 0, 1};  // picks columns 0 and 2

std::vector<std::byte> compile_text(const char* text, const char* backends) {
  auto p = edgec::parse_program(text, "capi.ir");
  edgec::compile_program(*p, {}, backends);
  return edgec::serialize_program(*p);
}

class CApi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    bytes_ = new std::vector<std::byte>(compile_text(kProgram, ""));
    path_ = new std::string(testing::TempDir() + "capi_test_" + std::to_string(::getpid()) + ".edgec");
    std::ofstream(*path_, std::ios::binary).write(reinterpret_cast<const char*>(bytes_->data()),
                                                  static_cast<std::streamsize>(bytes_->size()));
  }
  static void TearDownTestSuite() {
    std::remove(path_->c_str());
    delete bytes_;
    delete path_;
  }
  void SetUp() override {
    ASSERT_EQ(edgec_program_load(path_->c_str(), &program_), EDGEC_OK) << edgec_last_error();
    ASSERT_EQ(edgec_method_create(program_, 1, &method_), EDGEC_OK) << edgec_last_error();
  }
  void TearDown() override {
    edgec_method_free(method_);
    edgec_program_free(program_);
  }
  // Expects `status` == `want` and the last error to contain each of `parts`.
  static void expect_error(edgec_status status, edgec_status want, std::vector<std::string> parts) {
    EXPECT_EQ(status, want) << edgec_status_name(status) << ": " << edgec_last_error();
    for (const std::string& part : parts)
      EXPECT_NE(std::string(edgec_last_error()).find(part), std::string::npos)
          << "'" << part << "' not in: " << edgec_last_error();
  }
  static std::vector<std::byte>* bytes_;
  static std::string* path_;
  edgec_program* program_ = nullptr;
  edgec_method* method_ = nullptr;
};
std::vector<std::byte>* CApi::bytes_ = nullptr;
std::string* CApi::path_ = nullptr;

// Binds x ([batch, 3], filled from `seed`), executes and checks y and picked.
void run_and_check(edgec_method* m, int64_t batch, float seed) {
  std::vector<float> x(static_cast<size_t>(batch) * 3);
  for (size_t i = 0; i < x.size(); ++i) x[i] = seed + 0.1f * static_cast<float>(i);
  const int64_t shape[2] = {batch, 3};
  ASSERT_EQ(edgec_method_set_input(m, 0, x.data(), EDGEC_FLOAT32, shape, 2), EDGEC_OK) << edgec_last_error();
  const int64_t mask_shape[1] = {3};
  ASSERT_EQ(edgec_method_set_input(m, 1, kMask, EDGEC_BOOL, mask_shape, 1), EDGEC_OK) << edgec_last_error();
  ASSERT_EQ(edgec_method_execute(m), EDGEC_OK) << edgec_last_error();
  edgec_tensor y{}, picked{};
  ASSERT_EQ(edgec_method_output(m, 0, &y), EDGEC_OK) << edgec_last_error();
  ASSERT_EQ(edgec_method_output(m, 1, &picked), EDGEC_OK) << edgec_last_error();
  ASSERT_EQ(y.dtype, EDGEC_FLOAT32);
  ASSERT_EQ(y.rank, 2);
  EXPECT_EQ(y.shape[0], batch);
  EXPECT_EQ(y.shape[1], 3);
  EXPECT_EQ(y.is_contiguous, 1);
  EXPECT_EQ(y.nbytes, static_cast<size_t>(batch) * 3 * sizeof(float));
  ASSERT_EQ(picked.rank, 2);
  EXPECT_EQ(picked.shape[0], batch);
  EXPECT_EQ(picked.shape[1], 2);
  const float* yd = static_cast<const float*>(y.data);
  const float* pd = static_cast<const float*>(picked.data);
  for (int64_t r = 0; r < batch; ++r) {
    for (int64_t c = 0; c < 3; ++c) {
      const float want = std::sin(x[static_cast<size_t>(r * 3 + c)] * kW[c]) + 2 * kC[c];
      EXPECT_NEAR(yd[r * 3 + c], want, 1e-5f) << r << "," << c;
    }
    EXPECT_EQ(pd[r * 2 + 0], yd[r * 3 + 0]);
    EXPECT_EQ(pd[r * 2 + 1], yd[r * 3 + 2]);
  }
}

TEST(CApiVersion, MatchesTheHeader) {
  EXPECT_EQ(edgec_abi_version(), EDGEC_ABI_VERSION);
  const std::string v = std::to_string(EDGEC_VERSION_MAJOR) + "." + std::to_string(EDGEC_VERSION_MINOR) + "." +
                        std::to_string(EDGEC_VERSION_PATCH);
  EXPECT_EQ(edgec_version_string(), v);
  EXPECT_STREQ(edgec_status_name(EDGEC_ERROR_INVALID_SHAPE), "InvalidShape");
  EXPECT_EQ(edgec_dtype_size(EDGEC_FLOAT16), 2u);
  EXPECT_EQ(edgec_dtype_size(static_cast<edgec_dtype>(99)), 0u);
  EXPECT_STREQ(edgec_dtype_name(EDGEC_INT64), "i64");
  EXPECT_STREQ(edgec_dtype_name(static_cast<edgec_dtype>(-1)), "?");
}

TEST_F(CApi, Metadata) {
  ASSERT_EQ(edgec_program_num_inputs(program_), 2u);
  ASSERT_EQ(edgec_program_num_outputs(program_), 2u);
  edgec_tensor_info in{};
  ASSERT_EQ(edgec_program_input_info(program_, 0, &in), EDGEC_OK);
  EXPECT_STREQ(in.name, "x");
  EXPECT_EQ(in.dtype, EDGEC_FLOAT32);
  ASSERT_EQ(in.rank, 2);
  EXPECT_EQ(in.dims[0].kind, EDGEC_DIM_SYMBOLIC);
  EXPECT_STREQ(in.dims[0].symbol, "batch");
  EXPECT_EQ(in.dims[0].bound, 4);
  EXPECT_EQ(in.dims[0].size, -1);
  EXPECT_EQ(in.dims[1].kind, EDGEC_DIM_STATIC);
  EXPECT_EQ(in.dims[1].size, 3);
  EXPECT_EQ(in.dims[1].symbol, nullptr);
  ASSERT_EQ(edgec_program_input_info(program_, 1, &in), EDGEC_OK);
  EXPECT_STREQ(in.name, "mask");
  EXPECT_EQ(in.dtype, EDGEC_BOOL);
  ASSERT_EQ(in.rank, 1);
  EXPECT_EQ(in.dims[0].size, 3);
  edgec_tensor_info y{}, picked{};
  ASSERT_EQ(edgec_program_output_info(program_, 0, &y), EDGEC_OK);
  ASSERT_EQ(edgec_program_output_info(program_, 1, &picked), EDGEC_OK);
  EXPECT_STREQ(y.name, "y");
  EXPECT_STREQ(picked.name, "picked");
  ASSERT_EQ(picked.rank, 2);
  EXPECT_EQ(picked.dims[0].kind, EDGEC_DIM_SYMBOLIC);
  EXPECT_EQ(picked.dims[1].kind, EDGEC_DIM_DYNAMIC);
  EXPECT_EQ(picked.dims[1].bound, 3);
  EXPECT_EQ(picked.dims[1].symbol, nullptr);
  size_t index = 99;
  ASSERT_EQ(edgec_program_find_input(program_, "mask", &index), EDGEC_OK);
  EXPECT_EQ(index, 1u);
  ASSERT_EQ(edgec_program_find_output(program_, "picked", &index), EDGEC_OK);
  EXPECT_EQ(index, 1u);
  expect_error(edgec_program_find_output(program_, "z", &index), EDGEC_ERROR_NOT_FOUND,
               {"no output named 'z'", "'y', 'picked'"});
  expect_error(edgec_program_input_info(program_, 2, &in), EDGEC_ERROR_INVALID_ARGUMENT,
               {"input index 2 out of range", "2 input(s)"});
  expect_error(edgec_program_output_info(program_, 2, &in), EDGEC_ERROR_INVALID_ARGUMENT, {"output index 2"});
  expect_error(edgec_program_input_info(nullptr, 0, &in), EDGEC_ERROR_INVALID_ARGUMENT, {"null"});
  EXPECT_EQ(edgec_program_num_inputs(nullptr), 0u);
}

TEST_F(CApi, BindExecuteRead) {
  run_and_check(method_, 2, 0.5f);
  // New sizes for the symbol, then back: the same method runs each.
  run_and_check(method_, 4, -1.0f);
  run_and_check(method_, 1, 2.0f);
  // By name, as by index.
  const float x[3] = {1, 2, 3};
  const int64_t shape[2] = {1, 3};
  ASSERT_EQ(edgec_method_set_input_by_name(method_, "x", x, EDGEC_FLOAT32, shape, 2), EDGEC_OK);
  const uint8_t mask[3] = {0, 0, 1};
  const int64_t mask_shape[1] = {3};
  ASSERT_EQ(edgec_method_set_input_by_name(method_, "mask", mask, EDGEC_BOOL, mask_shape, 1), EDGEC_OK);
  ASSERT_EQ(edgec_method_execute(method_), EDGEC_OK) << edgec_last_error();
  edgec_tensor y{};
  ASSERT_EQ(edgec_method_output(method_, 0, &y), EDGEC_OK);
  EXPECT_NEAR(static_cast<const float*>(y.data)[2], std::sin(3.0f * 0.5f) + 1.5f, 1e-5f);
  edgec_tensor picked{};
  ASSERT_EQ(edgec_method_output(method_, 1, &picked), EDGEC_OK);
  ASSERT_EQ(picked.rank, 2);
  EXPECT_EQ(picked.shape[1], 1);  // a new mask, a new size
  EXPECT_EQ(static_cast<const float*>(picked.data)[0], static_cast<const float*>(y.data)[2]);
}

TEST_F(CApi, LoadsFromMemoryAndOnTheOnednnOrPortableKernels) {
  // An unaligned copy: the API copies it into aligned memory of its own.
  std::vector<std::byte> unaligned(bytes_->size() + 1);
  std::copy(bytes_->begin(), bytes_->end(), unaligned.begin() + 1);
  edgec_program* p = nullptr;
  ASSERT_EQ(edgec_program_load_from_memory(unaligned.data() + 1, bytes_->size(), &p), EDGEC_OK)
      << edgec_last_error();
  unaligned.assign(unaligned.size(), std::byte{0});  // the program keeps its own copy
  edgec_method* m = nullptr;
  ASSERT_EQ(edgec_method_create(p, 2, &m), EDGEC_OK) << edgec_last_error();
  run_and_check(m, 3, 0.25f);
  edgec_method_free(m);
  edgec_program_free(p);
  // The portable kernels alone.
  const std::vector<std::byte> portable = compile_text(kProgram, "none");
  ASSERT_EQ(edgec_program_load_from_memory(portable.data(), portable.size(), &p), EDGEC_OK) << edgec_last_error();
  ASSERT_EQ(edgec_method_create(p, 1, &m), EDGEC_OK) << edgec_last_error();
  run_and_check(m, 2, 1.5f);
  edgec_method_free(m);
  edgec_program_free(p);
}

TEST_F(CApi, ExecuteDoesNotAllocate) {
  std::vector<float> x(12, 0.5f);
  const int64_t shape[2] = {4, 3};
  const int64_t mask_shape[1] = {3};
  ASSERT_EQ(edgec_method_set_input(method_, 0, x.data(), EDGEC_FLOAT32, shape, 2), EDGEC_OK);
  ASSERT_EQ(edgec_method_set_input(method_, 1, kMask, EDGEC_BOOL, mask_shape, 1), EDGEC_OK);
  ASSERT_EQ(edgec_method_execute(method_), EDGEC_OK) << edgec_last_error();  // warm up
  edgec_tensor y{};
  const long before = g_allocations.load();
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(edgec_method_set_input(method_, 0, x.data(), EDGEC_FLOAT32, shape, 2), EDGEC_OK);
    ASSERT_EQ(edgec_method_set_input(method_, 1, kMask, EDGEC_BOOL, mask_shape, 1), EDGEC_OK);
    ASSERT_EQ(edgec_method_execute(method_), EDGEC_OK);
    ASSERT_EQ(edgec_method_output(method_, 0, &y), EDGEC_OK);
  }
  EXPECT_EQ(g_allocations.load(), before);
  // The counter sees the library's allocations: a failure's message is one.
  EXPECT_EQ(edgec_method_set_input(method_, 0, x.data(), EDGEC_INT32, shape, 2), EDGEC_ERROR_INVALID_TYPE);
  EXPECT_GT(g_allocations.load(), before);
}

TEST_F(CApi, BadFiles) {
  edgec_program* p = reinterpret_cast<edgec_program*>(this);  // set to NULL on failure
  expect_error(edgec_program_load("/nonexistent/m.edgec", &p), EDGEC_ERROR_ACCESS_FAILED,
               {"cannot load /nonexistent/m.edgec"});
  EXPECT_EQ(p, nullptr);
  const std::string garbage_path = testing::TempDir() + "capi_garbage_" + std::to_string(::getpid()) + ".edgec";
  std::ofstream(garbage_path, std::ios::binary) << std::string(256, 'x');
  expect_error(edgec_program_load(garbage_path.c_str(), &p), EDGEC_ERROR_INVALID_PROGRAM, {garbage_path});
  std::remove(garbage_path.c_str());
  EXPECT_EQ(p, nullptr);
  const std::vector<std::byte> truncated(bytes_->begin(), bytes_->begin() + static_cast<long>(bytes_->size() / 2));
  expect_error(edgec_program_load_from_memory(truncated.data(), truncated.size(), &p), EDGEC_ERROR_INVALID_PROGRAM,
               {"cannot load memory"});
  expect_error(edgec_program_load_from_memory(nullptr, 0, &p), EDGEC_ERROR_INVALID_PROGRAM, {"cannot load memory"});
  expect_error(edgec_program_load_from_memory(nullptr, 10, &p), EDGEC_ERROR_INVALID_ARGUMENT, {"null data"});
  expect_error(edgec_program_load(nullptr, &p), EDGEC_ERROR_INVALID_ARGUMENT, {"null path"});
  expect_error(edgec_program_load(path_->c_str(), nullptr), EDGEC_ERROR_INVALID_ARGUMENT, {"null out"});
  // An exception inside (an allocation that fails) is a status, never a throw.
  expect_error(edgec_program_load_from_memory(bytes_->data(), SIZE_MAX - 64, &p), EDGEC_ERROR_OUT_OF_MEMORY,
               {"out of memory"});
  EXPECT_EQ(p, nullptr);
}

TEST_F(CApi, BindingErrorsNameTheInputAndBothShapes) {
  const float x[15] = {};
  const int64_t good[2] = {2, 3};
  const int64_t wrong_static[2] = {2, 4};
  const int64_t over_bound[2] = {5, 3};
  const int64_t rank3[3] = {1, 2, 3};
  expect_error(edgec_method_set_input(method_, 0, x, EDGEC_INT32, good, 2), EDGEC_ERROR_INVALID_TYPE,
               {"input 'x'", "expected f32[batch<=4, 3]", "got i32[2, 3]"});
  expect_error(edgec_method_set_input(method_, 0, x, EDGEC_FLOAT32, wrong_static, 2), EDGEC_ERROR_INVALID_SHAPE,
               {"input 'x'", "expected f32[batch<=4, 3]", "got f32[2, 4]", "dim 1"});
  expect_error(edgec_method_set_input(method_, 0, x, EDGEC_FLOAT32, over_bound, 2), EDGEC_ERROR_INVALID_SHAPE,
               {"input 'x'", "got f32[5, 3]", "dim 0"});
  expect_error(edgec_method_set_input(method_, 0, x, EDGEC_FLOAT32, rank3, 3), EDGEC_ERROR_INVALID_SHAPE,
               {"input 'x'", "got f32[1, 2, 3]", "rank"});
  expect_error(edgec_method_set_input(method_, 2, x, EDGEC_FLOAT32, good, 2), EDGEC_ERROR_INVALID_ARGUMENT,
               {"input index 2 out of range", "2 input(s)"});
  expect_error(edgec_method_set_input_by_name(method_, "obs", x, EDGEC_FLOAT32, good, 2), EDGEC_ERROR_NOT_FOUND,
               {"no input named 'obs'", "'x', 'mask'"});
  expect_error(edgec_method_set_input(method_, 0, x, static_cast<edgec_dtype>(42), good, 2), EDGEC_ERROR_INVALID_TYPE,
               {"unknown dtype 42"});
  expect_error(edgec_method_set_input(method_, 0, x, EDGEC_FLOAT32, good, 9), EDGEC_ERROR_INVALID_SHAPE,
               {"rank 9"});
  expect_error(edgec_method_set_input(method_, 0, x, EDGEC_FLOAT32, good, -1), EDGEC_ERROR_INVALID_SHAPE,
               {"rank -1"});
  expect_error(edgec_method_set_input(method_, 0, x, EDGEC_FLOAT32, nullptr, 2), EDGEC_ERROR_INVALID_ARGUMENT,
               {"null shape"});
  expect_error(edgec_method_set_input(method_, 0, nullptr, EDGEC_FLOAT32, good, 2), EDGEC_ERROR_INVALID_ARGUMENT,
               {"input 'x' has no data"});
  expect_error(edgec_method_set_input(nullptr, 0, x, EDGEC_FLOAT32, good, 2), EDGEC_ERROR_INVALID_ARGUMENT,
               {"null method"});
  expect_error(edgec_method_set_input_by_name(method_, nullptr, x, EDGEC_FLOAT32, good, 2),
               EDGEC_ERROR_INVALID_ARGUMENT, {"null argument"});
}

TEST_F(CApi, ExecuteAndOutputErrors) {
  edgec_tensor t{};
  expect_error(edgec_method_execute(method_), EDGEC_ERROR_INVALID_ARGUMENT, {"input 'x' is not set"});
  expect_error(edgec_method_output(method_, 0, &t), EDGEC_ERROR_INVALID_ARGUMENT, {"no successful execute"});
  expect_error(edgec_method_output(method_, 2, &t), EDGEC_ERROR_INVALID_ARGUMENT,
               {"output index 2 out of range", "2 output(s)"});
  expect_error(edgec_method_output(method_, 0, nullptr), EDGEC_ERROR_INVALID_ARGUMENT, {"null"});
  expect_error(edgec_method_execute(nullptr), EDGEC_ERROR_INVALID_ARGUMENT, {"null method"});
  edgec_method* m = reinterpret_cast<edgec_method*>(this);
  expect_error(edgec_method_create(program_, -1, &m), EDGEC_ERROR_INVALID_ARGUMENT, {"cannot prepare"});
  EXPECT_EQ(m, nullptr);
  expect_error(edgec_method_create(nullptr, 1, &m), EDGEC_ERROR_INVALID_ARGUMENT, {"null program"});
  edgec_method_free(nullptr);
  edgec_program_free(nullptr);
}

TEST_F(CApi, LastErrorIsPerThread) {
  size_t index = 0;
  expect_error(edgec_program_find_input(program_, "here", &index), EDGEC_ERROR_NOT_FOUND, {"'here'"});
  std::string other;
  std::thread([&] {
    EXPECT_STREQ(edgec_last_error(), "");
    EXPECT_EQ(edgec_program_find_input(program_, "there", &index), EDGEC_ERROR_NOT_FOUND);
    other = edgec_last_error();
  }).join();
  EXPECT_NE(other.find("'there'"), std::string::npos) << other;
  EXPECT_NE(std::string(edgec_last_error()).find("'here'"), std::string::npos) << edgec_last_error();
  // A call that succeeds leaves it as it was.
  ASSERT_EQ(edgec_program_find_input(program_, "x", &index), EDGEC_OK);
  EXPECT_NE(std::string(edgec_last_error()).find("'here'"), std::string::npos);
}

// edgec_method_cancel from another thread stops a loop told to run 2^40
// iterations (y = x + trips) with EDGEC_ERROR_CANCELLED; the method then
// runs again with the right outputs. A cancel while nothing runs does not
// stop the next run, and cancelling allocates nothing.
TEST(CApiCancel, AnotherThreadStopsALongLoopAndTheMethodRunsAgain) {
  const auto bytes = compile_text(R"(
program dialect = "edge"
signature {
  input user_input %x target = "x"
  input user_input %trips target = "trips"
  output user_output %y target = "y"
}
graph {
  %x = placeholder : f32[3]
  %trips = placeholder : i64[]
  %go = edge.full.default(shape = [], value = 1.0, dtype = bool) : bool[]
  %y = loop(%trips, %go, [%x], []) : f32[3]
  region {
    %i = placeholder : i64[]
    %c = placeholder : bool[]
    %h = placeholder : f32[3]
    %one = edge.full.default(shape = [], value = 1.0, dtype = f32) : f32[]
    %next = edge.add.Tensor(%h, %one) : f32[3]
    %more = edge.full.default(shape = [], value = 1.0, dtype = bool) : bool[]
    output(%more, %next)
  }
  output(%y)
}
)",
                                  "none");
  edgec_program* program = nullptr;
  edgec_method* method = nullptr;
  ASSERT_EQ(edgec_program_load_from_memory(bytes.data(), bytes.size(), &program), EDGEC_OK) << edgec_last_error();
  ASSERT_EQ(edgec_method_create(program, 1, &method), EDGEC_OK) << edgec_last_error();
  const float x[3] = {1.0f, -2.0f, 0.5f};
  const int64_t shape[1] = {3};
  int64_t trips = 0;
  ASSERT_EQ(edgec_method_set_input_by_name(method, "x", x, EDGEC_FLOAT32, shape, 1), EDGEC_OK);
  ASSERT_EQ(edgec_method_set_input_by_name(method, "trips", &trips, EDGEC_INT64, nullptr, 0), EDGEC_OK);
  auto expect_runs = [&](int64_t n) {
    trips = n;
    ASSERT_EQ(edgec_method_execute(method), EDGEC_OK) << edgec_last_error();
    edgec_tensor y{};
    ASSERT_EQ(edgec_method_output(method, 0, &y), EDGEC_OK);
    ASSERT_EQ(y.nbytes, sizeof x);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(static_cast<const float*>(y.data)[i], x[i] + static_cast<float>(n));
  };
  const long before = g_allocations.load();
  EXPECT_EQ(edgec_method_cancel(method), EDGEC_OK);  // nothing runs: no effect
  EXPECT_EQ(g_allocations.load(), before);
  expect_runs(4);
  EXPECT_EQ(edgec_method_cancel(nullptr), EDGEC_ERROR_INVALID_ARGUMENT);
  for (int round = 0; round < 2; ++round) {
    trips = int64_t{1} << 40;
    // Cancels until the run has returned: one sent before it starts is dropped.
    std::atomic<bool> done{false};
    std::thread canceller([&] {
      while (!done.load()) {
        edgec_method_cancel(method);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
    const edgec_status status = edgec_method_execute(method);
    done = true;
    canceller.join();
    EXPECT_EQ(status, EDGEC_ERROR_CANCELLED) << edgec_last_error();
    EXPECT_STREQ(edgec_status_name(status), "Cancelled");
    EXPECT_NE(std::string(edgec_last_error()).find("cancelled before"), std::string::npos) << edgec_last_error();
    edgec_tensor y{};
    EXPECT_EQ(edgec_method_output(method, 0, &y), EDGEC_ERROR_INVALID_ARGUMENT);  // no outputs from it
    expect_runs(6);
  }
  edgec_method_free(method);
  edgec_program_free(program);
}

}  // namespace

// Concurrent use (issue 7): one loaded Program, executed at once from
// several threads, each with its own Method (its own arena and delegate
// handles), gives the serial run's outputs exactly. `make test-tsan` runs
// this file under ThreadSanitizer.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>

#include "ir/text.h"
#include "compiler/pipeline.h"
#include "runtime/method.h"
#include "serialize/writer.h"
#include "support/aligned_bytes.h"

namespace edgec {
namespace {

// Portable calls, a reference delegate and a data-dependent take: every
// kind of state a Method owns.
constexpr const char* kProgram = R"(
program dialect = "edge"
signature {
  input user_input %x target = "x"
  input constant %w target = "w"
  input constant %mask target = "mask"
  output user_output %y target = "y"
  output user_output %picked target = "picked"
}
graph {
  %x = placeholder : f32[4, 3]
  %w = placeholder : f32[3]
  %mask = placeholder : bool[3]
  %a = edge.mul.Tensor(%x, %w) : f32[4, 3]
  %b = edge.add.Tensor(%a, %x) : f32[4, 3]
  %y = edge.sin.default(%b) : f32[4, 3]
  %nz = edge.nonzero.default(%x) : i64[?<=12, 2]
  %first = edge.select.default(%nz, dim = -1, index = 1) : i64[?<=12]
  %picked = edge.take.default(%y, %first, dim = 1) : f32[4, ?<=12]
  output(%y, %picked)
}
constants {
  "w" = dense<[1.0, -2.0, 0.5]> : f32[3]
  "mask" = dense<[true, false, true]> : bool[3]
}
)";

// Control flow whose path depends on the data (docs/semantics.md §8): a
// cond on the sign of the sum, a loop that stops when the state's sum
// passes a threshold (up to 6 iterations), stacking each state.
constexpr const char* kControlProgram = R"(
program dialect = "edge"
signature {
  input user_input %x target = "x"
  output user_output %y target = "y"
  output user_output %states target = "states"
}
graph {
  %x = placeholder : f32[4, 3]
  %s = edge.sum.default(%x) : f32[]
  %zero = edge.full.default(shape = [], value = 0.0, dtype = f32) : f32[]
  %p = edge.gt.Tensor(%s, %zero) : bool[]
  %y = cond(%p, [%x]) : f32[4, 3]
  region {
    %a = placeholder : f32[4, 3]
    %t = edge.mul.Tensor(%a, %a) : f32[4, 3]
    output(%t)
  }
  region {
    %b = placeholder : f32[4, 3]
    %e = edge.sin.default(%b) : f32[4, 3]
    output(%e)
  }
  %trips = edge.full.default(shape = [], value = 6.0, dtype = i64) : i64[]
  %go = edge.full.default(shape = [], value = 1.0, dtype = bool) : bool[]
  %h, %states = loop(%trips, %go, [%x], [%y]) : f32[4, 3], f32[?<=6, 4, 3]
  region {
    %i = placeholder : i64[]
    %c = placeholder : bool[]
    %hc = placeholder : f32[4, 3]
    %yc = placeholder : f32[4, 3]
    %half = edge.full.default(shape = [], value = 0.5, dtype = f32) : f32[]
    %scaled = edge.mul.Tensor(%hc, %half) : f32[4, 3]
    %next = edge.add.Tensor(%scaled, %yc) : f32[4, 3]
    %total = edge.sum.default(%next) : f32[]
    %limit = edge.full.default(shape = [], value = 8.0, dtype = f32) : f32[]
    %more = edge.lt.Tensor(%total, %limit) : bool[]
    %row = edge.clone.default(%next) : f32[4, 3]
    output(%more, %next, %row)
  }
  output(%y, %states)
}
)";

/// Runs `program` on input pattern `seed`; returns every output's values.
std::vector<float> run(const runtime::Program& program, int seed) {
  auto method = runtime::Method::create(program, 1);
  EXPECT_TRUE(method.ok()) << error_detail();
  if (!method.ok()) return {};
  float x[12];
  for (int i = 0; i < 12; ++i) x[i] = static_cast<float>(((i * 7 + seed) % 5) - 2) * 0.5f;  // some zeros
  const int64_t shape[2] = {4, 3};
  std::vector<float> out;
  for (int rep = 0; rep < 20; ++rep) {
    EXPECT_EQ((*method)->set_input(0, make_tensor(DType::Float32, shape, x, sizeof x)), Error::Ok) << error_detail();
    EXPECT_EQ((*method)->execute(), Error::Ok) << error_detail();
  }
  for (size_t i = 0; i < (*method)->num_outputs(); ++i) {
    const Tensor& t = (*method)->output(i);
    out.insert(out.end(), t.data_as<float>(), t.data_as<float>() + t.numel());
    out.push_back(-1000.0f - static_cast<float>(t.numel()));  // separates outputs, records sizes
  }
  return out;
}

TEST(Concurrency, ThreadsWithTheirOwnMethodsMatchSerialRuns) {
  for (const auto& [text, backends] : {std::pair{kProgram, "none"}, std::pair{kProgram, "reference:mul+add+take"},
                                       std::pair{kControlProgram, "none"}}) {
    auto p = parse_program(text, "test.ir");
    compile_program(*p, {}, backends);
    AlignedBytes file(serialize_program(*p));
    auto loaded = runtime::Program::load_from_bytes(file.span());
    ASSERT_TRUE(loaded.ok()) << error_detail();
    const runtime::Program& program = **loaded;

    constexpr int kThreads = 4;
    std::vector<std::vector<float>> serial(kThreads), parallel(kThreads);
    for (int t = 0; t < kThreads; ++t) serial[t] = run(program, t);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) threads.emplace_back([&, t] { parallel[t] = run(program, t); });
    for (auto& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) {
      ASSERT_FALSE(serial[t].empty());
      EXPECT_EQ(parallel[t], serial[t]) << backends << ", thread " << t;
    }
    // Different inputs give different outputs, so a shared arena would show.
    EXPECT_NE(serial[0], serial[1]);
  }
}

}  // namespace
}  // namespace edgec

namespace edgec {
namespace {

// Regression: set_input used to check a symbol against the other inputs'
// previous bindings, so a Method whose inputs share a symbol could not be
// rerun with another size (rebinding the first input failed against the
// second's old size). The check is now made by execute, over this run's
// bindings.
TEST(Method, InputsSharingASymbolCanBeRebound) {
  auto p = parse_program(R"(
program dialect = "edge"
signature {
  input user_input %a target = "a"
  input user_input %b target = "b"
  output user_output %y target = "y"
}
graph {
  %a = placeholder : f32[n<=8]
  %b = placeholder : f32[n<=8]
  %y = edge.add.Tensor(%a, %b) : f32[n<=8]
  output(%y)
}
)",
                         "test.ir");
  compile_program(*p, {}, "none");
  AlignedBytes file(serialize_program(*p));
  auto loaded = runtime::Program::load_from_bytes(file.span());
  ASSERT_TRUE(loaded.ok()) << error_detail();
  auto method = runtime::Method::create(**loaded, 1);
  ASSERT_TRUE(method.ok());
  float a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[8] = {10, 20, 30, 40, 50, 60, 70, 80};
  for (int64_t n : {2, 5, 3}) {
    const int64_t shape[1] = {n};
    ASSERT_EQ((*method)->set_input(0, make_tensor(DType::Float32, shape, a, sizeof a)), Error::Ok) << error_detail();
    ASSERT_EQ((*method)->set_input(1, make_tensor(DType::Float32, shape, b, sizeof b)), Error::Ok) << error_detail();
    ASSERT_EQ((*method)->execute(), Error::Ok) << error_detail();
    const Tensor& y = (*method)->output(0);
    ASSERT_EQ(y.numel(), n);
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(y.data_as<float>()[i], a[i] + b[i]);
  }
  // Two sizes for one symbol in one run is still an error, at execute.
  const int64_t four[1] = {4};
  ASSERT_EQ((*method)->set_input(0, make_tensor(DType::Float32, four, a, sizeof a)), Error::Ok);
  EXPECT_EQ((*method)->execute(), Error::InvalidShape);
  EXPECT_NE(error_detail().find("symbol 'n' is 3 in dim 0 but 4 in an earlier input"), std::string::npos)
      << error_detail();
}

}  // namespace
}  // namespace edgec

namespace edgec {
namespace {

std::vector<std::byte> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  std::memcpy(out.data(), chars.data(), chars.size());
  return out;
}

/// What a regression input (tests/runtime/regressions/NAME) does: whether
/// the loader takes it, and the Error of loading or, once loaded, of
/// Method::create (under EDGEC_MEMORY_LIMIT = `memory_limit` when given).
/// error_detail() says why.
struct RegressionRun {
  bool loaded = false;
  Error error = Error::Ok;
};

RegressionRun run_regression(const std::string& name, const char* memory_limit = nullptr) {
  RegressionRun r;
  const auto bytes = read_bytes(EDGEC_SOURCE_DIR "/tests/runtime/regressions/" + name);
  EXPECT_FALSE(bytes.empty()) << name;
  AlignedBytes file(bytes);
  auto loaded = runtime::Program::load_from_bytes(file.span());
  if (!loaded.ok()) {
    r.error = loaded.error();
    return r;
  }
  r.loaded = true;
  if (memory_limit) setenv("EDGEC_MEMORY_LIMIT", memory_limit, 1);
  auto method = runtime::Method::create(**loaded, 1);
  if (memory_limit) unsetenv("EDGEC_MEMORY_LIMIT");
  r.error = method.ok() ? Error::Ok : method.error();
  return r;
}

constexpr const char* k64MiB = "67108864";

bool detail_has(const std::string& text) { return error_detail().find(text) != std::string::npos; }

/// Expects regression input `name` to load and Method::create (under
/// `memory_limit`, as run_regression takes it) to fail with `error`, the
/// detail containing `text` where it is given.
void expect_create_fails(const std::string& name, Error error, const char* text,
                         const char* memory_limit = nullptr) {
  const RegressionRun r = run_regression(name, memory_limit);
  ASSERT_TRUE(r.loaded) << error_detail();
  EXPECT_EQ(r.error, error) << error_detail();
  if (text) {
    EXPECT_TRUE(detail_has(text)) << error_detail();
  }
}

/// Expects regression input `name` to fail (loading it or creating its
/// Method), the detail containing `text`.
void expect_refused(const std::string& name, const std::string& text) {
  EXPECT_NE(run_regression(name).error, Error::Ok);
  EXPECT_TRUE(detail_has(text)) << error_detail();
}

// Regression (found by fuzz/program_fuzzer): a file whose reference-delegate
// payload plans a 71-petabyte arena asked the allocator for it. The arena is
// now checked against the memory limit first: a clean OutOfMemory.
TEST(Method, ArenaBeyondTheMemoryLimitIsRefusedBeforeAllocating) {
  expect_create_fails("payload_arena_too_big.edgec", Error::OutOfMemory, "exceeds the memory limit");
}

// Regression (fuzz/program_fuzzer, campaign of issue 7): a delegate payload
// planning a multi-GiB arena, below the machine's memory but above what the
// fuzzer lets a process allocate. The runtime's limit is the guard; with it
// set (as the fuzzer now sets it) the arena is refused before allocation.
TEST(Method, DelegateArenaOverTheConfiguredLimitIsRefused) {
  expect_create_fails("payload_arena_over_fuzz_limit.edgec", Error::OutOfMemory, "exceeds the memory limit", k64MiB);
}

#if EDGEC_BACKEND_ONEDNN
// Regression (fuzz/program_fuzzer, onednn seed): an onednn payload whose
// unary instruction has no operand made the delegate's builder throw past
// init (std::terminate). Payload instructions are now checked against their
// slots (operand counts, views within their tensor, sizes that agree):
// InvalidProgram naming the instruction.
TEST(Method, OnednnInstructionWithoutOperandsIsRefused) {
  expect_create_fails("onednn_instruction_without_operands.edgec", Error::InvalidProgram, "onednn: instruction");
}
#endif

#if EDGEC_BACKEND_ONEDNN
// Regression (fuzz/program_fuzzer, onednn seed): an onednn payload declaring
// a 64 GiB input had its staging buffer allocated at init, past the memory
// limit. Everything the delegate allocates at init now counts against the
// limit: OutOfMemory before allocating.
TEST(Method, OnednnInputOverTheMemoryLimitIsRefused) {
  expect_create_fails("onednn_input_over_limit.edgec", Error::OutOfMemory, "memory limit", k64MiB);
}
#endif

#if EDGEC_BACKEND_ONEDNN  // the crafted file has an onednn delegate
// Regression (fuzz/program_fuzzer): an attribute whose union type is set but
// whose value table is absent passes the flatbuffers verifier; reading it
// dereferenced null. The loader now refuses it (in the file or in a delegate
// payload, read when the delegate is initialized).
TEST(Method, AttributeWithoutValueIsRefused) {
  expect_refused("attribute_without_value.edgec", "has no value");
}
#endif

#if EDGEC_BACKEND_ONEDNN
// Regression (fuzz/program_fuzzer, onednn seed): a conv whose 'dilation'
// has fewer entries than spatial dims was read past its end. Spatial
// attributes of the wrong length (and groups that do not divide the
// weights, empty pooling sizes) are now InvalidProgram.
TEST(Method, OnednnConvWithShortAttributeIsRefused) {
  expect_create_fails("onednn_conv_short_attribute.edgec", Error::InvalidProgram, nullptr);
}
#endif

#if EDGEC_BACKEND_ONEDNN  // the crafted file has an onednn delegate
// Regression (fuzz/program_fuzzer, UBSan): an ints attribute whose 8-byte
// values sit at a 4-byte aligned address passes the flatbuffers verifier
// (it checks the vector's length field only) and was read misaligned. The
// loader refuses it.
TEST(Method, MisalignedAttributeValuesAreRefused) {
  expect_refused("misaligned_attribute_values.edgec", "has misaligned values");
}
#endif

#if EDGEC_BACKEND_ONEDNN
// Regression (fuzz/program_fuzzer, onednn seed): a pooling of an integer
// slot made oneDNN's descriptor copy a negative number of dims. The onednn
// delegate takes f32 only (index operands aside) and says so.
TEST(Method, OnednnPoolOfIntegersIsRefused) {
  const RegressionRun r = run_regression("onednn_pool_of_integers.edgec");
  ASSERT_TRUE(r.loaded) << error_detail();
  EXPECT_EQ(r.error, Error::InvalidProgram) << error_detail();
  // The detail names the instruction, the slot, what it found and what was
  // expected.
  EXPECT_NE(error_detail().find("instruction "), std::string::npos) << error_detail();
  EXPECT_NE(error_detail().find(", expected "), std::string::npos) << error_detail();
}
#endif

#if EDGEC_BACKEND_ONEDNN
// Regression (fuzz/program_fuzzer, UBSan, onednn seed): pooling attributes
// near 2^63 overflowed the right-padding arithmetic. Spatial attributes are
// bounded (and the arithmetic is done in 128 bits).
TEST(Method, OnednnPoolAttributeOverflowIsRefused) {
  const RegressionRun r = run_regression("onednn_pool_attribute_overflow.edgec");
  ASSERT_TRUE(r.loaded) << error_detail();
  EXPECT_NE(r.error, Error::Ok);
  EXPECT_TRUE(detail_has("out of range")) << error_detail();
}
#endif

#if EDGEC_BACKEND_ONEDNN
// Regression (fuzz/program_fuzzer, onednn seed): a conv result declaring a
// huge channel count had per-channel vectors sized from it before oneDNN
// checked the shapes. The delegate refuses values larger than the memory
// limit at init, and conv result channels must match the weights.
TEST(Method, OnednnHugeDeclaredChannelsAreRefused) {
  const RegressionRun r = run_regression("onednn_huge_channels.edgec", k64MiB);
  ASSERT_TRUE(r.loaded) << error_detail();
  EXPECT_NE(r.error, Error::Ok);
  EXPECT_TRUE(detail_has("more than the memory limit") || detail_has("result channels disagree with its weights"))
      << error_detail();
}
#endif

// Regression (fuzz/program_fuzzer): a slot whose declared shape has more
// elements than fit in 64 bits overflowed the stride computation. The
// loader now refuses such a type (or, inside a delegate payload, the
// delegate's init does).
TEST(Method, ShapeWhoseSizeOverflowsIsRefusedAtLoad) {
  expect_refused("shape_size_overflow.edgec", "overflows 64 bits");
}

// The limit is configurable: a small one refuses an ordinary program.
// EDGEC_MEMORY_LIMIT takes bytes or a binary suffix; anything else is not
// a size (and the limit stays the machine's memory).
TEST(Method, MemoryLimitSizes) {
  EXPECT_EQ(runtime::parse_memory_size("4096"), 4096u);
  EXPECT_EQ(runtime::parse_memory_size("512K"), 512u << 10);
  EXPECT_EQ(runtime::parse_memory_size("64MiB"), 64u << 20);
  EXPECT_EQ(runtime::parse_memory_size("64MB"), 64u << 20);
  EXPECT_EQ(runtime::parse_memory_size("4G"), uint64_t{4} << 30);
  EXPECT_EQ(runtime::parse_memory_size("1TiB"), uint64_t{1} << 40);
  EXPECT_EQ(runtime::parse_memory_size("100B"), 100u);
  for (const char* bad : {"", "-5", "64 MiB", "MiB", "1.5G", "64Mi", "99999999999999999999", "20000000T"})
    EXPECT_EQ(runtime::parse_memory_size(bad), 0u) << bad;
  EXPECT_EQ(runtime::parse_memory_size(nullptr), 0u);
  setenv("EDGEC_MEMORY_LIMIT", "3MiB", 1);
  EXPECT_EQ(runtime::memory_limit(), 3u << 20);
  setenv("EDGEC_MEMORY_LIMIT", "lots", 1);
  EXPECT_GT(runtime::memory_limit(), 3u << 20);  // The machine's memory.
  unsetenv("EDGEC_MEMORY_LIMIT");
}

TEST(Method, MemoryLimitIsConfigurable) {
  auto p = parse_program(kProgram, "test.ir");
  compile_program(*p, {}, "none");
  AlignedBytes file(serialize_program(*p));
  auto loaded = runtime::Program::load_from_bytes(file.span());
  ASSERT_TRUE(loaded.ok());
  ASSERT_GT((*loaded)->arena_size(), 16u);
  setenv("EDGEC_MEMORY_LIMIT", "16", 1);
  auto refused = runtime::Method::create(**loaded, 1);
  unsetenv("EDGEC_MEMORY_LIMIT");
  EXPECT_FALSE(refused.ok());
  EXPECT_TRUE(runtime::Method::create(**loaded, 1).ok());
}

}  // namespace
}  // namespace edgec

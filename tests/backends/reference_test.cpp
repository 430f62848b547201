// The reference backend end to end (docs/semantics.md §4-6): lowered textual IR with
// delegates -> lower_program -> serialize_program -> the runtime loader ->
// execute, against values computed by hand; plus its partitioner options,
// refusal reasons, the builder's duplicate-target error and the load errors
// of a crafted file (a slot with no data, an unknown backend).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "compiler/pipeline.h"
#include "compiler/backends.h"
#include "backends/reference/compiler.h"
#include "base/diagnostic.h"
#include "ir/operator.h"
#include "ir/text.h"
#include "lowering/backend.h"
#include "passes/pipeline.h"
#include "runtime/method.h"
#include "serialize/format.h"
#include "serialize/writer.h"
#include "support/aligned_bytes.h"

namespace edgec {
namespace {

// Constant "w" is read by an add and a mul in one reference delegate and by
// a sub on the portable kernels; sin follows on the portable kernels too.
// x = [1, 2, 3, 4], w = [1, 2, 3, 4]:
//   m = (x + w) * w = [2, 8, 18, 32];  y = m - w = [1, 6, 15, 28];  s = sin(y).
constexpr const char* kShared = R"IR(
program dialect = "edge"
signature {
  input user_input %x target = "x"
  input constant %w target = "w"
  output user_output %m target = "m"
  output user_output %s target = "s"
}
graph {
  %x = placeholder : f32[4]
  %w = placeholder : f32[4]
  %m = call_delegate(%x, delegate = 0) : f32[4]
  %y = edge.sub.Tensor(%m, %w) : f32[4] {refused = ["reference: operator sub is not in the operator set (add, mul)"]}
  %s = edge.sin.default(%y) : f32[4] {refused = ["reference: operator sin is not in the operator set (add, mul)"]}
  output(%m, %s)
}
constants {
  "w" = dense<[1.0, 2.0, 3.0, 4.0]> : f32[4]
}
delegate 0 backend = "reference" {
program dialect = "edge"
signature {
  input user_input %x target = "x"
  input constant %w target = "w"
  output user_output %m target = "m"
}
graph {
  %x = placeholder : f32[4]
  %w = placeholder : f32[4]
  %a = edge.add.Tensor(%x, %w) : f32[4]
  %m = edge.mul.Tensor(%a, %w) : f32[4]
  output(%m)
}
constants {
  "w" = dense<[1.0, 2.0, 3.0, 4.0]> : f32[4]
}
}
)IR";

// A constant only the delegate reads, under a key unlike its placeholder's
// name (so a message can be checked for naming both).
constexpr const char* kDelegateOnly = R"IR(
program dialect = "edge"
signature {
  input user_input %x target = "x"
  output user_output %y target = "y"
}
graph {
  %x = placeholder : f32[2]
  %d = call_delegate(%x, delegate = 0) : f32[2]
  %y = edge.neg.default(%d) : f32[2]
  output(%y)
}
delegate 0 backend = "reference" {
program dialect = "edge"
signature {
  input user_input %x target = "x"
  input constant %cw target = "weightkey"
  output user_output %a target = "a"
}
graph {
  %x = placeholder : f32[2]
  %cw = placeholder : f32[2]
  %a = edge.add.Tensor(%x, %cw) : f32[2]
  output(%a)
}
constants {
  "weightkey" = dense<[10.0, 20.0]> : f32[2]
}
}
)IR";

// A delegate whose output size depends on the data (nonzero).
constexpr const char* kDataDependent = R"IR(
program dialect = "edge"
signature {
  input user_input %x target = "x"
  output user_output %nz target = "nz"
}
graph {
  %x = placeholder : f32[4]
  %nz = call_delegate(%x, delegate = 0) : i64[?<=4, 1]
  output(%nz)
}
delegate 0 backend = "reference" {
program dialect = "edge"
signature {
  input user_input %x target = "x"
  output user_output %nz target = "nz"
}
graph {
  %x = placeholder : f32[4]
  %nz = edge.nonzero.default(%x) : i64[?<=4, 1]
  output(%nz)
}
}
)IR";

std::vector<std::byte> compile_text(const std::string& text) {
  auto p = parse_program(text, "test.ir");
  lower_program(*p);
  return serialize_program(*p);
}

format::Header header_of(const std::vector<std::byte>& file) {
  format::Header h;
  std::memcpy(&h, file.data(), sizeof h);
  return h;
}

// Overwrites every occurrence of `from` inside the file's flatbuffer (not
// the data segment, where payloads live) with `to` (same length).
int patch_flatbuffer(std::vector<std::byte>& file, const std::string& from, const std::string& to) {
  const format::Header h = header_of(file);
  int hits = 0;
  for (uint64_t i = h.flatbuffer_offset; i + from.size() <= h.flatbuffer_offset + h.flatbuffer_size; ++i)
    if (std::memcmp(file.data() + i, from.data(), from.size()) == 0) {
      std::memcpy(file.data() + i, to.data(), to.size());
      ++hits;
    }
  return hits;
}

int count_occurrences(const std::vector<std::byte>& file, const void* pattern, size_t n) {
  int hits = 0;
  for (size_t i = 0; i + n <= file.size(); ++i) hits += std::memcmp(file.data() + i, pattern, n) == 0;
  return hits;
}

TEST(Reference, SharedConstantRunsAndIsStoredOnce) {
  const auto file = compile_text(kShared);
  AlignedBytes bytes(file);
  auto loaded = runtime::Program::load_from_bytes(bytes.span());
  ASSERT_TRUE(loaded.ok()) << error_detail();
  const runtime::Program& p = **loaded;

  // docs/semantics.md §6: one named-data entry for "w", whose bytes are in the file
  // once although two programs read it.
  ASSERT_EQ(p.named_data().size(), 1u);
  const runtime::NamedDataEntry* w = p.named_data().find("w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->size, 16u);
  const float w_values[4] = {1, 2, 3, 4};
  EXPECT_EQ(count_occurrences(file, w_values, sizeof w_values), 1);

  ASSERT_EQ(p.delegates().size(), 1u);
  EXPECT_EQ(p.delegates()[0].backend_id, "reference");
  EXPECT_EQ(p.delegates()[0].operators, (std::vector<std::string>{"add", "mul"}));
  EXPECT_EQ(p.delegates()[0].constants, (std::vector<std::string>{"w"}));
  ASSERT_EQ(p.instructions().size(), 3u);
  EXPECT_TRUE(p.instructions()[0].is_delegate_call());
  ASSERT_EQ(p.instructions()[2].refusals.size(), 1u);
  EXPECT_EQ(p.instructions()[2].refusals[0].backend, "reference");
  EXPECT_EQ(p.instructions()[2].refusals[0].reason, "operator sin is not in the operator set (add, mul)");

  auto m = runtime::Method::create(p, 2);
  ASSERT_TRUE(m.ok()) << error_detail();
  std::vector<float> x = {1, 2, 3, 4};
  const std::vector<int64_t> shape = {4};
  // Twice: the delegate's handle is reused across executions.
  for (int round = 0; round < 2; ++round) {
    ASSERT_EQ((*m)->set_input(0, make_tensor(DType::Float32, shape, x.data(), 0)), Error::Ok) << error_detail();
    ASSERT_EQ((*m)->execute(), Error::Ok) << error_detail();
    const float want_m[4] = {2, 8, 18, 32}, want_y[4] = {1, 6, 15, 28};
    const Tensor& mo = (*m)->output(0);
    const Tensor& so = (*m)->output(1);
    ASSERT_EQ(mo.numel(), 4);
    ASSERT_EQ(so.numel(), 4);
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(mo.data_as<float>()[i], want_m[i]) << i;
      EXPECT_NEAR(so.data_as<float>()[i], std::sin(want_y[i]), 1e-6) << i;
    }
  }
  // A second Method has its own delegate handle and arena.
  auto m2 = runtime::Method::create(p);
  ASSERT_TRUE(m2.ok()) << error_detail();
  std::vector<float> x2 = {0, 0, 0, 0};
  ASSERT_EQ((*m2)->set_input(0, make_tensor(DType::Float32, shape, x2.data(), 0)), Error::Ok);
  ASSERT_EQ((*m2)->execute(), Error::Ok) << error_detail();
  EXPECT_EQ((*m2)->output(0).data_as<float>()[3], 16.0f);  // (0 + 4) * 4
  EXPECT_EQ((*m)->output(0).data_as<float>()[3], 32.0f);
}

TEST(Reference, SerializingIsDeterministic) {
  auto p1 = parse_program(kShared, "a.ir");
  auto p2 = parse_program(kShared, "b.ir");
  lower_program(*p1);
  lower_program(*p2);
  const auto a = serialize_program(*p1);
  EXPECT_EQ(a, serialize_program(*p1));
  EXPECT_EQ(a, serialize_program(*p2));
}

TEST(Reference, PartitionerOptions) {
  const BackendCompiler* ref = find_backend_compiler("reference");
  ASSERT_NE(ref, nullptr);
  // Every backend built, in priority order. The default is the production
  // delegates; reference exists for tests.
  std::vector<std::string> built;
#if EDGEC_BACKEND_ONEDNN
  built.push_back("onednn");
#endif
#if EDGEC_BACKEND_XNNPACK
  built.push_back("xnnpack");
#endif
  built.push_back("reference");
  EXPECT_EQ(backend_compiler_ids(), built);
  // Each target's defaults (docs/architecture.md, "Targets"): oneDNN on
  // x86-64, XNNPACK on aarch64 and on x86-64 where oneDNN is not built.
  std::vector<std::string> x86, aarch64;
#if EDGEC_BACKEND_ONEDNN
  x86.push_back("onednn");
#endif
#if EDGEC_BACKEND_XNNPACK
  aarch64.push_back("xnnpack");
  if (x86.empty()) x86.push_back("xnnpack");
#endif
  EXPECT_EQ(default_backend_ids(Target::X86_64), x86);
  EXPECT_EQ(default_backend_ids(Target::Aarch64), aarch64);
  EXPECT_EQ(default_backend_ids(), kHostTarget == Target::Aarch64 ? aarch64 : x86);
  EXPECT_EQ(find_backend_compiler("nosuch"), nullptr);

  auto expect_error = [&](const std::string& options, const std::string& message) {
    try {
      (void)ref->make_partitioner(options);
      ADD_FAILURE() << "options '" << options << "' accepted";
    } catch (const CompileError& e) {
      EXPECT_EQ(std::string(e.what()), message);
    }
  };
  expect_error("matmul+frobnicate", "reference: unknown operator 'frobnicate' in options 'matmul+frobnicate'");
  expect_error("add++mul", "reference: empty operator name in options 'add++mul' (expected e.g. add+matmul)");
  expect_error("add+", "reference: empty operator name in options 'add+' (expected e.g. add+matmul)");
  expect_error("edge.add.Tensor", "reference: unknown operator 'edge.add.Tensor' in options 'edge.add.Tensor'");
  // A composite operator never reaches a partitioner (to_edge decomposed it).
  const OpInfo* composite = nullptr;
  for (const OpInfo* op : all_ops())
    if (!op->core) composite = op;
  ASSERT_NE(composite, nullptr);
  expect_error("add+" + composite->name, "reference: operator '" + composite->name + "' in options 'add+" +
                                             composite->name + "' is not a core operator (it is decomposed before partitioning)");
}

TEST(Reference, RefusalReasons) {
  auto p = parse_program(kShared, "test.ir");
  const Node* sub = p->graph.find_value("y")->producer();
  const Node* sin = p->graph.find_value("s")->producer();
  const BackendCompiler* ref = find_backend_compiler("reference");
  auto some = ref->make_partitioner("matmul+add");
  EXPECT_EQ(some->backend(), "reference");
  EXPECT_EQ(some->refuse(*p, *sin), "operator sin is not in the operator set (add, matmul)");
  EXPECT_EQ(some->refuse(*p, *sub), "operator sub is not in the operator set (add, matmul)");
  const Node* add = p->delegates[0].program->graph.find_value("a")->producer();
  EXPECT_EQ(some->refuse(*p->delegates[0].program, *add), std::nullopt);
  // No options: every core operator.
  auto all = ref->make_partitioner("");
  EXPECT_EQ(all->refuse(*p, *sin), std::nullopt);
  EXPECT_EQ(all->refuse(*p, *sub), std::nullopt);
}

TEST(Reference, DuplicateTargetIsABuildError) {
  // docs/semantics.md §6: the builder gives each target one slot; a second
  // placeholder for it is a build-time error. Not verified first: the
  // verifier would reject the program before the builder saw it.
  auto p = parse_program(R"IR(
program dialect = "edge"
signature {
  input user_input %x target = "x"
  input constant %w target = "w"
  input constant %w2 target = "w"
  output user_output %a target = "a"
}
graph {
  %x = placeholder : f32[2]
  %w = placeholder : f32[2]
  %w2 = placeholder : f32[2]
  %s = edge.add.Tensor(%x, %w) : f32[2]
  %a = edge.add.Tensor(%s, %w2) : f32[2]
  output(%a)
}
constants {
  "w" = dense<[1.0, 2.0]> : f32[2]
}
)IR", "dup.ir");
  try {
    (void)find_backend_compiler("reference")->preprocess(*p);
    ADD_FAILURE() << "preprocess accepted two slots for one target";
  } catch (const CompileError& e) {
    EXPECT_EQ(std::string(e.what()), "reference: delegate builder: target 'w' already has a slot (%w); second placeholder %w2");
  }
}

TEST(Reference, PayloadHasNoTensorBytes) {
  auto p = parse_program(kDelegateOnly, "test.ir");
  lower_program(*p);
  const auto payload = find_backend_compiler("reference")->preprocess(*p->delegates[0].program);
  const float cw[2] = {10, 20};
  std::vector<std::byte> bytes(payload.begin(), payload.end());
  EXPECT_EQ(count_occurrences(bytes, cw, sizeof cw), 0);
  EXPECT_GT(count_occurrences(bytes, "weightkey", 9), 0);
}

TEST(Reference, ConstantOnlyADelegateReads) {
  const auto file = compile_text(kDelegateOnly);
  AlignedBytes bytes(file);
  auto loaded = runtime::Program::load_from_bytes(bytes.span());
  ASSERT_TRUE(loaded.ok()) << error_detail();
  EXPECT_NE((*loaded)->named_data().find("weightkey"), nullptr);
  auto m = runtime::Method::create(**loaded);
  ASSERT_TRUE(m.ok()) << error_detail();
  std::vector<float> x = {1, 2};
  const std::vector<int64_t> shape = {2};
  ASSERT_EQ((*m)->set_input(0, make_tensor(DType::Float32, shape, x.data(), 0)), Error::Ok);
  ASSERT_EQ((*m)->execute(), Error::Ok) << error_detail();
  EXPECT_EQ((*m)->output(0).data_as<float>()[0], -11.0f);
  EXPECT_EQ((*m)->output(0).data_as<float>()[1], -22.0f);
}

TEST(Reference, SlotWithNoDataIsALoadError) {
  // docs/semantics.md §6: rename the file's named data (and inspect's list of the
  // delegate's constants) so the payload's key has no data. The owning
  // program reads nothing by that key, so the file loads; initializing the
  // delegate fails with NotFound naming the slot and the key, not a crash.
  auto file = compile_text(kDelegateOnly);
  ASSERT_GE(patch_flatbuffer(file, "weightkey", "weightkez"), 1);
  AlignedBytes bytes(file);
  auto loaded = runtime::Program::load_from_bytes(bytes.span());
  ASSERT_TRUE(loaded.ok()) << error_detail();
  auto m = runtime::Method::create(**loaded);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error(), Error::NotFound);
  EXPECT_NE(error_detail().find("delegate 0 (reference)"), std::string::npos) << error_detail();
  // The payload's slots are unnamed: the slot is named by its key.
  EXPECT_NE(error_detail().find("constant slot 'weightkey' names key 'weightkey'"), std::string::npos) << error_detail();
}

TEST(Reference, UnknownBackendIsDelegateMissing) {
  auto file = compile_text(kShared);
  // The id appears as the Delegate's backend and in the refusals.
  ASSERT_GE(patch_flatbuffer(file, "reference", "nosuchbkd"), 1);
  AlignedBytes bytes(file);
  auto loaded = runtime::Program::load_from_bytes(bytes.span());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error(), Error::DelegateMissing);
  EXPECT_NE(error_detail().find("'nosuchbkd'"), std::string::npos) << error_detail();
}

TEST(Reference, UnknownBackendIsACompileError) {
  std::string text = kShared;
  text.replace(text.find("backend = \"reference\""), 21, "backend = \"nosuch\"");
  auto p = parse_program(text, "test.ir");
  lower_program(*p);
  try {
    (void)serialize_program(*p);
    ADD_FAILURE() << "serialized a delegate of an unknown backend";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("delegate 0 uses backend 'nosuch'"), std::string::npos) << e.what();
  }
}

TEST(Reference, OneTargetWithTwoDataIsACompileError) {
  // Stored once (docs/semantics.md §6): two programs cannot disagree on a target.
  std::string text = kShared;
  const std::string data = "\"w\" = dense<[1.0, 2.0, 3.0, 4.0]> : f32[4]";
  text.replace(text.rfind(data), data.size(), "\"w\" = dense<[1.0, 2.0, 3.0, 5.0]> : f32[4]");
  auto p = parse_program(text, "test.ir");
  lower_program(*p);
  try {
    (void)serialize_program(*p);
    ADD_FAILURE() << "serialized two different tensors for one target";
  } catch (const CompileError& e) {
    EXPECT_EQ(std::string(e.what()), "serialize: target 'w' has different data in the owning program and delegate 0 "
                                     "(reference); each target is stored once");
  }
}

TEST(Reference, DataDependentDelegateOutput) {
  const auto file = compile_text(kDataDependent);
  AlignedBytes bytes(file);
  auto loaded = runtime::Program::load_from_bytes(bytes.span());
  ASSERT_TRUE(loaded.ok()) << error_detail();
  auto m = runtime::Method::create(**loaded);
  ASSERT_TRUE(m.ok()) << error_detail();
  const std::vector<int64_t> shape = {4};
  // The output shrinks and grows between executions within its bound.
  const std::vector<std::pair<std::vector<float>, std::vector<int64_t>>> cases = {
      {{0, 3, 0, 5}, {1, 3}}, {{1, 1, 1, 0}, {0, 1, 2}}, {{0, 0, 0, 0}, {}}, {{1, 2, 3, 4}, {0, 1, 2, 3}}};
  for (const auto& [x, want] : cases) {
    std::vector<float> in = x;
    ASSERT_EQ((*m)->set_input(0, make_tensor(DType::Float32, shape, in.data(), 0)), Error::Ok);
    ASSERT_EQ((*m)->execute(), Error::Ok) << error_detail();
    const Tensor& nz = (*m)->output(0);
    ASSERT_EQ(nz.rank, 2);
    ASSERT_EQ(nz.sizes[0], static_cast<int64_t>(want.size()));
    ASSERT_EQ(nz.sizes[1], 1);
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(nz.data_as<int64_t>()[i], want[i]);
  }
}

TEST(Reference, CorruptPayloadIsAnErrorNotACrash) {
  // The payload is untrusted like the file: flip bits inside it only.
  const auto file = compile_text(kShared);
  const format::Header h = header_of(file);
  AlignedBytes probe(file);
  auto probe_program = runtime::Program::load_from_bytes(probe.span());
  ASSERT_TRUE(probe_program.ok());
  const auto payload = (*probe_program)->delegates()[0].payload;
  const uint64_t begin = static_cast<uint64_t>(payload.data() - probe.span().data());
  ASSERT_GE(begin, h.data_offset);
  std::mt19937 rng(42);
  int rejected = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    auto corrupt = file;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f)
      corrupt[begin + rng() % payload.size()] ^= std::byte{static_cast<unsigned char>(1u << (rng() % 8))};
    AlignedBytes bytes(corrupt);
    auto p = runtime::Program::load_from_bytes(bytes.span());
    ASSERT_TRUE(p.ok()) << "the owning table did not change";
    auto m = runtime::Method::create(**p);
    if (!m.ok()) {
      ++rejected;
      continue;
    }
    std::vector<float> x = {1, 2, 3, 4};
    const std::vector<int64_t> shape = {4};
    if ((*m)->set_input(0, make_tensor(DType::Float32, shape, x.data(), 0)) == Error::Ok) (void)(*m)->execute();
  }
  EXPECT_GT(rejected, 0);
}

}  // namespace
}  // namespace edgec

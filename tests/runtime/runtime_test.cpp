// The runtime loads what the serializer writes and runs it like the
// interpreter; corrupt, truncated or inconsistent files are Errors, never
// crashes; inputs are checked against the signature.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <tuple>

#include "compiler/pipeline.h"
#include "interpreter/interpreter.h"
#include "ir/text.h"
#include "passes/pipeline.h"
#include "runtime/method.h"
#include "serialize/format.h"
#include "serialize/program_generated.h"
#include "serialize/writer.h"
#include "support/aligned_bytes.h"

namespace edgec {
namespace {

constexpr const char* kProgram = R"(
program dialect = "aten"
signature {
  input user_input %x target = "x"
  input parameter %w target = "w"
  input constant %c target = "c"
  input constant %mask target = "mask"
  output user_output %y target = "y"
  output user_output %picked target = "picked"
}
graph {
  %x = placeholder : f32[batch<=4, 3]
  %w = placeholder : f32[3]
  %c = placeholder : f32[3]
  %mask = placeholder : bool[3]
  %cc = aten.add.Tensor(%c, %c) : f32[3]
  %xw = aten.mul.Tensor(%x, %w) : f32[batch<=4, 3]
  %s = aten.sin.default(%xw) : f32[batch<=4, 3]
  %y = aten.add.Tensor(%s, %cc) : f32[batch<=4, 3]
  %nz = aten.nonzero.default(%mask) : i64[?<=3, 1]
  %idx = aten.squeeze.default(%nz, dims = [1]) : i64[?<=3]
  %picked = aten.take.default(%y, %idx, dim = 1) : f32[batch<=4, ?<=3]
  output(%y, %picked)
}
state {
  "w" = dense<[1.0, -2.0, 0.5]> : f32[3]
}
constants {
  "c" = dense<[0.25, 0.5, 0.75]> : f32[3]
  "mask" = dense<[true, false, true]> : bool[3]
}
)";

std::vector<std::byte> compile_text(const std::string& text) {
  auto p = parse_program(text, "test.ir");
  lower_program(*p);
  return serialize_program(*p);
}

struct Loaded {
  std::unique_ptr<runtime::Program> program;
  Error error = Error::Ok;
};

Loaded load(std::span<const std::byte> bytes) {
  auto r = runtime::Program::load_from_bytes(bytes);
  if (!r.ok()) return {nullptr, r.error()};
  return {std::move(*r), Error::Ok};
}

TEST(Runtime, RunsLikeTheReference) {
  const auto file = compile_text(kProgram);
  AlignedBytes bytes(file);
  Loaded l = load(bytes.span());
  ASSERT_EQ(l.error, Error::Ok) << error_detail();
  auto m = runtime::Method::create(*l.program);
  ASSERT_TRUE(m.ok());
  std::vector<float> x = {0.1f, 0.2f, 0.3f, -1.0f, 0.0f, 2.0f};
  const std::vector<int64_t> shape = {2, 3};
  ASSERT_EQ((*m)->set_input(0, make_tensor(DType::Float32, shape, x.data(), 0)), Error::Ok) << error_detail();
  ASSERT_EQ((*m)->execute(), Error::Ok) << error_detail();
  const float w[3] = {1.0f, -2.0f, 0.5f}, c[3] = {0.25f, 0.5f, 0.75f};
  const Tensor& y = (*m)->output(0);
  ASSERT_EQ(y.rank, 2);
  ASSERT_EQ(y.sizes[0], 2);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_NEAR(y.data_as<float>()[i * 3 + j], std::sin(x[i * 3 + j] * w[j]) + 2 * c[j], 1e-6);
  const Tensor& picked = (*m)->output(1);  // columns 0 and 2 (the mask's true positions)
  ASSERT_EQ(picked.rank, 2);
  EXPECT_EQ(picked.sizes[1], 2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_FLOAT_EQ(picked.data_as<float>()[i * 2 + 0], y.data_as<float>()[i * 3 + 0]);
    EXPECT_FLOAT_EQ(picked.data_as<float>()[i * 2 + 1], y.data_as<float>()[i * 3 + 2]);
  }
}

TEST(Runtime, SerializationIsDeterministic) {
  EXPECT_EQ(compile_text(kProgram), compile_text(kProgram));
}

TEST(Runtime, EachTensorIsStoredOnceAndAligned) {
  const auto file = compile_text(kProgram);
  format::Header h;
  std::memcpy(&h, file.data(), sizeof h);
  EXPECT_EQ(h.data_offset % 64, 0u);
  EXPECT_EQ(h.file_size, file.size());
}

TEST(Runtime, RejectsBadInputs) {
  const auto file = compile_text(kProgram);
  AlignedBytes bytes(file);
  Loaded l = load(bytes.span());
  ASSERT_EQ(l.error, Error::Ok);
  auto m = runtime::Method::create(*l.program);
  std::vector<float> x(15);
  std::vector<int64_t> xi(6);
  const std::vector<int64_t> too_big = {5, 3}, wrong_rank = {6}, ok = {2, 3};
  EXPECT_EQ((*m)->set_input(0, make_tensor(DType::Float32, too_big, x.data(), 0)), Error::InvalidShape);
  EXPECT_NE(error_detail().find("input 'x': expected f32[batch<=4, 3], got f32[5, 3]"), std::string::npos) << error_detail();
  EXPECT_EQ((*m)->set_input(0, make_tensor(DType::Float32, wrong_rank, x.data(), 0)), Error::InvalidShape);
  EXPECT_EQ((*m)->set_input(0, make_tensor(DType::Int64, ok, xi.data(), 0)), Error::InvalidType);
  EXPECT_NE(error_detail().find("expected f32[batch<=4, 3], got i64[2, 3]"), std::string::npos) << error_detail();
  EXPECT_EQ((*m)->set_input(3, make_tensor(DType::Float32, ok, x.data(), 0)), Error::InvalidArgument);
  EXPECT_EQ((*m)->execute(), Error::InvalidArgument);  // nothing bound yet
  EXPECT_NE(error_detail().find("input 'x' is not set"), std::string::npos) << error_detail();
}

TEST(Runtime, EveryTruncationIsAnError) {
  const auto file = compile_text(kProgram);
  for (size_t n = 0; n < file.size(); ++n) {
    std::vector<std::byte> cut(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(n));
    AlignedBytes bytes(cut);
    Loaded l = load(bytes.span());
    EXPECT_NE(l.error, Error::Ok) << "truncated to " << n << " bytes loaded";
  }
}

TEST(Runtime, BitFlipsNeverCrash) {
  const auto file = compile_text(kProgram);
  std::mt19937 rng(1234);
  int rejected = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    auto corrupt = file;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) corrupt[rng() % corrupt.size()] ^= std::byte{static_cast<unsigned char>(1u << (rng() % 8))};
    AlignedBytes bytes(corrupt);
    Loaded l = load(bytes.span());
    if (l.error != Error::Ok) {
      ++rejected;
      continue;
    }
    // A flip the validator cannot see (e.g. inside tensor data) still runs safely.
    auto m = runtime::Method::create(*l.program);
    if (!m.ok()) continue;
    std::vector<float> x(6, 0.5f);
    const std::vector<int64_t> shape = {2, 3};
    if ((*m)->set_input(0, make_tensor(DType::Float32, shape, x.data(), 0)) == Error::Ok) (void)(*m)->execute();
  }
  EXPECT_GT(rejected, 0);
}

/// One region of a hand-made file's data segment.
struct Region {
  std::string key;
  uint64_t offset = 0;
  uint64_t size = 64;  // f32[size / 4]
  std::string slot_key = "";  // the key its constant slot names (default: key)
};

/// What a hand-made file holds: one constant slot per named-data region,
/// each an output; optionally a `reference` delegate payload and an
/// activation slot; and the data segment's size and offset.
struct HandMade {
  std::vector<Region> named;
  std::optional<Region> payload = std::nullopt;
  std::optional<uint64_t> activation_offset = std::nullopt;
  uint64_t data_size = 0;         // 0: just past the last region
  uint64_t data_offset_skew = 0;  // added to the (aligned) data offset
  std::string activation_name = "act";
  uint16_t activation_name_prefix = 0;  // bytes of the previous slot's name it starts with
};

std::vector<std::byte> hand_made_file(const HandMade& spec) {
  namespace fb = edgec::fb;
  flatbuffers::FlatBufferBuilder b;
  auto f32 = [&](uint64_t bytes) {
    std::vector<flatbuffers::Offset<fb::Dim>> dims = {fb::CreateDim(b, fb::DimKind::Static, static_cast<int64_t>(bytes / 4))};
    return fb::CreateTensorInfo(b, static_cast<uint8_t>(DType::Float32), b.CreateVector(dims));
  };
  std::vector<flatbuffers::Offset<fb::ValueSlot>> slots;
  std::vector<flatbuffers::Offset<fb::IoSpec>> outputs;
  std::vector<flatbuffers::Offset<fb::NamedData>> named;
  uint64_t end = 0;
  for (const Region& r : spec.named) {
    outputs.push_back(fb::CreateIoSpecDirect(b, r.key.c_str(), static_cast<int32_t>(slots.size())));
    const std::string& slot_key = r.slot_key.empty() ? r.key : r.slot_key;
    slots.push_back(fb::CreateValueSlotDirect(b, nullptr, f32(r.size), fb::SlotKind::Constant, 0, 0, slot_key.c_str()));
    named.push_back(fb::CreateNamedDataDirect(b, r.key.c_str(), r.offset, r.size, f32(r.size)));
    if (r.offset < (uint64_t{1} << 40)) end = std::max(end, r.offset + r.size);
  }
  uint64_t arena = 0;
  if (spec.activation_offset) {
    arena = *spec.activation_offset + 64;
    slots.push_back(fb::CreateValueSlotDirect(b, spec.activation_name.c_str(), f32(64), fb::SlotKind::Activation,
                                              *spec.activation_offset, 64, nullptr, spec.activation_name_prefix));
  }
  std::vector<flatbuffers::Offset<fb::Delegate>> delegates;
  if (spec.payload) {
    delegates.push_back(fb::CreateDelegateDirect(b, "reference", spec.payload->offset, spec.payload->size));
    end = std::max(end, spec.payload->offset + spec.payload->size);
  }
  b.Finish(fb::CreateProgramDirect(b, &slots, nullptr, nullptr, &outputs, arena, &named, &delegates), "EDGC");

  format::Header h{};
  std::memcpy(h.magic, format::kMagic, sizeof h.magic);
  h.version = format::kVersion;
  h.header_size = format::kHeaderSize;
  h.flatbuffer_offset = format::kHeaderSize;
  h.flatbuffer_size = b.GetSize();
  h.data_offset = format::align_up(h.flatbuffer_offset + h.flatbuffer_size, format::kDataAlignment) + spec.data_offset_skew;
  h.data_size = spec.data_size ? spec.data_size : end;
  h.file_size = h.data_offset + format::align_up(h.data_size, format::kDataAlignment);
  std::vector<std::byte> file(h.file_size);
  std::memcpy(file.data(), &h, sizeof h);
  std::memcpy(file.data() + h.flatbuffer_offset, b.GetBufferPointer(), b.GetSize());
  return file;
}

/// The load error of `spec`'s file (Ok if it loads), with its detail.
std::pair<Error, std::string> load_error(const HandMade& spec) {
  AlignedBytes bytes(hand_made_file(spec));
  Loaded l = load(bytes.span());
  return {l.error, l.error == Error::Ok ? std::string() : error_detail()};
}

// The hand-made file is valid as made: the refusals below are each due to
// the one region changed.
TEST(RuntimeHandMade, WellFormedFileLoads) {
  const auto [err, detail] = load_error({.named = {{"a", 0, 64}, {"b", 64, 128}}});
  EXPECT_EQ(err, Error::Ok) << detail;
  const auto [err2, detail2] = load_error({.named = {{"a", 0, 64}}, .payload = Region{"payload", 64, 64}, .data_size = 128});
  // A payload the reference backend cannot parse still loads: payloads are
  // parsed when a Method is created.
  EXPECT_EQ(err2, Error::Ok) << detail2;
}

// Slot names are front-coded: a name starts with some bytes of the slot
// before's (a constant's name is its data key). More bytes than that name
// has is refused.
TEST(RuntimeHandMade, FrontCodedSlotNames) {
  HandMade spec{.named = {{"block1_conv_weight", 0, 64}}, .activation_offset = 0};
  spec.activation_name = "output";
  spec.activation_name_prefix = 11;  // "block1_conv"
  AlignedBytes bytes(hand_made_file(spec));
  Loaded l = load(bytes.span());
  ASSERT_EQ(l.error, Error::Ok) << error_detail();
  ASSERT_EQ(l.program->slots().size(), 2u);
  EXPECT_EQ(l.program->slots()[0].name, "block1_conv_weight");
  EXPECT_EQ(l.program->slots()[1].name, "block1_convoutput");
  spec.activation_name_prefix = 19;  // one past the key
  const auto [err, detail] = load_error(spec);
  EXPECT_EQ(err, Error::InvalidProgram);
  EXPECT_NE(detail.find("value slot 1 says its name starts with 19 bytes of the previous slot's name, which has 18"),
            std::string::npos)
      << detail;
}

// The compiler writes names front-coded and the loader reads back the IR's.
TEST(Runtime, SlotNamesSurviveFrontCoding) {
  auto p = parse_program(kProgram, "test.ir");
  lower_program(*p);
  AlignedBytes bytes(serialize_program(*p));
  Loaded l = load(bytes.span());
  ASSERT_EQ(l.error, Error::Ok) << error_detail();
  std::vector<std::string> names;
  for (const auto& slot : l.program->slots()) names.push_back(slot.name);
  EXPECT_NE(std::find(names.begin(), names.end(), "x"), names.end()) << ::testing::PrintToString(names);
  for (const Node* n : p->graph.calls())
    for (size_t r = 0; r < n->num_results(); ++r)
      EXPECT_NE(std::find(names.begin(), names.end(), n->result(r)->name()), names.end())
          << n->result(r)->name() << " not among " << ::testing::PrintToString(names);
}

// docs/semantics.md §6: a constant slot whose key has no data is a load-time error
// naming the key. (The writer stores each key once, shared by the slot and
// its named-data entry, so the mismatch is made by hand.)
TEST(RuntimeHandMade, MissingNamedDataIsALoadError) {
  const auto [err, detail] = load_error({.named = {{"weights", 0, 64, "weights_renamed"}}});
  EXPECT_EQ(err, Error::InvalidProgram);
  EXPECT_NE(detail.find("names key 'weights_renamed'"), std::string::npos) << detail;
  EXPECT_NE(detail.find("which has no data in the file"), std::string::npos) << detail;
}

TEST(RuntimeHandMade, NamedDataOutsideTheFileIsRefused) {
  auto [err, detail] = load_error({.named = {{"a", 0, 64}, {"b", 128, 64}}, .data_size = 128});
  EXPECT_EQ(err, Error::InvalidProgram);
  EXPECT_NE(detail.find("named data 'b' [128, +64) is outside the data segment of 128 bytes"), std::string::npos) << detail;
  // An offset whose end wraps around 2^64.
  std::tie(err, detail) = load_error({.named = {{"a", 0, 64}, {"b", UINT64_MAX - 63, 128}}, .data_size = 128});
  EXPECT_EQ(err, Error::InvalidProgram);
  EXPECT_NE(detail.find("named data 'b' [18446744073709551552, +128) is outside the data segment"), std::string::npos)
      << detail;
}

TEST(RuntimeHandMade, OverlappingNamedDataIsRefused) {
  auto [err, detail] = load_error({.named = {{"a", 0, 128}, {"b", 64, 64}}});
  EXPECT_EQ(err, Error::InvalidProgram);
  EXPECT_NE(detail.find("two named-data entries overlap at offset 64"), std::string::npos) << detail;
  // The same region under two keys.
  std::tie(err, detail) = load_error({.named = {{"a", 0, 64}, {"b", 0, 64}}});
  EXPECT_EQ(err, Error::InvalidProgram);
  EXPECT_NE(detail.find("overlap at offset 0"), std::string::npos) << detail;
}

TEST(RuntimeHandMade, MisalignedRegionsAreRefused) {
  auto [err, detail] = load_error({.named = {{"a", 0, 64}, {"b", 96, 64}}});
  EXPECT_EQ(err, Error::InvalidProgram);
  EXPECT_NE(detail.find("named data 'b' at offset 96 is not 64-byte aligned"), std::string::npos) << detail;
  std::tie(err, detail) = load_error({.named = {{"a", 0, 64}}, .data_offset_skew = 8});
  EXPECT_EQ(err, Error::InvalidProgram);
  EXPECT_NE(detail.find("is not 64-byte aligned"), std::string::npos) << detail;
  std::tie(err, detail) = load_error({.named = {{"a", 0, 64}}, .payload = Region{"payload", 72, 64}});
  EXPECT_EQ(err, Error::InvalidProgram);
  EXPECT_NE(detail.find("payload at offset 72 is not 64-byte aligned"), std::string::npos) << detail;
  std::tie(err, detail) = load_error({.named = {{"a", 0, 64}}, .activation_offset = 32});
  EXPECT_EQ(err, Error::InvalidProgram);
  EXPECT_NE(detail.find("(act) offset 32 is not 64-byte aligned"), std::string::npos) << detail;
}

TEST(RuntimeHandMade, PayloadOutsideTheFileIsRefused) {
  const auto [err, detail] = load_error({.named = {{"a", 0, 64}}, .payload = Region{"payload", 64, 128}, .data_size = 128});
  EXPECT_EQ(err, Error::InvalidProgram);
  EXPECT_NE(detail.find("payload [64, +128) is outside the data segment of 128 bytes"), std::string::npos) << detail;
}

// Not checked yet (src/runtime/program.cpp, Program::parse_table): a
// delegate payload may share bytes with named data or another payload.
// Enable once the loader checks it.
TEST(RuntimeHandMade, PayloadOverlappingNamedDataIsRefused) {
  const auto [err, detail] = load_error({.named = {{"a", 0, 128}}, .payload = Region{"payload", 64, 64}});
  EXPECT_EQ(err, Error::InvalidProgram) << detail;
  EXPECT_NE(detail.find("overlap"), std::string::npos) << detail;
}

}  // namespace
}  // namespace edgec

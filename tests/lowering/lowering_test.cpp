// Partitioning and to_backend end to end (docs/semantics.md §4-6): programs are
// lowered with the reference backend, written to a program file and run by
// the runtime; outputs are checked against values computed here and against
// the same program on the portable kernels only.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>

#include "compiler/backends.h"
#include "base/diagnostic.h"
#include "ir/text.h"
#include "ir/verifier.h"
#include "lowering/partition.h"
#include "compiler/pass_registry.h"
#include "compiler/pipeline.h"
#include "lowering/to_backend.h"
#include "runtime/method.h"
#include "serialize/writer.h"

namespace edgec {
namespace {

// w's values are chosen to appear nowhere else in a file, so that counting
// their byte pattern counts the copies of w's data.
const float kW[4] = {1.25f, -2.5f, 3.75f, 0.3125f};
const float kX[4] = {0.5f, -1.0f, 2.0f, 0.25f};

std::string w_literal() { return "dense<[1.25, -2.5, 3.75, 0.3125]> : f32[4]"; }

/// A constant read twice by each of two delegates (adds, muls) and by calls
/// left in the owner, whose readers come first and last in graph order.
std::string shared_program(const std::string& kind) {
  std::string spec = "input " + kind + " %w target = \"w\"";
  if (kind == "buffer") spec += " persistent = false";
  const std::string store = kind == "parameter" ? "state" : "constants";
  return "program dialect = \"edge\"\n"
         "signature {\n"
         "  input user_input %x target = \"x\"\n"
         "  " + spec + "\n"
         "  output user_output %r target = \"y\"\n"
         "}\n"
         "graph {\n"
         "  %x = placeholder : f32[4]\n"
         "  %w = placeholder : f32[4]\n"
         "  %o1 = edge.sub.Tensor(%x, %w) : f32[4]\n"
         "  %a1 = edge.add.Tensor(%o1, %w) : f32[4]\n"
         "  %a2 = edge.add.Tensor(%a1, %w) : f32[4]\n"
         "  %s = edge.sin.default(%a2) : f32[4]\n"
         "  %m1 = edge.mul.Tensor(%s, %w) : f32[4]\n"
         "  %m2 = edge.mul.Tensor(%m1, %w) : f32[4]\n"
         "  %r = edge.sub.Tensor(%m2, %w) : f32[4]\n"
         "  output(%r)\n"
         "}\n" +
         store + " {\n  \"w\" = " + w_literal() + "\n}\n";
}

std::vector<float> expected_shared() {
  std::vector<float> out;
  for (int i = 0; i < 4; ++i) {
    const float w = kW[i];
    const float a2 = ((kX[i] - w) + w) + w;
    out.push_back(std::sin(a2) * w * w - w);
  }
  return out;
}

/// Runs a program file on x (f32[4]) and returns its outputs, concatenated.
std::vector<float> run_file(const std::vector<std::byte>& file) {
  auto loaded = runtime::Program::load_from_bytes(file);
  if (!loaded.ok()) throw CompileError("load: " + error_detail());
  auto method = runtime::Method::create(**loaded, 1);
  if (!method.ok()) throw CompileError("prepare: " + error_detail());
  float x[4];
  std::memcpy(x, kX, sizeof x);
  const int64_t shape[1] = {4};
  if ((*method)->set_input(0, make_tensor(DType::Float32, shape, x, sizeof x)) != Error::Ok)
    throw CompileError("set_input: " + error_detail());
  if ((*method)->execute() != Error::Ok) throw CompileError("execute: " + error_detail());
  std::vector<float> all;  // every output, concatenated
  for (size_t i = 0; i < (*method)->num_outputs(); ++i) {
    const Tensor& out = (*method)->output(i);
    all.insert(all.end(), out.data_as<float>(), out.data_as<float>() + out.numel());
  }
  return all;
}

size_t count_pattern(const std::vector<std::byte>& file, const void* pattern, size_t n) {
  size_t count = 0;
  for (size_t i = 0; i + n <= file.size(); ++i)
    if (std::memcmp(file.data() + i, pattern, n) == 0) ++count;
  return count;
}

/// How many input specs of `p` name `target`.
size_t target_count(const Program& p, const std::string& target) {
  size_t n = 0;
  for (const auto& s : p.inputs) n += s.target == target;
  return n;
}

void expect_each_program_takes_w_once(const Program& p) {
  const auto& in = p.inputs;
  EXPECT_EQ(target_count(p, "w"), 1u) << print_program(p);
  EXPECT_FALSE(in.empty());
  ASSERT_EQ(p.delegates.size(), 2u) << print_program(p);
  for (const auto& d : p.delegates) EXPECT_EQ(target_count(*d.program, "w"), 1u) << print_program(*d.program);
}

std::unique_ptr<Program> parse(const std::string& text) { return parse_program(text, "test.ir"); }

void finish(Program& p) {
  find_pass("memory_plan")->create("")->run(p);
  verify_or_throw(p);
}

class SharedConstant : public ::testing::TestWithParam<std::string> {};

// docs/semantics.md §5.2, 5.3, 5.6, 5.7 and 6: one to_backend call or two give the
// same program and the same file; every program takes w once; the file
// stores w's bytes once; outputs match the formula and the portable run.
TEST_P(SharedConstant, OneOrTwoToBackendCallsAgree) {
  const std::string text = shared_program(GetParam());

  auto one = parse(text);
  partition_program(*one, make_partitioners("reference:add,reference:mul"));
  EXPECT_EQ(to_backend(*one), 2u);
  finish(*one);
  expect_each_program_takes_w_once(*one);

  auto two = parse(text);
  partition_program(*two, make_partitioners("reference:add,reference:mul"));
  EXPECT_EQ(to_backend(*two, {"reference:0"}), 1u);
  verify_or_throw(*two);
  EXPECT_EQ(to_backend(*two, {"reference:1"}), 1u);
  finish(*two);

  auto sequential = parse(text);
  partition_program(*sequential, make_partitioners("reference:add"));
  to_backend(*sequential);
  partition_program(*sequential, make_partitioners("reference:mul"));
  to_backend(*sequential);
  finish(*sequential);

  EXPECT_EQ(print_program(*one), print_program(*two));
  EXPECT_EQ(print_program(*one), print_program(*sequential));
  const auto file = serialize_program(*one);
  EXPECT_EQ(file, serialize_program(*two));
  EXPECT_EQ(file, serialize_program(*sequential));
  EXPECT_EQ(count_pattern(file, kW, sizeof kW), 1u) << "w's bytes must be stored once";

  auto portable = parse(text);
  compile_program(*portable, {}, "none");
  const auto want = expected_shared();
  const auto got = run_file(file);
  const auto cpu = run_file(serialize_program(*portable));
  ASSERT_EQ(got.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-5) << i;
    EXPECT_EQ(got[i], cpu[i]) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, SharedConstant, ::testing::Values("constant", "buffer", "parameter"));

// Two delegates sharing two constants: partitioners in either priority
// order (they take disjoint operators) and renamed tags give identical
// files (docs/semantics.md §4.2, 5.6).
std::string two_constants_program() {
  return "program dialect = \"edge\"\n"
         "signature {\n"
         "  input user_input %x target = \"x\"\n"
         "  input constant %u target = \"u\"\n"
         "  input constant %v target = \"v\"\n"
         "  output user_output %r target = \"y\"\n"
         "}\n"
         "graph {\n"
         "  %x = placeholder : f32[4]\n"
         "  %u = placeholder : f32[4]\n"
         "  %v = placeholder : f32[4]\n"
         "  %a = edge.add.Tensor(%x, %u) : f32[4]\n"
         "  %b = edge.add.Tensor(%a, %v) : f32[4]\n"
         "  %s = edge.sin.default(%b) : f32[4]\n"
         "  %m = edge.mul.Tensor(%s, %v) : f32[4]\n"
         "  %r = edge.mul.Tensor(%m, %u) : f32[4]\n"
         "  output(%r)\n"
         "}\n"
         "constants {\n"
         "  \"u\" = " + w_literal() + "\n"
         "  \"v\" = dense<[7.0, 8.0, 9.0, 10.0]> : f32[4]\n"
         "}\n";
}

std::vector<std::byte> lower_two_constants(const std::string& backends, const std::map<std::string, std::string>& rename) {
  auto p = parse(two_constants_program());
  partition_program(*p, make_partitioners(backends));
  for (Node* n : p->graph.calls()) {
    auto it = rename.find(n->tag());
    if (it != rename.end()) n->set_tag(it->second);
  }
  to_backend(*p);
  finish(*p);
  EXPECT_EQ(p->delegates.size(), 2u);
  for (const auto& d : p->delegates) {
    EXPECT_EQ(target_count(*d.program, "u"), 1u);
    EXPECT_EQ(target_count(*d.program, "v"), 1u);
  }
  EXPECT_EQ(target_count(*p, "u") + target_count(*p, "v"), 0u) << print_program(*p);
  return serialize_program(*p);
}

TEST(Lowering, PartitionerOrderAndTagNamesDoNotChangeTheFile) {
  const auto a = lower_two_constants("reference:add,reference:mul", {});
  const auto b = lower_two_constants("reference:mul,reference:add", {});
  const auto c = lower_two_constants("reference:add,reference:mul",
                                     {{"reference:0", "reference:zz"}, {"reference:1", "reference:aa"}});
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
  EXPECT_EQ(count_pattern(a, kW, sizeof kW), 1u);
}

// docs/semantics.md §5.8: a buffer the program mutates is never copied; a delegate
// that reads it gets it from the owner as an input.
TEST(Lowering, MutatedBufferIsNotCopied) {
  auto p = parse(
      "program dialect = \"edge\"\n"
      "signature {\n"
      "  input user_input %x target = \"x\"\n"
      "  input buffer %b target = \"count\" persistent = true\n"
      "  output buffer_mutation %nb target = \"count\"\n"
      "  output user_output %y target = \"y\"\n"
      "}\n"
      "graph {\n"
      "  %x = placeholder : f32[4]\n"
      "  %b = placeholder : f32[4]\n"
      "  %nb = edge.add.Tensor(%b, %x) : f32[4]\n"
      "  %y = edge.mul.Tensor(%b, %x) : f32[4]\n"
      "  output(%nb, %y)\n"
      "}\n"
      "state {\n  \"count\" = dense<1.0> : f32[4]\n}\n");
  partition_program(*p, make_partitioners("reference:mul"));
  to_backend(*p);
  ASSERT_EQ(p->delegates.size(), 1u);
  EXPECT_EQ(target_count(*p, "count"), 1u);
  const Program& d = *p->delegates[0].program;
  EXPECT_EQ(target_count(d, "count"), 0u) << print_program(d);
  ASSERT_EQ(d.inputs.size(), 2u);
  EXPECT_EQ(d.inputs[0].kind, InputKind::UserInput);
  EXPECT_EQ(d.inputs[1].kind, InputKind::UserInput);
}

// docs/semantics.md §5.4: a constant read through concat([w, w]) in one delegate and
// directly in another lowers (each delegate takes w once, the owner not at
// all), the file stores w once, and the outputs equal the portable run's.
TEST(Lowering, ConstantInAListOperand) {
  // A parameter, so that constant_prop does not fold the concat away.
  const std::string text =
      "program dialect = \"edge\"\n"
      "signature {\n"
      "  input user_input %x target = \"x\"\n"
      "  input parameter %w target = \"w\"\n"
      "  output user_output %s target = \"y\"\n"
      "  output user_output %m target = \"z\"\n"
      "}\n"
      "graph {\n"
      "  %x = placeholder : f32[4]\n"
      "  %w = placeholder : f32[2]\n"
      "  %c = edge.concat.default([%w, %w], dim = 0) : f32[4]\n"
      "  %s = edge.sin.default(%c) : f32[4]\n"
      "  %h = edge.slice.default(%x, dims = [0], starts = [0], ends = [2]) : f32[2]\n"
      "  %m = edge.mul.Tensor(%h, %w) : f32[2]\n"
      "  output(%s, %m)\n"
      "}\n"
      "state {\n  \"w\" = dense<[1.25, -2.5]> : f32[2]\n}\n";
  auto portable = parse(text);
  compile_program(*portable, {}, "none");
  auto p = parse(text);
  compile_program(*p, {}, "reference:concat,reference:mul");
  ASSERT_EQ(p->delegates.size(), 2u) << print_program(*p);
  EXPECT_EQ(target_count(*p, "w"), 0u);
  for (const auto& d : p->delegates) EXPECT_EQ(target_count(*d.program, "w"), 1u);
  const auto file = serialize_program(*p);
  const float w[2] = {1.25f, -2.5f};
  EXPECT_EQ(count_pattern(file, w, sizeof w), 1u);
  EXPECT_EQ(run_file(file), run_file(serialize_program(*portable)));
}

TEST(Lowering, UnknownBackendNamesTheKnownOnes) {
  try {
    make_partitioners("onednnn");
    FAIL() << "no error";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown backend 'onednnn'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("reference"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(make_partitioners("none").empty());
}

TEST(Lowering, ToBackendOfAMissingTagFails) {
  auto p = parse(two_constants_program());
  partition_program(*p, make_partitioners("reference:add"));
  EXPECT_THROW(to_backend(*p, {"reference:9"}), CompileError);
}

// Random DAGs of taken (add, mul) and refused (sin, neg, sub) calls over two
// shared constants, lowered with one and with two partitioners: lowering
// must never create a cycle (docs/semantics.md §4.3), every program must verify and
// take each target once (5.7), and the outputs must equal the portable
// run's exactly (the same kernels run either way).
TEST(Lowering, RandomGraphsLowerAndMatch) {
  uint64_t state = 12345;
  auto next = [&state](uint64_t n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<size_t>((state >> 33) % n);
  };
  const char* ops[] = {"edge.add.Tensor", "edge.mul.Tensor", "edge.sub.Tensor", "edge.sin.default",
                       "edge.neg.default"};
  size_t delegates = 0, multi_delegate_programs = 0;
  for (int round = 0; round < 150; ++round) {
    std::vector<std::string> values = {"x", "u", "v"};
    std::string graph;
    const size_t n = 4 + next(28);
    for (size_t i = 0; i < n; ++i) {
      const std::string op = ops[next(5)];
      const bool binary = op.find("Tensor") != std::string::npos;
      const std::string name = "n" + std::to_string(i);
      // Prefer recent values, so that chains and diamonds both appear.
      auto pick = [&] { return values[values.size() - 1 - next(std::min<size_t>(values.size(), 5))]; };
      graph += "  %" + name + " = " + op + "(%" + pick() + (binary ? ", %" + pick() : std::string()) + ") : f32[4]\n";
      values.push_back(name);
    }
    // Return the last value and one earlier, so partitions have several outputs.
    const std::string out1 = values.back(), out2 = values[3 + next(n)];
    const std::string text =
        "program dialect = \"edge\"\n"
        "signature {\n"
        "  input user_input %x target = \"x\"\n"
        "  input constant %u target = \"u\"\n"
        "  input parameter %v target = \"v\"\n"
        "  output user_output %" + out1 + " target = \"y\"\n"
        "  output user_output %" + out2 + " target = \"z\"\n"
        "}\n"
        "graph {\n"
        "  %x = placeholder : f32[4]\n"
        "  %u = placeholder : f32[4]\n"
        "  %v = placeholder : f32[4]\n" +
        graph + "  output(%" + out1 + ", %" + out2 + ")\n}\n"
        "constants {\n  \"u\" = dense<[0.5, 0.25, -0.75, 1.0]> : f32[4]\n}\n"
        "state {\n  \"v\" = dense<[0.125, -0.5, 0.375, 0.625]> : f32[4]\n}\n";
    SCOPED_TRACE(text);
    auto portable = parse(text);
    compile_program(*portable, {}, "none");
    const auto want = run_file(serialize_program(*portable));
    for (const char* backends : {"reference:add+mul", "reference:add,reference:mul+sin"}) {
      auto p = parse(text);
      ASSERT_NO_THROW(compile_program(*p, {}, backends)) << backends;
      EXPECT_LE(target_count(*p, "u"), 1u);
      for (const auto& d : p->delegates) {
        EXPECT_LE(target_count(*d.program, "u"), 1u);
        EXPECT_LE(target_count(*d.program, "v"), 1u);
      }
      EXPECT_EQ(run_file(serialize_program(*p)), want) << backends;
      delegates += p->delegates.size();
      multi_delegate_programs += p->delegates.size() > 1;
    }
  }
  // The generator must exercise the rules: many delegates, often several per program.
  EXPECT_GT(delegates, 300u);
  EXPECT_GT(multi_delegate_programs, 100u);
}

}  // namespace
}  // namespace edgec

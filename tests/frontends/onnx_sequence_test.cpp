// ONNX's sequence operators (ops_sequence.cpp), which the importer lowers to
// tensor operators: small models built here, compiled and run as `edgec
// compile` and `edgec run` do (import, lowering, the program file, the
// runtime), against values written out by hand. Positions given at run
// time are graph inputs, run with several values (negative ones too, and
// one out of range, which execute refuses); positions known at import time
// leave no calls behind. Elements of different shapes at run-time
// positions are picked at run time.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "frontends/onnx/importer.h"
#include "frontends/onnx/tensor_data.h"
#include "ir/text.h"
#include "support/onnx_cases.h"
#include "support/onnx_model.h"

namespace edgec {
namespace {

using onnx::TensorProto;
using onnx_import::data_as_doubles;
using onnx_import::make_data;

const char* kWhat = "sequence.onnx";

/// A model of opset 17 built node by node; each node is named '/OUTPUT'.
struct SeqModel {
  onnx::ModelProto proto = empty_onnx_model();

  onnx::GraphProto* g() { return proto.mutable_graph(); }
  SeqModel& input(const std::string& name, const std::vector<int64_t>& dims, int elem = TensorProto::FLOAT) {
    add_input(g(), name, dims, elem);
    return *this;
  }
  /// A graph input "pos": an int64 scalar given at run time.
  SeqModel& position() { return input("pos", {}, TensorProto::INT64); }
  /// An int64 initializer of `dims` (a scalar when empty).
  SeqModel& ints(const std::string& name, const std::vector<int64_t>& values, const std::vector<int64_t>& dims) {
    auto* t = g()->add_initializer();
    t->set_name(name);
    t->set_data_type(TensorProto::INT64);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t v : values) t->add_int64_data(v);
    return *this;
  }
  onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& ins, const std::string& out) {
    return add_node(g(), "/" + out, op, ins, {out});
  }
  SeqModel& output(const std::string& name) {
    g()->add_output()->set_name(name);
    return *this;
  }
};

std::unique_ptr<Program> import_model(const SeqModel& m) {
  const std::string bytes = m.proto.SerializeAsString();
  return import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), kWhat);
}

/// Compiles `m` and runs it on `inputs` (by graph input name).
std::vector<TensorData> compile_and_run(const SeqModel& m, std::map<std::string, TensorData> inputs) {
  auto program = import_model(m);
  lower_program(*program);
  const auto file = serialize_program(*program);
  return onnx_cases::run_file(file, inputs);
}

TensorData f32(const std::vector<int64_t>& shape, const std::vector<double>& v) {
  return make_data(DType::Float32, shape, v);
}
TensorData pos(int64_t p) { return make_data(DType::Int64, {}, {static_cast<double>(p)}); }

// a, b, c: f32[2, 2], each value naming its tensor and place.
const std::vector<double> kA = {1, 2, 3, 4}, kB = {11, 12, 13, 14}, kC = {21, 22, 23, 24};

std::map<std::string, TensorData> abc(int64_t p) {
  return {{"a", f32({2, 2}, kA)}, {"b", f32({2, 2}, kB)}, {"c", f32({2, 2}, kC)}, {"pos", pos(p)}};
}

SeqModel abc_model() {
  SeqModel m;
  m.input("a", {2, 2}).input("b", {2, 2}).input("c", {2, 2}).position();
  return m;
}

std::vector<double> cat(std::initializer_list<std::vector<double>> parts) {
  std::vector<double> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

void expect_values(const TensorData& got, const std::vector<int64_t>& shape, const std::vector<double>& want) {
  EXPECT_EQ(got.type.static_shape(), shape);
  EXPECT_EQ(data_as_doubles(got), want);
}

TEST(OnnxSequence, SequenceAtARunTimePosition) {
  SeqModel m = abc_model();
  m.node("SequenceConstruct", {"a", "b", "c"}, "s");
  m.node("SequenceAt", {"s", "pos"}, "y");
  m.output("y");
  expect_values(compile_and_run(m, abc(1)).at(0), {2, 2}, kB);
  expect_values(compile_and_run(m, abc(-1)).at(0), {2, 2}, kC);
  expect_values(compile_and_run(m, abc(-3)).at(0), {2, 2}, kA);
  // ONNX: a position out of [-3, 2] is an error; execute returns one.
  try {
    compile_and_run(m, abc(3));
    ADD_FAILURE() << "position 3 of 3 elements ran";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("execute"), std::string::npos) << e.what();
  }
}

TEST(OnnxSequence, SequenceInsertAtARunTimePosition) {
  SeqModel m = abc_model();
  m.node("SequenceConstruct", {"a", "b"}, "s");
  m.node("SequenceInsert", {"s", "c", "pos"}, "t");
  set_int_attr(m.node("ConcatFromSequence", {"t"}, "y"), "axis", 0);
  m.output("y");
  expect_values(compile_and_run(m, abc(0)).at(0), {6, 2}, cat({kC, kA, kB}));
  expect_values(compile_and_run(m, abc(-1)).at(0), {6, 2}, cat({kA, kC, kB}));
  expect_values(compile_and_run(m, abc(2)).at(0), {6, 2}, cat({kA, kB, kC}));
  expect_values(compile_and_run(m, abc(-2)).at(0), {6, 2}, cat({kC, kA, kB}));
  for (int64_t bad : {3, -3}) {
    try {
      compile_and_run(m, abc(bad));
      ADD_FAILURE() << "insert at " << bad << " into 2 elements ran";
    } catch (const CompileError& e) {
      EXPECT_NE(std::string(e.what()).find("execute"), std::string::npos) << e.what();
    }
  }
}

TEST(OnnxSequence, SequenceEraseAtARunTimePosition) {
  SeqModel m = abc_model();
  m.node("SequenceConstruct", {"a", "b", "c"}, "s");
  m.node("SequenceErase", {"s", "pos"}, "t");
  auto* concat = m.node("ConcatFromSequence", {"t"}, "y");
  set_int_attr(concat, "axis", -1);
  set_int_attr(concat, "new_axis", 1);
  m.output("y");
  // Stacked last: y[i][j][k] is element k's [i][j].
  auto stack_last = [](const std::vector<double>& p, const std::vector<double>& q) {
    return std::vector<double>{p[0], q[0], p[1], q[1], p[2], q[2], p[3], q[3]};
  };
  expect_values(compile_and_run(m, abc(0)).at(0), {2, 2, 2}, stack_last(kB, kC));
  expect_values(compile_and_run(m, abc(-2)).at(0), {2, 2, 2}, stack_last(kA, kC));
  expect_values(compile_and_run(m, abc(2)).at(0), {2, 2, 2}, stack_last(kA, kB));
  try {
    compile_and_run(m, abc(-4));
    ADD_FAILURE() << "erase at -4 of 3 elements ran";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("execute"), std::string::npos) << e.what();
  }
}

// Erase then insert then at, all at run time, as libonnx-testdata's
// test_sequence_model3 does (its positions are -3, -1, -1).
TEST(OnnxSequence, RunTimePositionsChain) {
  SeqModel m = abc_model();
  m.input("p2", {}, TensorProto::INT64).input("p3", {}, TensorProto::INT64);
  m.node("SequenceConstruct", {"a", "b", "c"}, "s");
  m.node("SequenceErase", {"s", "pos"}, "t");
  m.node("SequenceInsert", {"t", "a", "p2"}, "u");
  m.node("SequenceAt", {"u", "p3"}, "y");
  m.output("y");
  auto run = [&](int64_t p1, int64_t p2, int64_t p3) {
    auto in = abc(p1);
    in["p2"] = pos(p2);
    in["p3"] = pos(p3);
    return compile_and_run(m, in).at(0);
  };
  // [a b c] -erase -3-> [b c] -insert a at -1-> [b a c] -at -1-> c.
  expect_values(run(-3, -1, -1), {2, 2}, kC);
  // [a b c] -erase 1-> [a c] -insert a at 2-> [a c a] -at 1-> c; at 0 -> a.
  expect_values(run(1, 2, 1), {2, 2}, kC);
  expect_values(run(1, 0, 1), {2, 2}, kA);
}

// Positions known at import time pick elements: no calls at all.
TEST(OnnxSequence, ConstantPositionsLeaveNoCalls) {
  SeqModel m = abc_model();
  m.ints("one", {1}, {}).ints("minus_one", {-1}, {});
  m.node("SequenceConstruct", {"a", "b", "c"}, "s");
  m.node("SequenceErase", {"s", "one"}, "t");             // [a c]
  m.node("SequenceInsert", {"t", "b", "minus_one"}, "u");  // [a b c]
  m.node("SequenceInsert", {"u", "a"}, "v");               // [a b c a]
  m.node("SequenceAt", {"v", "minus_one"}, "y");           // a
  m.node("SequenceLength", {"v"}, "n");
  m.output("y").output("n");
  auto program = import_model(m);
  for (const Node* n : program->graph.nodes())
    EXPECT_TRUE(!n->is_call() || n->op().find("clone") != std::string::npos) << print_program(*program);
  const auto out = compile_and_run(m, abc(0));
  expect_values(out.at(0), {2, 2}, kA);
  EXPECT_EQ(out.at(1).type.dtype, DType::Int64);
  expect_values(out.at(1), {}, {4});
}

TEST(OnnxSequence, SplitToSequence) {
  SeqModel m;
  m.input("x", {2, 5});
  m.ints("two", {2}, {});
  set_int_attr(m.node("SplitToSequence", {"x", "two"}, "chunks"), "axis", 1);  // sizes 2, 2, 1
  m.node("SequenceLength", {"chunks"}, "n_chunks");
  set_int_attr(m.node("ConcatFromSequence", {"chunks"}, "back"), "axis", 1);
  auto* cols = m.node("SplitToSequence", {"x"}, "cols");
  set_int_attr(cols, "axis", -1);
  set_int_attr(cols, "keepdims", 0);
  m.ints("three", {3}, {});
  m.node("SequenceAt", {"cols", "three"}, "col3");
  m.ints("sizes", {1, 1}, {2});
  m.node("SplitToSequence", {"x", "sizes"}, "rows");  // axis 0
  m.node("SequenceAt", {"rows", "one"}, "row1");
  m.ints("one", {1}, {});
  m.output("n_chunks").output("back").output("col3").output("row1");
  const std::vector<double> x = {0, 1, 2, 3, 4, 10, 11, 12, 13, 14};
  const auto out = compile_and_run(m, {{"x", f32({2, 5}, x)}});
  expect_values(out.at(0), {}, {3});
  expect_values(out.at(1), {2, 5}, x);
  expect_values(out.at(2), {2}, {3, 13});
  expect_values(out.at(3), {1, 5}, {10, 11, 12, 13, 14});
}

// The number of split sizes is the sequence's length, though the sizes
// are given at run time (libonnx-testdata's test_sequence_model8).
TEST(OnnxSequence, LengthOfARunTimeSplit) {
  SeqModel m;
  m.input("x", {7}).input("splits", {3}, TensorProto::INT64);
  m.node("SplitToSequence", {"x", "splits"}, "s");
  m.node("SequenceLength", {"s"}, "n");
  m.output("n");
  const auto out = compile_and_run(m, {{"x", f32({7}, {0, 1, 2, 3, 4, 5, 6})},
                                       {"splits", make_data(DType::Int64, {3}, {2, 2, 3})}});
  expect_values(out.at(0), {}, {3});
}

// Identity (opset 14 on) passes a sequence through; a sequence cannot be
// a graph output.
TEST(OnnxSequence, IdentityOfASequence) {
  SeqModel m = abc_model();
  m.node("SequenceConstruct", {"a", "b", "c"}, "s");
  m.node("Identity", {"s"}, "t");
  m.node("SequenceAt", {"t", "pos"}, "y");
  m.output("y");
  expect_values(compile_and_run(m, abc(-2)).at(0), {2, 2}, kB);
  m.output("t");
  try {
    import_model(m);
    ADD_FAILURE() << "a sequence graph output imported";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("graph output 't': 't' is a sequence (of 3 f32 tensors)"), std::string::npos)
        << e.what();
  }
}

// Elements of different shapes at run-time positions are tracked by
// identity and picked at run time (ops_sequence.cpp): the result's dims
// where the elements differ are sized when the program runs.
// x: f32[1, 2], y: f32[2, 2], z: f32[3, 2], each value naming its tensor.
const std::vector<double> kX = {1, 2}, kY = {11, 12, 13, 14}, kZ = {21, 22, 23, 24, 25, 26};

std::map<std::string, TensorData> xyz(std::map<std::string, int64_t> positions) {
  std::map<std::string, TensorData> in = {{"x", f32({1, 2}, kX)}, {"y", f32({2, 2}, kY)}, {"z", f32({3, 2}, kZ)}};
  for (const auto& [name, p] : positions) in[name] = pos(p);
  return in;
}

SeqModel xyz_model(const std::vector<std::string>& positions) {
  SeqModel m;
  m.input("x", {1, 2}).input("y", {2, 2}).input("z", {3, 2});
  for (const auto& p : positions) m.input(p, {}, TensorProto::INT64);
  return m;
}

void expect_execute_fails(const SeqModel& m, const std::map<std::string, TensorData>& in, const std::string& what) {
  try {
    compile_and_run(m, in);
    ADD_FAILURE() << what << " ran";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("execute"), std::string::npos) << e.what();
  }
}

TEST(OnnxSequence, ShapesAtARunTimePosition) {
  SeqModel m = xyz_model({"pos"});
  m.node("SequenceConstruct", {"x", "y", "z"}, "s");
  m.node("SequenceAt", {"s", "pos"}, "out");
  m.output("out");
  expect_values(compile_and_run(m, xyz({{"pos", 0}})).at(0), {1, 2}, kX);
  expect_values(compile_and_run(m, xyz({{"pos", 2}})).at(0), {3, 2}, kZ);
  expect_values(compile_and_run(m, xyz({{"pos", -2}})).at(0), {2, 2}, kY);
  expect_values(compile_and_run(m, xyz({{"pos", -3}})).at(0), {1, 2}, kX);
  expect_execute_fails(m, xyz({{"pos", 3}}), "position 3 of 3 elements");
  expect_execute_fails(m, xyz({{"pos", -4}}), "position -4 of 3 elements");
}

// libonnx-testdata's test_sequence_model1: three inserts into an empty
// sequence at run-time positions, then the element at another.
TEST(OnnxSequence, ShapesInsertedAtRunTimePositions) {
  SeqModel m = xyz_model({"p1", "p2", "p3", "pos"});
  m.node("SequenceEmpty", {}, "s0");
  m.node("SequenceInsert", {"s0", "x", "p1"}, "s1");
  m.node("SequenceInsert", {"s1", "y", "p2"}, "s2");
  m.node("SequenceInsert", {"s2", "z", "p3"}, "s3");
  m.node("SequenceAt", {"s3", "pos"}, "out");
  m.node("SequenceLength", {"s3"}, "n");
  m.output("out").output("n");
  auto run = [&](int64_t p1, int64_t p2, int64_t p3, int64_t at) {
    return compile_and_run(m, xyz({{"p1", p1}, {"p2", p2}, {"p3", p3}, {"pos", at}}));
  };
  // [] -x at 0-> [x] -y at 0-> [y x] -z at 1-> [y z x].
  expect_values(run(0, 0, 1, 0).at(0), {2, 2}, kY);
  expect_values(run(0, 0, 1, 1).at(0), {3, 2}, kZ);
  expect_values(run(0, 0, 1, -1).at(0), {1, 2}, kX);
  expect_values(run(0, 0, 1, -1).at(1), {}, {3});
  // [] -x at -0-> [x] -y at -1-> [y x] -z at -2-> [z y x]; and at 2: [y x z].
  expect_values(run(0, -1, -2, 0).at(0), {3, 2}, kZ);
  expect_values(run(0, -1, 2, -1).at(0), {3, 2}, kZ);
  expect_values(run(0, 1, 2, 1).at(0), {2, 2}, kY);
  expect_execute_fails(m, xyz({{"p1", 0}, {"p2", 2}, {"p3", 0}, {"pos", 0}}), "insert at 2 into 1 element");
  expect_execute_fails(m, xyz({{"p1", 0}, {"p2", 0}, {"p3", -3}, {"pos", 0}}), "insert at -3 into 2 elements");
  expect_execute_fails(m, xyz({{"p1", 0}, {"p2", 0}, {"p3", 0}, {"pos", 3}}), "position 3 of 3 elements");
}

// Once elements are tracked by identity, an erase at a run-time position
// and positions known at import time keep the order right.
TEST(OnnxSequence, ShapesErasedAtARunTimePosition) {
  SeqModel m = xyz_model({"pos"});
  m.ints("zero", {0}, {}).ints("minus_one", {-1}, {});
  m.node("SequenceConstruct", {"x", "y", "z"}, "s");
  m.node("SequenceErase", {"s", "pos"}, "t");
  m.node("SequenceInsert", {"t", "x", "zero"}, "u");  // x first
  m.node("SequenceAt", {"u", "minus_one"}, "last");
  m.node("SequenceAt", {"u", "zero"}, "first");
  m.node("SequenceErase", {"u", "zero"}, "v");
  m.node("SequenceAt", {"v", "zero"}, "second");
  m.output("last").output("first").output("second");
  // [x y z] -erase 0-> [y z] -insert x at 0-> [x y z].
  auto out = compile_and_run(m, xyz({{"pos", 0}}));
  expect_values(out.at(0), {3, 2}, kZ);
  expect_values(out.at(1), {1, 2}, kX);
  expect_values(out.at(2), {2, 2}, kY);
  // [x y z] -erase -1-> [x y] -insert x at 0-> [x x y].
  out = compile_and_run(m, xyz({{"pos", -1}}));
  expect_values(out.at(0), {2, 2}, kY);
  expect_values(out.at(1), {1, 2}, kX);
  expect_values(out.at(2), {1, 2}, kX);
  expect_execute_fails(m, xyz({{"pos", 3}}), "erase at 3 of 3 elements");
}

TEST(OnnxSequence, Float64SequenceAtARunTimePosition) {
  SeqModel m;
  m.input("x", {3, 2}, TensorProto::DOUBLE).position();
  auto* split = m.node("SplitToSequence", {"x"}, "s");
  set_int_attr(split, "keepdims", 0);
  m.node("SequenceAt", {"s", "pos"}, "y");
  m.output("y");
  const auto x = make_data(DType::Float64, {3, 2}, {0.5, 1.5, 2.5, 3.5, 4.25, 5.125});
  auto y = compile_and_run(m, {{"x", x}, {"pos", pos(-1)}}).at(0);
  EXPECT_EQ(y.type.dtype, DType::Float64);
  expect_values(y, {2}, {4.25, 5.125});
  y = compile_and_run(m, {{"x", x}, {"pos", pos(1)}}).at(0);
  expect_values(y, {2}, {2.5, 3.5});
}

}  // namespace
}  // namespace edgec

// Sequences carried through If and Loop (ops_control.cpp, ops_sequence.cpp):
// a sequence is known element by element when compiling, so it passes
// through an If whose condition is known (the taken branch is inlined) and
// a Loop whose trip count is (unrolled), and is refused, saying why and what
// to export instead, where the If or Loop runs at run time. Models built
// here, compiled and run as `edgec compile` and `edgec run` do, against
// values written out by hand.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "frontends/onnx/importer.h"
#include "frontends/onnx/tensor_data.h"
#include "support/onnx_cases.h"
#include "support/onnx_model.h"

namespace edgec {
namespace {

using onnx::TensorProto;
using onnx_import::data_as_doubles;
using onnx_import::make_data;

void add_scalar_initializer(onnx::GraphProto* g, const std::string& name, int elem, int64_t value) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(elem);
  if (elem == TensorProto::INT64)
    t->add_int64_data(value);
  else
    t->add_int32_data(static_cast<int32_t>(value));  // bool
}

/// y = stack([x * 0, x * 1, ..., x * (M - 1)]): a Loop of trip count M
/// appending x * i to a sequence it carries (SequenceEmpty first), then
/// ConcatFromSequence with a new axis. M is an initializer of `trips`, or
/// a graph input when `trips` < 0.
onnx::ModelProto loop_appending(int64_t trips) {
  onnx::ModelProto m = empty_onnx_model();
  auto* g = m.mutable_graph();
  add_input(g, "x", {3});
  if (trips >= 0)
    add_scalar_initializer(g, "M", TensorProto::INT64, trips);
  else
    add_input(g, "M", {}, TensorProto::INT64);
  add_scalar_initializer(g, "go", TensorProto::BOOL, 1);
  set_int_attr(add_node(g, "/empty", "SequenceEmpty", {}, {"s0"}), "dtype", TensorProto::FLOAT);
  onnx::GraphProto body;
  body.set_name("body");
  add_input(&body, "i", {}, TensorProto::INT64);
  add_input(&body, "cond_in", {}, TensorProto::BOOL);
  body.add_input()->set_name("seq_in");
  add_node(&body, "/cond", "Identity", {"cond_in"}, {"cond_out"});
  set_int_attr(add_node(&body, "/fi", "Cast", {"i"}, {"fi"}), "to", TensorProto::FLOAT);
  add_node(&body, "/xi", "Mul", {"x", "fi"}, {"xi"});
  add_node(&body, "/insert", "SequenceInsert", {"seq_in", "xi"}, {"seq_out"});
  body.add_output()->set_name("cond_out");
  body.add_output()->set_name("seq_out");
  set_graph_attr(add_node(g, "/loop", "Loop", {"M", "go", "s0"}, {"s"}), "body", body);
  auto* concat = add_node(g, "/concat", "ConcatFromSequence", {"s"}, {"y"});
  set_int_attr(concat, "axis", 0);
  set_int_attr(concat, "new_axis", 1);
  g->add_output()->set_name("y");
  return m;
}

/// y = ConcatFromSequence(If(k, then: [x, x], else: [-x, x])), axis 0; k
/// an initializer of `cond`, or a graph input when `cond` < 0.
onnx::ModelProto if_returning_sequence(int cond) {
  onnx::ModelProto m = empty_onnx_model();
  auto* g = m.mutable_graph();
  add_input(g, "x", {3});
  if (cond >= 0)
    add_scalar_initializer(g, "k", TensorProto::BOOL, cond);
  else
    add_input(g, "k", {}, TensorProto::BOOL);
  onnx::GraphProto then_g, else_g;
  then_g.set_name("then");
  add_node(&then_g, "/then", "SequenceConstruct", {"x", "x"}, {"ts"});
  then_g.add_output()->set_name("ts");
  else_g.set_name("else");
  add_node(&else_g, "/neg", "Neg", {"x"}, {"nx"});
  add_node(&else_g, "/else", "SequenceConstruct", {"nx", "x"}, {"es"});
  else_g.add_output()->set_name("es");
  auto* n = add_node(g, "/if", "If", {"k"}, {"s"});
  set_graph_attr(n, "then_branch", then_g);
  set_graph_attr(n, "else_branch", else_g);
  set_int_attr(add_node(g, "/concat", "ConcatFromSequence", {"s"}, {"y"}), "axis", 0);
  g->add_output()->set_name("y");
  return m;
}

std::vector<double> compile_and_run(const onnx::ModelProto& m, const OnnxImportOptions& options = {}) {
  const std::string bytes = m.SerializeAsString();
  auto program = import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), "seq.onnx",
                                   options);
  lower_program(*program);
  std::map<std::string, TensorData> inputs = {{"x", make_data(DType::Float32, {3}, {1, 2, 3})}};
  const auto outs = onnx_cases::run_file(serialize_program(*program), inputs);
  EXPECT_EQ(outs.size(), 1u);
  return outs.empty() ? std::vector<double>{} : data_as_doubles(outs[0]);
}

TEST(OnnxSequenceControl, ALoopOfKnownTripCountCarriesASequence) {
  EXPECT_EQ(compile_and_run(loop_appending(4)), (std::vector<double>{0, 0, 0, 1, 2, 3, 2, 4, 6, 3, 6, 9}));
  EXPECT_EQ(compile_and_run(loop_appending(1)), (std::vector<double>{0, 0, 0}));
  // A trip count given as a graph input and fixed when compiling.
  OnnxImportOptions fixed;
  fixed.input_values["M"] = make_data(DType::Int64, {}, {2});
  EXPECT_EQ(compile_and_run(loop_appending(-1), fixed), (std::vector<double>{0, 0, 0, 1, 2, 3}));
}

TEST(OnnxSequenceControl, AnIfOfKnownConditionReturnsASequence) {
  EXPECT_EQ(compile_and_run(if_returning_sequence(1)), (std::vector<double>{1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(compile_and_run(if_returning_sequence(0)), (std::vector<double>{-1, -2, -3, 1, 2, 3}));
}

TEST(OnnxSequenceControl, ALoopRunAtRunTimeCarryingASequenceIsRefused) {
  const std::string e = onnx_import_error(loop_appending(-1).SerializeAsString(), "seq.onnx");
  for (const char* part : {"node '/loop'", "carried value 0, input 2 'v_initial' (value 's0'), is a sequence",
                           "its trip count, input 0 'M', is computed at run time from graph input 'M'",
                           "--fix-inputs", "export it with a fixed trip count, or returning a stacked tensor"})
    EXPECT_NE(e.find(part), std::string::npos) << part << " in: " << e;
}

TEST(OnnxSequenceControl, AnIfRunAtRunTimeReturningASequenceIsRefused) {
  const std::string e = onnx_import_error(if_returning_sequence(-1).SerializeAsString(), "seq.onnx");
  for (const char* part : {"node '/if'", "then_branch output 0 'ts' is a sequence (of 2 f32 tensors)",
                           "its condition, input 0 'cond' (value 'k'), is computed at run time from graph input 'k'",
                           "export the branches returning tensors"})
    EXPECT_NE(e.find(part), std::string::npos) << part << " in: " << e;
}

}  // namespace
}  // namespace edgec

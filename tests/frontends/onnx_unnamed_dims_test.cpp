// Graph input dims with neither a size nor a name (dim_param), as some
// exporters write a voice model's input: the importer names them
// INPUT_dimI (input_dims.h), and a refusal that such a dim causes (a
// condition or a shape that must be known, If branches that differ) says
// which input's dim it is and gives `edgec compile --shape INPUT=...` with
// the input's rank. The same model then compiles with the flag and runs,
// against values written out by hand.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "frontends/onnx/importer.h"
#include "frontends/onnx/refusal.h"
#include "frontends/onnx/tensor_data.h"
#include "support/onnx_cases.h"
#include "support/onnx_model.h"

namespace edgec {
namespace {

using onnx::TensorProto;
using onnx_import::data_as_doubles;
using onnx_import::make_data;

const char* kWhat = "voice.onnx";

std::unique_ptr<Program> import_model(const onnx::ModelProto& m, const OnnxImportOptions& options = {}) {
  const std::string bytes = m.SerializeAsString();
  return import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), kWhat, options);
}

std::string refusal(const onnx::ModelProto& m, const OnnxImportOptions& options = {}) {
  try {
    import_model(m, options);
  } catch (const onnx_import::ImportRefusal& e) {
    return e.what();
  }
  return "(imported)";
}

/// Compiles `m` with `options` and runs it: output 0's type and values.
std::pair<std::string, std::vector<double>> run(const onnx::ModelProto& m, const OnnxImportOptions& options,
                                                std::map<std::string, TensorData> inputs) {
  auto program = import_model(m, options);
  lower_program(*program);
  const auto outs = onnx_cases::run_file(serialize_program(*program), inputs);
  return {outs.at(0).type.str(), data_as_doubles(outs.at(0))};
}

void add_int(onnx::GraphProto* g, const std::string& name, std::vector<int64_t> values, bool scalar) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(TensorProto::INT64);
  if (!scalar) t->add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) t->add_int64_data(v);
}

/// A graph input of `rank` dims, none sized or named.
void add_unnamed_input(onnx::GraphProto* g, const std::string& name, int rank, int elem = TensorProto::FLOAT) {
  auto* vi = g->add_input();
  vi->set_name(name);
  auto* t = vi->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem);
  for (int i = 0; i < rank; ++i) t->mutable_shape()->add_dim();
}

/// input: f32[?, ?]; y = If (input's length == 512) then unsqueeze(input, 2)
/// else input: the branches differ in rank, which is fine once the
/// length is known. `cond_from_flag`: the condition is a bool graph input
/// 'flag' instead.
onnx::ModelProto voice_model(bool cond_from_flag = false) {
  onnx::ModelProto m = empty_onnx_model();
  auto* g = m.mutable_graph();
  add_unnamed_input(g, "input", 2);
  std::string cond = "cond";
  if (cond_from_flag) {
    add_input(g, "flag", {}, TensorProto::BOOL);
    cond = "flag";
  } else {
    add_int(g, "one", {1}, true);
    add_int(g, "n512", {512}, true);
    add_node(g, "/shape", "Shape", {"input"}, {"s"});
    add_node(g, "/gather", "Gather", {"s", "one"}, {"len"});
    add_node(g, "/eq", "Equal", {"len", "n512"}, {"cond"});
  }
  onnx::GraphProto then_g, else_g;
  then_g.set_name("then");
  add_int(&then_g, "axes", {2}, false);
  add_node(&then_g, "/unsqueeze", "Unsqueeze", {"input", "axes"}, {"t_out"});
  then_g.add_output()->set_name("t_out");
  else_g.set_name("else");
  add_node(&else_g, "/identity", "Identity", {"input"}, {"e_out"});
  else_g.add_output()->set_name("e_out");
  auto* n = add_node(g, "/if", "If", {cond}, {"y"});
  set_graph_attr(n, "then_branch", then_g);
  set_graph_attr(n, "else_branch", else_g);
  g->add_output()->set_name("y");
  return m;
}

std::vector<double> ramp(int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(i * 0.25 - 3);
  return v;
}

// Without the input's shape the condition is computed at run time, and the
// branches cannot be one `cond`: the message names the input's dims and
// the flag, with the input's rank.
TEST(OnnxUnnamedDims, IfOnTheInputsLengthNamesTheShapeFlag) {
  const std::string why = refusal(voice_model());
  EXPECT_NE(why.find("voice.onnx: node '/if' (#3, If, domain ai.onnx, opset 17): cond result 0: the branches give "
                     "f32[input_dim0, input_dim1, 1] and f32[input_dim0, input_dim1]; expected one dtype and rank"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("but it is computed at run time from the dims of graph input 'input' that the model neither "
                     "sizes nor names (input_dim0, input_dim1); fix it at compile time (edgec compile --shape "
                     "input=SIZExSIZE)"),
            std::string::npos)
      << why;
}

// With --shape the condition folds and only the taken branch is imported:
// 1x512 takes then (unsqueeze), 1x256 else (the input itself).
TEST(OnnxUnnamedDims, IfOnTheInputsLengthCompilesWithTheShape) {
  const auto m = voice_model();
  for (const int64_t length : {512, 256}) {
    OnnxImportOptions options;
    options.input_shapes["input"] = {1, length};
    const auto x = ramp(static_cast<int>(length));
    const auto [type, values] = run(m, options, {{"input", make_data(DType::Float32, {1, length}, x)}});
    EXPECT_EQ(type, length == 512 ? "f32[1, 512, 1]" : "f32[1, 256]");
    EXPECT_EQ(values, x);
  }
}

// A message that names such a dim for another reason (here the branches'
// types, with the condition from a flag) says which input it is of.
TEST(OnnxUnnamedDims, MessagesNamingTheDimSayWhichInputItIsOf) {
  const std::string why = refusal(voice_model(/*cond_from_flag=*/true));
  EXPECT_NE(why.find("computed at run time from graph input 'flag'; fix it at compile time (edgec compile "
                     "--fix-inputs FILE.npz with an array named 'flag')"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("; input_dim0 and input_dim1 are dims 0 and 1 of graph input 'input', which the model neither "
                     "sizes nor names (edgec compile --shape input=SIZExSIZE sizes them)"),
            std::string::npos)
      << why;
}

// A shape that must be known: Expand to [n + 1] where n is x's unnamed dim.
TEST(OnnxUnnamedDims, AShapeThatMustBeKnownNamesTheShapeFlag) {
  onnx::ModelProto m = empty_onnx_model();
  auto* g = m.mutable_graph();
  add_unnamed_input(g, "x", 1);
  add_int(g, "one", {1}, false);
  add_node(g, "/shape", "Shape", {"x"}, {"s"});
  add_node(g, "/add", "Add", {"s", "one"}, {"s1"});
  add_node(g, "/expand", "Expand", {"x", "s1"}, {"y"});
  g->add_output()->set_name("y");
  const std::string why = refusal(m);
  EXPECT_EQ(why,
            "voice.onnx: node '/expand' (#2, Expand, domain ai.onnx, opset 17): the target shape, input 1 'shape' "
            "(value 's1'), must be known at import time, but it is computed at run time from the dims of graph "
            "input 'x' that the model neither sizes nor names (x_dim0); fix it at compile time (edgec compile "
            "--shape x=SIZE)");
  // x = [7]: expanded to [2].
  OnnxImportOptions options;
  options.input_shapes["x"] = {1};
  const auto [type, values] = run(m, options, {{"x", make_data(DType::Float32, {1}, {7})}});
  EXPECT_EQ(type, "f32[2]");
  EXPECT_EQ(values, (std::vector<double>{7, 7}));
}

}  // namespace
}  // namespace edgec

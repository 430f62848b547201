// ONNX ScatterND and ScatterElements on run-time data, imported and run in
// the interpreter against values worked out by hand: opset 18's
// reductions min and max (libonnx-testdata, ONNX 1.12, has no case of
// them; the node tests cover none, add and mul), and the folding of a
// scatter of constants at import time.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <map>

#include "frontends/onnx/importer.h"
#include "frontends/onnx/tensor_data.h"
#include "interpreter/interpreter.h"
#include "ir/text.h"
#include "passes/pipeline.h"
#include "support/compare.h"
#include "support/onnx_model.h"

namespace edgec {
namespace {

using onnx::TensorProto;
using onnx_import::make_data;
using onnx_import::make_int_data;

const char* kWhat = "scatter.onnx";

/// One node '/t' of type `op` at `opset`: inputs data (f32, `data_dims`),
/// indices (i64) and updates (f32), output y.
onnx::ModelProto scatter_model(const std::string& op, int64_t opset, const std::vector<int64_t>& data_dims,
                               const std::vector<int64_t>& index_dims, const std::vector<int64_t>& update_dims,
                               const std::map<std::string, std::string>& string_attrs,
                               const std::map<std::string, int64_t>& int_attrs = {}) {
  onnx::ModelProto m = empty_onnx_model();
  m.mutable_opset_import(0)->set_version(opset);
  auto* g = m.mutable_graph();
  add_input(g, "data", data_dims);
  add_input(g, "indices", index_dims, TensorProto::INT64);
  add_input(g, "updates", update_dims);
  auto* n = add_node(g, "/t", op, {"data", "indices", "updates"}, {"y"});
  for (const auto& [name, value] : string_attrs) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(value);
  }
  for (const auto& [name, value] : int_attrs) set_int_attr(n, name, value);
  g->add_output()->set_name("y");
  return m;
}

std::unique_ptr<Program> import_model(const onnx::ModelProto& m) {
  const std::string bytes = m.SerializeAsString();
  auto program = import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), kWhat);
  optimize_program(*program);
  return program;
}

::testing::AssertionResult matches(const TensorData& got, const std::vector<int64_t>& shape,
                                   const std::vector<double>& want) {
  const TensorData expected = make_data(DType::Float32, shape, want);
  auto view = [](const TensorData& d) {
    return compare::ArrayView{d.type.dtype, d.type.static_shape(), d.bytes ? d.bytes->data() : nullptr,
                              d.bytes ? d.bytes->size() : 0};
  };
  return compare::arrays_match("y", view(got), view(expected), compare::Tolerance::either(0, 0));
}

struct Inputs {
  std::vector<int64_t> data_shape;
  std::vector<double> data;
  std::vector<int64_t> index_shape;
  std::vector<int64_t> indices;
  std::vector<int64_t> update_shape;
  std::vector<double> updates;
};

TensorData run(const onnx::ModelProto& m, const Inputs& r) {
  auto program = import_model(m);
  KernelContext ctx;
  const std::map<std::string, TensorData> inputs = {
      {"data", make_data(DType::Float32, r.data_shape, r.data)},
      {"indices", make_int_data(DType::Int64, r.index_shape, r.indices)},
      {"updates", make_data(DType::Float32, r.update_shape, r.updates)}};
  return run_program(*program, inputs, ctx).at(0);
}

// Positions 1 (three updates), 2 and 3: max and min over the old value and
// every update that lands there.
TEST(OnnxScatter, ScatterNDMinAndMaxAtOpset18) {
  const Inputs r{{4}, {1, 5, -2, 7}, {4, 1}, {1, 2, 1, -1}, {4}, {3, -1, 9, 7.5}};
  for (const auto& [reduction, want] : std::map<std::string, std::vector<double>>{
           {"max", {1, 9, -1, 7.5}}, {"min", {1, 3, -2, 7}}, {"add", {1, 17, -3, 14.5}}, {"mul", {1, 135, 2, 52.5}}}) {
    SCOPED_TRACE(reduction);
    const auto m = scatter_model("ScatterND", 18, {4}, {4, 1}, {4}, {{"reduction", reduction}});
    EXPECT_TRUE(matches(run(m, r), {4}, want));
  }
}

// Along axis 1 of [[1, 2, 3], [4, 5, 6]]: row 0 sends 10 to column 2 and -1
// to column 0; row 1 sends 0 and then 8 to column 1.
TEST(OnnxScatter, ScatterElementsMinAndMaxAtOpset18) {
  const Inputs r{{2, 3}, {1, 2, 3, 4, 5, 6}, {2, 2}, {2, 0, 1, -2}, {2, 2}, {10, -1, 0, 8}};
  for (const auto& [reduction, want] : std::map<std::string, std::vector<double>>{
           {"max", {1, 2, 10, 4, 8, 6}}, {"min", {-1, 2, 3, 4, 0, 6}}, {"none", {-1, 2, 10, 4, 8, 6}}}) {
    SCOPED_TRACE(reduction);
    const auto m = scatter_model("ScatterElements", 18, {2, 3}, {2, 2}, {2, 2}, {{"reduction", reduction}},
                                 {{"axis", 1}});
    EXPECT_TRUE(matches(run(m, r), {2, 3}, want));
  }
}

// Opset 16 has no min or max: refused, naming the attribute.
TEST(OnnxScatter, MinBeforeOpset18IsRefused) {
  const auto m = scatter_model("ScatterElements", 16, {2, 3}, {2, 2}, {2, 2}, {{"reduction", "min"}});
  const std::string message = onnx_import_error(m.SerializeAsString(), kWhat);
  EXPECT_NE(message.find("attribute 'reduction' is 'min'; expected none, add or mul (min and max from opset 18)"),
            std::string::npos)
      << message;
}

// A scatter of constants is computed at import time: no call is left.
TEST(OnnxScatter, ConstantsFold) {
  onnx::ModelProto m = empty_onnx_model();
  auto* g = m.mutable_graph();
  add_input(g, "x", {3});
  auto add_initializer = [&](const std::string& name, int type, const std::vector<int64_t>& dims,
                             const std::vector<float>& floats, const std::vector<int64_t>& ints) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    for (int64_t d : dims) t->add_dims(d);
    for (float f : floats) t->add_float_data(f);
    for (int64_t i : ints) t->add_int64_data(i);
  };
  add_initializer("d", TensorProto::FLOAT, {3}, {1, 2, 3}, {});
  add_initializer("i", TensorProto::INT64, {2, 1}, {}, {0, 0});
  add_initializer("u", TensorProto::FLOAT, {2}, {4, 5}, {});
  auto* s = add_node(g, "/t", "ScatterND", {"d", "i", "u"}, {"s"});
  auto* a = s->add_attribute();
  a->set_name("reduction");
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s("add");
  add_node(g, "/add", "Add", {"x", "s"}, {"y"});
  g->add_output()->set_name("y");
  auto program = import_model(m);
  const std::string text = print_program(*program);
  EXPECT_EQ(text.find("scatter"), std::string::npos) << text;
  KernelContext ctx;
  const auto y = run_program(*program, {{"x", make_data(DType::Float32, {3}, {0, 0, 0})}}, ctx).at(0);
  EXPECT_TRUE(matches(y, {3}, {10, 2, 3}));
}

}  // namespace
}  // namespace edgec

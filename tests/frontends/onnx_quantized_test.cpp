// The standard quantization operators against ONNX Runtime 1.30: each case
// in models/onnx_quantized/ is a one-node model with initializer weights,
// scales and zero points, whose outputs ONNX Runtime 1.30 computed
// (models/onnx_quantized/gen.py drives onnxruntime-node through
// models/onnx_newer/ort_oracle.py). Each runs through import, lowering, the
// program file and the runtime, and must match exactly: integer outputs and
// the float outputs of DequantizeLinear and DynamicQuantizeLinear's scale
// alike (docs/semantics.md §9: the requantization multiplier and the
// rounding are ONNX Runtime's).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "support/onnx_cases.h"
#include "support/onnx_model.h"

namespace edgec {
namespace {

namespace fs = std::filesystem;

const fs::path kCases = EDGEC_SOURCE_DIR "/models/onnx_quantized";

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(kCases))
    if (fs::exists(e.path() / "model.onnx")) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

onnx::ModelProto load(const std::string& name, std::string& bytes) {
  bytes = onnx_cases::slurp(kCases / name / "model.onnx");
  onnx::ModelProto model;
  EXPECT_TRUE(model.ParseFromString(bytes)) << name;
  return model;
}

class QuantizedCase : public ::testing::TestWithParam<std::string> {};

TEST_P(QuantizedCase, MatchesOnnxRuntime130Exactly) {
  std::string bytes;
  const onnx::ModelProto model = load(GetParam(), bytes);
  EXPECT_EQ(onnx_cases::run_case(model, bytes, kCases / GetParam(), compare::Tolerance::exact()), "");
}

INSTANTIATE_TEST_SUITE_P(OnnxQuantized, QuantizedCase, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return info.param; });

// The cases cover every standard quantization operator, QLinearConv's
// forms (depthwise, grouped, per channel with bias, u8/s8 and s8/s8) and
// the newer opsets of QuantizeLinear and DequantizeLinear.
TEST(OnnxQuantized, CasesCoverTheOperators) {
  std::set<std::string> ops;
  std::set<int64_t> opsets;
  int depthwise = 0, grouped = 0, with_bias = 0;
  std::set<std::pair<int, int>> conv_types;
  for (const auto& name : case_names()) {
    std::string bytes;
    const onnx::ModelProto m = load(name, bytes);
    opsets.insert(m.opset_import(0).version());
    for (const auto& n : m.graph().node()) {
      ops.insert(n.op_type());
      if (n.op_type() != "QLinearConv") continue;
      for (const auto& a : n.attribute())
        if (a.name() == "group" && a.i() > 1) ++(name.find("depthwise") != std::string::npos ? depthwise : grouped);
      with_bias += n.input_size() == 9;
      int x_type = 0, w_type = 0;
      for (const auto& in : m.graph().input())
        if (in.name() == n.input(0)) x_type = in.type().tensor_type().elem_type();
      for (const auto& t : m.graph().initializer())
        if (t.name() == n.input(3)) w_type = t.data_type();
      conv_types.insert({x_type, w_type});
    }
  }
  EXPECT_EQ(ops, (std::set<std::string>{"ConvInteger", "DequantizeLinear", "DynamicQuantizeLinear", "MatMulInteger",
                                        "QLinearConv", "QLinearMatMul", "QuantizeLinear"}));
  EXPECT_GE(depthwise, 2);
  EXPECT_GE(grouped, 1);
  EXPECT_GE(with_bias, 3);
  EXPECT_TRUE(conv_types.count({onnx::TensorProto::UINT8, onnx::TensorProto::INT8}));
  EXPECT_TRUE(conv_types.count({onnx::TensorProto::INT8, onnx::TensorProto::INT8}));
  EXPECT_TRUE(opsets.count(19) && opsets.count(21)) << "QuantizeLinear and DequantizeLinear at opsets 19 and 21";
}

/// A QuantizeLinear (or DequantizeLinear) model at `opset`: x of `x_elem`,
/// a scale [3] (f32) and a zero point [3] of `zp_elem`, graph inputs.
onnx::ModelProto quant_model(const std::string& op, int64_t opset, int x_elem, int zp_elem) {
  auto m = empty_onnx_model();
  m.set_ir_version(opset >= 21 ? 10 : 9);
  m.mutable_opset_import(0)->set_version(opset);
  auto* g = m.mutable_graph();
  add_input(g, "x", {2, 3}, x_elem);
  add_input(g, "scale", {3});
  add_input(g, "zp", {3}, zp_elem);
  auto* n = add_node(g, "q", op, {"x", "scale", "zp"}, {"y"});
  set_int_attr(n, "axis", 1);
  g->add_output()->set_name("y");
  return m;
}

// What edgec does not compute is refused naming the node and what it takes.
TEST(OnnxQuantized, BlockedQuantizationIsRefused) {
  auto m = quant_model("QuantizeLinear", 21, onnx::TensorProto::FLOAT, onnx::TensorProto::UINT8);
  set_int_attr(m.mutable_graph()->mutable_node(0), "block_size", 2);
  const std::string e = onnx_import_error(m.SerializeAsString(), "q.onnx");
  EXPECT_NE(e.find("q.onnx"), std::string::npos) << e;
  EXPECT_NE(e.find("QuantizeLinear"), std::string::npos) << e;
  EXPECT_NE(e.find("attribute 'block_size' is 2; blocked quantization is not supported (edgec takes per-tensor and "
                   "per-axis scales, block_size 0)"),
            std::string::npos)
      << e;
}

TEST(OnnxQuantized, Int16QuantizationIsRefused) {
  const std::string q = onnx_import_error(
      quant_model("QuantizeLinear", 21, onnx::TensorProto::FLOAT, onnx::TensorProto::INT16).SerializeAsString(),
      "q.onnx");
  EXPECT_NE(q.find("is i16; edgec quantizes to int8 and uint8 only"), std::string::npos) << q;
  const std::string d = onnx_import_error(
      quant_model("DequantizeLinear", 21, onnx::TensorProto::UINT16, onnx::TensorProto::UINT16).SerializeAsString(),
      "d.onnx");
  EXPECT_NE(d.find("is u16; edgec dequantizes int8, uint8 and int32"), std::string::npos) << d;
}

TEST(OnnxQuantized, AWrongScaleLengthNamesTheNode) {
  auto m = quant_model("QuantizeLinear", 13, onnx::TensorProto::FLOAT, onnx::TensorProto::UINT8);
  auto* g = m.mutable_graph();
  g->mutable_input(1)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_value(4);
  g->mutable_input(2)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_value(4);
  const std::string e = onnx_import_error(m.SerializeAsString(), "q.onnx");
  EXPECT_NE(e.find("expected y_scale to be a scalar or [1] (per tensor) or [3] (one per index of the axis), got "
                   "f32[4]"),
            std::string::npos)
      << e;
}

}  // namespace
}  // namespace edgec

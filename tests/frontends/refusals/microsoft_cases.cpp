// Refusal cases of ONNX Runtime's com.microsoft domain (importer.cpp's
// domain check, ops_microsoft.cpp): one small model per refusal site,
// walked by onnx_refusals_test.cpp (what they share: cases.h).
#include "frontends/refusals/cases.h"

namespace edgec::refusal_cases {

namespace {

/// A model importing com.microsoft at `version` beside the default opset 13.
Model ms_model(int64_t version = 1) {
  Model m(13);
  auto* o = m.proto.add_opset_import();
  o->set_domain("com.microsoft");
  o->set_version(version);
  return m;
}

onnx::NodeProto* ms_node(Model& m, const std::string& op, const std::vector<std::string>& ins,
                         const std::vector<std::string>& outs) {
  onnx::NodeProto* n = m.node(op, ins, outs);
  n->set_domain("com.microsoft");
  return n;
}

/// Per-tensor parameters: f32 scales s, s2 and zero points z (u8), zi (i8).
Model& params(Model& m) {
  m.floats("s", {0.5f}, {}).floats("s2", {0.25f}, {});
  m.ints("z", {3}, {}, TensorProto::UINT8).ints("zi", {3}, {}, TensorProto::INT8);
  return m;
}

/// A refusal of node '/t' of com.microsoft operator `op`, naming `what`.
Case ms_case(const std::string& label, const Model& m, const std::string& op, const std::string& what,
             int64_t version = 1) {
  return graph_case(label, m,
                    {"node '/t' (#0, " + op + ", domain com.microsoft, opset " + std::to_string(version) + ")", what});
}

}  // namespace

void add_microsoft_cases(std::vector<Case>& c) {
  auto add = [&](Case k) { c.push_back(std::move(k)); };
  {
    Model m = ms_model();
    m.input("x", {"1", "4"}, TensorProto::UINT8);
    ms_node(m, "QAttention", {"x"}, {"y"});
    m.output("y");
    add(ms_case("unknown com.microsoft operator", m, "QAttention",
                "operator QAttention of domain com.microsoft is not supported by the edgec ONNX importer (of "
                "com.microsoft it imports DynamicQuantizeMatMul, MatMulIntegerToFloat, QGemm"));
  }
  {
    Model m = ms_model(2);
    params(m).input("x", {"1", "4"}, TensorProto::UINT8);
    ms_node(m, "QLinearSigmoid", {"x", "s", "z", "s2", "z"}, {"y"});
    m.output("y");
    add(ms_case("com.microsoft version 2", m, "QLinearSigmoid",
                "domain com.microsoft is imported at version 2; expected version 1", 2));
  }
  {
    Model m = ms_model();
    params(m).input("a", {"2", "3"}, TensorProto::UINT8).input("b", {"2", "3"}, TensorProto::INT8);
    ms_node(m, "QLinearAdd", {"a", "s", "z", "b", "s", "zi", "s2", "z"}, {"y"});
    m.output("y");
    add(ms_case("qlinear_add int8 with uint8", m, "QLinearAdd", "input 3 'B' (value 'b', i8[2, 3]) has element type"));
  }
  auto pool = [&](const std::vector<std::string>& dims, const std::vector<int64_t>& kernel) {
    Model m = ms_model();
    params(m).input("x", dims, TensorProto::UINT8);
    onnx::NodeProto* n = ms_node(m, "QLinearAveragePool", {"x", "s", "z", "s2", "z"}, {"y"});
    attr(n, "kernel_shape", kernel);
    m.output("y");
    return m;
  };
  {
    Model m = pool({"1", "2", "4", "4"}, {2, 2});
    attr(t_node(m), "channels_last", int64_t{1});
    add(ms_case("qlinear avg pool channels_last", m, "QLinearAveragePool", "attribute 'channels_last' is 1"));
  }
  add(ms_case("qlinear avg pool kernel rank", pool({"1", "2", "4", "4"}, {2}), "QLinearAveragePool",
              "attribute 'kernel_shape' has 1 entries for input 0 'X' (value 'x', u8[1, 2, 4, 4])"));
  {
    Model m = pool({"1", "2", "4", "4"}, {2, 2});
    attr(t_node(m), "auto_pad", "SAME_UPPER");
    add(ms_case("qlinear avg pool auto_pad", m, "QLinearAveragePool",
                "attribute 'auto_pad' is 'SAME_UPPER'; expected NOTSET or VALID"));
  }
  {
    Model m = pool({"1", "2", "4", "4"}, {2, 2});
    attr(t_node(m), "pads", std::vector<int64_t>{1, 1});
    add(ms_case("qlinear avg pool pads", m, "QLinearAveragePool",
                "attributes 'strides' and 'pads' have 2 and 2 entries; expected 2 and 4"));
  }
  auto global = [&](const std::vector<std::string>& dims) {
    Model m = ms_model();
    params(m).input("x", dims, TensorProto::UINT8);
    ms_node(m, "QLinearGlobalAveragePool", {"x", "s", "z", "s2", "z"}, {"y"});
    m.output("y");
    return m;
  };
  add(ms_case("qlinear global pool rank", global({"1", "2"}), "QLinearGlobalAveragePool",
              "input 0 'X' (value 'x', u8[1, 2]) has rank 2; expected 3 to 5"));
  add(ms_case("qlinear global pool symbolic", global({"1", "2", "h", "4"}), "QLinearGlobalAveragePool",
              "the spatial dims of input 0 'X' (value 'x', u8[1, 2, h, 4]) must be known at compile time"));
  auto gemm = [&](int a_elem, int b_elem, const std::vector<std::string>& a_dims, const std::string& b_scale) {
    Model m = ms_model();
    params(m).input("a", a_dims, a_elem).input("b", {"4", "3"}, b_elem);
    m.floats("col", {0.5f, 0.5f, 0.5f, 0.5f}, {2, 2});
    const std::string az = a_elem == TensorProto::INT8 ? "zi" : "z", bz = b_elem == TensorProto::INT8 ? "zi" : "z";
    ms_node(m, "QGemm", {"a", "s", az, "b", b_scale, bz}, {"y"});
    m.output("y");
    return m;
  };
  add(ms_case("qgemm int8 by uint8", gemm(TensorProto::INT8, TensorProto::UINT8, {"2", "4"}, "s"), "QGemm",
              "input 0 'A' (value 'a', i8[2, 4]) is int8 and input 3 'B' (value 'b', u8[4, 3]) uint8; ONNX Runtime "
              "has no kernel for that pair"));
  add(ms_case("qgemm rank", gemm(TensorProto::UINT8, TensorProto::INT8, {"1", "2", "4"}, "s"), "QGemm",
              "must be matrices (rank 2)"));
  add(ms_case("qgemm scale rank", gemm(TensorProto::UINT8, TensorProto::INT8, {"2", "4"}, "col"), "QGemm",
              "input 4 'b_scale' (value 'col', f32[2, 2]) must be one value or one per column"));
  auto concat = [&](const std::vector<std::string>& ins, int64_t axis) {
    Model m = ms_model();
    params(m).input("x", {"2", "3"}, TensorProto::UINT8).input("f", {"2", "3"});
    attr(ms_node(m, "QLinearConcat", ins, {"y"}), "axis", axis);
    m.output("y");
    return m;
  };
  add(ms_case("qlinear concat triples", concat({"s", "z", "x", "s"}, 0), "QLinearConcat",
              "expected Y_scale, Y_zero_point and then (tensor, scale, zero point) triples, got 4 inputs"));
  add(ms_case("qlinear concat float input", concat({"s", "z", "x", "s", "z", "f", "s", "z"}, 0), "QLinearConcat",
              "input 5 'inputs' (value 'f', f32[2, 3]), input 6 'inputs' (value 's', f32[]) and input 7 'inputs' "
              "(value 'z', u8[]) must be a u8 tensor, an f32 scale and a u8 zero point"));
  add(ms_case("qlinear concat axis", concat({"s", "z", "x", "s2", "z"}, 2), "QLinearConcat",
              "attribute 'axis' is 2; expected an axis in [-2, 1]"));
}

}  // namespace edgec::refusal_cases

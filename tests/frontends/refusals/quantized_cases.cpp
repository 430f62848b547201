// Refusal cases of ONNX's standard quantization operators
// (ops_quantized.cpp): one small model per refusal site, walked by
// onnx_refusals_test.cpp (what they share: cases.h). What the operators'
// schemas already constrain (a zero point of its tensor's dtype, QLinearConv's
// int32 bias, DynamicQuantizeLinear's f32 input) is refused by the importer's
// type check before the handler runs, so the handlers have no site for it.
#include "frontends/refusals/cases.h"

namespace edgec::refusal_cases {

namespace {

/// A refusal of node '/t' (#0, `op` at `opset`), naming each of `what`
/// (what was found, what was expected, the fix).
Case q_case(const std::string& label, const Model& m, const std::string& op, int64_t opset,
            std::vector<std::string> what) {
  what.insert(what.begin(), "node '/t' (#0, " + op + ", domain ai.onnx, opset " + std::to_string(opset) + ")");
  return graph_case(label, m, std::move(what));
}

/// The fix of a quantization edgec does not compute (ops_quantized.cpp).
const std::string kRequantize =
    "; quantize the float model to int8 / uint8 per tensor or per axis instead (edgec quantize writes such a model)";

/// QuantizeLinear at `opset` of x (f32[2, 3] unless `x_elem`) by the scalar
/// scale `scale` ("s": f32 0.5) and, when `zero_point` is given, that
/// initializer ("z": u8 3; "z16": i16 3).
Model quantize(int64_t opset, const std::string& scale, const std::string& zero_point,
               int x_elem = TensorProto::FLOAT) {
  Model m(opset);
  m.input("x", {"2", "3"}, x_elem).floats("s", {0.5f}, {});
  m.ints("si", {2}, {}, TensorProto::INT32).ints("z", {3}, {}, TensorProto::UINT8);
  m.ints("z16", {3}, {}, TensorProto::INT16);
  std::vector<std::string> ins = {"x", scale};
  if (!zero_point.empty()) ins.push_back(zero_point);
  m.node("QuantizeLinear", ins, {"y"});
  m.output("y");
  return m;
}

}  // namespace

void add_quantized_cases(std::vector<Case>& c) {
  auto add = [&](Case k) { c.push_back(std::move(k)); };
  // quant_input: an int16 zero point (opset 21's schema admits int16).
  add(q_case("quantize int16 zero point", quantize(21, "s", "z16"), "QuantizeLinear", 21,
             {"input 2 'y_zero_point' (value 'z16', i16[]) is i16",
              "; edgec quantizes to int8 and uint8 only (int16, uint16, int4 and float8 quantization are not "
              "supported)" +
                  kRequantize}));
  // scale_input: a scale of rank 2 (QLinearMatMul's a_scale).
  {
    Model m(13);
    m.input("a", {"2", "4"}, TensorProto::UINT8).input("b", {"4", "3"}, TensorProto::INT8);
    m.floats("s", {0.5f}, {}).floats("s11", {0.5f}, {1, 1});
    m.ints("z", {3}, {}, TensorProto::UINT8).ints("zi", {0}, {}, TensorProto::INT8);
    m.node("QLinearMatMul", {"a", "s11", "z", "b", "s", "zi", "s", "z"}, {"y"});
    m.output("y");
    add(q_case("qlinear matmul scale of rank 2", m, "QLinearMatMul", 13,
               {"input 1 'a_scale' (value 's11', f32[1, 1]) has rank 2",
                "; edgec takes a scale of rank 0 (per tensor) or 1 (per axis)" + kRequantize}));
  }
  // scale_input: an int32 scale (opset 21's QuantizeLinear admits one).
  add(q_case("quantize int32 scale", quantize(21, "si", "z"), "QuantizeLinear", 21,
             {"input 1 'y_scale' (value 'si', i32[]) is i32",
              "; expected a float scale (f32, f16 or bf16); export the scale as a float tensor"}));
  // refuse_blocked: block_size (opset 21), on DequantizeLinear.
  {
    Model m(21);
    m.input("x", {"2", "4"}, TensorProto::UINT8).floats("s", {0.5f, 0.25f, 0.5f, 0.25f}, {2, 2});
    attr(m.node("DequantizeLinear", {"x", "s"}, {"y"}), "block_size", int64_t{2});
    m.output("y");
    add(q_case("dequantize block_size", m, "DequantizeLinear", 21,
               {"attribute 'block_size' is 2",
                "; blocked quantization is not supported (edgec takes per-tensor and per-axis scales, block_size 0)" +
                    kRequantize}));
  }
  // quantize_linear: an int32 x (the schema's T1 admits int32).
  add(q_case("quantize int32 x", quantize(13, "s", "z", TensorProto::INT32), "QuantizeLinear", 13,
             {"input 0 'x' (i32[2, 3]) is i32",
              "; edgec quantizes f32 and f16 inputs; cast it to f32 before the node"}));
  // quantize_linear: output_dtype uint16 (4), without a zero point.
  {
    Model m = quantize(21, "s", "");
    attr(t_node(m), "output_dtype", int64_t{TensorProto::UINT16});
    add(q_case("quantize output_dtype uint16", m, "QuantizeLinear", 21,
               {"attribute 'output_dtype' is 4",
                "; edgec quantizes to int8 (3) and uint8 (2) only (int16, uint16, int4 and float8 are not "
                "supported)" +
                    kRequantize}));
  }
  // quantize_linear: output_dtype int8 (3) beside a uint8 zero point.
  {
    Model m = quantize(21, "s", "z");
    attr(t_node(m), "output_dtype", int64_t{TensorProto::INT8});
    add(q_case("quantize output_dtype and zero point", m, "QuantizeLinear", 21,
               {"attribute 'output_dtype' (i8) differs from the dtype of input 2 'y_zero_point' (value 'z', u8[])",
                "; set output_dtype to the zero point's type, or to 0 (which takes it)"}));
  }
  // dequantize_linear: a uint16 x (opset 21's schema admits it).
  {
    Model m(21);
    m.input("x", {"2", "3"}, TensorProto::UINT16).floats("s", {0.5f}, {});
    m.ints("z", {3}, {}, TensorProto::UINT16);
    m.node("DequantizeLinear", {"x", "s", "z"}, {"y"});
    m.output("y");
    add(q_case("dequantize uint16 x", m, "DequantizeLinear", 21,
               {"input 0 'x' (u16[2, 3]) is u16",
                "; edgec dequantizes int8, uint8 and int32 (int16, uint16, int4 and float8 are not supported)" +
                    kRequantize}));
  }
}

}  // namespace edgec::refusal_cases

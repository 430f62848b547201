// ONNX's standard quantization operators, on the quantized family's kernels
// (src/kernels/quantized*.cpp; docs/semantics.md §9): QuantizeLinear and
// DequantizeLinear (opsets 10 to 21: per tensor, per axis from 13),
// DynamicQuantizeLinear, QLinearConv, ConvInteger, QLinearMatMul and
// MatMulInteger. Their scales and zero points stay operands. What edgec does
// not compute is refused by name: float8, int4 and int16 quantization,
// blocked scales (block_size, opset 21), scales of rank > 1.
#include <string>
#include <vector>

#include "frontends/onnx/context.h"

namespace edgec::onnx_import {

/// stride, padding, dilation and groups of a Conv-like node whose input 0
/// is x and input `wi` the weight, with Conv's checks and auto_pad (ops_nn.cpp).
Attrs conv_window_attrs(NodeContext& n, size_t wi);

namespace {

std::string dtype_str(DType d) { return std::string(dtype_name(d)); }

bool is_quant(DType d) { return d == DType::Int8 || d == DType::UInt8; }

/// The fix for a quantization edgec does not compute.
const char* const kRequantize =
    "; quantize the float model to int8 / uint8 per tensor or per axis instead (edgec quantize writes such a model)";

/// Input i, a quantized tensor or zero point: i8 or u8.
Value* quant_input(NodeContext& n, size_t i) {
  Value* v = n.value(i);
  const DType d = v->type().dtype;
  if (!is_quant(d)) {
    n.fail(n.typed_operand(i) + " is " + dtype_str(d) +
           "; edgec quantizes to int8 and uint8 only (int16, uint16, int4 and float8 quantization are not supported)" +
           kRequantize);
  }
  return v;
}

/// Input i, a scale: f32 (an f16 or bf16 scale, which opset 19 allows, is
/// widened to f32 exactly), of rank 0 or 1.
Value* scale_input(NodeContext& n, size_t i) {
  Value* v = n.value(i);
  const TensorType& t = v->type();
  if (t.rank() > 1)
    n.fail(n.typed_operand(i) + " has rank " + std::to_string(t.rank()) +
           "; edgec takes a scale of rank 0 (per tensor) or 1 (per axis)" + kRequantize);
  if (t.dtype == DType::Float32) return v;
  if (t.dtype != DType::Float16 && t.dtype != DType::BFloat16)
    n.fail(n.typed_operand(i) + " is " + dtype_str(t.dtype) +
           "; expected a float scale (f32, f16 or bf16); export the scale as a float tensor");
  return n.im().emit("cast", {v}, attrs_of({{"dtype", DType::Float32}}), n.hint() + "_scale");
}

/// Opset 21's block_size: only 0 (per tensor or per axis).
void refuse_blocked(NodeContext& n) {
  const int64_t block = n.attr_int("block_size", 0);
  if (block != 0)
    n.fail("attribute 'block_size' is " + std::to_string(block) +
           "; blocked quantization is not supported (edgec takes per-tensor and per-axis scales, block_size 0)" +
           kRequantize);
}

// QuantizeLinear: y = saturate(round(x / y_scale) + y_zero_point). Without
// a zero point the result is uint8 (or opset 21's output_dtype).
void quantize_linear(NodeContext& n) {
  refuse_blocked(n);
  Value* x = n.value(0);
  const DType xd = x->type().dtype;
  if (xd != DType::Float32 && xd != DType::Float16)
    n.fail(n.typed_operand(0) + " is " + dtype_str(xd) +
           "; edgec quantizes f32 and f16 inputs; cast it to f32 before the node");
  std::vector<Value*> ins = {x, scale_input(n, 1)};
  DType out = DType::UInt8;
  if (n.input(2)) {
    ins.push_back(quant_input(n, 2));
    out = n.type(2).dtype;
  }
  // Opset 21: output_dtype (an ONNX TensorProto type; 0: from the zero point).
  const int64_t output_dtype = n.attr_int("output_dtype", 0);
  if (output_dtype != 0) {
    const DType want = output_dtype == onnx::TensorProto::UINT8  ? DType::UInt8
                       : output_dtype == onnx::TensorProto::INT8 ? DType::Int8
                                                                 : DType::Float64;
    if (want == DType::Float64)
      n.fail("attribute 'output_dtype' is " + std::to_string(output_dtype) +
             "; edgec quantizes to int8 (3) and uint8 (2) only (int16, uint16, int4 and float8 are not supported)" +
             kRequantize);
    if (n.input(2) && want != out)
      n.fail("attribute 'output_dtype' (" + dtype_str(want) + ") differs from the dtype of " + n.typed_operand(2) +
             "; set output_dtype to the zero point's type, or to 0 (which takes it)");
    out = want;
  }
  n.set_output(0, n.emit("quantize_linear", ins, attrs_of({{"axis", n.attr_int("axis", 1)}, {"dtype", out}})));
}

// DequantizeLinear: y = (x - x_zero_point) * x_scale, of the scale's float
// type (computed in f32 and rounded once for an f16 or bf16 scale).
void dequantize_linear(NodeContext& n) {
  refuse_blocked(n);
  Value* x = n.value(0);
  const DType xd = x->type().dtype;
  if (!is_quant(xd) && xd != DType::Int32)
    n.fail(n.typed_operand(0) + " is " + dtype_str(xd) +
           "; edgec dequantizes int8, uint8 and int32 (int16, uint16, int4 and float8 are not supported)" +
           kRequantize);
  const DType scale_dtype = n.type(1).dtype;
  std::vector<Value*> ins = {x, scale_input(n, 1)};
  // The zero point has x's dtype: the schema's type 'T' (or 'T1'), which
  // the importer checks before the handler runs (importer.cpp).
  if (n.input(2)) ins.push_back(n.value(2));
  const Attrs attrs = attrs_of({{"axis", n.attr_int("axis", 1)}});
  if (scale_dtype == DType::Float32) {
    n.set_output(0, n.emit("dequantize_linear", ins, attrs));
    return;
  }
  Value* y = n.im().emit("dequantize_linear", ins, attrs, n.hint() + "_f32");
  n.set_output(0, n.emit("cast", {y}, attrs_of({{"dtype", scale_dtype}})));
}

// DynamicQuantizeLinear: y, y_scale, y_zero_point (x is f32, its schema's
// only type, checked before the handler runs).
void dynamic_quantize_linear(NodeContext& n) {
  const std::vector<Value*> outs = n.im().emit_n("dynamic_quantize_linear", {n.value(0)}, {}, n.hint());
  for (size_t i = 0; i < outs.size(); ++i)
    if (n.has_output(i)) n.set_output(i, outs[i]);
}

// QLinearConv: x, x_scale, x_zero_point, w, w_scale, w_zero_point,
// y_scale, y_zero_point, B? (int32), with Conv's attributes. The zero points
// have their tensors' dtypes and B is int32: the schema's types, checked
// before the handler runs.
void qlinear_conv(NodeContext& n) {
  const Attrs attrs = conv_window_attrs(n, 3);
  std::vector<Value*> ins = {quant_input(n, 0), scale_input(n, 1), n.value(2), quant_input(n, 3),
                             scale_input(n, 4), n.value(5),       scale_input(n, 6), quant_input(n, 7)};
  if (n.input(8)) ins.push_back(n.value(8));
  n.set_output(0, n.emit("qlinear_conv", ins, attrs));
}

/// The optional zero points (inputs 2 and 3) of ConvInteger and
/// MatMulInteger: passed up to the last one given, a missing x / a zero
/// point before it a 0 of its tensor's dtype (a given one has it: the
/// schema's types, checked before the handler runs).
void push_zero_points(NodeContext& n, std::vector<Value*>& ins) {
  const size_t last = n.input(3) ? 3 : n.input(2) ? 2 : 1;
  for (size_t i = 2; i <= last; ++i) {
    if (n.input(i)) {
      ins.push_back(n.value(i));
    } else {
      ins.push_back(n.im().full({}, 0.0, n.type(i - 2).dtype, n.hint() + "_zero_point"));
    }
  }
}

// ConvInteger: x, w, x_zero_point?, w_zero_point? -> int32.
void conv_integer(NodeContext& n) {
  const Attrs attrs = conv_window_attrs(n, 1);
  std::vector<Value*> ins = {quant_input(n, 0), quant_input(n, 1)};
  push_zero_points(n, ins);
  n.set_output(0, n.emit("conv_integer", ins, attrs));
}

// MatMulInteger: A, B, a_zero_point?, b_zero_point? -> int32.
void matmul_integer(NodeContext& n) {
  std::vector<Value*> ins = {quant_input(n, 0), quant_input(n, 1)};
  push_zero_points(n, ins);
  n.set_output(0, n.emit("matmul_integer", ins));
}

// QLinearMatMul: a, a_scale, a_zero_point, b, b_scale, b_zero_point,
// y_scale, y_zero_point (zero points of their tensors' dtypes, as for
// QLinearConv).
void qlinear_matmul(NodeContext& n) {
  std::vector<Value*> ins = {quant_input(n, 0), scale_input(n, 1), n.value(2),       quant_input(n, 3),
                             scale_input(n, 4), n.value(5),       scale_input(n, 6), quant_input(n, 7)};
  n.set_output(0, n.emit("qlinear_matmul", ins));
}

}  // namespace

void register_quantized_handlers(HandlerTable& t) {
  t["QuantizeLinear"] = quantize_linear;
  t["DequantizeLinear"] = dequantize_linear;
  t["DynamicQuantizeLinear"] = dynamic_quantize_linear;
  t["QLinearConv"] = qlinear_conv;
  t["ConvInteger"] = conv_integer;
  t["QLinearMatMul"] = qlinear_matmul;
  t["MatMulInteger"] = matmul_integer;
}

}  // namespace edgec::onnx_import

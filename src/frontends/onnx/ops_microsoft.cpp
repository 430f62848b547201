// ONNX Runtime's com.microsoft domain (opset version 1, as ONNX Runtime's
// quantization tools write it): the quantized operators its QOperator and
// dynamic forms use. libonnx has no schemas for them; they are written
// here from ONNX Runtime's contrib operator documentation, and the
// importer checks nodes against them as it checks ONNX's own. Any other
// com.microsoft operator is refused, naming those imported.
//
// What each becomes (the arithmetic is ONNX Runtime 1.30's; docs/
// semantics.md, "Quantized arithmetic"):
//   QLinearAdd, QLinearMul     qlinear_add, qlinear_mul (kernels: MLAS's exact rounding)
//   QLinearAveragePool         qlinear_avg_pool (NCHW; channels_last 1 is refused)
//   QLinearGlobalAveragePool   qlinear_avg_pool over the whole spatial extent
//   QLinearSigmoid             qlinear_sigmoid (ONNX Runtime's 256-entry table, MLAS's logistic)
//   QLinearLeakyRelu           qlinear_leaky_relu (the same table, v >= 0 ? v : alpha * v)
//   QLinearConcat              concat of quantize_linear(dequantize_linear(x_i)) to y's
//                              parameters (ONNX Runtime's table of exactly that), an input
//                              whose constant parameters equal y's copied as it is
//   QGemm                      matmul_integer of the (transposed) operands, + C (int32), times
//                              (alpha * a_scale * b_scale) / y_scale in f32 as ONNX Runtime's
//                              output scales; with y_scale quantize_linear(that, 1, y_zero_point)
//                              (MLAS's requantization: rne(f32(acc) * scale) + zero point,
//                              saturated), else the f32 product
//   MatMulIntegerToFloat       f32(matmul_integer(a, b, zero points)) * (a_scale * b_scale) + bias
//   DynamicQuantizeMatMul      the same after dynamic_quantize_linear(a) (ONNX Runtime quantizes
//                              a with the formula of DynamicQuantizeLinear)
// An absent zero point is a zero of the data's dtype. The f32 results
// (QGemm without y_scale, MatMulIntegerToFloat, DynamicQuantizeMatMul) are
// ONNX Runtime's up to the order of its f32 multiply-adds (within 1e-5).
#include <onnx/defs/schema.h>

#include <map>
#include <string>
#include <vector>

#include "frontends/onnx/context.h"
#include "frontends/onnx/opsets.h"

namespace edgec::onnx_import {
namespace {

using onnx::AttributeProto;
using onnx::OpSchema;

const std::vector<std::string> kQuant = {"tensor(uint8)", "tensor(int8)"};

/// A com.microsoft schema under construction (as newer_schemas.cpp's).
struct Builder {
  OpSchema s;
  int inputs = 0, outputs = 0;

  explicit Builder(const char* op) {
    s.SetName(op);
    s.SetDomain(kMicrosoftDomain);
    s.SinceVersion(1);
  }
  Builder& in(const char* name, const char* type) {
    s.Input(inputs++, name, "", type);
    return *this;
  }
  Builder& optional_in(const char* name, const char* type) {
    s.Input(inputs++, name, "", type, OpSchema::Optional);
    return *this;
  }
  Builder& variadic_in(const char* name, const char* type) {
    s.Input(inputs++, name, "", type, OpSchema::Variadic, /*is_homogeneous=*/false);
    return *this;
  }
  Builder& out(const char* name, const char* type) {
    s.Output(outputs++, name, "", type);
    return *this;
  }
  Builder& attr(const char* name, int64_t dflt) {
    s.Attr(name, "", AttributeProto::INT, dflt);
    return *this;
  }
  Builder& attr(const char* name, float dflt) {
    s.Attr(name, "", AttributeProto::FLOAT, dflt);
    return *this;
  }
  Builder& attr(const char* name, const char* dflt) {
    s.Attr(name, "", AttributeProto::STRING, std::string(dflt));
    return *this;
  }
  Builder& attr_of(const char* name, AttributeProto::AttributeType type, bool required) {
    s.Attr(name, "", type, required);
    return *this;
  }
  Builder& types(const char* var, std::vector<std::string> allowed) {
    s.TypeConstraint(var, std::move(allowed), "");
    return *this;
  }
  OpSchema done() {
    s.Finalize();
    return std::move(s);
  }
};

/// X, X_scale, X_zero_point, Y_scale, Y_zero_point -> Y (zero points optional unless `zero_points`).
Builder unary(const char* op, bool zero_points_required = false) {
  Builder b(op);
  b.in("X", "T").in("X_scale", "tensor(float)");
  if (zero_points_required) {
    b.in("X_zero_point", "T").in("Y_scale", "tensor(float)").in("Y_zero_point", "T");
  } else {
    b.optional_in("X_zero_point", "T").in("Y_scale", "tensor(float)").optional_in("Y_zero_point", "T");
  }
  b.out("Y", "T").types("T", kQuant);
  return b;
}

std::vector<OpSchema> build() {
  std::vector<OpSchema> out;
  for (const char* op : {"QLinearAdd", "QLinearMul"}) {
    Builder b(op);
    b.in("A", "T").in("A_scale", "tensor(float)").optional_in("A_zero_point", "T");
    b.in("B", "T").in("B_scale", "tensor(float)").optional_in("B_zero_point", "T");
    b.in("C_scale", "tensor(float)").optional_in("C_zero_point", "T").out("C", "T").types("T", kQuant);
    out.push_back(b.done());
  }
  {
    Builder b = unary("QLinearAveragePool");
    b.attr("auto_pad", "NOTSET").attr("ceil_mode", int64_t{0}).attr("channels_last", int64_t{0});
    b.attr("count_include_pad", int64_t{0}).attr_of("kernel_shape", AttributeProto::INTS, true);
    b.attr_of("pads", AttributeProto::INTS, false).attr_of("strides", AttributeProto::INTS, false);
    out.push_back(b.done());
  }
  out.push_back(unary("QLinearGlobalAveragePool", true).attr("channels_last", int64_t{0}).done());
  out.push_back(unary("QLinearSigmoid").done());
  out.push_back(unary("QLinearLeakyRelu").attr("alpha", 0.01f).done());
  {
    Builder b("QLinearConcat");
    b.in("Y_scale", "TF").in("Y_zero_point", "T8").variadic_in("inputs", "TV").out("Y", "T8");
    b.attr_of("axis", AttributeProto::INT, true).types("TF", {"tensor(float)"}).types("T8", kQuant);
    b.types("TV", {"tensor(uint8)", "tensor(int8)", "tensor(float)"});
    out.push_back(b.done());
  }
  {
    Builder b("QGemm");
    b.in("A", "TA").in("a_scale", "T").in("a_zero_point", "TA").in("B", "TB").in("b_scale", "T");
    b.in("b_zero_point", "TB").optional_in("C", "TC").optional_in("y_scale", "T").optional_in("y_zero_point", "TYZ");
    b.out("Y", "TY").attr("alpha", 1.0f).attr("transA", int64_t{0}).attr("transB", int64_t{0});
    b.types("T", {"tensor(float)"}).types("TA", kQuant).types("TB", kQuant).types("TC", {"tensor(int32)"});
    b.types("TYZ", kQuant).types("TY", {"tensor(float)", "tensor(uint8)", "tensor(int8)"});
    out.push_back(b.done());
  }
  {
    Builder b("MatMulIntegerToFloat");
    b.in("A", "T1").in("B", "T2").in("a_scale", "T3").in("b_scale", "T3").optional_in("a_zero_point", "T1");
    b.optional_in("b_zero_point", "T2").optional_in("bias", "T3").out("Y", "T3");
    b.types("T1", kQuant).types("T2", kQuant).types("T3", {"tensor(float)"});
    out.push_back(b.done());
  }
  {
    Builder b("DynamicQuantizeMatMul");
    b.in("A", "T1").in("B", "T2").in("b_scale", "T1").optional_in("b_zero_point", "T2").optional_in("bias", "T1");
    b.out("Y", "T1").types("T1", {"tensor(float)"}).types("T2", kQuant);
    out.push_back(b.done());
  }
  return out;
}

// ---- handlers ------------------------------------------------------------------

/// Input i, or a zero of `dtype` (a scalar) when the node leaves it out.
Value* zero_point_or_zero(NodeContext& n, size_t i, DType dtype) {
  if (n.input(i)) return n.value(i);
  return n.im().full({}, 0.0, dtype, n.hint() + "_zero_point");
}

void qlinear_binary(NodeContext& n, const char* op) {
  const DType dtype = n.type(0).dtype;
  n.set_output(0, n.emit(op, {n.value(0), n.value(1), zero_point_or_zero(n, 2, dtype), n.value(3), n.value(4),
                              zero_point_or_zero(n, 5, dtype), n.value(6), zero_point_or_zero(n, 7, dtype)}));
}

void qlinear_add(NodeContext& n) { qlinear_binary(n, "qlinear_add"); }
void qlinear_mul(NodeContext& n) { qlinear_binary(n, "qlinear_mul"); }

/// x, x_scale, x_zero_point, y_scale, y_zero_point of the unary forms.
std::vector<Value*> unary_operands(NodeContext& n) {
  const DType dtype = n.type(0).dtype;
  return {n.value(0), n.value(1), zero_point_or_zero(n, 2, dtype), n.value(3), zero_point_or_zero(n, 4, dtype)};
}

void refuse_channels_last(NodeContext& n) {
  if (n.attr_int("channels_last", 0) != 0)
    n.fail("attribute 'channels_last' is " + std::to_string(n.attr_int("channels_last", 0)) +
           "; edgec imports the NCHW form (channels_last 0), which ONNX Runtime's quantization tools write");
}

void qlinear_average_pool(NodeContext& n) {
  refuse_channels_last(n);
  const TensorType& x = n.type(0);
  const std::vector<int64_t> kernel = *n.attr_ints("kernel_shape");
  const size_t nd = kernel.size();
  if (nd < 1 || nd > 3 || x.rank() != static_cast<int>(nd + 2))
    n.fail("attribute 'kernel_shape' has " + std::to_string(nd) + " entries for " + n.typed_operand(0) +
           "; expected 1 to 3, one per spatial dim of the input (N, C, spatial...)");
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID")
    n.fail("attribute 'auto_pad' is '" + auto_pad +
           "'; expected NOTSET or VALID (ONNX Runtime's quantization tools write explicit pads)");
  std::vector<int64_t> strides = n.attr_ints("strides").value_or(std::vector<int64_t>(nd, 1));
  std::vector<int64_t> pads = n.attr_ints("pads").value_or(std::vector<int64_t>(2 * nd, 0));
  if (strides.size() != nd || pads.size() != 2 * nd)
    n.fail("attributes 'strides' and 'pads' have " + std::to_string(strides.size()) + " and " +
           std::to_string(pads.size()) + " entries; expected " + std::to_string(nd) + " and " +
           std::to_string(2 * nd) + " for the " + std::to_string(nd) + "-d 'kernel_shape'");
  n.set_output(0, n.emit("qlinear_avg_pool", unary_operands(n),
                         attrs_of({{"kernel_size", kernel},
                                   {"stride", strides},
                                   {"padding", pads},
                                   {"ceil_mode", n.attr_int("ceil_mode", 0) != 0},
                                   {"count_include_pad", n.attr_int("count_include_pad", 0) != 0}})));
}

void qlinear_global_average_pool(NodeContext& n) {
  refuse_channels_last(n);
  const TensorType& x = n.type(0);
  if (x.rank() < 3 || x.rank() > 5)
    n.fail(n.typed_operand(0) + " has rank " + std::to_string(x.rank()) + "; expected 3 to 5 (N, C, spatial...)");
  std::vector<int64_t> kernel;
  for (int i = 2; i < x.rank(); ++i) {
    if (!x.dims[static_cast<size_t>(i)].is_static())
      n.fail("the spatial dims of " + n.typed_operand(0) + " must be known at compile time (the pooling window is "
             "all of them)" + n.im().dim_fix(x.dims[static_cast<size_t>(i)]));
    kernel.push_back(x.dims[static_cast<size_t>(i)].value);
  }
  n.set_output(0, n.emit("qlinear_avg_pool", unary_operands(n), attrs_of({{"kernel_size", kernel}})));
}

void qlinear_sigmoid(NodeContext& n) { n.set_output(0, n.emit("qlinear_sigmoid", unary_operands(n))); }

void qlinear_leaky_relu(NodeContext& n) {
  n.set_output(0, n.emit("qlinear_leaky_relu", unary_operands(n), attrs_of({{"alpha", n.attr_float("alpha", 0.01)}})));
}

/// ONNX Runtime's kernels take u8 x u8, u8 x i8 and i8 x i8, not i8 x u8.
void refuse_signed_by_unsigned(NodeContext& n, size_t a, size_t b) {
  if (n.type(a).dtype == DType::Int8 && n.type(b).dtype == DType::UInt8)
    n.fail(n.typed_operand(a) + " is int8 and " + n.typed_operand(b) +
           " uint8; ONNX Runtime has no kernel for that pair (it takes uint8 x uint8, uint8 x int8 and int8 x int8)");
}

/// A scale operand: one f32 value, or (per_column) one per column of the
/// [.., K, N] product.
Value* scale_operand(NodeContext& n, size_t i, bool per_column) {
  const TensorType& t = n.type(i);
  const bool one = t.rank() == 0 || (t.rank() == 1 && t.dims[0].is_static() && t.dims[0].value == 1);
  if (!one && !(per_column && t.rank() == 1))
    n.fail(n.typed_operand(i) + " must be one value" + (per_column ? " or one per column (rank 1)" : "") +
           " (edgec takes per-tensor" + (per_column ? " and per-column" : "") + " scales)");
  return n.value(i);
}

/// f32(acc) * scale (+ bias): MatMulIntegerToFloat and DynamicQuantizeMatMul.
Value* scale_and_bias(NodeContext& n, Value* acc, Value* scale, size_t bias) {
  Value* y = n.im().emit("mul", {n.im().emit("cast", {acc}, attrs_of({{"dtype", DType::Float32}}), n.hint() + "_acc"),
                                 scale},
                         {}, n.hint() + "_scaled");
  if (n.input(bias)) y = n.emit("add", {y, n.value(bias)});
  return y;
}

void matmul_integer_to_float(NodeContext& n) {
  refuse_signed_by_unsigned(n, 0, 1);
  Value* scale = n.im().emit("mul", {scale_operand(n, 2, false), scale_operand(n, 3, true)}, {}, n.hint() + "_scale");
  std::vector<Value*> ins = {n.value(0), n.value(1), zero_point_or_zero(n, 4, n.type(0).dtype)};
  if (n.input(5)) ins.push_back(n.value(5));
  n.set_output(0, scale_and_bias(n, n.im().emit("matmul_integer", ins, {}, n.hint() + "_acc"), scale, 6));
}

void dynamic_quantize_matmul(NodeContext& n) {
  const std::vector<Value*> q = n.im().emit_n("dynamic_quantize_linear", {n.value(0)}, {}, n.hint() + "_a");
  Value* scale = n.im().emit("mul", {q[1], scale_operand(n, 2, true)}, {}, n.hint() + "_scale");
  std::vector<Value*> ins = {q[0], n.value(1), q[2]};
  if (n.input(3)) ins.push_back(n.value(3));
  n.set_output(0, scale_and_bias(n, n.im().emit("matmul_integer", ins, {}, n.hint() + "_acc"), scale, 4));
}

void qgemm(NodeContext& n) {
  refuse_signed_by_unsigned(n, 0, 3);
  if (n.type(0).rank() != 2 || n.type(3).rank() != 2)
    n.fail(n.typed_operand(0) + " and " + n.typed_operand(3) + " must be matrices (rank 2), as Gemm's");
  Importer& im = n.im();
  Value* a = n.value(0);
  Value* b = n.value(3);
  if (n.attr_int("transA", 0) != 0) a = im.permute(a, {1, 0}, n.hint() + "_a");
  if (n.attr_int("transB", 0) != 0) b = im.permute(b, {1, 0}, n.hint() + "_b");
  Value* acc = im.emit("matmul_integer", {a, b, n.value(2), n.value(5)}, {}, n.hint() + "_acc");
  if (n.input(6)) acc = im.emit("add", {acc, n.value(6)}, {}, n.hint() + "_acc");
  // ONNX Runtime's output scales: (alpha * a_scale * b_scale[j]) / y_scale, in f32.
  Value* scale = im.emit("mul", {im.full({}, n.attr_float("alpha", 1.0), DType::Float32, n.hint() + "_alpha"),
                                 scale_operand(n, 1, false)},
                         {}, n.hint() + "_scale");
  scale = im.emit("mul", {scale, scale_operand(n, 4, true)}, {}, n.hint() + "_scale");
  const bool requantize = n.input(7) != nullptr;
  if (requantize) scale = im.emit("div", {scale, scale_operand(n, 7, false)}, {}, n.hint() + "_scale");
  Value* y = im.emit("mul", {im.emit("cast", {acc}, attrs_of({{"dtype", DType::Float32}}), n.hint() + "_acc"), scale},
                     {}, requantize ? n.hint() + "_scaled" : n.hint());
  if (requantize) {
    const DType out = n.input(8) ? n.type(8).dtype : n.type(0).dtype;
    Value* zp = zero_point_or_zero(n, 8, out);
    y = n.emit("quantize_linear", {y, im.full({}, 1.0, DType::Float32, n.hint() + "_unit"), zp},
               attrs_of({{"dtype", out}}));
  }
  n.set_output(0, y);
}

/// Whether two entries are constants of equal values.
bool same_constant(NodeContext& n, size_t i, size_t j) {
  const TensorData* a = n.data(i);
  const TensorData* b = n.data(j);
  return a && b && a->bytes && b->bytes && a->type.dtype == b->type.dtype && *a->bytes == *b->bytes;
}

void qlinear_concat(NodeContext& n) {
  const size_t count = n.num_inputs();
  if (count < 5 || (count - 2) % 3 != 0)
    n.fail("expected Y_scale, Y_zero_point and then (tensor, scale, zero point) triples, got " +
           std::to_string(count) + " inputs");
  const DType dtype = n.type(1).dtype;
  scale_operand(n, 0, false);
  std::vector<Value*> parts;
  for (size_t i = 2; i < count; i += 3) {
    if (n.type(i).dtype != dtype || n.type(i + 2).dtype != dtype || n.type(i + 1).dtype != DType::Float32)
      n.fail(n.typed_operand(i) + ", " + n.typed_operand(i + 1) + " and " + n.typed_operand(i + 2) +
             " must be a " + std::string(dtype_name(dtype)) + " tensor, an f32 scale and a " +
             std::string(dtype_name(dtype)) + " zero point (Y_zero_point's dtype)");
    scale_operand(n, i + 1, false);
    if (same_constant(n, i + 1, 0) && same_constant(n, i + 2, 1)) {
      parts.push_back(n.value(i));  // ONNX Runtime copies it
      continue;
    }
    Value* x = n.im().emit("dequantize_linear", {n.value(i), n.value(i + 1), n.value(i + 2)}, {}, n.hint() + "_dq");
    parts.push_back(n.im().emit("quantize_linear", {x, n.value(0), n.value(1)}, attrs_of({{"dtype", dtype}}),
                                n.hint() + "_q"));
  }
  const int64_t rank = n.type(2).rank();
  int64_t axis = n.attr_int("axis", 0);
  if (axis < -rank || axis >= rank)
    n.fail("attribute 'axis' is " + std::to_string(axis) + "; expected an axis in [" + std::to_string(-rank) + ", " +
           std::to_string(rank - 1) + "] for " + n.typed_operand(2));
  if (axis < 0) axis += rank;
  n.set_output(0, n.im().emit_n("concat", parts, attrs_of({{"dim", axis}}), n.hint(),
                                {OperandGroup{true, static_cast<int>(parts.size())}})[0]);
}

}  // namespace

const onnx::OpSchema* microsoft_schema(const std::string& op_type) {
  static const std::vector<OpSchema> schemas = build();
  for (const OpSchema& s : schemas)
    if (s.Name() == op_type) return &s;
  return nullptr;
}

const HandlerTable& microsoft_handlers() {
  static const HandlerTable table = {
      {"DynamicQuantizeMatMul", dynamic_quantize_matmul},
      {"MatMulIntegerToFloat", matmul_integer_to_float},
      {"QGemm", qgemm},
      {"QLinearAdd", qlinear_add},
      {"QLinearConcat", qlinear_concat},
      {"QLinearAveragePool", qlinear_average_pool},
      {"QLinearGlobalAveragePool", qlinear_global_average_pool},
      {"QLinearLeakyRelu", qlinear_leaky_relu},
      {"QLinearMul", qlinear_mul},
      {"QLinearSigmoid", qlinear_sigmoid},
  };
  return table;
}

}  // namespace edgec::onnx_import

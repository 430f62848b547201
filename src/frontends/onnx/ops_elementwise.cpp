// Elementwise ONNX operators: unary math and activations, binary arithmetic
// and comparisons (numpy broadcasting, one dtype, as in the operator table),
// Cast, Clip, Where, variadic Min/Max/Sum/Mean, and the pass-through nodes
// (Identity, Dropout) and Constant.
//
// Integer arithmetic on shape values (Mul of a sequence length by the head
// count, Div of a size by the heads) is done on SymInts so that the result
// can still become an attribute; anything else is emitted as a call.
#include <cmath>
#include <functional>
#include <map>

#include "frontends/onnx/context.h"

namespace edgec::onnx_import {
namespace {

const std::map<std::string, std::string>& unary_ops() {
  static const std::map<std::string, std::string> m = {
      {"Relu", "relu"},
      {"Sigmoid", "sigmoid"},
      {"Tanh", "tanh"},
      {"Exp", "exp"},
      {"Log", "log"},
      {"Sqrt", "sqrt"},
      {"Reciprocal", "reciprocal"},
      {"Neg", "neg"},
      {"Abs", "abs"},
      {"Sin", "sin"},
      {"Cos", "cos"},
      {"Tan", "tan"},
      {"Asin", "asin"},
      {"Acos", "acos"},
      {"Atan", "atan"},
      {"Sinh", "sinh"},
      {"Cosh", "cosh"},
      {"Asinh", "asinh"},
      {"Acosh", "acosh"},
      {"Atanh", "atanh"},
      {"Erf", "erf"},
      {"Floor", "floor"},
      {"Ceil", "ceil"},
      {"Round", "round"},
      {"Sign", "sign"},
      {"Not", "logical_not"},
      {"Softplus", "softplus"},
      {"HardSwish", "hardswish"},
      {"Softsign", "softsign"},
  };
  return m;
}

void unary(NodeContext& n) {
  const std::string& op = unary_ops().at(n.proto().op_type());
  if (n.fold_constants(op)) return;
  n.set_output(0, n.emit(op, {n.value(0)}));
}

void leaky_relu(NodeContext& n) {
  n.set_output(0, n.emit("leaky_relu", {n.value(0)}, attrs_of({{"negative_slope", n.attr_float("alpha", 0.01)}})));
}

void elu(NodeContext& n) {
  n.set_output(0, n.emit("elu", {n.value(0)}, attrs_of({{"alpha", n.attr_float("alpha", 1.0)}})));
}

// Unary operators whose ONNX float attributes are ours under other names
// (or the same); an attribute the node leaves out takes the operator's
// declared default (kernels/op_decl.h), which is ONNX's.
struct AttrUnary {
  std::string op;
  std::vector<std::pair<std::string, std::string>> attrs;  // ONNX name -> edgec name
};
const std::map<std::string, AttrUnary>& attr_unary_ops() {
  static const std::map<std::string, AttrUnary> m = {
      {"Selu", {"selu", {{"alpha", "alpha"}, {"gamma", "gamma"}}}},
      {"Celu", {"celu", {{"alpha", "alpha"}}}},
      {"ThresholdedRelu", {"thresholded_relu", {{"alpha", "alpha"}}}},
      {"Shrink", {"shrink", {{"lambd", "lambd"}, {"bias", "bias"}}}},
  };
  return m;
}

void attr_unary(NodeContext& n) {
  const AttrUnary& u = attr_unary_ops().at(n.proto().op_type());
  Attrs attrs;
  for (const auto& [onnx_name, name] : u.attrs)
    if (n.attr(onnx_name)) attrs.set(name, n.attr_float(onnx_name, 0.0));
  n.set_output(0, n.emit(u.op, {n.value(0)}, std::move(attrs)));
}

// HardSigmoid: max(0, min(1, alpha x + beta)); torch's (alpha 1/6, beta 1/2)
// is our hardsigmoid, anything else is composed.
void hard_sigmoid(NodeContext& n) {
  const double alpha = n.attr_float("alpha", 0.2), beta = n.attr_float("beta", 0.5);
  Value* x = n.value(0);
  if (std::abs(alpha - 1.0 / 6.0) < 1e-7 && std::abs(beta - 0.5) < 1e-7) {
    n.set_output(0, n.emit("hardsigmoid", {x}));
    return;
  }
  const DType dt = x->type().dtype;
  Value* ax = n.emit("mul", {x, n.im().full({}, alpha, dt, n.hint())});
  Value* axb = n.emit("add", {ax, n.im().full({}, beta, dt, n.hint())});
  n.set_output(0, n.emit("clamp", {axb}, attrs_of({{"min", 0.0}, {"max", 1.0}})));
}

// ---- binary ------------------------------------------------------------------------

const std::map<std::string, std::string>& binary_ops() {
  static const std::map<std::string, std::string> m = {
      {"Add", "add"},         {"Sub", "sub"},       {"Mul", "mul"},         {"Div", "div"},    {"Pow", "pow"},
      {"Equal", "eq"},        {"Less", "lt"},       {"LessOrEqual", "le"},  {"Greater", "gt"}, {"GreaterOrEqual", "ge"},
      {"And", "logical_and"}, {"Or", "logical_or"}, {"Xor", "logical_xor"},
  };
  return m;
}

using SymOp = std::optional<SymInt> (*)(const SymInt&, const SymInt&);

/// Add/Sub/Mul/Div of two shape values, broadcasting length 1; nullopt when
/// an element has no SymInt form.
std::optional<std::vector<SymInt>> sym_binary(const std::vector<SymInt>& a, const std::vector<SymInt>& b, SymOp op) {
  if (a.size() != b.size() && a.size() != 1 && b.size() != 1) return std::nullopt;
  const size_t len = std::max(a.size(), b.size());
  std::vector<SymInt> out;
  for (size_t i = 0; i < len; ++i) {
    auto r = op(a[a.size() == 1 ? 0 : i], b[b.size() == 1 ? 0 : i]);
    if (!r) return std::nullopt;
    out.push_back(*r);
  }
  return out;
}

bool try_sym_binary(NodeContext& n, const std::string& op_type) {
  static const std::map<std::string, SymOp> ops = {
      {"Add", sym_add}, {"Sub", sym_sub}, {"Mul", sym_mul}, {"Div", sym_div}};
  auto it = ops.find(op_type);
  if (it == ops.end()) return false;
  const TensorType& ta = n.type(0);
  const TensorType& tb = n.type(1);
  if (ta.dtype != tb.dtype || (ta.dtype != DType::Int64 && ta.dtype != DType::Int32)) return false;
  if (ta.rank() > 1 || tb.rank() > 1) return false;
  auto a = n.sym(0), b = n.sym(1);
  if (!a || !b || a->empty() || b->empty() || a->size() > 64 || b->size() > 64) return false;
  auto r = sym_binary(*a, *b, it->second);
  if (!r) return false;
  n.set_sym_output(0, std::move(*r), ta.rank() == 0 && tb.rank() == 0, ta.dtype);
  return true;
}

void binary(NodeContext& n) {
  const std::string& op_type = n.proto().op_type();
  if (try_sym_binary(n, op_type)) return;
  Attrs attrs;
  if (op_type == "Div" && !is_floating(n.type(0).dtype)) attrs.set("rounding_mode", std::string("trunc"));
  if ((op_type != "Pow" || n.type(1).dtype == n.type(0).dtype) && n.fold_constants(binary_ops().at(op_type), attrs))
    return;
  Value* a = n.value(0);
  Value* b = n.value(1);
  // ONNX Pow takes an exponent of any numeric type; ours wants one dtype.
  if (op_type == "Pow" && b->type().dtype != a->type().dtype)
    b = n.im().emit("cast", {b}, attrs_of({{"dtype", a->type().dtype}}), n.hint() + "_exponent");
  n.set_output(0, n.emit(binary_ops().at(op_type), {a, b}, attrs));
}

// BitShift (unsigned integers): direction LEFT or RIGHT; a shift by the
// width or more gives 0, as numpy's shifts do (the kernels' rows).
void bit_shift(NodeContext& n) {
  const std::string direction = n.attr_string("direction", "");
  if (direction != "LEFT" && direction != "RIGHT")
    n.fail("attribute 'direction' is '" + direction + "'; expected 'LEFT' or 'RIGHT'");
  const std::string op = direction == "LEFT" ? "bitwise_left_shift" : "bitwise_right_shift";
  if (n.fold_constants(op)) return;
  n.set_output(0, n.emit(op, {n.value(0), n.value(1)}));
}

void mod(NodeContext& n) {
  const bool fmod = n.attr_int("fmod", 0) != 0;
  Value* a = n.value(0);
  if (!fmod && is_floating(a->type().dtype))
    n.fail("attribute 'fmod' is 0, which ONNX allows only for integers; got " + n.typed_operand(0) +
           "; expected fmod 1");
  n.set_output(0, n.emit(fmod ? "fmod" : "remainder", {a, n.value(1)}));
}

void where(NodeContext& n) { n.set_output(0, n.emit("where", {n.value(0), n.value(1), n.value(2)})); }

// Min, Max, Sum, Mean: left folds of the binary operator.
void variadic(NodeContext& n) {
  const std::string& op_type = n.proto().op_type();
  static const std::map<std::string, std::string> ops = {
      {"Min", "minimum"}, {"Max", "maximum"}, {"Sum", "add"}, {"Mean", "add"}};
  Value* acc = n.value(0);
  for (size_t i = 1; i < n.num_inputs(); ++i) acc = n.emit(ops.at(op_type), {acc, n.value(i)});
  // Mean's inputs are floating point (its schema's type constraint).
  if (op_type == "Mean" && n.num_inputs() > 1) {
    acc = n.emit("div", {acc, n.im().full({}, static_cast<double>(n.num_inputs()), acc->type().dtype, n.hint())});
  }
  if (n.num_inputs() == 1) {
    n.forward(0, 0);
    return;
  }
  n.set_output(0, acc);
}

// ---- Cast, Clip --------------------------------------------------------------------

void cast(NodeContext& n) {
  const int64_t to = n.proto().op_type() == "CastLike" ? onnx_elem_type(n.type(1).dtype) : n.attr_int("to", -1);
  const auto dtype = dtype_from_onnx(static_cast<int32_t>(to));
  // CastLike's target is a tensor of ours, whose dtype is one we support.
  if (!dtype)
    n.fail("attribute 'to' is " + onnx_type_name(static_cast<int32_t>(to)) +
           ", which edgec does not compute with; expected float, float16, bfloat16, double, int64, int32, "
           "int16, int8, uint64, uint32, uint16, uint8 or bool");
  Entry& in = n.required(0);
  if (in.type.dtype == *dtype) {
    n.forward(0, 0);
    return;
  }
  if ((*dtype == DType::Int64 || *dtype == DType::Int32) && !is_floating(in.type.dtype) && in.type.rank() <= 1) {
    if (auto s = n.sym(0); s && in.sym) {
      n.set_sym_output(0, *s, in.type.rank() == 0, *dtype);
      return;
    }
  }
  n.set_output(0, n.emit("cast", {n.value(0)}, attrs_of({{"dtype", *dtype}})));
}

void clip(NodeContext& n) {
  Value* x = n.value(0);
  Attrs attrs;
  Value* y = x;
  const char* names[] = {"min", "max"};
  const char* ops[] = {"maximum", "minimum"};
  std::vector<std::pair<int, Value*>> runtime_bounds;
  for (int i = 0; i < 2; ++i) {
    if (!n.input(1 + i)) continue;
    if (const TensorData* d = n.data(1 + i); d && d->type.rank() == 0) {
      attrs.set(names[i], data_as_doubles(*d)[0]);
    } else {
      runtime_bounds.push_back({i, n.value(1 + i)});
    }
  }
  if (attrs.has("min") || attrs.has("max")) y = n.emit("clamp", {y}, attrs);
  for (auto [i, bound] : runtime_bounds) y = n.emit(ops[i], {y, bound});
  if (y == x) {
    n.forward(0, 0);
    return;
  }
  n.set_output(0, y);
}

// ---- pass-through and constants ----------------------------------------------------

void identity(NodeContext& n) { n.forward(0, 0); }

// The ratio of a training-mode dropout: input 1, 0.5 when absent (ONNX).
double dropout_ratio(NodeContext& n) {
  if (!n.input(1)) return 0.5;
  const TensorData* r = n.data(1);
  if (!r) n.fail_not_known(1, "the ratio of a training-mode dropout");
  const std::vector<double> v = data_as_doubles(*r);
  if (v.size() != 1) n.fail(n.operand(1) + " is " + r->type.str() + "; expected one ratio");
  return v[0];
}

void dropout(NodeContext& n) {
  // Inference: the identity. training_mode (input 2) must not be true,
  // unless the ratio is 0: then ONNX keeps every element, the identity too
  // (torchvision's Swin exports its dropouts so).
  if (n.input(2)) {
    const TensorData* d = n.data(2);
    if (!d) n.fail_not_known(2, "the training mode");
    const std::vector<int64_t> mode = data_as_ints(*d);
    if (mode.size() != 1)
      n.fail(n.operand(2) + " is " + d->type.str() + "; expected false (edgec imports inference graphs)");
    if (mode[0] != 0) {
      const double ratio = dropout_ratio(n);
      if (ratio != 0)
        n.fail(n.operand(2) + " is true with a ratio of " + std::to_string(ratio) +
               ", which drops elements at random; expected false, or a ratio of 0 (edgec imports inference "
               "graphs: export the model in eval mode)");
    }
  }
  n.forward(0, 0);
  if (n.has_output(1)) {
    // The mask of an inference dropout keeps everything.
    const TensorType& t = n.type(0);
    std::vector<SymInt> dims;
    for (size_t i = 0; i < t.dims.size(); ++i)
      dims.push_back(SymInt::of_dim(t.dims[i], n.value(0), static_cast<int>(i)));
    n.set_output(1, n.im().filled(dims, 1.0, DType::Bool, n.hint(1)));
  }
}

// PRelu: x where x >= 0, else slope * x (slope broadcasts).
void prelu(NodeContext& n) {
  Value* x = n.value(0);
  Value* slope = n.value(1);
  Value* zero = n.im().full({}, 0.0, x->type().dtype, n.hint());
  Value* positive = n.im().emit("ge", {x, zero}, {}, n.hint() + "_positive");
  Value* scaled = n.im().emit("mul", {x, slope}, {}, n.hint() + "_scaled");
  n.set_output(0, n.emit("where", {positive, x, scaled}));
}

void is_nan(NodeContext& n) { n.set_output(0, n.emit("isnan", {n.value(0)})); }

// IsInf's int flags are our bools; an absent one takes the declared default
// (true, as in ONNX).
void is_inf(NodeContext& n) {
  Attrs attrs;
  for (const char* name : {"detect_positive", "detect_negative"})
    if (n.attr(name)) attrs.set(name, n.attr_int(name, 1) != 0);
  n.set_output(0, n.emit("isinf", {n.value(0)}, std::move(attrs)));
}

void constant(NodeContext& n) {
  if (n.proto().attribute_size() != 1) {
    std::string given;
    for (const auto& a : n.proto().attribute()) given += (given.empty() ? "'" : ", '") + a.name() + "'";
    n.fail("expected exactly one attribute holding the value ('value', 'value_float', 'value_int', ...), got " +
           (given.empty() ? std::string("none") : given));
  }
  const auto& a = n.proto().attribute(0);
  Entry e;
  if (a.name() == "value") {
    e.data = tensor_from_proto(a.t(), "attribute 'value'");
  } else if (a.name() == "value_float") {
    e.data = make_data(DType::Float32, {}, {a.f()});
  } else if (a.name() == "value_floats") {
    e.data = make_data(DType::Float32, {a.floats_size()}, std::vector<double>(a.floats().begin(), a.floats().end()));
  } else if (a.name() == "value_int") {
    e.data = make_int_data(DType::Int64, {}, {a.i()});
  } else if (a.name() == "value_ints") {
    e.data = make_int_data(DType::Int64, {a.ints_size()}, std::vector<int64_t>(a.ints().begin(), a.ints().end()));
  } else {
    n.fail("attribute '" + a.name() + "' is not supported (edgec imports neither sparse nor string constants)");
  }
  e.type = e.data->type;
  n.set_output(0, std::move(e));
}

}  // namespace

void register_elementwise_handlers(HandlerTable& t) {
  for (const auto& [name, op] : unary_ops()) t[name] = unary;
  for (const auto& [name, op] : binary_ops()) t[name] = binary;
  for (const char* name : {"Min", "Max", "Sum", "Mean"}) t[name] = variadic;
  t["LeakyRelu"] = leaky_relu;
  t["Elu"] = elu;
  for (const auto& [name, op] : attr_unary_ops()) t[name] = attr_unary;
  t["HardSigmoid"] = hard_sigmoid;
  t["Mod"] = mod;
  t["BitShift"] = bit_shift;
  t["Where"] = where;
  t["Cast"] = cast;
  t["CastLike"] = cast;
  t["PRelu"] = prelu;
  t["IsNaN"] = is_nan;
  t["IsInf"] = is_inf;
  t["Clip"] = clip;
  t["Identity"] = identity;
  t["Dropout"] = dropout;
  t["Constant"] = constant;
}

}  // namespace edgec::onnx_import

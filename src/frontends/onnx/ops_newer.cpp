// Operators added after opset 17 (their schemas: newer_schemas.cpp):
// Mish (18), BitwiseAnd/Or/Xor/Not (18), CenterCropPad (18),
// GroupNormalization (18, per-channel scale from 21), Gelu (20),
// RMSNormalization (23); RotaryEmbedding and Attention (23) are in
// ops_transformer.cpp.
#include <map>

#include "frontends/onnx/context.h"

namespace edgec::onnx_import {

void register_transformer_handlers(HandlerTable& t);  // ops_transformer.cpp

namespace {

std::string list_str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

void mish(NodeContext& n) { n.set_output(0, n.emit("mish", {n.value(0)})); }

void gelu(NodeContext& n) {
  const std::string approximate = n.attr_string("approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    n.fail("attribute 'approximate' is '" + approximate + "'; expected none or tanh");
  n.set_output(0, n.emit("gelu", {n.value(0)}, attrs_of({{"approximate", approximate}})));
}

// Opset 18 gives scale and bias per group, 21 per channel (group_norm's
// weight): a group's value is repeated over its channels.
void group_norm(NodeContext& n) {
  Value* x = n.value(0);
  const TensorType& xt = x->type();
  if (xt.rank() < 3) n.fail(n.typed_operand(0) + " has rank " + std::to_string(xt.rank()) + "; expected (N, C, ...)");
  const Dim& c = xt.dims[1];
  if (!c.is_static()) n.fail("the channel dim " + c.str() + " of " + n.typed_operand(0) + " is symbolic; expected a size");
  const int64_t groups = n.attr_int("num_groups", 1);
  if (groups < 1 || c.value % groups != 0)
    n.fail("attribute 'num_groups' is " + std::to_string(groups) + "; expected a divisor of the " +
           std::to_string(c.value) + " channels of " + n.typed_operand(0));
  const int64_t per_param = n.opset() >= 21 ? c.value : groups;
  std::vector<Value*> params;
  for (size_t i = 1; i <= 2; ++i) {
    const TensorType& t = n.type(i);
    if (t.rank() != 1 || !t.dims[0].is_static() || t.dims[0].value != per_param)
      n.fail(n.typed_operand(i) + " has shape " + t.str() + "; expected [" + std::to_string(per_param) + "] (one per " +
             (n.opset() >= 21 ? "channel" : "group") + " at opset " + std::to_string(n.opset()) + ")");
    Value* p = n.value(i);
    if (per_param != c.value) {
      p = n.emit("reshape", {p}, attrs_of({{"shape", std::vector<int64_t>{groups, 1}}}));
      p = n.emit("expand", {p}, attrs_of({{"shape", std::vector<int64_t>{groups, c.value / groups}}}));
      p = n.emit("reshape", {p}, attrs_of({{"shape", std::vector<int64_t>{c.value}}}));
    }
    params.push_back(p);
  }
  n.set_output(0, n.emit("group_norm", {x, params[0], params[1]},
                         attrs_of({{"num_groups", groups}, {"eps", n.attr_float("epsilon", 1e-5)}})));
}

// x * rsqrt(mean(x^2 over axis..last) + epsilon) * scale.
void rms_norm(NodeContext& n) {
  Value* x = n.value(0);
  const int64_t rank = x->type().rank();
  int64_t axis = n.attr_int("axis", -1);
  if (axis < -rank || axis >= rank)
    n.fail("attribute 'axis' is " + std::to_string(axis) + "; expected an axis in [" + std::to_string(-rank) + ", " +
           std::to_string(rank - 1) + "] for " + n.typed_operand(0));
  if (axis < 0) axis += rank;
  if (n.type(1).dtype != x->type().dtype)
    n.fail(n.typed_operand(1) + " has another element type than " + n.typed_operand(0) + "; expected the same");
  std::vector<int64_t> dims;
  for (int64_t d = axis; d < rank; ++d) dims.push_back(d);
  Importer& im = n.im();
  Value* mean_sq = im.emit("mean", {im.emit("mul", {x, x}, {}, n.hint())}, attrs_of({{"dims", dims}, {"keepdim", true}}),
                           n.hint());
  Value* eps = im.full({}, n.attr_float("epsilon", 1e-5), x->type().dtype, n.hint());
  Value* inv = im.emit("rsqrt", {im.emit("add", {mean_sq, eps}, {}, n.hint())}, {}, n.hint());
  n.set_output(0, n.emit("mul", {im.emit("mul", {x, inv}, {}, n.hint()), n.value(1)}));
}

void bitwise(NodeContext& n) {
  static const std::map<std::string, std::string> ops = {{"BitwiseAnd", "bitwise_and"},
                                                         {"BitwiseOr", "bitwise_or"},
                                                         {"BitwiseXor", "bitwise_xor"},
                                                         {"BitwiseNot", "bitwise_not"}};
  const std::string& op = ops.at(n.proto().op_type());
  if (n.fold_constants(op)) return;
  std::vector<Value*> inputs;
  for (size_t i = 0; i < n.num_inputs(); ++i) inputs.push_back(n.value(i));
  n.set_output(0, n.emit(op, inputs));
}

// Each of the axes cropped or padded with zeros to the size in the shape,
// centered: a crop starts at (size - target) / 2 rounded down, a pad puts
// the odd element after.
void center_crop_pad(NodeContext& n) {
  Value* x = n.value(0);
  const TensorType& xt = x->type();
  const int64_t rank = xt.rank();
  const std::vector<int64_t> target = n.ints(1, "the shape");
  std::vector<int64_t> axes(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) axes[static_cast<size_t>(i)] = i;
  if (auto a = n.attr_ints("axes")) axes = *a;
  std::vector<bool> seen(static_cast<size_t>(rank));
  for (int64_t& a : axes) {
    const int64_t w = a < 0 ? a + rank : a;
    if (w < 0 || w >= rank || seen[static_cast<size_t>(w)])
      n.fail("attribute 'axes' is " + list_str(*n.attr_ints("axes")) + "; expected distinct axes in [" +
             std::to_string(-rank) + ", " + std::to_string(rank - 1) + "] for " + n.typed_operand(0));
    seen[static_cast<size_t>(w)] = true;
    a = w;
  }
  if (target.size() != axes.size())
    n.fail("the shape, " + n.operand(1) + ", is " + list_str(target) + "; expected " + std::to_string(axes.size()) +
           " sizes, one per axis " + list_str(axes) + " of " + n.typed_operand(0));
  std::vector<int64_t> crop_dims, starts, ends, pads(static_cast<size_t>(2 * rank), 0);
  bool padded = false;
  for (size_t i = 0; i < axes.size(); ++i) {
    const Dim& d = xt.dims[static_cast<size_t>(axes[i])];
    if (d.is_static() && d.value == target[i]) continue;
    if (!d.is_static() || target[i] < 0)
      n.fail("the shape, " + n.operand(1) + ", is " + list_str(target) + "; expected sizes >= 0, on axes whose " +
             "dims are sizes: axis " + std::to_string(axes[i]) + " of " + n.typed_operand(0) + " is " + d.str() +
             n.im().dim_fix(d));
    if (target[i] < d.value) {
      const int64_t start = (d.value - target[i]) / 2;
      crop_dims.push_back(axes[i]);
      starts.push_back(start);
      ends.push_back(start + target[i]);
    } else {
      const int64_t before = (target[i] - d.value) / 2;
      pads[static_cast<size_t>(axes[i])] = before;
      pads[static_cast<size_t>(rank + axes[i])] = target[i] - d.value - before;
      padded = true;
    }
  }
  Value* y = x;
  if (!crop_dims.empty())
    y = n.emit("slice", {y}, attrs_of({{"dims", crop_dims}, {"starts", starts}, {"ends", ends},
                                       {"steps", std::vector<int64_t>(crop_dims.size(), 1)}}));
  if (padded) y = n.emit("pad", {y}, attrs_of({{"pads", pads}, {"mode", std::string("constant")}, {"value", 0.0}}));
  if (y == x) {
    n.forward(0, 0);
    return;
  }
  n.set_output(0, y);
}

}  // namespace

void register_newer_handlers(HandlerTable& t) {
  t["Mish"] = mish;
  for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot"}) t[op] = bitwise;
  t["CenterCropPad"] = center_crop_pad;
  t["Gelu"] = gelu;
  t["GroupNormalization"] = group_norm;
  t["RMSNormalization"] = rms_norm;
  register_transformer_handlers(t);
}

}  // namespace edgec::onnx_import

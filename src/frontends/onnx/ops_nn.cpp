// Neural-network ONNX operators: MatMul and Gemm (aten linear / addmm /
// matmul), convolution and pooling (ONNX's per-axis attribute lists map
// one to one: pads are all begins then all ends, as in our padding), the
// normalizations, softmax and Resize (torch's nearest and linear modes).
#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

#include "frontends/onnx/context.h"

namespace edgec::onnx_import {
namespace {

std::string list_str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

/// Spatial attribute values beyond this are refused (the operator table's
/// limit, which keeps window arithmetic far from overflow).
constexpr int64_t kMaxWindowValue = int64_t{1} << 31;

/// Attribute `name` (`values`) has entries in [lo, kMaxWindowValue].
void check_entries(NodeContext& n, const std::string& name, const std::vector<int64_t>& values, int64_t lo) {
  for (int64_t v : values)
    if (v < lo || v > kMaxWindowValue)
      n.fail("attribute '" + name + "' is " + list_str(values) + "; expected entries in [" + std::to_string(lo) + ", " +
             std::to_string(kMaxWindowValue) + "]");
}

void matmul(NodeContext& n) { n.set_output(0, n.emit("matmul", {n.value(0), n.value(1)})); }

// Gemm: alpha * A' @ B' + beta * C, A' = transA ? A^T : A, B' likewise.
void gemm(NodeContext& n) {
  const double alpha = n.attr_float("alpha", 1.0), beta = n.attr_float("beta", 1.0);
  const bool trans_a = n.attr_int("transA", 0) != 0, trans_b = n.attr_int("transB", 0) != 0;
  Value* a = n.value(0);
  Value* b = n.value(1);
  Value* c = n.input(2) ? n.value(2) : nullptr;
  Importer& im = n.im();
  for (size_t i = 0; i < 2; ++i)
    if (n.type(i).rank() != 2)
      n.fail(n.typed_operand(i) + " has rank " + std::to_string(n.type(i).rank()) + "; expected 2");
  if (trans_a) a = im.permute(a, {1, 0}, n.hint() + "_a");
  if (alpha == 1.0 && (beta == 1.0 || !c)) {
    if (trans_b) {
      std::vector<Value*> ins = {a, b};
      if (c) ins.push_back(c);
      n.set_output(0, n.emit("linear", ins));
      return;
    }
    Value* y = c ? im.emit("matmul", {a, b}, {}, n.hint() + "_mm") : n.emit("matmul", {a, b});
    n.set_output(0, c ? n.emit("add", {y, c}) : y);
    return;
  }
  if (trans_b) b = im.permute(b, {1, 0}, n.hint() + "_b");
  if (c) {
    n.set_output(0, n.emit("addmm", {c, a, b}, attrs_of({{"beta", beta}, {"alpha", alpha}})));
    return;
  }
  Value* y = im.emit("matmul", {a, b}, {}, n.hint() + "_mm");
  n.set_output(0, n.emit("mul", {y, im.full({}, alpha, y->type().dtype, n.hint())}));
}

// ---- convolution and pooling ----------------------------------------------------

struct Window {
  std::vector<int64_t> strides, dilations, pads;
};

/// Reads strides / dilations / pads (default 1s, 1s, 0s; an empty list is
/// the default too) for `nd` spatial dims of `x`, checking their counts and
/// ranges. auto_pad SAME_UPPER / SAME_LOWER (output = ceil(in / stride))
/// become explicit pads from the window sizes `kernel`, which needs static
/// spatial sizes; `kernel` empty refuses them.
Window read_window(NodeContext& n, size_t nd, const TensorType& x, const std::vector<int64_t>& kernel) {
  Window w;
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER")
    n.fail("attribute 'auto_pad' is '" + auto_pad + "'; expected NOTSET, VALID, SAME_UPPER or SAME_LOWER");
  auto list = [&](const char* name, size_t count, int64_t dflt) {
    std::vector<int64_t> v = n.attr_ints(name).value_or(std::vector<int64_t>{});
    if (v.empty()) v.assign(count, dflt);
    if (v.size() != count)
      n.fail("attribute '" + std::string(name) + "' is " + list_str(v) + "; expected " + std::to_string(count) +
             " entries for the " + std::to_string(nd) + " spatial dims of " + n.typed_operand(0));
    return v;
  };
  w.strides = list("strides", nd, 1);
  w.dilations = list("dilations", nd, 1);
  w.pads = list("pads", 2 * nd, 0);
  check_entries(n, "strides", w.strides, 1);
  check_entries(n, "dilations", w.dilations, 1);
  check_entries(n, "pads", w.pads, 0);
  if (auto_pad != "NOTSET") {
    if (n.attr("pads"))
      n.fail("attribute 'pads' is given with attribute 'auto_pad' " + auto_pad + "; expected one of the two");
    w.pads.assign(2 * nd, 0);
  }
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    if (kernel.size() != nd)
      n.fail("attribute 'auto_pad' " + auto_pad +
             " is not supported without static kernel sizes (export with "
             "explicit pads)");
    for (size_t i = 0; i < nd; ++i) {
      const Dim& d = x.dims[2 + i];
      if (!d.is_static())
        n.fail("attribute 'auto_pad' " + auto_pad + " needs static spatial sizes, got " + n.typed_operand(0) +
               n.im().dim_fix(d));
      // In 128 bits: sizes near 2^63 with strides and kernels up to 2^31.
      const __int128 s = w.strides[i], in = d.value;
      const __int128 out = (in + s - 1) / s;
      const __int128 needed = std::max<__int128>(0, (out - 1) * s + __int128{kernel[i] - 1} * w.dilations[i] + 1 - in);
      if (needed > kMaxWindowValue)
        n.fail("attribute 'auto_pad' " + auto_pad + " needs " + std::to_string(static_cast<int64_t>(needed)) +
               " pads in spatial dim " + std::to_string(i) + " of " + n.typed_operand(0) + "; expected at most " +
               std::to_string(kMaxWindowValue));
      const int64_t total = static_cast<int64_t>(needed);
      const int64_t small = total / 2;
      w.pads[i] = auto_pad == "SAME_UPPER" ? small : total - small;
      w.pads[nd + i] = total - w.pads[i];
    }
  }
  return w;
}

std::vector<int64_t> weight_kernel(Value* w) {
  std::vector<int64_t> k;
  for (size_t i = 2; i < w->type().dims.size(); ++i) {
    if (!w->type().dims[i].is_static()) return {};
    k.push_back(w->type().dims[i].value);
  }
  return k;
}

size_t spatial_rank(NodeContext& n, Value* x) {
  const int rank = x->type().rank();
  if (rank < 3 || rank > 5)
    n.fail(n.typed_operand(0) + " has rank " + std::to_string(rank) +
           "; expected a 1-d (N, C, L), 2-d (N, C, H, W) or 3-d (N, C, D, H, W) input");
  return static_cast<size_t>(rank - 2);
}

/// Conv's and ConvTranspose's weight: the input's rank, and kernel_shape
/// (when given) its spatial sizes.
void check_weight(NodeContext& n, Value* x, Value* w) {
  if (w->type().rank() != x->type().rank())
    n.fail(n.typed_operand(1) + " has rank " + std::to_string(w->type().rank()) + "; expected rank " +
           std::to_string(x->type().rank()) + ", that of " + n.typed_operand(0));
  auto ks = n.attr_ints("kernel_shape");
  if (!ks) return;
  const auto& dims = w->type().dims;
  if (ks->size() + 2 != dims.size())
    n.fail("attribute 'kernel_shape' is " + list_str(*ks) + "; expected " + std::to_string(dims.size() - 2) +
           " entries, the spatial dims of " + n.typed_operand(1));
  for (size_t i = 0; i < ks->size(); ++i)
    if (dims[i + 2].is_static() && dims[i + 2].value != (*ks)[i])
      n.fail("attribute 'kernel_shape' is " + list_str(*ks) + "; expected the spatial sizes of " + n.typed_operand(1));
}

/// Conv's group divides the channels: input C = weight's C/group * group,
/// and the output channels (weight dim 0) are a multiple of it.
int64_t read_group(NodeContext& n, Value* x, Value* w, bool transposed) {
  const int64_t group = n.attr_int("group", 1);
  if (group < 1 || group > kMaxWindowValue)
    n.fail("attribute 'group' is " + std::to_string(group) + "; expected a group count in [1, " +
           std::to_string(kMaxWindowValue) + "]");
  const Dim& c = x->type().dims[1];
  const Dim& wc = w->type().dims[transposed ? 0 : 1];
  if (c.is_static() && c.value % group != 0)
    n.fail("attribute 'group' is " + std::to_string(group) + ", which does not divide the " + std::to_string(c.value) +
           " channels of " + n.typed_operand(0));
  if (!transposed && c.is_static() && wc.is_static() && wc.value * group != c.value)
    n.fail(n.typed_operand(1) + " has " + std::to_string(wc.value) + " input channels per group; expected " +
           std::to_string(c.value / group) + " (the " + std::to_string(c.value) + " channels of " + n.typed_operand(0) +
           " in " + std::to_string(group) + " groups, attribute 'group')");
  const Dim& m = w->type().dims[0];
  if (!transposed && m.is_static() && m.value % group != 0)
    n.fail("attribute 'group' is " + std::to_string(group) + ", which does not divide the " + std::to_string(m.value) +
           " output channels of " + n.typed_operand(1));
  return group;
}

/// Pooling's kernel_shape: one size >= 1 per spatial dim; ONNX Runtime's
/// rule that each pad is smaller than the kernel (a window entirely in the
/// padding has no element to pool).
std::vector<int64_t> pool_kernel(NodeContext& n, size_t nd) {
  const std::vector<int64_t> kernel = n.attr_ints("kernel_shape").value_or(std::vector<int64_t>{});
  if (kernel.size() != nd)
    n.fail("attribute 'kernel_shape' is " + list_str(kernel) + "; expected " + std::to_string(nd) +
           " entries for the spatial dims of " + n.typed_operand(0));
  check_entries(n, "kernel_shape", kernel, 1);
  return kernel;
}

void check_pool_pads(NodeContext& n, const std::vector<int64_t>& kernel, const Window& win) {
  const size_t nd = kernel.size();
  for (size_t i = 0; i < nd; ++i)
    if (win.pads[i] >= kernel[i] || win.pads[nd + i] >= kernel[i])
      n.fail("attribute 'pads' is " + list_str(win.pads) +
             "; expected each pad smaller than the kernel (attribute "
             "'kernel_shape' " +
             list_str(kernel) + "), got pads " + std::to_string(win.pads[i]) + " and " +
             std::to_string(win.pads[nd + i]) + " for a kernel of " + std::to_string(kernel[i]) + " in spatial dim " +
             std::to_string(i));
}

// What Conv and ConvTranspose read first, in this order: input, weight, the
// spatial rank and the group count.
struct ConvOperands {
  Value* x;
  Value* w;
  size_t nd;
  int64_t group;
};

ConvOperands read_conv_operands(NodeContext& n, bool transposed) {
  Value* x = n.value(0);
  Value* w = n.value(1);
  const size_t nd = spatial_rank(n, x);
  check_weight(n, x, w);
  return {x, w, nd, read_group(n, x, w, transposed)};
}

// Input, weight and the optional bias.
std::vector<Value*> conv_inputs(NodeContext& n, const ConvOperands& c) {
  std::vector<Value*> ins = {c.x, c.w};
  if (n.input(2)) ins.push_back(n.value(2));
  return ins;
}

void conv(NodeContext& n) {
  const ConvOperands c = read_conv_operands(n, false);
  const Window win = read_window(n, c.nd, c.x->type(), weight_kernel(c.w));
  n.set_output(0, n.emit("conv", conv_inputs(n, c),
                         attrs_of({{"stride", win.strides}, {"padding", win.pads}, {"dilation", win.dilations},
                                   {"groups", c.group}})));
}

void conv_transpose(NodeContext& n) {
  const ConvOperands c = read_conv_operands(n, true);
  const size_t nd = c.nd;
  if (n.attr("output_shape")) n.fail("attribute 'output_shape' is not supported (export with explicit pads)");
  const Window win = read_window(n, nd, c.x->type(), {});
  std::vector<int64_t> output_padding = n.attr_ints("output_padding").value_or(std::vector<int64_t>{});
  if (output_padding.empty()) output_padding.assign(nd, 0);
  if (output_padding.size() != nd)
    n.fail("attribute 'output_padding' is " + list_str(output_padding) + "; expected " + std::to_string(nd) +
           " entries for the spatial dims of " + n.typed_operand(0));
  check_entries(n, "output_padding", output_padding, 0);
  n.set_output(0, n.emit("conv_transpose", conv_inputs(n, c),
                         attrs_of({{"stride", win.strides},
                                   {"padding", win.pads},
                                   {"dilation", win.dilations},
                                   {"output_padding", output_padding},
                                   {"groups", c.group}})));
}

// What MaxPool and AveragePool read first: the input, its kernel and the
// window, whose pads are checked against the kernel.
struct PoolOperands {
  Value* x;
  std::vector<int64_t> kernel;
  Window win;
};

PoolOperands read_pool_operands(NodeContext& n) {
  Value* x = n.value(0);
  const size_t nd = spatial_rank(n, x);
  std::vector<int64_t> kernel = pool_kernel(n, nd);
  Window win = read_window(n, nd, x->type(), kernel);
  check_pool_pads(n, kernel, win);
  return {x, std::move(kernel), std::move(win)};
}

void max_pool(NodeContext& n) {
  const auto [x, kernel, win] = read_pool_operands(n);
  n.outputs_unsupported_from(1, "MaxPool's indices output");
  n.set_output(0, n.emit("max_pool", {x},
                         attrs_of({{"kernel_size", kernel},
                                   {"stride", win.strides},
                                   {"padding", win.pads},
                                   {"dilation", win.dilations},
                                   {"ceil_mode", n.attr_int("ceil_mode", 0) != 0}})));
}

void average_pool(NodeContext& n) {
  const auto [x, kernel, win] = read_pool_operands(n);
  // AveragePool has dilations from opset 19 (its schema before has none,
  // and read_window gives 1s); avg_pool's dilation is ONNX's.
  n.set_output(0, n.emit("avg_pool", {x},
                         attrs_of({{"kernel_size", kernel},
                                   {"stride", win.strides},
                                   {"padding", win.pads},
                                   {"dilation", win.dilations},
                                   {"ceil_mode", n.attr_int("ceil_mode", 0) != 0},
                                   {"count_include_pad", n.attr_int("count_include_pad", 0) != 0}})));
}

void global_pool(NodeContext& n) {
  Value* x = n.value(0);
  std::vector<int64_t> dims;
  for (int64_t d = 2; d < x->type().rank(); ++d) dims.push_back(d);
  if (dims.empty())
    n.fail(n.typed_operand(0) + " has rank " + std::to_string(x->type().rank()) +
           "; expected rank >= 3 (N, C, spatial...)");
  const char* op = n.proto().op_type() == "GlobalMaxPool" ? "amax" : "mean";
  n.set_output(0, n.emit(op, {x}, attrs_of({{"dims", dims}, {"keepdim", true}})));
}

// ---- normalization, softmax ------------------------------------------------------

void batch_norm(NodeContext& n) {
  if (n.attr_int("training_mode", 0) != 0)
    n.fail("attribute 'training_mode' is " + std::to_string(n.attr_int("training_mode", 0)) +
           "; expected 0 (edgec imports inference graphs)");
  n.outputs_unsupported_from(1, "running statistics (training only)");
  n.set_output(0, n.emit("batch_norm", {n.value(0), n.value(1), n.value(2), n.value(3), n.value(4)},
                         attrs_of({{"eps", n.attr_float("epsilon", 1e-5)}})));
}

void layer_norm(NodeContext& n) {
  Value* x = n.value(0);
  const int64_t rank = x->type().rank();
  const int64_t axis = n.attr_int("axis", -1);
  if (axis < -rank || axis >= rank)
    n.fail("attribute 'axis' is " + std::to_string(axis) + "; expected an axis in [" + std::to_string(-rank) + ", " +
           std::to_string(rank - 1) + "] for " + n.typed_operand(0));
  const double eps = n.attr_float("epsilon", 1e-5);
  std::vector<Value*> ins = {x, n.value(1)};
  if (n.input(2)) ins.push_back(n.value(2));
  n.set_output(0, n.emit("layer_norm", ins, attrs_of({{"axis", axis}, {"eps", eps}})));
  if (!n.has_output(1) && !n.has_output(2)) return;
  // The optional statistics, over dims [axis, rank) with kept dims.
  Importer& im = n.im();
  std::vector<int64_t> dims;
  for (int64_t d = axis < 0 ? axis + rank : axis; d < rank; ++d) dims.push_back(d);
  const Attrs over = attrs_of({{"dims", dims}, {"keepdim", true}});
  Value* mean = im.emit("mean", {x}, over, n.hint(1));
  Value* centered = im.emit("sub", {x, mean}, {}, n.hint(2));
  Value* var = im.emit("mean", {im.emit("mul", {centered, centered}, {}, n.hint(2))}, over, n.hint(2));
  Value* shifted = im.emit("add", {var, im.full({}, eps, x->type().dtype, n.hint(2))}, {}, n.hint(2));
  n.set_output(1, mean);
  n.set_output(2, im.emit("rsqrt", {shifted}, {}, n.hint(2)));
}

void instance_norm(NodeContext& n) {
  n.set_output(0, n.emit("instance_norm", {n.value(0), n.value(1), n.value(2)},
                         attrs_of({{"eps", n.attr_float("epsilon", 1e-5)}})));
}

void softmax(NodeContext& n) {
  const char* op = n.proto().op_type() == "LogSoftmax" ? "log_softmax" : "softmax";
  const int64_t rank = n.type(0).rank(), axis = n.attr_int("axis", -1);
  const int64_t lo = rank == 0 ? -1 : -rank, hi = rank == 0 ? 0 : rank - 1;
  if (axis < lo || axis > hi)
    n.fail("attribute 'axis' is " + std::to_string(axis) + "; expected an axis in [" + std::to_string(lo) + ", " +
           std::to_string(hi) + "] for " + n.typed_operand(0));
  n.set_output(0, n.emit(op, {n.value(0)}, attrs_of({{"dim", axis}})));
}

// ---- Resize ------------------------------------------------------------------

// torch exports nearest as asymmetric + floor, and (bi)linear as
// pytorch_half_pixel (align_corners=False) or align_corners.
void resize(NodeContext& n) {
  Value* x = n.value(0);
  const size_t nd = spatial_rank(n, x);
  const std::string mode = n.attr_string("mode", "nearest");
  const std::string coord = n.attr_string("coordinate_transformation_mode", "half_pixel");
  const std::string nearest_mode = n.attr_string("nearest_mode", "round_prefer_floor");
  std::vector<int64_t> out;
  const TensorType& xt = x->type();
  if (n.input(3) && n.type(3).max_numel().value_or(0) > 0) {
    const auto sizes = n.ints(3, "the sizes");
    if (sizes.size() != nd + 2)
      n.fail("the sizes, " + n.operand(3) + ", are " + list_str(sizes) + "; expected " + std::to_string(nd + 2) +
             " sizes, one per dim of " + n.typed_operand(0));
    out.assign(sizes.begin() + 2, sizes.end());
    check_entries(n, "sizes", out, 1);
    for (size_t i = 0; i < 2; ++i)
      if (!xt.dims[i].is_static() || xt.dims[i].value != sizes[i])
        n.fail("the sizes, " + n.operand(3) + ", are " + list_str(sizes) +
               ", which resize the batch or channel dim of " + n.typed_operand(0) +
               "; expected only spatial sizes to change");
  } else if (n.input(2)) {
    const TensorData* scales = n.data(2);
    if (!scales) n.fail_not_known(2, "the scales");
    const auto s = data_as_doubles(*scales);
    if (s.size() != nd + 2)
      n.fail("the scales, " + n.operand(2) + ", hold " + std::to_string(s.size()) + " values; expected " +
             std::to_string(nd + 2) + ", one per dim of " + n.typed_operand(0));
    if (s[0] != 1.0 || s[1] != 1.0)
      n.fail("the scales, " + n.operand(2) + ", resize the batch or channel dim of " + n.typed_operand(0) +
             "; expected scales of 1 for them");
    // Our kernels map coordinates with in/out (torch's arithmetic), ONNX's
    // with 1/scale: the same only when the scale gives a whole size.
    for (size_t i = 0; i < nd; ++i) {
      const Dim& d = xt.dims[2 + i];
      if (!d.is_static())
        n.fail("resizing the symbolic dim " + d.str() + " of " + n.typed_operand(0) + " by a scale (" + n.operand(2) +
               ") is not supported" + n.im().dim_fix(d));
      const double size = static_cast<double>(d.value) * s[2 + i];
      if (!(size >= 1 && size <= static_cast<double>(kMaxWindowValue)) || std::abs(size - std::round(size)) > 1e-6)
        n.fail("the scales, " + n.operand(2) + ", give spatial dim " + std::to_string(i) + " of " + n.typed_operand(0) +
               " the size " + std::to_string(size) + "; expected scales giving whole sizes in [1, " +
               std::to_string(kMaxWindowValue) + "]");
      out.push_back(static_cast<int64_t>(std::round(size)));
    }
  } else {
    n.fail("neither " + n.operand(2) + " nor " + n.operand(3) + " is given; expected one of them");
  }
  if (mode == "nearest") {
    if (coord != "asymmetric" || nearest_mode != "floor")
      n.fail("attributes 'coordinate_transformation_mode' " + coord + " and 'nearest_mode' " + nearest_mode +
             " are not supported with 'mode' nearest; expected asymmetric and floor (torch's nearest)");
    n.set_output(0, n.emit("upsample_nearest", {x}, attrs_of({{"output_size", out}})));
    return;
  }
  // pytorch_half_pixel maps an output of size 1 to 0 in ONNX, but to the
  // middle of the input in torch; we follow torch (the exporter's source).
  if (mode == "linear") {
    if (coord != "pytorch_half_pixel" && coord != "half_pixel" && coord != "align_corners")
      n.fail("attribute 'coordinate_transformation_mode' " + coord +
             " is not supported with 'mode' linear; expected pytorch_half_pixel, half_pixel or align_corners");
    n.set_output(0, n.emit("upsample_bilinear", {x},
                           attrs_of({{"output_size", out}, {"align_corners", coord == "align_corners"}})));
    return;
  }
  n.fail("attribute 'mode' is '" + mode + "'; expected nearest or linear (cubic is not supported)");
}

}  // namespace

void register_nn_handlers(HandlerTable& t) {
  t["MatMul"] = matmul;
  t["Gemm"] = gemm;
  t["Conv"] = conv;
  t["ConvTranspose"] = conv_transpose;
  t["MaxPool"] = max_pool;
  t["AveragePool"] = average_pool;
  t["GlobalAveragePool"] = global_pool;
  t["GlobalMaxPool"] = global_pool;
  t["BatchNormalization"] = batch_norm;
  t["LayerNormalization"] = layer_norm;
  t["InstanceNormalization"] = instance_norm;
  t["Softmax"] = softmax;
  t["LogSoftmax"] = softmax;
  t["Resize"] = resize;
}

}  // namespace edgec::onnx_import

// Neural-network ONNX operators: MatMul and Gemm (aten linear / addmm /
// matmul), Det, convolution and pooling (ONNX's per-axis attribute lists map
// one to one: pads are all begins then all ends, as in our padding), the
// normalizations, softmax and Resize (every mode; torch's on the fast
// upsample kernels). The detection operators are in ops_detection.cpp.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>

#include "frontends/onnx/context.h"
#include "kernels/resize_coords.h"

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

// Det: the determinant of each [n, n] matrix; the kernel's workspace (its
// last result) is dropped.
void det(NodeContext& n) {
  Value* x = n.value(0);
  const TensorType& t = x->type();
  if (t.rank() < 2) n.fail(n.typed_operand(0) + " has rank " + std::to_string(t.rank()) + "; expected [..., n, n]");
  if (!t.dims.back().is_static() && !t.dims[t.rank() - 2].is_static())
    n.fail(n.typed_operand(0) + " has a symbolic matrix size; expected a static n in [..., n, n]" +
           n.im().dim_fix(t.dims.back()));
  n.set_output(0, n.im().emit_n("det", {x}, {}, n.hint())[0]);
}

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
/// spatial sizes; `kernel` empty refuses them. `transposed`: leaves SAME's
/// pads 0 for ConvTranspose, whose SAME is its own (transpose_pads).
Window read_window(NodeContext& n, size_t nd, const TensorType& x, const std::vector<int64_t>& kernel,
                   bool transposed = false) {
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
  if (!transposed && (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER")) {
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

/// Conv's and ConvTranspose's weight (input `wi`): the input's rank, and
/// kernel_shape (when given) its spatial sizes.
void check_weight(NodeContext& n, Value* x, Value* w, size_t wi = 1) {
  if (w->type().rank() != x->type().rank())
    n.fail(n.typed_operand(wi) + " has rank " + std::to_string(w->type().rank()) + "; expected rank " +
           std::to_string(x->type().rank()) + ", that of " + n.typed_operand(0));
  auto ks = n.attr_ints("kernel_shape");
  if (!ks) return;
  const auto& dims = w->type().dims;
  if (ks->size() + 2 != dims.size())
    n.fail("attribute 'kernel_shape' is " + list_str(*ks) + "; expected " + std::to_string(dims.size() - 2) +
           " entries, the spatial dims of " + n.typed_operand(wi));
  for (size_t i = 0; i < ks->size(); ++i)
    if (dims[i + 2].is_static() && dims[i + 2].value != (*ks)[i])
      n.fail("attribute 'kernel_shape' is " + list_str(*ks) + "; expected the spatial sizes of " + n.typed_operand(wi));
}

/// Conv's group divides the channels: input C = weight's C/group * group,
/// and the output channels (weight dim 0) are a multiple of it. The weight
/// is input `wi`.
int64_t read_group(NodeContext& n, Value* x, Value* w, bool transposed, size_t wi = 1) {
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
    n.fail(n.typed_operand(wi) + " has " + std::to_string(wc.value) + " input channels per group; expected " +
           std::to_string(c.value / group) + " (the " + std::to_string(c.value) + " channels of " + n.typed_operand(0) +
           " in " + std::to_string(group) + " groups, attribute 'group')");
  const Dim& m = w->type().dims[0];
  if (!transposed && m.is_static() && m.value % group != 0)
    n.fail("attribute 'group' is " + std::to_string(group) + ", which does not divide the " + std::to_string(m.value) +
           " output channels of " + n.typed_operand(wi));
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

/// ConvTranspose's output_shape, or auto_pad SAME (output = in * stride):
/// the pads that give that output, from ONNX's total padding (stride * (in -
/// 1) + output_padding + (kernel - 1) * dilation + 1 - output), split as
/// ONNX's spec says (SAME_UPPER: the smaller half first; otherwise the
/// larger, Python's floor division for a negative total). An output larger
/// than the natural one (a negative end pad) is more output padding, which
/// conv_transpose keeps below stride or dilation; a negative begin pad
/// would drop outputs from the front and is refused.
void transpose_pads(NodeContext& n, const ConvOperands& c, Window& win, std::vector<int64_t>& output_padding) {
  const size_t nd = c.nd;
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
  const auto output_shape = n.attr_ints("output_shape");
  if (!output_shape && !same) return;
  const std::string what =
      output_shape ? "attribute 'output_shape' " + list_str(*output_shape) : "attribute 'auto_pad' " + auto_pad;
  std::vector<int64_t> out;
  if (output_shape) {
    out = *output_shape;
    if (out.size() == nd + 2) out.erase(out.begin(), out.begin() + 2);  // N and C given too
    if (out.size() != nd)
      n.fail(what + " has " + std::to_string(output_shape->size()) + " entries; expected " + std::to_string(nd) +
             " (the spatial dims of " + n.typed_operand(0) + ")");
    check_entries(n, "output_shape", out, 1);
  }
  const std::vector<int64_t> kernel = weight_kernel(c.w);
  if (kernel.size() != nd) n.fail(what + " needs static kernel sizes, got " + n.typed_operand(1));
  for (size_t i = 0; i < nd; ++i) {
    const Dim& d = c.x->type().dims[2 + i];
    if (!d.is_static())
      n.fail(what + " needs static spatial sizes, got " + n.typed_operand(0) + n.im().dim_fix(d));
    // In 128 bits: sizes near 2^63 times strides up to 2^31.
    const __int128 s = win.strides[i], in = d.value;
    const __int128 natural = s * (in - 1) + output_padding[i] + __int128{kernel[i] - 1} * win.dilations[i] + 1;
    const __int128 target = output_shape ? __int128{out[i]} : in * s;
    const __int128 total = natural - target;
    const __int128 half = total >= 0 ? total / 2 : -((-total + 1) / 2);  // floor(total / 2)
    const __int128 begin = auto_pad == "SAME_UPPER" ? half : total - half, end = total - begin;
    if (begin < 0 || begin > kMaxWindowValue || end > kMaxWindowValue || -end > kMaxWindowValue)
      n.fail(what + " needs pads " + std::to_string(static_cast<int64_t>(begin)) + " and " +
             std::to_string(static_cast<int64_t>(end)) + " in spatial dim " + std::to_string(i) + " of " +
             n.typed_operand(0) + "; expected a begin pad in [0, " + std::to_string(kMaxWindowValue) + "]");
    win.pads[i] = static_cast<int64_t>(begin);
    win.pads[nd + i] = std::max<int64_t>(static_cast<int64_t>(end), 0);
    if (end < 0) {
      output_padding[i] -= static_cast<int64_t>(end);
      const int64_t most = std::max(win.strides[i], win.dilations[i]) - 1;
      if (output_padding[i] > most)
        n.fail(what + " is " + std::to_string(static_cast<int64_t>(-end)) + " larger than the output in spatial dim " +
               std::to_string(i) + " of " + n.typed_operand(0) + " can be (output padding " +
               std::to_string(output_padding[i]) + "); expected at most " + std::to_string(most) +
               " more (stride or dilation less 1)");
    }
  }
}

void conv_transpose(NodeContext& n) {
  const ConvOperands c = read_conv_operands(n, true);
  const size_t nd = c.nd;
  Window win = read_window(n, nd, c.x->type(), {}, /*transposed=*/true);
  std::vector<int64_t> output_padding = n.attr_ints("output_padding").value_or(std::vector<int64_t>{});
  if (output_padding.empty()) output_padding.assign(nd, 0);
  if (output_padding.size() != nd)
    n.fail("attribute 'output_padding' is " + list_str(output_padding) + "; expected " + std::to_string(nd) +
           " entries for the spatial dims of " + n.typed_operand(0));
  check_entries(n, "output_padding", output_padding, 0);
  transpose_pads(n, c, win, output_padding);
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

// MaxPool: max_pool, or with the Indices output (for MaxUnpool) asked
// for, max_pool_with_indices (flat indices over N x C x spatial,
// storage_order 1 column major).
void max_pool(NodeContext& n) {
  const auto [x, kernel, win] = read_pool_operands(n);
  Attrs attrs = attrs_of({{"kernel_size", kernel},
                          {"stride", win.strides},
                          {"padding", win.pads},
                          {"dilation", win.dilations},
                          {"ceil_mode", n.attr_int("ceil_mode", 0) != 0}});
  if (n.proto().output_size() < 2 || n.proto().output(1).empty()) {
    n.set_output(0, n.emit("max_pool", {x}, attrs));
    return;
  }
  const int64_t order = n.attr_int("storage_order", 0);
  if (order != 0 && order != 1)
    n.fail("attribute 'storage_order' is " + std::to_string(order) + "; expected 0 (row major) or 1 (column major)");
  attrs.set("storage_order", order);
  auto outs = n.im().emit_n("max_pool_with_indices", {x}, attrs, n.hint());
  n.set_output(0, outs[0]);
  n.set_output(1, outs[1]);
}

// MaxUnpool, as ONNX's reference computes it: zeros of the unpooled shape,
// (in - 1) * stride + kernel - pads per spatial dim (pads taken as 0 when
// the 'output_shape' operand is given), with X's elements written at the
// flat positions I holds (MaxPool's Indices): a scatter into the flattened
// zeros, so that an index outside them is an error when run. An
// 'output_shape' (known when compiling) then pads that with zeros at the end
// of each dim; it may not be smaller.
void max_unpool(NodeContext& n) {
  Value* x = n.value(0);
  const TensorType& xt = x->type();
  const size_t nd = spatial_rank(n, x);
  const std::vector<int64_t> kernel = pool_kernel(n, nd);
  Window win = read_window(n, nd, xt, kernel);
  check_pool_pads(n, kernel, win);
  if (n.type(1).dtype != DType::Int64 || n.type(1).dims != xt.dims)
    n.fail(n.typed_operand(1) + " does not index " + n.typed_operand(0) + "; expected i64 indices of its shape");
  for (const Dim& d : xt.dims)
    if (!d.is_static()) n.fail(n.typed_operand(0) + " has a symbolic dim; expected a static shape" + n.im().dim_fix(xt.dims));
  std::optional<std::vector<int64_t>> target;
  if (n.input(2)) {
    target = n.ints(2, "the output shape");
    if (target->size() != static_cast<size_t>(xt.rank()))
      n.fail("the output shape, " + n.operand(2) + ", is " + list_str(*target) + "; expected " +
             std::to_string(xt.rank()) + " entries, the rank of " + n.typed_operand(0));
    win.pads.assign(2 * nd, 0);
  }
  std::vector<int64_t> shape = {xt.dims[0].value, xt.dims[1].value};
  for (size_t i = 0; i < nd; ++i) {
    const int64_t size = (xt.dims[2 + i].value - 1) * win.strides[i] + kernel[i] - win.pads[i] - win.pads[nd + i];
    if (size < 0 || size > kMaxWindowValue)
      n.fail("the unpooled spatial dim " + std::to_string(i) + " of " + n.typed_operand(0) + " has size " +
             std::to_string(size) + " (attributes 'strides' " + list_str(win.strides) + ", 'kernel_shape' " +
             list_str(kernel) + ", 'pads' " + list_str(win.pads) + "); expected a size in [0, " +
             std::to_string(kMaxWindowValue) + "]");
    shape.push_back(size);
  }
  std::vector<int64_t> pads(2 * shape.size(), 0);
  bool padded = false;
  if (target) {
    for (size_t i = 0; i < shape.size(); ++i) {
      if ((*target)[i] < shape[i] || (*target)[i] > kMaxWindowValue)
        n.fail("the output shape, " + n.operand(2) + ", is " + list_str(*target) + "; expected sizes in [" +
               list_str(shape) + ", " + std::to_string(kMaxWindowValue) + "] per dim, at least the unpooled shape");
      pads[shape.size() + i] = (*target)[i] - shape[i];
      padded = padded || pads[shape.size() + i] > 0;
    }
  }
  __int128 total = 1;
  for (int64_t s : shape) {
    total *= s;
    if (total > std::numeric_limits<int64_t>::max() / 8)
      n.fail("the unpooled shape " + list_str(shape) + " of " + n.typed_operand(0) +
             " has more elements than a tensor can hold");
  }
  Importer& im = n.im();
  const std::string h = n.hint();
  const Attrs flat = attrs_of({{"start_dim", int64_t{0}}, {"end_dim", int64_t{-1}}});
  Value* zeros = im.full({static_cast<int64_t>(total)}, 0.0, xt.dtype, h + "_zeros");
  Value* y = im.emit("scatter", {zeros, im.emit("flatten", {n.value(1)}, flat, h + "_indices"),
                                 im.emit("flatten", {x}, flat, h + "_values")},
                     attrs_of({{"dim", int64_t{0}}}), h + "_flat");
  if (!padded) {
    n.set_output(0, n.emit("reshape", {y}, attrs_of({{"shape", shape}})));
    return;
  }
  y = im.emit("reshape", {y}, attrs_of({{"shape", shape}}), h + "_unpooled");
  n.set_output(0, n.emit("pad", {y}, attrs_of({{"pads", pads}, {"mode", std::string("constant")}, {"value", 0.0}})));
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

/// LpPool's and GlobalLpPool's p (attribute 'p', default 2), checked.
int64_t lp_norm_order(NodeContext& n) {
  const int64_t p = n.attr_int("p", 2);
  if (p < 1) n.fail("attribute 'p' is " + std::to_string(p) + "; expected an order >= 1 (the p of the p-norm)");
  return p;
}

/// (SUM |x|^p)^(1/p), from |x|^p summed by `sum_of` (a value of x's type):
/// p = 1 and 2 without pow.
Value* lp_norm_of(NodeContext& n, Value* x, int64_t p, const std::function<Value*(Value*)>& sum_of) {
  Importer& im = n.im();
  const DType dtype = x->type().dtype;
  Value* mag = im.emit("abs", {x}, {}, n.hint() + "_abs");
  Value* powered = p == 1   ? mag
                   : p == 2 ? im.emit("mul", {mag, mag}, {}, n.hint() + "_pow")
                            : im.emit("pow", {mag, im.full({}, static_cast<double>(p), dtype, n.hint() + "_p")}, {},
                                      n.hint() + "_pow");
  Value* sum = sum_of(powered);
  if (p == 1) return sum;
  if (p == 2) return n.emit("sqrt", {sum});
  return n.emit("pow", {sum, im.full({}, 1.0 / static_cast<double>(p), dtype, n.hint() + "_inv_p")});
}

/// LpPool: the p-norm of each window. |x|^p averaged over windows that
/// count the padding (zeros, which add nothing to a sum), times the
/// window's element count, is the window's sum; every window lies in the
/// padded input without ceil_mode, so the count is the kernel's.
void lp_pool(NodeContext& n) {
  const auto [x, kernel, win] = read_pool_operands(n);
  const int64_t p = lp_norm_order(n);
  if (n.attr_int("ceil_mode", 0) != 0)
    n.fail("attribute 'ceil_mode' is " + std::to_string(n.attr_int("ceil_mode", 0)) +
           "; expected 0 (edgec's LpPool takes the windows that fit; re-export without ceil_mode or pad the input)");
  int64_t count = 1;
  for (int64_t k : kernel) count *= k;
  Importer& im = n.im();
  n.set_output(0, lp_norm_of(n, x, p, [&](Value* powered) {
    Value* avg = im.emit("avg_pool", {powered},
                         attrs_of({{"kernel_size", kernel},
                                   {"stride", win.strides},
                                   {"padding", win.pads},
                                   {"dilation", win.dilations},
                                   {"ceil_mode", false},
                                   {"count_include_pad", true}}),
                         n.hint() + "_avg");
    return im.emit("mul", {avg, im.full({}, static_cast<double>(count), x->type().dtype, n.hint() + "_count")}, {},
                   n.hint() + "_sum");
  }));
}

/// GlobalLpPool: the p-norm over all spatial dims, kept.
void global_lp_pool(NodeContext& n) {
  Value* x = n.value(0);
  const size_t nd = spatial_rank(n, x);
  std::vector<int64_t> dims;
  for (size_t d = 0; d < nd; ++d) dims.push_back(static_cast<int64_t>(d) + 2);
  n.set_output(0, lp_norm_of(n, x, lp_norm_order(n), [&](Value* powered) {
    return n.im().emit("sum", {powered}, attrs_of({{"dims", dims}, {"keepdim", true}}), n.hint() + "_sum");
  }));
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

// LRN (opsets 1 and 13 mean the same): edgec's lrn, whose attributes and
// window are ONNX's (src/kernels/normalization.cpp).
void lrn(NodeContext& n) {
  const int64_t size = n.attr_int("size", 0);  // required by the schema
  if (size < 1 || size > kMaxWindowValue)
    n.fail("attribute 'size' is " + std::to_string(size) + "; expected a window in [1, " +
           std::to_string(kMaxWindowValue) + "]");
  n.set_output(0, n.emit("lrn", {n.value(0)},
                         attrs_of({{"size", size},
                                   {"alpha", n.attr_float("alpha", 1e-4)},
                                   {"beta", n.attr_float("beta", 0.75)},
                                   {"bias", n.attr_float("bias", 1.0)}})));
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
//
// Every Resize of opsets 11 to 17 (and opset 18's antialias, axes and
// keep_aspect_ratio_policy) becomes the `resize` operator, which computes
// ONNX's semantics in every mode. Two of ONNX's modes are torch's, which
// the faster upsample_nearest / upsample_bilinear compute: those nodes use
// them (resize_fast_path).

/// "[1, 1, 0.6, 0.6]".
std::string floats_str(const std::vector<double>& v) {
  std::ostringstream s;
  s << "[";
  for (size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
  s << "]";
  return s.str();
}

/// Whether optional input i is given with elements (ONNX passes an empty
/// tensor for an absent roi or scales).
bool resize_input_given(NodeContext& n, size_t i) {
  return n.input(i) != nullptr && n.type(i).max_numel().value_or(1) > 0;
}

/// One axis the node resizes: its input dim, output size, the scale its
/// coordinates map with (none: out / in, the kernel's default, which also
/// serves a symbolic input dim) and its region of interest.
struct ResizedAxis {
  int64_t axis = 0;
  Dim in;
  int64_t out = 0;
  std::optional<double> scale;
  double roi_start = 0, roi_end = 1;

  resize::AxisGeometry geometry() const {
    const double ratio = static_cast<double>(out) / static_cast<double>(in.value);
    return {in.value, out, scale.value_or(ratio), roi_start, roi_end};
  }
};

/// The node's mode attributes, checked.
struct ResizeModes {
  std::string mode, coord_name, nearest_name;
  resize::CoordMode coord = resize::CoordMode::HalfPixel;
  resize::NearestMode nearest = resize::NearestMode::RoundPreferFloor;
  bool antialias = false;
  bool exclude_outside = false;
};

/// Refuses Resize's attribute `name`, whose value `value` is not what
/// `expected` says.
[[noreturn]] void refuse_resize_attr(NodeContext& n, const std::string& name, const std::string& value,
                                     const std::string& expected) {
  n.fail("attribute '" + name + "' is " + value + "; expected " + expected);
}

/// An int attribute that ONNX defines as 0 or 1.
bool resize_flag(NodeContext& n, const std::string& name) {
  const int64_t v = n.attr_int(name, 0);
  if (v != 0 && v != 1) refuse_resize_attr(n, name, std::to_string(v), "0 or 1");
  return v == 1;
}

ResizeModes read_resize_modes(NodeContext& n) {
  ResizeModes m;
  m.mode = n.attr_string("mode", "nearest");
  if (m.mode != "nearest" && m.mode != "linear" && m.mode != "cubic")
    refuse_resize_attr(n, "mode", "'" + m.mode + "'", "nearest, linear or cubic");
  m.coord_name = n.attr_string("coordinate_transformation_mode", "half_pixel");
  const auto coord = resize::coord_mode_named(m.coord_name);
  if (!coord)
    refuse_resize_attr(n, "coordinate_transformation_mode", "'" + m.coord_name + "'",
                       "half_pixel, half_pixel_symmetric, pytorch_half_pixel, align_corners, asymmetric, "
                       "tf_half_pixel_for_nn or tf_crop_and_resize");
  m.coord = *coord;
  m.nearest_name = n.attr_string("nearest_mode", "round_prefer_floor");
  const auto nearest = resize::nearest_mode_named(m.nearest_name);
  if (!nearest)
    refuse_resize_attr(n, "nearest_mode", "'" + m.nearest_name + "'",
                       "round_prefer_floor, round_prefer_ceil, floor or ceil");
  m.nearest = *nearest;
  m.antialias = resize_flag(n, "antialias");  // opset 18
  m.exclude_outside = resize_flag(n, "exclude_outside");
  return m;
}

/// The axes that roi, scales and sizes list (opset 18's `axes`, else all),
/// in the node's order.
std::vector<int64_t> resize_listed_axes(NodeContext& n, int64_t rank) {
  std::vector<int64_t> axes;
  const auto given = n.attr_ints("axes");
  if (!given) {
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
    return axes;
  }
  for (int64_t a : *given) {
    if (a < -rank || a >= rank)
      refuse_resize_attr(n, "axes", list_str(*given),
                         "axes in [" + std::to_string(-rank) + ", " + std::to_string(rank - 1) + "] for " +
                             n.typed_operand(0));
    a = a < 0 ? a + rank : a;
    if (std::find(axes.begin(), axes.end(), a) != axes.end())
      refuse_resize_attr(n, "axes", list_str(*given), "each axis once, got axis " + std::to_string(a) + " twice");
    axes.push_back(a);
  }
  return axes;
}

/// Output sizes and scales of the listed axes, from sizes (input 3) or
/// scales (input 2).
std::vector<ResizedAxis> resize_targets(NodeContext& n, const std::vector<int64_t>& axes) {
  const TensorType& xt = n.type(0);
  const size_t count = axes.size();
  const bool has_scales = resize_input_given(n, 2), has_sizes = resize_input_given(n, 3);
  if (has_scales && has_sizes)
    n.fail("both the scales, " + n.operand(2) + ", and the sizes, " + n.operand(3) + ", are given; expected one");
  if (!has_scales && !has_sizes)
    n.fail("neither the scales, " + n.operand(2) + ", nor the sizes, " + n.operand(3) + ", are given; expected one");
  std::vector<ResizedAxis> targets(count);
  for (size_t i = 0; i < count; ++i) {
    targets[i].axis = axes[i];
    targets[i].in = xt.dims[static_cast<size_t>(axes[i])];
  }
  if (has_sizes) {
    const auto sizes = n.ints(3, "the sizes");
    if (sizes.size() != count)
      n.fail("the sizes, " + n.operand(3) + ", are " + list_str(sizes) + "; expected " + std::to_string(count) +
             " sizes, one per resized axis of " + n.typed_operand(0));
    for (size_t i = 0; i < count; ++i) {
      if (sizes[i] < 0 || sizes[i] > kMaxWindowValue)
        n.fail("the sizes, " + n.operand(3) + ", are " + list_str(sizes) + "; expected sizes in [0, " +
               std::to_string(kMaxWindowValue) + "]");
      targets[i].out = sizes[i];
    }
    const std::string policy = n.attr_string("keep_aspect_ratio_policy", "stretch");  // opset 18
    if (policy == "stretch") return targets;
    if (policy != "not_larger" && policy != "not_smaller")
      refuse_resize_attr(n, "keep_aspect_ratio_policy", "'" + policy + "'", "stretch, not_larger or not_smaller");
    // One scale for every listed axis, the smallest (largest) of out / in,
    // and the sizes it gives, rounded half up.
    std::optional<double> scale;
    for (const ResizedAxis& t : targets) {
      if (!t.in.is_static() || t.in.value == 0)
        refuse_resize_attr(n, "keep_aspect_ratio_policy", policy,
                           "stretch for the symbolic or empty dims of " + n.typed_operand(0) + n.im().dim_fix(t.in));
      const double s = static_cast<double>(t.out) / static_cast<double>(t.in.value);
      if (!scale || (policy == "not_larger" ? s < *scale : s > *scale)) scale = s;
    }
    for (ResizedAxis& t : targets) {
      t.scale = scale;
      t.out = static_cast<int64_t>(*scale * static_cast<double>(t.in.value) + 0.5);
    }
    return targets;
  }
  const TensorData* data = n.data(2);
  if (!data) n.fail_not_known(2, "the scales");
  const auto scales = data_as_doubles(*data);
  if (scales.size() != count)
    n.fail("the scales, " + n.operand(2) + ", are " + floats_str(scales) + "; expected " + std::to_string(count) +
           " scales, one per resized axis of " + n.typed_operand(0));
  for (size_t i = 0; i < count; ++i) {
    ResizedAxis& t = targets[i];
    const double s = scales[i];
    if (!(s > 0) || !std::isfinite(s))
      n.fail("the scales, " + n.operand(2) + ", are " + floats_str(scales) + "; expected finite scales > 0");
    t.scale = s;
    if (!t.in.is_static()) {
      // Sized when the program runs, floor(in * scale), as ONNX sizes it;
      // a scale of 1 keeps the dim what it is.
      t.out = resize::kSizeByScale;
      continue;
    }
    // ONNX: floor(in * scale), in double (the reference implementation's
    // arithmetic; a float32 product could round 0.6 * 5 below 3).
    const double size = std::floor(static_cast<double>(t.in.value) * s);
    if (size > static_cast<double>(kMaxWindowValue))
      n.fail("the scales, " + n.operand(2) + ", give axis " + std::to_string(t.axis) + " of " + n.typed_operand(0) +
             " the size " + std::to_string(size) + "; expected sizes up to " + std::to_string(kMaxWindowValue));
    t.out = static_cast<int64_t>(size);
  }
  return targets;
}

/// tf_crop_and_resize's region of interest (input 1): starts, then ends,
/// of the listed axes, normalized.
void read_resize_roi(NodeContext& n, std::vector<ResizedAxis>& targets) {
  const size_t count = targets.size();
  if (!resize_input_given(n, 1))
    n.fail("attribute 'coordinate_transformation_mode' is tf_crop_and_resize, but the roi, " + n.operand(1) +
           ", is not given; expected " + std::to_string(2 * count) + " values");
  const TensorData* data = n.data(1);
  if (!data) n.fail_not_known(1, "the roi");
  const auto roi = data_as_doubles(*data);
  if (roi.size() != 2 * count)
    n.fail("the roi, " + n.operand(1) + ", is " + floats_str(roi) + "; expected " + std::to_string(2 * count) +
           " values, the starts and then the ends of the resized axes of " + n.typed_operand(0));
  for (double v : roi)
    if (!std::isfinite(v)) n.fail("the roi, " + n.operand(1) + ", is " + floats_str(roi) + "; expected finite values");
  for (size_t i = 0; i < count; ++i) {
    targets[i].roi_start = roi[i];
    targets[i].roi_end = roi[count + i];
  }
}

/// Whether the axis changes anything: its size, its scale, or (in
/// tf_crop_and_resize) its region. An axis of scale 1 maps every output
/// coordinate onto itself in every other mode. A symbolic dim resized by a
/// scale is sized at run time (kSizeByScale); scaled by 1 it keeps its
/// size and is left alone, unless its region crops it.
bool resize_changes(const ResizedAxis& t, resize::CoordMode coord) {
  const bool cropped = coord == resize::CoordMode::TfCropAndResize && (t.roi_start != 0 || t.roi_end != 1);
  if (!t.in.is_static() && t.scale) return *t.scale != 1 || cropped;
  if (!t.in.is_static() || t.in.value != t.out) return true;
  return (t.scale && *t.scale != 1) || cropped;
}

/// Whether upsample_nearest's indices (torch's arithmetic) are ONNX's for
/// this axis: checked output by output, with the same code the kernels run.
bool torch_nearest_matches(const ResizedAxis& t, const ResizeModes& m) {
  constexpr int64_t kMaxChecked = int64_t{1} << 20;  // beyond it, not worth proving
  if (!t.in.is_static() || t.out > kMaxChecked) return false;
  const resize::AxisGeometry g = t.geometry();
  for (int64_t o = 0; o < t.out; ++o) {
    const double x = resize::source_coordinate(m.coord, g, o);
    if (!std::isfinite(x)) return false;
    const int64_t index = std::clamp<int64_t>(resize::nearest_index(x, m.nearest), 0, t.in.value - 1);
    if (index != resize::upsample_nearest_source(o, t.in.value, t.out)) return false;
  }
  return true;
}

/// Whether upsample_bilinear computes this axis: torch's linear modes map
/// coordinates with in / out, ONNX's with the scale, the same when the
/// scale gives the output size (up to float rounding of the weights).
/// pytorch_half_pixel differs from torch for one output element (ONNX
/// takes the first input element, torch the middle).
bool torch_linear_matches(const ResizedAxis& t, const ResizeModes& m) {
  using resize::CoordMode;
  if (m.coord != CoordMode::HalfPixel && m.coord != CoordMode::PytorchHalfPixel && m.coord != CoordMode::AlignCorners)
    return false;
  if (t.scale) {
    if (!t.in.is_static()) return false;
    const double length = *t.scale * static_cast<double>(t.in.value);
    if (std::abs(length - static_cast<double>(t.out)) > 1e-6 * std::max(1.0, length)) return false;
    if (m.antialias && *t.scale < 1) return false;
  } else if (m.antialias && (!t.in.is_static() || t.out < t.in.value)) {
    return false;
  }
  return m.coord != CoordMode::PytorchHalfPixel || t.out > 1;
}

/// upsample_nearest / upsample_bilinear when they compute this node: an NCL
/// or NCHW input whose resized axes are spatial, with static output sizes
/// for every spatial axis; null otherwise.
Value* resize_fast_path(NodeContext& n, const std::vector<ResizedAxis>& resized, const ResizeModes& m) {
  const TensorType& xt = n.type(0);
  const int64_t rank = xt.rank();
  if ((rank != 3 && rank != 4) || m.mode == "cubic" || m.coord == resize::CoordMode::TfCropAndResize) return nullptr;
  std::vector<int64_t> out;
  for (int64_t a = 2; a < rank; ++a) {
    const Dim& d = xt.dims[static_cast<size_t>(a)];
    if (!d.is_static()) return nullptr;
    out.push_back(d.value);
  }
  for (const ResizedAxis& t : resized) {
    if (t.axis < 2 || t.out == 0) return nullptr;
    out[static_cast<size_t>(t.axis - 2)] = t.out;
    const bool same = m.mode == "nearest" ? torch_nearest_matches(t, m) : torch_linear_matches(t, m);
    if (!same) return nullptr;
  }
  if (m.mode == "nearest") return n.emit("upsample_nearest", {n.value(0)}, attrs_of({{"output_size", out}}));
  return n.emit("upsample_bilinear", {n.value(0)},
                attrs_of({{"output_size", out}, {"align_corners", m.coord == resize::CoordMode::AlignCorners}}));
}

void resize(NodeContext& n) {
  const ResizeModes m = read_resize_modes(n);
  const TensorType& xt = n.type(0);
  if (xt.dtype != DType::Float32 && xt.dtype != DType::Float16)
    n.fail(n.typed_operand(0) + " is of type " + std::string(dtype_name(xt.dtype)) +
           "; expected f32 or f16 (the types the resize kernels compute)");
  const std::vector<int64_t> axes = resize_listed_axes(n, xt.rank());
  std::vector<ResizedAxis> targets = resize_targets(n, axes);
  if (m.coord == resize::CoordMode::TfCropAndResize) read_resize_roi(n, targets);

  // The axes that change, in increasing order (the operator's convention).
  std::vector<ResizedAxis> resized;
  for (const ResizedAxis& t : targets)
    if (resize_changes(t, m.coord)) resized.push_back(t);
  std::sort(resized.begin(), resized.end(), [](const ResizedAxis& a, const ResizedAxis& b) { return a.axis < b.axis; });
  if (resized.empty()) {
    n.forward(0, 0);
    return;
  }
  if (Value* fast = resize_fast_path(n, resized, m)) {
    n.set_output(0, fast);
    return;
  }

  std::vector<int64_t> out_axes, sizes;
  std::vector<double> scales, roi_starts, roi_ends;
  for (const ResizedAxis& t : resized) {
    out_axes.push_back(t.axis);
    sizes.push_back(t.out);
    if (t.scale) scales.push_back(*t.scale);
    roi_starts.push_back(t.roi_start);
    roi_ends.push_back(t.roi_end);
  }
  Attrs attrs = attrs_of({{"axes", out_axes}, {"output_size", sizes}, {"mode", m.mode},
                          {"coordinate_transformation_mode", m.coord_name}});
  // Scales come all from the node or none (sizes: out / in, computed by
  // the kernel, which also serves symbolic input dims).
  if (!scales.empty()) attrs.set("scales", scales);
  if (m.coord == resize::CoordMode::TfCropAndResize) {
    roi_starts.insert(roi_starts.end(), roi_ends.begin(), roi_ends.end());
    attrs.set("roi", roi_starts);
    attrs.set("extrapolation_value", n.attr_float("extrapolation_value", 0.0));
  }
  if (m.mode == "nearest") attrs.set("nearest_mode", m.nearest_name);
  if (m.mode == "cubic") attrs.set("cubic_coeff_a", n.attr_float("cubic_coeff_a", -0.75));
  if (m.mode != "nearest" && m.exclude_outside) attrs.set("exclude_outside", true);
  if (m.mode != "nearest" && m.antialias) attrs.set("antialias", true);
  n.set_output(0, n.emit("resize", {n.value(0)}, attrs));
}

}  // namespace

Attrs conv_window_attrs(NodeContext& n, size_t wi) {
  Value* x = n.value(0);
  Value* w = n.value(wi);
  const size_t nd = spatial_rank(n, x);
  check_weight(n, x, w, wi);
  const int64_t group = read_group(n, x, w, false, wi);
  const Window win = read_window(n, nd, x->type(), weight_kernel(w));
  return attrs_of({{"stride", win.strides}, {"padding", win.pads}, {"dilation", win.dilations}, {"groups", group}});
}

void register_nn_handlers(HandlerTable& t) {
  t["MatMul"] = matmul;
  t["Gemm"] = gemm;
  t["Det"] = det;
  t["Conv"] = conv;
  t["ConvTranspose"] = conv_transpose;
  t["MaxPool"] = max_pool;
  t["MaxUnpool"] = max_unpool;
  t["AveragePool"] = average_pool;
  t["GlobalAveragePool"] = global_pool;
  t["GlobalMaxPool"] = global_pool;
  t["LpPool"] = lp_pool;
  t["GlobalLpPool"] = global_lp_pool;
  t["BatchNormalization"] = batch_norm;
  t["LayerNormalization"] = layer_norm;
  t["InstanceNormalization"] = instance_norm;
  t["LRN"] = lrn;
  t["Softmax"] = softmax;
  t["LogSoftmax"] = softmax;
  t["Resize"] = resize;
}

}  // namespace edgec::onnx_import

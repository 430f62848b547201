// Neural-network ONNX operators: MatMul and Gemm (aten linear / addmm /
// matmul), convolution and pooling (ONNX's per-axis attribute lists map
// one to one: pads are all begins then all ends, as in our padding), the
// normalizations, softmax and Resize (torch's nearest and linear modes).
#include <algorithm>
#include <cmath>

#include "frontends/onnx/context.h"

namespace edgec::onnx_import {
namespace {

std::string list_str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
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
  if (a->type().rank() != 2 || b->type().rank() != 2)
    n.fail("expected 2-D A and B, got " + a->type().str() + " and " + b->type().str());
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

/// Reads strides / dilations / pads (default 1s, 1s, 0s) for `nd` spatial
/// dims of `x`. auto_pad SAME_UPPER / SAME_LOWER (output = ceil(in /
/// stride)) become explicit pads from the window sizes `kernel`, which
/// needs static spatial sizes; `kernel` empty refuses them.
Window read_window(NodeContext& n, size_t nd, const TensorType& x, const std::vector<int64_t>& kernel) {
  Window w;
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER")
    n.fail("auto_pad=" + auto_pad + " is not valid");
  w.strides = n.attr_ints("strides").value_or(std::vector<int64_t>(nd, 1));
  w.dilations = n.attr_ints("dilations").value_or(std::vector<int64_t>(nd, 1));
  w.pads = n.attr_ints("pads").value_or(std::vector<int64_t>(2 * nd, 0));
  if (auto_pad != "NOTSET") w.pads.assign(2 * nd, 0);
  if (w.strides.size() != nd || w.dilations.size() != nd || w.pads.size() != 2 * nd)
    n.fail("expected " + std::to_string(nd) + " strides and dilations and " + std::to_string(2 * nd) +
           " pads, got strides " + list_str(w.strides) + ", dilations " + list_str(w.dilations) + ", pads " +
           list_str(w.pads));
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    if (kernel.size() != nd) n.fail("auto_pad=" + auto_pad + " is not supported here (export with explicit pads)");
    for (size_t i = 0; i < nd; ++i) {
      const Dim& d = x.dims[2 + i];
      if (!d.is_static()) n.fail("auto_pad=" + auto_pad + " needs static spatial sizes, got " + x.str());
      const int64_t s = w.strides[i];
      const int64_t out = (d.value + s - 1) / s;
      const int64_t total = std::max<int64_t>(0, (out - 1) * s + (kernel[i] - 1) * w.dilations[i] + 1 - d.value);
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
  if (rank != 3 && rank != 4)
    n.fail("expected a 1-d (N, C, L) or 2-d (N, C, H, W) input, got " + x->type().str() + " (3-d is not supported)");
  return static_cast<size_t>(rank - 2);
}

void check_kernel_shape(NodeContext& n, Value* w) {
  auto ks = n.attr_ints("kernel_shape");
  if (!ks) return;
  const auto& dims = w->type().dims;
  for (size_t i = 0; i < ks->size() && i + 2 < dims.size(); ++i)
    if (dims[i + 2].is_static() && dims[i + 2].value != (*ks)[i])
      n.fail("kernel_shape " + list_str(*ks) + " disagrees with the weight " + w->type().str());
}

void conv(NodeContext& n) {
  Value* x = n.value(0);
  Value* w = n.value(1);
  const size_t nd = spatial_rank(n, x);
  check_kernel_shape(n, w);
  const Window win = read_window(n, nd, x->type(), weight_kernel(w));
  std::vector<Value*> ins = {x, w};
  if (n.input(2)) ins.push_back(n.value(2));
  n.set_output(0, n.emit("conv", ins,
                         attrs_of({{"stride", win.strides},
                                   {"padding", win.pads},
                                   {"dilation", win.dilations},
                                   {"groups", n.attr_int("group", 1)}})));
}

void conv_transpose(NodeContext& n) {
  Value* x = n.value(0);
  Value* w = n.value(1);
  const size_t nd = spatial_rank(n, x);
  check_kernel_shape(n, w);
  if (n.attr("output_shape")) n.fail("the output_shape attribute is not supported (export with explicit pads)");
  const Window win = read_window(n, nd, x->type(), {});
  const auto output_padding = n.attr_ints("output_padding").value_or(std::vector<int64_t>(nd, 0));
  std::vector<Value*> ins = {x, w};
  if (n.input(2)) ins.push_back(n.value(2));
  n.set_output(0, n.emit("conv_transpose", ins,
                         attrs_of({{"stride", win.strides},
                                   {"padding", win.pads},
                                   {"dilation", win.dilations},
                                   {"output_padding", output_padding},
                                   {"groups", n.attr_int("group", 1)}})));
}

void max_pool(NodeContext& n) {
  Value* x = n.value(0);
  const size_t nd = spatial_rank(n, x);
  auto kernel = n.attr_ints("kernel_shape");
  if (!kernel || kernel->size() != nd) n.fail("expected kernel_shape with " + std::to_string(nd) + " entries");
  const Window win = read_window(n, nd, x->type(), *kernel);
  n.outputs_unsupported_from(1, "MaxPool's indices output");
  n.set_output(0, n.emit("max_pool", {x},
                         attrs_of({{"kernel_size", *kernel},
                                   {"stride", win.strides},
                                   {"padding", win.pads},
                                   {"dilation", win.dilations},
                                   {"ceil_mode", n.attr_int("ceil_mode", 0) != 0}})));
}

void average_pool(NodeContext& n) {
  Value* x = n.value(0);
  const size_t nd = spatial_rank(n, x);
  auto kernel = n.attr_ints("kernel_shape");
  if (!kernel || kernel->size() != nd) n.fail("expected kernel_shape with " + std::to_string(nd) + " entries");
  const Window win = read_window(n, nd, x->type(), *kernel);
  n.set_output(0, n.emit("avg_pool", {x},
                         attrs_of({{"kernel_size", *kernel},
                                   {"stride", win.strides},
                                   {"padding", win.pads},
                                   {"ceil_mode", n.attr_int("ceil_mode", 0) != 0},
                                   {"count_include_pad", n.attr_int("count_include_pad", 0) != 0}})));
}

void global_pool(NodeContext& n) {
  Value* x = n.value(0);
  std::vector<int64_t> dims;
  for (int64_t d = 2; d < x->type().rank(); ++d) dims.push_back(d);
  if (dims.empty()) n.fail("expected an input of rank >= 3 (N, C, spatial...), got " + x->type().str());
  const char* op = n.proto().op_type() == "GlobalMaxPool" ? "amax" : "mean";
  n.set_output(0, n.emit(op, {x}, attrs_of({{"dims", dims}, {"keepdim", true}})));
}

// ---- normalization, softmax ------------------------------------------------------

void batch_norm(NodeContext& n) {
  if (n.attr_int("training_mode", 0) != 0) n.fail("training_mode=1 is not supported (inference only)");
  n.outputs_unsupported_from(1, "running statistics (training only)");
  n.set_output(0, n.emit("batch_norm", {n.value(0), n.value(1), n.value(2), n.value(3), n.value(4)},
                         attrs_of({{"eps", n.attr_float("epsilon", 1e-5)}})));
}

void layer_norm(NodeContext& n) {
  Value* x = n.value(0);
  const int64_t axis = n.attr_int("axis", -1);
  const double eps = n.attr_float("epsilon", 1e-5);
  std::vector<Value*> ins = {x, n.value(1)};
  if (n.input(2)) ins.push_back(n.value(2));
  n.set_output(0, n.emit("layer_norm", ins, attrs_of({{"axis", axis}, {"eps", eps}})));
  if (!n.has_output(1) && !n.has_output(2)) return;
  // The optional statistics, over dims [axis, rank) with kept dims.
  Importer& im = n.im();
  const int64_t rank = x->type().rank();
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
  n.set_output(0, n.emit(op, {n.value(0)}, attrs_of({{"dim", n.attr_int("axis", -1)}})));
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
    const auto sizes = n.ints(3, "sizes");
    if (sizes.size() != nd + 2) n.fail("expected " + std::to_string(nd + 2) + " sizes, got " + list_str(sizes));
    out.assign(sizes.begin() + 2, sizes.end());
    for (size_t i = 0; i < 2; ++i)
      if (!xt.dims[i].is_static() || xt.dims[i].value != sizes[i])
        n.fail("resizing the batch or channel dim is not supported");
  } else if (n.input(2)) {
    const TensorData* scales = n.data(2);
    if (!scales) n.fail("the scales (input 2) must be known at import time");
    const auto s = data_as_doubles(*scales);
    if (s.size() != nd + 2) n.fail("expected " + std::to_string(nd + 2) + " scales, got " + std::to_string(s.size()));
    if (s[0] != 1.0 || s[1] != 1.0) n.fail("resizing the batch or channel dim is not supported");
    // Our kernels map coordinates with in/out (torch's arithmetic), ONNX's
    // with 1/scale: the same only when the scale gives a whole size.
    for (size_t i = 0; i < nd; ++i) {
      const Dim& d = xt.dims[2 + i];
      if (!d.is_static()) n.fail("resizing the symbolic dim " + d.str() + " by a scale is not supported");
      const double size = static_cast<double>(d.value) * s[2 + i];
      if (std::abs(size - std::round(size)) > 1e-6)
        n.fail("scale " + std::to_string(s[2 + i]) + " of spatial dim " + std::to_string(i) + " gives the size " +
               std::to_string(size) + " for " + xt.str() + "; only scales giving whole sizes are supported");
      out.push_back(static_cast<int64_t>(std::round(size)));
    }
  } else {
    n.fail("expected scales or sizes");
  }
  if (mode == "nearest") {
    if (coord != "asymmetric" || nearest_mode != "floor")
      n.fail("nearest resize with coordinate_transformation_mode=" + coord + " and nearest_mode=" + nearest_mode +
             " is not supported (torch's nearest is asymmetric + floor)");
    n.set_output(0, n.emit("upsample_nearest", {x}, attrs_of({{"output_size", out}})));
    return;
  }
  // pytorch_half_pixel maps an output of size 1 to 0 in ONNX, but to the
  // middle of the input in torch; we follow torch (the exporter's source).
  if (mode == "linear") {
    if (coord != "pytorch_half_pixel" && coord != "half_pixel" && coord != "align_corners")
      n.fail("linear resize with coordinate_transformation_mode=" + coord + " is not supported");
    n.set_output(0, n.emit("upsample_bilinear", {x},
                           attrs_of({{"output_size", out}, {"align_corners", coord == "align_corners"}})));
    return;
  }
  n.fail("resize mode '" + mode + "' is not supported (nearest and linear are)");
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

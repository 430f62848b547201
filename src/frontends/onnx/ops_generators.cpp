// ONNX's generators: EyeLike, whose values depend only on attributes and
// the input's static shape, and HannWindow, HammingWindow and
// BlackmanWindow, whose values depend only on attributes and their size
// (known at import time: a constant, or a graph input fixed with
// --fix-inputs), are computed here as constants; OneHot is composed of edge
// operators: the indices compared with an arange of the depth (known at
// import time) placed at 'axis'.
#include <cmath>
#include <numbers>

#include "frontends/onnx/context.h"

namespace edgec::onnx_import {
namespace {

/// The dtype that ONNX element-type attribute `name` (default `dflt`) names.
DType dtype_attr(NodeContext& n, const std::string& name, int64_t dflt) {
  const auto elem = static_cast<int32_t>(n.attr_int(name, dflt));
  const auto dt = dtype_from_onnx(elem);
  if (!dt)
    n.fail("attribute '" + name + "' is " + std::to_string(elem) + " (" + onnx_type_name(elem) +
           "), which edgec does not compute with");
  return *dt;
}

void set_constant(NodeContext& n, TensorData data) {
  Entry e;
  e.type = data.type;
  e.data = std::move(data);
  n.set_output(0, std::move(e));
}

// EyeLike: ones on the diagonal k (above the main one for k > 0), of the
// input's static 2-D shape.
void eye_like(NodeContext& n) {
  const TensorType& t = n.type(0);
  if (t.rank() != 2 || !t.dims[0].is_static() || !t.dims[1].is_static())
    n.fail(n.typed_operand(0) + " is not of a static 2-D shape; expected one (EyeLike is computed at import time)");
  const DType dt = n.attr("dtype") ? dtype_attr(n, "dtype", 1) : t.dtype;
  const int64_t rows = t.dims[0].value, cols = t.dims[1].value, k = n.attr_int("k", 0);
  std::vector<double> v(static_cast<size_t>(rows * cols), 0.0);
  for (int64_t i = 0; i < rows; ++i)
    if (i + k >= 0 && i + k < cols) v[static_cast<size_t>(i * cols + i + k)] = 1.0;
  set_constant(n, make_data(dt, {rows, cols}, v));
}

// The cosine-sum windows of opset 17: a0 - a1 cos(2 pi k / M) + a2 cos(4 pi k
// / M) for k in [0, size), M = size when 'periodic' (the default), size - 1
// otherwise; computed in double and stored as 'output_datatype' (default
// float).
struct CosineSum {
  double a0, a1, a2;
};

/// The largest window computed at import time (a constant of this many
/// elements); ONNX's windows are for signal frames, far smaller.
constexpr int64_t kMaxWindowSize = int64_t{1} << 24;

void cosine_window(NodeContext& n, CosineSum w) {
  const int64_t size = n.int_scalar(0, "the window size");
  if (size < 0 || size > kMaxWindowSize)
    n.fail("the window size, " + n.operand(0) + ", is " + std::to_string(size) + "; expected a size in [0, " +
           std::to_string(kMaxWindowSize) + "]");
  const DType dt = dtype_attr(n, "output_datatype", 1);
  const bool periodic = n.attr_int("periodic", 1) != 0;
  const double m = static_cast<double>(periodic ? size : size - 1);
  std::vector<double> v(static_cast<size_t>(size));
  for (int64_t k = 0; k < size; ++k) {
    const double t = 2.0 * std::numbers::pi * static_cast<double>(k) / m;
    v[static_cast<size_t>(k)] = w.a0 - w.a1 * std::cos(t) + w.a2 * std::cos(2.0 * t);
  }
  // A symmetric window of one element has M = 0, where ONNX's formula gives
  // NaN (0 / 0); numpy's hanning(1) and torch's windows give 1.
  if (m == 0 && size == 1) v[0] = 1.0;
  set_constant(n, make_data(dt, {size}, v));
}

// OneHot: on_value where the index (negative: counted from the end of the
// depth) equals the position along the new axis, off_value elsewhere (so
// everywhere for an index out of range).
void one_hot(NodeContext& n) {
  const TensorData* d = n.data(1);
  if (!d) n.fail_not_known(1, "the depth");
  const std::vector<double> dv = data_as_doubles(*d);
  if (dv.size() != 1) n.fail(n.typed_operand(1) + " holds " + std::to_string(dv.size()) + " values; expected one");
  const auto depth = static_cast<int64_t>(dv[0]);
  if (depth < 1) n.fail("the depth, " + n.operand(1) + ", is " + std::to_string(depth) + "; expected >= 1");
  const int64_t rank = n.type(0).rank() + 1;
  int64_t axis = n.attr_int("axis", -1);
  if (axis < -rank || axis >= rank)
    n.fail("attribute 'axis' is " + std::to_string(axis) + "; expected an axis in [" + std::to_string(-rank) + ", " +
           std::to_string(rank - 1) + "] for the result of rank " + std::to_string(rank));
  if (axis < 0) axis += rank;
  Importer& im = n.im();
  const std::string h = n.hint();
  Value* idx = n.value(0);
  if (idx->type().dtype != DType::Int64) idx = im.emit("cast", {idx}, attrs_of({{"dtype", DType::Int64}}), h + "_index");
  Value* negative = im.emit("lt", {idx, im.full({}, 0.0, DType::Int64, h)}, {}, h + "_negative");
  idx = im.emit("where", {negative, im.emit("add", {idx, im.full({}, static_cast<double>(depth), DType::Int64, h)}, {}, h + "_index"), idx},
                {}, h + "_index");
  idx = im.emit("unsqueeze", {idx}, attrs_of({{"dims", std::vector<int64_t>{axis}}}), h + "_index");
  std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
  shape[static_cast<size_t>(axis)] = depth;
  Value* positions = im.emit(
      "reshape",
      {im.emit("arange", {}, attrs_of({{"start", int64_t{0}}, {"end", depth}, {"step", int64_t{1}}, {"dtype", DType::Int64}}),
               h + "_positions")},
      attrs_of({{"shape", shape}}), h + "_positions");
  Value* hot = im.emit("eq", {idx, positions}, {}, h + "_hot");
  Value* values = n.value(2);
  Value* off = im.emit("select", {values}, attrs_of({{"dim", int64_t{0}}, {"index", int64_t{0}}}), h + "_off");
  Value* on = im.emit("select", {values}, attrs_of({{"dim", int64_t{0}}, {"index", int64_t{1}}}), h + "_on");
  n.set_output(0, n.emit("where", {hot, on, off}));
}

}  // namespace

void register_generator_handlers(HandlerTable& t) {
  t["EyeLike"] = eye_like;
  t["HannWindow"] = [](NodeContext& n) { cosine_window(n, {0.5, 0.5, 0.0}); };
  t["HammingWindow"] = [](NodeContext& n) { cosine_window(n, {25.0 / 46.0, 21.0 / 46.0, 0.0}); };
  t["BlackmanWindow"] = [](NodeContext& n) { cosine_window(n, {0.42, 0.5, 0.08}); };
  t["OneHot"] = one_hot;
}

}  // namespace edgec::onnx_import

// ONNX's generators: EyeLike, whose values depend only on attributes and
// the input's static shape, and HannWindow, HammingWindow, BlackmanWindow
// and MelWeightMatrix, whose values depend only on attributes and their
// sizes (known at import time: a constant, or a graph input fixed with
// --fix-inputs), are computed here as constants; OneHot is composed of edge
// operators: the indices compared with an arange of the depth (known at
// import time) placed at 'axis'. The spectral operators that go with the
// windows: DFT is the dft operator (src/kernels/spectral.cpp), STFT the
// signal's frames (take of an arange of frame starts plus offsets), times
// the window, then dft along the frame.
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

// DFT (17: axis an attribute, default 1; 20: an input, default -2): dft of
// the signal along the axis, [..., n, 1 or 2] to [..., bins, 2]; the
// optional dft_length (input 1) must be known at import time.
void dft(NodeContext& n) {
  const TensorType& t = n.type(0);
  const int64_t rank = t.rank();
  int64_t axis = n.opset() >= 20 ? (n.input(2) ? n.int_scalar(2, "the axis") : -2) : n.attr_int("axis", 1);
  if (rank < 2 || axis < -rank || axis > rank - 2 || axis == -1)
    n.fail("the axis is " + std::to_string(axis) + "; expected one in [" + std::to_string(-rank) + ", -2] or [0, " +
           std::to_string(rank - 2) + "] for " + n.typed_operand(0) +
           " (the last dim holds the real and imaginary parts)");
  if (axis < 0) axis += rank;
  int64_t length = 0;
  if (n.input(1)) {
    length = n.int_scalar(1, "the DFT length");
    if (length < 1) n.fail("the DFT length, " + n.operand(1) + ", is " + std::to_string(length) + "; expected >= 1");
  }
  const bool inverse = n.attr_int("inverse", 0) != 0, onesided = n.attr_int("onesided", 0) != 0;
  if (inverse && onesided)
    n.fail("attributes 'inverse' and 'onesided' are both 1: an inverse DFT from half a spectrum is not supported; "
           "give the inverse the whole spectrum (onesided = 0)");
  auto outs = n.im().emit_n(
      "dft", {n.value(0)},
      attrs_of({{"axis", axis}, {"length", length}, {"inverse", inverse}, {"onesided", onesided}}), n.hint());
  n.set_output(0, outs[0]);
}

// STFT (17): signal [batch, length, 1 or 2] (or [batch, length], as ONNX
// Runtime takes it), frame_step (input 1) and frame_length (input 3, else
// the window's size) known at import time; the frames start every
// frame_step points and are taken whole (frames = (length - frame_length) /
// frame_step + 1), multiplied by the window when given, and transformed:
// [batch, frames, bins, 2], bins = frame_length / 2 + 1 when 'onesided' (the
// default).
void stft(NodeContext& n) {
  Importer& im = n.im();
  const std::string h = n.hint();
  const TensorType& t = n.type(0);
  if (t.rank() != 2 && t.rank() != 3)
    n.fail(n.typed_operand(0) + " is not a signal [batch, length, 1 or 2] or [batch, length]; expected one");
  const Dim& len_dim = t.dims[1];
  if (!len_dim.is_static())
    n.fail("the signal's length, dim 1 of " + n.typed_operand(0) +
           ", must be static (the frames are counted when compiling)" + im.dim_fix(len_dim));
  const int64_t step = n.int_scalar(1, "the frame step");
  if (step < 1) n.fail("the frame step, " + n.operand(1) + ", is " + std::to_string(step) + "; expected >= 1");
  int64_t flen = -1;
  if (n.input(2)) {
    const TensorType& w = n.type(2);
    if (w.rank() != 1 || !w.dims[0].is_static())
      n.fail(n.typed_operand(2) + " is not a window of static size [frame_length]; expected one");
    flen = w.dims[0].value;
  }
  if (n.input(3)) {
    const int64_t given = n.int_scalar(3, "the frame length");
    if (flen >= 0 && given != flen)
      n.fail("the frame length, " + n.operand(3) + ", is " + std::to_string(given) + " but the window, " +
             n.typed_operand(2) + ", has " + std::to_string(flen) + " points; expected them equal");
    flen = given;
  }
  if (flen < 0) n.fail("neither a window (input 2) nor a frame length (input 3) is given; expected one of them");
  const int64_t length = len_dim.value;
  if (flen < 1 || flen > length)
    n.fail("the frame length is " + std::to_string(flen) + "; expected one in [1, " + std::to_string(length) +
           "], the signal's length (" + n.typed_operand(0) + ")");
  const int64_t frames = (length - flen) / step + 1;
  Value* signal = n.value(0);
  if (t.rank() == 2) signal = im.emit("unsqueeze", {signal}, attrs_of({{"dims", std::vector<int64_t>{2}}}), h + "_signal");
  // positions[f, j] = f * step + j
  const auto arange = [&](int64_t end, const std::string& what) {
    // Bounds as the floats arange declares (so the textual IR reads back the same).
    return im.emit("arange", {},
                   attrs_of({{"start", 0.0}, {"end", static_cast<double>(end)}, {"step", 1.0}, {"dtype", DType::Int64}}),
                   h + what);
  };
  Value* starts = im.emit("mul", {arange(frames, "_frames"), im.full({}, static_cast<double>(step), DType::Int64, h)},
                          {}, h + "_starts");
  starts = im.emit("reshape", {starts}, attrs_of({{"shape", std::vector<int64_t>{frames, 1}}}), h + "_starts");
  Value* positions = im.emit("add", {starts, arange(flen, "_offsets")}, {}, h + "_positions");
  Value* framed = im.emit("take", {signal, positions}, attrs_of({{"dim", int64_t{1}}}), h + "_frames");
  if (n.input(2)) {
    // The window has the signal's element type (the schema's check).
    Value* w = im.emit("reshape", {n.value(2)}, attrs_of({{"shape", std::vector<int64_t>{flen, 1}}}), h + "_window");
    framed = im.emit("mul", {framed, w}, {}, h + "_windowed");
  }
  const bool onesided = n.attr_int("onesided", 1) != 0;
  auto outs = im.emit_n("dft", {framed},
                        attrs_of({{"axis", int64_t{2}}, {"length", int64_t{0}}, {"inverse", false}, {"onesided", onesided}}),
                        h);
  n.set_output(0, outs[0]);
}

// MelWeightMatrix (17): [dft_length / 2 + 1, num_mel_bins] triangular
// filters whose edges are num_mel_bins + 2 points spaced evenly in mel
// (2595 log10(1 + f / 700)) from lower_edge_hertz to upper_edge_hertz,
// each mapped to the spectrum bin floor((dft_length + 1) f / sample_rate),
// as ONNX's reference computes it; all five inputs known at import time.
void mel_weight_matrix(NodeContext& n) {
  const int64_t bins = n.int_scalar(0, "the number of mel bins");
  const int64_t dft_length = n.int_scalar(1, "the DFT length");
  const int64_t rate = n.int_scalar(2, "the sample rate");
  const auto scalar = [&](size_t i, const std::string& what) {
    const TensorData* d = n.data(i);
    if (!d) n.fail_not_known(i, what);
    const std::vector<double> v = data_as_doubles(*d);
    if (v.size() != 1) n.fail(n.typed_operand(i) + " holds " + std::to_string(v.size()) + " values; expected one");
    return v[0];
  };
  const double lower = scalar(3, "the lower edge"), upper = scalar(4, "the upper edge");
  if (bins < 1 || bins > kMaxWindowSize)
    n.fail("the number of mel bins, " + n.operand(0) + ", is " + std::to_string(bins) + "; expected one in [1, " +
           std::to_string(kMaxWindowSize) + "]");
  if (dft_length < 1 || dft_length > kMaxWindowSize)
    n.fail("the DFT length, " + n.operand(1) + ", is " + std::to_string(dft_length) + "; expected one in [1, " +
           std::to_string(kMaxWindowSize) + "]");
  if (rate < 1) n.fail("the sample rate, " + n.operand(2) + ", is " + std::to_string(rate) + "; expected >= 1");
  if (!(lower >= 0 && lower < upper && upper <= static_cast<double>(rate) / 2))
    n.fail("the edges are " + std::to_string(lower) + " Hz and " + std::to_string(upper) +
           " Hz; expected 0 <= lower < upper <= half the sample rate (" + std::to_string(rate) + " Hz)");
  const int64_t spectrum = dft_length / 2 + 1;
  if (bins * spectrum > kMaxWindowSize)
    n.fail("the matrix would hold " + std::to_string(bins * spectrum) + " values; expected at most " +
           std::to_string(kMaxWindowSize));
  const auto mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
  const double low_mel = mel(lower), step = (mel(upper) - low_mel) / static_cast<double>(bins + 2);
  std::vector<int64_t> edge(static_cast<size_t>(bins + 2));
  for (int64_t i = 0; i < bins + 2; ++i) {
    const double hz = 700.0 * (std::pow(10.0, (static_cast<double>(i) * step + low_mel) / 2595.0) - 1.0);
    edge[static_cast<size_t>(i)] =
        std::min<int64_t>(static_cast<int64_t>(std::floor(static_cast<double>(dft_length + 1) * hz / rate)), spectrum - 1);
  }
  std::vector<double> v(static_cast<size_t>(spectrum * bins), 0.0);
  const auto at = [&](int64_t j, int64_t i) -> double& { return v[static_cast<size_t>(j * bins + i)]; };
  for (int64_t i = 0; i < bins; ++i) {
    const int64_t left = edge[static_cast<size_t>(i)], center = edge[static_cast<size_t>(i + 1)],
                  right = edge[static_cast<size_t>(i + 2)];
    if (center == left)
      at(center, i) = 1.0;
    else
      for (int64_t j = left; j <= center; ++j) at(j, i) = static_cast<double>(j - left) / static_cast<double>(center - left);
    for (int64_t j = center; j < right; ++j)
      at(j, i) = static_cast<double>(right - j) / static_cast<double>(right - center);
  }
  set_constant(n, make_data(dtype_attr(n, "output_datatype", 1), {spectrum, bins}, v));
}

}  // namespace

void register_generator_handlers(HandlerTable& t) {
  t["DFT"] = dft;
  t["STFT"] = stft;
  t["MelWeightMatrix"] = mel_weight_matrix;
  t["EyeLike"] = eye_like;
  t["HannWindow"] = [](NodeContext& n) { cosine_window(n, {0.5, 0.5, 0.0}); };
  t["HammingWindow"] = [](NodeContext& n) { cosine_window(n, {25.0 / 46.0, 21.0 / 46.0, 0.0}); };
  t["BlackmanWindow"] = [](NodeContext& n) { cosine_window(n, {0.42, 0.5, 0.08}); };
  t["OneHot"] = one_hot;
}

}  // namespace edgec::onnx_import

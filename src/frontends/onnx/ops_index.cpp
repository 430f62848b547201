// Indexing, reductions and data-dependent ONNX operators: GatherElements,
// GatherND (our `index` with one index per leading dim), NonZero (ours is
// [n, rank], ONNX's [rank, n]: a permute that the exporter's Transpose
// cancels), Compress (a take by the condition's nonzero positions),
// ReverseSequence (an `index` of the time and batch dims), TopK, ArgMax/ArgMin, the Reduce* family and the normalizations
// composed of reductions (LpNormalization, MeanVarianceNormalization),
// CumSum, Unique, and the scatters (ScatterND, ScatterElements and the deprecated
// Scatter: our scatter_nd and scatter).
//
// torch's x[mask] is NonZero -> Transpose -> GatherND; its structure is
// kept (nonzero, select, index), so that constant_prop folds the nonzero of
// a constant mask later (docs/semantics.md §3.4).
#include <algorithm>
#include <map>

#include "frontends/onnx/context.h"

namespace edgec::onnx_import {
namespace {

std::string list_str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

/// `axis` (named by `what`) of input 0, wrapped to [0, rank).
int64_t input_axis(NodeContext& n, int64_t axis, const std::string& what) {
  const int64_t rank = n.type(0).rank();
  const int64_t w = axis < 0 ? axis + rank : axis;
  if (w < 0 || w >= rank)
    n.fail(what + " is " + std::to_string(axis) + "; expected an axis in [" + std::to_string(-rank) + ", " +
           std::to_string(rank - 1) + "] for " + n.typed_operand(0));
  return w;
}

/// Reduction axes (`what`) of input 0: in range and distinct.
std::vector<int64_t> reduce_axes(NodeContext& n, const std::vector<int64_t>& axes, const std::string& what) {
  std::vector<int64_t> out;
  for (int64_t a : axes) {
    const int64_t w = input_axis(n, a, what + " " + list_str(axes) + " holds an entry that");
    if (std::find(out.begin(), out.end(), w) != out.end())
      n.fail(what + " is " + list_str(axes) + "; expected distinct axes, got axis " + std::to_string(w) + " twice");
    out.push_back(w);
  }
  return out;
}

void gather_elements(NodeContext& n) {
  const int64_t axis = input_axis(n, n.attr_int("axis", 0), "attribute 'axis'");
  if (n.type(1).rank() != n.type(0).rank())
    n.fail(n.typed_operand(1) + " has rank " + std::to_string(n.type(1).rank()) + "; expected the rank of " +
           n.typed_operand(0));
  n.set_output(0, n.emit("gather", {n.value(0), n.value(1)}, attrs_of({{"dim", axis}})));
}

// GatherND: indices [..., k] pick x[i0, ..., ik-1] per row. With
// batch_dims b, the first b dims of x and indices are shared: row r of
// batch (b0, ...) picks x[b0, ..., i0, ...]; the batch dims are indexed by
// aranges that broadcast along the indices' other dims.
void gather_nd(NodeContext& n) {
  Value* x = n.value(0);
  Value* idx = n.value(1);
  const TensorType& it = idx->type();
  const TensorType& xt = x->type();
  if (it.rank() < 1 || !it.dims.back().is_static())
    n.fail(n.typed_operand(1) + " has no static last dim; expected indices of rank >= 1 whose last dim is static");
  const int64_t k = it.dims.back().value;
  const int64_t batch = n.attr_int("batch_dims", 0);
  if (batch < 0 || batch >= std::min(xt.rank(), it.rank()))
    n.fail("attribute 'batch_dims' is " + std::to_string(batch) + "; expected 0 to " +
           std::to_string(std::min(xt.rank(), it.rank()) - 1) + " for " + n.typed_operand(0) + " and " +
           n.typed_operand(1));
  if (k < 1 || k > xt.rank() - batch)
    n.fail(n.typed_operand(1) + " has " + std::to_string(k) + " coordinates per index; expected 1 to " +
           std::to_string(xt.rank() - batch) + " for " + n.typed_operand(0) +
           (batch ? " past its " + std::to_string(batch) + " batch dims" : std::string()));
  Importer& im = n.im();
  std::vector<Value*> ins = {x};
  for (int64_t j = 0; j < batch; ++j) {
    const Dim& d = xt.dims[static_cast<size_t>(j)];
    const Dim& di = it.dims[static_cast<size_t>(j)];
    if (!d.is_static() || !di.is_static() || d.value != di.value)
      n.fail("batch dim " + std::to_string(j) + " is " + d.str() + " in " + n.typed_operand(0) + " and " + di.str() +
             " in " + n.typed_operand(1) + "; expected the same static size");
    Value* range = im.emit("arange", {}, attrs_of({{"start", int64_t{0}}, {"end", d.value}, {"step", int64_t{1}},
                                                    {"dtype", DType::Int64}}),
                           n.hint() + "_batch");
    std::vector<int64_t> shape(static_cast<size_t>(it.rank() - 1), 1);
    shape[static_cast<size_t>(j)] = d.value;
    ins.push_back(im.emit("reshape", {range}, attrs_of({{"shape", shape}}), n.hint() + "_batch"));
  }
  for (int64_t j = 0; j < k; ++j)
    ins.push_back(im.emit("select", {idx}, attrs_of({{"dim", int64_t{-1}}, {"index", j}}), n.hint() + "_index"));
  n.set_output(0, im.emit_n("index", ins, {}, n.hint(),
                            {OperandGroup{false, 1}, OperandGroup{true, static_cast<int>(batch + k)}})[0]);
}

void nonzero(NodeContext& n) {
  Value* nz = n.im().emit("nonzero", {n.value(0)}, {}, n.hint() + "_rows");
  n.set_output(0, n.im().permute(nz, {1, 0}, n.hint()));
}

// Compress: the slices along 'axis' (or the elements of the flattened
// input, without one) where the condition holds: take by the condition's
// nonzero positions, a data-dependent count. A condition shorter than the
// axis drops the slices past it, as ONNX says.
void compress(NodeContext& n) {
  Value* x = n.value(0);
  Value* cond = n.value(1);
  const TensorType& ct = cond->type();
  if (ct.dtype != DType::Bool || ct.rank() != 1)
    n.fail(n.typed_operand(1) + " is not a 1-D bool tensor; expected a condition of rank 1 and type bool");
  Importer& im = n.im();
  int64_t axis = 0;
  if (n.attr("axis")) {
    if (n.type(0).rank() == 0) n.fail(n.typed_operand(0) + " is a scalar; expected a tensor of rank >= 1 for an axis");
    axis = input_axis(n, n.attr_int("axis", 0), "attribute 'axis'");
  } else if (n.type(0).rank() != 1) {
    x = im.emit("flatten", {x}, attrs_of({{"start_dim", int64_t{0}}, {"end_dim", int64_t{-1}}}), n.hint() + "_flat");
  }
  const Dim& len = x->type().dims[static_cast<size_t>(axis)];
  if (ct.dims[0].is_static() && len.is_static() && ct.dims[0].value > len.value)
    n.fail(n.typed_operand(1) + " is longer than the " + len.str() + " slices along axis " + std::to_string(axis) +
           " of " + n.typed_operand(0) + "; expected at most " + len.str() + " entries");
  Value* rows = im.emit("nonzero", {cond}, {}, n.hint() + "_rows");
  Value* picked = im.emit("select", {rows}, attrs_of({{"dim", int64_t{1}}, {"index", int64_t{0}}}), n.hint() + "_picked");
  n.set_output(0, n.emit("take", {x, picked}, attrs_of({{"dim", axis}})));
}

// ReverseSequence: along time_axis, the first sequence_lens[b] elements of
// each batch entry b (along batch_axis) in reverse order, the others kept.
// An advanced index of the two leading dims: time t of batch b reads
// t' = t < len[b] ? len[b] - 1 - t : t (a length past the time dim is an
// index out of range when run).
void reverse_sequence(NodeContext& n) {
  Value* x = n.value(0);
  const TensorType& xt = x->type();
  if (xt.rank() < 2)
    n.fail(n.typed_operand(0) + " has rank " + std::to_string(xt.rank()) + "; expected rank >= 2 (time and batch)");
  const int64_t time = input_axis(n, n.attr_int("time_axis", 0), "attribute 'time_axis'");
  const int64_t batch = input_axis(n, n.attr_int("batch_axis", 1), "attribute 'batch_axis'");
  if (time + batch != 1)
    n.fail("attributes 'time_axis' and 'batch_axis' are " + std::to_string(time) + " and " + std::to_string(batch) +
           "; expected 0 and 1, or 1 and 0");
  const Dim& steps = xt.dims[static_cast<size_t>(time)];
  const Dim& entries = xt.dims[static_cast<size_t>(batch)];
  if (!steps.is_static() || !entries.is_static())
    n.fail(n.typed_operand(0) + " has a symbolic time or batch dim; expected static ones" +
           n.im().dim_fix(Dims{steps, entries}));
  const TensorType& lt = n.type(1);
  if (lt.rank() != 1 || (lt.dims[0].is_static() && lt.dims[0].value != entries.value) ||
      (lt.dtype != DType::Int64 && lt.dtype != DType::Int32))
    n.fail(n.typed_operand(1) + " is not one integer length per batch entry; expected an i64 tensor [" +
           entries.str() + "]");
  Importer& im = n.im();
  const std::string h = n.hint();
  auto range = [&](int64_t end, std::vector<int64_t> shape) {
    Value* r = im.emit("arange", {}, attrs_of({{"start", int64_t{0}}, {"end", end}, {"step", int64_t{1}},
                                               {"dtype", DType::Int64}}), h + "_range");
    return im.emit("reshape", {r}, attrs_of({{"shape", shape}}), h + "_range");
  };
  // t [T, 1] and len [1, B] with time first; [1, T] and [B, 1] otherwise.
  const std::vector<int64_t> along_time = time == 0 ? std::vector<int64_t>{steps.value, 1}
                                                    : std::vector<int64_t>{1, steps.value};
  const std::vector<int64_t> along_batch = time == 0 ? std::vector<int64_t>{1, entries.value}
                                                     : std::vector<int64_t>{entries.value, 1};
  Value* t = range(steps.value, along_time);
  Value* lens = n.value(1);
  if (lt.dtype != DType::Int64) lens = im.emit("cast", {lens}, attrs_of({{"dtype", DType::Int64}}), h + "_lens");
  lens = im.emit("reshape", {lens}, attrs_of({{"shape", along_batch}}), h + "_lens");
  Value* last = im.emit("sub", {lens, im.full({}, 1, DType::Int64, h)}, {}, h + "_last");
  Value* reversed = im.emit("sub", {last, t}, {}, h + "_reversed");
  Value* inside = im.emit("lt", {t, lens}, {}, h + "_inside");
  Value* steps_index = im.emit("where", {inside, reversed, t}, {}, h + "_steps");
  Value* entries_index = range(entries.value, along_batch);
  std::vector<Value*> ins = {x};
  if (time == 0) {
    ins.push_back(steps_index);
    ins.push_back(entries_index);
  } else {
    ins.push_back(entries_index);
    ins.push_back(steps_index);
  }
  n.set_output(0, im.emit_n("index", ins, {}, h, {OperandGroup{false, 1}, OperandGroup{true, 2}})[0]);
}

void topk(NodeContext& n) {
  const int64_t k = n.int_scalar(1, "K");
  const int64_t axis = input_axis(n, n.attr_int("axis", -1), "attribute 'axis'");
  const Dim& d = n.type(0).dims[axis];
  if (k < 0 || (d.is_static() && k > d.value))
    n.fail("K, " + n.operand(1) + ", is " + std::to_string(k) + "; expected K in [0, " + d.str() +
           "], the size of axis " + std::to_string(axis) + " of " + n.typed_operand(0));
  auto outs = n.im().emit_n("topk", {n.value(0)},
                            attrs_of({{"k", k},
                                      {"dim", axis},
                                      {"largest", n.attr_int("largest", 1) != 0},
                                      {"sorted", n.attr_int("sorted", 1) != 0}}),
                            n.hint());
  n.set_output(0, outs[0]);
  n.set_output(1, outs[1]);
}

void arg_reduce(NodeContext& n) {
  const char* op = n.proto().op_type() == "ArgMax" ? "argmax" : "argmin";
  if (n.type(0).rank() == 0) n.fail(n.typed_operand(0) + " is a scalar; expected a tensor of rank >= 1");
  n.set_output(0, n.emit(op, {n.value(0)},
                         attrs_of({{"dim", input_axis(n, n.attr_int("axis", 0), "attribute 'axis'")},
                                   {"keepdim", n.attr_int("keepdims", 1) != 0},
                                   {"select_last_index", n.attr_int("select_last_index", 0) != 0}})));
}

// Reduce*: axes from the input (ReduceSum from opset 13, the others from
// 18) or the attribute. ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum
// and ReduceLogSumExp are composed of sum, amax and elementwise operators.
void reduce(NodeContext& n) {
  const std::string& op_type = n.proto().op_type();
  std::optional<std::vector<int64_t>> axes;
  if (op_type == "ReduceSum" || n.opset() >= 18) {
    if (n.input(1)) axes = reduce_axes(n, n.ints(1, "the axes"), "the axes, " + n.operand(1) + ",");
  } else if (auto a = n.attr_ints("axes")) {
    axes = reduce_axes(n, *a, "attribute 'axes'");
  }
  const bool keepdim = n.attr_int("keepdims", 1) != 0;
  Value* x = n.value(0);
  if ((!axes || axes->empty()) && n.attr_int("noop_with_empty_axes", 0) != 0) {
    n.forward(0, 0);
    return;
  }
  Attrs attrs = attrs_of({{"keepdim", keepdim}});
  if (axes && !axes->empty()) attrs.set("dims", *axes);
  if (op_type == "ReduceSumSquare" || op_type == "ReduceL2") {
    Value* sq = n.im().emit("mul", {x, x}, {}, n.hint() + "_sq");
    Value* s = op_type == "ReduceL2" ? n.im().emit("sum", {sq}, attrs, n.hint() + "_sum") : n.emit("sum", {sq}, attrs);
    n.set_output(0, op_type == "ReduceL2" ? n.emit("sqrt", {s}) : s);
    return;
  }
  Importer& im = n.im();
  const std::string h = n.hint();
  if (op_type == "ReduceL1") {
    n.set_output(0, n.emit("sum", {im.emit("abs", {x}, {}, h + "_abs")}, attrs));
    return;
  }
  if (op_type == "ReduceLogSum") {
    n.set_output(0, n.emit("log", {im.emit("sum", {x}, attrs, h + "_sum")}));
    return;
  }
  if (op_type == "ReduceLogSumExp") {
    // log(sum(e^(x - m))) + m with m the maximum: e^x overflows float32
    // from 89 (float16 from 12), e^(x - m) is at most 1.
    Attrs kept = attrs;
    kept.set("keepdim", true);
    Value* shift = im.emit("amax", {x}, kept, h + "_max");
    Value* e = im.emit("exp", {im.emit("sub", {x, shift}, {}, h + "_shifted")}, {}, h + "_exp");
    Value* lse = im.emit("log", {im.emit("sum", {e}, attrs, h + "_sum")}, {}, h + "_log");
    Value* m = keepdim ? shift : im.emit("amax", {x}, attrs, h + "_max");
    n.set_output(0, n.emit("add", {lse, m}));
    return;
  }
  static const std::map<std::string, std::string> ops = {{"ReduceSum", "sum"},
                                                         {"ReduceMean", "mean"},
                                                         {"ReduceMax", "amax"},
                                                         {"ReduceMin", "amin"},
                                                         {"ReduceProd", "prod"}};
  n.set_output(0, n.emit(ops.at(op_type), {x}, attrs));
}

// ---- normalizations built from reductions -------------------------------------------

// LpNormalization: x / ||x||_p along axis, p 1 or 2. Each row is first
// divided by its largest magnitude, so that forming the norm cannot
// overflow or underflow (float16 squares overflow from 256); a row of
// zeros gives zeros, as in ONNX Runtime.
void lp_normalization(NodeContext& n) {
  const int64_t p = n.attr_int("p", 2);
  if (p != 1 && p != 2) n.fail("attribute 'p' is " + std::to_string(p) + "; expected 1 or 2");
  const int64_t axis = input_axis(n, n.attr_int("axis", -1), "attribute 'axis'");
  Value* x = n.value(0);
  Importer& im = n.im();
  const std::string h = n.hint();
  const DType dt = x->type().dtype;
  const Attrs over = attrs_of({{"dims", std::vector<int64_t>{axis}}, {"keepdim", true}});
  Value* one = im.full({}, 1.0, dt, h);
  Value* magnitude = im.emit("abs", {x}, {}, h + "_abs");
  Value* scale = im.emit("amax", {magnitude}, over, h + "_scale");
  // A row of zeros is divided by 1 instead of 0.
  Value* zero_row = im.emit("eq", {scale, im.full({}, 0.0, dt, h)}, {}, h + "_zero");
  scale = im.emit("where", {zero_row, one, scale}, {}, h + "_scale");
  Value* y = im.emit("div", {x, scale}, {}, h + "_scaled");
  Value* norm = p == 1 ? im.emit("sum", {im.emit("div", {magnitude, scale}, {}, h + "_abs")}, over, h + "_norm")
                       : im.emit("sqrt", {im.emit("sum", {im.emit("mul", {y, y}, {}, h + "_sq")}, over, h + "_sq")},
                                 {}, h + "_norm");
  // Every element of y is at most 1 in magnitude and, in a row that is not
  // all zeros, one is 1: its norm is at least 1. max(norm, 1) changes only
  // the zero rows' norm (0), which then stay 0.
  norm = im.emit("maximum", {norm, one}, {}, h + "_norm");
  n.set_output(0, n.emit("div", {y, norm}));
}

// MeanVarianceNormalization: (x - mean) / (sqrt(variance) + 1e-9) over
// axes (default [0, 2, 3]), as ONNX's function body defines it, but with the
// variance as the mean of the squared deviations: its E[x^2] - E[x]^2
// cancels (and may go negative) where the mean is large against the
// spread. float16 is computed in float32, whose squares do not overflow
// and to whose 1 the 1e-9 is not lost.
void mean_variance_normalization(NodeContext& n) {
  const auto* given = n.attr("axes");
  const std::vector<int64_t> axes =
      reduce_axes(n, n.attr_ints("axes").value_or(std::vector<int64_t>{0, 2, 3}),
                  given ? "attribute 'axes'" : "attribute 'axes' (absent: ONNX's default)");
  Importer& im = n.im();
  const std::string h = n.hint();
  Value* x = n.value(0);
  const DType dt = x->type().dtype;
  if (dt == DType::Float16) x = im.emit("cast", {x}, attrs_of({{"dtype", DType::Float32}}), h + "_f32");
  // No axes: every dim, as ONNX's ReduceMean reads an empty list.
  Attrs over = attrs_of({{"keepdim", true}});
  if (!axes.empty()) over.set("dims", axes);
  Value* mean = im.emit("mean", {x}, over, h + "_mean");
  Value* centered = im.emit("sub", {x, mean}, {}, h + "_centered");
  Value* variance = im.emit("mean", {im.emit("mul", {centered, centered}, {}, h + "_sq")}, over, h + "_variance");
  Value* spread = im.emit("add", {im.emit("sqrt", {variance}, {}, h + "_std"), im.full({}, 1e-9, DType::Float32, h)},
                          {}, h + "_std");
  if (dt != DType::Float16) {
    n.set_output(0, n.emit("div", {centered, spread}));
    return;
  }
  Value* y = im.emit("div", {centered, spread}, {}, h + "_f32");
  n.set_output(0, n.emit("cast", {y}, attrs_of({{"dtype", dt}})));
}

void cumsum(NodeContext& n) {
  const int64_t axis = input_axis(n, n.int_scalar(1, "the axis"), "the axis, " + n.operand(1) + ",");
  n.set_output(0, n.emit("cumsum", {n.value(0)},
                         attrs_of({{"dim", axis},
                                   {"exclusive", n.attr_int("exclusive", 0) != 0},
                                   {"reverse", n.attr_int("reverse", 0) != 0}})));
}

// Unique: edgec's unique (src/kernels/unique.cpp) has ONNX's four results
// and a workspace, which is dropped.
void unique(NodeContext& n) {
  Attrs attrs = attrs_of({{"sorted", n.attr_int("sorted", 1) != 0}});
  if (n.attr("axis")) {
    if (n.type(0).rank() == 0) n.fail(n.typed_operand(0) + " is a scalar; expected a tensor of rank >= 1 for attribute 'axis'");
    attrs.set("dim", std::vector<int64_t>{input_axis(n, n.attr_int("axis", 0), "attribute 'axis'")});
  }
  const auto outs = n.im().emit_n("unique", {n.value(0)}, attrs, n.hint());
  for (size_t i = 0; i < 4; ++i)
    if (n.has_output(i)) n.set_output(i, outs[i]);
}

// ---- scatters ----------------------------------------------------------------------

/// ScatterND's and ScatterElements' reduction: none, add and mul from
/// opset 16, min and max from 18 (there was none before 16, where the
/// schema refuses the attribute).
std::string scatter_reduction(NodeContext& n) {
  const std::string r = n.attr_string("reduction", "none");
  const bool known = r == "none" || r == "add" || r == "mul" || ((r == "min" || r == "max") && n.opset() >= 18);
  if (!known)
    n.fail("attribute 'reduction' is '" + r + "'; expected " +
           (n.opset() >= 18 ? "none, add, mul, min or max" : "none, add or mul (min and max from opset 18)"));
  return r;
}

std::string dims_str(const Dims& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + dims[i].str();
  return s + "]";
}

/// Refuses updates (input 2) whose dims are not `expected` where both are
/// known: the kernel would refuse them at run time.
void check_updates(NodeContext& n, const Dims& expected) {
  const Dims& got = n.type(2).dims;
  bool fits = got.size() == expected.size();
  for (size_t d = 0; fits && d < got.size(); ++d)
    fits = !got[d].is_static() || !expected[d].is_static() || got[d].value == expected[d].value;
  if (!fits)
    n.fail(n.typed_operand(2) + " does not fit " + n.typed_operand(1) + " and " + n.typed_operand(0) +
           "; expected updates of shape " + dims_str(expected));
}

/// Indices known at import time are checked here, naming the index: the
/// kernel would fail at run time (an index out of range is an error there,
/// IndexOutOfRange, as for Gather: src/kernels/scatter.cpp). `dim_of(e)` is
/// the data dim that element e of the indices indexes.
template <typename DimOf>
void check_known_indices(NodeContext& n, DimOf&& dim_of) {
  const TensorData* d = n.data(1);
  if (!d) return;
  const std::vector<int64_t> idx = data_as_ints(*d);
  for (size_t e = 0; e < idx.size(); ++e) {
    const int64_t j = dim_of(static_cast<int64_t>(e));
    const Dim& size = n.type(0).dims[static_cast<size_t>(j)];
    if (size.is_static() && (idx[e] < -size.value || idx[e] >= size.value))
      n.fail(n.typed_operand(1) + " holds the index " + std::to_string(idx[e]) + " for dim " + std::to_string(j) +
             "; expected an index in [" + std::to_string(-size.value) + ", " + std::to_string(size.value - 1) +
             "] for " + n.typed_operand(0));
  }
}

// ScatterND: a copy of data with the slices at `indices` (each row of its
// last dim a position in data's first k dims) combined with `updates`.
// Constant operands fold at import time (Importer::emit).
void scatter_nd(NodeContext& n) {
  const std::string reduction = scatter_reduction(n);
  const TensorType& xt = n.type(0);
  const TensorType& it = n.type(1);
  if (it.rank() == 0) n.fail(n.typed_operand(1) + " is a scalar; expected indices of rank >= 1");
  if (!it.dims.back().is_static())
    n.fail(n.typed_operand(1) + " has no static last dim; expected the number of coordinates per index");
  const int64_t k = it.dims.back().value;
  if (k < 1 || k > xt.rank())
    n.fail(n.typed_operand(1) + " has " + std::to_string(k) + " coordinates per index; expected 1 to " +
           std::to_string(xt.rank()) + " for " + n.typed_operand(0));
  // updates: indices' shape without its last dim, then data's dims past k.
  Dims expected(it.dims.begin(), it.dims.end() - 1);
  expected.insert(expected.end(), xt.dims.begin() + k, xt.dims.end());
  check_updates(n, expected);
  check_known_indices(n, [&](int64_t e) { return e % k; });
  Attrs attrs;
  if (reduction != "none") attrs.set("reduction", reduction);
  n.set_output(0, n.emit("scatter_nd", {n.value(0), n.value(1), n.value(2)}, attrs));
}

// ScatterElements, and Scatter (opsets 9 and 10, the same without a
// reduction; ONNX's version converter turns it into ScatterElements when it
// brings a model to opset 13, so this handler sees Scatter only where the
// converter failed): updates[p] goes to data[p with p[axis] = indices[p]].
void scatter_elements(NodeContext& n) {
  const std::string reduction = n.proto().op_type() == "Scatter" ? "none" : scatter_reduction(n);
  const int64_t axis = input_axis(n, n.attr_int("axis", 0), "attribute 'axis'");
  const TensorType& it = n.type(1);
  if (it.rank() != n.type(0).rank())
    n.fail(n.typed_operand(1) + " has rank " + std::to_string(it.rank()) + "; expected the rank of " +
           n.typed_operand(0));
  check_updates(n, it.dims);
  check_known_indices(n, [&](int64_t) { return axis; });
  Attrs attrs = attrs_of({{"dim", axis}});
  if (reduction != "none") attrs.set("reduction", reduction);
  n.set_output(0, n.emit("scatter", {n.value(0), n.value(1), n.value(2)}, attrs));
}

}  // namespace

void register_index_handlers(HandlerTable& t) {
  t["GatherElements"] = gather_elements;
  t["GatherND"] = gather_nd;
  t["NonZero"] = nonzero;
  t["Compress"] = compress;
  t["ReverseSequence"] = reverse_sequence;
  t["TopK"] = topk;
  t["ArgMax"] = arg_reduce;
  t["ArgMin"] = arg_reduce;
  for (const char* name :
       {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare", "ReduceL1", "ReduceL2",
        "ReduceLogSum", "ReduceLogSumExp"})
    t[name] = reduce;
  t["LpNormalization"] = lp_normalization;
  t["MeanVarianceNormalization"] = mean_variance_normalization;
  t["CumSum"] = cumsum;
  t["ScatterND"] = scatter_nd;
  t["ScatterElements"] = scatter_elements;
  t["Scatter"] = scatter_elements;
  t["Unique"] = unique;
}

}  // namespace edgec::onnx_import

// Shape and data-movement ONNX operators. The exporter computes reshape and
// expand targets in the graph (Shape -> Gather -> Unsqueeze -> Concat), so
// Shape, Gather, Slice, Concat, Squeeze and Unsqueeze of shape values are
// evaluated here on SymInts, and Reshape / Expand / ConstantOfShape / Range
// turn the result into attributes: a symbolic size becomes the one -1 of a
// reshape, an expand's -1 ("keep"), or a broadcast against a tensor that
// has that size (Importer::broadcast_to).
#include <algorithm>
#include <numeric>

#include "frontends/onnx/context.h"
#include "kernels/tensor.h"

namespace edgec::onnx_import {
namespace {

std::string sym_list(const std::vector<SymInt>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i].str();
  return s + "]";
}

int64_t wrap_axis(NodeContext& n, int64_t axis, int64_t rank, const std::string& what) {
  const int64_t w = axis < 0 ? axis + rank : axis;
  if (w < 0 || w >= rank)
    n.fail(what + " " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return w;
}

/// Whether input i is a shape value (an int tensor of rank <= 1 with known,
/// possibly symbolic, elements) that is worth keeping symbolic.
bool is_shape_value(NodeContext& n, size_t i, size_t max_len = 64) {
  Entry* e = n.input(i);
  if (!e || e->type.rank() > 1 || (e->type.dtype != DType::Int64 && e->type.dtype != DType::Int32)) return false;
  auto s = n.sym(i);
  return s && s->size() <= max_len;
}

// ---- Shape, Size -------------------------------------------------------------------

void shape(NodeContext& n) {
  Entry& x = n.required(0);
  const int64_t rank = x.type.rank();
  auto clamp_index = [&](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + rank : i, 0, rank); };
  const int64_t start = clamp_index(n.attr_int("start", 0));
  const int64_t end = clamp_index(n.attr_int("end", rank));
  std::vector<SymInt> dims;
  for (int64_t i = start; i < end; ++i) dims.push_back(SymInt::of_dim(x.type.dims[i], x.value, static_cast<int>(i)));
  n.set_sym_output(0, std::move(dims), false);
}

void size(NodeContext& n) {
  Entry& x = n.required(0);
  n.set_sym_output(0, {sym_numel(x.type, x.value, 0, x.type.dims.size())}, true);
}

// ---- Gather on shape values (general Gather is in ops_index.cpp) --------------------

bool gather_shape_value(NodeContext& n) {
  const int64_t axis = n.attr_int("axis", 0);
  if ((axis != 0 && axis != -1) || !is_shape_value(n, 0)) return false;
  const TensorData* idx = n.data(1);
  if (!idx || idx->type.rank() > 1) return false;
  const std::vector<SymInt> elems = *n.sym(0);
  const int64_t len = static_cast<int64_t>(elems.size());
  std::vector<SymInt> picked;
  for (int64_t i : data_as_ints(*idx)) {
    const int64_t w = i < 0 ? i + len : i;
    if (w < 0 || w >= len)
      n.fail("index " + std::to_string(i) + " is out of range for a shape of " + std::to_string(len) + " dims");
    picked.push_back(elems[w]);
  }
  n.set_sym_output(0, std::move(picked), idx->type.rank() == 0, n.type(0).dtype);
  return true;
}

// ---- Reshape, Flatten, Squeeze, Unsqueeze -------------------------------------------

void reshape(NodeContext& n) {
  auto target = n.sym(1);
  if (!target)
    n.fail("the target shape (input 1 '" + n.proto().input(1) +
           "') must be known at import time, but it is computed from run-time data" + std::string(kRunTimeDataHint));
  const bool allowzero = n.attr_int("allowzero", 0) != 0;
  Value* x = n.value(0);
  const TensorType& xt = x->type();
  std::vector<std::optional<SymInt>> dims;  // nullopt: -1
  int minus_one = -1;
  for (size_t i = 0; i < target->size(); ++i) {
    const SymInt& s = (*target)[i];
    if (s.is_static() && s.factor == -1) {
      if (minus_one >= 0) n.fail("the target shape " + sym_list(*target) + " has more than one -1");
      minus_one = static_cast<int>(i);
      dims.push_back(std::nullopt);
    } else if (s.is_static() && s.factor == 0 && !allowzero) {
      if (static_cast<int64_t>(i) >= xt.rank())
        n.fail("the target shape " + sym_list(*target) + " copies dim " + std::to_string(i) + " (a 0) of " + xt.str() +
               ", which has no such dim");
      dims.push_back(SymInt::of_dim(xt.dims[i], x, static_cast<int>(i)));
    } else {
      dims.push_back(s);
    }
  }
  // Resolve the -1 symbolically, so that a symbolic size elsewhere can take it.
  if (minus_one >= 0) {
    SymInt known = SymInt::constant(1);
    bool ok = true;
    for (size_t i = 0; ok && i < dims.size(); ++i) {
      if (static_cast<int>(i) == minus_one) continue;
      auto m = sym_mul(known, *dims[i]);
      ok = m.has_value();
      if (ok) known = *m;
    }
    if (ok && !(known.is_static() && known.factor == 0))
      if (auto q = sym_div(sym_numel(xt, x, 0, xt.dims.size()), known)) dims[minus_one] = *q;
  }
  int symbolic = 0;
  bool has_minus = false;
  for (const auto& d : dims) {
    has_minus |= !d.has_value();
    symbolic += d && !d->is_static();
  }
  std::vector<int64_t> shape;
  for (const auto& d : dims) shape.push_back(!d ? -1 : d->is_static() ? d->factor : -1);
  if (symbolic > 1 || (symbolic == 1 && has_minus)) {
    std::string list = "[";
    for (size_t i = 0; i < dims.size(); ++i) list += (i ? ", " : "") + (dims[i] ? dims[i]->str() : std::string("-1"));
    n.fail("cannot reshape " + xt.str() + " to " + list +
           "]: more than one size is symbolic or inferred, and a reshape can leave only one size to run time");
  }
  n.set_output(0, n.emit("reshape", {x}, attrs_of({{"shape", shape}})));
}

// ONNX Flatten: always 2-D, [prod(dims[:axis]), prod(dims[axis:])].
void flatten(NodeContext& n) {
  Value* x = n.value(0);
  const int64_t rank = x->type().rank();
  int64_t axis = n.attr_int("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank)
    n.fail("axis " + std::to_string(n.attr_int("axis", 1)) + " is out of range for " + x->type().str());
  Value* y = x;
  if (axis == 0) {
    y = n.emit("reshape", {x}, attrs_of({{"shape", std::vector<int64_t>{1, -1}}}));
  } else if (axis == rank) {
    y = n.emit("flatten", {x}, attrs_of({{"start_dim", int64_t{0}}, {"end_dim", int64_t{-1}}}));
    y = n.emit("unsqueeze", {y}, attrs_of({{"dims", std::vector<int64_t>{1}}}));
  } else {
    if (axis < rank - 1) y = n.emit("flatten", {y}, attrs_of({{"start_dim", axis}, {"end_dim", int64_t{-1}}}));
    if (axis > 1) y = n.emit("flatten", {y}, attrs_of({{"start_dim", int64_t{0}}, {"end_dim", axis - 1}}));
  }
  if (y == x) {
    n.forward(0, 0);
    return;
  }
  n.set_output(0, y);
}

std::optional<std::vector<int64_t>> axes_of(NodeContext& n, size_t input_index) {
  if (n.opset() >= 13) {
    if (!n.input(input_index)) return std::nullopt;
    return n.ints(input_index, "axes");
  }
  return n.attr_ints("axes");
}

void squeeze(NodeContext& n) {
  const auto axes = axes_of(n, 1);
  Entry& x = n.required(0);
  if (x.sym && x.type.rank() == 1 && x.sym->size() == 1 &&
      (!axes || (axes->size() == 1 && ((*axes)[0] == 0 || (*axes)[0] == -1)))) {
    n.set_sym_output(0, *x.sym, true, x.type.dtype);
    return;
  }
  Attrs attrs;
  if (axes) attrs.set("dims", *axes);
  n.set_output(0, n.emit("squeeze", {n.value(0)}, attrs));
}

void unsqueeze(NodeContext& n) {
  const auto axes = axes_of(n, 1);
  if (!axes) n.fail("expected axes");
  Entry& x = n.required(0);
  if (x.sym && x.type.rank() == 0 && axes->size() == 1 && ((*axes)[0] == 0 || (*axes)[0] == -1)) {
    n.set_sym_output(0, *x.sym, false, x.type.dtype);
    return;
  }
  n.set_output(0, n.emit("unsqueeze", {n.value(0)}, attrs_of({{"dims", *axes}})));
}

// ---- Transpose, Expand, Tile, Pad, Trilu --------------------------------------------

void transpose(NodeContext& n) {
  Value* x = n.value(0);
  std::vector<int64_t> perm(static_cast<size_t>(x->type().rank()));
  std::iota(perm.rbegin(), perm.rend(), 0);
  if (auto p = n.attr_ints("perm")) perm = *p;
  Value* y = n.im().permute(x, perm, n.hint());
  if (y == n.required(0).value) {
    n.forward(0, 0);
    return;
  }
  n.set_output(0, y);
}

// ONNX Expand broadcasts both ways: each result dim is the larger of the
// input's and the target's (a target 1 keeps the input's size).
void expand(NodeContext& n) {
  auto target = n.sym(1);
  if (!target)
    n.fail("the target shape (input 1 '" + n.proto().input(1) +
           "') must be known at import time, but it is computed from run-time data" + std::string(kRunTimeDataHint));
  Value* x = n.value(0);
  const TensorType& xt = x->type();
  const int64_t tr = static_cast<int64_t>(target->size());
  const int64_t rank = std::max<int64_t>(xt.rank(), tr);
  std::vector<SymInt> dims;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t xi = i - (rank - xt.rank());
    const int64_t ti = i - (rank - tr);
    const std::optional<SymInt> xd =
        xi >= 0 ? std::optional(SymInt::of_dim(xt.dims[xi], x, static_cast<int>(xi))) : std::nullopt;
    const std::optional<SymInt> td = ti >= 0 ? std::optional((*target)[ti]) : std::nullopt;
    auto is_one = [](const std::optional<SymInt>& s) { return s && s->is_static() && s->factor == 1; };
    if (!td || is_one(td)) {
      dims.push_back(xd ? *xd : SymInt::constant(1));
    } else if (!xd || is_one(xd)) {
      dims.push_back(*td);
    } else if (td->is_static()) {
      dims.push_back(*td);
    } else {
      dims.push_back(*xd);  // both larger than 1: they must agree at run time
    }
  }
  n.set_output(0, n.im().broadcast_to(x, dims, n.hint()));
}

void tile(NodeContext& n) {
  n.set_output(0, n.emit("tile", {n.value(0)}, attrs_of({{"repeats", n.ints(1, "repeats")}})));
}

void pad(NodeContext& n) {
  const std::string mode = n.attr_string("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge") n.fail("pad mode '" + mode + "' is not supported");
  if (n.input(3)) n.fail("Pad with an axes input is not supported");
  Attrs attrs = attrs_of({{"pads", n.ints(1, "pads")}, {"mode", mode}});
  if (n.input(2)) {
    const TensorData* v = n.data(2);
    if (!v) n.fail("the pad value (input 2) must be known at import time");
    attrs.set("value", data_as_doubles(*v).at(0));
  }
  n.set_output(0, n.emit("pad", {n.value(0)}, attrs));
}

void trilu(NodeContext& n) {
  int64_t k = 0;
  if (n.input(1)) k = n.ints(1, "k").at(0);
  const bool upper = n.attr_int("upper", 1) != 0;
  n.set_output(0, n.emit(upper ? "triu" : "tril", {n.value(0)}, attrs_of({{"diagonal", k}})));
}

// ---- Concat, Split, Slice -------------------------------------------------------------

void concat(NodeContext& n) {
  const int64_t axis = n.attr_int("axis", 0);
  bool shape_values = axis == 0 || axis == -1;
  for (size_t i = 0; shape_values && i < n.num_inputs(); ++i)
    shape_values = is_shape_value(n, i) && n.type(i).rank() == 1 && n.type(i).dtype == n.type(0).dtype;
  if (shape_values) {
    std::vector<SymInt> all;
    for (size_t i = 0; i < n.num_inputs(); ++i) {
      auto s = *n.sym(i);
      all.insert(all.end(), s.begin(), s.end());
    }
    n.set_sym_output(0, std::move(all), false, n.type(0).dtype);
    return;
  }
  std::vector<Value*> values;
  for (size_t i = 0; i < n.num_inputs(); ++i) values.push_back(n.value(i));
  if (values.size() == 1) {
    n.forward(0, 0);
    return;
  }
  n.set_output(0, n.im().emit_n("concat", values, attrs_of({{"dim", axis}}), n.hint(),
                                {OperandGroup{true, static_cast<int>(values.size())}})[0]);
}

void split(NodeContext& n) {
  Value* x = n.value(0);
  const TensorType& xt = x->type();
  const int64_t axis = wrap_axis(n, n.attr_int("axis", 0), xt.rank(), "axis");
  std::vector<int64_t> sizes;
  if (n.input(1)) {
    sizes = n.ints(1, "split");
  } else if (auto attr = n.attr_ints("split")) {
    sizes = *attr;
  } else {
    const Dim& d = xt.dims[axis];
    const int64_t parts = static_cast<int64_t>(n.num_outputs());
    if (!d.is_static()) n.fail("cannot split the symbolic dim " + d.str() + " of " + xt.str() + " into equal parts");
    if (d.value % parts != 0)
      n.fail("cannot split dim " + std::to_string(axis) + " of " + xt.str() + " into " + std::to_string(parts) +
             " equal parts");
    sizes.assign(static_cast<size_t>(parts), d.value / parts);
  }
  if (sizes.size() != n.num_outputs())
    n.fail("expected " + std::to_string(n.num_outputs()) + " split sizes (one per output), got " +
           std::to_string(sizes.size()));
  auto outs = n.im().emit_n("split", {x}, attrs_of({{"dim", axis}, {"sizes", sizes}}), n.hint());
  for (size_t i = 0; i < outs.size(); ++i) n.set_output(i, outs[i]);
}

/// ONNX Slice of a static length: the picked indices.
std::vector<int64_t> slice_indices(int64_t len, int64_t start, int64_t end, int64_t step) {
  if (start < 0) start += len;
  if (end < 0) end += len;
  std::vector<int64_t> out;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, len);
    end = std::clamp<int64_t>(end, 0, len);
    for (int64_t i = start; i < end; i += step) out.push_back(i);
  } else {
    start = std::clamp<int64_t>(start, 0, len - 1);
    end = std::clamp<int64_t>(end, -1, len - 1);
    for (int64_t i = start; i > end; i += step) out.push_back(i);
  }
  return out;
}

void slice(NodeContext& n) {
  const std::vector<int64_t> starts = n.ints(1, "starts");
  const std::vector<int64_t> ends = n.ints(2, "ends");
  std::vector<int64_t> axes(starts.size());
  std::iota(axes.begin(), axes.end(), 0);
  if (n.input(3)) axes = n.ints(3, "axes");
  std::vector<int64_t> steps(starts.size(), 1);
  if (n.input(4)) steps = n.ints(4, "steps");
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    n.fail("starts, ends, axes and steps must have one length");
  for (int64_t s : steps)
    if (s == 0) n.fail("a slice step of 0 is invalid");
  if (is_shape_value(n, 0, 1024) && n.type(0).rank() == 1 && starts.size() == 1 && (axes[0] == 0 || axes[0] == -1)) {
    const auto elems = *n.sym(0);
    std::vector<SymInt> picked;
    for (int64_t i : slice_indices(static_cast<int64_t>(elems.size()), starts[0], ends[0], steps[0]))
      picked.push_back(elems[i]);
    n.set_sym_output(0, std::move(picked), false, n.type(0).dtype);
    return;
  }
  n.set_output(0, n.emit("slice", {n.value(0)},
                         attrs_of({{"dims", axes}, {"starts", starts}, {"ends", ends}, {"steps", steps}})));
}

// ---- ConstantOfShape, Range --------------------------------------------------------

void constant_of_shape(NodeContext& n) {
  auto dims = n.sym(0);
  if (!dims)
    n.fail("the shape (input 0 '" + n.proto().input(0) +
           "') must be known at import time, but it is computed from run-time data" + std::string(kRunTimeDataHint));
  double value = 0.0;
  DType dtype = DType::Float32;
  if (const auto* a = n.attr("value")) {
    const TensorData t = tensor_from_proto(a->t(), "its value");
    if (t.type.max_numel().value_or(0) != 1) n.fail("expected a one-element value, got " + t.type.str());
    dtype = t.type.dtype;
    value = data_as_doubles(t)[0];
  }
  for (const SymInt& d : *dims)
    if (d.is_static() && d.factor < 0) n.fail("expected sizes >= 0, got " + sym_list(*dims));
  n.set_output(0, n.im().filled(*dims, value, dtype, n.hint()));
}

void range(NodeContext& n) {
  const DType dtype = n.type(0).dtype;
  const TensorData* start = n.data(0);
  const TensorData* limit = n.data(1);
  const TensorData* delta = n.data(2);
  if (start && limit && delta) {
    Attrs attrs;
    const char* names[] = {"start", "end", "step"};
    const TensorData* parts[] = {start, limit, delta};
    for (int i = 0; i < 3; ++i) {
      if (is_floating(dtype)) {
        attrs.set(names[i], data_as_doubles(*parts[i]).at(0));
      } else {
        attrs.set(names[i], data_as_ints(*parts[i]).at(0));
      }
    }
    attrs.set("dtype", dtype);
    n.set_output(0, n.emit("arange", {}, attrs));
    return;
  }
  // range(0, n, 1) with a symbolic n: the exclusive running sum of n ones.
  auto lim = n.sym(1);
  const bool zero_start = start && data_as_doubles(*start).at(0) == 0.0;
  const bool unit_step = delta && data_as_doubles(*delta).at(0) == 1.0;
  if (!lim || lim->size() != 1 || !(*lim)[0].is_single_dim() || !zero_start || !unit_step)
    n.fail(
        "start, limit and delta must be known at import time (or start 0, delta 1 and limit a symbolic size), but they "
        "are computed from run-time data" + std::string(kRunTimeDataHint));
  Value* ones = n.im().filled({(*lim)[0]}, 1.0, dtype, n.hint());
  n.set_output(0, n.emit("cumsum", {ones}, attrs_of({{"dim", int64_t{0}}, {"exclusive", true}})));
}

void gather_or_take(NodeContext& n) {
  if (gather_shape_value(n)) return;
  n.set_output(0, n.emit("take", {n.value(0), n.value(1)}, attrs_of({{"dim", n.attr_int("axis", 0)}})));
}

}  // namespace

void register_shape_handlers(HandlerTable& t) {
  t["Shape"] = shape;
  t["Size"] = size;
  t["Gather"] = gather_or_take;
  t["Reshape"] = reshape;
  t["Flatten"] = flatten;
  t["Squeeze"] = squeeze;
  t["Unsqueeze"] = unsqueeze;
  t["Transpose"] = transpose;
  t["Expand"] = expand;
  t["Tile"] = tile;
  t["Pad"] = pad;
  t["Trilu"] = trilu;
  t["Concat"] = concat;
  t["Split"] = split;
  t["Slice"] = slice;
  t["ConstantOfShape"] = constant_of_shape;
  t["Range"] = range;
}

}  // namespace edgec::onnx_import

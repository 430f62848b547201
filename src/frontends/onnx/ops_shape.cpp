// Shape and data-movement ONNX operators (DepthToSpace and SpaceToDepth
// are a reshape, a permute and a reshape). The exporter computes reshape and
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

std::string list_str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

/// `axis` (named by `what`: "attribute 'axis'") of a tensor of rank
/// `rank`, in [0, rank); `of` names that tensor ("input 0 'input' (f32[2, 3])").
int64_t wrap_axis(NodeContext& n, int64_t axis, int64_t rank, const std::string& what, const std::string& of) {
  const int64_t w = axis < 0 ? axis + rank : axis;
  if (w < 0 || w >= rank)
    n.fail(what + " is " + std::to_string(axis) + "; expected an axis in [" + std::to_string(-rank) + ", " +
           std::to_string(rank - 1) + "] for " + of + ", of rank " + std::to_string(rank));
  return w;
}

/// Axes (input `i`, `what`) of a tensor of rank `rank`, wrapped to
/// [0, rank) and distinct.
std::vector<int64_t> wrap_axes(NodeContext& n, const std::vector<int64_t>& axes, int64_t rank, size_t i,
                               const std::string& what, const std::string& of) {
  std::vector<int64_t> out;
  for (int64_t a : axes) {
    const int64_t w =
        wrap_axis(n, a, rank, what + ", " + n.operand(i) + ", holds " + list_str(axes) + ", whose entry", of);
    if (std::find(out.begin(), out.end(), w) != out.end())
      n.fail(what + ", " + n.operand(i) + ", is " + list_str(axes) + "; expected distinct axes, got axis " +
             std::to_string(w) + " twice");
    out.push_back(w);
  }
  return out;
}

/// A shape (`what`, input i) as the importer builds tensors of it: at most
/// kMaxRank sizes, each >= 0 (or, with `minus_one`, -1), static or one dim
/// of some tensor.
void check_target(NodeContext& n, size_t i, const std::string& what, const std::vector<SymInt>& dims, bool minus_one) {
  if (dims.size() > static_cast<size_t>(kMaxRank))
    n.fail(what + ", " + n.operand(i) + ", has " + std::to_string(dims.size()) + " sizes; edgec supports ranks up to " +
           std::to_string(kMaxRank));
  for (const SymInt& d : dims) {
    if (d.is_static() && d.factor < 0 && !(minus_one && d.factor == -1))
      n.fail(what + ", " + n.operand(i) + ", is " + sym_list(dims) + "; expected sizes >= 0" +
             (minus_one ? " (or one -1)" : "") + ", got " + d.str());
    if (!minus_one && !d.is_static() && !d.is_single_dim())
      n.fail(what + ", " + n.operand(i) + ", is " + sym_list(dims) + ", with the computed size " + d.str() +
             "; expected static sizes or sizes that are a dim of some tensor" + n.im().dim_fix(d.parts[0].dim));
  }
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

/// The value whose dims a symbolic size of input 0 refers to (materialized,
/// so that the size can be built at run time from it); null when static.
Value* dim_source(NodeContext& n) { return n.type(0).is_static() ? nullptr : n.value(0); }

void shape(NodeContext& n) {
  const TensorType x = n.type(0);
  Value* source = dim_source(n);
  const int64_t rank = x.rank();
  auto clamp_index = [&](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + rank : i, 0, rank); };
  const int64_t start = clamp_index(n.attr_int("start", 0));
  const int64_t end = clamp_index(n.attr_int("end", rank));
  std::vector<SymInt> dims;
  for (int64_t i = start; i < end; ++i) dims.push_back(SymInt::of_dim(x.dims[i], source, static_cast<int>(i)));
  n.set_sym_output(0, std::move(dims), false);
}

void size(NodeContext& n) {
  const TensorType x = n.type(0);
  const auto numel = sym_numel(x, dim_source(n), 0, x.dims.size());
  if (!numel) n.fail(n.typed_operand(0) + " has more elements than an int64 holds; expected a size that fits");
  n.set_sym_output(0, {*numel}, true);
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
      n.fail(n.operand(1) + " holds the index " + std::to_string(i) + "; expected an index in [" +
             std::to_string(-len) + ", " + std::to_string(len - 1) + "] for " + n.operand(0) + ", of " +
             std::to_string(len) + " elements");
    picked.push_back(elems[w]);
  }
  n.set_sym_output(0, std::move(picked), idx->type.rank() == 0, n.type(0).dtype);
  return true;
}

// ---- Reshape, Flatten, Squeeze, Unsqueeze -------------------------------------------

void reshape(NodeContext& n) {
  auto target = n.sym(1);
  if (!target) n.fail_not_known(1, "the target shape");
  check_target(n, 1, "the target shape", *target, true);
  const bool allowzero = n.attr_int("allowzero", 0) != 0;
  Value* x = n.value(0);
  const TensorType& xt = x->type();
  std::vector<std::optional<SymInt>> dims;  // nullopt: -1
  int minus_one = -1;
  for (size_t i = 0; i < target->size(); ++i) {
    const SymInt& s = (*target)[i];
    if (s.is_static() && s.factor == -1) {
      if (minus_one >= 0)
        n.fail("the target shape, " + n.operand(1) + ", is " + sym_list(*target) + "; expected at most one -1");
      minus_one = static_cast<int>(i);
      dims.push_back(std::nullopt);
    } else if (s.is_static() && s.factor == 0 && !allowzero) {
      if (static_cast<int64_t>(i) >= xt.rank())
        n.fail("the target shape, " + n.operand(1) + ", is " + sym_list(*target) + ", whose 0 at index " +
               std::to_string(i) + " copies a dim " + n.typed_operand(0) +
               " does not have (attribute 'allowzero' is 0)");
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
      if (auto numel = sym_numel(xt, x, 0, xt.dims.size()))
        if (auto q = sym_div(*numel, known)) dims[minus_one] = *q;
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
    Dims parts;
    for (size_t i = 0; i < dims.size(); ++i) {
      list += (i ? ", " : "") + (dims[i] ? dims[i]->str() : std::string("-1"));
      if (dims[i])
        for (const SymPart& p : dims[i]->parts) parts.push_back(p.dim);
    }
    n.fail("cannot reshape " + n.typed_operand(0) + " to " + list + "], the target shape, " + n.operand(1) +
           ": more than one size is symbolic or inferred, and a reshape can leave only one size to run time" +
           n.im().dim_fix(parts));
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
    n.fail("attribute 'axis' is " + std::to_string(n.attr_int("axis", 1)) + "; expected an axis in [" +
           std::to_string(-rank) + ", " + std::to_string(rank) + "] for " + n.typed_operand(0));
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

/// Squeeze's and Unsqueeze's axes (an input from opset 13), wrapped for a
/// tensor of rank `rank`.
std::optional<std::vector<int64_t>> axes_of(NodeContext& n, int64_t rank) {
  if (!n.input(1)) return std::nullopt;
  return wrap_axes(n, n.ints(1, "the axes"), rank, 1, "the axes",
                   rank == n.type(0).rank() ? n.typed_operand(0) : "the result");
}

void squeeze(NodeContext& n) {
  Entry& x = n.required(0);
  const auto axes = axes_of(n, x.type.rank());
  // A squeezed dim of another size than 1 is refused by the operator
  // table's squeeze (models/fixtures/manifest.json pins that message for
  // the invalid fixture).
  if (x.sym && x.type.rank() == 1 && x.sym->size() == 1 && (!axes || (axes->size() == 1 && (*axes)[0] == 0))) {
    n.set_sym_output(0, *x.sym, true, x.type.dtype);
    return;
  }
  Attrs attrs;
  if (axes) attrs.set("dims", *axes);
  n.set_output(0, n.emit("squeeze", {n.value(0)}, attrs));
}

void unsqueeze(NodeContext& n) {
  Entry& x = n.required(0);
  const int64_t added = n.input(1) ? n.type(1).max_numel().value_or(0) : 0;
  if (x.type.rank() + added > kMaxRank)
    n.fail("the axes, " + n.operand(1) + ", add " + std::to_string(added) + " dims to " + n.typed_operand(0) +
           "; edgec supports ranks up to " + std::to_string(kMaxRank));
  const auto axes = axes_of(n, x.type.rank() + added);
  if (x.sym && x.type.rank() == 0 && axes->size() == 1 && (*axes)[0] == 0) {
    n.set_sym_output(0, *x.sym, false, x.type.dtype);
    return;
  }
  n.set_output(0, n.emit("unsqueeze", {n.value(0)}, attrs_of({{"dims", *axes}})));
}

// ---- Transpose, Expand, Tile, Pad, Trilu --------------------------------------------

void transpose(NodeContext& n) {
  Value* x = n.value(0);
  const int64_t rank = x->type().rank();
  std::vector<int64_t> perm(static_cast<size_t>(rank));
  std::iota(perm.rbegin(), perm.rend(), 0);
  if (auto p = n.attr_ints("perm")) perm = *p;
  std::vector<bool> seen(static_cast<size_t>(rank));
  bool valid = static_cast<int64_t>(perm.size()) == rank;
  for (size_t i = 0; valid && i < perm.size(); ++i) {
    valid = perm[i] >= 0 && perm[i] < rank && !seen[perm[i]];
    if (valid) seen[perm[i]] = true;
  }
  if (!valid)
    n.fail("attribute 'perm' is " + list_str(perm) + "; expected a permutation of 0.." + std::to_string(rank - 1) +
           " (each axis of " + n.typed_operand(0) + " once)");
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
  if (!target) n.fail_not_known(1, "the target shape");
  check_target(n, 1, "the target shape", *target, false);
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
  const std::vector<int64_t> repeats = n.ints(1, "the repeats");
  const int64_t rank = n.type(0).rank();
  if (static_cast<int64_t>(repeats.size()) != rank)
    n.fail("the repeats, " + n.operand(1) + ", are " + list_str(repeats) + "; expected " + std::to_string(rank) +
           " (one per dim of " + n.typed_operand(0) + ")");
  for (int64_t r : repeats)
    if (r < 0) n.fail("the repeats, " + n.operand(1) + ", are " + list_str(repeats) + "; expected repeats >= 0");
  n.set_output(0, n.emit("tile", {n.value(0)}, attrs_of({{"repeats", repeats}})));
}

void pad(NodeContext& n) {
  const std::string mode = n.attr_string("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    n.fail("attribute 'mode' is '" + mode + "'; expected constant, reflect or edge");
  std::vector<int64_t> pads = n.ints(1, "the pads");
  const int64_t rank = n.type(0).rank();
  if (n.input(3)) {
    // Opset 18: the pads are for the axes given (begins, then ends); the
    // other dims are not padded.
    const auto axes = wrap_axes(n, n.ints(3, "the axes"), rank, 3, "the axes", n.typed_operand(0));
    if (pads.size() != 2 * axes.size())
      n.fail("the pads, " + n.operand(1) + ", are " + list_str(pads) + "; expected " +
             std::to_string(2 * axes.size()) + " (begins, then ends, for each of the axes " + list_str(axes) + ")");
    std::vector<int64_t> full(static_cast<size_t>(2 * rank), 0);
    for (size_t i = 0; i < axes.size(); ++i) {
      full[static_cast<size_t>(axes[i])] = pads[i];
      full[static_cast<size_t>(rank + axes[i])] = pads[axes.size() + i];
    }
    pads = std::move(full);
  }
  if (static_cast<int64_t>(pads.size()) != 2 * rank)
    n.fail("the pads, " + n.operand(1) + ", are " + list_str(pads) + "; expected " + std::to_string(2 * rank) +
           " (begins, then ends, for each dim of " + n.typed_operand(0) + ")");
  Attrs attrs = attrs_of({{"pads", pads}, {"mode", mode}});
  if (n.input(2)) {
    const TensorData* v = n.data(2);
    if (!v) n.fail_not_known(2, "the pad value");
    if (v->type.max_numel() != 1)
      n.fail("the pad value, " + n.operand(2) + ", is " + v->type.str() + "; expected one value");
    attrs.set("value", data_as_doubles(*v)[0]);
  }
  // No padding at all is the input itself (torch exports its avg_pool as a
  // pad by zeros then AveragePool: DenseNet's transitions), in every mode;
  // the operands are checked first, as for any Pad.
  if (std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; })) {
    n.forward(0, 0);
    return;
  }
  n.set_output(0, n.emit("pad", {n.value(0)}, attrs));
}

void trilu(NodeContext& n) {
  int64_t k = 0;
  if (n.input(1)) k = n.int_scalar(1, "k");
  const bool upper = n.attr_int("upper", 1) != 0;
  n.set_output(0, n.emit(upper ? "triu" : "tril", {n.value(0)}, attrs_of({{"diagonal", k}})));
}

// ---- DepthToSpace, SpaceToDepth ------------------------------------------------------

/// The largest block size accepted: far from overflowing blocksize^2.
constexpr int64_t kMaxBlockSize = int64_t{1} << 31;

/// What DepthToSpace and SpaceToDepth read: the input, of rank 4 with at
/// most one size that is not static (the reshapes that move the blocks can
/// leave one size to run time; it becomes their -1), its sizes (-1 for that
/// one) and the block size.
struct BlockOperands {
  Value* x;
  std::vector<int64_t> dims;
  int64_t block;
};

BlockOperands read_block_operands(NodeContext& n) {
  const int64_t block = n.attr_int("blocksize", 0);
  if (block < 1 || block > kMaxBlockSize)
    n.fail("attribute 'blocksize' is " + std::to_string(block) + "; expected a block size in [1, " +
           std::to_string(kMaxBlockSize) + "]");
  Value* x = n.value(0);
  const TensorType& t = x->type();
  if (t.rank() != 4)
    n.fail(n.typed_operand(0) + " has rank " + std::to_string(t.rank()) + "; expected rank 4 (N, C, H, W)");
  std::vector<int64_t> dims;
  Dims symbolic;
  for (const Dim& d : t.dims) {
    dims.push_back(d.is_static() ? d.value : -1);
    if (!d.is_static()) symbolic.push_back(d);
  }
  if (symbolic.size() > 1)
    n.fail(n.typed_operand(0) + " has " + std::to_string(symbolic.size()) +
           " sizes that are not static; expected at most one (the blocks are moved by reshapes, which leave one "
           "size to run time)" +
           n.im().dim_fix(symbolic));
  return {x, std::move(dims), block};
}

/// `size` (-1: the run-time one) times `factor`, or divided by it.
int64_t scaled(int64_t size, int64_t factor) { return size < 0 ? -1 : size * factor; }
int64_t divided(int64_t size, int64_t divisor) { return size < 0 ? -1 : size / divisor; }

// DepthToSpace: [N, C, H, W] -> [N, C / b^2, H b, W b]. Mode DCR (the
// default) reads the channels as [b, b, C / b^2], CRD as [C / b^2, b, b].
void depth_to_space(NodeContext& n) {
  const auto [x, d, b] = read_block_operands(n);
  const std::string mode = n.attr_string("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") n.fail("attribute 'mode' is '" + mode + "'; expected DCR or CRD");
  if (d[1] >= 0 && d[1] % (b * b) != 0)
    n.fail(n.typed_operand(0) + " has " + std::to_string(d[1]) + " channels; expected a multiple of " +
           std::to_string(b * b) + " (attribute 'blocksize' " + std::to_string(b) + ", squared)");
  Importer& im = n.im();
  const int64_t c = divided(d[1], b * b);
  const bool dcr = mode == "DCR";
  const std::vector<int64_t> split =
      dcr ? std::vector<int64_t>{d[0], b, b, c, d[2], d[3]} : std::vector<int64_t>{d[0], c, b, b, d[2], d[3]};
  Value* y = im.emit("reshape", {x}, attrs_of({{"shape", split}}), n.hint() + "_blocks");
  y = im.permute(y, dcr ? std::vector<int64_t>{0, 3, 4, 1, 5, 2} : std::vector<int64_t>{0, 1, 4, 2, 5, 3},
                 n.hint() + "_moved");
  n.set_output(0, n.emit("reshape", {y}, attrs_of({{"shape", std::vector<int64_t>{d[0], c, scaled(d[2], b),
                                                                                   scaled(d[3], b)}}})));
}

// SpaceToDepth: [N, C, H, W] -> [N, C b^2, H / b, W / b], the channels
// read as [b, b, C] (DepthToSpace's DCR, inverted).
void space_to_depth(NodeContext& n) {
  const auto [x, d, b] = read_block_operands(n);
  for (int i = 2; i < 4; ++i)
    if (d[i] >= 0 && d[i] % b != 0)
      n.fail(n.typed_operand(0) + " has the spatial size " + std::to_string(d[i]) + " in dim " + std::to_string(i) +
             "; expected a multiple of attribute 'blocksize', " + std::to_string(b));
  Importer& im = n.im();
  const std::vector<int64_t> split = {d[0], d[1], divided(d[2], b), b, divided(d[3], b), b};
  Value* y = im.emit("reshape", {x}, attrs_of({{"shape", split}}), n.hint() + "_blocks");
  y = im.permute(y, {0, 3, 5, 1, 2, 4}, n.hint() + "_moved");
  n.set_output(0, n.emit("reshape", {y}, attrs_of({{"shape", std::vector<int64_t>{d[0], scaled(d[1], b * b),
                                                                                   divided(d[2], b),
                                                                                   divided(d[3], b)}}})));
}

// ---- Concat, Split, Slice -------------------------------------------------------------

void concat(NodeContext& n) {
  const int64_t axis = n.attr_int("axis", 0);
  const int64_t rank = n.type(0).rank();
  if (rank == 0) n.fail(n.typed_operand(0) + " is a scalar; expected tensors of rank >= 1");
  wrap_axis(n, axis, rank, "attribute 'axis'", n.typed_operand(0));
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

// From opset 13 the sizes are input 1 ('split'); without it the dim is
// split into one equal part per output.
void split(NodeContext& n) {
  Value* x = n.value(0);
  const TensorType& xt = x->type();
  const int64_t axis = wrap_axis(n, n.attr_int("axis", 0), xt.rank(), "attribute 'axis'", n.typed_operand(0));
  const int64_t parts = static_cast<int64_t>(n.num_outputs());
  if (parts < 1) internal_error("Split without outputs passed the schema check");
  const Dim& d = xt.dims[axis];
  std::vector<int64_t> sizes;
  if (n.input(1)) {
    sizes = n.ints(1, "the split sizes");
    if (static_cast<int64_t>(sizes.size()) != parts)
      n.fail("the split sizes, " + n.operand(1) + ", are " + list_str(sizes) + "; expected " + std::to_string(parts) +
             " (one per output)");
    int64_t sum = 0;
    for (int64_t s : sizes) {
      if (s < 0 || __builtin_add_overflow(sum, s, &sum))
        n.fail("the split sizes, " + n.operand(1) + ", are " + list_str(sizes) + "; expected sizes >= 0");
    }
    if (d.is_static() && sum != d.value)
      n.fail("the split sizes, " + n.operand(1) + ", are " + list_str(sizes) + ", summing to " + std::to_string(sum) +
             "; expected them to sum to dim " + std::to_string(axis) + " of " + n.typed_operand(0));
  } else if (n.opset() >= 18 && n.attr("num_outputs")) {
    const int64_t num = n.attr_int("num_outputs", parts);
    // Opset 18: num_outputs parts of ceil(size / num_outputs), the last
    // one smaller when the size does not divide.
    if (num != parts)
      n.fail("attribute 'num_outputs' is " + std::to_string(num) + "; expected " + std::to_string(parts) +
             ", the number of outputs");
    if (!d.is_static())
      n.fail("cannot split the symbolic dim " + d.str() + " of " + n.typed_operand(0) + " into " +
             std::to_string(parts) + " parts (num_outputs) of a size known at compile time" + n.im().dim_fix(d));
    const int64_t chunk = (d.value + parts - 1) / parts;
    if (chunk * (parts - 1) >= d.value && parts > 1)
      n.fail("dim " + std::to_string(axis) + " of " + n.typed_operand(0) + " has size " + std::to_string(d.value) +
             ", too small for " + std::to_string(parts) + " parts of " + std::to_string(chunk) +
             " (num_outputs); expected a size above " + std::to_string(chunk * (parts - 1)));
    for (int64_t i = 0; i < parts; ++i) sizes.push_back(std::min(chunk, d.value - i * chunk));
  } else {
    if (!d.is_static())
      n.fail("cannot split the symbolic dim " + d.str() + " of " + n.typed_operand(0) + " into " +
             std::to_string(parts) + " equal parts (no input 1 'split' gives the sizes)" + n.im().dim_fix(d));
    if (d.value % parts != 0)
      n.fail("dim " + std::to_string(axis) + " of " + n.typed_operand(0) + " has size " + std::to_string(d.value) +
             "; expected a multiple of " + std::to_string(parts) + ", to split it into one equal part per output " +
             "(or input 1 'split' giving the sizes)");
    sizes.assign(static_cast<size_t>(parts), d.value / parts);
  }
  auto outs = n.im().emit_n("split", {x}, attrs_of({{"dim", axis}, {"sizes", sizes}}), n.hint());
  for (size_t i = 0; i < outs.size(); ++i) n.set_output(i, outs[i]);
}

/// ONNX Slice of a static length: the picked indices.
std::vector<int64_t> slice_indices(int64_t len, int64_t start, int64_t end, int64_t step) {
  if (len == 0) return {};
  if (start < 0) start += len;
  if (end < 0) end += len;
  std::vector<int64_t> out;
  // Stepping stops on overflow (a step of INT64_MAX picks one element).
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, len);
    end = std::clamp<int64_t>(end, 0, len);
    for (int64_t i = start; i < end;) {
      out.push_back(i);
      if (__builtin_add_overflow(i, step, &i)) break;
    }
  } else {
    start = std::clamp<int64_t>(start, 0, len - 1);
    end = std::clamp<int64_t>(end, -1, len - 1);
    for (int64_t i = start; i > end;) {
      out.push_back(i);
      if (__builtin_add_overflow(i, step, &i)) break;
    }
  }
  return out;
}

void slice(NodeContext& n) {
  const std::vector<int64_t> starts = n.ints(1, "the starts");
  const std::vector<int64_t> ends = n.ints(2, "the ends");
  std::vector<int64_t> axes(starts.size());
  std::iota(axes.begin(), axes.end(), 0);
  if (n.input(3)) axes = n.ints(3, "the axes");
  std::vector<int64_t> steps(starts.size(), 1);
  if (n.input(4)) steps = n.ints(4, "the steps");
  const std::vector<int64_t>* lists[] = {&starts, &ends, &axes, &steps};
  for (size_t i = 1; i < 4; ++i)
    if (lists[i]->size() != starts.size())
      n.fail(n.operand(i + 1) + " is " + list_str(*lists[i]) + "; expected as many entries as " + n.operand(1) +
             ", which is " + list_str(starts));
  axes = wrap_axes(n, axes, n.type(0).rank(), 3, "the axes", n.typed_operand(0));
  for (int64_t s : steps)
    if (s == 0) n.fail("the steps, " + n.operand(4) + ", are " + list_str(steps) + "; expected nonzero steps");
  if (is_shape_value(n, 0, 1024) && n.type(0).rank() == 1 && starts.size() == 1 && axes[0] == 0) {
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
  if (!dims) n.fail_not_known(0, "the shape");
  check_target(n, 0, "the shape", *dims, false);
  double value = 0.0;
  DType dtype = DType::Float32;
  if (const auto* a = n.attr("value")) {
    const TensorData t = tensor_from_proto(a->t(), "attribute 'value'");
    if (t.type.max_numel().value_or(0) != 1) n.fail("attribute 'value' is " + t.type.str() + "; expected one value");
    dtype = t.type.dtype;
    value = data_as_doubles(t)[0];
  }
  n.set_output(0, n.im().filled(*dims, value, dtype, n.hint()));
}

void range(NodeContext& n) {
  const DType dtype = n.type(0).dtype;  // the three's (one type variable in the schema)
  for (size_t i = 0; i < 3; ++i)
    if (n.type(i).max_numel() != 1) n.fail(n.typed_operand(i) + " is not a scalar; expected one value");
  const TensorData* start = n.data(0);
  const TensorData* limit = n.data(1);
  const TensorData* delta = n.data(2);
  if (delta && data_as_doubles(*delta)[0] == 0.0) n.fail(n.operand(2) + " is 0; expected a nonzero step");
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
  if (!lim || lim->size() != 1 || !(*lim)[0].is_single_dim() || !zero_start || !unit_step) {
    // The first input that is not known names where it comes from.
    const size_t unknown = !start ? 0 : !limit ? 1 : 2;
    const char* names[] = {"the start", "the limit", "the delta"};
    n.fail_not_known(unknown, names[unknown],
                     " (Range needs start, limit and delta known, or a start of 0, a delta of 1 and a limit that is a "
                     "dim of some tensor)");
  }
  Value* ones = n.im().filled({(*lim)[0]}, 1.0, dtype, n.hint());
  n.set_output(0, n.emit("cumsum", {ones}, attrs_of({{"dim", int64_t{0}}, {"exclusive", true}})));
}

void gather_or_take(NodeContext& n) {
  const int64_t rank = n.type(0).rank();
  if (rank == 0) n.fail(n.typed_operand(0) + " is a scalar; expected a tensor of rank >= 1");
  const int64_t axis = wrap_axis(n, n.attr_int("axis", 0), rank, "attribute 'axis'", n.typed_operand(0));
  if (gather_shape_value(n)) return;
  if (const TensorData* idx = n.data(1); idx && n.type(0).dims[axis].is_static()) {
    const int64_t len = n.type(0).dims[axis].value;
    for (int64_t i : data_as_ints(*idx))
      if (i < -len || i >= len)
        n.fail(n.operand(1) + " holds the index " + std::to_string(i) + "; expected indices in [" +
               std::to_string(-len) + ", " + std::to_string(len - 1) + "] for axis " + std::to_string(axis) + " of " +
               n.typed_operand(0));
  }
  n.set_output(0, n.emit("take", {n.value(0), n.value(1)}, attrs_of({{"dim", axis}})));
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
  t["DepthToSpace"] = depth_to_space;
  t["SpaceToDepth"] = space_to_depth;
  t["Concat"] = concat;
  t["Split"] = split;
  t["Slice"] = slice;
  t["ConstantOfShape"] = constant_of_shape;
  t["Range"] = range;
}

}  // namespace edgec::onnx_import

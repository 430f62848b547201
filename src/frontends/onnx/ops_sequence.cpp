// Sequence operators: SequenceEmpty, SequenceConstruct, SequenceInsert,
// SequenceErase, SequenceAt, SequenceLength, SplitToSequence and
// ConcatFromSequence.
//
// edgec's IR has no sequence type, and gets none for these: a sequence is
// an import-time object (Sequence in context.h), a list of ordinary tensor
// values whose number the graph's structure fixes (SequenceConstruct's
// inputs, SplitToSequence's part count, one more per insert, one fewer per
// erase). A position known at import time picks elements with no calls. A
// position computed at run time (a graph input, or an initializer that is
// also a graph input, which is a parameter and never folded; see
// docs/semantics.md §1) is lowered to tensor calls on the elements stacked
// on a new dim 0, which needs every element to have one type: SequenceAt is
// a take at the position, SequenceInsert and SequenceErase take the
// elements in their new order at indices computed from the position.
//
// Elements of different shapes cannot be stacked, so they are tracked by
// identity instead (Sequence::ids and pool): the distinct tensors form a
// pool, and the same take-based reordering runs on the stacked i64 ids of
// the elements (one shape, whatever the elements'), so that the sequence's
// order is a run-time vector of pool indices. An element is then `pick(id,
// pool...)`, one of the pool's tensors chosen at run time, whose dims are
// data-dependent where the pool's differ (bounded by the largest; see
// src/ops/indexing_ops.cpp). The pool's tensors must share a rank. Once a
// sequence tracks ids, later positions, even import-time ones, keep them
// up to date by the same calls.
//
// ONNX makes a position out of range an error. A run-time one is checked
// at run time: SequenceAt's take refuses an index out of range, and
// SequenceInsert and SequenceErase turn an out-of-range position into an
// out-of-range index of their take, so that `execute` returns an error
// (the runtime does not throw). Erasing from a sequence of one element
// leaves no element to take, so there its position is not checked.
#include <algorithm>

#include "frontends/onnx/context.h"

namespace edgec::onnx_import {
namespace {

std::string list_str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

/// Input i, which must be a sequence (the schema check allows only one).
const Sequence& seq_input(NodeContext& n, size_t i) {
  const Entry& e = n.required(i);
  if (!e.seq) internal_error("input " + std::to_string(i) + " of " + n.proto().op_type() + " is not a sequence");
  return *e.seq;
}

/// The elements of input i, which must be readable.
const std::vector<Value*>& elements_of(NodeContext& n, size_t i) {
  const Sequence& s = seq_input(n, i);
  if (!s.unavailable.empty()) n.fail("the elements of " + n.typed_operand(i) + " are not known: " + s.unavailable);
  return s.elements;
}

void set_seq_output(NodeContext& n, Sequence s) {
  if (static_cast<int64_t>(s.elements.size()) != s.count && s.unavailable.empty())
    internal_error("a sequence of " + std::to_string(s.count) + " elements holds " +
                   std::to_string(s.elements.size()));
  Entry e;
  e.type = TensorType(s.dtype, {});
  e.seq = std::make_shared<const Sequence>(std::move(s));
  n.set_output(0, std::move(e));
}

/// The position input i as an int64 known at import time, or nullopt when
/// it is computed at run time. It must hold one value.
std::optional<int64_t> const_position(NodeContext& n, size_t i) {
  if (n.type(i).max_numel() != 1)
    n.fail(n.typed_operand(i) + " is not a scalar; expected one position (a scalar tensor)");
  if (const TensorData* d = n.data(i)) return data_as_ints(*d).at(0);
  return std::nullopt;
}

/// A position known at import time, checked against ONNX's range for it
/// ([-count, count - 1], or [-count, count] for an insert) and made >= 0.
int64_t wrap_position(NodeContext& n, size_t i, int64_t pos, int64_t count, bool insert) {
  const int64_t hi = insert ? count : count - 1;
  if (pos < -count || pos > hi)
    n.fail(n.operand(i) + " is " + std::to_string(pos) + "; expected a position in [" + std::to_string(-count) + ", " +
           std::to_string(hi) + "] for " + n.typed_operand(0));
  return pos < 0 ? pos + count : pos;
}

/// Whether an operation on `elems` at the run-time position input
/// `pos_input` goes through element ids (the sequence tracks them, or the
/// elements differ in shape) rather than the elements stacked. A pick's
/// result has one rank, so the elements must share theirs.
bool tracks_ids(NodeContext& n, const Sequence& s, const std::vector<Value*>& elems, size_t pos_input) {
  if (elems.empty())
    n.fail(n.typed_operand(0) + " is empty, so no position " + n.operand(pos_input) + " is in range");
  bool differ = false;
  for (size_t i = 0; i < elems.size(); ++i) {
    const TensorType& t = elems[i]->type();
    if (t.rank() != elems[0]->type().rank())
      n.fail_not_known(pos_input, "the position",
                       " (the elements differ in rank: element 0 is " + elems[0]->type().str() + ", element " +
                           std::to_string(i) + " " + t.str() + ", so the result's rank would depend on the position)");
    differ = differ || t != elems[0]->type();
  }
  return s.ids || differ;
}

/// The elements `elems`, all of one type, stacked on a new dim 0.
Value* stack_for_run_time(NodeContext& n, const std::vector<Value*>& elems, const Sequence& s) {
  if (s.stacked && elems.size() == s.elements.size() && std::equal(elems.begin(), elems.end(), s.elements.begin()))
    return s.stacked;
  std::vector<Value*> rows;
  for (Value* v : elems) rows.push_back(n.emit("unsqueeze", {v}, attrs_of({{"dims", std::vector<int64_t>{0}}})));
  return n.im().emit_n("concat", rows, attrs_of({{"dim", int64_t{0}}}), n.hint(),
                       {OperandGroup{true, static_cast<int>(rows.size())}})[0];
}

/// The run-time position input i as an int64 scalar.
Value* position_value(NodeContext& n, size_t i) {
  Value* p = n.value(i);
  if (p->type().rank() != 0) p = n.emit("reshape", {p}, attrs_of({{"shape", std::vector<int64_t>{}}}));
  if (p->type().dtype != DType::Int64) p = n.emit("cast", {p}, attrs_of({{"dtype", DType::Int64}}));
  return p;
}

Value* i64(NodeContext& n, int64_t v) { return n.im().full({}, static_cast<double>(v), DType::Int64, n.hint()); }

/// The pool's tensor at the run-time i64 scalar `id`.
Value* pick(NodeContext& n, Value* id, const std::vector<Value*>& pool) {
  std::vector<Value*> ins = {id};
  ins.insert(ins.end(), pool.begin(), pool.end());
  return n.im().emit_n("pick", ins, {}, n.hint(),
                       {OperandGroup{false, 1}, OperandGroup{true, static_cast<int>(pool.size())}})[0];
}

/// The index of `v` in `pool`, appending it when absent.
int64_t pool_index(std::vector<Value*>& pool, Value* v) {
  auto it = std::find(pool.begin(), pool.end(), v);
  if (it == pool.end()) it = pool.insert(pool.end(), v);
  return it - pool.begin();
}

/// The ids of `elems` followed by those of `more`, stacked (i64 [count]),
/// and the pool they index: the sequence's own when it tracks ids, else one
/// made from its elements (constants, which fold).
std::pair<Value*, std::vector<Value*>> stacked_ids(NodeContext& n, const Sequence& s,
                                                   const std::vector<Value*>& elems,
                                                   const std::vector<Value*>& more) {
  std::vector<Value*> pool = s.pool;
  std::vector<Value*> parts;
  if (s.ids) parts.push_back(s.ids);
  std::vector<Value*> fresh = s.ids ? more : elems;
  if (!s.ids) fresh.insert(fresh.end(), more.begin(), more.end());
  for (Value* v : fresh)
    parts.push_back(n.im().full({1}, static_cast<double>(pool_index(pool, v)), DType::Int64, n.hint()));
  Value* ids = parts.size() == 1 ? parts[0]
                                 : n.im().emit_n("concat", parts, attrs_of({{"dim", int64_t{0}}}), n.hint(),
                                                 {OperandGroup{true, static_cast<int>(parts.size())}})[0];
  return {ids, pool};
}

/// Rows of `stacked` at `index` (int64 [count]), split into a sequence's
/// elements; `bad` (a bool scalar) replaces every index by `bad_index`, out
/// of range of `stacked`, so that the take fails at run time.
Sequence take_rows(NodeContext& n, DType dtype, Value* stacked, Value* index, Value* bad, int64_t bad_index) {
  index = n.emit("where", {bad, i64(n, bad_index), index});
  Sequence out;
  out.dtype = dtype;
  out.stacked = n.emit("take", {stacked, index}, attrs_of({{"dim", int64_t{0}}}));
  out.count = out.stacked->type().dims[0].value;
  for (int64_t i = 0; i < out.count; ++i)
    out.elements.push_back(n.emit("select", {out.stacked}, attrs_of({{"dim", int64_t{0}}, {"index", i}})));
  return out;
}

/// take_rows on stacked element ids: a sequence of `dtype` elements that
/// tracks them, each element the pick of its id.
Sequence take_ids(NodeContext& n, DType dtype, Value* ids, std::vector<Value*> pool, Value* index, Value* bad,
                  int64_t bad_index) {
  Sequence out = take_rows(n, DType::Int64, ids, index, bad, bad_index);
  out.dtype = dtype;
  out.ids = out.stacked;
  out.stacked = nullptr;
  out.pool = std::move(pool);
  for (Value*& e : out.elements) e = pick(n, e, out.pool);
  return out;
}

/// pos + count where pos < 0, and whether the result is outside [0, hi].
std::pair<Value*, Value*> normalize_position(NodeContext& n, Value* pos, int64_t count, int64_t hi) {
  Value* negative = n.emit("lt", {pos, i64(n, 0)});
  Value* q = n.emit("where", {negative, n.emit("add", {pos, i64(n, count)}), pos});
  Value* bad = n.emit("logical_or", {n.emit("lt", {q, i64(n, 0)}), n.emit("gt", {q, i64(n, hi)})});
  return {q, bad};
}

Value* arange(NodeContext& n, int64_t count) {
  return n.emit("arange", {}, attrs_of({{"start", int64_t{0}}, {"end", count}, {"step", int64_t{1}}, {"dtype", DType::Int64}}));
}

// ---- the operators ---------------------------------------------------------------

void sequence_empty(NodeContext& n) {
  Sequence s;
  const int64_t elem = n.attr_int("dtype", onnx::TensorProto::FLOAT);
  const auto dtype = dtype_from_onnx(static_cast<int32_t>(elem));
  if (!dtype)
    n.fail("attribute 'dtype' is " + onnx_type_name(static_cast<int32_t>(elem)) +
           ", which edgec does not support as an element type");
  s.dtype = *dtype;
  set_seq_output(n, std::move(s));
}

void sequence_construct(NodeContext& n) {
  Sequence s;
  s.dtype = n.type(0).dtype;  // the schema check made every input's type the same
  for (size_t i = 0; i < n.num_inputs(); ++i) s.elements.push_back(n.value(i));
  s.count = static_cast<int64_t>(s.elements.size());
  set_seq_output(n, std::move(s));
}

void sequence_length(NodeContext& n) {
  n.set_sym_output(0, {SymInt::constant(seq_input(n, 0).count)}, /*scalar=*/true);
}

void sequence_at(NodeContext& n) {
  const Sequence& s = seq_input(n, 0);
  const auto& elems = elements_of(n, 0);
  if (auto pos = const_position(n, 1)) {
    n.set_output(0, elems[static_cast<size_t>(wrap_position(n, 1, *pos, s.count, false))]);
    return;
  }
  // take wraps a negative index and fails on one out of range, as ONNX asks.
  if (tracks_ids(n, s, elems, 1)) {
    auto [ids, pool] = stacked_ids(n, s, elems, {});
    n.set_output(0, pick(n, n.emit("take", {ids, position_value(n, 1)}, attrs_of({{"dim", int64_t{0}}})), pool));
    return;
  }
  Value* stacked = stack_for_run_time(n, elems, s);
  n.set_output(0, n.emit("take", {stacked, position_value(n, 1)}, attrs_of({{"dim", int64_t{0}}})));
}

void sequence_insert(NodeContext& n) {
  const Sequence& s = seq_input(n, 0);
  const auto& elems = elements_of(n, 0);
  Value* t = n.value(1);
  if (t->type().dtype != s.dtype)
    n.fail(n.typed_operand(1) + " has another element type than " + n.typed_operand(0) +
           ", whose elements are " + std::string(dtype_name(s.dtype)) + "; expected the same");
  std::optional<int64_t> pos = n.input(2) ? const_position(n, 2) : std::optional<int64_t>(s.count);
  if (pos && !s.ids) {
    Sequence out = s;
    out.stacked = nullptr;
    const int64_t at = wrap_position(n, 2, *pos, s.count, true);
    out.elements.insert(out.elements.begin() + at, t);
    out.count = s.count + 1;
    set_seq_output(n, std::move(out));
    return;
  }
  // Element i of the result is row i of [s..., t] for i < q, row n (t) at
  // q, and row i - 1 after q.
  std::vector<Value*> rows = elems;
  rows.push_back(t);
  const int64_t count = s.count;
  const bool ids = tracks_ids(n, s, rows, 2);
  Value* p = pos ? i64(n, wrap_position(n, 2, *pos, count, true)) : position_value(n, 2);
  auto [q, bad] = normalize_position(n, p, count, count);
  Value* ar = arange(n, count + 1);
  Value* index = n.emit("where", {n.emit("lt", {ar, q}), ar,
                                  n.emit("where", {n.emit("eq", {ar, q}), i64(n, count), n.emit("sub", {ar, i64(n, 1)})})});
  if (ids) {
    auto [stacked, pool] = stacked_ids(n, s, elems, {t});
    set_seq_output(n, take_ids(n, s.dtype, stacked, std::move(pool), index, bad, count + 1));
    return;
  }
  set_seq_output(n, take_rows(n, s.dtype, stack_for_run_time(n, rows, s), index, bad, count + 1));
}

void sequence_erase(NodeContext& n) {
  const Sequence& s = seq_input(n, 0);
  const auto& elems = elements_of(n, 0);
  std::optional<int64_t> pos = n.input(1) ? const_position(n, 1) : std::optional<int64_t>(-1);
  if (pos && !s.ids) {
    Sequence out = s;
    out.stacked = nullptr;
    out.elements.erase(out.elements.begin() + wrap_position(n, 1, *pos, s.count, false));
    out.count = s.count - 1;
    set_seq_output(n, std::move(out));
    return;
  }
  const int64_t count = s.count;
  Value* p = pos ? i64(n, wrap_position(n, 1, *pos, count, false)) : position_value(n, 1);
  if (count == 1) {
    Sequence out;
    out.dtype = s.dtype;
    set_seq_output(n, std::move(out));
    return;
  }
  const bool ids = tracks_ids(n, s, elems, 1);
  // Element i of the result is element i before q, i + 1 from q on.
  auto [q, bad] = normalize_position(n, p, count, count - 1);
  Value* ar = arange(n, count - 1);
  Value* index = n.emit("where", {n.emit("lt", {ar, q}), ar, n.emit("add", {ar, i64(n, 1)})});
  if (ids) {
    auto [stacked, pool] = stacked_ids(n, s, elems, {});
    set_seq_output(n, take_ids(n, s.dtype, stacked, std::move(pool), index, bad, count));
    return;
  }
  set_seq_output(n, take_rows(n, s.dtype, stack_for_run_time(n, elems, s), index, bad, count));
}

// Without 'split', parts of size 1 (keepdims 0 drops the split dim); a
// scalar split gives parts of that size (the last one smaller); a 1-D
// split gives one part per entry, so its length is the count even when
// its values are computed at run time (then the parts' sizes are not
// known, and only SequenceLength can read the sequence).
void split_to_sequence(NodeContext& n) {
  Value* x = n.value(0);
  const TensorType& xt = x->type();
  const int64_t rank = xt.rank();
  int64_t axis = n.attr_int("axis", 0);
  if (rank == 0 || axis < -rank || axis >= rank)
    n.fail("attribute 'axis' is " + std::to_string(axis) + "; expected an axis in [" + std::to_string(-rank) + ", " +
           std::to_string(rank - 1) + "] for " + n.typed_operand(0));
  if (axis < 0) axis += rank;
  const Dim& d = xt.dims[static_cast<size_t>(axis)];
  Sequence s;
  s.dtype = xt.dtype;
  if (n.input(1) && n.type(1).rank() == 1 && !n.data(1)) {
    if (!n.type(1).dims[0].is_static())
      n.fail_not_known(1, "the split sizes", " (their number, the sequence's length, must be known)");
    s.count = n.type(1).dims[0].value;
    s.unavailable = "they are split by the sizes " + n.operand(1) + ", which are computed at run time " +
                    n.im().run_time_sources(n.proto().input(1));
    set_seq_output(n, std::move(s));
    return;
  }
  if (!d.is_static())
    n.fail("cannot split the symbolic dim " + d.str() + " of " + n.typed_operand(0) +
           " into a sequence of a length known at compile time" + n.im().dim_fix(d));
  std::vector<int64_t> sizes;
  if (!n.input(1)) {
    if (n.attr_int("keepdims", 1) == 0) {
      for (int64_t i = 0; i < d.value; ++i)
        s.elements.push_back(n.emit("select", {x}, attrs_of({{"dim", axis}, {"index", i}})));
      s.count = d.value;
      set_seq_output(n, std::move(s));
      return;
    }
    sizes.assign(static_cast<size_t>(d.value), 1);
  } else {
    sizes = n.ints(1, "the split sizes");
    if (n.type(1).rank() == 0) {
      const int64_t chunk = sizes[0];
      if (chunk < 1) n.fail("the split size, " + n.operand(1) + ", is " + std::to_string(chunk) + "; expected >= 1");
      sizes.clear();
      for (int64_t at = 0; at < d.value; at += chunk) sizes.push_back(std::min(chunk, d.value - at));
    }
    int64_t sum = 0;
    for (int64_t v : sizes)
      if (v < 0 || __builtin_add_overflow(sum, v, &sum))
        n.fail("the split sizes, " + n.operand(1) + ", are " + list_str(sizes) + "; expected sizes >= 0");
    if (sum != d.value)
      n.fail("the split sizes, " + n.operand(1) + ", are " + list_str(sizes) + ", summing to " + std::to_string(sum) +
             "; expected them to sum to dim " + std::to_string(axis) + " of " + n.typed_operand(0));
  }
  if (!sizes.empty())
    s.elements = n.im().emit_n("split", {x}, attrs_of({{"dim", axis}, {"sizes", sizes}}), n.hint());
  s.count = static_cast<int64_t>(s.elements.size());
  set_seq_output(n, std::move(s));
}

// new_axis 1 stacks the elements on a new dim at 'axis' (which may then be
// the rank, to stack last).
void concat_from_sequence(NodeContext& n) {
  const auto& elems = elements_of(n, 0);
  if (elems.empty()) n.fail(n.typed_operand(0) + " is empty; expected at least one tensor to concatenate");
  const bool new_axis = n.attr_int("new_axis", 0) != 0;
  const int64_t rank = elems[0]->type().rank() + (new_axis ? 1 : 0);
  int64_t axis = n.attr_int("axis", 0);
  if (axis < -rank || axis >= rank)
    n.fail("attribute 'axis' is " + std::to_string(axis) + "; expected an axis in [" + std::to_string(-rank) + ", " +
           std::to_string(rank - 1) + "] for elements of " + elems[0]->type().str() +
           (new_axis ? " stacked (new_axis 1)" : ""));
  if (axis < 0) axis += rank;
  std::vector<Value*> parts = elems;
  if (new_axis)
    for (Value*& v : parts) v = n.emit("unsqueeze", {v}, attrs_of({{"dims", std::vector<int64_t>{axis}}}));
  n.set_output(0, n.im().emit_n("concat", parts, attrs_of({{"dim", axis}}), n.hint(),
                                {OperandGroup{true, static_cast<int>(parts.size())}})[0]);
}

}  // namespace

void register_sequence_handlers(HandlerTable& t) {
  t["SequenceEmpty"] = sequence_empty;
  t["SequenceConstruct"] = sequence_construct;
  t["SequenceInsert"] = sequence_insert;
  t["SequenceErase"] = sequence_erase;
  t["SequenceAt"] = sequence_at;
  t["SequenceLength"] = sequence_length;
  t["SplitToSequence"] = split_to_sequence;
  t["ConcatFromSequence"] = concat_from_sequence;
}

}  // namespace edgec::onnx_import

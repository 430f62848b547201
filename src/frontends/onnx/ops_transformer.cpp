// ONNX's transformer operators of opset 23, composed of edge operators:
// RotaryEmbedding (the first rotary_embedding_dim channels of each head
// rotated by position, as halves or as interleaved pairs) and Attention
// (scaled dot-product attention with grouped-query heads, a boolean or
// additive mask, a causal mask, softcap and a key/value cache).
//
// Both work on heads in a 4-D layout; a 3-D input (batch, sequence,
// heads * head size) is split into heads by a reshape, which can leave only
// one size to run time, so its batch and sequence may not both be symbolic.
//
// Where the spec leaves room, ONNX Runtime (the tests' reference) decides:
// a masked score gets the lowest finite value of its type, not -inf (a row
// masked everywhere then averages V instead of giving NaN); the causal mask
// is offset by the past length (query s sees keys 0 .. past + s, which is
// the spec's upper-left alignment without a cache); softcap applies before
// the mask is added (otherwise tanh would cap the mask too).
#include <cmath>
#include <limits>

#include "frontends/onnx/context.h"

namespace edgec::onnx_import {
namespace {

/// The lowest finite value of a float dtype: what a masked score becomes.
double lowest(DType dtype) {
  return dtype == DType::Float16 ? -65504.0 : static_cast<double>(std::numeric_limits<float>::lowest());
}

Value* slice_last(Importer& im, Value* x, int64_t start, int64_t end, int64_t step, const std::string& hint) {
  const int64_t last = x->type().rank() - 1;
  return im.emit("slice", {x},
                 attrs_of({{"dims", std::vector<int64_t>{last}},
                           {"starts", std::vector<int64_t>{start}},
                           {"ends", std::vector<int64_t>{end}},
                           {"steps", std::vector<int64_t>{step}}}),
                 hint);
}

Value* concat(Importer& im, const std::vector<Value*>& xs, int64_t dim, const std::string& hint) {
  return im.emit_n("concat", xs, attrs_of({{"dim", dim}}), hint,
                   {OperandGroup{true, static_cast<int>(xs.size())}})[0];
}

/// Input `i`, of shape (batch, sequence, heads * head_size), as (batch,
/// sequence, heads, head_size).
Value* split_heads(NodeContext& n, size_t i, Value* x, int64_t heads, int64_t head_size) {
  const Dims& d = x->type().dims;
  if (!d[0].is_static() && !d[1].is_static())
    n.fail("cannot split " + n.typed_operand(i) + " into " + std::to_string(heads) +
           " heads: its batch and sequence dims are both symbolic, and a reshape can leave only one size to run "
           "time" + n.im().dim_fix(Dims{d[0], d[1]}));
  const std::vector<int64_t> shape = {d[0].is_static() ? d[0].value : -1, d[1].is_static() ? d[1].value : -1, heads,
                                      head_size};
  return n.im().emit("reshape", {x}, attrs_of({{"shape", shape}}), n.hint());
}

// ---- RotaryEmbedding ----------------------------------------------------------------

// y = x with channels [0, R) of each head rotated: the pairs (x1, x2), the
// two halves or (interleaved) the even and odd channels, become
// (cos x1 - sin x2, sin x1 + cos x2); channels [R, head_size) pass through.
void rotary_embedding(NodeContext& n) {
  Importer& im = n.im();
  const std::string h = n.hint();
  Value* x = n.value(0);
  const TensorType& xt = x->type();
  const int64_t rank = xt.rank();
  if (rank != 3 && rank != 4)
    n.fail(n.typed_operand(0) + " has rank " + std::to_string(rank) +
           "; expected 4 (batch, heads, sequence, head size) or 3 (batch, sequence, hidden)");
  const Dim& last = xt.dims[rank - 1];
  if (!last.is_static())
    n.fail("the last dim " + last.str() + " of " + n.typed_operand(0) + " is symbolic; expected a size" +
           im.dim_fix(last));
  int64_t head_size = last.value;
  // 0 is absent (the default of ONNX Runtime's contrib operator of this name).
  const int64_t num_heads = n.attr_int("num_heads", 0);
  if (rank == 3) {
    if (num_heads < 1 || head_size % num_heads != 0)
      n.fail("attribute 'num_heads' is " + (n.attr("num_heads") ? std::to_string(num_heads) : std::string("absent")) +
             "; expected a divisor of the hidden size " + std::to_string(head_size) + " of the 3-D " +
             n.typed_operand(0));
    head_size /= num_heads;
  } else if (num_heads != 0 && !(xt.dims[1].is_static() && xt.dims[1].value == num_heads)) {
    n.fail("attribute 'num_heads' is " + std::to_string(num_heads) + "; expected the heads dim " + xt.dims[1].str() +
           " of the 4-D " + n.typed_operand(0));
  }
  const int64_t interleaved = n.attr_int("interleaved", 0);
  if (interleaved != 0 && interleaved != 1)
    n.fail("attribute 'interleaved' is " + std::to_string(interleaved) + "; expected 0 or 1");
  int64_t rot = n.attr_int("rotary_embedding_dim", 0);
  if (rot == 0) rot = head_size;
  if (rot < 0 || rot > head_size || rot % 2 != 0)
    n.fail("attribute 'rotary_embedding_dim' is " + std::to_string(n.attr_int("rotary_embedding_dim", 0)) +
           "; expected 0 (the head size) or an even size up to the head size " + std::to_string(head_size));
  const int64_t half = rot / 2;

  // cos and sin as (batch, sequence, R/2), gathered by position_ids from
  // (positions, R/2) when given, then with a heads dim of 1.
  const bool gathered = n.input(3) != nullptr;
  if (gathered && n.type(3).rank() != 2)
    n.fail(n.typed_operand(3) + " has rank " + std::to_string(n.type(3).rank()) + "; expected 2 (batch, sequence)");
  Value* cache[2];
  for (size_t i = 1; i <= 2; ++i) {
    const TensorType& t = n.type(i);
    if (t.rank() != (gathered ? 2 : 3) || !t.dims.back().is_static() || t.dims.back().value != half)
      n.fail(n.operand(i) + " has shape " + t.str() + "; expected " +
             (gathered ? "(positions, " : "(batch, sequence, ") + std::to_string(half) +
             ") (half the rotated channels, attribute 'rotary_embedding_dim' or the head size) " +
             (gathered ? "with" : "without") + " position_ids");
    Value* c = n.value(i);
    if (gathered) c = im.emit("take", {c, n.value(3)}, attrs_of({{"dim", int64_t{0}}}), h);
    cache[i - 1] = im.emit("unsqueeze", {c}, attrs_of({{"dims", std::vector<int64_t>{rank == 4 ? 1 : 2}}}), h);
  }
  Value* cos = cache[0];
  Value* sin = cache[1];

  Value* heads = rank == 4 ? x : split_heads(n, 0, x, num_heads, head_size);
  Value* x1 = interleaved ? slice_last(im, heads, 0, rot, 2, h) : slice_last(im, heads, 0, half, 1, h);
  Value* x2 = interleaved ? slice_last(im, heads, 1, rot, 2, h) : slice_last(im, heads, half, rot, 1, h);
  Value* real = im.emit("sub", {im.emit("mul", {cos, x1}, {}, h), im.emit("mul", {sin, x2}, {}, h)}, {}, h);
  Value* imag = im.emit("add", {im.emit("mul", {sin, x1}, {}, h), im.emit("mul", {cos, x2}, {}, h)}, {}, h);
  Value* rotated = nullptr;
  if (interleaved) {
    // Pairs back in place: (..., R/2, 2) flattened.
    const Attrs last_dim = attrs_of({{"dims", std::vector<int64_t>{4}}});
    Value* pairs = concat(im, {im.emit("unsqueeze", {real}, last_dim, h), im.emit("unsqueeze", {imag}, last_dim, h)},
                          4, h);
    rotated = im.emit("flatten", {pairs}, attrs_of({{"start_dim", int64_t{3}}, {"end_dim", int64_t{4}}}), h);
  } else {
    rotated = concat(im, {real, imag}, 3, h);
  }
  Value* y = rot < head_size ? concat(im, {rotated, slice_last(im, heads, rot, head_size, 1, h)}, 3, h) : rotated;
  if (rank == 3) y = im.emit("flatten", {y}, attrs_of({{"start_dim", int64_t{2}}, {"end_dim", int64_t{3}}}), h);
  n.set_output(0, y);
}

// ---- Attention ------------------------------------------------------------------------

/// An attribute the node must have for 3-D inputs, at least 1.
int64_t heads_attr(NodeContext& n, const char* name) {
  const int64_t v = n.attr_int(name, 0);
  if (v < 1)
    n.fail(std::string("attribute '") + name + "' is " + (n.attr(name) ? std::to_string(v) : std::string("absent")) +
           "; expected a head count of at least 1 (3-D inputs need it)");
  return v;
}

/// Input `i` as (batch, heads, sequence, size) and its head size.
std::pair<Value*, int64_t> as_heads(NodeContext& n, size_t i, int64_t heads, const char* heads_name) {
  Value* x = n.value(i);
  const TensorType& t = x->type();
  if (t.rank() == 4) return {x, t.dims[3].is_static() ? t.dims[3].value : -1};
  const Dim& hidden = t.dims[2];
  if (!hidden.is_static() || hidden.value % heads != 0)
    n.fail("the hidden size " + hidden.str() + " of " + n.typed_operand(i) + " is not a multiple of attribute '" +
           heads_name + "' (" + std::to_string(heads) + ")");
  Value* split = split_heads(n, i, x, heads, hidden.value / heads);
  return {n.im().permute(split, {0, 2, 1, 3}, n.hint()), hidden.value / heads};
}

/// The attention mask (input 3) as an additive bias against scores of
/// shape (batch, heads, sequence, total): a boolean mask's false is the
/// lowest value, a float one is added as it is, a last dim shorter than
/// total is padded as masked.
Value* mask_bias(NodeContext& n, const TensorType& scores) {
  Importer& im = n.im();
  const std::string h = n.hint();
  const DType dtype = scores.dtype;
  const TensorType& mt = n.type(3);
  const bool is_bool = mt.dtype == DType::Bool;
  if (!is_bool && mt.dtype != dtype)
    n.fail(n.typed_operand(3) + " has element type " + std::string(dtype_name(mt.dtype)) + "; expected bool or " +
           std::string(dtype_name(dtype)) + ", the element type of " + n.typed_operand(0));
  const int64_t rank = mt.rank();
  bool fits = rank >= 1 && rank <= 4;
  int64_t pad = 0;
  for (int64_t i = 0; fits && i < rank; ++i) {
    const Dim& m = mt.dims[rank - 1 - i];
    const Dim& s = scores.dims[3 - i];
    if (m == s || (m.is_static() && m.value == 1 && i > 0)) continue;
    fits = i == 0 && m.is_static() && s.is_static() && m.value < s.value;
    pad = s.value - m.value;
  }
  if (!fits)
    n.fail(n.typed_operand(3) + " does not broadcast to " + scores.str() +
           " (batch, heads, sequence, total sequence); expected at most 4 dims, each 1 or the size there, the last "
           "at most the total sequence");
  Value* m = n.value(3);
  if (pad > 0) {
    std::vector<int64_t> pads(static_cast<size_t>(2 * rank), 0);
    pads.back() = pad;
    const double value = is_bool ? 0.0 : -std::numeric_limits<double>::infinity();
    m = im.emit("pad", {m}, attrs_of({{"pads", pads}, {"mode", std::string("constant")}, {"value", value}}), h);
  }
  if (!is_bool) return m;
  return im.emit("where", {m, im.full({}, 0.0, dtype, h), im.full({}, lowest(dtype), dtype, h)}, {}, h);
}

// Y = softmax(softcap(scale Q K^T) + bias) V per head, each of the kv heads
// serving q_heads / kv_heads consecutive query heads.
void attention(NodeContext& n) {
  Importer& im = n.im();
  const std::string h = n.hint();
  const TensorType& qt = n.type(0);
  const int64_t rank = qt.rank();
  const DType dtype = qt.dtype;
  if (rank != 3 && rank != 4)
    n.fail(n.typed_operand(0) + " has rank " + std::to_string(rank) +
           "; expected 4 (batch, heads, sequence, head size) or 3 (batch, sequence, hidden)");
  for (size_t i = 1; i <= 2; ++i)
    if (n.type(i).rank() != rank || n.type(i).dtype != dtype)
      n.fail(n.typed_operand(i) + " is not of the rank and element type of " + n.typed_operand(0) +
             "; expected the same");

  // Heads: from the attributes for 3-D inputs, from dim 1 for 4-D ones.
  int64_t q_heads = 0, kv_heads = 0;
  if (rank == 3) {
    q_heads = heads_attr(n, "q_num_heads");
    kv_heads = heads_attr(n, "kv_num_heads");
  } else {
    const Dim& qh = qt.dims[1];
    const Dim& kh = n.type(1).dims[1];
    const Dim& vh = n.type(2).dims[1];
    if (!qh.is_static() || !kh.is_static() || kh != vh)
      n.fail("the heads dims of " + n.typed_operand(0) + ", " + n.typed_operand(1) + " and " + n.typed_operand(2) +
             " are not sizes, or differ between K and V; expected static head counts");
    q_heads = qh.value;
    kv_heads = kh.value;
    for (const auto& [name, want] : {std::pair{"q_num_heads", q_heads}, std::pair{"kv_num_heads", kv_heads}})
      if (n.attr(name) && n.attr_int(name, 0) != want)
        n.fail(std::string("attribute '") + name + "' is " + std::to_string(n.attr_int(name, 0)) + "; expected " +
               std::to_string(want) + ", the heads dim of the 4-D inputs");
  }
  if (q_heads % kv_heads != 0)
    n.fail("the " + std::to_string(q_heads) + " query heads are not a multiple of the " + std::to_string(kv_heads) +
           " key/value heads (grouped-query attention needs each kv head to serve the same number)");
  auto [q, head_size] = as_heads(n, 0, q_heads, "q_num_heads");
  Value* k = as_heads(n, 1, kv_heads, "kv_num_heads").first;
  Value* v = as_heads(n, 2, kv_heads, "kv_num_heads").first;

  // The cache: past (batch, kv heads, past, size) before the new keys and values.
  const bool has_past = n.input(4) != nullptr;
  if (has_past != (n.input(5) != nullptr) || (has_past && (n.type(4).rank() != 4 || n.type(5).rank() != 4)))
    n.fail("past_key, " + n.operand(4) + ", and past_value, " + n.operand(5) +
           ", must be given together, each of rank 4 (batch, kv heads, past sequence, head size)");
  if (has_past) {
    k = concat(im, {n.value(4), k}, 2, n.hint(1));
    v = concat(im, {n.value(5), v}, 2, n.hint(2));
  }
  n.set_output(1, k);
  n.set_output(2, v);

  // Each kv head repeated for the query heads it serves: [h0, h0, h1, h1].
  if (q_heads != kv_heads) {
    const int64_t group = q_heads / kv_heads;
    for (Value** kv : {&k, &v}) {
      Value* e = im.emit("unsqueeze", {*kv}, attrs_of({{"dims", std::vector<int64_t>{2}}}), h);
      e = im.emit("expand", {e}, attrs_of({{"shape", std::vector<int64_t>{-1, -1, group, -1, -1}}}), h);
      *kv = im.emit("flatten", {e}, attrs_of({{"start_dim", int64_t{1}}, {"end_dim", int64_t{2}}}), h);
    }
  }

  // Scores: scale Q K^T, (batch, q heads, sequence, total sequence).
  double scale = 0.0;
  if (n.attr("scale")) {
    scale = n.attr_float("scale", 0.0);
  } else {
    if (head_size < 1)
      n.fail("the head size of " + n.typed_operand(0) +
             " is symbolic; expected a size (or attribute 'scale', which defaults to 1/sqrt(head size))");
    scale = 1.0 / std::sqrt(static_cast<double>(head_size));
  }
  Value* scores = im.emit("matmul", {q, im.permute(k, {0, 1, 3, 2}, h)}, {}, h);
  scores = im.emit("mul", {scores, im.full({}, scale, dtype, h)}, {}, h);
  if (n.has_output(3)) {
    const int64_t mode = n.attr_int("qk_matmul_output_mode", 0);
    if (mode != 0)
      n.fail("attribute 'qk_matmul_output_mode' is " + std::to_string(mode) + " with " + n.result(3) +
             " requested; expected 0 (scale Q K^T, the only mode edgec computes)");
    n.set_output(3, scores);
  }
  const double softcap = n.attr_float("softcap", 0.0);
  if (softcap > 0) {
    Value* cap = im.full({}, softcap, dtype, h);
    scores = im.emit("mul", {im.emit("tanh", {im.emit("div", {scores, cap}, {}, h)}, {}, h), cap}, {}, h);
  }

  // The bias: the mask, and the causal mask over it (query s sees keys up
  // to past + s).
  const TensorType st = scores->type();
  Value* bias = n.input(3) ? mask_bias(n, st) : nullptr;
  const int64_t causal = n.attr_int("is_causal", 0);
  if (causal != 0 && causal != 1) n.fail("attribute 'is_causal' is " + std::to_string(causal) + "; expected 0 or 1");
  if (causal) {
    int64_t past = 0;
    if (has_past) {
      const Dim& p = n.type(4).dims[2];
      if (!p.is_static())
        n.fail("the past sequence dim " + p.str() + " of " + n.typed_operand(4) +
               " is symbolic; attribute 'is_causal' needs its size" + im.dim_fix(p));
      past = p.value;
    }
    Value* all = im.filled({SymInt::of_dim(st.dims[2], scores, 2), SymInt::of_dim(st.dims[3], scores, 3)}, 1.0,
                           DType::Bool, h);
    Value* keep = im.emit("tril", {all}, attrs_of({{"diagonal", past}}), h);
    bias = im.emit("where", {keep, bias ? bias : im.full({}, 0.0, dtype, h), im.full({}, lowest(dtype), dtype, h)},
                   {}, h);
  }
  if (bias) scores = im.emit("add", {scores, bias}, {}, h);

  // Softmax, in float32 when softmax_precision asks it of float16 scores.
  const int64_t precision = n.attr_int("softmax_precision", onnx_elem_type(dtype));
  const bool widen = precision == onnx::TensorProto::FLOAT && dtype == DType::Float16;
  if (precision != onnx_elem_type(dtype) && !widen)
    n.fail("attribute 'softmax_precision' is " + std::to_string(precision) + "; expected " +
           std::to_string(onnx_elem_type(dtype)) + " (" + onnx_type_name(onnx_elem_type(dtype)) +
           ", the element type of " + n.typed_operand(0) + ")" + (dtype == DType::Float16 ? " or 1 (float)" : ""));
  if (widen) scores = im.emit("cast", {scores}, attrs_of({{"dtype", DType::Float32}}), h);
  Value* probs = im.emit("softmax", {scores}, attrs_of({{"dim", int64_t{3}}}), h);
  if (widen) probs = im.emit("cast", {probs}, attrs_of({{"dtype", dtype}}), h);

  Value* y = im.emit("matmul", {probs, v}, {}, h);
  if (rank == 3) {
    y = im.permute(y, {0, 2, 1, 3}, h);
    y = im.emit("flatten", {y}, attrs_of({{"start_dim", int64_t{2}}, {"end_dim", int64_t{3}}}), h);
  }
  n.set_output(0, y);
}

}  // namespace

void register_transformer_handlers(HandlerTable& t) {
  t["RotaryEmbedding"] = rotary_embedding;
  t["Attention"] = attention;
}

}  // namespace edgec::onnx_import

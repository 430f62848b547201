// ONNX Einsum, lowered at import time onto existing operators. The
// equations exporters write (torch.einsum: attention's "bhqd,bhkd->bhqk",
// batched and plain matmuls, transposes, outer products, diagonals,
// traces, sums) all come down to a few steps:
//
// 1. Each operand loses its repeated labels: the diagonal of two dims is
//    those dims merged into one and sliced with a step of size + 1.
// 2. Each operand sums away the labels that neither the result nor another
//    operand has.
// 3. Operands are combined left to right, two at a time. With labels to
//    contract, floats go through one batched matmul: the operands are
//    permuted to [batch, own, contracted] and [batch, contracted, own],
//    the contracted labels merged into one dim, the own labels but the
//    last made batch dims that the matmul broadcasts. Anything else (no
//    label to contract, or integers, which matmul does not take) is a
//    broadcast product, summed over the contracted labels.
// 4. A permute puts the result's labels in the equation's order.
//
// An ellipsis stands for the same number of dims in every operand that has
// one, right-aligned and broadcast as numpy broadcasts. What the equation
// cannot mean for the inputs (a term of the wrong length, a result label no
// operand has) is refused, naming the equation and the term.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "frontends/onnx/context.h"

namespace edgec::onnx_import {
namespace {

/// A dim's label: a letter's character code, or for the k-th dim an
/// ellipsis stands for (counted from the left of the widest ellipsis),
/// kEllipsis + k.
using Label = int;
constexpr Label kEllipsis = 256;
using Labels = std::vector<Label>;

std::string label_str(Label l) {
  return l < kEllipsis ? "'" + std::string(1, static_cast<char>(l)) + "'" : "... dim " + std::to_string(l - kEllipsis);
}

bool has(const Labels& ls, Label l) { return std::find(ls.begin(), ls.end(), l) != ls.end(); }

/// One term of the equation: its letters before and after an ellipsis.
struct Term {
  std::string text;
  Labels before, after;
  bool ellipsis = false;
};

/// Parses `text` (no spaces) into `t`; returns "" or what is wrong.
std::string parse_term(const std::string& text, const std::string& which, Term& t) {
  t.text = text;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (std::isalpha(c)) {
      (t.ellipsis ? t.after : t.before).push_back(c);
    } else if (text.compare(i, 3, "...") == 0) {
      if (t.ellipsis) return "has two ellipses in " + which + " '" + text + "'; expected at most one";
      t.ellipsis = true;
      i += 2;
    } else {
      return "holds '" + std::string(1, text[i]) + "' in " + which + " '" + text +
             "'; expected letters and at most one '...'";
    }
  }
  return "";
}

/// The equation for operands of the given ranks: one label per dim of each
/// operand, and the result's labels in order.
struct Equation {
  std::vector<Labels> operands;
  Labels result;
};

/// Parses `equation` for operands of `ranks` into `eq`; returns "" or what
/// is wrong.
std::string parse_equation(const std::string& equation, const std::vector<int64_t>& ranks, Equation& eq) {
  std::string s;
  for (char c : equation)
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  const size_t arrow = s.find("->");
  const std::string lhs = s.substr(0, arrow);
  std::vector<Term> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    Term t;
    const std::string which = "the term of input " + std::to_string(terms.size());
    if (auto why = parse_term(lhs.substr(start, comma - start), which, t); !why.empty()) return why;
    terms.push_back(std::move(t));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != ranks.size())
    return "has " + std::to_string(terms.size()) + " input terms; expected " + std::to_string(ranks.size()) +
           ", one per input";
  // The widest ellipsis; each operand's is right-aligned against it.
  int64_t widest = 0;
  std::vector<int64_t> widths;
  for (size_t i = 0; i < terms.size(); ++i) {
    const Term& t = terms[i];
    const int64_t letters = static_cast<int64_t>(t.before.size() + t.after.size());
    const int64_t width = ranks[i] - letters;
    if (width < 0 || (!t.ellipsis && width != 0))
      return "gives input " + std::to_string(i) + " of rank " + std::to_string(ranks[i]) + " the term '" + t.text +
             "' of " + std::to_string(letters) + " labels" + (t.ellipsis ? " and an ellipsis" : "") +
             "; expected one label per dim";
    widths.push_back(width);
    widest = std::max(widest, width);
  }
  for (size_t i = 0; i < terms.size(); ++i) {
    Labels ls = terms[i].before;
    for (int64_t k = widest - widths[i]; k < widest; ++k) ls.push_back(kEllipsis + static_cast<Label>(k));
    ls.insert(ls.end(), terms[i].after.begin(), terms[i].after.end());
    eq.operands.push_back(std::move(ls));
  }
  Labels ellipsis_dims;
  for (int64_t k = 0; k < widest; ++k) ellipsis_dims.push_back(kEllipsis + static_cast<Label>(k));
  if (arrow == std::string::npos) {
    // Implicit result: the ellipsis' dims, then the letters used once, in
    // alphabetical (ASCII) order, as numpy reads it.
    std::map<Label, int> uses;
    for (const Term& t : terms) {
      for (Label l : t.before) ++uses[l];
      for (Label l : t.after) ++uses[l];
    }
    eq.result = ellipsis_dims;
    for (const auto& [l, count] : uses)
      if (count == 1) eq.result.push_back(l);
    return "";
  }
  Term out;
  if (auto why = parse_term(s.substr(arrow + 2), "the result's term", out); !why.empty()) return why;
  Labels letters = out.before;
  letters.insert(letters.end(), out.after.begin(), out.after.end());
  for (size_t i = 0; i < letters.size(); ++i) {
    const bool used = std::any_of(eq.operands.begin(), eq.operands.end(), [&](const Labels& o) { return has(o, letters[i]); });
    if (!used)
      return "has " + label_str(letters[i]) + " in the result's term '" + out.text + "', which no input term has";
    if (std::find(letters.begin(), letters.begin() + static_cast<long>(i), letters[i]) != letters.begin() + static_cast<long>(i))
      return "has " + label_str(letters[i]) + " twice in the result's term '" + out.text + "'; expected it once";
  }
  if (widest > 0 && !out.ellipsis)
    return "drops the " + std::to_string(widest) + " dims an ellipsis stands for from the result's term '" +
           out.text + "'; expected '...' in it (as numpy does)";
  eq.result = out.before;
  eq.result.insert(eq.result.end(), ellipsis_dims.begin(), ellipsis_dims.end());
  eq.result.insert(eq.result.end(), out.after.begin(), out.after.end());
  return "";
}

/// An operand being lowered: its value and a label per dim.
struct Operand {
  Value* value;
  Labels labels;
};

class Lowering {
 public:
  Lowering(NodeContext& n, std::string equation) : n_(n), im_(n.im()), equation_(std::move(equation)) {}

  /// The equation `eq` on the node's inputs.
  Value* lower(const Equation& eq) {
    std::vector<Operand> operands;
    for (size_t i = 0; i < eq.operands.size(); ++i) {
      record_sizes(i, n_.value(i), eq.operands[i]);
      operands.push_back({n_.value(i), eq.operands[i]});
    }
    for (size_t i = 0; i < operands.size(); ++i) operands[i] = diagonals(operands[i]);
    // Labels needed after each step: the result's and those of the
    // operands not yet combined.
    auto needed_after = [&](size_t last) {
      std::set<Label> keep(eq.result.begin(), eq.result.end());
      for (size_t j = last + 1; j < operands.size(); ++j) keep.insert(operands[j].labels.begin(), operands[j].labels.end());
      return keep;
    };
    auto plus = [](std::set<Label> keep, const Labels& more) {
      keep.insert(more.begin(), more.end());
      return keep;
    };
    Operand acc = sum_unneeded(operands[0], needed_after(0));
    for (size_t i = 1; i < operands.size(); ++i) {
      const std::set<Label> keep = needed_after(i);
      const Operand b = sum_unneeded(operands[i], plus(keep, acc.labels));
      acc = sum_unneeded(acc, plus(keep, b.labels));
      acc = combine(acc, b, keep);
    }
    std::vector<int64_t> perm;
    for (Label l : eq.result)
      perm.push_back(std::find(acc.labels.begin(), acc.labels.end(), l) - acc.labels.begin());
    if (perm.size() != acc.labels.size()) internal_error("Einsum lowering kept labels the result does not have");
    return im_.permute(acc.value, perm, n_.hint());
  }

 private:
  /// Records each label's size; a letter's static sizes must agree, an
  /// ellipsis dim's broadcast (1 or one size).
  void record_sizes(size_t input, Value* v, const Labels& labels) {
    const TensorType& t = v->type();
    for (size_t d = 0; d < labels.size(); ++d) {
      const Dim& dim = t.dims[d];
      auto [it, fresh] = sizes_.emplace(labels[d], dim);
      if (fresh || !dim.is_static() || !it->second.is_static() || dim == it->second) continue;
      const bool broadcast = labels[d] >= kEllipsis && (dim.value == 1 || it->second.value == 1);
      if (broadcast) {
        if (it->second.value == 1) it->second = dim;
        continue;
      }
      n_.fail("attribute 'equation' '" + equation_ + "' gives label " + label_str(labels[d]) + " the sizes " +
              it->second.str() + " and " + dim.str() + " (dim " + std::to_string(d) + " of " +
              n_.typed_operand(input) + "); expected one size" +
              (labels[d] >= kEllipsis ? ", or 1 to broadcast" : ""));
    }
  }

  /// The static size of label `l`, which `why` needs.
  int64_t static_size(const Operand& x, Label l, const std::string& why) {
    const Dim& d = x.value->type().dims[static_cast<size_t>(std::find(x.labels.begin(), x.labels.end(), l) -
                                                            x.labels.begin())];
    if (!d.is_static())
      n_.fail("attribute 'equation' '" + equation_ + "' " + why + ", which needs the size of label " + label_str(l) +
              ", " + d.str() + ", to be static" + im_.dim_fix(d));
    return d.value;
  }

  Value* emit(const std::string& op, const std::vector<Value*>& ins, const Attrs& attrs, const std::string& suffix) {
    return im_.emit(op, ins, attrs, n_.hint() + "_" + suffix);
  }

  /// `x` without repeated labels: for each, the diagonal of its two dims
  /// (moved last, merged, sliced with a step of size + 1), labelled once.
  Operand diagonals(Operand x) {
    for (;;) {
      size_t p = 0, q = 0;
      for (size_t i = 0; i < x.labels.size() && q == 0; ++i)
        for (size_t j = i + 1; j < x.labels.size() && q == 0; ++j)
          if (x.labels[i] == x.labels[j]) p = i, q = j;
      if (q == 0) return x;
      const Label l = x.labels[p];
      const int64_t size = static_size(x, l, "takes a diagonal");
      std::vector<int64_t> perm;
      Labels labels;
      for (size_t i = 0; i < x.labels.size(); ++i)
        if (i != p && i != q) perm.push_back(static_cast<int64_t>(i)), labels.push_back(x.labels[i]);
      perm.push_back(static_cast<int64_t>(p));
      perm.push_back(static_cast<int64_t>(q));
      labels.push_back(l);
      const int64_t last = static_cast<int64_t>(labels.size()) - 1;
      Value* v = im_.permute(x.value, perm, n_.hint() + "_diagonal");
      v = emit("flatten", {v}, attrs_of({{"start_dim", last}, {"end_dim", last + 1}}), "diagonal");
      v = emit("slice", {v},
               attrs_of({{"dims", std::vector<int64_t>{last}},
                         {"starts", std::vector<int64_t>{0}},
                         {"ends", std::vector<int64_t>{size * size}},
                         {"steps", std::vector<int64_t>{size + 1}}}),
               "diagonal");
      x = {v, std::move(labels)};
    }
  }

  /// `x` summed over the labels not in `keep`.
  Operand sum_unneeded(Operand x, const std::set<Label>& keep) {
    std::vector<int64_t> dims;
    Labels labels;
    for (size_t i = 0; i < x.labels.size(); ++i) {
      if (keep.count(x.labels[i])) {
        labels.push_back(x.labels[i]);
      } else {
        dims.push_back(static_cast<int64_t>(i));
      }
    }
    if (dims.empty()) return x;
    return {emit("sum", {x.value}, attrs_of({{"dims", dims}, {"keepdim", false}}), "sum"), std::move(labels)};
  }

  /// `x` permuted to the order of `order` (which has all its labels).
  Value* permuted(const Operand& x, const Labels& order, const std::string& suffix) {
    std::vector<int64_t> perm;
    for (Label l : order)
      if (has(x.labels, l)) perm.push_back(std::find(x.labels.begin(), x.labels.end(), l) - x.labels.begin());
    return im_.permute(x.value, perm, n_.hint() + "_" + suffix);
  }

  /// The product of `a` and `b` summed over their shared labels that `keep`
  /// does not have, each of the other labels once.
  Operand combine(const Operand& a, const Operand& b, const std::set<Label>& keep) {
    Labels batch, contracted, a_own, b_own;
    for (Label l : a.labels) {
      if (!has(b.labels, l)) {
        a_own.push_back(l);
      } else {
        (keep.count(l) ? batch : contracted).push_back(l);
      }
    }
    for (Label l : b.labels)
      if (!has(a.labels, l)) b_own.push_back(l);
    const DType dt = a.value->type().dtype;
    if (!contracted.empty() && is_floating(dt)) return matmul(a, b, batch, contracted, a_own, b_own);

    // A broadcast product over [batch, a's own, b's own, contracted],
    // summed over contracted.
    Labels all = batch;
    for (const Labels* part : {&a_own, &b_own, &contracted}) all.insert(all.end(), part->begin(), part->end());
    auto spread = [&](const Operand& x, const std::string& suffix) {
      Value* v = permuted(x, all, suffix);
      std::vector<int64_t> missing;
      for (size_t i = 0; i < all.size(); ++i)
        if (!has(x.labels, all[i])) missing.push_back(static_cast<int64_t>(i));
      return missing.empty() ? v : emit("unsqueeze", {v}, attrs_of({{"dims", missing}}), suffix);
    };
    Value* product = emit("mul", {spread(a, "a"), spread(b, "b")}, {}, "product");
    Labels result(all.begin(), all.end() - static_cast<long>(contracted.size()));
    if (contracted.empty()) return {product, result};
    std::vector<int64_t> dims;
    for (size_t i = result.size(); i < all.size(); ++i) dims.push_back(static_cast<int64_t>(i));
    return {emit("sum", {product}, attrs_of({{"dims", dims}, {"keepdim", false}}), "sum"), result};
  }

  /// `count` size-1 dims inserted into `v` at `at`.
  Value* ones_at(Value* v, int64_t at, size_t count, const std::string& suffix) {
    if (count == 0) return v;
    std::vector<int64_t> dims;
    for (size_t i = 0; i < count; ++i) dims.push_back(at + static_cast<int64_t>(i));
    return emit("unsqueeze", {v}, attrs_of({{"dims", dims}}), suffix);
  }

  /// The contracted dims [at, at + count) of `v` merged into one (static
  /// sizes needed when there are several).
  Value* merged(Value* v, const Operand& x, const Labels& contracted, int64_t at, const std::string& suffix) {
    if (contracted.size() == 1) return v;
    for (Label l : contracted) static_size(x, l, "contracts several labels in one matmul");
    return emit("flatten", {v},
                attrs_of({{"start_dim", at}, {"end_dim", at + static_cast<int64_t>(contracted.size()) - 1}}), suffix);
  }

  /// One batched matmul. Each operand's own labels but the last are batch
  /// dims of the matmul, against size-1 dims in the other, and its last is
  /// the matmul's M (N); so that no own label is merged (a symbolic size
  /// there stays symbolic), only contracted ones (into K):
  ///   a [batch, a_rest, 1s, a_last, K] @ b [batch, 1s, b_rest, K, b_last]
  /// gives [batch, a_rest, b_rest, a_last, b_last]. A side without own labels
  /// gets a size-1 M (N), squeezed afterwards. Leading 1s are left to the
  /// matmul's broadcasting.
  Operand matmul(const Operand& a, const Operand& b, const Labels& batch, const Labels& contracted,
                 const Labels& a_own, const Labels& b_own) {
    const Labels a_rest(a_own.begin(), a_own.end() - (a_own.empty() ? 0 : 1));
    const Labels b_rest(b_own.begin(), b_own.end() - (b_own.empty() ? 0 : 1));
    const int64_t nb = static_cast<int64_t>(batch.size());
    const int64_t na = static_cast<int64_t>(a_rest.size()), nr = static_cast<int64_t>(b_rest.size());

    Labels order = batch;
    for (const Labels* part : {&a_own, &contracted}) order.insert(order.end(), part->begin(), part->end());
    Value* va = permuted(a, order, "a");
    if (nb + na > 0) va = ones_at(va, nb + na, b_rest.size(), "a");
    const int64_t a_m = nb + na + (nb + na > 0 ? nr : 0);  // a's M dim, inserted if a has no own label
    if (a_own.empty()) va = ones_at(va, a_m, 1, "a");
    va = merged(va, a, contracted, a_m + 1, "a");

    order = batch;
    for (const Labels* part : {&b_rest, &contracted}) order.insert(order.end(), part->begin(), part->end());
    if (!b_own.empty()) order.push_back(b_own.back());
    Value* vb = permuted(b, order, "b");
    if (nb > 0) vb = ones_at(vb, nb, a_rest.size(), "b");
    const int64_t b_k = (nb > 0 ? nb + na : 0) + nr;  // b's first contracted dim
    vb = merged(vb, b, contracted, b_k, "b");
    if (b_own.empty()) vb = ones_at(vb, b_k + 1, 1, "b");

    Value* y = emit("matmul", {va, vb}, {}, "matmul");
    Labels labels = batch;
    for (const Labels* part : {&a_rest, &b_rest}) labels.insert(labels.end(), part->begin(), part->end());
    std::vector<int64_t> squeezed;
    const int64_t m = nb + na + nr;
    if (a_own.empty()) {
      squeezed.push_back(m);
    } else {
      labels.push_back(a_own.back());
    }
    if (b_own.empty()) {
      squeezed.push_back(m + 1);
    } else {
      labels.push_back(b_own.back());
    }
    if (!squeezed.empty()) y = emit("squeeze", {y}, attrs_of({{"dims", squeezed}}), "matmul");
    return {y, std::move(labels)};
  }

  NodeContext& n_;
  Importer& im_;
  std::string equation_;
  std::map<Label, Dim> sizes_;
};

void einsum(NodeContext& n) {
  const std::string equation = n.attr_string("equation", "");
  const DType dt = n.type(0).dtype;
  if (dt != DType::Float32 && dt != DType::Float16 && dt != DType::Float64 && dt != DType::Int64 &&
      dt != DType::Int32)
    n.fail(n.typed_operand(0) + " is of type " + std::string(dtype_name(dt)) +
           "; expected f32, f16, f64, i64 or i32 (those ONNX Runtime's Einsum takes that edgec has)");
  std::vector<int64_t> ranks;
  for (size_t i = 0; i < n.num_inputs(); ++i) ranks.push_back(n.type(i).rank());
  Equation eq;
  if (auto why = parse_equation(equation, ranks, eq); !why.empty())
    n.fail("attribute 'equation' '" + equation + "' " + why);
  Value* y = Lowering(n, equation).lower(eq);
  if (y == n.required(0).value && n.num_inputs() == 1) {
    n.forward(0, 0);
    return;
  }
  n.set_output(0, y);
}

}  // namespace

void register_einsum_handlers(HandlerTable& t) { t["Einsum"] = einsum; }

}  // namespace edgec::onnx_import

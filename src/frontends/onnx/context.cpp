// Importer: lazy materialization of entries, emitting calls typed by the
// operator table, and import-time evaluation of calls whose inputs are all
// known (so that shape computations on constants fold).
#include "frontends/onnx/context.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "interpreter/interpreter.h"
#include "ir/operator.h"

namespace edgec::onnx_import {
namespace {

/// Import-time evaluation is for shape computations and small constants;
/// larger constant math is left to constant_prop.
constexpr int64_t kMaxEvaluatedElements = int64_t{1} << 22;

int64_t numel_of(const TensorType& t) {
  auto n = t.max_numel();
  return n ? *n : INT64_MAX;
}

}  // namespace

Attrs attrs_of(std::initializer_list<std::pair<std::string, AttrValue>> items) {
  Attrs a;
  for (const auto& [k, v] : items) a.set(k, v);
  return a;
}

Value* Importer::add_constant_placeholder(const std::string& target, const TensorData& data) {
  Node* ph = program_.graph.add_placeholder(sanitize_name(target), data.type);
  program_.inputs.push_back(InputSpec{InputKind::Constant, ph->result()->name(), target, false});
  program_.constants[target] = data;
  known_[ph->result()] = data;
  return ph->result();
}

void Importer::push_region(RegionScope& scope) {
  scopes_.push_back(&scope);
  level_ = scopes_.size();
}

void Importer::pop_region() {
  scopes_.pop_back();
  level_ = scopes_.size();
}

Value* Importer::capture(Value* v) { return v ? capture_at(level_, v) : v; }

Value* Importer::capture_at(size_t level, Value* v) {
  Graph& g = graph_at(level);
  if (v->producer()->graph() == &g || level == 0) return v;
  Value* outer = capture_at(level - 1, v);
  RegionScope& scope = *scopes_[level - 1];
  auto it = scope.placeholders.find(outer);
  if (it == scope.placeholders.end()) {
    std::vector<Value*> phs;
    for (Graph* region : scope.graphs) {
      Value* ph = region->add_placeholder(outer->name(), outer->type())->result();
      if (const TensorData* d = known(outer)) known_[ph] = *d;
      phs.push_back(ph);
    }
    scope.captured.push_back(outer);
    it = scope.placeholders.emplace(outer, std::move(phs)).first;
  }
  return it->second[scope.active];
}

Value* Importer::materialize(const std::string& name) {
  Entry& entry = entries_.at(name);
  if (entry.value || entry.depth >= level_) return capture(materialize_here(name));
  // Defined in an enclosing graph and never read there: made there (its
  // calls belong to that graph), then captured.
  const size_t level = level_;
  level_ = entry.depth;
  Value* v = nullptr;
  try {
    v = materialize_here(name);
  } catch (...) {
    level_ = level;
    throw;
  }
  level_ = level;
  return capture(v);
}

Value* Importer::materialize_here(const std::string& name) {
  Entry& e = entries_.at(name);
  if (!e.unavailable.empty()) refuse(e.unavailable);
  if (e.seq)
    refuse("'" + name + "' is a sequence (of " + std::to_string(e.seq->count) + " " +
           std::string(dtype_name(e.seq->dtype)) +
           " tensors); edgec's programs hold tensors only, so a sequence is read only by SequenceAt, "
           "SequenceLength, ConcatFromSequence, SequenceInsert and SequenceErase, and cannot be a graph output or "
           "another operator's input (output a tensor instead, e.g. through ConcatFromSequence)");
  if (e.value) return e.value;
  if (!e.alias.empty()) {
    e.value = materialize(e.alias);  // std::map references stay valid
    return e.value;
  }
  if (e.data) {
    e.value = add_constant_placeholder(name, *e.data);
    return e.value;
  }
  if (e.sym) {
    const std::string hint = sanitize_name(name);
    if (e.type.rank() == 0) {
      e.value = sym_scalar(e.sym->at(0), hint);
    } else {
      std::vector<Value*> elems;
      for (const SymInt& s : *e.sym)
        elems.push_back(emit("unsqueeze", {sym_scalar(s, hint + "_dim")}, attrs_of({{"dims", std::vector<int64_t>{0}}}),
                             hint + "_dim"));
      e.value = emit_n("concat", elems, attrs_of({{"dim", int64_t{0}}}), hint,
                       {OperandGroup{true, static_cast<int>(elems.size())}})[0];
    }
    if (e.value->type().dtype != e.type.dtype)
      e.value = emit("cast", {e.value}, attrs_of({{"dtype", e.type.dtype}}), hint);
    return e.value;
  }
  internal_error("tensor '" + name + "' has no value");
}

std::vector<Value*> Importer::emit_n(const std::string& op, const std::vector<Value*>& inputs, const Attrs& attrs,
                                     const std::string& hint, std::vector<OperandGroup> groups) {
  const OpInfo* row = find_op_by_name(op);
  if (!row) internal_error("no operator '" + op + "' in the operator table");
  if (groups.empty()) groups.assign(inputs.size(), OperandGroup{});
  if (auto folded = fold(*row, inputs, groups, attrs, hint)) {
    for (Value*& v : *folded) v = capture(v);  // constants live in the program's graph
    return std::move(*folded);
  }
  // Values of enclosing graphs are read through captures.
  std::vector<Value*> captured(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) captured[i] = capture(inputs[i]);
  CallSpec spec;
  spec.op = row->full_name(kAtenDialect);
  spec.result_types = shape_of_call(*row, inputs, groups, attrs);
  spec.inputs = captured;
  spec.groups = std::move(groups);
  spec.attrs = attrs;
  for (size_t i = 0; i < spec.result_types.size(); ++i)
    spec.result_names.push_back(i == 0 ? hint : hint + "_" + std::to_string(i));
  Node* call = graph().create_call(std::move(spec));

  // Evaluate calls on known data, so that later nodes can read the values
  // (a Reshape's shape computed by Cast/Mul from constants).
  bool all_known = row->core && !(row->flags & kOpRandom);
  int64_t total = 0;
  std::vector<TensorData> ins;
  for (const Value* v : captured) {
    const TensorData* d = known(v);
    if (!d) {
      all_known = false;
      break;
    }
    total += numel_of(d->type);
    ins.push_back(*d);
  }
  for (size_t i = 0; all_known && i < call->num_results(); ++i)
    all_known = numel_of(call->result(i)->type()) <= kMaxEvaluatedElements;
  if (all_known && total <= kMaxEvaluatedElements) {
    auto outs = evaluate_call(*call, ins, kernel_ctx_);
    for (size_t i = 0; i < outs.size(); ++i) known_[call->result(i)] = std::move(outs[i]);
  }
  std::vector<Value*> results;
  for (size_t i = 0; i < call->num_results(); ++i) results.push_back(call->result(i));
  return results;
}

// A call of constants only is folded here, as constant_prop would fold it
// later (docs/semantics.md §3: not random or allocation operators, not
// dequantize_linear, not parameters),
// into constants named as constant_prop names them: an export without
// constant folding (or a model of many literal tensors) would otherwise make
// a call and its input placeholders per node only for constant_prop to
// evaluate them again and erase them. Results past kMaxEvaluatedElements
// stay calls, for constant_prop.
std::optional<std::vector<TensorData>> Importer::fold_data(const OpInfo& row, std::span<const TensorData* const> inputs,
                                                           std::span<const OperandGroup> groups, const Attrs& attrs,
                                                           const std::string& hint) {
  if (!folds_on_constants(row)) return std::nullopt;
  int64_t total = 0;
  SmallVector<const TensorType*, 4> types;
  for (const TensorData* d : inputs) {
    total += numel_of(d->type);
    if (total > kMaxEvaluatedElements) return std::nullopt;
    types.push_back(&d->type);
  }
  for (const TensorType& t :
       row.infer(TypeList(std::span<const TensorType* const>(types)), groups, attrs))
    if (numel_of(t) > kMaxEvaluatedElements) return std::nullopt;
  std::vector<TensorData> data;
  data.reserve(inputs.size());
  for (const TensorData* d : inputs) data.push_back(*d);
  return evaluate_op(row, groups, attrs, data, kernel_ctx_, hint, row.full_name(kAtenDialect));
}

std::optional<std::vector<Value*>> Importer::fold(const OpInfo& row, const std::vector<Value*>& inputs,
                                                  const std::vector<OperandGroup>& groups, const Attrs& attrs,
                                                  const std::string& hint) {
  SmallVector<const TensorData*, 4> data;
  for (const Value* v : inputs) {
    const TensorData* d = v->producer()->is_placeholder() ? known(v) : nullptr;  // a constant
    if (!d) return std::nullopt;
    data.push_back(d);
  }
  auto outs = fold_data(row, data, groups, attrs, hint);
  if (!outs) return std::nullopt;
  std::vector<Value*> results;
  results.reserve(outs->size());
  for (TensorData& out : *outs) results.push_back(add_constant_placeholder(next_folded_target(), out));
  return results;
}

// `_prop_tensor_constant<N>`, the next N that no store key or ONNX tensor
// name takes (a tensor may become a constant of its own name later).
std::string Importer::next_folded_target() {
  while (true) {
    std::string t = "_prop_tensor_constant" + std::to_string(next_folded_++);
    if (!program_.constants.count(t) && !program_.state.count(t) && !entries_.count(t) &&
        !(producers_ && producers_->count(t)))
      return t;
  }
}

Value* Importer::emit(const std::string& op, const std::vector<Value*>& inputs, const Attrs& attrs,
                      const std::string& hint) {
  return emit_n(op, inputs, attrs, hint)[0];
}

const TensorData* Importer::known(const Value* v) const {
  auto it = known_.find(v);
  return it == known_.end() ? nullptr : &it->second;
}

Entry Importer::entry_of(Value* v) const {
  Entry e;
  e.type = v->type();
  e.value = v;
  if (const TensorData* d = known(v)) e.data = *d;
  return e;
}

namespace {

/// "'a'", "'a', 'b'".
std::string quoted_list(const std::set<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "'" : ", '") + n + "'";
  return s;
}

}  // namespace

// Walks back from `name` through the nodes that compute it to the graph
// inputs it reads: as data (fixable with --fix-inputs) or, through Shape
// and Size, only their sizes (fixable with --dim). Known values (constants,
// fixed inputs) and static shapes end a path. Run only to write a message.
std::string Importer::run_time_sources(const std::string& name) const {
  std::set<std::string> inputs, dims, unnamed;  // unnamed: inputs of dims with neither size nor name
  std::set<std::string> graph_inputs;
  if (graph_)
    for (const auto& vi : graph_->input()) graph_inputs.insert(vi.name());
  std::set<std::pair<std::string, bool>> seen;
  std::vector<std::pair<std::string, bool>> stack = {{name, false}};  // {value, only its shape is read}
  while (!stack.empty()) {
    const auto [v, shape_only] = stack.back();
    stack.pop_back();
    if (!seen.insert({v, shape_only}).second) continue;
    auto e = entries_.find(v);
    if (e != entries_.end()) {
      if (e->second.data || (e->second.value && known(e->second.value))) continue;
      if (shape_only && e->second.type.is_static()) continue;
    }
    if (graph_inputs.count(v)) {
      if (!shape_only) {
        inputs.insert(v);
      } else if (e != entries_.end()) {
        for (const Dim& d : e->second.type.dims) {
          if (d.kind != Dim::Kind::Symbolic) continue;
          if (unnamed_dims_.count(d.symbol.str())) {
            unnamed.insert(v);  // sized with --shape: the model names no dim --dim could name
            continue;
          }
          dims.insert(dim_params_.count(d.symbol.str()) ? dim_params_.at(d.symbol.str()) : d.symbol.str());
        }
      }
      continue;
    }
    if (!producers_ || !graph_) continue;
    auto p = producers_->find(v);
    if (p == producers_->end()) continue;
    const onnx::NodeProto& node = graph_->node(p->second);
    const bool reads_shape = node.op_type() == "Shape" || node.op_type() == "Size";
    for (const auto& in : node.input())
      if (!in.empty()) stack.push_back({in, shape_only || reads_shape});
  }
  if (inputs.empty() && dims.empty() && unnamed.empty())
    return "by operators whose results the importer does not compute at import time; export it as a constant";
  std::string from = "from ";
  if (!inputs.empty()) from += (inputs.size() == 1 ? "graph input " : "graph inputs ") + quoted_list(inputs);
  if (!dims.empty())
    from += std::string(inputs.empty() ? "" : " and ") +
            (dims.size() == 1 ? "the symbolic dim " : "the symbolic dims ") + quoted_list(dims);
  if (!unnamed.empty())
    from += std::string(inputs.empty() && dims.empty() ? "" : " and ") + "the dims of " +
            (unnamed.size() == 1 ? "graph input " : "graph inputs ") + quoted_list(unnamed) +
            " that the model neither sizes nor names (" + unnamed_dims_in(unnamed) + ")";
  std::string fix = "; fix ";
  fix += inputs.size() + dims.size() + unnamed.size() == 1 ? "it" : "them";
  fix += " at compile time (edgec compile";
  if (!inputs.empty())
    fix += " --fix-inputs FILE.npz with " + std::string(inputs.size() == 1 ? "an array named " : "arrays named ") +
           quoted_list(inputs);
  if (!inputs.empty() && !(dims.empty() && unnamed.empty())) fix += ", and";
  for (const std::string& d : dims) fix += " --dim " + d + "=SIZE";
  for (const std::string& u : unnamed) fix += " " + shape_flag(u);
  fix += ")";
  if (!inputs.empty())
    fix += std::string(", or export the model with ") +
           (inputs.size() == 1 ? "that input as a constant" : "them as constants");
  return from + fix;
}

std::string Importer::dim_fix(const Dims& dims) const {
  std::set<std::string> names;
  for (const Dim& d : dims) {
    auto it = d.kind == Dim::Kind::Symbolic ? dim_params_.find(d.symbol.str()) : dim_params_.end();
    if (it == dim_params_.end())
      return "; fix the graph input dims it is computed from at compile time (edgec compile --dim NAME=SIZE, or "
             "--shape INPUT=SIZExSIZE... for every dim of an input)";
    names.insert(it->second);
  }
  // An unnamed dim is sized with its input's --shape (the model names no
  // dim --dim could name): "--shape x=1x3xSIZExSIZE".
  std::set<std::string> shapes;
  for (const Dim& d : dims) {
    auto u = d.kind == Dim::Kind::Symbolic ? unnamed_dims_.find(d.symbol.str()) : unnamed_dims_.end();
    if (u == unnamed_dims_.end()) continue;
    names.erase(dim_params_.at(d.symbol.str()));
    shapes.insert(u->second);
  }
  std::string flags;
  for (const std::string& name : names) flags += " --dim " + name + "=SIZE";
  for (const std::string& input : shapes) flags += " " + shape_flag(input);
  return std::string(names.size() + shapes.size() == 1 ? "; fix it" : "; fix them") + " at compile time (edgec compile" +
         flags + ")";
}

std::string Importer::shape_flag(const std::string& input) const {
  std::string shape;
  if (auto e = entries_.find(input); e != entries_.end())
    for (const Dim& d : e->second.type.dims)
      shape += (shape.empty() ? "" : "x") + (d.is_static() ? std::to_string(d.value) : std::string("SIZE"));
  return "--shape " + input + "=" + (shape.empty() ? "SIZE" : shape);
}

std::string Importer::unnamed_dims_in(const std::set<std::string>& inputs) const {
  std::string s;
  for (const auto& [symbol, input] : unnamed_dims_)
    if (inputs.count(input)) s += (s.empty() ? "" : ", ") + symbol;
  return s;
}

namespace {

/// Whether `word` stands in `text` as a whole identifier.
bool mentions(const std::string& text, const std::string& word) {
  const auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const size_t end = at + word.size();
    if ((at == 0 || !ident(text[at - 1])) && (end == text.size() || !ident(text[end]))) return true;
  }
  return false;
}

}  // namespace

std::string Importer::unnamed_dims_note(const std::string& message) const {
  // Graph input -> the positions of its unnamed dims the message mentions
  // ("input_dim0"), in order.
  std::map<std::string, std::vector<std::pair<size_t, std::string>>> by_input;
  for (const auto& [symbol, input] : unnamed_dims_) {
    if (!mentions(message, symbol)) continue;
    auto e = entries_.find(input);
    if (e == entries_.end()) continue;
    const Dims& dims = e->second.type.dims;
    for (size_t i = 0; i < dims.size(); ++i)
      if (dims[i].kind == Dim::Kind::Symbolic && dims[i].symbol.str() == symbol) by_input[input].push_back({i, symbol});
  }
  std::string note;
  for (auto& [input, found] : by_input) {
    if (message.find("--shape " + input + "=") != std::string::npos) continue;  // already said
    std::sort(found.begin(), found.end());
    std::string symbols, positions;
    for (size_t k = 0; k < found.size(); ++k) {
      const char* sep = k == 0 ? "" : k + 1 == found.size() ? " and " : ", ";
      symbols += sep + found[k].second;
      positions += sep + std::to_string(found[k].first);
    }
    const bool one = found.size() == 1;
    note += "; " + symbols + (one ? " is dim " : " are dims ") + positions + " of graph input '" + input +
            "', which the model neither sizes nor names (edgec compile " + shape_flag(input) + " sizes " +
            (one ? "it" : "them") + ")";
  }
  return note;
}

Value* Importer::full(const std::vector<int64_t>& shape, double value, DType dtype, const std::string& hint) {
  return emit("full", {}, attrs_of({{"shape", shape}, {"value", value}, {"dtype", dtype}}), hint);
}
Value* Importer::permute(Value* x, std::vector<int64_t> perm, const std::string& hint) {
  const int64_t rank = x->type().rank();
  // Callers pass permutations of [0, rank) (Transpose checks its perm).
  std::vector<bool> seen(perm.size());
  bool valid = static_cast<int64_t>(perm.size()) == rank;
  for (size_t i = 0; valid && i < perm.size(); ++i) {
    valid = perm[i] >= 0 && perm[i] < rank && !seen[perm[i]];
    if (valid) seen[perm[i]] = true;
  }
  if (!valid) internal_error("permute of " + x->type().str() + " with an invalid permutation");
  Node* producer = x->producer();
  if (producer->is_call() && producer->op() == "aten.permute.default") {
    const std::vector<int64_t>* inner = producer->attrs().get_ints("dims");
    if (inner && inner->size() == perm.size()) {
      std::vector<int64_t> composed;
      bool in_range = true;
      for (int64_t p : perm) {
        in_range &= p >= 0 && p < rank;
        if (in_range) composed.push_back((*inner)[p] < 0 ? (*inner)[p] + rank : (*inner)[p]);
      }
      if (in_range) {
        x = producer->input(0);
        perm = std::move(composed);
      }
    }
  }
  bool identity = true;
  for (int64_t i = 0; i < rank; ++i) identity &= perm[i] == i;
  if (identity) return x;
  return emit("permute", {x}, attrs_of({{"dims", perm}}), hint);
}

}  // namespace edgec::onnx_import

// Importer: lazy materialization of entries, emitting calls typed by the
// operator table, and import-time evaluation of calls whose inputs are all
// known (so that shape computations on constants fold).
#include "frontends/onnx/context.h"

#include "interpreter/interpreter.h"
#include "ir/diagnostic.h"
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

Value* Importer::materialize(const std::string& name) {
  Entry& e = entries_.at(name);
  if (!e.unavailable.empty()) throw CompileError(e.unavailable);
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
  throw CompileError("internal error: tensor '" + name + "' has no value");
}

std::vector<Value*> Importer::emit_n(const std::string& op, const std::vector<Value*>& inputs, const Attrs& attrs,
                                     const std::string& hint, std::vector<OperandGroup> groups) {
  const OpInfo* row = find_op_by_name(op);
  if (!row) throw CompileError("internal error: no operator '" + op + "' in the operator table");
  if (groups.empty()) groups.assign(inputs.size(), OperandGroup{});
  std::vector<TensorType> in_types;
  for (const Value* v : inputs) in_types.push_back(v->type());
  CallSpec spec;
  spec.op = row->full_name(kAtenDialect);
  spec.inputs = inputs;
  spec.groups = groups;
  spec.attrs = attrs;
  spec.result_types = row->shape(ShapeQuery{row->name, in_types, groups, attrs});
  for (size_t i = 0; i < spec.result_types.size(); ++i)
    spec.result_names.push_back(i == 0 ? hint : hint + "_" + std::to_string(i));
  Node* call = program_.graph.create_call(std::move(spec));

  // Evaluate calls on known data, so that later nodes can read the values
  // (a Reshape's shape computed by Cast/Mul from constants).
  bool all_known = row->core && !(row->flags & kOpRandom);
  int64_t total = 0;
  std::vector<TensorData> ins;
  for (const Value* v : inputs) {
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

Value* Importer::full(const std::vector<int64_t>& shape, double value, DType dtype, const std::string& hint) {
  return emit("full", {}, attrs_of({{"shape", shape}, {"value", value}, {"dtype", dtype}}), hint);
}
Value* Importer::permute(Value* x, std::vector<int64_t> perm, const std::string& hint) {
  const int64_t rank = x->type().rank();
  if (static_cast<int64_t>(perm.size()) != rank)
    throw CompileError("expected a permutation of " + std::to_string(rank) + " dims for " + x->type().str() + ", got " +
                       std::to_string(perm.size()));
  for (int64_t& p : perm)
    if (p < 0) p += rank;
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

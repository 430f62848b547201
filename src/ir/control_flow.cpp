#include "ir/control_flow.h"

#include <algorithm>
#include <unordered_map>

#include "base/diagnostic.h"
#include "ir/operator.h"

namespace edgec {
namespace {

std::string where(const Node& n) { return "node " + n.label() + " (" + n.op() + ")"; }

// A region's outputs (empty when it has no output node).
std::span<Value* const> outputs_of(const Graph& g) {
  const Node* out = g.output_node();
  return out ? out->inputs() : std::span<Value* const>{};
}

// Whether a dim may hold the sizes `d` may have.
bool holds(const Dim& outer, const Dim& d) {
  if (outer == d) return true;
  if (outer.is_static()) return false;
  const auto ub = outer.upper_bound(), need = d.upper_bound();
  return ub && need && *need <= *ub;
}

// The type both branches' outputs fit: equal dims stay, others become
// data-dependent with the larger bound.
TensorType merge_branch_types(const TensorType& a, const TensorType& b, const std::string& what) {
  if (a.dtype != b.dtype || a.rank() != b.rank())
    throw CompileError(what + ": the branches give " + a.str() + " and " + b.str() +
                       "; expected one dtype and rank (a result of either branch has one type)");
  TensorType t = a;
  for (size_t i = 0; i < a.dims.size(); ++i) {
    if (a.dims[i] == b.dims[i]) continue;
    const auto ua = a.dims[i].upper_bound(), ub = b.dims[i].upper_bound();
    if (!ua || !ub)
      throw CompileError(what + ": the branches give " + a.str() + " and " + b.str() + ", and dim " +
                         std::to_string(i) + " differs without a bound (bound the symbol with --max-dim)");
    t.dims[i] = Dim::dynamic(std::max(*ua, *ub));
  }
  return t;
}

bool is_flag_type(const TensorType& t, DType dtype) {
  auto n = t.max_numel();
  return t.dtype == dtype && t.is_static() && n && *n == 1;
}

}  // namespace

ControlOperands control_operands(const Node& call) {
  const auto groups = call.operand_groups();
  const auto ins = call.inputs();
  auto list = [&](size_t g, size_t first) {
    return ins.subspan(first, static_cast<size_t>(groups[g].count));
  };
  if (call.is_cond()) {
    if (groups.size() != 2 || groups[0].is_list || !groups[1].is_list)
      throw CompileError(where(call) + ": expected operands (%pred, [captures])");
    return {{}, list(1, 1)};
  }
  if (call.is_loop()) {
    if (groups.size() != 4 || groups[0].is_list || groups[1].is_list || !groups[2].is_list || !groups[3].is_list)
      throw CompileError(where(call) + ": expected operands (%trips, %cond, [carried], [captures])");
    return {list(2, 2), list(3, 2 + static_cast<size_t>(groups[2].count))};
  }
  throw CompileError(where(call) + " is not a control-flow call");
}

std::vector<TensorType> control_flow_result_types(const Node& call) {
  const ControlOperands ops = control_operands(call);
  if (call.is_cond()) {
    if (call.num_regions() != 2) throw CompileError(where(call) + ": expected two regions (then, else)");
    const auto a = outputs_of(call.region(0)), b = outputs_of(call.region(1));
    if (a.size() != b.size())
      throw CompileError(where(call) + ": the then branch returns " + std::to_string(a.size()) +
                         " value(s), the else branch " + std::to_string(b.size()));
    std::vector<TensorType> types;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!a[i] || !b[i]) throw CompileError(where(call) + ": a branch has no value for output " + std::to_string(i));
      types.push_back(merge_branch_types(a[i]->type(), b[i]->type(), where(call) + " result " + std::to_string(i)));
    }
    return types;
  }
  if (call.num_regions() != 1) throw CompileError(where(call) + ": expected one region (the body)");
  const auto outs = outputs_of(call.region(0));
  const size_t carried = ops.carried.size();
  if (outs.size() < 1 + carried)
    throw CompileError(where(call) + ": the body returns " + std::to_string(outs.size()) + " value(s); expected at least " +
                       std::to_string(1 + carried) + " (the condition and the carried values)");
  std::vector<TensorType> types;
  for (Value* v : ops.carried) types.push_back(v->type());
  for (size_t k = 1 + carried; k < outs.size(); ++k) {
    if (!outs[k]) throw CompileError(where(call) + ": the body has no value for output " + std::to_string(k));
    const size_t r = k - 1;
    TensorType t = outs[k]->type();
    Dim stack = r < call.num_results() && call.result(r)->type().rank() > 0 ? call.result(r)->type().dims[0]
                                                                           : Dim::dynamic(-1);
    // A symbolic dim 0 (a Scan's length) takes the bound its symbol has
    // now on the operands (set after import by --max-dim).
    if (stack.kind == Dim::Kind::Symbolic)
      for (const Value* v : call.inputs())
        for (const Dim& d : v->type().dims)
          if (d.kind == Dim::Kind::Symbolic && d.symbol == stack.symbol) stack = d;
    t.dims.insert(t.dims.begin(), stack);
    types.push_back(std::move(t));
  }
  return types;
}

std::vector<std::string> control_flow_problems(const Node& call) {
  std::vector<std::string> problems;
  ControlOperands ops;
  try {
    ops = control_operands(call);
  } catch (const CompileError& e) {
    return {e.what()};
  }
  for (Value* v : call.inputs())
    if (!v) return {where(call) + " has a missing operand"};
  auto check_placeholders = [&](const Graph& g, const std::string& region, std::span<const TensorType> expected) {
    const auto phs = g.placeholders();
    if (phs.size() != expected.size()) {
      problems.push_back(where(call) + ": " + region + " has " + std::to_string(phs.size()) + " placeholder(s); expected " +
                         std::to_string(expected.size()));
      return;
    }
    for (size_t i = 0; i < phs.size(); ++i)
      if (!(phs[i]->result()->type() == expected[i]))
        problems.push_back(where(call) + ": " + region + " placeholder " + phs[i]->label() + " has type " +
                           phs[i]->result()->type().str() + "; the call binds it to " + expected[i].str());
    if (!g.output_node()) problems.push_back(where(call) + ": " + region + " has no output node");
  };
  std::vector<TensorType> captured;
  for (Value* v : ops.captures) captured.push_back(v->type());
  if (call.is_cond()) {
    if (!is_flag_type(call.input(0)->type(), DType::Bool))
      problems.push_back(where(call) + ": the condition %" + call.input(0)->name() + " is " +
                         call.input(0)->type().str() + "; expected one bool");
    if (call.num_regions() != 2) {
      problems.push_back(where(call) + " has " + std::to_string(call.num_regions()) + " region(s); expected 2 (then, else)");
      return problems;
    }
    check_placeholders(call.region(0), "the then branch", captured);
    check_placeholders(call.region(1), "the else branch", captured);
  } else {
    if (!is_flag_type(call.input(0)->type(), DType::Int64))
      problems.push_back(where(call) + ": the trip count %" + call.input(0)->name() + " is " +
                         call.input(0)->type().str() + "; expected one i64");
    if (!is_flag_type(call.input(1)->type(), DType::Bool))
      problems.push_back(where(call) + ": the condition %" + call.input(1)->name() + " is " +
                         call.input(1)->type().str() + "; expected one bool");
    if (call.num_regions() != 1) {
      problems.push_back(where(call) + " has " + std::to_string(call.num_regions()) + " region(s); expected 1 (the body)");
      return problems;
    }
    std::vector<TensorType> expected = {TensorType{DType::Int64, {}}, TensorType{DType::Bool, {}}};
    for (Value* v : ops.carried) expected.push_back(v->type());
    expected.insert(expected.end(), captured.begin(), captured.end());
    const Graph& body = call.region(0);
    check_placeholders(body, "the body", expected);
    const auto outs = outputs_of(body);
    if (!outs.empty() && outs[0] && !(outs[0]->type() == TensorType{DType::Bool, {}}))
      problems.push_back(where(call) + ": the body's condition output %" + outs[0]->name() + " is " +
                         outs[0]->type().str() + "; expected bool[]");
    for (size_t i = 0; i < ops.carried.size() && 1 + i < outs.size(); ++i)
      if (outs[1 + i] && !(outs[1 + i]->type() == ops.carried[i]->type()))
        problems.push_back(where(call) + ": carried value " + std::to_string(i) + " enters the body as " +
                           ops.carried[i]->type().str() + " and leaves it as " + outs[1 + i]->type().str() +
                           " (%" + outs[1 + i]->name() + "); a carried value keeps its type");
    // The runtime copies the body's outputs out after each iteration: each
    // must be a result of a call of the body, and each a different one.
    std::vector<const Value*> seen;
    for (size_t k = 0; k < outs.size(); ++k) {
      const Value* v = outs[k];
      if (!v) continue;
      if (!v->producer()->is_call())
        problems.push_back(where(call) + ": body output " + std::to_string(k) + " %" + v->name() +
                           " is a placeholder; a body returns results of its own calls (clone it)");
      else if (std::find(seen.begin(), seen.end(), v) != seen.end())
        problems.push_back(where(call) + ": body output " + std::to_string(k) + " %" + v->name() +
                           " is returned twice; a body returns each value once (clone it)");
      seen.push_back(v);
    }
    for (size_t r = ops.carried.size(); r < call.num_results(); ++r) {
      const TensorType& t = call.result(r)->type();
      if (t.rank() == 0 || (t.dims[0].kind == Dim::Kind::Dynamic && !t.dims[0].upper_bound()))
        problems.push_back(where(call) + ": stacked result %" + call.result(r)->name() + " is " + t.str() +
                           "; its dim 0 (one row per iteration) needs a size, a symbol or a bound");
    }
  }
  if (!problems.empty()) return problems;
  std::vector<TensorType> types;
  try {
    types = control_flow_result_types(call);
  } catch (const CompileError& e) {
    return {e.what()};
  }
  if (types.size() != call.num_results()) {
    problems.push_back(where(call) + " has " + std::to_string(call.num_results()) + " result(s), but its regions give " +
                       std::to_string(types.size()));
    return problems;
  }
  for (size_t i = 0; i < types.size(); ++i) {
    const TensorType& got = call.result(i)->type();
    bool ok = got.dtype == types[i].dtype && got.rank() == types[i].rank();
    for (size_t d = 0; ok && d < got.dims.size(); ++d) ok = holds(got.dims[d], types[i].dims[d]);
    if (!ok)
      problems.push_back("result %" + call.result(i)->name() + " of " + where(call) + " has type " + got.str() +
                         ", but its regions give " + types[i].str());
  }
  return problems;
}

namespace {

Node* create_control(Graph& g, CallSpec spec, std::vector<std::unique_ptr<Graph>> regions, Node* before) {
  Node* n = g.create_call(std::move(spec), before);
  for (auto& r : regions) n->adopt_region(std::move(r));
  return n;
}

}  // namespace

Node* create_cond(Graph& g, Value* pred, const std::vector<Value*>& captures, std::unique_ptr<Graph> then_branch,
                  std::unique_ptr<Graph> else_branch, const std::vector<std::string>& result_names, Node* before) {
  CallSpec spec;
  spec.op = std::string(kCondOp);
  spec.inputs = {pred};
  spec.inputs.insert(spec.inputs.end(), captures.begin(), captures.end());
  spec.groups = {OperandGroup{}, OperandGroup{true, static_cast<int>(captures.size())}};
  const auto a = outputs_of(*then_branch), b = outputs_of(*else_branch);
  if (a.size() != b.size())
    throw CompileError("cond: the then branch returns " + std::to_string(a.size()) + " value(s), the else branch " +
                       std::to_string(b.size()));
  for (size_t i = 0; i < a.size(); ++i)
    spec.result_types.push_back(merge_branch_types(a[i]->type(), b[i]->type(), "cond result " + std::to_string(i)));
  spec.result_names = result_names;
  std::vector<std::unique_ptr<Graph>> regions;
  regions.push_back(std::move(then_branch));
  regions.push_back(std::move(else_branch));
  return create_control(g, std::move(spec), std::move(regions), before);
}

Node* create_loop(Graph& g, Value* trips, Value* cond, const std::vector<Value*>& carried,
                  const std::vector<Value*>& captures, std::unique_ptr<Graph> body, Dim stack_dim,
                  const std::vector<std::string>& result_names, Node* before) {
  CallSpec spec;
  spec.op = std::string(kLoopOp);
  spec.inputs = {trips, cond};
  spec.inputs.insert(spec.inputs.end(), carried.begin(), carried.end());
  spec.inputs.insert(spec.inputs.end(), captures.begin(), captures.end());
  spec.groups = {OperandGroup{}, OperandGroup{}, OperandGroup{true, static_cast<int>(carried.size())},
                 OperandGroup{true, static_cast<int>(captures.size())}};
  const auto outs = outputs_of(*body);
  for (Value* v : carried) spec.result_types.push_back(v->type());
  for (size_t k = 1 + carried.size(); k < outs.size(); ++k) {
    TensorType t = outs[k]->type();
    t.dims.insert(t.dims.begin(), stack_dim);
    spec.result_types.push_back(std::move(t));
  }
  spec.result_names = result_names;
  std::vector<std::unique_ptr<Graph>> regions;
  regions.push_back(std::move(body));
  return create_control(g, std::move(spec), std::move(regions), before);
}

std::vector<Value*> capture(Node* call, Value* outer) {
  const ControlOperands ops = control_operands(*call);
  std::vector<Value*> out;
  for (size_t i = 0; i < ops.captures.size(); ++i) {
    if (ops.captures[i] != outer) continue;
    // Already captured: the i-th capture's placeholder of each region.
    const size_t before_captures = call->is_loop() ? 2 + ops.carried.size() : 0;
    for (size_t r = 0; r < call->num_regions(); ++r)
      out.push_back(call->region(r).placeholders().at(before_captures + i)->result());
    return out;
  }
  call->append_to_last_list(outer);
  for (size_t r = 0; r < call->num_regions(); ++r) {
    Graph& region = call->region(r);
    out.push_back(region.add_placeholder(outer->name(), outer->type())->result());
  }
  return out;
}

bool prune_captures(Node* call) {
  const ControlOperands ops = control_operands(*call);
  const size_t first_input = call->inputs().size() - ops.captures.size();
  const size_t first_placeholder = call->is_loop() ? 2 + ops.carried.size() : 0;
  bool changed = false;
  for (size_t k = ops.captures.size(); k-- > 0;) {
    bool read = false;
    for (size_t r = 0; r < call->num_regions(); ++r)
      read |= call->region(r).placeholders().at(first_placeholder + k)->result()->has_uses();
    if (read) continue;
    for (size_t r = 0; r < call->num_regions(); ++r)
      call->region(r).erase(call->region(r).placeholders().at(first_placeholder + k));
    call->erase_from_last_list(first_input + k);
    changed = true;
  }
  return changed;
}

std::vector<Value*> inline_region(Graph& dst, Node* before, const Graph& region, std::span<Value* const> args) {
  std::unordered_map<const Value*, Value*> map;
  const auto phs = region.placeholders();
  if (phs.size() != args.size())
    throw CompileError("internal error: a region of " + std::to_string(phs.size()) + " placeholders inlined with " +
                       std::to_string(args.size()) + " values");
  for (size_t i = 0; i < phs.size(); ++i) map[phs[i]->result()] = args[i];
  for (const Node* n : region.calls()) {
    CallSpec spec;
    spec.op = n->op();
    for (const Value* v : n->inputs()) spec.inputs.push_back(map.at(v));
    spec.groups.assign(n->operand_groups().begin(), n->operand_groups().end());
    spec.attrs = n->attrs();
    for (size_t r = 0; r < n->num_results(); ++r) {
      spec.result_types.push_back(n->result(r)->type());
      spec.result_names.push_back(n->result(r)->name());
    }
    Node* copy = dst.create_call(std::move(spec), before);
    copy->set_tag(n->tag());
    copy->set_refusals(n->refusals());
    for (size_t i = 0; i < n->num_regions(); ++i) {
      const Graph& inner = n->region(i);
      auto clone = std::make_unique<Graph>(dst.root());
      std::vector<Value*> inner_args;
      for (const Node* ph : inner.placeholders())
        inner_args.push_back(clone->add_placeholder(ph->result()->name(), ph->result()->type())->result());
      clone->set_outputs(inline_region(*clone, nullptr, inner, inner_args));
      copy->adopt_region(std::move(clone));
    }
    for (size_t r = 0; r < n->num_results(); ++r) map[n->result(r)] = copy->result(r);
  }
  std::vector<Value*> outs;
  for (const Value* v : outputs_of(region)) outs.push_back(map.at(v));
  return outs;
}

bool bound_loop_rows(Graph& g, const std::map<std::string, int64_t>& sizes,
                     const std::map<std::string, int64_t>& bounds, std::set<std::string>& symbols) {
  bool changed = false;
  for_each_graph(g, [&](Graph& graph) {
    for (Node* n : graph.calls())
      for (size_t r = 0; n->is_loop() && r < n->num_results(); ++r) {
        TensorType t = n->result(r)->type();
        if (t.rank() == 0 || t.dims[0].kind != Dim::Kind::Symbolic) continue;
        Dim& d = t.dims[0];
        symbols.insert(d.symbol.str());
        if (auto it = sizes.find(d.symbol.str()); it != sizes.end()) d.value = it->second;
        else if (auto b = bounds.find(d.symbol.str()); b != bounds.end()) d.value = b->second;
        if (t == n->result(r)->type()) continue;
        n->result(r)->set_type(std::move(t));
        changed = true;
      }
  });
  return changed;
}

void refresh_graph_types(Graph& g) {
  for (Node* n : g.calls()) {
    std::vector<TensorType> types;
    try {
      if (n->is_control_flow()) {
        const ControlOperands ops = control_operands(*n);
        // Placeholders take the types the call binds them to.
        std::vector<const Value*> bound;
        if (n->is_loop()) bound = {nullptr, nullptr};
        bound.insert(bound.end(), ops.carried.begin(), ops.carried.end());
        bound.insert(bound.end(), ops.captures.begin(), ops.captures.end());
        for (size_t r = 0; r < n->num_regions(); ++r) {
          const auto phs = n->region(r).placeholders();
          for (size_t i = 0; i < phs.size() && i < bound.size(); ++i)
            if (bound[i]) phs[i]->result()->set_type(bound[i]->type());
          refresh_graph_types(n->region(r));
        }
        types = control_flow_result_types(*n);
      } else if (const OpInfo* op = op_of(*n)) {
        types = infer_result_types(*op, *n);
      } else {
        continue;  // the verifier reports it
      }
    } catch (const CompileError& e) {
      throw CompileError("node " + n->label() + " (" + n->op() + "): " + e.what());
    }
    for (size_t i = 0; i < types.size() && i < n->num_results(); ++i) n->result(i)->set_type(types[i]);
  }
}

}  // namespace edgec

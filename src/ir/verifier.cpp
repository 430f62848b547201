// Verifier: one pass over the graph and the signature, collecting every
// problem rather than stopping at the first, so that a user fixing a
// hand-written program sees them all at once.
#include "ir/verifier.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "base/diagnostic.h"
#include "ir/control_flow.h"
#include "ir/operator.h"

namespace edgec {
namespace {

std::string q(const std::string& s) { return "'" + s + "'"; }

class Verifier {
 public:
  explicit Verifier(const Program& p) : p_(p) {}

  std::vector<std::string> run() {
    if (!is_known_dialect(p_.dialect)) {
      error("unknown dialect " + q(p_.dialect) + "; expected 'aten' or 'edge'");
      return errors_;
    }
    check_node_order(p_.graph);
    if (!p_.graph.output_node()) error("the graph has no output node");
    check_inputs();
    check_calls(p_.graph);
    check_outputs();
    check_delegates();
    return errors_;
  }

 private:
  void error(std::string msg) { errors_.push_back(prefix_ + std::move(msg)); }

  void check_node_order(const Graph& g) {
    bool seen_call = false;
    const auto nodes = g.nodes();
    for (size_t i = 0; i < nodes.size(); ++i) {
      const Node* n = nodes[i];
      if (n->is_placeholder() && seen_call)
        error("placeholder " + n->label() + " comes after a call; placeholders must come first");
      if (n->is_placeholder() && n->result()->type().dims.size() > static_cast<size_t>(kMaxRank))
        error("placeholder " + n->label() + " has rank " + std::to_string(n->result()->type().dims.size()) +
              "; edgec supports ranks up to " + std::to_string(kMaxRank));
      if (n->is_call()) seen_call = true;
      if (n->is_output() && i + 1 != nodes.size())
        error("the output node must be the last node of the graph");
    }
  }

  /// A control-flow call: its structure, then each region as a graph of
  /// its own, its errors prefixed with where it is.
  void check_control_flow(const Node* n) {
    for (std::string& problem : control_flow_problems(*n)) error(std::move(problem));
    const std::string outer = prefix_;
    for (size_t r = 0; r < n->num_regions(); ++r) {
      const char* name = n->is_loop() ? "the body" : r == 0 ? "the then branch" : "the else branch";
      prefix_ = outer + "in " + name + " of " + where_of(n) + ": ";
      check_node_order(n->region(r));
      check_calls(n->region(r));
    }
    prefix_ = outer;
  }

  void check_inputs() {
    const auto placeholders = p_.graph.placeholders();
    if (placeholders.size() != p_.inputs.size()) {
      error("the signature has " + std::to_string(p_.inputs.size()) + " input spec(s) but the graph has " +
            std::to_string(placeholders.size()) + " placeholder(s)");
    }
    const size_t n = std::min(placeholders.size(), p_.inputs.size());
    // For each input whose target an earlier one already lists, that
    // earlier one: found by sorting (hash of target, index) pairs once and
    // comparing targets only within a run of equal hashes, so there is no
    // allocation per input and no string comparison per sorting step.
    std::vector<size_t> earlier(n, SIZE_MAX);
    {
      std::vector<std::pair<size_t, size_t>> targets;
      targets.reserve(n);
      for (size_t i = 0; i < n; ++i)
        if (p_.inputs[i].kind != InputKind::UserInput && !p_.inputs[i].target.empty() &&
            placeholders[i]->result()->name() == p_.inputs[i].arg)
          targets.emplace_back(std::hash<std::string_view>()(p_.inputs[i].target), i);
      std::sort(targets.begin(), targets.end());
      for (size_t run = 0; run < targets.size();) {
        size_t end = run + 1;
        while (end < targets.size() && targets[end].first == targets[run].first) ++end;
        for (size_t k = run + 1; k < end; ++k)
          for (size_t j = run; j < k; ++j)
            if (earlier[targets[j].second] == SIZE_MAX &&
                p_.inputs[targets[j].second].target == p_.inputs[targets[k].second].target) {
              earlier[targets[k].second] = targets[j].second;
              break;
            }
        run = end;
      }
    }
    for (size_t i = 0; i < n; ++i) {
      const InputSpec& spec = p_.inputs[i];
      const Node* ph = placeholders[i];
      const char* kind = input_kind_name(spec.kind);
      if (ph->result()->name() != spec.arg) {
        error("input spec " + std::to_string(i) + " (" + kind + ") names %" + spec.arg +
              ", but placeholder " + std::to_string(i) + " is " + ph->label());
        continue;
      }
      if (spec.kind == InputKind::UserInput) continue;
      if (spec.target.empty()) {
        error(std::string(kind) + " placeholder " + ph->label() + " has no target");
        continue;
      }
      if (earlier[i] != SIZE_MAX)
        error("target " + q(spec.target) + " is listed by two placeholders: " + placeholders[earlier[i]]->label() +
              " and " + ph->label());
      const Store& store = p_.store_for(spec);
      const char* store_name = Program::requires_state(spec) ? "state" : "constants";
      auto data = store.find(spec.target);
      if (data == store.end()) {
        std::string what = kind;
        if (spec.kind == InputKind::Buffer) what = spec.persistent ? "persistent buffer" : "non-persistent buffer";
        error(what + " " + ph->label() + ": target " + q(spec.target) + " is missing from " + store_name);
        continue;
      }
      if (!(data->second.type == ph->result()->type())) {
        error("placeholder " + ph->label() + " has type " + ph->result()->type().str() + ", but " +
              store_name + " holds " + q(spec.target) + " as " + data->second.type.str());
      }
    }
  }

  // Where a node is, for messages; built only when there is one to write
  // (a string per node made verifying a 100k-node graph allocation-bound).
  static std::string where_of(const Node* n) {
    return n->is_call() ? n->label() + " (" + n->op() + ")" : std::string("output");
  }

  void check_calls(const Graph& g) {
    // An input whose producer is not before its reader (or not in this
    // graph) is used before it is defined.
    const auto nodes = g.nodes();
    for (size_t at = 0; at < nodes.size(); ++at) {
      const Node* n = nodes[at];
      if (n->is_placeholder()) continue;
      for (size_t i = 0; i < n->inputs().size(); ++i) {
        const Value* v = n->input(i);
        if (!v) {
          error("node " + where_of(n) + " has no value for input " + std::to_string(i));
          continue;
        }
        if (const size_t def = g.position(v->producer()); def == SIZE_MAX && v->producer()->graph() != &g)
          error("node " + where_of(n) + " reads %" + v->name() + " of another graph" +
                (g.is_region() ? " (a region reads enclosing values through its call's captures)" : ""));
        else if (def == SIZE_MAX || def >= at)
          error("node " + where_of(n) + " uses %" + v->name() + " before it is defined");
      }
      if (!n->is_call()) continue;
      for (size_t r = 0; r < n->num_results(); ++r)
        if (n->result(r)->type().dims.size() > static_cast<size_t>(kMaxRank))
          error("result %" + n->result(r)->name() + " of node " + where_of(n) + " has rank " +
                std::to_string(n->result(r)->type().dims.size()) + "; edgec supports ranks up to " +
                std::to_string(kMaxRank));
      if (n->is_delegate_call()) {
        if (g.is_region()) error("node " + where_of(n) + " calls a delegate inside a region; regions run on the portable kernels");
        else check_delegate_call(n);
        continue;
      }
      if (n->is_control_flow()) {
        check_control_flow(n);
        continue;
      }
      if (n->num_regions() > 0) error("node " + where_of(n) + " owns regions, but only cond and loop may");
      const OpInfo* op = op_of(*n);
      if (!op) {
        error("unknown operator " + q(n->op()) + " (node " + n->label() + ")");
        continue;
      }
      if (!dialect_allows(p_.dialect, *op, std::string_view(n->op()).substr(0, n->op().find('.')))) {
        error("operator " + q(n->op()) + " is not allowed in the " + p_.dialect + " dialect (node " +
              n->label() + ")");
        continue;
      }
      check_result_types(n, *op);
    }
  }

  void check_result_types(const Node* n, const OpInfo& op) {
    for (const Value* v : n->inputs())
      if (!v) return;  // already reported
    std::vector<TensorType> inferred;
    try {
      inferred = infer_result_types(op, *n);
    } catch (const CompileError& e) {
      error("node " + where_of(n) + ": " + e.what());
      return;
    }
    // The attributes against the operator's declaration (docs/semantics.md
    // §2.5): a value the kernel would refuse (softplus with beta 0) is
    // refused here, before anything folds or runs it. After the shape
    // function, whose own messages are more specific where it checks.
    if (std::string problem = op.attrs_problem(n->attrs()); !problem.empty()) {
      error("node " + where_of(n) + ": " + problem);
      return;
    }
    if (inferred.size() != n->num_results()) {
      error("node " + where_of(n) + " has " + std::to_string(n->num_results()) +
            " result(s), but the operator produces " + std::to_string(inferred.size()));
      return;
    }
    for (size_t i = 0; i < inferred.size(); ++i) {
      const TensorType& got = n->result(i)->type();
      if (!(got == inferred[i])) {
        error("result %" + n->result(i)->name() + " of node " + where_of(n) + " has type " + got.str() +
              ", but the operator infers " + inferred[i].str());
      }
    }
  }

  void check_outputs() {
    const Node* out = p_.graph.output_node();
    if (!out) return;
    const auto values = out->inputs();
    std::set<std::string> buffer_targets;
    for (const auto& s : p_.inputs)
      if (s.kind == InputKind::Buffer) buffer_targets.insert(s.target);
    for (size_t i = 0; i < p_.outputs.size(); ++i) {
      const OutputSpec& spec = p_.outputs[i];
      const std::string what = "output spec " + std::to_string(i) + " (" +
                               output_kind_name(spec.kind) + " " + q(spec.target) + ")";
      if (i >= values.size() || !values[i] || values[i]->name() != spec.arg) {
        error(what + " names %" + spec.arg + ", which the graph does not return at position " +
              std::to_string(i));
        continue;
      }
      if (spec.kind == OutputKind::BufferMutation && !buffer_targets.count(spec.target))
        error(what + " mutates " + q(spec.target) + ", which is not a buffer input of the program");
    }
    if (values.size() > p_.outputs.size())
      error("the graph returns " + std::to_string(values.size()) + " value(s) but the signature has " +
            std::to_string(p_.outputs.size()) + " output spec(s)");
  }

  /// call_delegate: its inputs are the delegate's user inputs, its results
  /// the delegate's outputs, in order and of equal types.
  void check_delegate_call(const Node* n) {
    const std::string where = "call_delegate " + n->label();
    const AttrValue* index = n->attrs().find("delegate");
    if (!index || attr_kind(*index) != AttrKind::Int) {
      error(where + " has no integer attribute 'delegate'");
      return;
    }
    const int64_t i = std::get<int64_t>(*index);
    if (i < 0 || i >= static_cast<int64_t>(p_.delegates.size()) || !p_.delegates[static_cast<size_t>(i)].program) {
      error(where + " calls delegate " + std::to_string(i) + ", but the program has " +
            std::to_string(p_.delegates.size()));
      return;
    }
    if (!called_.insert(i).second) error("delegate " + std::to_string(i) + " is called twice (again by " + where + ")");
    const Program& d = *p_.delegates[static_cast<size_t>(i)].program;
    std::vector<const Value*> params;
    const auto phs = d.graph.placeholders();
    for (size_t k = 0; k < phs.size() && k < d.inputs.size(); ++k)
      if (d.inputs[k].kind == InputKind::UserInput) params.push_back(phs[k]->result());
    if (params.size() != n->inputs().size()) {
      error(where + " passes " + std::to_string(n->inputs().size()) + " value(s), but delegate " + std::to_string(i) +
            " has " + std::to_string(params.size()) + " user input(s)");
    } else {
      for (size_t k = 0; k < params.size(); ++k)
        if (n->input(k) && !(n->input(k)->type() == params[k]->type()))
          error(where + " passes %" + n->input(k)->name() + " of type " + n->input(k)->type().str() +
                " for delegate input %" + params[k]->name() + " of type " + params[k]->type().str());
    }
    const Node* out = d.graph.output_node();
    const size_t n_out = out ? out->inputs().size() : 0;
    if (n_out != n->num_results()) {
      error(where + " has " + std::to_string(n->num_results()) + " result(s), but delegate " + std::to_string(i) +
            " returns " + std::to_string(n_out));
      return;
    }
    for (size_t k = 0; k < n_out; ++k)
      if (out->input(k) && !(out->input(k)->type() == n->result(k)->type()))
        error("result %" + n->result(k)->name() + " of " + where + " has type " + n->result(k)->type().str() +
              ", but delegate " + std::to_string(i) + " returns " + out->input(k)->type().str());
  }

  /// Each delegate program is verified on its own (docs/semantics.md §5.7) and called once.
  void check_delegates() {
    for (size_t i = 0; i < p_.delegates.size(); ++i) {
      const Delegate& d = p_.delegates[i];
      const std::string where = "delegate " + std::to_string(i) + " (" + d.backend + ")";
      if (!d.program) {
        error(where + " has no program");
        continue;
      }
      for (const auto& e : verify(*d.program)) error(where + ": " + e);
      if (!called_.count(static_cast<int64_t>(i))) error(where + " is not called by any call_delegate");
    }
  }

  const Program& p_;
  std::string prefix_;  // Where the graph being checked is, inside regions.
  std::set<int64_t> called_;
  std::vector<std::string> errors_;
};

}  // namespace

std::vector<std::string> verify(const Program& program) { return Verifier(program).run(); }

void verify_or_throw(const Program& program) {
  const auto errors = verify(program);
  if (errors.empty()) return;
  std::string msg;
  for (size_t i = 0; i < errors.size(); ++i) msg += (i ? "\nerror: " : "") + errors[i];
  throw CompileError(msg);
}

}  // namespace edgec

// constant_prop (docs/semantics.md §3): evaluates, at compile time, every call whose
// inputs are all constant values, and replaces the results that non-constant
// code reads with new `constant` placeholders.
//
// Constant values are `constant` inputs, non-persistent buffers nothing
// mutates, and results of calls on constant values and literals only.
// Parameters and persistent buffers are never read: the user may replace
// them at load time. Calls whose operator is in the skip set (random and
// allocation operators, dequantize_linear, plus any the caller names) are
// left alone (folds_on_constants).
//
// Only the frontier is materialized: a folded value becomes a placeholder
// only where something non-constant (a kept call or the output) reads it, so
// intermediate results of a folded chain are never stored.
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "interpreter/interpreter.h"
#include "base/diagnostic.h"
#include "ir/control_flow.h"
#include "ir/operator.h"
#include "passes/pass_list.h"
#include "passes/program_edits.h"

namespace edgec {
namespace {

constexpr const char* kPropPrefix = "_prop_tensor_constant";

// Values with equal type and bytes, found by hash: the first value seen
// with each content stands for all later equal ones.
class EqualContents {
 public:
  /// The value first added with `data`'s type and bytes, or nullptr.
  Value* find(const TensorData& data) const {
    for (auto [it, end] = seen_.equal_range(key(data)); it != end; ++it)
      if (it->second.first.type == data.type && *it->second.first.bytes == *data.bytes) return it->second.second;
    return nullptr;
  }
  void add(const TensorData& data, Value* v) { seen_.emplace(key(data), std::pair{data, v}); }

 private:
  // The bytes' hash, mixed with the dtype and static dims (types compare
  // equal on those; a folded value's type is static).
  static size_t key(const TensorData& data) {
    size_t h = std::hash<std::string_view>()(
        std::string_view(reinterpret_cast<const char*>(data.bytes->data()), data.bytes->size()));
    auto mix = [&h](uint64_t v) { h ^= std::hash<uint64_t>()(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
    mix(static_cast<uint64_t>(data.type.dtype));
    for (const Dim& d : data.type.dims) mix(static_cast<uint64_t>(d.value));
    return h;
  }
  std::unordered_multimap<size_t, std::pair<TensorData, Value*>> seen_;
};

// Points every reader of `from` that `keep` accepts at `to`.
template <typename Keep>
void redirect_uses(Value* from, Value* to, Keep keep) {
  const std::vector<Use> uses(from->uses().begin(), from->uses().end());
  for (const Use& u : uses)
    if (keep(u.user)) u.user->set_input(static_cast<size_t>(u.input_index), to);
}

class ConstantPropagation : public Pass {
 public:
  explicit ConstantPropagation(std::set<std::string, std::less<>> skip) : skip_(std::move(skip)) {}

  bool run(Program& program) override {
    const bool top = fold_top(program);
    const bool inside = fold_regions(program);
    if (top || inside) {
      // Constants only an inlined cond's condition or a folded region read.
      std::set<std::string> mutated;
      for (const auto& o : program.outputs)
        if (o.kind == OutputKind::BufferMutation) mutated.insert(o.target);
      remove_unread_constants(program, mutated);
    }
    return top || inside;
  }

 private:
  // `_prop_tensor_constant<N>` targets not yet taken, N counting up
  // (docs/semantics.md §3.2). A target is taken when a store holds it (every
  // non-user input's target is a store key) or a user input is named so;
  // what next() returns lands in the constants before it is called again.
  class FreeTargets {
   public:
    explicit FreeTargets(const Program& p) : p_(p) {
      for (const auto& s : p.inputs)
        if (s.kind == InputKind::UserInput || !p.store_for(s).count(s.target)) others_.insert(s.target);
    }
    std::string next() {
      while (true) {
        std::string t = kPropPrefix + std::to_string(next_index_++);
        if (!p_.constants.count(t) && !p_.state.count(t) && !others_.count(t)) return t;
      }
    }

   private:
    const Program& p_;
    std::set<std::string> others_;
    int64_t next_index_ = 0;
  };

  // The placeholder before which new constants go: the first user input
  // (constants first, as the importer orders them), or the end of the run.
  static Node* first_user_input(const Program& program, const std::vector<Node*>& placeholders) {
    for (size_t i = 0; i < placeholders.size() && i < program.inputs.size(); ++i)
      if (program.inputs[i].kind == InputKind::UserInput) return placeholders[i];
    return nullptr;
  }

  // New `constant` placeholders of the top graph for folded values: values
  // with equal type and bytes share one (an unrolled loop that transposes
  // one weight in every step must not store it once per step). Their specs
  // wait in `specs` for insert_input_specs.
  struct NewConstants {
    NewConstants(Program& p, Node* first_user_input) : program(p), before(first_user_input), targets(p) {}
    Program& program;
    Node* before;
    FreeTargets targets;
    EqualContents made;
    std::unordered_map<const Node*, InputSpec> specs;

    Value* get(const TensorData& data) {
      if (Value* v = made.find(data)) return v;
      const std::string target = targets.next();
      // The placeholder carries the folded value's actual (now static) type.
      Node* ph = program.graph.add_placeholder(target, data.type, before);
      specs.emplace(ph, InputSpec{InputKind::Constant, ph->result()->name(), target, false});
      made.add(data, ph->result());
      program.constants[target] = data;
      return ph->result();
    }
  };

  // Folds the calls of the top graph (and conds it decides).
  bool fold_top(Program& program) {
    std::set<std::string> mutated;
    for (const auto& o : program.outputs)
      if (o.kind == OutputKind::BufferMutation) mutated.insert(o.target);
    const auto placeholders = program.graph.placeholders();

    // 1. Which values are constant, with their data.
    std::unordered_map<const Value*, TensorData> known = foldable_inputs(program, placeholders, mutated);
    // Lifted constants with equal type and bytes are one constant (docs/semantics.md
    // 1: a `constant`'s values may be read): the exporter writes a Constant
    // node per use (GroupNorm's ones and zeros in every block of every
    // unrolled step), and the file should hold each value once.
    const bool merged = merge_equal_constants(program, placeholders, known);
    const std::unordered_set<const Node*> folded = fold_calls(program.graph, known);
    if (folded.empty()) {
      if (merged) drop_unread_constants(program, mutated, /*types_changed=*/false);
      if (inline_decided_conds(program, known)) {
        fold_top(program);  // the taken branches' calls may fold now
        return true;
      }
      return ensure_outputs_are_calls(program) || merged;
    }

    // 2. Materialize folded results that non-folded code reads.
    const bool types_changed = materialize_frontier(program, placeholders, folded, known);

    // 3. Drop the folded calls (now unread) and the constants nothing reads.
    erase_unread_calls(program.graph, folded);
    drop_unread_constants(program, mutated, types_changed);
    // A cond whose condition is now a constant becomes its taken branch.
    const auto after = program.graph.placeholders();
    std::unordered_map<const Value*, TensorData> now_known = foldable_inputs(program, after, mutated);
    if (inline_decided_conds(program, now_known)) fold_top(program);
    ensure_outputs_are_calls(program);
    return true;
  }

  // Folds inside regions (docs/semantics.md §8): a region's placeholders
  // bound to constant captures are constant there; calls of constants fold,
  // and what the rest of the region reads becomes a new `constant` of the
  // program captured down to the region.
  bool fold_regions(Program& program) {
    std::set<std::string> mutated;
    for (const auto& o : program.outputs)
      if (o.kind == OutputKind::BufferMutation) mutated.insert(o.target);
    const auto placeholders = program.graph.placeholders();
    const std::unordered_map<const Value*, TensorData> known = foldable_inputs(program, placeholders, mutated);
    RegionFolding f{NewConstants{program, first_user_input(program, placeholders)}, false};
    f.walk(program.graph, known, *this);
    insert_input_specs(program, std::move(f.constants.specs));
    if (f.changed) sync_output_specs(program);
    return f.changed;
  }

  struct RegionFolding {
    NewConstants constants;
    bool changed;

    // `top` (a value of the top graph) as region `g` reads it: captured by
    // each call between.
    Value* bring_into(Graph& g, Value* top) {
      if (!g.is_region()) return top;
      Node* call = g.owner();
      Value* outer = bring_into(*call->graph(), top);
      const std::vector<Value*> phs = capture(call, outer);
      for (size_t r = 0; r < call->num_regions(); ++r)
        if (&call->region(r) == &g) return phs[r];
      throw CompileError("internal error: a region is not one of its owner's");
    }

    void walk(Graph& g, const std::unordered_map<const Value*, TensorData>& known_g, const ConstantPropagation& pass) {
      for (Node* call : g.calls()) {
        if (!call->is_control_flow()) continue;
        for (size_t r = 0; r < call->num_regions(); ++r) {
          Graph& region = call->region(r);
          const ControlOperands ops = control_operands(*call);
          const size_t first = call->is_loop() ? 2 + ops.carried.size() : 0;
          std::unordered_map<const Value*, TensorData> known;
          const auto phs = region.placeholders();
          for (size_t i = 0; i < ops.captures.size() && first + i < phs.size(); ++i)
            if (auto it = known_g.find(ops.captures[i]); it != known_g.end()) known[phs[first + i]->result()] = it->second;
          const std::unordered_set<const Node*> folded = pass.fold_calls(region, known);
          for (Node* n : region.calls()) {
            if (!folded.count(n)) continue;
            for (size_t k = 0; k < n->num_results(); ++k) {
              Value* v = n->result(k);
              bool read_outside = false;
              for (const Use& u : v->uses()) read_outside |= !folded.count(u.user);
              if (!read_outside) continue;
              Value* inside = bring_into(region, constants.get(known.at(v)));
              // A loop body returns results of its own calls (§8): its
              // output reads a clone of the constant.
              Value* returned = inside;
              if (call->is_loop() && std::any_of(v->uses().begin(), v->uses().end(),
                                                 [](const Use& u) { return u.user->is_output(); })) {
                CallSpec spec;
                spec.op = constants.program.dialect + ".clone.default";
                spec.inputs = {inside};
                spec.result_types = {inside->type()};
                spec.result_names = {v->name()};
                returned = region.create_call(std::move(spec))->result();
              }
              redirect_uses(v, inside, [&](const Node* user) { return !folded.count(user) && !user->is_output(); });
              redirect_uses(v, returned, [&](const Node* user) { return user->is_output(); });
            }
          }
          erase_unread_calls(region, folded);
          changed |= !folded.empty();
          walk(region, known, pass);
        }
      }
    }
  };

 private:
  // The constant `constant` inputs and non-persistent buffers nothing
  // mutates, with their data.
  static std::unordered_map<const Value*, TensorData> foldable_inputs(const Program& program,
                                                                      const std::vector<Node*>& placeholders,
                                                                      const std::set<std::string>& mutated) {
    std::unordered_map<const Value*, TensorData> known;
    for (size_t i = 0; i < placeholders.size() && i < program.inputs.size(); ++i) {
      const InputSpec& spec = program.inputs[i];
      const bool foldable = spec.kind == InputKind::Constant ||
                            (spec.kind == InputKind::Buffer && !spec.persistent && !mutated.count(spec.target));
      if (!foldable) continue;
      auto it = program.constants.find(spec.target);
      if (it != program.constants.end() && it->second.bytes) known[placeholders[i]->result()] = it->second;
    }
    return known;
  }

  // Evaluates every foldable call in graph order, adding its results to
  // `known`; returns the calls folded.
  std::unordered_set<const Node*> fold_calls(Graph& g, std::unordered_map<const Value*, TensorData>& known) const {
    KernelContext ctx;
    std::unordered_set<const Node*> folded;
    for (Node* n : g.calls()) {
      if (!foldable_call(*n, known)) continue;
      std::vector<TensorData> ins;
      for (const Value* v : n->inputs()) ins.push_back(known.at(v));
      auto outs = evaluate_call(*n, ins, ctx);
      for (size_t i = 0; i < outs.size(); ++i) known[n->result(i)] = std::move(outs[i]);
      folded.insert(n);
    }
    return folded;
  }

  // Points the readers outside `folded` of every folded result at a new
  // `constant` placeholder holding its data. Returns whether a placeholder's
  // type differs from the value it replaces (a data-dependent shape made
  // static): only then must readers re-infer.
  static bool materialize_frontier(Program& program, const std::vector<Node*>& placeholders,
                                   const std::unordered_set<const Node*>& folded,
                                   const std::unordered_map<const Value*, TensorData>& known) {
    NewConstants constants{program, first_user_input(program, placeholders)};
    bool types_changed = false;
    auto outside = [&](const Node* user) { return !folded.count(user); };
    for (Node* n : program.graph.calls()) {
      if (!folded.count(n)) continue;
      for (size_t r = 0; r < n->num_results(); ++r) {
        Value* v = n->result(r);
        bool read_outside = false;
        for (const Use& u : v->uses()) read_outside |= outside(u.user);
        if (!read_outside) continue;
        const TensorData& data = known.at(v);
        types_changed |= !(data.type == v->type());
        Value* to = constants.get(data);
        // Folded results replace uses only outside the folded region.
        redirect_uses(v, to, outside);
      }
    }
    insert_input_specs(program, std::move(constants.specs));
    return types_changed;
  }

  // Replaces each cond of the top graph whose condition is known by the
  // calls of the branch it takes (docs/semantics.md §8): no cond is left
  // to run for a decided condition. Returns whether any was.
  static bool inline_decided_conds(Program& program, const std::unordered_map<const Value*, TensorData>& known) {
    bool changed = false;
    for (Node* n : program.graph.calls()) {
      if (!n->is_cond()) continue;
      auto pred = known.find(n->input(0));
      if (pred == known.end() || !pred->second.bytes || pred->second.bytes->size() != 1) continue;
      const bool taken = (*pred->second.bytes)[0] != std::byte{0};
      const ControlOperands ops = control_operands(*n);
      const std::vector<Value*> args(ops.captures.begin(), ops.captures.end());
      const std::vector<Value*> outs = inline_region(program.graph, n, n->region(taken ? 0 : 1), args);
      for (size_t r = 0; r < n->num_results(); ++r) {
        // The branch's type may be narrower than the merged one; the
        // readers re-infer theirs below.
        n->result(r)->replace_all_uses_with(outs[r]);
      }
      program.graph.erase(n);
      changed = true;
    }
    if (changed) {
      refresh_result_types(program);
      sync_output_specs(program);
    }
    return changed;
  }

  // Erases the folded calls whose results nothing reads any more.
  static void erase_unread_calls(Graph& g, const std::unordered_set<const Node*>& folded) {
    auto calls = g.calls();
    for (auto it = calls.rbegin(); it != calls.rend(); ++it) {
      if (!folded.count(*it)) continue;
      bool used = false;
      for (size_t r = 0; r < (*it)->num_results(); ++r) used |= (*it)->result(r)->has_uses();
      if (!used) g.erase(*it);
    }
  }

  // Removes the constants nothing reads after a merge or a fold, and
  // brings the result types and output specs up to date.
  static void drop_unread_constants(Program& program, const std::set<std::string>& mutated, bool types_changed) {
    remove_unread_constants(program, mutated);
    if (types_changed) refresh_result_types(program);
    sync_output_specs(program);
  }

  // Points every reader of a later `constant` placeholder equal (type and
  // bytes) to an earlier one at the earlier one; true when any was.
  static bool merge_equal_constants(Program& program, const std::vector<Node*>& placeholders,
                                    std::unordered_map<const Value*, TensorData>& known) {
    EqualContents seen;
    bool merged = false;
    for (size_t i = 0; i < placeholders.size() && i < program.inputs.size(); ++i) {
      if (program.inputs[i].kind != InputKind::Constant) continue;
      Value* v = placeholders[i]->result();
      auto k = known.find(v);
      if (k == known.end() || !v->has_uses()) continue;
      if (Value* same = seen.find(k->second)) {
        redirect_uses(v, same, [](const Node*) { return true; });
        merged = true;
      } else {
        seen.add(k->second, v);
      }
    }
    return merged;
  }

  bool foldable_call(const Node& n, const std::unordered_map<const Value*, TensorData>& known) const {
    if (n.is_control_flow()) {  // the interpreter runs its regions
      for (const Value* v : n.inputs())
        if (!known.count(v)) return false;
      return true;
    }
    const OpInfo* op = op_of(n);
    if (!op || !folds_on_constants(*op)) return false;
    if (skip_.count(op->name)) return false;
    for (const Value* v : n.inputs())
      if (!known.count(v)) return false;
    return true;
  }

  std::set<std::string, std::less<>> skip_;
};

}  // namespace

std::unique_ptr<Pass> create_constant_prop_pass(std::string_view options) {
  std::set<std::string, std::less<>> skip;
  if (!options.empty()) {
    if (options.substr(0, 5) != "skip=")
      throw CompileError("constant_prop: expected options 'skip=OP+OP...', got '" + std::string(options) + "'");
    std::string_view list = options.substr(5);
    while (!list.empty()) {
      const size_t plus = list.find('+');
      std::string name(list.substr(0, plus));
      if (!find_op_by_name(name)) throw CompileError("constant_prop: unknown operator '" + name + "' in skip list");
      skip.insert(std::move(name));
      list = plus == std::string_view::npos ? std::string_view{} : list.substr(plus + 1);
    }
  }
  return std::make_unique<ConstantPropagation>(std::move(skip));
}

}  // namespace edgec

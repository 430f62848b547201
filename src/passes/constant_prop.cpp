// constant_prop (SEMANTICS §3): evaluates, at compile time, every call whose
// inputs are all constant values, and replaces the results that non-constant
// code reads with new `constant` placeholders.
//
// Constant values are `constant` inputs, non-persistent buffers nothing
// mutates, and results of calls on constant values and literals only.
// Parameters and persistent buffers are never read: the user may replace
// them at load time. Calls whose operator is in the skip set (random and
// allocation operators, plus any the caller names) are left alone.
//
// Only the frontier is materialized: a folded value becomes a placeholder
// only where something non-constant (a kept call or the output) reads it, so
// intermediate results of a folded chain are never stored.
#include <functional>
#include <map>
#include <set>
#include <string_view>

#include "interpreter/interpreter.h"
#include "ir/diagnostic.h"
#include "ir/operator.h"
#include "passes/pass_list.h"
#include "passes/program_edits.h"

namespace edgec {
namespace {

constexpr const char* kPropPrefix = "_prop_tensor_constant";

class ConstantPropagation : public Pass {
 public:
  explicit ConstantPropagation(std::set<std::string> skip) : skip_(std::move(skip)) {}

  bool run(Program& program) override {
    Graph& g = program.graph;
    std::set<std::string> mutated;
    for (const auto& o : program.outputs)
      if (o.kind == OutputKind::BufferMutation) mutated.insert(o.target);

    // 1. Which values are constant, with their data.
    std::map<const Value*, TensorData> known;
    const auto placeholders = g.placeholders();
    for (size_t i = 0; i < placeholders.size() && i < program.inputs.size(); ++i) {
      const InputSpec& spec = program.inputs[i];
      const bool foldable = spec.kind == InputKind::Constant ||
                            (spec.kind == InputKind::Buffer && !spec.persistent && !mutated.count(spec.target));
      if (!foldable) continue;
      auto it = program.constants.find(spec.target);
      if (it != program.constants.end() && it->second.bytes) known[placeholders[i]->result()] = it->second;
    }
    // Lifted constants with equal type and bytes are one constant (SEMANTICS
    // 1: a `constant`'s values may be read): the exporter writes a Constant
    // node per use (GroupNorm's ones and zeros in every block of every
    // unrolled step), and the file should hold each value once.
    const bool merged = merge_equal_constants(program, placeholders, known);
    KernelContext ctx;
    std::set<const Node*> folded;
    for (Node* n : g.calls()) {
      if (!foldable_call(*n, known)) continue;
      std::vector<TensorData> ins;
      for (const Value* v : n->inputs()) ins.push_back(known.at(v));
      auto outs = evaluate_call(*n, ins, ctx);
      for (size_t i = 0; i < outs.size(); ++i) known[n->result(i)] = std::move(outs[i]);
      folded.insert(n);
    }
    if (folded.empty()) {
      if (merged) {
        remove_unread_constants(program, mutated);
        sync_output_specs(program);
      }
      return ensure_outputs_are_calls(program) || merged;
    }

    // 2. Materialize folded results that non-folded code reads.
    Node* first_user_input = nullptr;
    for (size_t i = 0; i < placeholders.size() && i < program.inputs.size(); ++i) {
      if (program.inputs[i].kind == InputKind::UserInput) {
        first_user_input = placeholders[i];
        break;
      }
    }
    int next_index = 0;
    // Folded values with equal type and bytes share one placeholder: an
    // unrolled loop that transposes one weight in every step must not store
    // the transposed weight once per step.
    std::multimap<size_t, Value*> materialized;  // by hash of type and bytes
    for (Node* n : g.calls()) {
      if (!folded.count(n)) continue;
      for (size_t r = 0; r < n->num_results(); ++r) {
        Value* v = n->result(r);
        bool read_outside = false;
        for (const Use& u : v->uses()) read_outside |= !folded.count(u.user);
        if (!read_outside) continue;
        TensorData data = known.at(v);
        const size_t key = std::hash<std::string>()(data.type.str()) ^
                           std::hash<std::string_view>()(std::string_view(
                               reinterpret_cast<const char*>(data.bytes->data()), data.bytes->size()));
        Value* same = nullptr;
        for (auto [it, end] = materialized.equal_range(key); it != end && !same; ++it) {
          const TensorData& other = program.constants.at(program.input_spec_of(it->second)->target);
          if (other.type == data.type && *other.bytes == *data.bytes) same = it->second;
        }
        if (same) {
          const std::vector<Use> uses = v->uses();
          for (const Use& u : uses)
            if (!folded.count(u.user)) u.user->set_input(static_cast<size_t>(u.input_index), same);
          continue;
        }
        const std::string target = next_free_target(program, next_index);
        // The placeholder carries the folded value's actual (now static) type.
        Node* ph = g.add_placeholder(target, data.type, first_user_input);
        insert_input_spec(program, ph, InputSpec{InputKind::Constant, ph->result()->name(), target, false});
        program.constants[target] = std::move(data);
        materialized.emplace(key, ph->result());
        // Folded results replace uses only outside the folded region.
        const std::vector<Use> uses = v->uses();
        for (const Use& u : uses)
          if (!folded.count(u.user)) u.user->set_input(static_cast<size_t>(u.input_index), ph->result());
      }
    }

    // 3. Drop the folded calls (now unread) and the constants nothing reads.
    auto calls = g.calls();
    for (auto it = calls.rbegin(); it != calls.rend(); ++it) {
      if (!folded.count(*it)) continue;
      bool used = false;
      for (size_t r = 0; r < (*it)->num_results(); ++r) used |= (*it)->result(r)->has_uses();
      if (!used) g.erase(*it);
    }
    remove_unread_constants(program, mutated);
    refresh_result_types(program);
    sync_output_specs(program);
    ensure_outputs_are_calls(program);
    return true;
  }

 private:
  // Points every reader of a later `constant` placeholder equal (type and
  // bytes) to an earlier one at the earlier one; true when any was.
  static bool merge_equal_constants(Program& program, const std::vector<Node*>& placeholders,
                                    std::map<const Value*, TensorData>& known) {
    std::multimap<size_t, Value*> seen;  // by hash of type and bytes
    bool merged = false;
    for (size_t i = 0; i < placeholders.size() && i < program.inputs.size(); ++i) {
      if (program.inputs[i].kind != InputKind::Constant) continue;
      Value* v = placeholders[i]->result();
      auto k = known.find(v);
      if (k == known.end() || !v->has_uses()) continue;
      const TensorData& data = k->second;
      const size_t key = std::hash<std::string>()(data.type.str()) ^
                         std::hash<std::string_view>()(std::string_view(
                             reinterpret_cast<const char*>(data.bytes->data()), data.bytes->size()));
      Value* same = nullptr;
      for (auto [it, end] = seen.equal_range(key); it != end && !same; ++it) {
        const TensorData& other = known.at(it->second);
        if (other.type == data.type && *other.bytes == *data.bytes) same = it->second;
      }
      if (!same) {
        seen.emplace(key, v);
        continue;
      }
      const std::vector<Use> uses = v->uses();
      for (const Use& u : uses) u.user->set_input(static_cast<size_t>(u.input_index), same);
      merged = true;
    }
    return merged;
  }

  bool foldable_call(const Node& n, const std::map<const Value*, TensorData>& known) const {
    const OpInfo* op = find_op(n.op());
    if (!op || !op->core) return false;
    if (op->flags & (kOpRandom | kOpAllocation)) return false;
    if (skip_.count(op->name)) return false;
    for (const Value* v : n.inputs())
      if (!known.count(v)) return false;
    return true;
  }

  static std::string next_free_target(const Program& p, int& next_index) {
    while (true) {
      std::string t = kPropPrefix + std::to_string(next_index++);
      bool taken = p.constants.count(t) || p.state.count(t);
      for (const auto& s : p.inputs) taken |= s.target == t;
      if (!taken) return t;
    }
  }

  std::set<std::string> skip_;
};

}  // namespace

std::unique_ptr<Pass> create_constant_prop_pass(std::string_view options) {
  std::set<std::string> skip;
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

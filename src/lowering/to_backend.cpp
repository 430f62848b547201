// to_backend. Three steps over the owning program, each linear in its size:
//
// 1. Shared constants (docs/semantics.md §5), all tags at once: a constant-like
//    placeholder (constant, parameter, buffer that nothing mutates) whose
//    users fall in several groups (one per tag being lowered, one for
//    everything else) keeps its original for the group of its first user in
//    graph order and gets one copy with the same target per other group;
//    list operands are rewired like any other use (5.4). A single group, and
//    so an untagged graph, makes no copy (5.5). Mutated buffers are never
//    copied (5.8): a delegate reads them as an input from the owner.
// 2. Extraction (4.4): each partition becomes a delegate program whose
//    placeholders are, in order of first use, the values it reads from the
//    owner (user inputs) and the constants of its group (with their target
//    and kind; the bytes are shared, not copied), and whose outputs are the
//    values read outside it. One call_delegate replaces it in the owner.
// 3. Canonical form: the owner is re-sorted topologically (a call_delegate
//    sits where its partition's first call was, as far as dependencies
//    allow), delegates are numbered in that order, and values keep their
//    original names, so the file does not depend on tag names or on how the
//    tags were split over several to_backend calls (4.2, 5.6).
// Validation runs once at the end (5.6, 5.7).
#include "lowering/to_backend.h"

#include <algorithm>
#include <map>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "base/diagnostic.h"
#include "ir/verifier.h"
#include "lowering/partition.h"

namespace edgec {
namespace {

bool is_constant_like(const InputSpec& spec, const std::set<std::string>& mutated) {
  if (spec.kind == InputKind::UserInput) return false;
  return !(spec.kind == InputKind::Buffer && mutated.count(spec.target));
}

class Lowering {
 public:
  Lowering(Program& p, const std::set<std::string>& filter) : p_(p), filter_(filter) {}

  size_t run() {
    collect();
    if (members_.empty()) {
      if (!filter_.empty()) throw CompileError("to_backend: no call has tag '" + *filter_.begin() + "'");
      return 0;
    }
    share_constants();
    for (auto& [first, tag] : tag_order_) extract(tag);
    finish();
    verify_or_throw(p_);
    return tag_order_.size();
  }

 private:
  void collect() {
    for (const auto& o : p_.outputs)
      if (o.kind == OutputKind::BufferMutation) mutated_.insert(o.target);
    const auto placeholders = p_.graph.placeholders();
    for (size_t i = 0; i < placeholders.size() && i < p_.inputs.size(); ++i)
      spec_of_[placeholders[i]] = p_.inputs[i];
    const auto calls = p_.graph.calls();
    std::set<std::string> seen_filter;
    for (size_t i = 0; i < calls.size(); ++i) {
      Node* n = calls[i];
      pos_[n] = i;
      const std::string& tag = n->tag();
      if (tag.empty()) continue;
      if (!filter_.empty() && !filter_.count(tag)) continue;
      seen_filter.insert(tag);
      auto& list = members_[tag];
      if (list.empty()) tag_order_.emplace_back(i, tag);
      list.push_back(n);
    }
    for (const auto& t : filter_)
      if (!seen_filter.count(t)) throw CompileError("to_backend: no call has tag '" + t + "'");
  }

  /// The group a user belongs to: a tag being lowered, or "" (the owner).
  std::string group_of(const Node* user) const {
    if (!user->is_call() || user->tag().empty()) return {};
    return members_.count(user->tag()) ? user->tag() : std::string();
  }

  size_t position(const Node* user) const {
    auto it = pos_.find(user);
    return it == pos_.end() ? pos_.size() : it->second;  // the output node reads last
  }

  void share_constants() {
    for (Node* ph : p_.graph.placeholders()) {
      const InputSpec& spec = spec_of_.at(ph);
      if (!is_constant_like(spec, mutated_)) continue;
      Value* v = ph->result();
      std::vector<Use> uses(v->uses().begin(), v->uses().end());
      if (uses.empty()) continue;
      std::sort(uses.begin(), uses.end(), [&](const Use& a, const Use& b) {
        const size_t pa = position(a.user), pb = position(b.user);
        return pa != pb ? pa < pb : a.input_index < b.input_index;
      });
      std::vector<std::pair<std::string, std::vector<Use>>> groups;  // in order of first use
      for (const Use& u : uses) {
        const std::string g = group_of(u.user);
        auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& e) { return e.first == g; });
        if (it == groups.end()) {
          groups.emplace_back(g, std::vector<Use>{});
          it = groups.end() - 1;
        }
        it->second.push_back(u);
      }
      base_name_[v] = v->name();
      if (groups.size() < 2) continue;
      // The first group keeps the original; copies follow it in placeholder order.
      Node* after = ph;
      for (size_t g = 1; g < groups.size(); ++g) {
        Node* copy = p_.graph.add_placeholder(p_.graph.unique_name(v->name()), v->type(), p_.graph.next_node(after));
        InputSpec s = spec;
        s.arg = copy->result()->name();
        spec_of_[copy] = s;
        base_name_[copy->result()] = v->name();
        for (const Use& u : groups[g].second) u.user->set_input(static_cast<size_t>(u.input_index), copy->result());
        after = copy;
      }
    }
  }

  void extract(const std::string& tag) {
    const std::vector<Node*>& members = members_.at(tag);
    std::unordered_set<const Node*> in_partition(members.begin(), members.end());
    auto d = std::make_unique<Program>();
    d->dialect = p_.dialect;
    // Its payload records the owner's target, not the compiling host's: a
    // file is the same bytes whichever machine compiled it.
    d->target = p_.target;
    std::unordered_map<const Value*, Value*> mapped;
    std::vector<Value*> external;  // owner values the delegate reads as user inputs
    std::vector<Node*> moved_constants;

    auto map_input = [&](Value* v) -> Value* {
      if (auto it = mapped.find(v); it != mapped.end()) return it->second;
      Node* producer = v->producer();
      if (in_partition.count(producer))
        throw CompileError("to_backend: partition '" + tag + "' is not in topological order at " + producer->label());
      InputSpec spec;
      auto s = spec_of_.find(producer);
      const bool constant = s != spec_of_.end() && is_constant_like(s->second, mutated_);
      const std::string name = constant ? base_name_.at(v) : v->name();
      Node* ph = d->graph.add_placeholder(name, v->type());
      if (constant) {
        spec = s->second;
        spec.arg = ph->result()->name();
        const Store& from = p_.store_for(s->second);
        auto data = from.find(spec.target);
        if (data == from.end())
          throw CompileError("to_backend: constant placeholder %" + v->name() + " has no data for target '" +
                             spec.target + "'");
        d->store_for(spec)[spec.target] = data->second;
        moved_constants.push_back(producer);
      } else {
        spec = InputSpec{InputKind::UserInput, ph->result()->name(), v->name(), false};
        external.push_back(v);
      }
      d->inputs.push_back(spec);
      mapped[v] = ph->result();
      return ph->result();
    };

    for (Node* m : members) {
      CallSpec spec;
      spec.op = m->op();
      for (Value* v : m->inputs()) spec.inputs.push_back(map_input(v));
      spec.groups.assign(m->operand_groups().begin(), m->operand_groups().end());
      spec.attrs = m->attrs();
      for (size_t r = 0; r < m->num_results(); ++r) {
        spec.result_types.push_back(m->result(r)->type());
        spec.result_names.push_back(m->result(r)->name());
      }
      Node* c = d->graph.create_call(std::move(spec));
      for (size_t r = 0; r < m->num_results(); ++r) mapped[m->result(r)] = c->result(r);
    }

    // Outputs: member results read outside the partition.
    std::vector<Value*> outs, d_outs;
    for (Node* m : members)
      for (size_t r = 0; r < m->num_results(); ++r) {
        Value* v = m->result(r);
        const bool read_outside = std::any_of(v->uses().begin(), v->uses().end(),
                                              [&](const Use& u) { return !in_partition.count(u.user); });
        if (!read_outside) continue;
        outs.push_back(v);
        d_outs.push_back(mapped.at(v));
        d->outputs.push_back(OutputSpec{OutputKind::UserOutput, v->name(), v->name()});
      }
    d->graph.set_outputs(d_outs);

    CallSpec call;
    call.op = std::string(kCallDelegateOp);
    call.inputs = external;
    call.attrs.set("delegate", static_cast<int64_t>(p_.delegates.size()));
    for (Value* v : outs) {
      call.result_types.push_back(v->type());
      call.result_names.push_back(v->name() + "_delegate");
    }
    Node* cd = p_.graph.create_call(std::move(call));
    delegate_key_[cd] = pos_.at(members.front());
    for (size_t k = 0; k < outs.size(); ++k) outs[k]->replace_all_uses_with(cd->result(k));
    std::vector<std::string> names;
    for (Value* v : outs) names.push_back(v->name());
    for (auto it = members.rbegin(); it != members.rend(); ++it) p_.graph.erase(*it);
    for (size_t k = 0; k < outs.size(); ++k) p_.graph.rename(cd->result(k), names[k]);

    // Constants that went with the partition leave the owner.
    for (Node* ph : moved_constants) {
      if (ph->result()->has_uses()) continue;
      removed_.emplace(base_name_.at(ph->result()), spec_of_.at(ph));
      spec_of_.erase(ph);
      base_name_.erase(ph->result());
      p_.graph.erase(ph);
    }
    p_.delegates.push_back(Delegate{tag_backend(tag), std::move(d)});
  }

  void finish() {
    // Copies left in the owner take their original's name once it has gone.
    for (Node* ph : p_.graph.placeholders()) {
      auto it = base_name_.find(ph->result());
      if (it == base_name_.end() || it->second == ph->result()->name()) continue;
      if (p_.graph.find_value(it->second)) continue;
      p_.graph.rename(ph->result(), it->second);
      spec_of_.at(ph).arg = it->second;
    }
    std::vector<InputSpec> inputs;
    std::set<std::string> targets;
    for (Node* ph : p_.graph.placeholders()) {
      inputs.push_back(spec_of_.at(ph));
      targets.insert(inputs.back().target);
    }
    p_.inputs = std::move(inputs);
    for (const auto& [name, spec] : removed_)
      if (!targets.count(spec.target)) p_.store_for(spec).erase(spec.target);
    resort();
  }

  /// Stable topological order: each call keyed by its old position, a
  /// call_delegate by its partition's first call.
  void resort() {
    const auto calls = p_.graph.calls();
    std::unordered_map<const Node*, size_t> key, indegree;
    std::unordered_map<const Node*, std::vector<Node*>> succs;
    for (Node* n : calls) {
      auto d = delegate_key_.find(n);
      key[n] = d != delegate_key_.end() ? d->second : pos_.at(n);
      indegree[n] = 0;
    }
    for (Node* n : calls) {
      std::unordered_set<const Node*> seen;
      for (const Value* v : n->inputs()) {
        Node* p = v->producer();
        if (!p->is_call() || !seen.insert(p).second) continue;
        succs[p].push_back(n);
        ++indegree[n];
      }
    }
    using Item = std::pair<std::pair<size_t, bool>, Node*>;  // ((key, is delegate), node); keys are unique otherwise
    auto cmp = [](const Item& a, const Item& b) { return a.first > b.first; };
    std::priority_queue<Item, std::vector<Item>, decltype(cmp)> ready(cmp);
    auto item = [&](Node* n) { return Item{{key.at(n), n->is_delegate_call()}, n}; };
    for (Node* n : calls)
      if (indegree[n] == 0) ready.push(item(n));
    std::vector<Node*> order;
    while (!ready.empty()) {
      Node* n = ready.top().second;
      ready.pop();
      order.push_back(n);
      for (Node* s : succs[n])
        if (--indegree[s] == 0) ready.push(item(s));
    }
    if (order.size() != calls.size())
      throw CompileError("to_backend: extracting the partitions created a cycle (a partition is not convex)");
    Node* out = p_.graph.output_node();
    for (Node* n : order) {
      if (out) {
        p_.graph.move_before(n, out);
      } else {
        p_.graph.move_to_end(n);
      }
    }
    // Delegates numbered in graph order.
    std::vector<Delegate> renumbered;
    for (Node* n : order) {
      if (!n->is_delegate_call()) continue;
      const int64_t old = n->attrs().get_int("delegate");
      n->attrs().set("delegate", static_cast<int64_t>(renumbered.size()));
      renumbered.push_back(std::move(p_.delegates[static_cast<size_t>(old)]));
    }
    p_.delegates = std::move(renumbered);
  }

  Program& p_;
  const std::set<std::string>& filter_;
  std::set<std::string> mutated_;
  std::map<const Node*, InputSpec> spec_of_;
  std::unordered_map<const Value*, std::string> base_name_;
  std::unordered_map<const Node*, size_t> pos_;
  std::map<std::string, std::vector<Node*>> members_;
  std::vector<std::pair<size_t, std::string>> tag_order_;
  std::unordered_map<const Node*, size_t> delegate_key_;
  std::multimap<std::string, InputSpec> removed_;
};

}  // namespace

size_t to_backend(Program& program, const std::set<std::string>& tags) { return Lowering(program, tags).run(); }

}  // namespace edgec

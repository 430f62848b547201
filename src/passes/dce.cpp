// dce: removes calls whose results nothing reads, in reverse order so that a
// chain of dead calls goes in one sweep. Random operators are removed too:
// an unread random value has no observable effect. Placeholders stay (they
// are the signature); constant_prop drops unread constants. A control-flow
// call's captures that no region reads are dropped, with the constants
// only they read.
#include <set>
#include <string>

#include "ir/control_flow.h"
#include "passes/pass_list.h"
#include "passes/program_edits.h"

namespace edgec {
namespace {

class DeadCodeElimination : public Pass {
 public:
  bool run(Program& program) override {
    // Sweeps every graph, then drops the captures no region reads any
    // more (which may leave enclosing values unread), until nothing goes.
    bool changed = false, again = true, pruned = false;
    while (again) {
      again = false;
      for_each_graph(program.graph, [&](Graph& g) { again |= sweep(g); });
      for_each_graph(program.graph, [&](Graph& g) {
        for (Node* n : g.calls())
          if (n->is_control_flow() && prune_captures(n)) pruned = again = true;
      });
      changed |= again;
    }
    // A constant only a pruned capture read goes too (constant_prop, which
    // drops unread constants, ran before the regions stopped reading it).
    if (pruned) {
      std::set<std::string> mutated;
      for (const auto& o : program.outputs)
        if (o.kind == OutputKind::BufferMutation) mutated.insert(o.target);
      remove_unread_constants(program, mutated);
    }
    return changed;
  }

 private:
  static bool sweep(Graph& graph) {
    bool changed = false;
    auto calls = graph.calls();
    for (auto it = calls.rbegin(); it != calls.rend(); ++it) {
      Node* n = *it;
      bool used = false;
      for (size_t i = 0; i < n->num_results(); ++i) used |= n->result(i)->has_uses();
      if (used) continue;
      graph.erase(n);
      changed = true;
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> create_dce_pass(std::string_view) { return std::make_unique<DeadCodeElimination>(); }

}  // namespace edgec

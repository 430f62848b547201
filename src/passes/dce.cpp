// dce: removes calls whose results nothing reads, in reverse order so that a
// chain of dead calls goes in one sweep. Random operators are removed too:
// an unread random value has no observable effect. Placeholders stay (they
// are the signature); constant_prop drops unread constants.
#include "ir/control_flow.h"
#include "passes/pass_list.h"

namespace edgec {
namespace {

class DeadCodeElimination : public Pass {
 public:
  bool run(Program& program) override {
    bool changed = false;
    for_each_graph(program.graph, [&](Graph& g) { changed |= sweep(g); });
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

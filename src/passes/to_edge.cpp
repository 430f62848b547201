// to_edge (docs/semantics.md §2): converts an aten program to the edge dialect.
// Core operators are renamed to their edge form; composites (linear, addmm,
// masked_fill, ...) are replaced by their decomposition, which emits edge
// operators directly. Afterwards the program's dialect is edge.
#include "base/diagnostic.h"
#include "ir/control_flow.h"
#include "ir/operator.h"
#include "passes/decompositions.h"
#include "passes/pass_list.h"

namespace edgec {
namespace {

// Runs the row's decomposition and returns the values that replaced each
// result (read off the first use, which the decomposition rewired).
std::vector<Value*> decompose(Graph& graph, DecomposeFn fn, Node* n, const std::string& dialect) {
  std::vector<std::vector<Use>> before;
  for (size_t i = 0; i < n->num_results(); ++i) before.emplace_back(n->result(i)->uses().begin(), n->result(i)->uses().end());
  fn(graph, n, dialect);
  std::vector<Value*> replacements;
  for (size_t i = 0; i < n->num_results(); ++i) {
    if (n->result(i)->has_uses())
      throw CompileError("to_edge: the decomposition of '" + n->op() + "' left uses of %" + n->result(i)->name());
    Value* r = nullptr;
    if (!before[i].empty()) r = before[i][0].user->input(static_cast<size_t>(before[i][0].input_index));
    replacements.push_back(r);  // null when the result was unused
  }
  return replacements;
}

class ToEdgePass : public Pass {
 public:
  bool run(Program& program) override {
    if (program.dialect == kEdgeDialect) return false;
    const std::string edge(kEdgeDialect);
    for_each_graph(program.graph, [&](Graph& g) { convert(g, edge); });
    program.dialect = edge;
    return true;
  }

 private:
  static void convert(Graph& graph, const std::string& edge) {
    for (Node* n : graph.calls()) {
      if (n->is_control_flow()) continue;  // its regions are converted on their own
      const OpInfo* op = op_of(*n);
      if (!op) throw CompileError("to_edge: unknown operator '" + n->op() + "' (node " + n->label() + ")");
      if (op->core) {
        n->set_op(op->full_name(edge));
        continue;
      }
      const DecomposeFn fn = find_decomposition(op->name);
      if (!fn)
        throw CompileError("to_edge: composite operator '" + n->op() + "' has no decomposition (node " + n->label() + ")");
      // The decomposition's final values take over the composite's result
      // names, so the printed program and the output specs stay readable.
      std::vector<std::string> names;
      for (size_t i = 0; i < n->num_results(); ++i) names.push_back(n->result(i)->name());
      std::vector<Value*> replacements = decompose(graph, fn, n, edge);
      graph.erase(n);
      for (size_t i = 0; i < replacements.size(); ++i)
        if (replacements[i] && replacements[i]->producer()->is_call()) graph.rename(replacements[i], names[i]);
    }
  }
};

}  // namespace

std::unique_ptr<Pass> create_to_edge_pass(std::string_view) { return std::make_unique<ToEdgePass>(); }

}  // namespace edgec

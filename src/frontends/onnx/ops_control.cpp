// Control flow: If whose condition is known when compiling.
//
// A model often branches on a value the deployment fixes: a voice-activity
// model on its sample rate, an exported module on a flag or a shape. When
// the condition is a constant, folds from constants, or comes from a graph
// input fixed with `edgec compile --fix-inputs`, only the taken branch is
// imported, its nodes inline in the enclosing graph (they read its values
// by name, as ONNX's scoping allows), and no `if` is left in the program.
// A condition computed from run-time data is refused, naming the inputs it
// comes from and the flag that fixes them.
#include "frontends/onnx/context.h"

namespace edgec::onnx_import {
namespace {

void if_node(NodeContext& n) {
  const TensorData* cond = n.data(0);
  if (!cond)
    n.fail_not_known(0, "the condition",
                     " (edgec imports an If whose condition is known when compiling, and then only the branch it "
                     "takes)");
  const std::vector<double> values = data_as_doubles(*cond);
  if (values.size() != 1)
    n.fail("the condition, " + n.typed_operand(0) + ", holds " + std::to_string(values.size()) +
           " values; expected one");
  const std::string branch_name = values[0] != 0 ? "then_branch" : "else_branch";
  const onnx::GraphProto& branch = n.attr(branch_name)->g();
  if (branch.input_size() != 0)
    n.fail("attribute '" + branch_name + "' (the branch the condition takes) has " +
           std::to_string(branch.input_size()) + " inputs; expected none (a branch reads the enclosing graph's values)");
  if (static_cast<size_t>(branch.output_size()) != n.num_outputs())
    n.fail("attribute '" + branch_name + "' (the branch the condition takes) has " +
           std::to_string(branch.output_size()) + " outputs; expected " + std::to_string(n.num_outputs()) +
           ", one per output of the node");
  n.im().import_subgraph(branch, branch_name);
  for (size_t i = 0; i < n.num_outputs(); ++i) {
    const std::string& name = branch.output(static_cast<int>(i)).name();
    if (!n.im().has_entry(name))
      n.fail(branch_name + " output " + std::to_string(i) + " '" + name +
             "' is not produced by any node or initializer of the branch, nor a value of the enclosing graph");
    if (!n.has_output(i)) continue;
    Entry e = n.im().entry(name);
    if (!e.unavailable.empty()) n.fail(branch_name + " output " + std::to_string(i) + " '" + name + "': " + e.unavailable);
    if (e.alias.empty()) e.alias = name;  // one value, however many names
    n.set_output(i, std::move(e));
  }
}

}  // namespace

void register_control_handlers(HandlerTable& t) { t["If"] = if_node; }

}  // namespace edgec::onnx_import

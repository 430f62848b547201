#include "lowering/mask_rules.h"

#include <set>
#include <vector>

namespace edgec {
namespace {

std::string base_name(const Node& n) {
  const std::string& op = n.op();
  const size_t a = op.find('.'), b = op.rfind('.');
  return a == std::string::npos || a == b ? op : op.substr(a + 1, b - a - 1);
}

/// Operators that only move or view their first operand: the positions a
/// nonzero computes stay positions through them.
bool passes_positions(const std::string& op) {
  static const std::set<std::string> kViews = {"select",  "permute", "reshape", "squeeze", "unsqueeze",
                                               "flatten", "clone",   "slice",   "expand",  "to_copy"};
  return kViews.count(op) > 0;
}

/// The nonzero whose result `v` is (through views), or nullptr.
const Node* nonzero_source(const Value* v) {
  for (int depth = 0; v && depth < 64; ++depth) {
    const Node* p = v->producer();
    if (!p || !p->is_call()) return nullptr;
    const std::string op = base_name(*p);
    if (op == "nonzero") return p;
    if (!passes_positions(op) || p->inputs().empty()) return nullptr;
    v = p->input(0);
  }
  return nullptr;
}

std::string origin_reason(const Program& program, const Value* mask) {
  const Node* p = mask->producer();
  if (p->is_call()) return "the boolean mask is computed in the graph (" + p->op() + " %" + mask->name() + ")";
  const InputSpec* spec = program.input_spec_of(mask);
  if (!spec) return "the boolean mask %" + mask->name() + " is not a known input";
  bool mutated = false;
  for (const auto& o : program.outputs) mutated |= o.kind == OutputKind::BufferMutation && o.target == spec->target;
  switch (spec->kind) {
    case InputKind::UserInput:
      return "the boolean mask %" + mask->name() + " is a user input";
    case InputKind::Parameter:
      return "the boolean mask '" + spec->target + "' is a parameter (its values may change at load)";
    case InputKind::Buffer:
      if (mutated) return "the boolean mask '" + spec->target + "' is a buffer the program mutates";
      if (spec->persistent)
        return "the boolean mask '" + spec->target + "' is a persistent buffer (its values may change at load)";
      break;
    case InputKind::Constant:
      break;
  }
  return "the boolean mask '" + spec->target + "' was not folded into positions (constant_prop did not run?)";
}

}  // namespace

std::optional<std::string> mask_refusal(const Program& program, const Node& call) {
  const std::string op = base_name(call);
  // Index operands: everything after the gathered tensor.
  size_t from_mask = 0, others = 0;
  std::optional<std::string> reason;
  for (size_t i = 1; i < call.inputs().size(); ++i) {
    const Value* v = call.input(i);
    if (!v) continue;
    if (const Node* nz = nonzero_source(v)) {
      ++from_mask;
      if (!reason) reason = origin_reason(program, nz->input(0));
    } else {
      ++others;
    }
  }
  if (!from_mask) return std::nullopt;
  // A mask's positions are one index per mask dimension; anything else in
  // the same index list mixes a mask with other indices.
  if (op == "index" && others > 0)
    return "a boolean mask used together with other indices (SEMANTICS 7.2): " + *reason;
  return *reason + "; the result's size depends on its values (SEMANTICS 7.2)";
}

}  // namespace edgec

#include "passes/program_edits.h"

#include <map>
#include <string_view>
#include <unordered_set>

#include "base/diagnostic.h"
#include "ir/control_flow.h"
#include "ir/operator.h"

namespace edgec {

void insert_input_specs(Program& program, std::unordered_map<const Node*, InputSpec> specs) {
  if (specs.empty()) return;
  std::vector<InputSpec> inputs;
  inputs.reserve(program.inputs.size() + specs.size());
  size_t old = 0, added = 0;
  for (const Node* n : program.graph.placeholders()) {
    auto it = specs.find(n);
    if (it != specs.end()) {
      inputs.push_back(std::move(it->second));
      ++added;
    } else if (old < program.inputs.size()) {
      inputs.push_back(std::move(program.inputs[old++]));
    }
  }
  if (added != specs.size()) throw CompileError("internal error: an input spec names a node that is no placeholder");
  for (; old < program.inputs.size(); ++old) inputs.push_back(std::move(program.inputs[old]));
  program.inputs = std::move(inputs);
}

bool remove_unread_constants(Program& program, const std::set<std::string>& mutated_targets) {
  bool changed = false;
  const auto placeholders = program.graph.placeholders();
  std::vector<InputSpec> kept;
  kept.reserve(program.inputs.size());
  for (size_t i = 0; i < placeholders.size() && i < program.inputs.size(); ++i) {
    InputSpec& spec = program.inputs[i];
    const bool removable = spec.kind == InputKind::Constant ||
                           (spec.kind == InputKind::Buffer && !spec.persistent && !mutated_targets.count(spec.target));
    if (removable && !placeholders[i]->result()->has_uses()) {
      program.graph.erase(placeholders[i]);
      changed = true;
      continue;
    }
    kept.push_back(std::move(spec));
  }
  program.inputs = std::move(kept);
  // Views of the kept specs' targets (program.inputs holds them while this runs).
  std::unordered_set<std::string_view> named;
  named.reserve(program.inputs.size());
  for (const auto& s : program.inputs) named.insert(s.target);
  for (auto it = program.constants.begin(); it != program.constants.end();) {
    if (!named.count(it->first)) {
      it = program.constants.erase(it);
      changed = true;
    } else {
      ++it;
    }
  }
  return changed;
}

void sync_output_specs(Program& program) {
  const Node* out = program.graph.output_node();
  if (!out) return;
  for (size_t i = 0; i < program.outputs.size() && i < out->inputs().size(); ++i)
    if (out->input(i)) program.outputs[i].arg = out->input(i)->name();
}

void refresh_result_types(Program& program) { refresh_graph_types(program.graph); }

bool ensure_outputs_are_calls(Program& program) {
  Node* out = program.graph.output_node();
  if (!out) return false;
  std::map<Value*, Value*> clones;
  bool changed = false;
  for (size_t i = 0; i < out->inputs().size(); ++i) {
    Value* v = out->input(i);
    if (!v || !v->producer()->is_placeholder()) continue;
    auto it = clones.find(v);
    if (it == clones.end()) {
      CallSpec spec;
      spec.op = program.dialect + ".clone.default";
      spec.inputs = {v};
      spec.result_types = {v->type()};
      spec.result_names = {v->name() + "_clone"};
      it = clones.emplace(v, program.graph.create_call(std::move(spec))->result()).first;
    }
    out->set_input(i, it->second);
    changed = true;
  }
  if (changed) sync_output_specs(program);
  return changed;
}

}  // namespace edgec

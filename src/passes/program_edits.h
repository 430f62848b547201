// Edits that keep a program's signature in step with its graph; shared by
// passes that add or remove placeholders or change what the graph returns.
#pragma once

#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include "ir/program.h"

namespace edgec {

/// Gives the new placeholders their specs (`specs`, keyed by placeholder
/// node): program.inputs becomes the old specs and these in placeholder
/// order, in one walk however many are added.
void insert_input_specs(Program& program, std::unordered_map<const Node*, InputSpec> specs);

/// Removes `constant` placeholders and non-persistent, unmutated buffer
/// placeholders that nothing reads, with their specs; drops store entries
/// no spec names any more. Returns whether anything was removed.
bool remove_unread_constants(Program& program, const std::set<std::string>& mutated_targets);

/// Points each output spec at the value the output node returns at its position.
void sync_output_specs(Program& program);

/// Re-infers every call's result types from the operator table, in graph
/// order, so that shapes made static by an edit (a folded nonzero) flow to
/// their readers. Throws CompileError if a shape function rejects a call.
void refresh_result_types(Program& program);

/// docs/semantics.md §3.3: every output is computed by a call. An output that is a
/// placeholder (a folded result, a parameter returned directly) gets a clone
/// of the program's dialect in front of it. Returns whether it added any.
bool ensure_outputs_are_calls(Program& program);

}  // namespace edgec

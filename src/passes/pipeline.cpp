#include "passes/pipeline.h"

#include <set>

#include "base/diagnostic.h"
#include "ir/control_flow.h"
#include "ir/verifier.h"
#include "passes/pass_list.h"
#include "passes/program_edits.h"

namespace edgec {

void specialize_symbols(Program& program, const LowerOptions& options) {
  std::set<std::string> seen;
  bool changed = false;
  for (Node* ph : program.graph.placeholders()) {
    TensorType t = ph->result()->type();
    for (Dim& d : t.dims) {
      if (d.kind != Dim::Kind::Symbolic) continue;
      seen.insert(d.symbol.str());
      if (auto it = options.dim_sizes.find(d.symbol.str()); it != options.dim_sizes.end()) {
        d = Dim::fixed(it->second);
      } else if (auto b = options.dim_bounds.find(d.symbol.str()); b != options.dim_bounds.end()) {
        d.value = b->second;
      }
    }
    if (t == ph->result()->type()) continue;
    ph->result()->set_type(std::move(t));
    changed = true;
  }
  // A loop's stacked results may have a row count of their own (a symbol
  // NAME_rows for a run-time trip count, docs/semantics.md §8): a size or
  // a bound given for it bounds the rows.
  changed |= bound_loop_rows(program.graph, options.dim_sizes, options.dim_bounds, seen);
  for (const auto* opts : {&options.dim_sizes, &options.dim_bounds})
    for (const auto& [name, value] : *opts) {
      if (value < 0) throw CompileError("dimension '" + name + "' given a negative size " + std::to_string(value));
      if (!seen.count(name)) {
        std::string known;
        for (const auto& s : seen) known += (known.empty() ? "" : ", ") + s;
        throw CompileError("the program has no symbolic dimension '" + name + "'" +
                           (known.empty() ? std::string(" (it has none)") : " (it has: " + known + ")"));
      }
    }
  // Readers re-infer their types only when an input's changed (the
  // importer already typed every call).
  if (changed) refresh_result_types(program);
}

void run_pass_verified(Program& program, std::string_view name, Pass& pass) {
  try {
    pass.run(program);
    verify_or_throw(program);
  } catch (const CompileError& e) {
    throw CompileError("pass " + std::string(name) + ": " + e.what());
  }
}

void optimize_program(Program& program, const LowerOptions& options) {
  specialize_symbols(program, options);
  verify_or_throw(program);
  run_pass_verified(program, "to_edge", *create_to_edge_pass(""));
  if (options.fuse_qdq) run_pass_verified(program, "fuse_qdq", *create_fuse_qdq_pass(""));
  run_pass_verified(program, "constant_prop", *create_constant_prop_pass(""));
  run_pass_verified(program, "fuse_gelu", *create_fuse_gelu_pass(""));
  run_pass_verified(program, "dce", *create_dce_pass(""));
}

void lower_program(Program& program, const LowerOptions& options) {
  optimize_program(program, options);
  run_pass_verified(program, "memory_plan", *create_memory_plan_pass(""));
}

}  // namespace edgec

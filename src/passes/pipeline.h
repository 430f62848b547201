// The lowering pipeline `edgec compile` runs after import
// (docs/architecture.md "Data flow"): to_edge, constant_prop, dce, memory_plan, verifying after each.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "ir/program.h"
#include "passes/pass.h"

namespace edgec {

struct LowerOptions {
  /// Fix a symbolic dimension to a size, or give it an upper bound, before
  /// planning memory (an unbounded symbol cannot be planned).
  std::map<std::string, int64_t> dim_sizes;
  std::map<std::string, int64_t> dim_bounds;
  /// The machine the program is compiled for (`--target`): it picks the
  /// default delegates and the backends that may take calls.
  Target target = kHostTarget;
  /// Run fuse_qdq (`edgec compile --keep-qdq` turns it off, to compare the
  /// fused program with the QDQ graph run as written).
  bool fuse_qdq = true;
};

/// Rewrites the user inputs' symbolic dims per `options` and re-infers types.
/// Throws CompileError naming an option whose symbol the program lacks.
void specialize_symbols(Program& program, const LowerOptions& options);

/// Runs the passes before partitioning in place: specialize_symbols, then
/// to_edge, fuse_qdq, constant_prop, fuse_gelu, dce, verifying after each. Throws CompileError
/// (naming the pass) on failure.
void optimize_program(Program& program, const LowerOptions& options = {});

/// Runs `pass` and verifies; throws CompileError naming the pass `name`.
void run_pass_verified(Program& program, std::string_view name, Pass& pass);

/// optimize_program, then memory_plan: everything on the portable kernels.
/// (src/compiler/pipeline.h adds delegation between the two.)
void lower_program(Program& program, const LowerOptions& options = {});

}  // namespace edgec

// The lowering pipeline `edgec compile` runs after import (DESIGN "Data
// flow"): to_edge, constant_prop, dce, memory_plan, verifying after each.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "ir/program.h"

namespace edgec {

struct LowerOptions {
  /// Fix a symbolic dimension to a size, or give it an upper bound, before
  /// planning memory (an unbounded symbol cannot be planned).
  std::map<std::string, int64_t> dim_sizes;
  std::map<std::string, int64_t> dim_bounds;
};

/// Rewrites the user inputs' symbolic dims per `options` and re-infers types.
/// Throws CompileError naming an option whose symbol the program lacks.
void specialize_symbols(Program& program, const LowerOptions& options);

/// Runs the pipeline in place; throws CompileError (naming the pass) on failure.
void lower_program(Program& program, const LowerOptions& options = {});

}  // namespace edgec

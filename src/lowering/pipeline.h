// The whole compile pipeline (docs/architecture.md "Data flow"): optimize
// (to_edge, constant_prop, dce), partition with the backends in priority
// order, to_backend, memory_plan.
#pragma once

#include <span>
#include <string>

#include "ir/program.h"
#include "passes/pass.h"
#include "passes/pipeline.h"

namespace edgec {

/// `backends`: the --backends list (see make_partitioners): "" for the
/// default backends, "none" for the portable kernels only.
void compile_program(Program& program, const LowerOptions& options, const std::string& backends);

/// Lets each delegate's backend store constants in its own layout
/// (BackendCompiler::prepare_constants), then verifies the delegate again:
/// the edit must leave every program valid (SEMANTICS 5.7). A target another
/// program reads stays as it is (stored once). The last step of
/// compile_program, after memory_plan.
void prepare_delegate_constants(Program& program);

}  // namespace edgec

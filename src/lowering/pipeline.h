// The whole compile pipeline (DESIGN "Data flow"): optimize (to_edge,
// constant_prop, dce), partition with the backends in priority order,
// to_backend, memory_plan. Passes for `edgec opt` that need the lowering
// layer (partition, to_backend) are registered here too.
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

/// partition=LIST and to_backend[=TAG+TAG...], for `edgec opt`.
std::span<const PassInfo> lowering_passes();
/// A pass of either registry (passes/ or lowering/), or nullptr.
const PassInfo* find_any_pass(std::string_view name);

}  // namespace edgec

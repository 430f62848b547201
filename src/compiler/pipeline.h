// The compiler driver (docs/architecture.md "Data flow"): optimize
// (to_edge, constant_prop, dce), partition with the backends built in, in
// priority order, to_backend, memory_plan; then the program file, with
// each delegate's payload from its backend. The layers below know no
// backend; this one joins them (compiler/backends.h).
#pragma once

#include <cstddef>
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
/// the edit must leave every program valid (docs/semantics.md §5.7). A target another
/// program reads stays as it is (stored once). The last step of
/// compile_program, after memory_plan.
void prepare_delegate_constants(Program& program);

/// The program file of a compiled program (serialize/writer.h), each
/// delegate's payload made by its backend's preprocess. Throws CompileError
/// as write_program_file does, and for a delegate of a backend this edgec
/// does not have.
std::vector<std::byte> serialize_program(const Program& program);

}  // namespace edgec

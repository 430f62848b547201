// The one registry of passes: every pass of passes/ and lowering/, each
// declared once with its name, a one-line summary and its options, as
// MLIR's Passes.td declares them. `edgec opt --help` prints it and `edgec
// opt --pass=NAME` looks passes up in it. It lives in the compiler driver
// (src/compiler), above every layer that defines passes, so that it can
// list them all, the partition pass with the backends built in included.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "passes/pass.h"

namespace edgec {

/// Every registered pass, in registry order.
std::span<const PassInfo> all_passes();
/// The pass named `name`, or nullptr.
const PassInfo* find_pass(std::string_view name);
/// Runs the registered pass `name` (no options) and verifies; throws
/// CompileError naming the pass.
void run_pass_verified(Program& program, std::string_view name);

std::unique_ptr<Pass> create_partition_pass(std::string_view options);   // partition_pass.cpp
std::unique_ptr<Pass> create_to_backend_pass(std::string_view options);  // to_backend_pass.cpp

}  // namespace edgec

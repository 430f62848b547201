// The reference interpreter: executes a Program node by node with the
// portable kernels. Constant folding evaluates calls through it, `edgec eval`
// runs textual programs with it, and tests use it as the semantics of record.
// It allocates freely (it is compiler-side); the runtime does not use it.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/operator.h"
#include "ir/program.h"
#include "kernels/registry.h"

namespace edgec {

/// A read-only view of stored data (for kernels).
Tensor tensor_view(const TensorData& data);

/// Evaluates one core call on concrete inputs (flat, in the call's input
/// order) and returns its results with their actual shapes. Throws
/// CompileError naming the node and operator when the operator has no kernel
/// or the kernel fails.
std::vector<TensorData> evaluate_call(const Node& call, std::span<const TensorData> inputs,
                                      KernelContext& ctx);

/// The same for a call not (yet) in a graph: operator `op` with `groups`
/// and `attrs`, whose first result would be named `result_name`. Errors
/// begin "node %RESULT_NAME (FULL_OP_NAME): ".
std::vector<TensorData> evaluate_op(const OpInfo& op, std::span<const OperandGroup> groups, const Attrs& attrs,
                                    std::span<const TensorData> inputs, KernelContext& ctx,
                                    std::string_view result_name, std::string_view full_op_name);

/// Runs a whole program. `user_inputs` are keyed by the user_input specs'
/// targets; each is checked against its placeholder's type (dtype, rank,
/// static sizes, symbolic sizes consistent across inputs, bounds). Returns
/// the graph's outputs in order.
std::vector<TensorData> run_program(const Program& program,
                                    const std::map<std::string, TensorData>& user_inputs,
                                    KernelContext& ctx);

/// Checks a concrete shape against a declared type, binding symbols in
/// `symbols`; returns an empty string when it fits, else what is wrong.
std::string check_against_type(const TensorType& declared, DType dtype,
                               std::span<const int64_t> shape,
                               std::map<std::string, int64_t>& symbols);

}  // namespace edgec

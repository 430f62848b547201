// How to_edge rewrites each composite operator (a row with core = false:
// no kernel, aten only) into core operators, by the composite's base name.
// A test walks the operator table: every composite has one here.
#pragma once

#include <string>
#include <string_view>

#include "ir/program.h"

namespace edgec {

/// Rewrites one call of a composite operator into core operators of
/// `dialect` before it, replacing the uses of its results; the caller
/// erases it.
using DecomposeFn = void (*)(Graph& graph, Node* call, const std::string& dialect);

/// The decomposition of composite `op_name`, or nullptr.
DecomposeFn find_decomposition(std::string_view op_name);

}  // namespace edgec

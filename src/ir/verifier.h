// The program verifier (docs/semantics.md §1–2). It checks what passes can break:
// dialect membership, the signature against the placeholders and stores,
// definition before use, and result types against the operator table.
#pragma once

#include <string>
#include <vector>

#include "ir/program.h"

namespace edgec {

/// Every problem found, each one line naming the node and operator.
std::vector<std::string> verify(const Program& program);

/// Throws CompileError listing every problem, if there are any.
void verify_or_throw(const Program& program);

}  // namespace edgec

// Serializes a lowered program (edge dialect, memory planned) into the
// program file format (format.h, program.fbs). Deterministic: the same
// program gives byte-identical output.
#pragma once

#include <cstddef>
#include <vector>

#include "ir/program.h"

namespace edgec {

/// Throws CompileError if the program is not ready to serialize (not in the
/// edge dialect, not memory planned, or using something the runtime lacks).
std::vector<std::byte> serialize_program(const Program& program);

}  // namespace edgec

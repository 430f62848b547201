// Serializes a lowered program (edge dialect, memory planned) into the
// program file format (format.h, program.fbs). Deterministic: the same
// program gives byte-identical output.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "ir/program.h"

namespace edgec {

/// The whole program file: header, the fb::Program table, then the data
/// segment (each target's bytes once, shared by the owning program and every
/// delegate, then each delegate's payload from its backend's preprocess).
/// Throws CompileError if the program is not ready to serialize (not in the
/// edge dialect, not memory planned, using something the runtime lacks, a
/// delegate of an unknown backend, or one target with different data in two
/// programs).
std::vector<std::byte> serialize_program(const Program& program);

/// Only the fb::Program flatbuffer (identifier "EDGC") of `program`, with no
/// named data and no delegates: constant and state slots name their data by
/// key only. For backends whose payload is a program the runtime's loader
/// validates (the `reference` backend); `context` prefixes every error
/// ("reference: delegate builder"). Throws CompileError as serialize_program
/// does, and when `program` calls a delegate or gives two placeholders the
/// same target (each target gets one slot, SEMANTICS 6).
std::vector<std::byte> serialize_program_table(const Program& program, const std::string& context);

}  // namespace edgec

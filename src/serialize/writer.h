// Serializes a lowered program (edge dialect, memory planned) into the
// program file format (format.h, program.fbs). Deterministic: the same
// program gives byte-identical output.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "ir/program.h"

namespace edgec {

/// Makes delegate `index`'s payload (its backend's preprocess). The compiler
/// driver passes one that knows the backends built in
/// (compiler/pipeline.h: serialize_program); this layer knows none.
using PayloadFn = std::function<std::vector<std::byte>(const Delegate& delegate, size_t index)>;

/// The whole program file: header, the fb::Program table, then the data
/// segment (each target's bytes once, shared by the owning program and every
/// delegate, then each delegate's payload from `make_payload`).
/// Throws CompileError if the program is not ready to serialize (not in the
/// edge dialect, not memory planned, using something the runtime lacks, or
/// one target with different data in two programs), and what
/// `make_payload` throws.
std::vector<std::byte> write_program_file(const Program& program, const PayloadFn& make_payload);

/// Only the fb::Program flatbuffer (identifier "EDGC") of `program`, with no
/// named data and no delegates: constant and state slots name their data by
/// key only. For backends whose payload is a program the runtime's loader
/// validates (the `reference` backend); `context` prefixes every error
/// ("reference: delegate builder"). Throws CompileError as serialize_program
/// does, and when `program` calls a delegate or gives two placeholders the
/// same target (each target gets one slot, docs/semantics.md §6).
std::vector<std::byte> serialize_program_table(const Program& program, const std::string& context);

}  // namespace edgec

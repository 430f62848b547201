// The one memory limit every layer checks sizes against before allocating
// or inflating anything whose size came from outside (a file, the command
// line): the runtime's arena and delegate memory, the compiler's reads of
// models, npz members and IR literals.
#pragma once

#include <cstdint>

namespace edgec {

/// The most memory one allocation (or one plan) may take: EDGEC_MEMORY_LIMIT
/// when set to a size (bytes, or with a binary suffix: 512K, 64MiB, 4G,
/// 1TiB), else the machine's physical memory (also when the value is not a
/// size).
uint64_t memory_limit();
/// A size as EDGEC_MEMORY_LIMIT takes it; 0 when `text` is not one.
uint64_t parse_memory_size(const char* text);

}  // namespace edgec

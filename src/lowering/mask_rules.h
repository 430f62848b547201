// docs/semantics.md §7: when a delegate may take a gather whose positions come from
// a boolean mask. A constant mask (a constant, or a non-persistent buffer
// nothing mutates) has been folded by constant_prop into integer positions
// (docs/semantics.md §3.4), one int64 index per mask dimension, so the gather reads
// constants and has a static shape; every other mask leaves a nonzero in the
// graph, and the call is refused with the reason naming the mask's origin.
#pragma once

#include <optional>
#include <string>

#include "ir/program.h"

namespace edgec {

/// For a gathering call (index, take, take_along_dim, ...): nullopt when
/// none of its index operands is computed from a mask at run time, else the
/// one-line reason (docs/semantics.md §7.2) a delegate refuses it.
std::optional<std::string> mask_refusal(const Program& program, const Node& call);

}  // namespace edgec

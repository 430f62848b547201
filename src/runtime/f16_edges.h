// float16 held as float32 inside a delegate (docs/architecture.md, "The
// built-in backends"): where the CPU has no float16 arithmetic, a delegate
// keeps its f16 values in f32 and converts only at its edges: constants
// once at init, inputs as they enter, outputs as they leave. These are the
// conversions both table-driven delegates (onednn, xnnpack) share, and the
// name their profiles give a step computing f16 values in f32.
#pragma once

#include <cstddef>

namespace edgec::runtime {

/// What the profile's name of a step computing f16 values in f32 ends with
/// (edgec bench --profile).
inline constexpr const char* kF16AsF32Suffix = " (f16 as f32)";

/// to[i] = float(from[i]) for n f16 values (exact).
void widen_f16(const void* from, float* to, size_t n);
/// to[i] = from[i] rounded to f16, to nearest even (inf where it is out of
/// range, NaN kept NaN).
void narrow_to_f16(const float* from, void* to, size_t n);

}  // namespace edgec::runtime

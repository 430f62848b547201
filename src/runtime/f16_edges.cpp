// The f16 <-> f32 conversions at a delegate's edges (f16_edges.h), on the
// kernels' vectorized widening and narrowing (F16C on x86-64, fcvtl/fcvtn
// on aarch64): this file is built with the kernels' flags.
#include "runtime/f16_edges.h"

#include "kernels/elementwise_common.h"

namespace edgec::runtime {

void widen_f16(const void* from, float* to, size_t n) {
  widen_halves(static_cast<const Half*>(from), 1, static_cast<int64_t>(n), to);
}

void narrow_to_f16(const float* from, void* to, size_t n) {
  narrow_to_halves(from, static_cast<int64_t>(n), static_cast<Half*>(to));
}

}  // namespace edgec::runtime

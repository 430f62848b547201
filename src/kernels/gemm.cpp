// Cache-blocked GEMM with packed panels and a register-tiled micro-kernel.
//
// C is cut into MC x NC tiles, each owned by one thread; for every KC slice
// of the shared dimension the tile's A block and B block are packed into
// contiguous, zero-padded micro-panels (MR rows of A, NR columns of B per
// k step). Packing is where strides are resolved, so transposed operands cost
// nothing extra, and where float16 is widened. The micro-kernel keeps an
// MR x NR block of C in vector registers for the whole KC loop; it is written
// with GCC vector extensions (not intrinsics) so it builds for any target and
// the compiler picks the instructions of the build it is in.
//
// Products too thin to fill a micro-tile (a few rows or columns, e.g. a
// matrix-vector product) skip packing and use dot/axpy loops instead.
//
// The body is kernels/isa/gemm_body.h: gemm_f32 runs the build of it for
// the instruction set kernel_isa() chose (kernels/isa/gemm_f32.cpp, built
// for AVX2 and for AVX-512); gemm_f16 runs this file's baseline build.
#include "kernels/gemm.h"

#include "base/half.h"
#include "kernels/f16_compute.h"
#include "kernels/isa.h"
#include "kernels/isa/kernels.h"

#define EDGEC_KERNEL_ISA gemm_f16_impl
#include "kernels/isa/tile.h"

namespace edgec::gemm_f16_impl {
using edgec::narrow;
using edgec::widen;
}  // namespace edgec::gemm_f16_impl

#include "kernels/isa/gemm_body.h"
#undef EDGEC_KERNEL_ISA

namespace edgec {

void gemm_f32(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda_row, int64_t lda_col,
              const float* B, int64_t ldb_row, int64_t ldb_col, float* C, int64_t ldc,
              bool accumulate, int num_threads) {
  auto* f = EDGEC_ISA_KERNEL(gemm_f32);
  f(M, N, K, A, lda_row, lda_col, B, ldb_row, ldb_col, C, ldc, accumulate, num_threads);
}

void gemm_f16(int64_t M, int64_t N, int64_t K, const Half* A, int64_t lda_row, int64_t lda_col,
              const Half* B, int64_t ldb_row, int64_t ldb_col, Half* C, int64_t ldc,
              bool accumulate, int num_threads) {
  gemm_f16_impl::gemm_impl(M, N, K, A, lda_row, lda_col, B, ldb_row, ldb_col, C, ldc, accumulate, num_threads);
}

}  // namespace edgec

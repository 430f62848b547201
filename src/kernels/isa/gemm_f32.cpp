// gemm_f32 for one instruction set (EDGEC_KERNEL_ISA: avx2 or avx512),
// built once per set by CMake (edgec_isa_sources); kernels/gemm.cpp
// dispatches. Includes only what kernels/isa/tile.h allows.
#include "kernels/isa/tile.h"
#include "kernels/isa/kernels.h"

namespace edgec::EDGEC_KERNEL_ISA {
namespace {
inline float widen(float v) { return v; }
template <typename T>
inline T narrow(float v) {
  return v;
}
}  // namespace
}  // namespace edgec::EDGEC_KERNEL_ISA

#include "kernels/isa/gemm_body.h"

namespace edgec::EDGEC_KERNEL_ISA {

void gemm_f32(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda_row, int64_t lda_col, const float* B,
              int64_t ldb_row, int64_t ldb_col, float* C, int64_t ldc, bool accumulate, int num_threads) {
  gemm_impl(M, N, K, A, lda_row, lda_col, B, ldb_row, ldb_col, C, ldc, accumulate, num_threads);
}

}  // namespace edgec::EDGEC_KERNEL_ISA

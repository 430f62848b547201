// The kernels built once per instruction set (docs/architecture.md,
// "Instruction sets"), declared for both builds of the architecture:
// edgec::avx2::NAME and edgec::avx512::NAME on x86-64, edgec::neon::NAME
// and edgec::armv82::NAME on aarch64. Their dispatchers (gemm_f32 in
// kernels/gemm.cpp, the onednn delegate's in backends/onednn/) call the
// build kernel_isa() (kernels/isa.h) chose, through EDGEC_ISA_KERNEL; the
// per-ISA sources include this header to define them. Declarations only:
// nothing here is compiled into either build.
#pragma once

#include <cstdint>

namespace edgec {
struct Conv1dShape;
struct Winograd43Shape;
struct WinogradBlocking;
}  // namespace edgec

#define EDGEC_DECLARE_ISA_KERNELS(isa)                                                                              \
  namespace edgec::isa {                                                                                            \
  void gemm_f32(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda_row, int64_t lda_col, const float* B, \
                int64_t ldb_row, int64_t ldb_col, float* C, int64_t ldc, bool accumulate, int num_threads);       \
  void gemm_prepacked_f32(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* packed,       \
                          const float* bias, float* C, int64_t ldc, bool relu, int num_threads);                    \
  void conv1d_gemm(const Conv1dShape& s, const float* x, const float* w, const float* bias,                        \
                   const float* residual, float* y, bool relu, float* scratch, int threads);                        \
  void winograd43_transform_weights(const float* w, int64_t cout, int64_t cin, float* u);                        \
  void winograd43_conv(const Winograd43Shape& s, const WinogradBlocking& b, const float* x, const float* u,         \
                       const float* bias, const float* residual, float* y, bool relu, float* scratch, int threads); \
  }

#if defined(__aarch64__)
EDGEC_DECLARE_ISA_KERNELS(neon)
EDGEC_DECLARE_ISA_KERNELS(armv82)
/// The chosen build's NAME (a dispatcher's, built at the baseline; it
/// needs kernels/isa.h).
#define EDGEC_ISA_KERNEL(name) \
  (::edgec::kernel_isa() == ::edgec::Isa::Armv82 ? &::edgec::armv82::name : &::edgec::neon::name)
#else
EDGEC_DECLARE_ISA_KERNELS(avx2)
EDGEC_DECLARE_ISA_KERNELS(avx512)
#define EDGEC_ISA_KERNEL(name) \
  (::edgec::kernel_isa() == ::edgec::Isa::Avx512 ? &::edgec::avx512::name : &::edgec::avx2::name)
#endif

#undef EDGEC_DECLARE_ISA_KERNELS

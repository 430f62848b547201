// gemm_prepacked_f32: C = A * B + bias with B packed once into 16-column
// panels (kernels/isa/tile.h). A is read in place (no packing), which is
// what makes small products fast: a transformer's 20 x 64 x 192 projection
// is a few thousand cycles of work, and packing both operands on every
// call costs about as much again.
#include "backends/onednn/gemm_prepacked.h"

#include "kernels/isa.h"
#include "kernels/isa/kernels.h"

namespace edgec {

namespace {
constexpr int64_t kPanel = 16;  // kernels/isa/tile.h
}  // namespace

int64_t gemm_prepacked_floats(int64_t K, int64_t N) { return (N + kPanel - 1) / kPanel * kPanel * K; }

void gemm_prepack_b(int64_t K, int64_t N, const float* B, int64_t ldb_row, int64_t ldb_col, float* packed) {
  const int64_t panels = (N + kPanel - 1) / kPanel;
  for (int64_t p = 0; p < panels; ++p)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < kPanel; ++j) {
        const int64_t col = p * kPanel + j;
        packed[(p * K + k) * kPanel + j] = col < N ? B[k * ldb_row + col * ldb_col] : 0.f;
      }
}

void gemm_prepacked_f32(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* packed,
                        const float* bias, float* C, int64_t ldc, bool relu, int num_threads) {
  auto* f = EDGEC_ISA_KERNEL(gemm_prepacked_f32);
  f(M, N, K, A, lda, packed, bias, C, ldc, relu, num_threads);
}

}  // namespace edgec

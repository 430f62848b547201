// gemm_prepacked_f32: C = A * B + bias with B packed once into 16-column
// panels (kernels/micro_tile.h). A is read in place (no packing), which is
// what makes small products fast: a transformer's 20 x 64 x 192 projection
// is a few thousand cycles of work, and packing both operands on every
// call costs about as much again.
#include <omp.h>

#include <algorithm>

#include "backends/onednn/gemm_prepacked.h"
#include "kernels/micro_tile.h"

namespace edgec {

using micro::kPanel;
using micro::kRows;
using micro::Vec8;

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
  const int64_t panels = (N + kPanel - 1) / kPanel, row_blocks = (M + kRows - 1) / kRows;
  const int64_t tasks = panels * row_blocks;
  // Panel-major: one panel of B stays in L1 while every row block uses it.
#pragma omp parallel for num_threads(std::max(num_threads, 1)) schedule(static) if (num_threads > 1)
  for (int64_t t = 0; t < tasks; ++t) {
    const int64_t p = t / row_blocks, i0 = (t % row_blocks) * kRows;
    const int rows = static_cast<int>(std::min<int64_t>(kRows, M - i0));
    const int64_t j0 = p * kPanel;
    const int cols = static_cast<int>(std::min<int64_t>(kPanel, N - j0));
    float b[kPanel] = {};
    if (bias) std::copy(bias + j0, bias + j0 + cols, b);
    const Vec8 b0 = micro::load(b), b1 = micro::load(b + 8);
    micro::with_rows(rows, [&]<int R>() {
      Vec8 acc[R][2];
      micro::tile_product<R>(K, A + i0 * lda, lda, packed + p * K * kPanel, acc);
      for (int r = 0; r < R; ++r) {
        Vec8 v0 = acc[r][0] + b0, v1 = acc[r][1] + b1;
        if (relu) {
          v0 = v0 > 0 ? v0 : Vec8{};
          v1 = v1 > 0 ? v1 : Vec8{};
        }
        float* row = C + (i0 + r) * ldc + j0;
        if (cols == kPanel) {
          micro::store(row, v0);
          micro::store(row + 8, v1);
        } else {
          float tmp[kPanel];
          micro::store(tmp, v0);
          micro::store(tmp + 8, v1);
          std::copy(tmp, tmp + cols, row);
        }
      }
    });
  }
}

}  // namespace edgec

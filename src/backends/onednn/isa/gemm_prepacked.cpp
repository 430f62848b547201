// gemm_prepacked_f32 (backends/onednn/gemm_prepacked.h) for one
// instruction set (EDGEC_KERNEL_ISA), built once per set; the dispatcher
// is in backends/onednn/gemm_prepacked.cpp. Includes only what
// kernels/isa/tile.h allows.
#include "kernels/isa/tile.h"
#include "kernels/isa/kernels.h"

namespace edgec::EDGEC_KERNEL_ISA {

using micro::kPanel;
using micro::kRows;
using micro::kVecs;
using micro::kWidth;
using micro::Vec;

void gemm_prepacked_f32(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* packed,
                        const float* bias, float* C, int64_t ldc, bool relu, int num_threads) {
  const int64_t panels = (N + kPanel - 1) / kPanel, row_blocks = (M + kRows - 1) / kRows;
  const int64_t tasks = panels * row_blocks;
  // Panel-major: one panel of B stays in L1 while every row block uses it.
#pragma omp parallel for num_threads(num_threads > 1 ? num_threads : 1) schedule(static) if (num_threads > 1)
  for (int64_t t = 0; t < tasks; ++t) {
    const int64_t p = t / row_blocks, i0 = (t % row_blocks) * kRows;
    const int rows = static_cast<int>(micro::min(kRows, M - i0));
    const int64_t j0 = p * kPanel;
    const int cols = static_cast<int>(micro::min(kPanel, N - j0));
    float b[kPanel] = {};
    if (bias)
      for (int j = 0; j < cols; ++j) b[j] = bias[j0 + j];
    Vec bv[kVecs];
    for (int v = 0; v < kVecs; ++v) bv[v] = micro::load(b + v * kWidth);
    micro::with_rows(rows, [&]<int R>() {
      Vec acc[R][kVecs];
      micro::tile_product<R>(K, A + i0 * lda, lda, packed + p * K * kPanel, acc);
      for (int r = 0; r < R; ++r) {
        for (int v = 0; v < kVecs; ++v) {
          acc[r][v] += bv[v];
          if (relu) acc[r][v] = micro::relu(acc[r][v]);
        }
        float* row = C + (i0 + r) * ldc + j0;
        if (cols == kPanel) {
          micro::store_row(row, acc[r]);
        } else {
          float tmp[kPanel];
          micro::store_row(tmp, acc[r]);
          for (int j = 0; j < cols; ++j) row[j] = tmp[j];
        }
      }
    });
  }
}

}  // namespace edgec::EDGEC_KERNEL_ISA

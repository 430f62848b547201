// conv1d_gemm (backends/onednn/conv1d_gemm.h) for one instruction set
// (EDGEC_KERNEL_ISA), built once per set; the dispatcher is in
// backends/onednn/conv1d_gemm.cpp. Includes only what kernels/isa/tile.h
// allows (conv1d_gemm.h declares a plain struct and functions).
#include <omp.h>

#include <cstring>

#include "backends/onednn/conv1d_gemm.h"
#include "kernels/isa/tile.h"
#include "kernels/isa/kernels.h"

namespace edgec::EDGEC_KERNEL_ISA {

using micro::kPanel;
using micro::kRows;
using micro::kVecs;
using micro::kWidth;
using micro::Vec;

void conv1d_gemm(const Conv1dShape& s, const float* x, const float* w, const float* bias, const float* residual,
                 float* y, bool relu, float* scratch, int threads) {
  const int64_t K = s.cin * s.kernel, blocks = (s.out_length + kPanel - 1) / kPanel, tasks = s.n * blocks;
#pragma omp parallel for num_threads(threads > 1 ? threads : 1) schedule(static) if (threads > 1)
  for (int64_t t = 0; t < tasks; ++t) {
    const int64_t n = t / blocks, l0 = (t % blocks) * kPanel;
    const int cols = static_cast<int>(micro::min(kPanel, s.out_length - l0));
    float* panel = scratch + omp_get_thread_num() * s.cin * s.kernel * kPanel;
    const float* xn = x + n * s.cin * s.length;
    for (int64_t k = 0; k < s.kernel; ++k) {
      // Positions j in [lo, hi) read inside the input: at = first + j * stride.
      const int64_t first = l0 * s.stride + k * s.dilation - s.pad_left;
      int64_t lo = 0, hi = cols;
      if (first < 0) lo = micro::min(cols, (-first + s.stride - 1) / s.stride);
      if (first + (hi - 1) * s.stride >= s.length)
        hi = micro::max(lo, first >= s.length ? 0 : (s.length - 1 - first) / s.stride + 1);
      for (int64_t c = 0; c < s.cin; ++c) {
        float* row = panel + (c * s.kernel + k) * kPanel;
        const float* channel = xn + c * s.length;
        for (int64_t j = 0; j < lo; ++j) row[j] = 0.f;
        if (s.stride == 1) {
          if (hi > lo) std::memcpy(row + lo, channel + first + lo, (hi - lo) * sizeof(float));
        } else {
          for (int64_t j = lo; j < hi; ++j) row[j] = channel[first + j * s.stride];
        }
        for (int64_t j = hi; j < kPanel; ++j) row[j] = 0.f;
      }
    }
    const int64_t plane = n * s.cout * s.out_length;
    for (int64_t o = 0; o < s.cout; o += kRows) {
      const int rows = static_cast<int>(micro::min(kRows, s.cout - o));
      micro::with_rows(rows, [&]<int R>() {
        Vec acc[R][kVecs];
        micro::tile_product<R>(K, w + o * K, K, panel, acc);
        for (int r = 0; r < R; ++r) {
          const int64_t at = plane + (o + r) * s.out_length + l0;
          float out[kPanel];
          const float b = bias ? bias[o + r] : 0.f;
          for (int v = 0; v < kVecs; ++v) micro::store(out + v * kWidth, acc[r][v] + b);
          for (int j = 0; j < cols; ++j) {
            float v = out[j];
            if (residual) v += residual[at + j];
            if (relu) v = v > 0 ? v : 0.f;
            y[at + j] = v;
          }
        }
      });
    }
  }
}

}  // namespace edgec::EDGEC_KERNEL_ISA

// conv1d_gemm: see conv1d_gemm.h. Per image and block of 16 output
// positions the input columns those positions read are gathered into a
// panel ([cin * kernel] x 16, zero where the window leaves the input), and
// the weights, 6 output channels at a time, are multiplied with it in
// registers; bias, residual and ReLU are applied on the way out.
#include "backends/onednn/conv1d_gemm.h"

#include <omp.h>

#include <algorithm>

#include "kernels/micro_tile.h"

namespace edgec {

using micro::kPanel;
using micro::kRows;
using micro::Vec8;

int64_t conv1d_gemm_scratch_floats(const Conv1dShape& s) { return s.cin * s.kernel * kPanel; }

void conv1d_gemm(const Conv1dShape& s, const float* x, const float* w, const float* bias, const float* residual,
                 float* y, bool relu, float* scratch, int threads) {
  const int64_t K = s.cin * s.kernel, blocks = (s.out_length + kPanel - 1) / kPanel, tasks = s.n * blocks;
#pragma omp parallel for num_threads(std::max(threads, 1)) schedule(static) if (threads > 1)
  for (int64_t t = 0; t < tasks; ++t) {
    const int64_t n = t / blocks, l0 = (t % blocks) * kPanel;
    const int cols = static_cast<int>(std::min<int64_t>(kPanel, s.out_length - l0));
    float* panel = scratch + omp_get_thread_num() * conv1d_gemm_scratch_floats(s);
    const float* xn = x + n * s.cin * s.length;
    for (int64_t k = 0; k < s.kernel; ++k) {
      // Positions j in [lo, hi) read inside the input: at = first + j * stride.
      const int64_t first = l0 * s.stride + k * s.dilation - s.pad_left;
      int64_t lo = 0, hi = cols;
      if (first < 0) lo = std::min<int64_t>(cols, (-first + s.stride - 1) / s.stride);
      if (first + (hi - 1) * s.stride >= s.length)
        hi = std::max<int64_t>(lo, first >= s.length ? 0 : (s.length - 1 - first) / s.stride + 1);
      for (int64_t c = 0; c < s.cin; ++c) {
        float* row = panel + (c * s.kernel + k) * kPanel;
        const float* channel = xn + c * s.length;
        std::fill(row, row + lo, 0.f);
        if (s.stride == 1) std::copy(channel + first + lo, channel + first + hi, row + lo);
        else
          for (int64_t j = lo; j < hi; ++j) row[j] = channel[first + j * s.stride];
        std::fill(row + hi, row + kPanel, 0.f);
      }
    }
    const int64_t plane = n * s.cout * s.out_length;
    for (int64_t o = 0; o < s.cout; o += kRows) {
      const int rows = static_cast<int>(std::min<int64_t>(kRows, s.cout - o));
      micro::with_rows(rows, [&]<int R>() {
        Vec8 acc[R][2];
        micro::tile_product<R>(K, w + o * K, K, panel, acc);
        for (int r = 0; r < R; ++r) {
          const int64_t at = plane + (o + r) * s.out_length + l0;
          float out[kPanel];
          const float b = bias ? bias[o + r] : 0.f;
          micro::store(out, acc[r][0] + b);
          micro::store(out + 8, acc[r][1] + b);
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

}  // namespace edgec

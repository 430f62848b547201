// conv1d_gemm against a naive double-precision 1-D convolution: output
// lengths below, at and above the 16-position panel, stride, dilation,
// padding wider than the kernel's reach and none, output channels that do
// not fill a 6-row tile, bias or none, residual, ReLU, threads.
#include "backends/onednn/conv1d_gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace edgec {
namespace {

void check(const Conv1dShape& s, bool bias, bool residual, bool relu, int threads) {
  std::mt19937 gen(static_cast<uint32_t>(s.cin * 5 + s.cout * 3 + s.length + s.kernel * 7 + s.stride));
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> x(static_cast<size_t>(s.n * s.cin * s.length)), w(static_cast<size_t>(s.cout * s.cin * s.kernel));
  std::vector<float> b(static_cast<size_t>(s.cout)), r(static_cast<size_t>(s.n * s.cout * s.out_length));
  for (auto* v : {&x, &w, &b, &r})
    for (float& e : *v) e = dist(gen);
  std::vector<float> scratch(static_cast<size_t>(conv1d_gemm_scratch_floats(s) * threads));
  std::vector<float> y(r.size(), 1e9f);
  conv1d_gemm(s, x.data(), w.data(), bias ? b.data() : nullptr, residual ? r.data() : nullptr, y.data(), relu,
              scratch.data(), threads);
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t o = 0; o < s.cout; ++o)
      for (int64_t l = 0; l < s.out_length; ++l) {
        const auto at = static_cast<size_t>((n * s.cout + o) * s.out_length + l);
        double ref = bias ? b[static_cast<size_t>(o)] : 0.0;
        for (int64_t c = 0; c < s.cin; ++c)
          for (int64_t k = 0; k < s.kernel; ++k) {
            const int64_t i = l * s.stride + k * s.dilation - s.pad_left;
            if (i < 0 || i >= s.length) continue;
            ref += static_cast<double>(x[static_cast<size_t>((n * s.cin + c) * s.length + i)]) *
                   w[static_cast<size_t>((o * s.cin + c) * s.kernel + k)];
          }
        if (residual) ref += r[at];
        if (relu) ref = std::max(ref, 0.0);
        ASSERT_NEAR(y[at], ref, 1e-5 * (1.0 + static_cast<double>(s.cin * s.kernel)))
            << "cin=" << s.cin << " cout=" << s.cout << " L=" << s.length << " k=" << s.kernel << " stride "
            << s.stride << " dilation " << s.dilation << " pad " << s.pad_left << " at n=" << n << " o=" << o
            << " l=" << l;
      }
}

Conv1dShape shape(int64_t n, int64_t cin, int64_t cout, int64_t length, int64_t kernel, int64_t stride,
                  int64_t dilation, int64_t pad_left, int64_t pad_right) {
  const int64_t out = (length + pad_left + pad_right - dilation * (kernel - 1) - 1) / stride + 1;
  return {n, cin, cout, length, out, kernel, stride, dilation, pad_left};
}

TEST(Conv1dGemm, MatchesNaive) {
  const Conv1dShape shapes[] = {
      shape(1, 2, 16, 16, 5, 1, 1, 2, 2),   // a U-Net's first conv: 16 positions, one panel
      shape(2, 64, 64, 4, 5, 1, 1, 2, 2),   // the bottleneck: 4 of 16 panel columns used
      shape(1, 16, 7, 40, 3, 1, 1, 1, 1),   // 3 panels, the last partial; 7 output channels
      shape(3, 8, 13, 33, 3, 2, 1, 1, 1),   // stride 2 (the U-Net's downsampling)
      shape(1, 5, 6, 20, 3, 1, 3, 3, 3),    // dilation
      shape(1, 4, 9, 6, 5, 1, 1, 6, 6),     // padding wider than the kernel reaches
      shape(2, 12, 20, 10, 1, 1, 1, 0, 0),  // 1x1 (a residual projection)
      shape(1, 3, 8, 9, 4, 3, 2, 0, 0),     // stride and dilation, no padding
  };
  for (const auto& s : shapes) {
    check(s, true, false, false, 1);
    check(s, false, true, true, 2);
  }
}

TEST(Conv1dGemm, ThreadsSplitPanels) {
  for (int t : {1, 2, 3}) check(shape(2, 16, 32, 100, 5, 1, 1, 2, 2), true, true, true, t);
}

}  // namespace
}  // namespace edgec

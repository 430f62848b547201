// winograd43_conv against a naive double-precision 3x3 convolution, in the
// channel-blocked layout it reads and writes: images that are not a
// multiple of the 4x4 tile, padding of 0-2 (and less after than before),
// batches, bias or none, a residual (separate or the output itself), ReLU,
// tile counts below and above a block, one thread and two.
#include "backends/onednn/winograd.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace edgec {
namespace {

// Index of (n, c, y, x) in the [n][c/8][h][w][8] layout.
int64_t blocked(int64_t c_count, int64_t h, int64_t w, int64_t n, int64_t c, int64_t y, int64_t x) {
  return (((n * (c_count / 8) + c / 8) * h + y) * w + x) * 8 + c % 8;
}

struct Case {
  Winograd43Shape s;
  bool bias, residual, in_place, relu;
  int threads;
};

void check(const Case& k) {
  const Winograd43Shape& s = k.s;
  ASSERT_TRUE(winograd43_supported(s));
  std::mt19937 gen(static_cast<uint32_t>(s.cin * 7 + s.cout * 3 + s.h * 11 + s.ow));
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> x(static_cast<size_t>(s.n * s.cin * s.h * s.w)), w(static_cast<size_t>(s.cout * s.cin * 9));
  std::vector<float> b(static_cast<size_t>(s.cout)), r(static_cast<size_t>(s.n * s.cout * s.oh * s.ow));
  for (auto* v : {&x, &w, &b, &r})
    for (float& e : *v) e = dist(gen);
  std::vector<float> u(static_cast<size_t>(winograd43_weights_floats(s.cin, s.cout)));
  winograd43_transform_weights(w.data(), s.cout, s.cin, u.data());
  std::vector<float> scratch(static_cast<size_t>(winograd43_scratch_floats(s, k.threads)));
  // The output starts as the residual when accumulating in place, else as
  // a pattern that must be overwritten.
  std::vector<float> y = k.in_place ? r : std::vector<float>(r.size(), 1e9f);
  const float* res = !k.residual ? nullptr : k.in_place ? y.data() : r.data();
  winograd43_conv(s, x.data(), u.data(), k.bias ? b.data() : nullptr, res, y.data(), k.relu, scratch.data(),
                  k.threads);
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t o = 0; o < s.cout; ++o)
      for (int64_t oy = 0; oy < s.oh; ++oy)
        for (int64_t ox = 0; ox < s.ow; ++ox) {
          double ref = k.bias ? b[static_cast<size_t>(o)] : 0.0;
          double magnitude = std::abs(ref);  // Sum of the terms' magnitudes.
          for (int64_t c = 0; c < s.cin; ++c)
            for (int64_t ky = 0; ky < 3; ++ky)
              for (int64_t kx = 0; kx < 3; ++kx) {
                const int64_t iy = oy - s.pad_top + ky, ix = ox - s.pad_left + kx;
                if (iy < 0 || ix < 0 || iy >= s.h || ix >= s.w) continue;
                const double term = static_cast<double>(x[static_cast<size_t>(blocked(s.cin, s.h, s.w, n, c, iy, ix))]) *
                                    w[static_cast<size_t>(((o * s.cin + c) * 3 + ky) * 3 + kx)];
                ref += term;
                magnitude += std::abs(term);
              }
          const auto at = static_cast<size_t>(blocked(s.cout, s.oh, s.ow, n, o, oy, ox));
          if (k.residual) {
            ref += r[at];
            magnitude += std::abs(r[at]);
          }
          if (k.relu) ref = std::max(ref, 0.0);
          // Winograd's transforms scale terms by up to 8 and 5 before they
          // cancel: its rounding error is up to ~100 float epsilons of the terms'
          // magnitude (a wrong term would be off by its whole size).
          ASSERT_NEAR(y[at], ref, 1e-5 * magnitude)
              << "cin=" << s.cin << " cout=" << s.cout << " " << s.h << "x" << s.w << " -> " << s.oh << "x" << s.ow
              << " pad " << s.pad_top << "," << s.pad_left << " at n=" << n << " o=" << o << " (" << oy << ", " << ox
              << ")";
        }
}

Winograd43Shape shape(int64_t n, int64_t cin, int64_t cout, int64_t h, int64_t w, int64_t pt, int64_t pl, int64_t pb,
                      int64_t pr) {
  return {n, cin, cout, h, w, h + pt + pb - 2, w + pl + pr - 2, pt, pl};
}

TEST(Winograd, MatchesDirectConvolution) {
  const Winograd43Shape shapes[] = {
      shape(1, 8, 16, 8, 8, 1, 1, 1, 1),      // one 2x2 block of tiles
      shape(1, 16, 32, 13, 10, 1, 1, 1, 1),   // partial tiles at both edges
      shape(2, 8, 16, 9, 7, 0, 0, 0, 0),      // no padding: 7x5 output
      shape(1, 24, 16, 6, 11, 2, 2, 2, 2),    // wider padding than the kernel's reach
      shape(1, 8, 16, 12, 12, 2, 1, 0, 1),    // less padding after than before
      shape(1, 32, 48, 30, 30, 1, 1, 1, 1),   // several tile blocks
      shape(3, 8, 16, 3, 3, 1, 1, 1, 1),      // images smaller than a tile
      shape(1, 8, 8, 10, 10, 1, 1, 1, 1),     // 8 output channels: half a panel
      shape(2, 16, 24, 9, 9, 1, 1, 1, 1),     // 24: one panel and a half
  };
  for (const auto& s : shapes) {
    check({s, true, false, false, false, 1});
    check({s, false, false, false, true, 2});
  }
}

TEST(Winograd, ResidualAndRelu) {
  const Winograd43Shape s = shape(2, 16, 16, 14, 14, 1, 1, 1, 1);
  check({s, true, true, false, true, 1});   // residual from elsewhere
  check({s, true, true, true, true, 2});    // accumulated in place
  check({s, false, true, true, false, 2});  // in place, no bias, no ReLU
}

TEST(Winograd, ThreadsGiveTheSameValues) {
  // More tiles than one block holds, split over 1, 2 and 3 threads.
  const Winograd43Shape s = shape(1, 64, 64, 40, 40, 1, 1, 1, 1);
  for (int t : {1, 2, 3}) check({s, true, true, false, true, t});
}

TEST(Winograd, Supported) {
  EXPECT_TRUE(winograd43_supported(shape(1, 8, 16, 4, 4, 1, 1, 1, 1)));
  EXPECT_FALSE(winograd43_supported(shape(1, 4, 16, 4, 4, 1, 1, 1, 1)));   // cin not a multiple of 8
  EXPECT_FALSE(winograd43_supported(shape(1, 8, 12, 4, 4, 1, 1, 1, 1)));   // cout not a multiple of 8
  EXPECT_FALSE(winograd43_supported(shape(1, 8, 16, 4, 4, -1, 1, 1, 1)));  // negative padding
  EXPECT_FALSE(winograd43_supported(shape(1, 8, 16, 1, 1, 0, 0, 0, 0)));   // no output
}

}  // namespace
}  // namespace edgec

// The onednn delegate's prepacked matmul kernel (backends/onednn/
// gemm_prepacked.h) against a naive double-precision product.
#include "backends/onednn/gemm_prepacked.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace edgec {
namespace {

// gemm_prepacked_f32: B packed once (from a transposed source too), A read
// with a row stride wider than K, C with one wider than N; rows and columns
// that do not fill a 6 x 16 tile; bias or none; ReLU; one and two threads.
void check_prepacked(int64_t M, int64_t N, int64_t K, bool b_transposed, bool bias, bool relu, int threads) {
  std::mt19937 gen(static_cast<uint32_t>(M * 7 + N * 13 + K));
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  const int64_t lda = K + 2, ldc = N + 3;
  std::vector<float> a(static_cast<size_t>(M * lda)), b(static_cast<size_t>(K * N)), bv(static_cast<size_t>(N));
  for (auto* v : {&a, &b, &bv})
    for (float& x : *v) x = dist(gen);
  const int64_t b_rs = b_transposed ? 1 : N, b_cs = b_transposed ? K : 1;
  std::vector<float> packed(static_cast<size_t>(gemm_prepacked_floats(K, N)));
  gemm_prepack_b(K, N, b.data(), b_rs, b_cs, packed.data());
  std::vector<float> c(static_cast<size_t>(M * ldc), 0.5f);
  gemm_prepacked_f32(M, N, K, a.data(), lda, packed.data(), bias ? bv.data() : nullptr, c.data(), ldc, relu, threads);
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      double ref = bias ? bv[static_cast<size_t>(j)] : 0.0;
      for (int64_t k = 0; k < K; ++k) ref += static_cast<double>(a[i * lda + k]) * b[k * b_rs + j * b_cs];
      if (relu) ref = std::max(ref, 0.0);
      ASSERT_NEAR(c[i * ldc + j], ref, 1e-4 * (1.0 + std::sqrt(static_cast<double>(K))))
          << "M=" << M << " N=" << N << " K=" << K << " at (" << i << ", " << j << ")";
    }
    for (int64_t j = N; j < ldc; ++j) ASSERT_EQ(c[i * ldc + j], 0.5f) << "wrote past N in row " << i;
  }
}

TEST(Gemm, PrepackedMatchesNaive) {
  const int64_t sizes[][3] = {{1, 1, 1},   {1, 6, 64},   {5, 15, 7},    {6, 16, 32},  {7, 17, 3},
                              {11, 192, 64}, {20, 64, 256}, {13, 40, 300}, {2, 100, 1}, {30, 33, 65}};
  for (const auto& s : sizes) {
    check_prepacked(s[0], s[1], s[2], false, true, false, 1);
    check_prepacked(s[0], s[1], s[2], true, false, true, 2);
  }
}

}  // namespace
}  // namespace edgec

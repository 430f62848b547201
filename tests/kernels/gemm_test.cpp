// gemm_f32 / gemm_f16 against a naive double-precision product, over sizes
// that cross the blocking edges (micro-tile 6x16, blocks 72 x 128 x 256),
// every operand layout (row-major, transposed, broadcast stride 0), the
// accumulate flag and thread counts.
#include "kernels/gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace edgec {
namespace {

struct Layout {
  bool a_transposed;
  bool b_transposed;
};

// Checks C (+)= A*B for one shape and layout; C starts from a known pattern
// so `accumulate` and "overwrite without reading" are both observable.
void check_gemm(int64_t M, int64_t N, int64_t K, Layout layout, bool accumulate, int threads) {
  std::mt19937 gen(static_cast<uint32_t>(M * 131 + N * 17 + K));
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(static_cast<size_t>(M * K)), b(static_cast<size_t>(K * N));
  for (float& v : a) v = dist(gen);
  for (float& v : b) v = dist(gen);
  // Row stride of C wider than N: the kernel must honour ldc.
  const int64_t ldc = N + 3;
  std::vector<float> c(static_cast<size_t>(M * ldc), 0.5f);
  const int64_t a_rs = layout.a_transposed ? 1 : K, a_cs = layout.a_transposed ? M : 1;
  const int64_t b_rs = layout.b_transposed ? 1 : N, b_cs = layout.b_transposed ? K : 1;
  gemm_f32(M, N, K, a.data(), a_rs, a_cs, b.data(), b_rs, b_cs, c.data(), ldc, accumulate, threads);
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      double ref = accumulate ? 0.5 : 0.0;
      for (int64_t k = 0; k < K; ++k) {
        ref += static_cast<double>(a[i * a_rs + k * a_cs]) * b[k * b_rs + j * b_cs];
      }
      ASSERT_NEAR(c[i * ldc + j], ref, 1e-4 * (1.0 + std::sqrt(static_cast<double>(K))))
          << "M=" << M << " N=" << N << " K=" << K << " at (" << i << ", " << j << ")";
    }
    for (int64_t j = N; j < ldc; ++j) ASSERT_EQ(c[i * ldc + j], 0.5f) << "wrote past N in row " << i;
  }
}

TEST(Gemm, MatchesNaiveAcrossBlockEdges) {
  const int64_t sizes[][3] = {{1, 1, 1},    {1, 40, 7},    {3, 3, 3},     {4, 16, 8},  {6, 16, 256},
                              {7, 17, 257}, {72, 128, 10}, {73, 129, 300}, {5, 200, 3}, {150, 5, 40},
                              {100, 1, 70}, {1, 100, 70},  {200, 260, 520}};
  for (const auto& s : sizes) {
    for (bool at : {false, true}) {
      for (bool bt : {false, true}) check_gemm(s[0], s[1], s[2], {at, bt}, false, 1);
    }
  }
}

TEST(Gemm, AccumulateAddsToC) {
  check_gemm(13, 35, 300, {false, false}, true, 1);
  check_gemm(2, 35, 30, {false, true}, true, 1);
  check_gemm(80, 140, 20, {true, false}, true, 3);
}

TEST(Gemm, ThreadedMatchesSerialBitForBit) {
  // Threads split C into tiles; each element's K order is unchanged, so the
  // result must not depend on the thread count.
  const int64_t M = 190, N = 300, K = 270;
  std::vector<float> a(M * K), b(K * N), c1(M * N), c4(M * N);
  std::mt19937 gen(5);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float& v : a) v = dist(gen);
  for (float& v : b) v = dist(gen);
  gemm_f32(M, N, K, a.data(), K, 1, b.data(), N, 1, c1.data(), N, false, 1);
  gemm_f32(M, N, K, a.data(), K, 1, b.data(), N, 1, c4.data(), N, false, 4);
  EXPECT_EQ(c1, c4);
  check_gemm(M, N, K, {true, true}, false, 4);
}

TEST(Gemm, ThinProductsSplitAcrossThreads) {
  // Fewer than 4 rows or columns skip packing; tasks are (row, column block).
  check_gemm(1, 1000, 300, {false, false}, false, 4);
  check_gemm(3, 700, 400, {false, true}, true, 4);
  check_gemm(500, 2, 600, {true, false}, false, 4);
  check_gemm(600, 3, 500, {false, true}, false, 4);
}

TEST(Gemm, EmptyKWritesZerosOrKeepsC) {
  std::vector<float> c(12, 7.0f);
  gemm_f32(3, 4, 0, nullptr, 0, 1, nullptr, 4, 1, c.data(), 4, true, 1);
  for (float v : c) EXPECT_EQ(v, 7.0f);
  gemm_f32(3, 4, 0, nullptr, 0, 1, nullptr, 4, 1, c.data(), 4, false, 1);
  for (float v : c) EXPECT_EQ(v, 0.0f);
  std::vector<float> big(40 * 30, 7.0f);
  gemm_f32(40, 30, 0, nullptr, 0, 1, nullptr, 30, 1, big.data(), 30, false, 2);
  for (float v : big) EXPECT_EQ(v, 0.0f);
}

TEST(Gemm, BroadcastOperandWithZeroStride) {
  // A's rows all alias one row (row stride 0): every row of C is equal.
  const int64_t M = 20, N = 33, K = 9;
  std::vector<float> row(K), b(K * N), c(M * N);
  for (int64_t k = 0; k < K; ++k) row[k] = static_cast<float>(k) - 4.0f;
  for (int64_t i = 0; i < K * N; ++i) b[i] = static_cast<float>(i % 7) * 0.25f;
  gemm_f32(M, N, K, row.data(), 0, 1, b.data(), N, 1, c.data(), N, false, 1);
  for (int64_t j = 0; j < N; ++j) {
    double ref = 0;
    for (int64_t k = 0; k < K; ++k) ref += row[k] * b[k * N + j];
    for (int64_t i = 0; i < M; ++i) ASSERT_NEAR(c[i * N + j], ref, 1e-5);
  }
}

TEST(Gemm, HalfComputesInFloat) {
  const int64_t M = 9, N = 20, K = 300;
  std::vector<Half> a(M * K), b(K * N), c(M * N);
  std::vector<float> af(M * K), bf(K * N);
  std::mt19937 gen(9);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < M * K; ++i) af[i] = half_to_float(a[i] = float_to_half(dist(gen)));
  for (int64_t i = 0; i < K * N; ++i) bf[i] = half_to_float(b[i] = float_to_half(dist(gen)));
  for (bool bt : {false, true}) {
    const int64_t b_rs = bt ? 1 : N, b_cs = bt ? K : 1;
    gemm_f16(M, N, K, a.data(), K, 1, b.data(), b_rs, b_cs, c.data(), N, false, 1);
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t j = 0; j < N; ++j) {
        double ref = 0;
        for (int64_t k = 0; k < K; ++k) ref += static_cast<double>(af[i * K + k]) * bf[k * b_rs + j * b_cs];
        // One float16 rounding of the result, not one per partial sum.
        ASSERT_NEAR(half_to_float(c[i * N + j]), ref, 1e-3 * (1.0 + std::fabs(ref)));
      }
    }
  }
}

}  // namespace
}  // namespace edgec

// The integer product the quantized convolutions and matmuls run on
// (quantized_conv.cpp, quantized_matmul.cpp):
//   C[m, j] (+)= sum_k A[m, k] * B[k, j]      A, B int16, C int32
// where the callers have already subtracted the zero points, so A and B
// hold values in [-255, 255] and every pair of products fits in int32.
// Sums wrap modulo 2^32 like ONNX Runtime's int32 accumulators (a real
// layer never comes near: K would need to exceed 33,000 at full range).
//
// Operands come packed by the caller into stack tiles, k in pairs:
//   A: row m holds a[m][0], a[m][1], ... (kp pairs, an odd K padded with 0)
//   B: pair p, column j holds b[2p][j], b[2p + 1][j] side by side
// so that one AVX2 `vpmaddwd` multiplies a broadcast pair of A by eight
// columns' pairs of B and adds both products (16 multiply-adds). Without
// AVX2 (aarch64 for now) the same tiles are summed by plain loops.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace edgec::quant {

/// Columns per register block of the kernel; a packed B tile's column count
/// (its row stride, in pairs) is a multiple of this.
inline constexpr int64_t kGemmCols = 16;
/// Rows per register block.
inline constexpr int64_t kGemmRows = 4;

/// Rounds n up to a multiple of kGemmCols.
inline int64_t pad_cols(int64_t n) { return (n + kGemmCols - 1) / kGemmCols * kGemmCols; }

/// One pair of A as the int32 whose halves they are (little endian).
inline int32_t pair_at(const int16_t* a) {
  int32_t v;
  std::memcpy(&v, a, sizeof v);
  return v;
}

#if defined(__AVX2__)
template <int kRows>
inline void gemm_block(int64_t kp, const int16_t* a, int64_t lda, const int16_t* b, int64_t ldb, int32_t* c,
                       int64_t ldc) {
  __m256i acc[kRows][2];
  for (int r = 0; r < kRows; ++r) {
    acc[r][0] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + r * ldc));
    acc[r][1] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + r * ldc + 8));
  }
  for (int64_t p = 0; p < kp; ++p) {
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + p * ldb));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + p * ldb + 16));
    for (int r = 0; r < kRows; ++r) {
      const __m256i av = _mm256_set1_epi32(pair_at(a + r * lda + 2 * p));
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(av, b0));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(av, b1));
    }
  }
  for (int r = 0; r < kRows; ++r) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c + r * ldc), acc[r][0]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c + r * ldc + 8), acc[r][1]);
  }
}
#else
template <int kRows>
inline void gemm_block(int64_t kp, const int16_t* a, int64_t lda, const int16_t* b, int64_t ldb, int32_t* c,
                       int64_t ldc) {
  uint32_t acc[kRows][kGemmCols];
  for (int r = 0; r < kRows; ++r)
    for (int j = 0; j < kGemmCols; ++j) acc[r][j] = static_cast<uint32_t>(c[r * ldc + j]);
  for (int64_t p = 0; p < kp; ++p) {
    const int16_t* bp = b + p * ldb;
    for (int r = 0; r < kRows; ++r) {
      const int32_t a0 = a[r * lda + 2 * p], a1 = a[r * lda + 2 * p + 1];
      for (int j = 0; j < kGemmCols; ++j) {
        acc[r][j] += static_cast<uint32_t>(a0 * bp[2 * j] + a1 * bp[2 * j + 1]);
      }
    }
  }
  for (int r = 0; r < kRows; ++r)
    for (int j = 0; j < kGemmCols; ++j) c[r * ldc + j] = static_cast<int32_t>(acc[r][j]);
}
#endif

/// C[m, j] += sum over kp pairs of A[m, :] . B[:, j] for m < mc, j < ncp
/// (a multiple of kGemmCols): A row-major with row stride lda (int16s), B
/// packed in pairs with ncp columns (row stride 2 * ncp), C row stride ldc.
inline void gemm_tile(int64_t mc, int64_t ncp, int64_t kp, const int16_t* a, int64_t lda, const int16_t* b,
                      int32_t* c, int64_t ldc) {
  const int64_t ldb = 2 * ncp;
  // Column blocks outside: one block's B panel (kp x 64 bytes) stays in L1
  // while every row block passes over it.
  for (int64_t j = 0; j < ncp; j += kGemmCols) {
    int64_t m = 0;
    for (; m + kGemmRows <= mc; m += kGemmRows) {
      gemm_block<kGemmRows>(kp, a + m * lda, lda, b + 2 * j, ldb, c + m * ldc + j, ldc);
    }
    for (; m < mc; ++m) gemm_block<1>(kp, a + m * lda, lda, b + 2 * j, ldb, c + m * ldc + j, ldc);
  }
}

}  // namespace edgec::quant

// The body of the cache-blocked GEMM (see kernels/gemm.cpp for the scheme),
// built once per instruction set for float (kernels/isa/gemm_f32.cpp, in
// edgec::avx2 and edgec::avx512) and once, at the baseline, for float16
// (kernels/gemm.cpp, in edgec::gemm_f16_impl). The includer defines
// EDGEC_KERNEL_ISA (the namespace), includes kernels/isa/tile.h, and
// declares widen() and narrow<T>() for the element types it instantiates
// in that namespace; this file includes nothing (kernels/isa/tile.h says
// why).
#pragma once

#ifndef EDGEC_KERNEL_ISA
#error "kernels/isa/gemm_body.h is for the per-ISA sources, built with EDGEC_KERNEL_ISA defined"
#endif

namespace edgec::EDGEC_KERNEL_ISA {
namespace {

template <typename T>
inline constexpr bool kIsF32 = false;
template <>
inline constexpr bool kIsF32<float> = true;

constexpr int kMR = micro::kRows;
constexpr int kNR = micro::kPanel;
constexpr int64_t kKC = 256;
constexpr int64_t kMC = 72;   // multiple of kMR; packed A block: 72 KiB, stays in L2
static_assert(kMC % kMR == 0, "a block of A is whole micro-panels");
constexpr int64_t kNC = 128;  // multiple of kNR; packed B block: 128 KiB

// Columns of C one task of a thin product covers.
constexpr int64_t kThinCols = 256;

// Below this many multiply-adds a product runs on one thread.
constexpr int64_t kParallelMinWork = int64_t{1} << 18;

using micro::Vec;
using micro::kVecs;
using micro::kWidth;

// Packs rows [0, mc) x cols [0, kc) of A (already offset to the block) into
// micro-panels: panel p holds rows p*MR.. as out[k * MR + r], padded with 0.
template <typename T>
void pack_a(int64_t mc, int64_t kc, const T* a, int64_t rs, int64_t cs, float* out) {
  for (int64_t i = 0; i < mc; i += kMR) {
    const int m = static_cast<int>(micro::min(kMR, mc - i));
    const T* rows = a + i * rs;
    if (m == kMR) {
      for (int64_t k = 0; k < kc; ++k) {
        for (int r = 0; r < kMR; ++r) out[k * kMR + r] = widen(rows[r * rs + k * cs]);
      }
    } else {
      for (int64_t k = 0; k < kc; ++k) {
        for (int r = 0; r < kMR; ++r) out[k * kMR + r] = r < m ? widen(rows[r * rs + k * cs]) : 0.0f;
      }
    }
    out += kc * kMR;
  }
}

// Packs rows [0, kc) x cols [0, nc) of B into micro-panels: panel q holds
// columns q*NR.. as out[k * NR + j], padded with 0.
template <typename T>
void pack_b(int64_t kc, int64_t nc, const T* b, int64_t rs, int64_t cs, float* out) {
  for (int64_t j = 0; j < nc; j += kNR) {
    const int n = static_cast<int>(micro::min(kNR, nc - j));
    const T* cols = b + j * cs;
    if (n == kNR && cs == 1) {
      for (int64_t k = 0; k < kc; ++k) {
        for (int c = 0; c < kNR; ++c) out[k * kNR + c] = widen(cols[k * rs + c]);
      }
    } else if (n == kNR && rs == 1) {
      // Transposed B: walk each column contiguously.
      for (int c = 0; c < kNR; ++c) {
        for (int64_t k = 0; k < kc; ++k) out[k * kNR + c] = widen(cols[k + c * cs]);
      }
    } else {
      for (int64_t k = 0; k < kc; ++k) {
        for (int c = 0; c < kNR; ++c) out[k * kNR + c] = c < n ? widen(cols[k * rs + c * cs]) : 0.0f;
      }
    }
    out += kc * kNR;
  }
}

// c[0:m, 0:n] (+)= a_panel * b_panel over kc steps; c is float, row stride ldc.
inline void micro_kernel(int64_t kc, const float* __restrict a, const float* __restrict b,
                         float* __restrict c, int64_t ldc, int m, int n, bool add) {
  Vec acc[kMR][kVecs] = {};
  for (int64_t k = 0; k < kc; ++k) {
    Vec bv[kVecs];
    for (int v = 0; v < kVecs; ++v) bv[v] = micro::load(b + v * kWidth);
#pragma GCC unroll 16
    for (int r = 0; r < kMR; ++r) {
      for (int v = 0; v < kVecs; ++v) acc[r][v] += a[r] * bv[v];
    }
    a += kMR;
    b += kNR;
  }
  if (m == kMR && n == kNR) {
    for (int r = 0; r < kMR; ++r) {
      float* row = c + r * ldc;
      for (int v = 0; v < kVecs; ++v) {
        if (add) micro::store(row + v * kWidth, micro::load(row + v * kWidth) + acc[r][v]);
        else micro::store(row + v * kWidth, acc[r][v]);
      }
    }
    return;
  }
  alignas(64) float tmp[kMR][kNR];
  for (int r = 0; r < kMR; ++r) micro::store_row(tmp[r], acc[r]);
  for (int r = 0; r < m; ++r) {
    float* row = c + r * ldc;
    for (int j = 0; j < n; ++j) row[j] = add ? row[j] + tmp[r][j] : tmp[r][j];
  }
}

// One MC x NC tile of C: loops over KC slices, packing both operands.
template <typename TA, typename TB, typename TC>
void gemm_tile(int64_t i0, int64_t j0, int64_t mc, int64_t nc, int64_t K, const TA* A,
               int64_t lda_row, int64_t lda_col, const TB* B, int64_t ldb_row, int64_t ldb_col,
               TC* C, int64_t ldc, bool accumulate) {
  alignas(64) float pack_a_buf[kMC * kKC];
  alignas(64) float pack_b_buf[kKC * kNC];

  // float16 output accumulates in a float tile and is narrowed once at the end.
  constexpr bool kDirect = kIsF32<TC>;
  alignas(64) float c_tile[kDirect ? 1 : kMC * kNC];
  float* c_out;
  int64_t c_ld;
  if constexpr (kDirect) {
    c_out = C + i0 * ldc + j0;
    c_ld = ldc;
  } else {
    c_out = c_tile;
    c_ld = nc;
  }
  bool add = accumulate;
  if constexpr (!kDirect) {
    for (int64_t i = 0; i < mc; ++i) {
      for (int64_t j = 0; j < nc; ++j) {
        c_tile[i * nc + j] = accumulate ? widen(C[(i0 + i) * ldc + j0 + j]) : 0.0f;
      }
    }
    add = true;
  }

  if (K == 0 && !add) {
    for (int64_t i = 0; i < mc; ++i)
      for (int64_t j = 0; j < nc; ++j) c_out[i * c_ld + j] = 0.0f;
  }
  for (int64_t p0 = 0; p0 < K; p0 += kKC) {
    const int64_t kc = micro::min(kKC, K - p0);
    pack_a(mc, kc, A + i0 * lda_row + p0 * lda_col, lda_row, lda_col, pack_a_buf);
    pack_b(kc, nc, B + p0 * ldb_row + j0 * ldb_col, ldb_row, ldb_col, pack_b_buf);
    for (int64_t jr = 0; jr < nc; jr += kNR) {
      const int n = static_cast<int>(micro::min(kNR, nc - jr));
      const float* bp = pack_b_buf + (jr / kNR) * kc * kNR;
      for (int64_t ir = 0; ir < mc; ir += kMR) {
        const int m = static_cast<int>(micro::min(kMR, mc - ir));
        const float* ap = pack_a_buf + (ir / kMR) * kc * kMR;
        micro_kernel(kc, ap, bp, c_out + ir * c_ld + jr, c_ld, m, n, add);
      }
    }
    add = true;
  }

  if constexpr (!kDirect) {
    for (int64_t i = 0; i < mc; ++i) {
      for (int64_t j = 0; j < nc; ++j) C[(i0 + i) * ldc + j0 + j] = narrow<TC>(c_tile[i * nc + j]);
    }
  }
}

// Sum of a[k] * b[k] with independent partial sums so the loop vectorizes
// without -ffast-math.
inline float dot_contiguous(const float* a, const float* b, int64_t n) {
  float acc[16] = {};
  int64_t k = 0;
  for (; k + 16 <= n; k += 16) {
    for (int l = 0; l < 16; ++l) acc[l] += a[k + l] * b[k + l];
  }
  float s = 0.0f;
  for (int l = 0; l < 16; ++l) s += acc[l];
  for (; k < n; ++k) s += a[k] * b[k];
  return s;
}

template <typename TA, typename TB>
inline float dot_strided(const TA* a, int64_t as, const TB* b, int64_t bs, int64_t n) {
  float acc[4] = {};
  int64_t k = 0;
  for (; k + 4 <= n; k += 4) {
    for (int l = 0; l < 4; ++l) acc[l] += widen(a[(k + l) * as]) * widen(b[(k + l) * bs]);
  }
  float s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  for (; k < n; ++k) s += widen(a[k * as]) * widen(b[k * bs]);
  return s;
}

// Columns [j0, j0 + N) of row i of C, for products too thin to pack.
template <typename TA, typename TB, typename TC>
void gemm_thin_row(int64_t i, int64_t j0, int64_t N, int64_t K, const TA* A, int64_t lda_row,
                   int64_t lda_col, const TB* B, int64_t ldb_row, int64_t ldb_col, TC* C, int64_t ldc,
                   bool accumulate) {
  TC* c = C + i * ldc + j0;
  const TA* a = A + i * lda_row;
  B += j0 * ldb_col;
  if constexpr (kIsF32<TA> && kIsF32<TB> && kIsF32<TC>) {
    if (lda_col == 1 && ldb_row == 1) {
      for (int64_t j = 0; j < N; ++j) {
        const float s = dot_contiguous(a, B + j * ldb_col, K);
        c[j] = accumulate ? c[j] + s : s;
      }
      return;
    }
    if (ldb_col == 1) {
      if (!accumulate)
        for (int64_t j = 0; j < N; ++j) c[j] = 0.0f;
      for (int64_t k = 0; k < K; ++k) {
        const float av = a[k * lda_col];
        const float* b = B + k * ldb_row;
        for (int64_t j = 0; j < N; ++j) c[j] += av * b[j];
      }
      return;
    }
  }
  for (int64_t j = 0; j < N; ++j) {
    const float s = dot_strided(a, lda_col, B + j * ldb_col, ldb_row, K);
    c[j] = narrow<TC>(accumulate ? widen(c[j]) + s : s);
  }
}

template <typename TA, typename TB, typename TC>
void gemm_impl(int64_t M, int64_t N, int64_t K, const TA* A, int64_t lda_row, int64_t lda_col,
               const TB* B, int64_t ldb_row, int64_t ldb_col, TC* C, int64_t ldc, bool accumulate,
               int num_threads) {
  if (M <= 0 || N <= 0) return;
  const int64_t work = M * N * micro::max(K, 1);
  const int max_threads = work >= kParallelMinWork ? (num_threads > 1 ? num_threads : 1) : 1;

  if (M < 4 || N < 4) {
    // Thin products: packing would cost as much as the arithmetic. Tasks are
    // (row, column block) so a single-row product (batch-1 linear layer)
    // still spreads over threads.
    const int64_t col_blocks = (N + kThinCols - 1) / kThinCols;
    const int64_t tasks = M * col_blocks;
    const int threads = static_cast<int>(micro::min(max_threads, tasks));
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
    for (int64_t t = 0; t < tasks; ++t) {
      const int64_t i = t / col_blocks;
      const int64_t j0 = (t % col_blocks) * kThinCols;
      gemm_thin_row(i, j0, micro::min(kThinCols, N - j0), K, A, lda_row, lda_col, B, ldb_row, ldb_col, C,
                    ldc, accumulate);
    }
    return;
  }

  int64_t mc = kMC;
  const int64_t tiles_n = (N + kNC - 1) / kNC;
  int64_t tiles_m = (M + mc - 1) / mc;
  if (tiles_m * tiles_n < max_threads) {
    // Too few tiles to keep every thread busy: cut M finer (in whole micro-panels).
    const int64_t want_m = (max_threads + tiles_n - 1) / tiles_n;
    const int64_t rows = (M + want_m - 1) / want_m;
    mc = micro::max(kMR, (rows + kMR - 1) / kMR * kMR);
    tiles_m = (M + mc - 1) / mc;
  }
  const int64_t tiles = tiles_m * tiles_n;
  const int threads = static_cast<int>(micro::min(max_threads, tiles));
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t i0 = (t % tiles_m) * mc;
    const int64_t j0 = (t / tiles_m) * kNC;
    gemm_tile(i0, j0, micro::min(mc, M - i0), micro::min(kNC, N - j0), K, A, lda_row, lda_col, B,
              ldb_row, ldb_col, C, ldc, accumulate);
  }
}

}  // namespace
}  // namespace edgec::EDGEC_KERNEL_ISA

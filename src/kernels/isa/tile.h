// The register tile the hand-written products share (gemm_f32 over packed
// A, gemm_prepacked_f32, conv1d_gemm, the Winograd convolution): up to
// kRows rows x 16 columns of C held in vector registers while k runs over
// a row of A (rows `lda` apart, each contiguous along k) times a packed
// panel of B (16 floats per k). GCC vector extensions: a row of the tile is
// two 8-float vectors in the AVX2 build (6 rows), one 16-float vector in
// the AVX-512 build (12 rows) and four 4-float vectors in the NEON builds
// (6 rows).
//
// Only for the per-ISA sources (docs/architecture.md, "Instruction sets"):
// everything here is defined in the namespace EDGEC_KERNEL_ISA names
// (edgec::avx2::micro, edgec::avx512::micro; edgec::neon::micro,
// edgec::armv82::micro), so that no inline function or
// template instantiation built for one instruction set can stand in for
// another's at link time. For the same reason a per-ISA source includes
// no header that defines functions outside its namespace: only <cstdint>,
// <cstring> (memcpy, a builtin), <omp.h> (C declarations) and this one;
// ctest's isa.no_leak disassembles the artifacts to check it.
#pragma once

#ifndef EDGEC_KERNEL_ISA
#error "kernels/isa/tile.h is for the per-ISA sources, built with EDGEC_KERNEL_ISA defined"
#endif

#include <cstdint>
#include <cstring>

namespace edgec::EDGEC_KERNEL_ISA::micro {

typedef float Vec8 __attribute__((vector_size(32)));

// Rows of C per tile: as many as keep the FMA units busy without
// spilling. AVX2: 12 accumulators of 16 registers. AVX-512: 12 of 32; with
// 6 (the AVX2 shape) the products were 1.0-1.5x the AVX2 build's speed,
// with 12 about 1.4-1.9x on this project's AMD EPYC (bench/isa_kernels).
// NEON: 128-bit vectors, 24 accumulators of 32 registers, leaving four for
// a row of the panel (not timed: there is no ARM machine here).
#if defined(__AVX512F__)
constexpr int kWidth = 16;  ///< Floats per vector of the tile.
constexpr int kRows = 12;
#elif defined(__aarch64__)
constexpr int kWidth = 4;
constexpr int kRows = 6;
#else
constexpr int kWidth = 8;
constexpr int kRows = 6;
#endif
typedef float Vec __attribute__((vector_size(kWidth * sizeof(float))));

constexpr int kPanel = 16;              ///< Columns of C per tile (one packed panel of B).
constexpr int kVecs = kPanel / kWidth;  ///< Vectors per row of the tile.

template <typename V = Vec>
inline V load(const float* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename V>
inline void store(float* p, V v) {
  std::memcpy(p, &v, sizeof v);
}
template <typename V>
inline V relu(V v) {
  return v > 0 ? v : V{};
}

inline int64_t min(int64_t a, int64_t b) { return a < b ? a : b; }
inline int64_t max(int64_t a, int64_t b) { return a < b ? b : a; }

/// acc[r] = sum_k a[r * lda + k] * panel[k * 16 + 0..16), r < R.
template <int R>
inline void tile_product(int64_t K, const float* a, int64_t lda, const float* panel, Vec (&acc)[R][kVecs]) {
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < kVecs; ++v) acc[r][v] = Vec{};
  for (int64_t k = 0; k < K; ++k) {
    Vec b[kVecs];
    for (int v = 0; v < kVecs; ++v) b[v] = load(panel + k * kPanel + v * kWidth);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const float av = a[r * lda + k];
      for (int v = 0; v < kVecs; ++v) acc[r][v] += av * b[v];
    }
  }
}

/// Stores row `r` of a tile (16 floats) at `out`.
inline void store_row(float* out, const Vec (&row)[kVecs]) {
  for (int v = 0; v < kVecs; ++v) store(out + v * kWidth, row[v]);
}

/// Calls f.template operator()<R>() with R = min(rows, kRows) (at least 1):
/// the tile functions are instantiated per row count so the accumulators
/// stay in registers.
template <int R = kRows, typename F>
inline void with_rows(int rows, F&& f) {
  if constexpr (R > 1) {
    if (rows < R) return with_rows<R - 1>(rows, f);
  }
  f.template operator()<R>();
}

}  // namespace edgec::EDGEC_KERNEL_ISA::micro

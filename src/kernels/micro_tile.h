// The register tile the hand-written products share (gemm_prepacked_f32,
// conv1d_gemm, the Winograd convolution; gemm_f32 has the same shape over
// packed A): up to 6 rows x 16 columns of C held in twelve
// 8-float vectors while k runs over a row of A (rows `lda` apart, each
// contiguous along k) times a packed panel of B (16 floats per k). GCC
// vector extensions: AVX2 + FMA under -march=native, SSE pairs elsewhere.
#pragma once

#include <cstdint>
#include <cstring>

namespace edgec::micro {

typedef float Vec8 __attribute__((vector_size(32)));

constexpr int kRows = 6;     ///< Rows of C per tile.
constexpr int kPanel = 16;   ///< Columns of C per tile (one packed panel of B).

inline Vec8 load(const float* p) {
  Vec8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store(float* p, Vec8 v) { std::memcpy(p, &v, sizeof v); }

/// acc[r] = sum_k a[r * lda + k] * panel[k * 16 + 0..16), r < R.
template <int R>
inline void tile_product(int64_t K, const float* a, int64_t lda, const float* panel, Vec8 (&acc)[R][2]) {
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = Vec8{};
  for (int64_t k = 0; k < K; ++k) {
    const Vec8 b0 = load(panel + k * kPanel), b1 = load(panel + k * kPanel + 8);
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      const float av = a[r * lda + k];
      acc[r][0] += av * b0;
      acc[r][1] += av * b1;
    }
  }
}

/// Calls f.template operator()<R>() with R = rows (1..6): the tile
/// functions are instantiated per row count so the accumulators stay in
/// registers.
template <typename F>
inline void with_rows(int rows, F&& f) {
  switch (rows) {
    case 6: f.template operator()<6>(); break;
    case 5: f.template operator()<5>(); break;
    case 4: f.template operator()<4>(); break;
    case 3: f.template operator()<3>(); break;
    case 2: f.template operator()<2>(); break;
    default: f.template operator()<1>(); break;
  }
}

}  // namespace edgec::micro

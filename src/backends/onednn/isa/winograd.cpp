// The Winograd F(4x4, 3x3) convolution (backends/onednn/winograd.h) for one
// instruction set (EDGEC_KERNEL_ISA), built once per set: the transforms
// (8 channels of the blocked layout per vector) and the products (the
// shared register tile). The dispatchers and the blocking are in
// backends/onednn/winograd.cpp. Includes only what kernels/isa/tile.h
// allows (winograd.h declares plain structs, constants and functions).
#include <omp.h>

#include "backends/onednn/winograd.h"
#include "kernels/isa/tile.h"
#include "kernels/isa/kernels.h"

namespace edgec::EDGEC_KERNEL_ISA {
namespace {

using V8 = micro::Vec8;
using micro::load;
using micro::store;
using micro::Vec;
using namespace winograd;

inline int64_t padded(int64_t cout) { return (cout + kNR - 1) / kNR * kNR; }
static_assert(kNR == micro::kPanel, "winograd.h's panel is kernels/isa/tile.h's");

// One dimension of the input transform, B^T d.
inline void input_1d(const V8 d[6], V8 r[6]) {
  r[0] = 4.f * d[0] - 5.f * d[2] + d[4];
  r[1] = -4.f * (d[1] + d[2]) + d[3] + d[4];
  r[2] = 4.f * (d[1] - d[2]) - d[3] + d[4];
  r[3] = 2.f * (d[3] - d[1]) - d[2] + d[4];
  r[4] = 2.f * (d[1] - d[3]) - d[2] + d[4];
  r[5] = 4.f * d[1] - 5.f * d[3] + d[5];
}

// One dimension of the output transform, A^T m.
inline void output_1d(const V8 m[6], V8 r[4]) {
  const V8 a = m[1] + m[2], b = m[1] - m[2], c = m[3] + m[4], e = m[3] - m[4];
  r[0] = m[0] + a + c;
  r[1] = b + 2.f * e;
  r[2] = a + 4.f * c;
  r[3] = b + 8.f * e + m[5];
}

// Tile `t` of the whole output: image, tile row, tile column.
struct TilePos {
  int64_t n, ty, tx;
};
inline TilePos tile_pos(const WinogradBlocking& b, int64_t t) {
  const int64_t per_image = b.tiles_h * b.tiles_w, r = t % per_image;
  return {t / per_image, r / b.tiles_w, r % b.tiles_w};
}

void transform_inputs(const Winograd43Shape& s, const WinogradBlocking& b, const float* x, int64_t t0, int64_t count,
                      float* v) {
  const int64_t cb_count = s.cin / 8;
  for (int64_t i = 0; i < count; ++i) {
    const TilePos p = tile_pos(b, t0 + i);
    const int64_t y0 = p.ty * kTile - s.pad_top, x0 = p.tx * kTile - s.pad_left;
    const bool inside = y0 >= 0 && x0 >= 0 && y0 + kAlpha <= s.h && x0 + kAlpha <= s.w;
    for (int64_t cb = 0; cb < cb_count; ++cb) {
      const float* plane = x + ((p.n * cb_count + cb) * s.h) * s.w * 8;
      V8 d[kAlpha][kAlpha];
      for (int r = 0; r < kAlpha; ++r) {
        const int64_t yy = y0 + r;
        for (int q = 0; q < kAlpha; ++q) {
          const int64_t xx = x0 + q;
          if (inside || (yy >= 0 && yy < s.h && xx >= 0 && xx < s.w)) d[r][q] = load<V8>(plane + (yy * s.w + xx) * 8);
          else d[r][q] = V8{};
        }
      }
      // Columns, then rows.
      V8 tmp[kAlpha][kAlpha];
      for (int q = 0; q < kAlpha; ++q) {
        V8 col[kAlpha], out[kAlpha];
        for (int r = 0; r < kAlpha; ++r) col[r] = d[r][q];
        input_1d(col, out);
        for (int r = 0; r < kAlpha; ++r) tmp[r][q] = out[r];
      }
      for (int r = 0; r < kAlpha; ++r) {
        V8 out[kAlpha];
        input_1d(tmp[r], out);
        for (int q = 0; q < kAlpha; ++q) store(v + ((r * kAlpha + q) * b.per_block + i) * s.cin + cb * 8, out[q]);
      }
    }
  }
}

void multiply(const Winograd43Shape& s, const WinogradBlocking& b, const float* v, const float* u, int64_t count, float* m) {
  const int64_t cp = padded(s.cout), panels = cp / kNR;
  for (int xi = 0; xi < kPoints; ++xi) {
    const float* vx = v + xi * b.per_block * s.cin;
    float* mx = m + xi * b.per_block * cp;
    for (int64_t p = 0; p < panels; ++p) {
      const float* panel = u + (xi * panels + p) * s.cin * kNR;
      for (int64_t r = 0; r < count; r += micro::kRows) {
        const int rows = static_cast<int>(micro::min(micro::kRows, count - r));
        float* c = mx + r * cp + p * kNR;
        micro::with_rows(rows, [&]<int R>() {
          Vec acc[R][micro::kVecs];
          micro::tile_product<R>(s.cin, vx + r * s.cin, s.cin, panel, acc);
          for (int q = 0; q < R; ++q) {
            micro::store_row(c + q * cp, acc[q]);
          }
        });
      }
    }
  }
}

void transform_outputs(const Winograd43Shape& s, const WinogradBlocking& b, const float* m, const float* bias,
                       int64_t t0, int64_t count, const float* residual, float* y, bool relu) {
  const int64_t ob_count = s.cout / 8, cp = padded(s.cout);
  for (int64_t i = 0; i < count; ++i) {
    const TilePos p = tile_pos(b, t0 + i);
    const int64_t y0 = p.ty * kTile, x0 = p.tx * kTile;
    const int rows = static_cast<int>(micro::min(kTile, s.oh - y0));
    const int cols = static_cast<int>(micro::min(kTile, s.ow - x0));
    for (int64_t ob = 0; ob < ob_count; ++ob) {
      V8 tmp[kTile][kAlpha];
      for (int q = 0; q < kAlpha; ++q) {
        V8 col[kAlpha], out[kTile];
        for (int r = 0; r < kAlpha; ++r) col[r] = load<V8>(m + ((r * kAlpha + q) * b.per_block + i) * cp + ob * 8);
        output_1d(col, out);
        for (int r = 0; r < kTile; ++r) tmp[r][q] = out[r];
      }
      const V8 bv = bias ? load<V8>(bias + ob * 8) : V8{};
      const int64_t plane = ((p.n * ob_count + ob) * s.oh) * s.ow * 8;
      for (int r = 0; r < rows; ++r) {
        V8 out[kTile];
        output_1d(tmp[r], out);
        for (int q = 0; q < cols; ++q) {
          const int64_t at = plane + ((y0 + r) * s.ow + x0 + q) * 8;
          V8 o = out[q] + bv;
          if (residual) o += load<V8>(residual + at);
          if (relu) o = o > 0 ? o : V8{};
          store(y + at, o);
        }
      }
    }
  }
}

}  // namespace

void winograd43_transform_weights(const float* w, int64_t cout, int64_t cin, float* u) {
  // G (6 x 3).
  static const float g[kAlpha][3] = {{1.f / 4, 0, 0},
                                     {-1.f / 6, -1.f / 6, -1.f / 6},
                                     {-1.f / 6, 1.f / 6, -1.f / 6},
                                     {1.f / 24, 1.f / 12, 1.f / 6},
                                     {1.f / 24, -1.f / 12, 1.f / 6},
                                     {0, 0, 1}};
  const int64_t panels = padded(cout) / kNR;
  // The 16 output channels of a panel side by side in two vectors, so that
  // each (point, input channel) row of the panel is two stores.
  for (int64_t p = 0; p < panels; ++p) {
    for (int64_t k = 0; k < cin; ++k) {
      for (int half = 0; half < 2; ++half) {
        V8 f[9] = {};
        const int64_t o0 = p * kNR + half * 8;
        if (o0 < cout)
          for (int e = 0; e < 9; ++e)
            for (int j = 0; j < 8; ++j) f[e][j] = w[((o0 + j) * cin + k) * 9 + e];
        V8 gf[kAlpha][3];  // G f
        for (int r = 0; r < kAlpha; ++r)
          for (int q = 0; q < 3; ++q) gf[r][q] = g[r][0] * f[q] + g[r][1] * f[3 + q] + g[r][2] * f[6 + q];
        for (int r = 0; r < kAlpha; ++r) {
          for (int q = 0; q < kAlpha; ++q) {
            const int64_t xi = r * kAlpha + q;
            store(u + ((xi * panels + p) * cin + k) * kNR + half * 8,
                  gf[r][0] * g[q][0] + gf[r][1] * g[q][1] + gf[r][2] * g[q][2]);
          }
        }
      }
    }
  }
}

void winograd43_conv(const Winograd43Shape& s, const WinogradBlocking& b, const float* x, const float* u, const float* bias,
                     const float* residual, float* y, bool relu, float* scratch, int threads) {
  threads = threads > 1 ? threads : 1;
  const int64_t per_thread = kPoints * b.per_block * (s.cin + padded(s.cout));
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t blk = 0; blk < b.blocks; ++blk) {
    const int64_t t0 = blk * b.per_block, count = micro::min(b.per_block, b.tiles - t0);
    if (count <= 0) continue;
    float* v = scratch + omp_get_thread_num() * per_thread;
    float* m = v + kPoints * b.per_block * s.cin;
    transform_inputs(s, b, x, t0, count, v);
    multiply(s, b, v, u, count, m);
    transform_outputs(s, b, m, bias, t0, count, residual, y, relu);
  }
}

}  // namespace edgec::EDGEC_KERNEL_ISA

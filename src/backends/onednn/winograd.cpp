// Winograd F(4x4, 3x3): see winograd.h. With alpha = 6 points (0, +-1,
// +-2, inf) the transforms are, for one dimension,
//   input  V = B^T d  (6 -> 6), weights U = G g (3 -> 6), output Y = A^T M (6 -> 4),
// applied along rows and then columns of each tile. The work is cut into
// blocks of output tiles, one thread per block: the block's input tiles
// are transformed into V[36][tiles][cin], multiplied by U[36][cin][cout]
// position by position (a register-tiled micro-kernel, 6 tiles x 16 output
// channels) into M[36][tiles][cout], and M transformed back into the
// output with bias, residual and ReLU applied on the way out. A block's V
// and M are sized to stay in the core's L2.
//
// Written with GCC vector extensions (kernels/micro_tile.h): 8 channels of
// the blocked layout are one vector.
#include "backends/onednn/winograd.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "kernels/micro_tile.h"

namespace edgec {
namespace {

using V8 = micro::Vec8;
using micro::load;
using micro::store;

constexpr int kAlpha = 6;                 // Input tile side.
constexpr int kTile = 4;                  // Output tile side.
constexpr int kPoints = kAlpha * kAlpha;  // Products per tile.
constexpr int kMR = micro::kRows;         // Tiles per micro-kernel.
constexpr int kNR = micro::kPanel;        // Output channels per micro-kernel.
// A block's V and M together (floats): 384 KiB, inside a 512 KiB L2.
constexpr int64_t kBlockFloats = 96 * 1024;

// Output channels rounded up to whole panels (the transformed weights of
// the padding channels are zero; their products are never written out).
inline int64_t padded(int64_t cout) { return (cout + kNR - 1) / kNR * kNR; }

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

struct Blocking {
  int64_t tiles_h, tiles_w, tiles;  // Output tiles per image side, in all.
  int64_t per_block, blocks;
};

Blocking blocking(const Winograd43Shape& s, int threads) {
  Blocking b;
  b.tiles_h = (s.oh + kTile - 1) / kTile;
  b.tiles_w = (s.ow + kTile - 1) / kTile;
  b.tiles = s.n * b.tiles_h * b.tiles_w;
  const int64_t most = std::clamp<int64_t>(kBlockFloats / (kPoints * (s.cin + padded(s.cout))), kMR, 8 * kMR);
  const int64_t t = std::max(threads, 1);
  // A whole number of blocks per thread, as even as the tiles allow.
  b.blocks = t * ((b.tiles + t * most - 1) / (t * most));
  b.per_block = (b.tiles + b.blocks - 1) / b.blocks;
  return b;
}

// Tile `t` of the whole output: image, tile row, tile column.
struct TilePos {
  int64_t n, ty, tx;
};
inline TilePos tile_pos(const Blocking& b, int64_t t) {
  const int64_t per_image = b.tiles_h * b.tiles_w, r = t % per_image;
  return {t / per_image, r / b.tiles_w, r % b.tiles_w};
}

void transform_inputs(const Winograd43Shape& s, const Blocking& b, const float* x, int64_t t0, int64_t count,
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
          if (inside || (yy >= 0 && yy < s.h && xx >= 0 && xx < s.w)) d[r][q] = load(plane + (yy * s.w + xx) * 8);
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

void multiply(const Winograd43Shape& s, const Blocking& b, const float* v, const float* u, int64_t count, float* m) {
  const int64_t cp = padded(s.cout), panels = cp / kNR;
  for (int xi = 0; xi < kPoints; ++xi) {
    const float* vx = v + xi * b.per_block * s.cin;
    float* mx = m + xi * b.per_block * cp;
    for (int64_t p = 0; p < panels; ++p) {
      const float* panel = u + (xi * panels + p) * s.cin * kNR;
      for (int64_t r = 0; r < count; r += kMR) {
        const int rows = static_cast<int>(std::min<int64_t>(kMR, count - r));
        float* c = mx + r * cp + p * kNR;
        micro::with_rows(rows, [&]<int R>() {
          V8 acc[R][2];
          micro::tile_product<R>(s.cin, vx + r * s.cin, s.cin, panel, acc);
          for (int q = 0; q < R; ++q) {
            store(c + q * cp, acc[q][0]);
            store(c + q * cp + 8, acc[q][1]);
          }
        });
      }
    }
  }
}

void transform_outputs(const Winograd43Shape& s, const Blocking& b, const float* m, const float* bias,
                       int64_t t0, int64_t count, const float* residual, float* y, bool relu) {
  const int64_t ob_count = s.cout / 8, cp = padded(s.cout);
  for (int64_t i = 0; i < count; ++i) {
    const TilePos p = tile_pos(b, t0 + i);
    const int64_t y0 = p.ty * kTile, x0 = p.tx * kTile;
    const int rows = static_cast<int>(std::min<int64_t>(kTile, s.oh - y0));
    const int cols = static_cast<int>(std::min<int64_t>(kTile, s.ow - x0));
    for (int64_t ob = 0; ob < ob_count; ++ob) {
      V8 tmp[kTile][kAlpha];
      for (int q = 0; q < kAlpha; ++q) {
        V8 col[kAlpha], out[kTile];
        for (int r = 0; r < kAlpha; ++r) col[r] = load(m + ((r * kAlpha + q) * b.per_block + i) * cp + ob * 8);
        output_1d(col, out);
        for (int r = 0; r < kTile; ++r) tmp[r][q] = out[r];
      }
      const V8 bv = bias ? load(bias + ob * 8) : V8{};
      const int64_t plane = ((p.n * ob_count + ob) * s.oh) * s.ow * 8;
      for (int r = 0; r < rows; ++r) {
        V8 out[kTile];
        output_1d(tmp[r], out);
        for (int q = 0; q < cols; ++q) {
          const int64_t at = plane + ((y0 + r) * s.ow + x0 + q) * 8;
          V8 o = out[q] + bv;
          if (residual) o += load(residual + at);
          if (relu) o = o > 0 ? o : V8{};
          store(y + at, o);
        }
      }
    }
  }
}

}  // namespace

bool winograd43_supported(const Winograd43Shape& s) {
  return s.n > 0 && s.cin > 0 && s.cout > 0 && s.cin % 8 == 0 && s.cout % 8 == 0 && s.h > 0 && s.w > 0 &&
         s.oh > 0 && s.ow > 0 && s.pad_top >= 0 && s.pad_left >= 0;
}

int64_t winograd43_weights_floats(int64_t cin, int64_t cout) { return kPoints * cin * padded(cout); }

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

int64_t winograd43_scratch_floats(const Winograd43Shape& s, int threads) {
  const Blocking b = blocking(s, threads);
  return std::max(threads, 1) * kPoints * b.per_block * (s.cin + padded(s.cout));
}

void winograd43_conv(const Winograd43Shape& s, const float* x, const float* u, const float* bias,
                     const float* residual, float* y, bool relu, float* scratch, int threads) {
  threads = std::max(threads, 1);
  const Blocking b = blocking(s, threads);
  const int64_t per_thread = kPoints * b.per_block * (s.cin + padded(s.cout));
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t blk = 0; blk < b.blocks; ++blk) {
    const int64_t t0 = blk * b.per_block, count = std::min(b.per_block, b.tiles - t0);
    if (count <= 0) continue;
    float* v = scratch + omp_get_thread_num() * per_thread;
    float* m = v + kPoints * b.per_block * s.cin;
    transform_inputs(s, b, x, t0, count, v);
    multiply(s, b, v, u, count, m);
    transform_outputs(s, b, m, bias, t0, count, residual, y, relu);
  }
}

}  // namespace edgec

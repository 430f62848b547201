// The convolution engine (conv_engine.h): the implicit GEMM with its gathered
// column tiles, and the direct depthwise loop.
#include "kernels/conv_engine.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>

#include "kernels/conv_spatial.h"
#include "kernels/families.h"
#include "kernels/gemm.h"

namespace edgec::conv_engine {
namespace {

using spatial::ceil_div;

// Tile sizes. kChunkN matches the GEMM's column block so one call fills it;
// the col tile (64 KiB), packed weights (32 KiB) and output tile (64 KiB)
// come on top of the GEMM's own ~200 KiB of stack per thread.
constexpr int64_t kChunkK = 128;
constexpr int64_t kChunkN = 128;
constexpr int64_t kChunkM = 128;
constexpr int64_t kChunkKPackedA = 64;  // K step when the weights are packed here too
constexpr int64_t kFlatPlane = 8192;    // floats per padded depthwise plane (32 KiB)
constexpr int64_t kMinGemmRows = 4;     // gemm_f32 packs products with at least this many rows
constexpr int64_t kPieceRows = kChunkM + kMinGemmRows - 1;  // most rows row_piece() returns


/// If dims (sizes[i], strides[i]), outermost first, address memory with one
/// uniform stride, returns true and sets `stride`. Size-1 dims never matter.
bool merged_stride(std::initializer_list<std::pair<int64_t, int64_t>> dims, int64_t& stride) {
  int64_t extent = 0;  // product of sizes seen so far (inner dims), 0 = none yet
  stride = 1;
  for (auto it = std::rbegin(dims); it != std::rend(dims); ++it) {
    const auto [size, s] = *it;
    if (size == 1) continue;
    if (extent == 0) {
      stride = s;
      extent = size;
    } else {
      if (s != stride * extent) return false;
      extent *= size;
    }
  }
  return true;
}

/// How one GEMM over a phase is fed.
struct ConvPlan {
  ConvAxes axis;
  int64_t columns = 0;  // axis[0].count * axis[1].count * axis[2].count
  int64_t k_total = 0;  // cig * taps_z * taps_y * taps_x
  // A[m, k] straight from the weights (f32 with mergeable k dims).
  bool a_view = false;
  int64_t a_col_stride = 0;
  // col[k, j] straight from the input (f32, 1x1 taps fully inside the input,
  // output positions mergeable into one column stride): no gather at all.
  bool b_view = false;
  int64_t b_col_stride = 0;
  // The phase is the whole output, so the GEMM writes the output directly.
  bool direct_out = false;
};

template <typename T>
ConvPlan make_plan(const ConvOperands<T>& op, const ConvAxes& axis) {
  ConvPlan plan;
  std::copy_n(axis, 3, plan.axis);
  plan.columns = axis[0].count * axis[1].count * axis[2].count;
  plan.k_total = op.cig * axis[0].taps * axis[1].taps * axis[2].taps;
  constexpr bool kF32 = std::is_same_v<T, float>;
  const int64_t in_size[3] = {op.in_d, op.in_h, op.in_w};
  const int64_t out_size[3] = {op.out_d, op.out_h, op.out_w};
  if (kF32) {
    plan.a_view = merged_stride({{op.cig, op.w_ci},
                                 {axis[0].taps, op.w_z * axis[0].w_step},
                                 {axis[1].taps, op.w_y * axis[1].w_step},
                                 {axis[2].taps, op.w_x * axis[2].w_step}},
                                plan.a_col_stride);
    bool single_tap_inside = true;
    for (int a = 0; a < 3; ++a) {
      single_tap_inside = single_tap_inside && axis[a].taps == 1 && axis[a].off0 >= 0 &&
                          (axis[a].count - 1) * axis[a].in_step + axis[a].off0 < in_size[a];
    }
    plan.b_view = single_tap_inside && merged_stride({{axis[0].count, axis[0].in_step * op.x_stride[2]},
                                                      {axis[1].count, axis[1].in_step * op.x_stride[3]},
                                                      {axis[2].count, axis[2].in_step * op.x_stride[4]}},
                                                     plan.b_col_stride);
  }
  plan.direct_out = kF32;
  for (int a = 0; a < 3; ++a) {
    plan.direct_out = plan.direct_out && axis[a].out0 == 0 && axis[a].out_step == 1 && axis[a].count == out_size[a];
  }
  return plan;
}

/// What GEMM row k reads: input channel ci within the group and the tap
/// along each axis. Rows are walked in order, so next() steps to row k + 1
/// without dividing.
struct RowTap {
  int64_t ci = 0, t[3] = {0, 0, 0};
  int64_t taps[3] = {1, 1, 1};

  RowTap(const ConvPlan& plan, int64_t k) {
    for (int a = 0; a < 3; ++a) taps[a] = plan.axis[a].taps;
    const int64_t taps_yx = taps[1] * taps[2];
    const int64_t taps_zyx = taps[0] * taps_yx;
    ci = k / taps_zyx;
    const int64_t tap = k - ci * taps_zyx;
    t[0] = tap / taps_yx;
    const int64_t in_plane = tap - t[0] * taps_yx;
    t[1] = in_plane / taps[2];
    t[2] = in_plane - t[1] * taps[2];
  }

  void next() {
    if (++t[2] < taps[2]) return;
    t[2] = 0;
    if (++t[1] < taps[1]) return;
    t[1] = 0;
    if (++t[0] < taps[0]) return;
    t[0] = 0;
    ++ci;
  }
};

/// Gathers col[kk, jj] = x[n, ci, iz, iy, ix] (0 outside the input) for
/// rows k0 + kk and columns j0 + jj of one group; row stride nc. Columns
/// are numbered across images (j = ((n * count_z + a_z) * count_y + a_y) *
/// count_x + a_x), so one tile may span several small images.
template <typename T>
void pack_columns(const ConvOperands<T>& op, const ConvPlan& plan, const T* xg, int64_t k0,
                  int64_t kc, int64_t j0, int64_t nc, float* col) {
  const ConvAxis& az_axis = plan.axis[0];
  const ConvAxis& ay_axis = plan.axis[1];
  const ConvAxis& ax_axis = plan.axis[2];
  const int64_t count_x = ax_axis.count;
  const int64_t count_y = ay_axis.count;
  const int64_t count_z = az_axis.count;
  const int64_t step = ax_axis.in_step;
  const int64_t sz = op.x_stride[2], sy = op.x_stride[3], sx = op.x_stride[4];
  RowTap tap(plan, k0);
  for (int64_t kk = 0; kk < kc; ++kk, tap.next()) {
    const int64_t dz = az_axis.off0 + tap.t[0] * az_axis.off_step;
    const int64_t dy = ay_axis.off0 + tap.t[1] * ay_axis.off_step;
    const int64_t dx = ax_axis.off0 + tap.t[2] * ax_axis.off_step;
    const T* channel = xg + tap.ci * op.x_stride[1];
    // Columns a (along x) whose input lies inside [0, W): a in [a_lo, a_hi).
    const int64_t a_lo = dx >= 0 ? 0 : ceil_div(-dx, step);
    const int64_t a_hi = op.in_w - 1 - dx < 0 ? 0 : (op.in_w - 1 - dx) / step + 1;
    const int64_t src_step = step * sx;
    float* d = col + kk * nc;
    // Walk the tile's columns one output row (segment) at a time; rows are
    // short for small images, so no per-segment division or library call.
    const int64_t row0 = j0 / count_x;
    int64_t x0 = j0 - row0 * count_x;
    const int64_t slice0 = row0 / count_y;
    int64_t ay = row0 - slice0 * count_y;
    int64_t n = slice0 / count_z;
    int64_t az = slice0 - n * count_z;
    const T* image = channel + n * op.x_stride[0];
    for (int64_t done = 0; done < nc;) {
      const int64_t seg = std::min(count_x - x0, nc - done);
      const int64_t iz = az * az_axis.in_step + dz;
      const int64_t iy = ay * ay_axis.in_step + dy;
      if (iy < 0 || iy >= op.in_h || iz < 0 || iz >= op.in_d) {
        for (int64_t i = 0; i < seg; ++i) d[i] = 0.0f;
      } else {
        const int64_t lo = std::clamp(a_lo, x0, x0 + seg) - x0;
        const int64_t hi = std::clamp(a_hi, x0 + lo, x0 + seg) - x0;
        for (int64_t i = 0; i < lo; ++i) d[i] = 0.0f;
        if (hi > lo) {
          const T* src = image + iz * sz + iy * sy + ((x0 + lo) * step + dx) * sx;
          float* dv = d + lo;
          if (src_step == 1) {
            for (int64_t i = 0; i < hi - lo; ++i) dv[i] = widen(src[i]);
          } else {
            for (int64_t i = 0; i < hi - lo; ++i) dv[i] = widen(src[i * src_step]);
          }
        }
        for (int64_t i = hi; i < seg; ++i) d[i] = 0.0f;
      }
      d += seg;
      done += seg;
      x0 = 0;
      if (++ay == count_y) {
        ay = 0;
        if (++az == count_z) {
          az = 0;
          image += op.x_stride[0];
        }
      }
    }
  }
}

/// Packs A[m, k] for m in [m0, m0 + mc), k in [k0, k0 + kc) as f32, row stride kc.
template <typename T>
void pack_weights(const ConvOperands<T>& op, const ConvPlan& plan, const T* wg, int64_t m0,
                  int64_t mc, int64_t k0, int64_t kc, float* a) {
  const ConvAxis& z = plan.axis[0];
  const ConvAxis& y = plan.axis[1];
  const ConvAxis& x = plan.axis[2];
  RowTap tap(plan, k0);
  for (int64_t kk = 0; kk < kc; ++kk, tap.next()) {
    const T* src = wg + m0 * op.w_m + tap.ci * op.w_ci + (z.w0 + tap.t[0] * z.w_step) * op.w_z +
                   (y.w0 + tap.t[1] * y.w_step) * op.w_y + (x.w0 + tap.t[2] * x.w_step) * op.w_x;
    for (int64_t m = 0; m < mc; ++m) a[m * kc + kk] = widen(src[m * op.w_m]);
  }
}

/// Rows of the GEMM piece starting at mm: `step`, or all the rest when fewer
/// than kMinGemmRows would be left over. gemm_f32 sums thin products (under
/// kMinGemmRows rows) in another order than packed ones, so a piece that
/// depended on where a thread's range started would make results depend on
/// the thread count; this keeps every row in a packed product (unless the
/// whole group is that thin, whatever the threads).
int64_t row_piece(int64_t mm, int64_t m1, int64_t step) {
  const int64_t rest = m1 - mm;
  return rest - step < kMinGemmRows ? rest : step;
}

/// One task: output channels [m0, m1) of group g, columns [j0, j0 + nc) of
/// one image (never spanning two), written straight into the f32 output.
void run_direct_task(const ConvOperands<float>& op, const ConvPlan& plan, int64_t g, int64_t m0,
                     int64_t m1, int64_t j0, int64_t nc) {
  alignas(64) float col[kChunkK * kChunkN];
  alignas(64) float a_pack[kPieceRows * kChunkKPackedA];
  const int64_t n = j0 / plan.columns;
  const int64_t j_local = j0 - n * plan.columns;
  const int64_t out_plane = op.out_plane();
  float* out = op.out + (n * op.groups * op.cog + g * op.cog) * out_plane + j_local;
  for (int64_t m = m0; m < m1; ++m) {
    const float b = op.bias != nullptr ? op.bias[(g * op.cog + m) * op.bias_stride] : 0.0f;
    std::fill_n(out + m * out_plane, nc, b);
  }
  const float* xg = op.x + g * op.cig * op.x_stride[1];
  const float* wg = op.w + g * op.w_group;
  int64_t kc_step = plan.a_view ? kChunkK : kChunkKPackedA;
  if (plan.a_view && plan.b_view) kc_step = std::max<int64_t>(plan.k_total, 1);
  for (int64_t k0 = 0; k0 < plan.k_total; k0 += kc_step) {
    const int64_t kc = std::min(kc_step, plan.k_total - k0);
    const float* b;
    int64_t ldb_row, ldb_col;
    if (plan.b_view) {
      b = xg + n * op.x_stride[0] + plan.axis[0].off0 * op.x_stride[2] + plan.axis[1].off0 * op.x_stride[3] +
          plan.axis[2].off0 * op.x_stride[4] + k0 * op.x_stride[1] + j_local * plan.b_col_stride;
      ldb_row = op.x_stride[1];
      ldb_col = plan.b_col_stride;
    } else {
      pack_columns(op, plan, xg, k0, kc, j0, nc, col);
      b = col;
      ldb_row = nc;
      ldb_col = 1;
    }
    const int64_t m_step = plan.a_view ? m1 - m0 : kChunkM;
    for (int64_t mm = m0, mc; mm < m1; mm += mc) {
      mc = row_piece(mm, m1, m_step);
      const float* a;
      int64_t lda_row, lda_col;
      if (plan.a_view) {
        a = wg + plan.axis[0].w0 * op.w_z + plan.axis[1].w0 * op.w_y + plan.axis[2].w0 * op.w_x + mm * op.w_m +
            k0 * plan.a_col_stride;
        lda_row = op.w_m;
        lda_col = plan.a_col_stride;
      } else {
        pack_weights(op, plan, wg, mm, mc, k0, kc, a_pack);
        a = a_pack;
        lda_row = kc;
        lda_col = 1;
      }
      gemm_f32(mc, nc, kc, a, lda_row, lda_col, b, ldb_row, ldb_col, out + mm * out_plane,
               out_plane, /*accumulate=*/true, /*num_threads=*/1);
    }
  }
}

/// One task computed into an f32 tile and then written (with bias, narrowed
/// to T) to the output positions of the phase. Columns may span images.
template <typename T>
void run_tiled_task(const ConvOperands<T>& op, const ConvPlan& plan, int64_t g, int64_t m0,
                    int64_t m1, int64_t j0, int64_t nc) {
  alignas(64) float col[kChunkK * kChunkN];
  alignas(64) float a_pack[kPieceRows * kChunkKPackedA];
  alignas(64) float tile[kPieceRows * kChunkN];
  const T* xg = op.x + g * op.cig * op.x_stride[1];
  const T* wg = op.w + g * op.w_group;
  const int64_t out_plane = op.out_plane();
  const ConvAxis& z = plan.axis[0];
  const ConvAxis& y = plan.axis[1];
  const ConvAxis& x = plan.axis[2];
  const int64_t kc_step = plan.a_view ? kChunkK : kChunkKPackedA;
  for (int64_t mm = m0, mc; mm < m1; mm += mc) {
    mc = row_piece(mm, m1, kChunkM);
    std::fill_n(tile, mc * nc, 0.0f);
    for (int64_t k0 = 0; k0 < plan.k_total; k0 += kc_step) {
      const int64_t kc = std::min(kc_step, plan.k_total - k0);
      pack_columns(op, plan, xg, k0, kc, j0, nc, col);
      if constexpr (std::is_same_v<T, float>) {
        if (plan.a_view) {
          const float* a = wg + z.w0 * op.w_z + y.w0 * op.w_y + x.w0 * op.w_x + mm * op.w_m + k0 * plan.a_col_stride;
          gemm_f32(mc, nc, kc, a, op.w_m, plan.a_col_stride, col, nc, 1, tile, nc,
                   /*accumulate=*/true, /*num_threads=*/1);
          continue;
        }
      }
      pack_weights(op, plan, wg, mm, mc, k0, kc, a_pack);
      gemm_f32(mc, nc, kc, a_pack, kc, 1, col, nc, 1, tile, nc, /*accumulate=*/true,
               /*num_threads=*/1);
    }
    const int64_t row0 = j0 / x.count;
    const int64_t slice0 = row0 / y.count;
    // The output offset of the phase's row (az, ay) within an image plane.
    auto row_offset = [&](int64_t az, int64_t ay) {
      return ((z.out0 + az * z.out_step) * op.out_h + y.out0 + ay * y.out_step) * op.out_w + x.out0;
    };
    for (int64_t m = 0; m < mc; ++m) {
      const int64_t co = g * op.cog + mm + m;
      const float b = op.bias != nullptr ? widen(op.bias[co * op.bias_stride]) : 0.0f;
      const float* t = tile + m * nc;
      int64_t ax = j0 - row0 * x.count;
      int64_t ay = row0 - slice0 * y.count;
      int64_t n = slice0 / z.count;
      int64_t az = slice0 - n * z.count;
      T* out = op.out + (n * op.groups * op.cog + co) * out_plane;
      int64_t at = row_offset(az, ay);
      for (int64_t jj = 0; jj < nc; ++jj) {
        out[at + ax * x.out_step] = narrow<T>(t[jj] + b);
        if (++ax == x.count) {
          ax = 0;
          if (++ay == y.count) {
            ay = 0;
            if (++az == z.count) {
              az = 0;
              out += op.groups * op.cog * out_plane;  // next image
            }
          }
          at = row_offset(az, ay);
        }
      }
    }
  }
}

}  // namespace

/// Runs one phase over every image and group, in parallel tasks.
template <typename T>
void run_phase(const ConvOperands<T>& op, const ConvAxes& axis, int64_t batch, int max_threads) {
  const ConvPlan plan = make_plan(op, axis);
  if (plan.columns == 0 || op.cog == 0 || batch == 0) return;
  // Small images (a 1-D horizon of 8, a 7x7 map) would give GEMMs a handful
  // of columns each, too few to amortise packing the weights; their columns
  // are pooled across images instead, through the tile that can scatter.
  const bool fold = batch > 1 && plan.columns < kChunkN;
  const int64_t outer = fold ? 1 : batch;
  const int64_t cols = fold ? batch * plan.columns : plan.columns;
  const int64_t nc_max = std::min(kChunkN, cols);
  const int64_t col_chunks = ceil_div(cols, nc_max);
  const int64_t macs = batch * op.groups * op.cog * plan.columns * std::max<int64_t>(plan.k_total, 1);
  const int threads = spatial::threads_for(max_threads, macs);
  // Split output channels when images x groups x column chunks cannot keep
  // every thread busy (a deep layer with a 7x7 output, batch 1).
  const int64_t base_tasks = outer * op.groups * col_chunks;
  int64_t m_block = op.cog;
  if (threads > 1 && base_tasks < 2 * threads) {
    const int64_t want = ceil_div(2 * threads, base_tasks);
    m_block = std::max<int64_t>(16, (ceil_div(op.cog, want) + 7) / 8 * 8);
  }
  int64_t m_blocks = ceil_div(op.cog, m_block);
  if (m_blocks > 1 && op.cog - (m_blocks - 1) * m_block < kMinGemmRows) --m_blocks;  // see row_piece
  const int64_t tasks = base_tasks * m_blocks;
  const bool direct = plan.direct_out && !fold;

#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(dynamic)
  for (int64_t t = 0; t < tasks; ++t) {
    int64_t rest = t;
    const int64_t mb = rest % m_blocks;
    rest /= m_blocks;
    const int64_t cc = rest % col_chunks;
    rest /= col_chunks;
    const int64_t g = rest % op.groups;
    const int64_t n = rest / op.groups;
    const int64_t m0 = mb * m_block;
    const int64_t m1 = mb == m_blocks - 1 ? op.cog : m0 + m_block;
    const int64_t j_in = cc * nc_max;
    const int64_t nc = std::min(nc_max, cols - j_in);
    const int64_t j0 = (fold ? 0 : n * plan.columns) + j_in;
    if constexpr (std::is_same_v<T, float>) {
      if (direct) {
        run_direct_task(op, plan, g, m0, m1, j0, nc);
        continue;
      }
    }
    run_tiled_task(op, plan, g, m0, m1, j0, nc);
  }
}

/// acc[i] += w * src[i]; the buffers never overlap, which lets it vectorize
/// without a runtime alias check.
inline void multiply_add(float* __restrict acc, const float* __restrict src, float w, int64_t n) {
  for (int64_t i = 0; i < n; ++i) acc[i] += w * src[i];
}

/// Convolution where every output channel reads a single input channel
/// (depthwise, groups == Cin): K is just the taps, far too short for a GEMM,
/// so each output row is accumulated directly, one shifted input row per tap
/// (a 3-D one: per output depth slice, the rows of each depth tap).
/// kVolume false compiles the depth loops away for 1-D and 2-D.
template <typename T, bool kVolume>
void depthwise_conv(const ConvOperands<T>& op, const ConvAxes& axis, int64_t batch, int max_threads) {
  const ConvAxis& y = axis[1];
  const ConvAxis& x = axis[2];
  const ConvAxis z = kVolume ? axis[0] : ConvAxis{};
  const int64_t cout = op.groups * op.cog;
  const int64_t planes = batch * cout;
  const int64_t OD = kVolume ? op.out_d : 1, OH = op.out_h, OW = op.out_w;
  const int64_t sz = op.x_stride[2], sy = op.x_stride[3], sx = op.x_stride[4];
  const int64_t step = x.in_step * sx;
  const int threads = spatial::threads_for(max_threads, planes * OD * OH * OW * z.taps * y.taps * x.taps);
  // The input slice (depth) that output slice od reads under tap tz, or
  // nullptr when it lies in the padding.
  auto slice_of = [&](const T* plane, int64_t od, int64_t tz) -> const T* {
    if (!kVolume) return plane;
    const int64_t iz = od * z.in_step + z.off0 + tz * z.off_step;
    return iz < 0 || iz >= op.in_d ? nullptr : plane + iz * sz;
  };
  // Output columns [lo, hi) of chunk [c0, c0 + cn) whose input under tap tx
  // lies inside the row; tabulated per chunk for the usual small kernels.
  auto tap_range = [&](int64_t tx, int64_t c0, int64_t cn, int64_t& lo, int64_t& hi) {
    const int64_t dx = x.off0 + tx * x.off_step;
    const int64_t a_lo = dx >= 0 ? 0 : ceil_div(-dx, x.in_step);
    const int64_t a_hi = op.in_w - 1 - dx < 0 ? 0 : (op.in_w - 1 - dx) / x.in_step + 1;
    lo = std::clamp(a_lo, c0, c0 + cn);
    hi = std::clamp(a_hi, lo, c0 + cn);
  };
  constexpr int64_t kTapTable = 32;
  const bool tabulate = x.taps <= kTapTable;
  // Stride-1 planes that fit a stack buffer are first copied with their
  // zero padding; then every tap is one long multiply-add over the whole
  // flattened plane (rows Wp apart; the Wp - OW columns between rows are
  // computed and dropped). Small maps (14x14) otherwise spend their time in
  // loop edges rather than arithmetic.
  const int64_t pad_w = op.out_w + (x.taps - 1) * x.off_step;
  const int64_t pad_h = (op.out_h - 1) + (y.taps - 1) * y.off_step + 1;
  const int64_t flat_len = (op.out_h - 1) * pad_w + op.out_w;
  const bool flat = y.in_step == 1 && x.in_step == 1 && pad_w * pad_h <= kFlatPlane;

#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (int64_t p = 0; p < planes; ++p) {
    const int64_t n = p / cout;
    const int64_t co = p % cout;
    const int64_t g = co / op.cog;
    const T* plane = op.x + n * op.x_stride[0] + g * op.x_stride[1];
    const T* wk = op.w + g * op.w_group + (co - g * op.cog) * op.w_m;
    const float b = op.bias != nullptr ? widen(op.bias[co * op.bias_stride]) : 0.0f;
    T* out_volume = op.out + p * OD * OH * OW;
    if (flat) {
      alignas(64) float padded[kFlatPlane];
      alignas(64) float acc[kFlatPlane];
      for (int64_t od = 0; od < OD; ++od) {
        std::fill_n(acc, flat_len, b);
        for (int64_t tz = 0; tz < z.taps; ++tz) {
          const T* slice = slice_of(plane, od, tz);
          if (slice == nullptr) continue;
          for (int64_t r = 0; r < pad_h; ++r) {
            const int64_t iy = r + y.off0;
            float* dst = padded + r * pad_w;
            if (iy < 0 || iy >= op.in_h) {
              std::fill_n(dst, pad_w, 0.0f);
              continue;
            }
            const T* src = slice + iy * sy;
            for (int64_t c = 0; c < pad_w; ++c) {
              const int64_t ix = c + x.off0;
              dst[c] = ix >= 0 && ix < op.in_w ? widen(src[ix * sx]) : 0.0f;
            }
          }
          for (int64_t ty = 0; ty < y.taps; ++ty) {
            for (int64_t tx = 0; tx < x.taps; ++tx) {
              const float wv = widen(wk[tz * op.w_z + ty * op.w_y + tx * op.w_x]);
              multiply_add(acc, padded + ty * y.off_step * pad_w + tx * x.off_step, wv, flat_len);
            }
          }
        }
        T* out = out_volume + od * OH * OW;
        for (int64_t oh = 0; oh < OH; ++oh) {
          for (int64_t ow = 0; ow < OW; ++ow) out[oh * OW + ow] = narrow<T>(acc[oh * pad_w + ow]);
        }
      }
      continue;
    }
    float acc[kChunkN];
    int64_t tab_lo[kTapTable];
    int64_t tab_hi[kTapTable];
    for (int64_t c0 = 0; c0 < OW; c0 += kChunkN) {
      const int64_t cn = std::min(kChunkN, OW - c0);
      if (tabulate) {
        for (int64_t tx = 0; tx < x.taps; ++tx) tap_range(tx, c0, cn, tab_lo[tx], tab_hi[tx]);
      }
      for (int64_t od = 0; od < OD; ++od) {
        T* out = out_volume + od * OH * OW;
        for (int64_t oh = 0; oh < OH; ++oh) {
          std::fill_n(acc, cn, b);
          for (int64_t tz = 0; tz < z.taps; ++tz) {
            const T* slice = slice_of(plane, od, tz);
            if (slice == nullptr) continue;
            for (int64_t ty = 0; ty < y.taps; ++ty) {
              const int64_t iy = oh * y.in_step + y.off0 + ty * y.off_step;
              if (iy < 0 || iy >= op.in_h) continue;
              const T* row = slice + iy * sy;
              for (int64_t tx = 0; tx < x.taps; ++tx) {
                int64_t lo, hi;
                if (tabulate) {
                  lo = tab_lo[tx];
                  hi = tab_hi[tx];
                } else {
                  tap_range(tx, c0, cn, lo, hi);
                }
                if (hi <= lo) continue;
                const float wv = widen(wk[tz * op.w_z + ty * op.w_y + tx * op.w_x]);
                const T* src = row + (lo * x.in_step + x.off0 + tx * x.off_step) * sx;
                float* a = acc + (lo - c0);
                if (step == 1) {
                  for (int64_t i = 0; i < hi - lo; ++i) a[i] += wv * widen(src[i]);
                } else {
                  for (int64_t i = 0; i < hi - lo; ++i) a[i] += wv * widen(src[i * step]);
                }
              }
            }
          }
          for (int64_t i = 0; i < cn; ++i) out[oh * OW + c0 + i] = narrow<T>(acc[i]);
        }
      }
    }
  }
}


template void run_phase<float>(const ConvOperands<float>&, const ConvAxes&, int64_t, int);
template void run_phase<Half>(const ConvOperands<Half>&, const ConvAxes&, int64_t, int);
template void depthwise_conv<float, true>(const ConvOperands<float>&, const ConvAxes&, int64_t, int);
template void depthwise_conv<float, false>(const ConvOperands<float>&, const ConvAxes&, int64_t, int);
template void depthwise_conv<Half, true>(const ConvOperands<Half>&, const ConvAxes&, int64_t, int);
template void depthwise_conv<Half, false>(const ConvOperands<Half>&, const ConvAxes&, int64_t, int);

}  // namespace edgec::conv_engine

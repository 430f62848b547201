// The integer convolutions of the quantized family over NCL / NCHW / NCDHW
// tensors, with conv's window attributes and weight layout [Cout, Cin/groups,
// k...] and ONNX's arithmetic (docs/semantics.md §9):
//   conv_integer(x, w, x_zero_point?, w_zero_point?; stride, padding, dilation, groups) -> i32
//       acc = sum (x - x_zp) (w - w_zp[co])
//   qlinear_conv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, bias?; ...) -> y_zp's dtype
//       y = saturate(nearbyint((acc + bias[co]) * (x_scale * w_scale[co] / y_scale)) + y_zp)
// x and w are i8 or u8 each, x's parameters per tensor, w's per tensor or per
// output channel; a padding position reads x_zp, so it adds nothing.
//
// The engine is the float convolution's (conv_engine.h) in integers: an
// implicit GEMM per group, the columns of (x - x_zp) gathered into a stack
// tile kTileK x kTileN at a time and the weights (w - w_zp) packed beside
// it, both int16, multiplied by quantized_gemm.h into an int32 tile that is
// requantized (or copied) into the output. Depthwise convolutions (one
// input channel per output channel) skip the GEMM for a direct loop over
// the taps.
#include <algorithm>
#include <cstdint>

#include "kernels/conv_spatial.h"
#include "kernels/families.h"
#include "kernels/kernel_checks.h"
#include "kernels/quantized_common.h"
#include "kernels/quantized_gemm.h"

namespace edgec {
namespace {

using quant::cat;
using quant::QParams;
using spatial::axes_string;
using spatial::ceil_div;

constexpr int64_t kTileM = 128;
constexpr int64_t kTileN = 128;  // a multiple of quant::kGemmCols
constexpr int64_t kTileK = 256;  // even
constexpr int64_t kDepthwiseRow = 256;  // output columns per depthwise accumulator row

/// One call: the 3-D views, the window, the zero points and the output's
/// requantization (none for conv_integer).
struct QConv {
  spatial::Window win;
  Tensor x5, w5;
  int64_t groups = 1, cig = 1, cog = 1, cout = 1;
  int64_t out_dhw[3] = {1, 1, 1};
  int32_t x_zp = 0;
  QParams w_zp;  // per output channel
  const int32_t* bias = nullptr;
  int64_t bias_stride = 0;
  bool requant = false;
  float x_scale = 1.0f, y_scale = 1.0f;
  QParams w_scale;
  int32_t y_zp = 0, lo = 0, hi = 0;

  int64_t out_plane() const { return out_dhw[0] * out_dhw[1] * out_dhw[2]; }
  int32_t bias_at(int64_t co) const { return bias != nullptr ? bias[co * bias_stride] : 0; }
  /// x_scale * w_scale[co] / y_scale in float32, in that order (§9.4).
  float multiplier(int64_t co) const { return x_scale * w_scale.scale_at(co) / y_scale; }
};

/// Writes one row of accumulators to the output: requantized to Y, or
/// copied (int32).
template <typename Y>
void write_row(const QConv& c, int64_t co, const int32_t* acc, int64_t n, Y* out) {
  if constexpr (std::is_same_v<Y, int32_t>) {
    std::copy_n(acc, n, out);
  } else {
    const float m = c.multiplier(co);
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Y>(quant::requantize(acc[i], m, c.y_zp, c.lo, c.hi));
  }
}

// ---- the implicit GEMM ---------------------------------------------------------

/// The input channel and taps of GEMM row k, stepped in order.
struct RowTap {
  int64_t ci = 0, t[3] = {0, 0, 0};
  const int64_t* taps;

  RowTap(const int64_t* kernel, int64_t k) : taps(kernel) {
    const int64_t yx = taps[1] * taps[2];
    const int64_t zyx = taps[0] * yx;
    ci = k / zyx;
    const int64_t tap = k - ci * zyx;
    t[0] = tap / yx;
    t[1] = (tap - t[0] * yx) / taps[2];
    t[2] = tap - t[0] * yx - t[1] * taps[2];
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

/// Gathers row[j] = x[ci, iz, iy, ix] - x_zp (0 in the padding) for GEMM
/// row `tap` and output positions [j0, j0 + nc) of one image and group (xg),
/// contiguous, so that both the widening and the zero runs vectorize.
template <typename X>
void gather_row(const QConv& c, const X* xg, const RowTap& tap, int64_t j0, int64_t nc, int16_t* row) {
  const spatial::Window& w = c.win;
  const int64_t count_x = c.out_dhw[2], count_y = c.out_dhw[1];
  const int64_t in_d = c.x5.sizes[2], in_h = c.x5.sizes[3], in_w = c.x5.sizes[4];
  const int64_t sz = c.x5.strides[2], sy = c.x5.strides[3], sx = c.x5.strides[4];
  const int64_t step = w.stride[2];
  const int64_t src_step = step * sx;
  const int32_t zp = c.x_zp;
  const int64_t dz = tap.t[0] * w.dilation[0] - w.pad_begin[0];
  const int64_t dy = tap.t[1] * w.dilation[1] - w.pad_begin[1];
  const int64_t dx = tap.t[2] * w.dilation[2] - w.pad_begin[2];
  const X* channel = xg + tap.ci * c.x5.strides[1];
  // Output columns ox whose input lies inside [0, W): [a_lo, a_hi).
  const int64_t a_lo = dx >= 0 ? 0 : ceil_div(-dx, step);
  const int64_t a_hi = in_w - 1 - dx < 0 ? 0 : (in_w - 1 - dx) / step + 1;
  const int64_t row0 = j0 / count_x;
  int64_t x0 = j0 - row0 * count_x;
  int64_t oz = row0 / count_y;
  int64_t oy = row0 - oz * count_y;
  for (int64_t done = 0; done < nc;) {
    const int64_t seg = std::min(count_x - x0, nc - done);
    int16_t* dv = row + done;
    const int64_t iz = oz * w.stride[0] + dz;
    const int64_t iy = oy * w.stride[1] + dy;
    if (iy < 0 || iy >= in_h || iz < 0 || iz >= in_d) {
      std::fill_n(dv, seg, int16_t{0});
    } else {
      const int64_t lo = std::clamp(a_lo, x0, x0 + seg) - x0;
      const int64_t hi = std::clamp(a_hi, x0 + lo, x0 + seg) - x0;
      std::fill_n(dv, lo, int16_t{0});
      const X* src = channel + iz * sz + iy * sy + ((x0 + lo) * step + dx) * sx;
      int16_t* dl = dv + lo;
      if (src_step == 1) {
        for (int64_t i = 0; i < hi - lo; ++i) dl[i] = static_cast<int16_t>(static_cast<int32_t>(src[i]) - zp);
      } else {
        for (int64_t i = 0; i < hi - lo; ++i) dl[i] = static_cast<int16_t>(static_cast<int32_t>(src[i * src_step]) - zp);
      }
      std::fill_n(dv + hi, seg - hi, int16_t{0});
    }
    done += seg;
    x0 = 0;
    if (++oy == count_y) {
      oy = 0;
      ++oz;
    }
  }
}

/// Interleaves rows r0 and r1 (n entries, zero from n to ncp) into one pair
/// row of quantized_gemm.h's B layout.
inline void interleave(const int16_t* __restrict r0, const int16_t* __restrict r1, int64_t n, int64_t ncp,
                       int16_t* __restrict d) {
  for (int64_t j = 0; j < n; ++j) {
    d[2 * j] = r0[j];
    d[2 * j + 1] = r1[j];
  }
  std::fill(d + 2 * n, d + 2 * ncp, int16_t{0});
}

/// Gathers col[k, j] for rows [k0, k0 + kc) and output positions [j0, j0 +
/// nc) of one image and group (xg) into the paired layout of
/// quantized_gemm.h with ncp columns; rows kc to 2 kp - 1 and columns nc to
/// ncp - 1 are zero.
template <typename X>
void gather_columns(const QConv& c, const X* xg, int64_t k0, int64_t kc, int64_t kp, int64_t j0, int64_t nc,
                    int64_t ncp, int16_t* dst) {
  alignas(64) int16_t rows[2][kTileN];
  RowTap tap(c.win.kernel, k0);
  for (int64_t p = 0; p < kp; ++p) {
    for (int e = 0; e < 2; ++e) {
      if (2 * p + e < kc) {
        gather_row(c, xg, tap, j0, nc, rows[e]);
        tap.next();
      } else {
        std::fill_n(rows[e], nc, int16_t{0});
      }
    }
    interleave(rows[0], rows[1], nc, ncp, dst + p * 2 * ncp);
  }
}

/// Packs A[m, k] = w[co, ci, taps] - w_zp[co] for output channels [m0, m0 +
/// mc) of group g and rows [k0, k0 + kc), row stride 2 kp (zero beyond kc).
template <typename W>
void pack_weights(const QConv& c, int64_t g, int64_t m0, int64_t mc, int64_t k0, int64_t kc, int64_t kp,
                  int16_t* dst) {
  const Tensor& w = c.w5;
  const W* wd = w.data_as<W>();
  // Rows of a contiguous weight run along k in memory (size-1 dims, such as
  // the depth a 2-D weight is lifted to, have any stride).
  bool k_contiguous = true;
  int64_t expected = 1;
  for (int d = 4; d >= 1; --d) {
    if (w.sizes[d] != 1 && w.strides[d] != expected) k_contiguous = false;
    expected *= w.sizes[d];
  }
  for (int64_t m = 0; m < mc; ++m) {
    const int64_t co = g * c.cog + m0 + m;
    const int32_t zp = c.w_zp.zero_at(co);
    int16_t* d = dst + m * 2 * kp;
    if (k_contiguous) {
      const W* src = wd + co * w.strides[0] + k0;
      for (int64_t k = 0; k < kc; ++k) d[k] = static_cast<int16_t>(static_cast<int32_t>(src[k]) - zp);
    } else {
      RowTap tap(c.win.kernel, k0);
      for (int64_t k = 0; k < kc; ++k, tap.next()) {
        d[k] = static_cast<int16_t>(static_cast<int32_t>(wd[co * w.strides[0] + tap.ci * w.strides[1] +
                                                             tap.t[0] * w.strides[2] + tap.t[1] * w.strides[3] +
                                                             tap.t[2] * w.strides[4]]) -
                                    zp);
      }
    }
    for (int64_t k = kc; k < 2 * kp; ++k) d[k] = 0;
  }
}

/// One task: output channels [m0, m1) of group g, output positions [j0, j0 +
/// nc) of image n.
template <typename X, typename W, typename Y>
void gemm_task(const QConv& c, int64_t n, int64_t g, int64_t m0, int64_t m1, int64_t j0, int64_t nc, Y* out) {
  alignas(64) int32_t acc[kTileM * kTileN];
  alignas(64) int16_t col[kTileK * kTileN];
  alignas(64) int16_t a_pack[kTileM * kTileK];
  const X* xg = c.x5.data_as<X>() + n * c.x5.strides[0] + g * c.cig * c.x5.strides[1];
  const int64_t k_total = c.cig * c.win.kernel[0] * c.win.kernel[1] * c.win.kernel[2];
  const int64_t ncp = quant::pad_cols(nc);
  const int64_t plane = c.out_plane();
  for (int64_t mm = m0; mm < m1; mm += kTileM) {
    const int64_t mc = std::min(kTileM, m1 - mm);
    for (int64_t m = 0; m < mc; ++m) std::fill_n(acc + m * ncp, ncp, c.bias_at(g * c.cog + mm + m));
    for (int64_t k0 = 0; k0 < k_total; k0 += kTileK) {
      const int64_t kc = std::min(kTileK, k_total - k0);
      const int64_t kp = (kc + 1) / 2;
      gather_columns(c, xg, k0, kc, kp, j0, nc, ncp, col);
      pack_weights<W>(c, g, mm, mc, k0, kc, kp, a_pack);
      quant::gemm_tile(mc, ncp, kp, a_pack, 2 * kp, col, acc, ncp);
    }
    for (int64_t m = 0; m < mc; ++m) {
      const int64_t co = g * c.cog + mm + m;
      write_row(c, co, acc + m * ncp, nc, out + (n * c.cout + co) * plane + j0);
    }
  }
}

template <typename X, typename W, typename Y>
void run_gemm(const QConv& c, Y* out, int max_threads) {
  const int64_t batch = c.x5.sizes[0];
  const int64_t cols = c.out_plane();
  const int64_t col_chunks = ceil_div(cols, kTileN);
  const int64_t k_total = c.cig * c.win.kernel[0] * c.win.kernel[1] * c.win.kernel[2];
  const int threads = spatial::threads_for(max_threads, batch * c.cout * cols * k_total);
  // Split output channels when images x groups x column chunks cannot keep
  // every thread busy (a deep layer with a 7x7 output, batch 1).
  const int64_t base_tasks = batch * c.groups * col_chunks;
  int64_t m_block = c.cog;
  if (threads > 1 && base_tasks < 2 * threads) {
    const int64_t want = ceil_div(2 * threads, base_tasks);
    m_block = std::max<int64_t>(16, (ceil_div(c.cog, want) + 7) / 8 * 8);
  }
  const int64_t m_blocks = ceil_div(c.cog, m_block);
  const int64_t tasks = base_tasks * m_blocks;
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(dynamic)
  for (int64_t t = 0; t < tasks; ++t) {
    int64_t rest = t;
    const int64_t mb = rest % m_blocks;
    rest /= m_blocks;
    const int64_t cc = rest % col_chunks;
    rest /= col_chunks;
    const int64_t g = rest % c.groups;
    const int64_t n = rest / c.groups;
    const int64_t m0 = mb * m_block;
    const int64_t m1 = std::min(c.cog, m0 + m_block);
    const int64_t j0 = cc * kTileN;
    gemm_task<X, W, Y>(c, n, g, m0, m1, j0, std::min(kTileN, cols - j0), out);
  }
}

// ---- depthwise -------------------------------------------------------------------

/// Every output channel reads one input channel (cig == 1): per output row,
/// one shifted input row per tap, accumulated in int32 (padding adds 0).
template <typename X, typename W, typename Y>
void run_depthwise(const QConv& c, Y* out, int max_threads) {
  const spatial::Window& w = c.win;
  const int64_t batch = c.x5.sizes[0];
  const int64_t planes = batch * c.cout;
  const int64_t OD = c.out_dhw[0], OH = c.out_dhw[1], OW = c.out_dhw[2];
  const int64_t in_d = c.x5.sizes[2], in_h = c.x5.sizes[3], in_w = c.x5.sizes[4];
  const int64_t sz = c.x5.strides[2], sy = c.x5.strides[3], sx = c.x5.strides[4];
  const int64_t step = w.stride[2];
  const int32_t xzp = c.x_zp;
  const X* xd = c.x5.data_as<X>();
  const W* wd = c.w5.data_as<W>();
  const int threads = spatial::threads_for(max_threads, planes * c.out_plane() * w.kernel[0] * w.kernel[1] * w.kernel[2]);
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (int64_t p = 0; p < planes; ++p) {
    alignas(64) int32_t acc[kDepthwiseRow];
    const int64_t n = p / c.cout;
    const int64_t co = p % c.cout;
    const int64_t ci = co / c.cog;
    const int32_t wzp = c.w_zp.zero_at(co);
    const int32_t b = c.bias_at(co);
    const X* plane = xd + n * c.x5.strides[0] + ci * c.x5.strides[1];
    const W* wc = wd + co * c.w5.strides[0];
    Y* op = out + p * c.out_plane();
    for (int64_t oz = 0; oz < OD; ++oz) {
      for (int64_t oy = 0; oy < OH; ++oy) {
        for (int64_t x0 = 0; x0 < OW; x0 += kDepthwiseRow) {
          const int64_t len = std::min(kDepthwiseRow, OW - x0);
          std::fill_n(acc, len, b);
          for (int64_t tz = 0; tz < w.kernel[0]; ++tz) {
            const int64_t iz = oz * w.stride[0] + tz * w.dilation[0] - w.pad_begin[0];
            if (iz < 0 || iz >= in_d) continue;
            for (int64_t ty = 0; ty < w.kernel[1]; ++ty) {
              const int64_t iy = oy * w.stride[1] + ty * w.dilation[1] - w.pad_begin[1];
              if (iy < 0 || iy >= in_h) continue;
              for (int64_t tx = 0; tx < w.kernel[2]; ++tx) {
                const int32_t wv =
                    static_cast<int32_t>(wc[tz * c.w5.strides[2] + ty * c.w5.strides[3] + tx * c.w5.strides[4]]) - wzp;
                const int64_t dx = tx * w.dilation[2] - w.pad_begin[2];
                // Columns x0 + i whose input (x0 + i) * step + dx lies in [0, W).
                const int64_t a_lo = std::max<int64_t>(dx >= 0 ? 0 : ceil_div(-dx, step), x0);
                const int64_t a_hi = std::min<int64_t>(in_w - 1 - dx < 0 ? 0 : (in_w - 1 - dx) / step + 1, x0 + len);
                if (a_hi <= a_lo) continue;
                const X* src = plane + iz * sz + iy * sy + (a_lo * step + dx) * sx;
                int32_t* a = acc + (a_lo - x0);
                const int64_t cnt = a_hi - a_lo;
                if (step * sx == 1) {
                  for (int64_t i = 0; i < cnt; ++i) a[i] += wv * (static_cast<int32_t>(src[i]) - xzp);
                } else {
                  const int64_t s = step * sx;
                  for (int64_t i = 0; i < cnt; ++i) a[i] += wv * (static_cast<int32_t>(src[i * s]) - xzp);
                }
              }
            }
          }
          write_row(c, co, acc, len, op + (oz * OH + oy) * OW + x0);
        }
      }
    }
  }
}

template <typename X, typename W, typename Y>
void run_typed(const QConv& c, Tensor& y, int threads) {
  Y* out = y.data_as<Y>();
  if (c.cig == 1) {
    run_depthwise<X, W, Y>(c, out, threads);
  } else {
    run_gemm<X, W, Y>(c, out, threads);
  }
}

template <typename Y>
void run_out(const QConv& c, Tensor& y, int threads) {
  const bool x_u8 = c.x5.dtype == DType::UInt8;
  const bool w_u8 = c.w5.dtype == DType::UInt8;
  if (x_u8) {
    w_u8 ? run_typed<uint8_t, uint8_t, Y>(c, y, threads) : run_typed<uint8_t, int8_t, Y>(c, y, threads);
  } else {
    w_u8 ? run_typed<int8_t, uint8_t, Y>(c, y, threads) : run_typed<int8_t, int8_t, Y>(c, y, threads);
  }
}

// ---- operands ----------------------------------------------------------------------

/// Checks x and w (dtypes, ranks, channels against groups), reads the window
/// attributes and computes the output size.
Error read_conv(std::string_view op, const Tensor& x, const Tensor& w, const Attrs& attrs, QConv& c) {
  if (!quant::is_quant_dtype(x.dtype) || !quant::is_quant_dtype(w.dtype)) {
    return fail(Error::InvalidType, cat(op, ": expected i8 or u8 x and w, got ", dtype_name(x.dtype), " and ",
                                        dtype_name(w.dtype)));
  }
  if (x.rank < 3 || x.rank > 5) {
    return fail(Error::InvalidShape, cat(op,
                                         ": expected a rank-3 (N, C, L), rank-4 (N, C, H, W) or rank-5 (N, C, D, H, W) "
                                         "input, got shape ",
                                         shape_string(x.shape())));
  }
  if (w.rank != x.rank) {
    return fail(Error::InvalidShape, cat(op, ": weight ", shape_string(w.shape()), " must have the input's rank ",
                                         x.rank, " (input ", shape_string(x.shape()), ")"));
  }
  spatial::Window& win = c.win;
  win.nd = x.rank - 2;
  for (int i = 0; i < win.nd; ++i) {
    const int64_t k = w.sizes[2 + i];
    if (k < 1 || k > spatial::kMaxAttrValue) {
      return fail(Error::InvalidShape, cat(op, ": weight ", shape_string(w.shape()), " has an empty kernel"));
    }
    win.kernel[spatial::kAxes - win.nd + i] = k;
  }
  const spatial::SharedDecls& s = declared<spatial::SharedDecls>();
  EDGEC_TRY(spatial::read_axis_ints(op, attrs, s.stride, win.nd, 1, win.stride));
  EDGEC_TRY(spatial::read_axis_ints(op, attrs, s.dilation, win.nd, 1, win.dilation));
  EDGEC_TRY(spatial::read_padding(op, attrs, win.nd, win.pad_begin, win.pad_end));
  const AttrDecl& groups = declared<quant::QuantDecls>().groups;
  if (const AttrValue* gv = attrs.find(groups.name); gv != nullptr && attr_kind(*gv) != AttrKind::Int) {
    return fail(Error::InvalidArgument,
                cat(op, ": attribute '", groups.name, "' must be an int, got ", attr_kind_name(attr_kind(*gv))));
  }
  c.groups = groups.int_value(attrs);
  if (c.groups < 1) return fail(Error::InvalidArgument, cat(op, ": groups must be >= 1, got ", c.groups));
  const int64_t cin = x.sizes[1];
  c.cout = w.sizes[0];
  if (cin % c.groups != 0 || c.cout % c.groups != 0) {
    return fail(Error::InvalidShape, cat(op, ": groups ", c.groups, " must divide both the input channels ", cin,
                                         " and the output channels ", c.cout));
  }
  if (w.sizes[1] * c.groups != cin) {
    return fail(Error::InvalidShape, cat(op, ": weight ", shape_string(w.shape()), " expects ", w.sizes[1] * c.groups,
                                         " input channels (", w.sizes[1], " per group x ", c.groups,
                                         " groups), but the input ", shape_string(x.shape()), " has ", cin));
  }
  c.cig = w.sizes[1];
  c.cog = c.cout / c.groups;
  for (int a = spatial::kAxes - win.nd; a < spatial::kAxes; ++a) {
    const int64_t in = x.sizes[a - (spatial::kAxes - win.nd) + 2];
    const int64_t span = win.dilation[a] * (win.kernel[a] - 1) + 1;
    const int64_t padded = in + win.pad_begin[a] + win.pad_end[a];
    if (padded < span) {
      return fail(Error::InvalidShape, cat(op, ": kernel ", axes_string(win.kernel, win.nd), " (dilation ",
                                           axes_string(win.dilation, win.nd), ") is larger than the input ",
                                           shape_string(x.shape()), " padded by ", axes_string(win.pad_begin, win.nd),
                                           " + ", axes_string(win.pad_end, win.nd)));
    }
    c.out_dhw[a] = (padded - span) / win.stride[a] + 1;
  }
  c.x5 = spatial::lift_to_3d(x);
  c.w5 = spatial::lift_to_3d(w);
  return Error::Ok;
}

Error resize_out(std::string_view op, const QConv& c, const Tensor& x, Tensor& y) {
  int64_t shape[5] = {x.sizes[0], c.cout};
  for (int i = 0; i < c.win.nd; ++i) shape[2 + i] = c.out_dhw[spatial::kAxes - c.win.nd + i];
  return resize_output(op, y, {shape, static_cast<size_t>(c.win.nd + 2)});
}

Error conv_integer(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs, std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "conv_integer";
  if (inputs.size() < 2 || inputs.size() > 4 || outputs.size() != 1) {
    return fail(Error::InvalidArgument, cat(kOp, ": expected inputs (x, w, x_zero_point?, w_zero_point?) and 1 "
                                                 "output, got ",
                                            inputs.size(), " inputs and ", outputs.size(), " outputs"));
  }
  QConv c;
  EDGEC_TRY(read_conv(kOp, inputs[0], inputs[1], attrs, c));
  if (inputs.size() > 2) {
    QParams xp;
    EDGEC_TRY(quant::read_qparams(kOp, "x", nullptr, &inputs[2], inputs[0].dtype, -1, "", xp));
    c.x_zp = xp.zero_at(0);
  }
  if (inputs.size() > 3) {
    EDGEC_TRY(quant::read_qparams(kOp, "w", nullptr, &inputs[3], inputs[1].dtype, c.cout, "output channel", c.w_zp));
  }
  Tensor& y = outputs[0];
  EDGEC_TRY(check_output_dtype(kOp, y, DType::Int32));
  EDGEC_TRY(resize_out(kOp, c, inputs[0], y));
  run_out<int32_t>(c, y, ctx.num_threads);
  return Error::Ok;
}

Error qlinear_conv(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs, std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "qlinear_conv";
  if (inputs.size() < 8 || inputs.size() > 9 || outputs.size() != 1) {
    return fail(Error::InvalidArgument,
                cat(kOp, ": expected inputs (x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, "
                         "y_zero_point, bias?) and 1 output, got ",
                    inputs.size(), " inputs and ", outputs.size(), " outputs"));
  }
  EDGEC_TRY(quant::refuse_stored_weights(kOp, attrs));
  QConv c;
  EDGEC_TRY(read_conv(kOp, inputs[0], inputs[3], attrs, c));
  QParams xp, yp;
  EDGEC_TRY(quant::read_qparams(kOp, "x", &inputs[1], &inputs[2], inputs[0].dtype, -1, "", xp));
  EDGEC_TRY(quant::read_qparams(kOp, "w", &inputs[4], &inputs[5], inputs[3].dtype, c.cout, "output channel", c.w_scale));
  const DType out_dtype = inputs[7].dtype;
  if (!quant::is_quant_dtype(out_dtype)) {
    return fail(Error::InvalidType, cat(kOp, ": y_zero_point must be i8 or u8, got ", dtype_name(out_dtype)));
  }
  EDGEC_TRY(quant::read_qparams(kOp, "y", &inputs[6], &inputs[7], out_dtype, -1, "", yp));
  if (inputs.size() == 9) {
    const Tensor& b = inputs[8];
    if (b.dtype != DType::Int32) {
      return fail(Error::InvalidType, cat(kOp, ": bias must be i32, got ", dtype_name(b.dtype)));
    }
    if (b.rank != 1 || b.sizes[0] != c.cout) {
      return fail(Error::InvalidShape, cat(kOp, ": bias must have shape [", c.cout, "] (output channels), got ",
                                           shape_string(b.shape())));
    }
    c.bias = b.data_as<int32_t>();
    c.bias_stride = b.strides[0];
  }
  c.x_zp = xp.zero_at(0);
  c.w_zp = c.w_scale;
  c.requant = true;
  c.x_scale = xp.scale_at(0);
  c.y_scale = yp.scale_at(0);
  c.y_zp = yp.zero_at(0);
  c.lo = quant::quant_min(out_dtype);
  c.hi = quant::quant_max(out_dtype);
  Tensor& y = outputs[0];
  EDGEC_TRY(check_output_dtype(kOp, y, out_dtype));
  EDGEC_TRY(resize_out(kOp, c, inputs[0], y));
  if (out_dtype == DType::UInt8) {
    run_out<uint8_t>(c, y, ctx.num_threads);
  } else {
    run_out<int8_t>(c, y, ctx.num_threads);
  }
  return Error::Ok;
}

}  // namespace

std::span<const KernelEntry> quantized_conv_kernels() {
  const spatial::SharedDecls& s = declared<spatial::SharedDecls>();
  const quant::QuantDecls& q = declared<quant::QuantDecls>();
  static const KernelEntry kKernels[] = {
      {declare("conv_integer", "quantized",
               {{"x"}, {"w"}, {"x_zero_point", OperandKind::Optional}, {"w_zero_point", OperandKind::Optional}},
               {s.stride, s.padding, s.dilation, q.groups}, {DType::Int8, DType::UInt8}, 0,
               "i32 convolution of (x - x_zero_point) and (w - w_zero_point), conv's layout (ONNX ConvInteger)"),
       conv_integer},
      {declare("qlinear_conv", "quantized",
               {{"x"},
                {"x_scale"},
                {"x_zero_point"},
                {"w"},
                {"w_scale"},
                {"w_zero_point"},
                {"y_scale"},
                {"y_zero_point"},
                {"bias", OperandKind::Optional}},
               {s.stride, s.padding, s.dilation, q.groups, q.weights_shape, q.weights_strides, q.weights_blocks,
                q.weights_block_dims, q.weights_extra},
               {DType::Int8, DType::UInt8}, 0,
               "quantized convolution, i32 bias, requantized to y_scale, y_zero_point (ONNX QLinearConv)"),
       qlinear_conv},
  };
  return kKernels;
}

}  // namespace edgec

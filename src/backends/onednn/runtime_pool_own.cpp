// Dilated 2-D max pooling as a loop of the delegate's own: oneDNN 2.6 has
// only its reference code for a dilated pool (a 3x3 pool with dilation 2 of
// 64x56x56 took 158 ms, one thread, against well under one on this loop).
// The loop works in the layout its input is in when that is plain NCHW,
// NHWC or channel-blocked (nChw8c, nChw16c: the window's maximum is taken
// over a block of channels at once, one vector), so it sits between
// convolutions without reorders; a plain input of whole 8-channel blocks is reordered to
// nChw8c first, as the oneDNN pools do.
#include <omp.h>

#include <algorithm>
#include <limits>

#include "backends/onednn/runtime_build.h"
#include "base/thread_cap.h"

namespace edgec::runtime::onednn {
namespace {

using dnnl::memory;

struct PoolShape {
  int64_t planes = 0;  ///< N x channel blocks.
  int64_t h = 0, w = 0, oh = 0, ow = 0;
  int64_t kh = 0, kw = 0, sh = 0, sw = 0, dh = 0, dw = 0, ph = 0, pw = 0;
};

// y[plane, oh, ow, :B] = max over the window's in-range taps of x[plane,
// ih, iw, :B]; -inf for a window with none (as the portable kernel).
template <int B>
void max_pool_blocked(const PoolShape& s, const float* x, float* y, int threads) {
#pragma omp parallel for collapse(2) num_threads(std::max(threads, 1)) schedule(static) if (threads > 1)
  for (int64_t p = 0; p < s.planes; ++p)
    for (int64_t oh = 0; oh < s.oh; ++oh) {
      const float* xp = x + p * s.h * s.w * B;
      float* yr = y + ((p * s.oh + oh) * s.ow) * B;
      for (int64_t ow = 0; ow < s.ow; ++ow) {
        float acc[B];
        for (int b = 0; b < B; ++b) acc[b] = -std::numeric_limits<float>::infinity();
        for (int64_t i = 0; i < s.kh; ++i) {
          const int64_t ih = oh * s.sh - s.ph + i * s.dh;
          if (ih < 0 || ih >= s.h) continue;
          for (int64_t j = 0; j < s.kw; ++j) {
            const int64_t iw = ow * s.sw - s.pw + j * s.dw;
            if (iw < 0 || iw >= s.w) continue;
            const float* v = xp + (ih * s.w + iw) * B;
            for (int b = 0; b < B; ++b) acc[b] = std::max(acc[b], v[b]);
          }
        }
        for (int b = 0; b < B; ++b) yr[ow * B + b] = acc[b];
      }
    }
}

// As max_pool_blocked, for a block of any size `b` (NCHW: 1; NHWC: C),
// accumulated in the result.
void max_pool_rows(const PoolShape& s, int64_t b, const float* x, float* y, int threads) {
#pragma omp parallel for collapse(2) num_threads(std::max(threads, 1)) schedule(static) if (threads > 1)
  for (int64_t p = 0; p < s.planes; ++p)
    for (int64_t oh = 0; oh < s.oh; ++oh) {
      const float* xp = x + p * s.h * s.w * b;
      float* yr = y + ((p * s.oh + oh) * s.ow) * b;
      for (int64_t ow = 0; ow < s.ow; ++ow) {
        float* acc = yr + ow * b;
        std::fill(acc, acc + b, -std::numeric_limits<float>::infinity());
        for (int64_t i = 0; i < s.kh; ++i) {
          const int64_t ih = oh * s.sh - s.ph + i * s.dh;
          if (ih < 0 || ih >= s.h) continue;
          for (int64_t j = 0; j < s.kw; ++j) {
            const int64_t iw = ow * s.sw - s.pw + j * s.dw;
            if (iw < 0 || iw >= s.w) continue;
            const float* v = xp + (ih * s.w + iw) * b;
            for (int64_t k = 0; k < b; ++k) acc[k] = std::max(acc[k], v[k]);
          }
        }
      }
    }
}

// The channel block of `md` (a layout of 4-D `dims`): 16 or 8 for nChw16c /
// nChw8c, 1 for plain NCHW, -1 for NHWC, 0 for any other layout.
int64_t channel_block(const memory::desc& md, const memory::dims& dims) {
  if (md == memory::desc(dims, memory::data_type::f32, memory::format_tag::nchw)) return 1;
  if (md == memory::desc(dims, memory::data_type::f32, memory::format_tag::nhwc)) return -1;
  for (const auto& [tag, block] : {std::pair{memory::format_tag::nChw16c, 16}, {memory::format_tag::nChw8c, 8}})
    if (md == memory::desc(dims, memory::data_type::f32, tag)) return block;
  return 0;
}

}  // namespace

bool build_dilated_max_pool(Ctx& c, const memory::dims& kernel, const memory::dims& stride,
                            const memory::dims& dilation, const memory::dims& pad_begin) {
  const auto xd = dnnl_dims(c.shape(c.input(0)));
  const auto yd = dnnl_dims(c.shape(c.output()));
  if (xd.size() != 4 || yd.size() != 4 || xd[0] != yd[0] || xd[1] != yd[1] || kernel.size() != 2) return false;
  memory::desc src = c.d.layout(c.input(0));
  int64_t block = channel_block(src, xd);
  if (block == 1 && xd[1] % 8 == 0) {
    src = memory::desc(xd, memory::data_type::f32, memory::format_tag::nChw8c);
    block = 8;
  }
  if (block == 0) return false;
  const auto tag = block == 16  ? memory::format_tag::nChw16c
                   : block == 8 ? memory::format_tag::nChw8c
                   : block == 1 ? memory::format_tag::nchw
                                : memory::format_tag::nhwc;
  const memory::desc dst(yd, memory::data_type::f32, tag);
  // NHWC is one block of every channel per batch entry.
  if (block < 0) block = xd[1];
  PoolShape s;
  s.planes = xd[0] * ((xd[1] + block - 1) / block);
  s.h = xd[2], s.w = xd[3], s.oh = yd[2], s.ow = yd[3];
  s.kh = kernel[0], s.kw = kernel[1], s.sh = stride[0], s.sw = stride[1];
  s.dh = dilation[0], s.dw = dilation[1], s.ph = pad_begin[0], s.pw = pad_begin[1];
  memory xm = c.d.src_as(c.input(0), src);
  memory ym = c.d.dst(c.output(), dst);
  const int threads = c.d.step_threads;
  c.d.add_loop(
      [s, xm, ym, block, held = threads]() {
        const int threads = capped_threads(held);  // the run's cap (base/thread_cap.h)
        const auto* x = static_cast<const float*>(xm.get_data_handle());
        auto* y = static_cast<float*>(ym.get_data_handle());
        if (block == 16) max_pool_blocked<16>(s, x, y, threads);
        else if (block == 8) max_pool_blocked<8>(s, x, y, threads);
        else max_pool_rows(s, block, x, y, threads);
        return Error::Ok;
      },
      c.what, "max_pool (dilated)");
  return true;
}

}  // namespace edgec::runtime::onednn

// A value in a convolution's layout times (plus, minus, over) one value
// per channel, as a loop of the delegate's own: a squeeze-excitation's
// scale where oneDNN 2.6 has only its reference binary kernel (RegNet's
// channel counts off the 16-channel block: 1.8 ms a call on ref:any, and
// made plain instead, a reorder each way around every block). The loop
// reads and writes the value's own layout: nChw16c or nChw8c (padded
// channels written as zeros, as oneDNN expects them) or NHWC.
#include <omp.h>

#include <algorithm>

#include "backends/onednn/runtime_build.h"
#include "base/thread_cap.h"

namespace edgec::runtime::onednn {
namespace {

using dnnl::memory;

enum class Op { Add, Sub, Mul, Div };

struct ChannelShape {
  int64_t n = 0, c = 0, blocks = 0, block = 0, pixels = 0;  ///< block 0: NHWC.
  int64_t s_n = 0, s_c = 0;  ///< Strides of the per-channel operand.
};

template <Op op>
float apply(float x, float s) {
  if constexpr (op == Op::Add) return x + s;
  if constexpr (op == Op::Sub) return x - s;
  if constexpr (op == Op::Mul) return x * s;
  return x / s;
}

template <Op op>
void run_channel(const ChannelShape& sh, const float* x, const float* s, float* y, const std::vector<Eltwise>& ops,
                 int threads) {
  if (sh.block == 0) {
#pragma omp parallel for collapse(2) num_threads(std::max(threads, 1)) schedule(static) if (threads > 1)
    for (int64_t n = 0; n < sh.n; ++n)
      for (int64_t p = 0; p < sh.pixels; ++p) {
        const int64_t at = (n * sh.pixels + p) * sh.c;
        const float* sv = s + n * sh.s_n;
        for (int64_t c = 0; c < sh.c; ++c) y[at + c] = apply<op>(x[at + c], sv[c * sh.s_c]);
        apply_eltwise(ops, y + at, sh.c);
      }
    return;
  }
#pragma omp parallel for collapse(2) num_threads(std::max(threads, 1)) schedule(static) if (threads > 1)
  for (int64_t n = 0; n < sh.n; ++n)
    for (int64_t cb = 0; cb < sh.blocks; ++cb) {
      float sv[16];
      const int64_t b = sh.block;
      for (int64_t k = 0; k < b; ++k) {
        const int64_t c = cb * b + k;
        sv[k] = c < sh.c ? s[n * sh.s_n + c * sh.s_c] : 0.f;
      }
      const int64_t real = std::min(b, sh.c - cb * b);
      const int64_t base = (n * sh.blocks + cb) * sh.pixels * b;
      for (int64_t p = 0; p < sh.pixels; ++p) {
        const float* xv = x + base + p * b;
        float* yv = y + base + p * b;
        for (int64_t k = 0; k < b; ++k) yv[k] = apply<op>(xv[k], sv[k]);
        if (!ops.empty()) apply_eltwise(ops, yv, real);
        for (int64_t k = real; k < b; ++k) yv[k] = 0.f;
      }
    }
}

// The block of 4-D `md` over `dims`: 16, 8, 0 for NHWC, -1 for another layout.
int64_t block_of(const memory::desc& md, const memory::dims& dims) {
  using tag = memory::format_tag;
  if (md == memory::desc(dims, memory::data_type::f32, tag::nhwc)) return 0;
  if (md == memory::desc(dims, memory::data_type::f32, tag::nChw16c)) return 16;
  if (md == memory::desc(dims, memory::data_type::f32, tag::nChw8c)) return 8;
  return -1;
}

}  // namespace

bool add_per_channel_loop(Ctx& c, std::string_view op, int32_t a, int32_t b, const memory::dims& bd, int32_t y,
                          const std::vector<Eltwise>& ops, const std::string& name) {
  const auto xd = dnnl_dims(c.shape(a));
  if (xd.size() != 4 || bd.size() != 4 || !loop_eltwise_supported(ops) ||
      c.d.slots[static_cast<size_t>(b)].dtype != DType::Float32)
    return false;
  const memory::desc md = c.d.layout(a);
  const int64_t block = block_of(md, xd);
  if (block < 0) return false;
  Op o = Op::Mul;
  if (op == "add") o = Op::Add;
  else if (op == "sub") o = Op::Sub;
  else if (op == "div") o = Op::Div;
  else if (op != "mul") return false;
  ChannelShape sh;
  sh.n = xd[0], sh.c = xd[1], sh.block = block, sh.pixels = xd[2] * xd[3];
  sh.blocks = block ? (sh.c + block - 1) / block : 1;
  sh.s_c = bd[1] == 1 ? 0 : 1;
  sh.s_n = bd[0] == 1 ? 0 : bd[1];
  memory xm = c.d.src_as(a, md);
  c.d.need_plain(b);
  memory ym = c.d.dst(y, md);
  const int threads = c.d.step_threads;
  Delegate& d = c.d;
  c.d.add_loop(
      [&d, sh, xm, b, ym, ops, o, held = threads]() {
        const int threads = capped_threads(held);  // the run's cap (base/thread_cap.h)
        const auto* x = static_cast<const float*>(xm.get_data_handle());
        const auto* s = reinterpret_cast<const float*>(d.slots[static_cast<size_t>(b)].ptr);
        auto* out = static_cast<float*>(ym.get_data_handle());
        switch (o) {
          case Op::Add: run_channel<Op::Add>(sh, x, s, out, ops, threads); break;
          case Op::Sub: run_channel<Op::Sub>(sh, x, s, out, ops, threads); break;
          case Op::Mul: run_channel<Op::Mul>(sh, x, s, out, ops, threads); break;
          case Op::Div: run_channel<Op::Div>(sh, x, s, out, ops, threads); break;
        }
        return Error::Ok;
      },
      c.what, name + " (per channel, loop)");
  return true;
}

}  // namespace edgec::runtime::onednn

// Convolutions on edgec's own kernels where oneDNN 2.6 is slow on this
// CPU (RESULTS.md, "Where the time goes"), each doing the whole chain
// build_conv found (per-channel affine folded into the weights, bias, the
// residual add, the activation):
// - 3x3 stride-1 2-D convolutions through Winograd F(4x4, 3x3)
//   (backends/onednn/winograd.h): oneDNN has Winograd only for AVX-512, and on
//   AVX2 its direct kernels run ResNet-18's first two stages at 2.3x the
//   time Winograd takes. The step reads and writes oneDNN's nChw8c layout,
//   so it sits in a chain of oneDNN convolutions without reorders.
// - 1-D convolutions on short sequences as a register-tiled product of the
//   weights with gathered input columns (backends/onednn/conv1d_gemm.h): a
//   diffusion U-Net's convolutions (length 4-16) took oneDNN ~11 us each,
//   mostly setup.
#include <cstdlib>
#include <cstring>
#include <new>

#include "backends/onednn/runtime_build.h"
#include "backends/onednn/conv1d_gemm.h"
#include "backends/onednn/winograd.h"
#include "base/thread_cap.h"

namespace edgec::runtime::onednn {
namespace {

using dnnl::memory;

// Above this many input x output channels Winograd is not used. Its
// transformed weights are 4x the plain ones (36 floats per channel pair),
// made at load: at 256 x 256 (ResNet-18's third stage, 1.3x faster there:
// 0.93 against 1.23 ms a convolution) they add 28 MB of memory and ~10 ms
// of load, which puts the ResNet-18 load (goal: under 50 ms) over the
// limit whenever the machine is busy; at 512 x 512 they no longer stay in
// cache and oneDNN's direct kernel is faster (0.5-0.75x).
constexpr int64_t kMostChannelPairs = 128 * 128;
// Fewer 4x4 output tiles than this and the 36 products are too thin to
// pay for the transforms (measured: 1 tile of 64 channels 0.6x, 4 tiles of
// 32 about even, 9 tiles of 16 1.5x faster).
constexpr int64_t kLeastTiles = 8;

Winograd43Shape shape_of(const Ctx& c, const ConvChain& ch) {
  const auto& x = c.shape(ch.x);
  const auto& y = c.shape(ch.out);
  Winograd43Shape s;
  s.n = x[0];
  s.cin = x[1];
  s.cout = y[1];
  s.h = x[2];
  s.w = x[3];
  s.oh = y[2];
  s.ow = y[3];
  s.pad_top = ch.pad_begin[0];
  s.pad_left = ch.pad_begin[1];
  return s;
}

// `v` as a step reads it at execute: a constant as it is, a folded copy
// (in `backing`) copied once into init memory.
const float* kept(Delegate& d, const float* v, const std::vector<float>& backing) {
  if (backing.empty() || v != backing.data()) return v;
  auto* at = reinterpret_cast<float*>(d.init_memory.allocate(backing.size() * sizeof(float)));
  if (!at) throw std::bad_alloc();
  std::memcpy(at, backing.data(), backing.size() * sizeof(float));
  return at;
}

bool enabled() {
  const char* v = std::getenv("EDGEC_ONEDNN_WINOGRAD");
  return !v || std::strcmp(v, "0") != 0;
}

}  // namespace

// See winograd_applies: no Winograd for this few output channels from an
// input in another blocked layout.
constexpr int64_t kFewOutputChannels = 32;

bool winograd_applies(const Ctx& c, const ConvChain& ch) {
  const auto& x = c.shape(ch.x);
  const auto& w = c.shape(ch.w);
  const auto& y = c.shape(ch.out);
  if (x.size() != 4 || w.size() != 4 || y.size() != 4 || ch.groups != 1 || w[2] != 3 || w[3] != 3 || w[1] != x[1] ||
      y[0] != x[0] || y[1] != w[0])
    return false;
  for (size_t i = 0; i < 2; ++i) {
    if (ch.stride[i] != 1 || ch.dilation[i] != 1) return false;
    if (y[2 + i] != x[2 + i] + ch.pad_begin[i] + ch.pad_end[i] - 2) return false;
  }
  if (!ch.after.empty() && !just_relu(ch.after)) return false;
  if (c.d.slots[static_cast<size_t>(ch.out)].dtype != DType::Float32) return false;
  if (ch.residual >= 0 && c.d.slots[static_cast<size_t>(ch.residual)].dtype != DType::Float32) return false;
  const Winograd43Shape s = shape_of(c, ch);
  // Few output channels from an input another convolution left in a
  // blocked layout other than nChw8c (nChw16c where oneDNN has AVX-512):
  // the reorders into and out of nChw8c cost more than Winograd saves.
  // DenseNet-121's 3x3 convolutions (32 outputs each, 42 of them) took
  // 84 reorders; one thread, 28.1 ms of CPU a run with Winograd, 26.2
  // without.
  const SlotState& xs = c.d.slots[static_cast<size_t>(ch.x)];
  if (s.cout <= kFewOutputChannels && xs.blocked_buffer >= 0 &&
      xs.blocked != memory::desc(dnnl_dims(x), memory::data_type::f32, memory::format_tag::nChw8c))
    return false;
  const int64_t tiles = s.n * ((s.oh + 3) / 4) * ((s.ow + 3) / 4);
  return winograd43_supported(s) && s.cin * s.cout <= kMostChannelPairs && tiles >= kLeastTiles && enabled();
}

void build_winograd(Ctx& c, const ConvChain& ch) {
  Delegate& d = c.d;
  const Winograd43Shape s = shape_of(c, ch);
  const memory::desc xmd(dnnl_dims(c.shape(ch.x)), memory::data_type::f32, memory::format_tag::nChw8c);
  const memory::desc ymd(dnnl_dims(c.shape(ch.out)), memory::data_type::f32, memory::format_tag::nChw8c);

  // Transformed weights, made once (the plain weights are not kept).
  ConvParams params;
  conv_params(c, ch, params);
  const size_t ubytes = static_cast<size_t>(winograd43_weights_floats(s.cin, s.cout)) * sizeof(float);
  auto* u = reinterpret_cast<float*>(d.init_memory.allocate(ubytes));
  if (!u) throw std::bad_alloc();
  winograd43_transform_weights(params.weights, s.cout, s.cin, u);
  const float* b = kept(d, params.bias, params.folded_bias);

  memory xm = d.src_as(ch.x, xmd), rm;
  int32_t reuse = -1;
  std::string name = ch.name + " (winograd)";
  if (ch.residual >= 0) {
    // Added as the output is written: into the residual's own storage
    // when nothing reads it later, else into a new buffer.
    const SlotState& r = d.slots[static_cast<size_t>(ch.residual)];
    const bool in_place = !d.slots[static_cast<size_t>(ch.out)].io && r.blocked_buffer >= 0 && r.blocked == ymd &&
                          free_after(d, ch.residual, static_cast<int32_t>(c.index), ch.add_at);
    rm = d.src_as(ch.residual, ymd);
    if (in_place) reuse = r.blocked_buffer;
    name += "+sum";
  }
  memory ym = d.dst(ch.out, ymd, reuse);
  name += ch.after_name;
  const bool relu = !ch.after.empty();
  const int threads = d.step_threads;
  d.add_loop(
      [&d, s, xm, rm, ym, u, b, relu, threads]() {
        const auto* res = rm ? static_cast<const float*>(rm.get_data_handle()) : nullptr;
        winograd43_conv(s, static_cast<const float*>(xm.get_data_handle()), u, b, res,
                        static_cast<float*>(ym.get_data_handle()), relu, static_cast<float*>(d.scratch.get_data_handle()),
                        capped_threads(threads));
        return Error::Ok;
      },
      c.what, name,
      // A capped run blocks the tiles for fewer threads.
      std::max(winograd43_scratch_floats(s, threads), winograd43_scratch_floats(s, 1)) *
          static_cast<int64_t>(sizeof(float)));
}

// Above this many weights per output channel (input channels x kernel)
// the gathered panel (16 floats each) leaves L2; oneDNN blocks over them.
constexpr int64_t kConv1dMostReduction = 4096;
// The weights are streamed once per 16 output positions: they must stay in
// L2 (512 KiB) unless there are only a few such blocks.
constexpr int64_t kConv1dMostWeightBytes = 512 * 1024;
constexpr int64_t kConv1dFewBlocks = 4;

bool conv1d_applies(const Ctx& c, const ConvChain& ch) {
  const auto& x = c.shape(ch.x);
  const auto& w = c.shape(ch.w);
  const auto& y = c.shape(ch.out);
  if (x.size() != 3 || w.size() != 3 || y.size() != 3 || ch.groups != 1 || w[1] != x[1] || y[0] != x[0] ||
      y[1] != w[0] || x[0] <= 0 || w[0] <= 0 || w[1] <= 0 || w[2] <= 0 || x[2] <= 0 || y[2] <= 0)
    return false;
  if (w[1] * w[2] > kConv1dMostReduction || ch.stride[0] < 1 || ch.dilation[0] < 1) return false;
  const int64_t blocks = x[0] * ((y[2] + 15) / 16);
  if (w[0] * w[1] * w[2] * static_cast<int64_t>(sizeof(float)) > kConv1dMostWeightBytes && blocks > kConv1dFewBlocks)
    return false;
  if (y[2] != (x[2] + ch.pad_begin[0] + ch.pad_end[0] - ch.dilation[0] * (w[2] - 1) - 1) / ch.stride[0] + 1)
    return false;
  // The kernel reads and writes floats (a crafted payload may declare
  // another type for the residual or a fused link).
  if (c.d.slots[static_cast<size_t>(ch.out)].dtype != DType::Float32) return false;
  if (ch.residual >= 0 && c.d.slots[static_cast<size_t>(ch.residual)].dtype != DType::Float32) return false;
  return loop_eltwise_supported(ch.after);
}

void build_conv1d(Ctx& c, const ConvChain& ch) {
  Delegate& d = c.d;
  const auto& x = c.shape(ch.x);
  const auto& w = c.shape(ch.w);
  const auto& y = c.shape(ch.out);
  Conv1dShape s;
  s.n = x[0];
  s.cin = x[1];
  s.cout = y[1];
  s.length = x[2];
  s.out_length = y[2];
  s.kernel = w[2];
  s.stride = ch.stride[0];
  s.dilation = ch.dilation[0];
  s.pad_left = ch.pad_begin[0];
  // Weights ([cout][cin * kernel], rows read as they are) and bias.
  ConvParams params;
  conv_params(c, ch, params);
  const float* wv = kept(d, params.weights, params.folded_weights);
  const float* bv = kept(d, params.bias, params.folded_bias);

  d.need_plain(ch.x);
  std::string name = ch.name;
  if (ch.residual >= 0) {
    d.need_plain(ch.residual);
    name += "+add";
  }
  d.define_plain(ch.out);
  name += ch.after_name + " (gemm)";
  const bool relu = just_relu(ch.after);
  const std::vector<Eltwise> rest = relu ? std::vector<Eltwise>{} : ch.after;
  const int threads = d.step_threads;
  const int32_t xs = ch.x, rs = ch.residual, ys = ch.out;
  const int64_t count = s.n * s.cout * s.out_length;
  d.add_loop(
      [&d, s, xs, rs, ys, wv, bv, relu, rest, threads, count]() {
        auto f = [&d](int32_t slot) { return reinterpret_cast<float*>(d.slots[static_cast<size_t>(slot)].ptr); };
        float* out = f(ys);
        conv1d_gemm(s, f(xs), wv, bv, rs >= 0 ? f(rs) : nullptr, out, relu,
                    static_cast<float*>(d.scratch.get_data_handle()), capped_threads(threads));
        apply_eltwise(rest, out, count);
        return Error::Ok;
      },
      c.what, name, conv1d_gemm_scratch_floats(s) * threads * static_cast<int64_t>(sizeof(float)));
}

}  // namespace edgec::runtime::onednn

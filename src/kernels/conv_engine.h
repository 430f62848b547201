// The engine both convolution kernels (kernels/convolution.cpp) run on.
//
// Both run on one engine, an implicit GEMM per group:
//   out[m, j] = sum_k A[m, k] * col[k, j]
// with m an output channel of the group, k = (input channel, tap z, tap y,
// tap x) and j an output position. col is never materialised whole (kernels do not
// allocate): it is gathered from the input into a stack tile of
// kChunkK x kChunkN values at a time and handed to gemm_f32. Large images
// get GEMMs of their own and write the output in place; small ones (a 1-D
// horizon of 8) pool their columns across the batch so that each GEMM still
// has enough columns to amortise packing the weights.
//
// 1x1 stride-1 convolutions skip the gather (the input already is col), and
// depthwise ones (one input channel per output channel) skip the GEMM: with
// only the taps to sum over, a direct loop is several times faster.
//
// A transposed convolution is the same gather once its outputs are split by
// phase: outputs whose coordinate has the same residue modulo the stride read
// the same subset of taps, at input positions that advance by one per output
// step. So each phase is an ordinary convolution over a strided subset of
// the output, with no zero-stuffed input and no scatter-add (which would need
// an f32 accumulator the size of an f16 output).
//
// Every operator runs as 3-D (conv_spatial.h): a 2-D one has D = 1 and a
// depth-1 kernel, a 1-D one also H = 1. The gather walks output rows (along
// W), so the extra axes only add a counter per row.
#pragma once

#include <cstdint>

namespace edgec::conv_engine {

/// One spatial axis of a (phase of a) convolution, in terms of a GEMM column
/// position `a` in [0, count) and a tap `t` in [0, taps):
///   input coordinate  = a * in_step + off0 + t * off_step
///   weight coordinate = w0 + t * w_step
///   output coordinate = out0 + a * out_step
struct ConvAxis {
  int64_t count = 1;
  int64_t in_step = 1;
  int64_t off0 = 0;
  int64_t off_step = 1;
  int64_t taps = 1;
  int64_t w0 = 0;
  int64_t w_step = 1;
  int64_t out0 = 0;
  int64_t out_step = 1;
};

/// What the engine reads and writes, with the layout differences between
/// conv and conv_transpose folded into strides.
template <typename T>
struct ConvOperands {
  const T* x = nullptr;  // [N, Cin, D, H, W] view
  int64_t x_stride[5] = {};
  int64_t in_d = 1, in_h = 1, in_w = 1;
  const T* w = nullptr;
  int64_t w_group = 0;  // element offset from one group's weights to the next
  int64_t w_m = 0;      // per output channel within the group
  int64_t w_ci = 0;     // per input channel within the group
  int64_t w_z = 0, w_y = 0, w_x = 0;
  const T* bias = nullptr;  // nullptr when absent
  int64_t bias_stride = 0;
  T* out = nullptr;  // [N, Cout, OD, OH, OW], contiguous
  int64_t out_d = 1, out_h = 1, out_w = 1;
  int64_t groups = 1, cig = 1, cog = 1;

  int64_t out_plane() const { return out_d * out_h * out_w; }
};

/// The spatial axes of a (phase of a) convolution: 0 = D, 1 = H, 2 = W.
using ConvAxes = ConvAxis[3];

/// Runs one phase of a convolution over every image and group, in parallel
/// tasks of at most `max_threads` (T: float or Half).
template <typename T>
void run_phase(const ConvOperands<T>& op, const ConvAxes& axis, int64_t batch, int max_threads);

/// A convolution where every output channel reads one input channel
/// (depthwise): a direct loop over the taps, no GEMM. kVolume: a 3-D one.
template <typename T, bool kVolume>
void depthwise_conv(const ConvOperands<T>& op, const ConvAxes& axis, int64_t batch, int max_threads);

}  // namespace edgec::conv_engine

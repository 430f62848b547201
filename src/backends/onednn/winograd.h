// Winograd F(4x4, 3x3) convolution (Lavin & Gray, "Fast Algorithms for
// Convolutional Neural Networks", 2015) on channel-blocked activations:
// 3x3 kernels, stride 1, no dilation, one group. Each 4x4 output tile comes
// from a 6x6 input tile through 36 element-wise products of transformed
// input and transformed weights summed over input channels (one matrix
// product per tile position), which is 4x fewer multiply-adds than the
// direct convolution; the transforms cost memory traffic, so it pays on
// large images with few channels (ResNet's first two stages) and not on
// small images with many (where the transformed weights, 4x the size of
// the plain ones, no longer stay in cache). The caller chooses.
//
// Layout of activations: [n][c / 8][h][w][8] (oneDNN's nChw8c), channels a
// multiple of 8.
#pragma once

#include <cstdint>

namespace edgec {

struct Winograd43Shape {
  int64_t n = 1, cin = 0, cout = 0;
  int64_t h = 0, w = 0;    ///< Input image.
  int64_t oh = 0, ow = 0;  ///< Output image.
  int64_t pad_top = 0, pad_left = 0;
};

/// How winograd43_conv cuts the work: output tiles per image side and in
/// all, tiles per block (one thread's V and M sized for its L2) and blocks.
struct WinogradBlocking {
  int64_t tiles_h = 0, tiles_w = 0, tiles = 0;
  int64_t per_block = 0, blocks = 0;
};

namespace winograd {
constexpr int kAlpha = 6;                 ///< Input tile side.
constexpr int kTile = 4;                  ///< Output tile side.
constexpr int kPoints = kAlpha * kAlpha;  ///< Products per tile.
constexpr int kMR = 6;                    ///< Fewest tiles per block (the AVX2 tile's rows, kernels/isa/tile.h).
constexpr int kNR = 16;                   ///< Output channels per micro-kernel (tile.h: kPanel).
/// A block's V and M together (floats): 384 KiB, inside a 512 KiB L2.
constexpr int64_t kBlockFloats = 96 * 1024;
}  // namespace winograd

/// True when the kernel can compute `s` (channel multiples, sizes > 0).
bool winograd43_supported(const Winograd43Shape& s);

/// Floats of the transformed weights for `cin` -> `cout` channels.
int64_t winograd43_weights_floats(int64_t cin, int64_t cout);

/// Transforms weights `w` ([cout][cin][3][3], row-major) into `u`
/// (winograd43_weights_floats).
void winograd43_transform_weights(const float* w, int64_t cout, int64_t cin, float* u);

/// Floats of scratch winograd43_conv needs with `threads` threads.
int64_t winograd43_scratch_floats(const Winograd43Shape& s, int threads);

/// y = conv(x, w) + bias + residual, then max(0, .) when `relu`. `u` from
/// winograd43_transform_weights; `bias` ([cout]) and `residual` (laid out
/// as y) may be null, and `residual` may be y itself (accumulate in
/// place). Zero padding: `pad_top` / `pad_left` before the image, as much
/// as the output size needs after it. `scratch` holds
/// winograd43_scratch_floats(s, threads) floats. Runs on up to `threads`
/// OpenMP threads; never allocates.
void winograd43_conv(const Winograd43Shape& s, const float* x, const float* u, const float* bias,
                     const float* residual, float* y, bool relu, float* scratch, int threads);

}  // namespace edgec

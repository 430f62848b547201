// 1-D convolution as a product of the weights ([cout] x [cin * kernel],
// read in place) with columns of the input gathered 16 output positions at
// a time into a packed panel (kernels/micro_tile.h), for the short
// sequences of a diffusion policy's U-Net (length 4-16, 16-256 channels),
// where a general convolution's setup costs as much as its arithmetic.
// Plain [n][c][l] layouts; one group.
#pragma once

#include <cstdint>

namespace edgec {

struct Conv1dShape {
  int64_t n = 1, cin = 0, cout = 0;
  int64_t length = 0, out_length = 0;
  int64_t kernel = 1, stride = 1, dilation = 1, pad_left = 0;
};

/// Floats of scratch conv1d_gemm needs per thread.
int64_t conv1d_gemm_scratch_floats(const Conv1dShape& s);

/// y[n][o][l] = bias[o] + sum_{c,k} w[o][c][k] * x[n][c][l * stride + k * dilation - pad_left]
/// (zero outside the input) + residual[n][o][l], then max(0, .) when
/// `relu`. `bias` and `residual` may be null. `scratch` holds
/// conv1d_gemm_scratch_floats(s) floats per thread of `threads`; never
/// allocates.
void conv1d_gemm(const Conv1dShape& s, const float* x, const float* w, const float* bias, const float* residual,
                 float* y, bool relu, float* scratch, int threads);

}  // namespace edgec

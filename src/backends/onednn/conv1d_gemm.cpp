// conv1d_gemm: see conv1d_gemm.h. Per image and block of 16 output
// positions the input columns those positions read are gathered into a
// panel ([cin * kernel] x 16, zero where the window leaves the input), and
// the weights, 6 output channels at a time, are multiplied with it in
// registers; bias, residual and ReLU are applied on the way out. The
// kernel is built per instruction set (isa/conv1d_gemm.cpp).
#include "backends/onednn/conv1d_gemm.h"

#include "kernels/isa.h"
#include "kernels/isa/kernels.h"

namespace edgec {

int64_t conv1d_gemm_scratch_floats(const Conv1dShape& s) { return s.cin * s.kernel * 16; }  // kernels/isa/tile.h: kPanel

void conv1d_gemm(const Conv1dShape& s, const float* x, const float* w, const float* bias, const float* residual,
                 float* y, bool relu, float* scratch, int threads) {
  auto* f = EDGEC_ISA_KERNEL(conv1d_gemm);
  f(s, x, w, bias, residual, y, relu, scratch, threads);
}

}  // namespace edgec

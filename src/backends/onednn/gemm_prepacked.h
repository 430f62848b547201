// A matmul kernel of the onednn delegate's own (runtime_conv.cpp):
// oneDNN 2.6's matmul costs more than the product itself for a
// transformer's small projections. Only this delegate uses it, so it lives
// here rather than among the portable kernels; it shares their micro-tile
// (kernels/micro_tile.h).
#pragma once

#include <cstdint>

namespace edgec {

/// Products with a constant B (a linear layer's weights) that are too small
/// for gemm_f32's packing of both operands to pay: B is packed once, into
/// 16-column panels (zero-padded), and each call only streams A.
/// Floats of the packed B.
int64_t gemm_prepacked_floats(int64_t K, int64_t N);
/// Packs B[k, j] = B[k * ldb_row + j * ldb_col] (K x N) into `packed`.
void gemm_prepack_b(int64_t K, int64_t N, const float* B, int64_t ldb_row, int64_t ldb_col, float* packed);
/// C[i, j] = sum_k A[i * lda + k] * B[k, j] + bias[j] (bias may be null),
/// then max(0, .) when `relu`; C row-major with row stride ldc. Up to
/// `num_threads` OpenMP threads; never allocates.
void gemm_prepacked_f32(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* packed,
                        const float* bias, float* C, int64_t ldc, bool relu, int num_threads);

}  // namespace edgec

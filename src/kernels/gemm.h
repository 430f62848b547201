// Single-precision GEMM shared by matmul, convolution (im2col) and anything
// else that reduces to a matrix product.
//
// Operands are described by a row stride and a column stride (in elements)
// rather than a layout flag, so a transposed or otherwise permuted operand is
// passed as-is: the packing step reads through the strides, and the compute
// loop only ever sees packed, contiguous panels.
#pragma once

#include <cstdint>

#include "base/half.h"

namespace edgec {

/// C[i, j] (+)= sum_k A[i, k] * B[k, j] for 0 <= i < M, 0 <= j < N, 0 <= k < K, where
///   A[i, k] = A[i * lda_row + k * lda_col]
///   B[k, j] = B[k * ldb_row + j * ldb_col]
///   C[i, j] = C[i * ldc + j]           (C is row-major with row stride ldc)
///
/// accumulate: when false C is overwritten (its previous contents, which may
///   be uninitialized, are never read); when true the product is added to C,
///   which is how a caller adds a bias (prefill C) or sums partial products.
/// num_threads: upper bound on OpenMP threads; small products run on the
///   calling thread regardless. Safe to call from inside a parallel region
///   with num_threads = 1.
///
/// Preconditions (the caller validates shapes): M, N, K >= 0, and every
/// addressed element lies inside its buffer; strides may be 0 (a broadcast
/// operand). K == 0 with accumulate == false writes zeros. Never allocates on
/// the heap: pack buffers live on the stack (about 200 KiB per thread).
void gemm_f32(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda_row, int64_t lda_col,
              const float* B, int64_t ldb_row, int64_t ldb_col, float* C, int64_t ldc,
              bool accumulate, int num_threads);

/// The same product on float16 operands, computed in float32 (operands are
/// widened while packing; C is accumulated in float32 and rounded once).
void gemm_f16(int64_t M, int64_t N, int64_t K, const Half* A, int64_t lda_row, int64_t lda_col,
              const Half* B, int64_t ldb_row, int64_t ldb_col, Half* C, int64_t ldc,
              bool accumulate, int num_threads);

}  // namespace edgec

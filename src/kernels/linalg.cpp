// matmul with numpy semantics: 1-D operands are promoted to a row (a) or a
// column (b) and the promoted dim is dropped from the result; leading batch
// dims broadcast. Each matrix product is one call to the packed GEMM in
// gemm.cpp, which reads operands through their strides, so transposed and
// broadcast views are never copied. And det (ONNX Det), below.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "kernels/axis_util.h"
#include "kernels/families.h"
#include "kernels/gemm.h"
#include "kernels/kernel_checks.h"

namespace edgec {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

// The dtypes matmul computes on, declared once: the row at the end of this
// file and the kernel read them.
constexpr DTypeSet kMatmulTypes = {DType::Float32, DType::Float16, DType::Float64};

// Below this many multiply-adds per matrix, a batch is spread over threads
// one matrix each instead of splitting each matrix.
constexpr int64_t kSmallMatrixWork = int64_t{1} << 21;

struct MatrixOperand {
  int64_t row_stride;
  int64_t col_stride;
};

// float64: a plain loop, accumulated in double (float64 is for accuracy,
// not speed). C = A B, with C's rows ldc apart.
void gemm_f64(int64_t M, int64_t N, int64_t K, const double* a, MatrixOperand ma, const double* b,
              MatrixOperand mb, double* c, int64_t ldc) {
  for (int64_t i = 0; i < M; ++i) {
    double* row = c + i * ldc;
    for (int64_t j = 0; j < N; ++j) row[j] = 0.0;
    for (int64_t k = 0; k < K; ++k) {
      const double av = a[i * ma.row_stride + k * ma.col_stride];
      const double* brow = b + k * mb.row_stride;
      for (int64_t j = 0; j < N; ++j) row[j] += av * brow[j * mb.col_stride];
    }
  }
}

void run_gemm(DType dtype, int64_t M, int64_t N, int64_t K, const char* a, MatrixOperand ma,
              const char* b, MatrixOperand mb, char* c, int64_t ldc, int threads) {
  if (dtype == DType::Float64) {
    gemm_f64(M, N, K, reinterpret_cast<const double*>(a), ma, reinterpret_cast<const double*>(b), mb,
             reinterpret_cast<double*>(c), ldc);
  } else if (dtype == DType::Float32) {
    gemm_f32(M, N, K, reinterpret_cast<const float*>(a), ma.row_stride, ma.col_stride,
             reinterpret_cast<const float*>(b), mb.row_stride, mb.col_stride,
             reinterpret_cast<float*>(c), ldc, false, threads);
  } else {
    gemm_f16(M, N, K, reinterpret_cast<const Half*>(a), ma.row_stride, ma.col_stride,
             reinterpret_cast<const Half*>(b), mb.row_stride, mb.col_stride,
             reinterpret_cast<Half*>(c), ldc, false, threads);
  }
}

// The operand counts and dtypes and the ranks, before any size is read.
Error check_matmul_operands(std::span<const Tensor> inputs, std::span<Tensor> outputs) {
  if (inputs.size() != 2 || outputs.size() != 1) {
    return fail(Error::InvalidArgument,
                "matmul: expected 2 inputs and 1 output, got " + str(static_cast<int64_t>(inputs.size())) +
                    " and " + str(static_cast<int64_t>(outputs.size())));
  }
  const Tensor& a = inputs[0];
  const Tensor& b = inputs[1];
  const Tensor& y = outputs[0];
  if (!kMatmulTypes.contains(a.dtype) || a.dtype != b.dtype) {
    return fail(Error::InvalidType, "matmul: expected two f32, two f16 or two f64 inputs, got " +
                                        std::string(dtype_name(a.dtype)) + " and " +
                                        std::string(dtype_name(b.dtype)));
  }
  if (y.dtype != a.dtype) {
    return fail(Error::InvalidType, "matmul: expected output dtype " + std::string(dtype_name(a.dtype)) +
                                        ", got " + std::string(dtype_name(y.dtype)));
  }
  if (a.rank < 1 || b.rank < 1) {
    return fail(Error::InvalidShape, "matmul: expected inputs of rank >= 1, got " +
                                         shape_string(a.shape()) + " and " + shape_string(b.shape()));
  }
  return Error::Ok;
}

// What matmul multiplies: an M x K by a K x N matrix (each with its strides)
// for every index of the broadcast batch dims in front of them.
struct MatmulShape {
  bool a_vec = false;
  bool b_vec = false;
  int64_t M = 0, N = 0, K = 0;
  MatrixOperand ma{}, mb{};
  int batch_rank = 0;
  std::array<int64_t, kMaxRank> batch{};
  std::array<int64_t, kMaxRank> a_bstride{};
  std::array<int64_t, kMaxRank> b_bstride{};
};

// The matrix dims. A 1-D a is a single row and a 1-D b a single column.
Error read_matrix_dims(const Tensor& a, const Tensor& b, MatmulShape& s) {
  s.a_vec = a.rank == 1;
  s.b_vec = b.rank == 1;
  s.M = s.a_vec ? 1 : a.sizes[a.rank - 2];
  s.K = a.sizes[a.rank - 1];
  const int64_t Kb = s.b_vec ? b.sizes[0] : b.sizes[b.rank - 2];
  s.N = s.b_vec ? 1 : b.sizes[b.rank - 1];
  if (s.K != Kb) {
    return fail(Error::InvalidShape, "matmul: contracted dims differ: a " + shape_string(a.shape()) +
                                         " has " + str(s.K) + " columns, b " + shape_string(b.shape()) +
                                         " has " + str(Kb) + " rows");
  }
  s.ma = {s.a_vec ? 0 : a.strides[a.rank - 2], a.strides[a.rank - 1]};
  s.mb = {s.b_vec ? b.strides[0] : b.strides[b.rank - 2], s.b_vec ? 0 : b.strides[b.rank - 1]};
  return Error::Ok;
}

// Broadcasts the batch dims (right-aligned; size 1 stretches, with stride 0).
Error broadcast_batch_dims(const Tensor& a, const Tensor& b, MatmulShape& s) {
  const int a_batch = s.a_vec ? 0 : a.rank - 2;
  const int b_batch = s.b_vec ? 0 : b.rank - 2;
  s.batch_rank = std::max(a_batch, b_batch);
  if (s.batch_rank + 2 > kMaxRank) {
    return fail(Error::InvalidShape, "matmul: result rank exceeds the maximum rank " + str(kMaxRank));
  }
  for (int i = 0; i < s.batch_rank; ++i) {
    const int ia = i - (s.batch_rank - a_batch);
    const int ib = i - (s.batch_rank - b_batch);
    const int64_t sa = ia >= 0 ? a.sizes[ia] : 1;
    const int64_t sb = ib >= 0 ? b.sizes[ib] : 1;
    if (sa != sb && sa != 1 && sb != 1) {
      return fail(Error::InvalidShape, "matmul: batch dims do not broadcast: a " + shape_string(a.shape()) +
                                           ", b " + shape_string(b.shape()));
    }
    s.batch[i] = sa == 1 ? sb : sa;
    s.a_bstride[i] = (ia >= 0 && sa != 1) ? a.strides[ia] : 0;
    s.b_bstride[i] = (ib >= 0 && sb != 1) ? b.strides[ib] : 0;
  }
  return Error::Ok;
}

// Sizes the output: the batch dims, then M unless a is a vector and N unless
// b is.
Error resize_matmul_output(const MatmulShape& s, Tensor& y) {
  std::array<int64_t, kMaxRank> shape = s.batch;
  int out_rank = s.batch_rank;
  if (!s.a_vec) shape[out_rank++] = s.M;
  if (!s.b_vec) shape[out_rank++] = s.N;
  return y.resize({shape.data(), static_cast<size_t>(out_rank)});
}

// Batch space walked by a, b and the output (whose matrices are M*N apart).
axis::StridedDims<3> batch_walk(const MatmulShape& s) {
  axis::StridedDims<3> batch;
  std::array<int64_t, kMaxRank> y_bstride{};
  int64_t stride = s.M * s.N;
  for (int i = s.batch_rank - 1; i >= 0; --i) {
    y_bstride[i] = stride;
    stride *= s.batch[i];
  }
  for (int i = 0; i < s.batch_rank; ++i) batch.push(s.batch[i], {s.a_bstride[i], s.b_bstride[i], y_bstride[i]});
  batch.coalesce();
  return batch;
}

// One product per batch index: small matrices are spread over threads one
// each, large ones split among all threads one after another.
void multiply_batch(const KernelContext& ctx, const MatmulShape& s, const axis::StridedDims<3>& batch,
                    const Tensor& a, const Tensor& b, Tensor& y) {
  const size_t esz = dtype_size(a.dtype);
  const char* a_base = static_cast<const char*>(a.data);
  const char* b_base = static_cast<const char*>(b.data);
  char* y_base = static_cast<char*>(y.data);
  const int64_t count = batch.numel();
  const int64_t len = batch.line_len();
  const int64_t per_matrix = s.M * s.N * std::max<int64_t>(s.K, 1);
  auto matrix = [&](int64_t i, int threads) {
    const int64_t line = i / len;
    const int64_t j = i % len;
    const int64_t ao = batch.line_offset(line, 0) + j * batch.line_stride(0);
    const int64_t bo = batch.line_offset(line, 1) + j * batch.line_stride(1);
    const int64_t yo = batch.line_offset(line, 2) + j * batch.line_stride(2);
    run_gemm(a.dtype, s.M, s.N, s.K, a_base + ao * esz, s.ma, b_base + bo * esz, s.mb, y_base + yo * esz, s.N,
             threads);
  };
  const int threads = ctx.num_threads;
  if (threads > 1 && count > 1 && per_matrix < kSmallMatrixWork && per_matrix * count >= 32768) {
    const int team = static_cast<int>(std::min<int64_t>(threads, count));
#pragma omp parallel for num_threads(team) schedule(static)
    for (int64_t i = 0; i < count; ++i) matrix(i, 1);
  } else {
    for (int64_t i = 0; i < count; ++i) matrix(i, threads);
  }
}

Error matmul_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs&,
                    std::span<Tensor> outputs) {
  EDGEC_TRY(check_matmul_operands(inputs, outputs));
  const Tensor& a = inputs[0];
  const Tensor& b = inputs[1];
  Tensor& y = outputs[0];
  MatmulShape s;
  EDGEC_TRY(read_matrix_dims(a, b, s));
  EDGEC_TRY(broadcast_batch_dims(a, b, s));
  EDGEC_TRY(resize_matmul_output(s, y));
  if (y.numel() == 0) return Error::Ok;
  const axis::StridedDims<3> batch = batch_walk(s);

  // When b is shared by the whole batch and a's matrices are rows of one
  // strided matrix (the usual activation x weight case), one tall product is
  // both faster and better threaded than a loop of small ones.
  if (batch.rank == 1 && batch.strides[1][0] == 0 && !s.a_vec && batch.strides[0][0] == s.M * s.ma.row_stride) {
    run_gemm(a.dtype, batch.sizes[0] * s.M, s.N, s.K, static_cast<const char*>(a.data), s.ma,
             static_cast<const char*>(b.data), s.mb, static_cast<char*>(y.data), s.N, ctx.num_threads);
    return Error::Ok;
  }
  multiply_batch(ctx, s, batch, a, b, y);
  return Error::Ok;
}

// ---- det ----------------------------------------------------------------------

// ONNX Det: the determinant of each [n, n] matrix of x [..., n, n], by LU
// decomposition with partial pivoting accumulated in double, whatever the
// dtype; a matrix of n = 0 has determinant 1. The working copy of one matrix
// lives in the call's workspace (f64 [n * n], its last result), which the
// kernel leaves zero.
constexpr DTypeSet kDetTypes = {DType::Float32, DType::Float16, DType::Float64};

double lu_determinant(double* a, int64_t n) {
  double det = 1.0;
  for (int64_t k = 0; k < n; ++k) {
    int64_t pivot = k;
    for (int64_t i = k + 1; i < n; ++i)
      if (std::abs(a[i * n + k]) > std::abs(a[pivot * n + k])) pivot = i;
    if (a[pivot * n + k] == 0.0) return 0.0;
    if (pivot != k) {
      std::swap_ranges(a + k * n, a + (k + 1) * n, a + pivot * n);
      det = -det;
    }
    const double p = a[k * n + k];
    det *= p;
    for (int64_t i = k + 1; i < n; ++i) {
      const double f = a[i * n + k] / p;
      for (int64_t j = k + 1; j < n; ++j) a[i * n + j] -= f * a[k * n + j];
    }
  }
  return det;
}

template <typename T>
void det_typed(const Tensor& x, Tensor& y, double* ws) {
  const int r = x.rank;
  const int64_t n = x.sizes[r - 1];
  const int64_t rs = x.strides[r - 2], cs = x.strides[r - 1];
  const int64_t count = y.numel();
  T* out = y.data_as<T>();
  for (int64_t b = 0; b < count; ++b) {
    int64_t offset = 0;
    for (int64_t i = r - 3, rest = b; i >= 0; --i) {
      offset += (rest % x.sizes[i]) * x.strides[i];
      rest /= x.sizes[i];
    }
    const T* m = x.data_as<T>() + offset;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) ws[i * n + j] = static_cast<double>(widen<T>(m[i * rs + j * cs]));
    out[b] = narrow<T>(lu_determinant(ws, n));
  }
}

Error det_kernel(KernelContext&, std::span<const Tensor> inputs, const Attrs&, std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "det";
  EDGEC_TRY(check_arity(kOp, inputs, 1, outputs, 2));
  const Tensor& x = inputs[0];
  if (!kDetTypes.contains(x.dtype))
    return fail(Error::InvalidType, std::string(kOp) + ": expected dtype " + kDetTypes.str() + ", got " +
                                        std::string(dtype_name(x.dtype)));
  if (x.rank < 2 || x.sizes[x.rank - 1] != x.sizes[x.rank - 2])
    return fail(Error::InvalidShape,
                std::string(kOp) + ": expected square matrices [..., n, n], got " + shape_string(x.shape()));
  EDGEC_TRY(check_output_dtype(kOp, outputs[0], x.dtype));
  EDGEC_TRY(check_output_dtype(kOp, outputs[1], DType::Float64));
  const int64_t n = x.sizes[x.rank - 1];
  EDGEC_TRY(resize_output(kOp, outputs[0], x.shape().first(static_cast<size_t>(x.rank - 2))));
  const int64_t ws_size = n * n;
  EDGEC_TRY(resize_output(kOp, outputs[1], {&ws_size, 1}));
  double* ws = outputs[1].data_as<double>();
  switch (x.dtype) {
    case DType::Float32: det_typed<float>(x, outputs[0], ws); break;
    case DType::Float16: det_typed<Half>(x, outputs[0], ws); break;
    default: det_typed<double>(x, outputs[0], ws); break;
  }
  std::fill_n(ws, ws_size, 0.0);
  return Error::Ok;
}

}  // namespace

std::span<const KernelEntry> linalg_kernels() {
  static const KernelEntry kLinalgKernels[] = {
      {declare("matmul", "linalg", {{"self"}, {"other"}}, {}, kMatmulTypes, 0,
               "numpy matmul: 1-D operands and batch broadcasting"),
       matmul_kernel},
      {declare("det", "linalg", {{"self"}}, {}, kDetTypes, 0,
               "determinant of each [n, n] matrix of [..., n, n] (LU in double); and a workspace f64 [n * n]"),
       det_kernel},
  };
  return kLinalgKernels;
}

}  // namespace edgec

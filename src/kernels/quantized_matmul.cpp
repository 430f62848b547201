// The integer matmuls of the quantized family, numpy matmul semantics
// (1-D operands promoted, batch dims broadcast), ONNX's arithmetic
// (docs/semantics.md §9):
//   matmul_integer(a, b, a_zero_point?, b_zero_point?) -> i32
//       y = sum_k (a - a_zp[m]) (b - b_zp[n])      a_zp per tensor or per row (M),
//                                                  b_zp per tensor or per column (N)
//   qlinear_matmul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp) -> y_zp's dtype
//       y = saturate(nearbyint(acc * (a_scale * b_scale[n] / y_scale)) + y_zp)
//                                                  b's parameters per tensor or per column
// a and b are i8 or u8 each. Both run on quantized_gemm.h in stack tiles of
// kTileM x kTileN outputs and kTileK products.
#include <algorithm>
#include <array>
#include <cstdint>

#include "kernels/families.h"
#include "kernels/kernel_checks.h"
#include "kernels/quantized_common.h"
#include "kernels/quantized_gemm.h"

namespace edgec {
namespace {

using quant::cat;
using quant::QParams;

constexpr int64_t kTileM = 64;
constexpr int64_t kTileN = 128;  // a multiple of quant::kGemmCols
constexpr int64_t kTileK = 256;  // even

/// The matrix dims and the broadcast batch of a matmul.
struct MatShape {
  bool a_vec = false, b_vec = false;
  int64_t M = 0, N = 0, K = 0;
  int64_t a_row = 0, a_col = 0, b_row = 0, b_col = 0;
  int batch_rank = 0;
  std::array<int64_t, kMaxRank> batch{}, a_bstride{}, b_bstride{};
  int64_t batch_count = 1;
  /// The result's shape.
  std::array<int64_t, kMaxRank> out{};
  int out_rank = 0;
};

Error read_shape(std::string_view op, const Tensor& a, const Tensor& b, MatShape& s) {
  if (a.rank < 1 || b.rank < 1) {
    return fail(Error::InvalidShape, cat(op, ": expected inputs of rank >= 1, got ", shape_string(a.shape()), " and ",
                                         shape_string(b.shape())));
  }
  s.a_vec = a.rank == 1;
  s.b_vec = b.rank == 1;
  s.M = s.a_vec ? 1 : a.sizes[a.rank - 2];
  s.K = a.sizes[a.rank - 1];
  const int64_t kb = s.b_vec ? b.sizes[0] : b.sizes[b.rank - 2];
  s.N = s.b_vec ? 1 : b.sizes[b.rank - 1];
  if (s.K != kb) {
    return fail(Error::InvalidShape, cat(op, ": contracted dims differ: a ", shape_string(a.shape()), " has ", s.K,
                                         " columns, b ", shape_string(b.shape()), " has ", kb, " rows"));
  }
  s.a_row = s.a_vec ? 0 : a.strides[a.rank - 2];
  s.a_col = a.strides[a.rank - 1];
  s.b_row = s.b_vec ? b.strides[0] : b.strides[b.rank - 2];
  s.b_col = s.b_vec ? 0 : b.strides[b.rank - 1];
  const int a_batch = s.a_vec ? 0 : a.rank - 2;
  const int b_batch = s.b_vec ? 0 : b.rank - 2;
  s.batch_rank = std::max(a_batch, b_batch);
  for (int i = 0; i < s.batch_rank; ++i) {
    const int ia = i - (s.batch_rank - a_batch);
    const int ib = i - (s.batch_rank - b_batch);
    const int64_t sa = ia >= 0 ? a.sizes[ia] : 1;
    const int64_t sb = ib >= 0 ? b.sizes[ib] : 1;
    if (sa != sb && sa != 1 && sb != 1) {
      return fail(Error::InvalidShape, cat(op, ": batch dims do not broadcast: a ", shape_string(a.shape()), ", b ",
                                           shape_string(b.shape())));
    }
    s.batch[i] = sa == 1 ? sb : sa;
    s.a_bstride[i] = (ia >= 0 && sa != 1) ? a.strides[ia] : 0;
    s.b_bstride[i] = (ib >= 0 && sb != 1) ? b.strides[ib] : 0;
    s.batch_count *= s.batch[i];
    s.out[s.out_rank++] = s.batch[i];
  }
  if (!s.a_vec) s.out[s.out_rank++] = s.M;
  if (!s.b_vec) s.out[s.out_rank++] = s.N;
  return Error::Ok;
}

/// Element offsets of batch index `bi` in a and b.
void batch_offsets(const MatShape& s, int64_t bi, int64_t& a_off, int64_t& b_off) {
  a_off = b_off = 0;
  for (int i = s.batch_rank - 1; i >= 0; --i) {
    const int64_t idx = bi % s.batch[i];
    bi /= s.batch[i];
    a_off += idx * s.a_bstride[i];
    b_off += idx * s.b_bstride[i];
  }
}

/// With b unbatched (2-D, or batch dims of size 1) and a's batch dims laid
/// out as one run of rows, a's batch and rows are one matrix: a [64, 1, 256]
/// times b [256, 768] is one GEMM of 64 rows, not 64 of one row that each
/// pack b again. Only with a's zero point per tensor (a per-row one is
/// indexed by the row of one batch entry). The result's layout is the same.
void fold_batch_into_rows(MatShape& s, int64_t a_zp_count) {
  if (s.batch_count == 1 || s.a_vec || a_zp_count != 1) return;
  bool row_free = s.M == 1;  // a single row's stride does not matter
  int64_t row = s.a_row;
  int64_t rows = s.M;
  for (int i = s.batch_rank - 1; i >= 0; --i) {
    if (s.batch[i] == 1) continue;
    if (s.b_bstride[i] != 0) return;
    if (row_free) {
      row = s.a_bstride[i];
      row_free = false;
    } else if (s.a_bstride[i] != row * rows) {
      return;
    }
    rows *= s.batch[i];
  }
  s.M = rows;
  s.a_row = row;
  s.batch_rank = 0;
  s.batch_count = 1;
}

/// What one call computes: the operands, their zero points and, for
/// qlinear_matmul, the requantization.
struct QMatmul {
  const Tensor* a = nullptr;
  const Tensor* b = nullptr;
  QParams a_zp, b_zp;  // a's per row, b's per column
  bool requant = false;
  float a_scale = 1.0f, y_scale = 1.0f;
  QParams b_scale;
  int32_t y_zp = 0, lo = 0, hi = 0;
};

template <typename T>
void pack_a(const T* a, const MatShape& s, const QParams& zp, int64_t m0, int64_t mc, int64_t k0, int64_t kc,
            int64_t k2, int16_t* dst) {
  for (int64_t m = 0; m < mc; ++m) {
    const int32_t z = zp.zero_at(m0 + m);
    const T* row = a + (m0 + m) * s.a_row + k0 * s.a_col;
    int16_t* d = dst + m * k2;
    for (int64_t k = 0; k < kc; ++k) d[k] = static_cast<int16_t>(static_cast<int32_t>(row[k * s.a_col]) - z);
    for (int64_t k = kc; k < k2; ++k) d[k] = 0;
  }
}

template <typename T>
void pack_b(const T* b, const MatShape& s, const QParams& zp, int64_t j0, int64_t nc, int64_t ncp, int64_t k0,
            int64_t kc, int64_t kp, int16_t* dst) {
  int32_t z[kTileN];
  for (int64_t j = 0; j < nc; ++j) z[j] = zp.zero_at(j0 + j);
  for (int64_t p = 0; p < kp; ++p) {
    int16_t* d = dst + p * 2 * ncp;
    if (s.b_col == 1 && 2 * p + 1 < kc) {
      // Rows k and k + 1 contiguous: interleaved in one loop (vectorized).
      const T* __restrict r0 = b + (k0 + 2 * p) * s.b_row + j0;
      const T* __restrict r1 = r0 + s.b_row;
      int16_t* __restrict dp = d;
      for (int64_t j = 0; j < nc; ++j) {
        dp[2 * j] = static_cast<int16_t>(static_cast<int32_t>(r0[j]) - z[j]);
        dp[2 * j + 1] = static_cast<int16_t>(static_cast<int32_t>(r1[j]) - z[j]);
      }
      for (int64_t j = 2 * nc; j < 2 * ncp; ++j) dp[j] = 0;
      continue;
    }
    for (int e = 0; e < 2; ++e) {
      const int64_t k = 2 * p + e;
      if (k >= kc) {
        for (int64_t j = 0; j < ncp; ++j) d[2 * j + e] = 0;
        continue;
      }
      const T* row = b + (k0 + k) * s.b_row + j0 * s.b_col;
      for (int64_t j = 0; j < nc; ++j) d[2 * j + e] = static_cast<int16_t>(static_cast<int32_t>(row[j * s.b_col]) - z[j]);
      for (int64_t j = nc; j < ncp; ++j) d[2 * j + e] = 0;
    }
  }
}

template <typename A, typename B, typename Y>
void run_typed(const QMatmul& q, const MatShape& s, Tensor& y, int max_threads) {
  const A* ad = q.a->data_as<A>();
  const B* bd = q.b->data_as<B>();
  Y* yd = y.data_as<Y>();
  const int64_t m_tiles = (s.M + kTileM - 1) / kTileM;
  const int64_t n_tiles = (s.N + kTileN - 1) / kTileN;
  const int64_t tasks = s.batch_count * m_tiles * n_tiles;
  const int threads = spatial::threads_for(max_threads, s.batch_count * s.M * s.N * std::max<int64_t>(s.K, 1));
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (int64_t t = 0; t < tasks; ++t) {
    alignas(64) int32_t c[kTileM * kTileN];
    alignas(64) int16_t a_pack[kTileM * kTileK];
    alignas(64) int16_t b_pack[kTileK * kTileN];
    float mult[kTileN];
    const int64_t nt = t % n_tiles;
    const int64_t mt = (t / n_tiles) % m_tiles;
    const int64_t bi = t / (n_tiles * m_tiles);
    int64_t a_off = 0, b_off = 0;
    batch_offsets(s, bi, a_off, b_off);
    const int64_t m0 = mt * kTileM, mc = std::min(kTileM, s.M - m0);
    const int64_t j0 = nt * kTileN, nc = std::min(kTileN, s.N - j0);
    const int64_t ncp = quant::pad_cols(nc);
    std::fill_n(c, mc * ncp, 0);
    for (int64_t k0 = 0; k0 < s.K; k0 += kTileK) {
      const int64_t kc = std::min(kTileK, s.K - k0);
      const int64_t kp = (kc + 1) / 2;
      pack_b(bd + b_off, s, q.b_zp, j0, nc, ncp, k0, kc, kp, b_pack);
      pack_a(ad + a_off, s, q.a_zp, m0, mc, k0, kc, 2 * kp, a_pack);
      quant::gemm_tile(mc, ncp, kp, a_pack, 2 * kp, b_pack, c, ncp);
    }
    Y* out = yd + bi * s.M * s.N + m0 * s.N + j0;
    if constexpr (std::is_same_v<Y, int32_t>) {
      for (int64_t m = 0; m < mc; ++m) std::copy_n(c + m * ncp, nc, out + m * s.N);
    } else {
      // In float32, in this order (docs/semantics.md §9.4).
      for (int64_t j = 0; j < nc; ++j) mult[j] = q.a_scale * q.b_scale.scale_at(j0 + j) / q.y_scale;
      for (int64_t m = 0; m < mc; ++m) {
        const int32_t* cr = c + m * ncp;
        Y* o = out + m * s.N;
        for (int64_t j = 0; j < nc; ++j) o[j] = static_cast<Y>(quant::requantize(cr[j], mult[j], q.y_zp, q.lo, q.hi));
      }
    }
  }
}

template <typename Y>
void run_out(const QMatmul& q, const MatShape& s, Tensor& y, int threads) {
  const bool a_u8 = q.a->dtype == DType::UInt8;
  const bool b_u8 = q.b->dtype == DType::UInt8;
  if (a_u8) {
    b_u8 ? run_typed<uint8_t, uint8_t, Y>(q, s, y, threads) : run_typed<uint8_t, int8_t, Y>(q, s, y, threads);
  } else {
    b_u8 ? run_typed<int8_t, uint8_t, Y>(q, s, y, threads) : run_typed<int8_t, int8_t, Y>(q, s, y, threads);
  }
}

Error check_operand_dtype(std::string_view op, std::string_view what, const Tensor& t) {
  if (!quant::is_quant_dtype(t.dtype)) {
    return fail(Error::InvalidType, cat(op, ": ", what, " must be i8 or u8, got ", dtype_name(t.dtype)));
  }
  return Error::Ok;
}

Error matmul_integer(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs&, std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "matmul_integer";
  if (inputs.size() < 2 || inputs.size() > 4 || outputs.size() != 1) {
    return fail(Error::InvalidArgument, cat(kOp, ": expected inputs (a, b, a_zero_point?, b_zero_point?) and 1 "
                                                 "output, got ",
                                            inputs.size(), " inputs and ", outputs.size(), " outputs"));
  }
  QMatmul q;
  q.a = &inputs[0];
  q.b = &inputs[1];
  EDGEC_TRY(check_operand_dtype(kOp, "a", *q.a));
  EDGEC_TRY(check_operand_dtype(kOp, "b", *q.b));
  MatShape s;
  EDGEC_TRY(read_shape(kOp, *q.a, *q.b, s));
  if (inputs.size() > 2) {
    EDGEC_TRY(quant::read_qparams(kOp, "a", nullptr, &inputs[2], q.a->dtype, s.M, "row of a", q.a_zp));
  }
  if (inputs.size() > 3) {
    EDGEC_TRY(quant::read_qparams(kOp, "b", nullptr, &inputs[3], q.b->dtype, s.N, "column of b", q.b_zp));
  }
  fold_batch_into_rows(s, q.a_zp.count);
  Tensor& y = outputs[0];
  EDGEC_TRY(check_output_dtype(kOp, y, DType::Int32));
  EDGEC_TRY(resize_output(kOp, y, {s.out.data(), static_cast<size_t>(s.out_rank)}));
  run_out<int32_t>(q, s, y, ctx.num_threads);
  return Error::Ok;
}

Error qlinear_matmul(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs, std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "qlinear_matmul";
  EDGEC_TRY(quant::refuse_stored_weights(kOp, attrs));
  EDGEC_TRY(check_arity(kOp, inputs, 8, outputs, 1));
  QMatmul q;
  q.a = &inputs[0];
  q.b = &inputs[3];
  EDGEC_TRY(check_operand_dtype(kOp, "a", *q.a));
  EDGEC_TRY(check_operand_dtype(kOp, "b", *q.b));
  MatShape s;
  EDGEC_TRY(read_shape(kOp, *q.a, *q.b, s));
  QParams a_p, y_p;
  EDGEC_TRY(quant::read_qparams(kOp, "a", &inputs[1], &inputs[2], q.a->dtype, -1, "", a_p));
  EDGEC_TRY(quant::read_qparams(kOp, "b", &inputs[4], &inputs[5], q.b->dtype, s.N, "column of b", q.b_scale));
  const DType out_dtype = inputs[7].dtype;
  if (!quant::is_quant_dtype(out_dtype)) {
    return fail(Error::InvalidType, cat(kOp, ": y_zero_point must be i8 or u8, got ", dtype_name(out_dtype)));
  }
  EDGEC_TRY(quant::read_qparams(kOp, "y", &inputs[6], &inputs[7], out_dtype, -1, "", y_p));
  q.a_zp = a_p;
  fold_batch_into_rows(s, a_p.count);
  q.b_zp = q.b_scale;
  q.requant = true;
  q.a_scale = a_p.scale_at(0);
  q.y_scale = y_p.scale_at(0);
  q.y_zp = y_p.zero_at(0);
  q.lo = quant::quant_min(out_dtype);
  q.hi = quant::quant_max(out_dtype);
  Tensor& y = outputs[0];
  EDGEC_TRY(check_output_dtype(kOp, y, out_dtype));
  EDGEC_TRY(resize_output(kOp, y, {s.out.data(), static_cast<size_t>(s.out_rank)}));
  if (out_dtype == DType::UInt8) {
    run_out<uint8_t>(q, s, y, ctx.num_threads);
  } else {
    run_out<int8_t>(q, s, y, ctx.num_threads);
  }
  return Error::Ok;
}

}  // namespace

std::span<const KernelEntry> quantized_matmul_kernels() {
  const quant::QuantDecls& q = declared<quant::QuantDecls>();
  static const KernelEntry kKernels[] = {
      {declare("matmul_integer", "quantized",
               {{"a"}, {"b"}, {"a_zero_point", OperandKind::Optional}, {"b_zero_point", OperandKind::Optional}}, {},
               {DType::Int8, DType::UInt8}, 0,
               "i32 matmul of (a - a_zero_point) and (b - b_zero_point), numpy semantics (ONNX MatMulInteger)"),
       matmul_integer},
      {declare("qlinear_matmul", "quantized",
               {{"a"}, {"a_scale"}, {"a_zero_point"}, {"b"}, {"b_scale"}, {"b_zero_point"}, {"y_scale"},
                {"y_zero_point"}},
               {q.weights_shape, q.weights_strides, q.weights_blocks, q.weights_block_dims, q.weights_extra},
               {DType::Int8, DType::UInt8}, 0,
               "quantized matmul requantized to y_scale, y_zero_point, numpy semantics (ONNX QLinearMatMul)"),
       qlinear_matmul},
  };
  return kKernels;
}

}  // namespace edgec

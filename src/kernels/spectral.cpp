// Spectral operators: dft, ONNX's DFT, the discrete Fourier transform of
// each signal along one axis of a tensor whose last dim holds one (real) or
// two (real, imaginary) components; the result holds two. ONNX's STFT is
// composed of frames (take), the window (mul) and dft by the importer, and
// MelWeightMatrix is a constant it computes (src/frontends/onnx).
//
// A signal of n points (the `length` attribute, or the axis's size when it
// is 0: a longer signal is truncated, a shorter one padded with zeros) is
// transformed by a mixed-radix Cooley-Tukey FFT over n's prime factors, so
// the work is n times the sum of those factors (a 400-point frame, 2^4 5^2:
// 18 n; a prime n: n^2, the plain DFT), all in double. The twiddles and
// the line being transformed live in a workspace, the call's last result,
// which the shape function sizes (8 n doubles) and the kernel leaves zero.
// `inverse` takes the conjugate twiddles and divides by n; `onesided` keeps
// the first n / 2 + 1 frequencies.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <string>

#include "kernels/families.h"
#include "kernels/kernel_checks.h"

namespace edgec {
namespace {

// The attributes of dft, declared once: the row at the end of this file and
// the kernel read them.
struct SpectralDecls {
  /// The signal axis (the importer makes ONNX's negative axes non-negative);
  /// at most rank - 2 (the last dim holds the components).
  AttrDecl axis = attr_int("axis", 1, AttrRule::NonNegative);
  /// The points of the transform; 0: the axis's size.
  AttrDecl length = attr_int("length", 0, AttrRule::NonNegative);
  AttrDecl inverse = attr_bool("inverse", false);
  AttrDecl onesided = attr_bool("onesided", false);
};

constexpr DTypeSet kDftTypes = {DType::Float32, DType::Float64};
constexpr std::string_view kOp = "dft";

struct Cplx {
  double re, im;
};

inline Cplx mul(Cplx a, Cplx b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }

/// The prime factors of n, smallest first (at most 63 of them).
int factorize(int64_t n, int64_t (&factors)[64]) {
  int count = 0;
  for (int64_t p = 2; p * p <= n; ++p)
    while (n % p == 0) {
      factors[count++] = p;
      n /= p;
    }
  if (n > 1) factors[count++] = n;
  return count;
}

struct Fft {
  int64_t N;               ///< Points of the whole transform.
  const Cplx* tw;          ///< tw[j] = e^(-+2 pi i j / N).
  Cplx* tmp;               ///< Scratch of the largest factor's size.
  const int64_t* factors;  ///< N's prime factors.
};

// out[0, n) = the n-point DFT of in[0], in[s], ..., in[(n - 1) s], where n is
// the product of factors[level...]: the DFTs of the p decimated sequences
// (p = factors[level]) into out's p blocks of m = n / p, then, per k < m,
// X[k + q m] = sum_r W_p^(r q) (W_n^(r k) Y_r[k]) into the same p places.
void fft(const Fft& f, const Cplx* in, int64_t s, Cplx* out, int64_t n, int level) {
  if (n == 1) {
    out[0] = in[0];
    return;
  }
  const int64_t p = f.factors[level], m = n / p;
  for (int64_t r = 0; r < p; ++r) fft(f, in + r * s, s * p, out + r * m, m, level + 1);
  const int64_t step_n = f.N / n, step_p = f.N / p;
  for (int64_t k = 0; k < m; ++k) {
    for (int64_t r = 0; r < p; ++r) f.tmp[r] = mul(out[r * m + k], f.tw[r * k * step_n]);
    if (p == 2) {
      out[k] = {f.tmp[0].re + f.tmp[1].re, f.tmp[0].im + f.tmp[1].im};
      out[m + k] = {f.tmp[0].re - f.tmp[1].re, f.tmp[0].im - f.tmp[1].im};
      continue;
    }
    for (int64_t q = 0; q < p; ++q) {
      Cplx sum{0.0, 0.0};
      for (int64_t r = 0; r < p; ++r) {
        const Cplx t = mul(f.tmp[r], f.tw[((r * q) % p) * step_p]);
        sum.re += t.re;
        sum.im += t.im;
      }
      out[q * m + k] = sum;
    }
  }
}

template <typename T>
void transform(const Tensor& x, Tensor& y, int axis, int64_t n, int64_t bins, bool inverse, double* ws) {
  const int rank = x.rank;
  const int64_t len = std::min(n, x.sizes[axis]);
  const bool complex_in = x.sizes[rank - 1] == 2;
  Cplx* tw = reinterpret_cast<Cplx*>(ws);
  Cplx* line = tw + n;
  Cplx* spectrum = line + n;
  int64_t factors[64];
  factorize(n, factors);
  const double sign = inverse ? 1.0 : -1.0;
  for (int64_t j = 0; j < n; ++j) {
    const double a = 2.0 * std::numbers::pi * static_cast<double>(j) / static_cast<double>(n);
    tw[j] = {std::cos(a), sign * std::sin(a)};
  }
  const Fft f{n, tw, spectrum + n, factors};
  const double scale = inverse ? 1.0 / static_cast<double>(n) : 1.0;

  // The lines: every index of the dims other than the axis and the last.
  int64_t lines = 1;
  for (int d = 0; d < rank - 1; ++d)
    if (d != axis) lines *= x.sizes[d];
  // y is contiguous [..., bins, ..., 2].
  int64_t y_strides[kMaxRank];
  y_strides[rank - 1] = 1;
  for (int d = rank - 2; d >= 0; --d) y_strides[d] = y_strides[d + 1] * (d == rank - 2 ? 2 : y.sizes[d + 1]);
  const T* xd = static_cast<const T*>(x.data);
  T* yd = static_cast<T*>(y.data);
  for (int64_t l = 0; l < lines; ++l) {
    int64_t xo = 0, yo = 0, rest = l;
    for (int d = rank - 2; d >= 0; --d) {
      if (d == axis) continue;
      const int64_t i = rest % x.sizes[d];
      rest /= x.sizes[d];
      xo += i * x.strides[d];
      yo += i * y_strides[d];
    }
    const int64_t cs = x.strides[rank - 1];
    for (int64_t j = 0; j < len; ++j) {
      const T* e = xd + xo + j * x.strides[axis];
      line[j] = {static_cast<double>(e[0]), complex_in ? static_cast<double>(e[cs]) : 0.0};
    }
    for (int64_t j = len; j < n; ++j) line[j] = {0.0, 0.0};
    fft(f, line, 1, spectrum, n, 0);
    for (int64_t k = 0; k < bins; ++k) {
      T* o = yd + yo + k * y_strides[axis];
      o[0] = static_cast<T>(spectrum[k].re * scale);
      o[1] = static_cast<T>(spectrum[k].im * scale);
    }
  }
}

Error dft_kernel(KernelContext&, std::span<const Tensor> inputs, const Attrs& attrs, std::span<Tensor> outputs) {
  EDGEC_TRY(check_arity(kOp, inputs, 1, outputs, 2));
  const Tensor& x = inputs[0];
  if (!kDftTypes.contains(x.dtype))
    return fail(Error::InvalidType, std::string(kOp) + ": expected an f32 or f64 signal, got " +
                                        std::string(dtype_name(x.dtype)));
  EDGEC_TRY(check_output_dtype(kOp, outputs[0], x.dtype));
  EDGEC_TRY(check_output_dtype(kOp, outputs[1], DType::Float64));
  const SpectralDecls& d = declared<SpectralDecls>();
  int64_t axis = 0, length = 0;
  bool inverse = false, onesided = false;
  EDGEC_TRY(read_attr(kOp, attrs, d.axis, axis));
  EDGEC_TRY(read_attr(kOp, attrs, d.length, length));
  EDGEC_TRY(read_attr(kOp, attrs, d.inverse, inverse));
  EDGEC_TRY(read_attr(kOp, attrs, d.onesided, onesided));
  if (x.rank < 2 || (x.sizes[x.rank - 1] != 1 && x.sizes[x.rank - 1] != 2))
    return fail(Error::InvalidArgument, std::string(kOp) + ": expected a signal [..., n, 1] (real) or [..., n, 2] "
                                                           "(complex), got " + shape_string(x.shape()));
  if (axis > x.rank - 2)
    return fail(Error::InvalidArgument, std::string(kOp) + ": expected axis in [0, " + std::to_string(x.rank - 2) +
                                            "] for a signal of rank " + std::to_string(x.rank) + ", got " +
                                            std::to_string(axis));
  const int64_t n = length > 0 ? length : x.sizes[axis];
  if (n < 1)
    return fail(Error::InvalidArgument, std::string(kOp) + ": expected a transform of at least 1 point, got a signal " +
                                            shape_string(x.shape()) + " along axis " + std::to_string(axis));
  const int64_t bins = onesided ? n / 2 + 1 : n;
  int64_t y_shape[kMaxRank];
  for (int i = 0; i < x.rank; ++i) y_shape[i] = x.sizes[i];
  y_shape[axis] = bins;
  y_shape[x.rank - 1] = 2;
  const int64_t ws_shape[] = {8 * n};
  EDGEC_TRY(resize_output(kOp, outputs[0], std::span<const int64_t>(y_shape, static_cast<size_t>(x.rank))));
  EDGEC_TRY(resize_output(kOp, outputs[1], ws_shape));
  double* ws = static_cast<double*>(outputs[1].data);
  if (outputs[0].numel() > 0) {
    if (x.dtype == DType::Float32)
      transform<float>(x, outputs[0], static_cast<int>(axis), n, bins, inverse, ws);
    else
      transform<double>(x, outputs[0], static_cast<int>(axis), n, bins, inverse, ws);
  }
  // The workspace's last contents depend on the last line; zero keeps every
  // result of the call deterministic.
  std::memset(ws, 0, outputs[1].nbytes());
  return Error::Ok;
}

}  // namespace

std::span<const KernelEntry> spectral_kernels() {
  const SpectralDecls& d = declared<SpectralDecls>();
  static const KernelEntry kSpectralKernels[] = {
      {declare("dft", "linalg", {{"self"}}, {d.axis, d.length, d.inverse, d.onesided}, kDftTypes, 0,
               "ONNX DFT along axis of [..., n, 1 or 2] (real or complex) to [..., bins, 2], and a workspace"),
       dft_kernel},
  };
  return kSpectralKernels;
}

}  // namespace edgec

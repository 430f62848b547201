// exp, tanh, erf and GELU for float32 written so that the compiler
// vectorizes the loops that call them. libm's expf/tanhf/erff are scalar
// calls (glibc only exposes vector variants under -ffast-math), which made
// exp, sigmoid, tanh, erf and gelu several times slower than numpy's and
// torch's SIMD versions.
//
// exp and tanh use Cephes' single-precision polynomials (about 1 ulp). erfc
// is e^-t^2 times a polynomial fitted (least squares on Chebyshev nodes, in
// float64) to erfc(t) e^t^2, with e^-t^2 computed from an exact split of t^2;
// a few ulps everywhere, also where erfc is tiny. tests/kernels/
// elementwise_test.cpp sweeps float32 bit patterns against double precision.
//
// Why the code looks the way it does: under the default -ftrapping-math GCC
// only vectorizes a loop whose body is one basic block, and it turns float
// ternaries into branches whenever it can sink work into one arm (e.g. the
// whole polynomial into the "not NaN" arm). So clamps are done on integers
// (std::min/max of ints are branch-free), float->int conversions only see
// in-range values (they are undefined otherwise), and the final choices are
// bit masks, not ternaries.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

// The helpers must inline into the caller's loop: an out-of-line call (GCC
// stops inlining vexp once a file calls it in many places) is a loop the
// vectorizer gives up on.
#if defined(__GNUC__)
#define EDGEC_VECTOR_INLINE [[gnu::always_inline]] inline
#else
#define EDGEC_VECTOR_INLINE inline
#endif

namespace edgec {

/// Float bits as an int that orders like the float (negative floats have
/// their magnitude bits flipped); self-inverse. NaNs order beyond +-inf.
EDGEC_VECTOR_INLINE int32_t float_order_bits(int32_t bits) { return bits ^ ((bits >> 31) & 0x7fffffff); }

/// `c ? a : b` as a bit-mask blend, which the compiler keeps branch-free.
EDGEC_VECTOR_INLINE float blend(bool c, float a, float b) {
  const uint32_t mask = 0u - static_cast<uint32_t>(c);
  return std::bit_cast<float>((std::bit_cast<uint32_t>(a) & mask) |
                              (std::bit_cast<uint32_t>(b) & ~mask));
}

/// e^x: inf above ~88.72, gradual underflow to 0 below ~-87.3, NaN stays NaN.
EDGEC_VECTOR_INLINE float vexp(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  // ln 2 in two parts; kLn2Hi has few enough bits that k * kLn2Hi is exact.
  constexpr float kLn2Hi = 0.693359375f;
  constexpr float kLn2Lo = -2.12194440e-4f;
  // Beyond [-104, 89] e^x is already 0 or inf; clamping there keeps k in
  // [-150, 128]. NaN is clamped too (to either end) and restored at the end.
  const int32_t lo = float_order_bits(std::bit_cast<int32_t>(-104.0f));
  const int32_t hi = float_order_bits(std::bit_cast<int32_t>(89.0f));
  const int32_t ordered = float_order_bits(std::bit_cast<int32_t>(x));
  const float xc = std::bit_cast<float>(float_order_bits(std::min(std::max(ordered, lo), hi)));

  const float k = std::nearbyint(xc * kLog2e);
  const float r = (xc - k * kLn2Hi) - k * kLn2Lo;  // |r| <= ln2 / 2
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  // 2^k as two normal powers of two: the first product is exact, the second
  // rounds once, underflowing gradually or overflowing to inf where e^x does.
  const int32_t ki = static_cast<int32_t>(k);
  const int32_t k1 = ki >> 1;
  const int32_t k2 = ki - k1;
  const float s1 = std::bit_cast<float>(static_cast<uint32_t>(k1 + 127) << 23);
  const float s2 = std::bit_cast<float>(static_cast<uint32_t>(k2 + 127) << 23);
  return blend(x != x, x, p * s1 * s2);
}

/// tanh(x): an odd polynomial below |x| = 0.625, where 1 - 2/(e^2|x| + 1)
/// would cancel, and that formula above it.
EDGEC_VECTOR_INLINE float vtanh(float x) {
  const float ax = std::fabs(x);
  const float z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const float small = p * z * x + x;
  const float large = 1.0f - 2.0f / (vexp(2.0f * ax) + 1.0f);
  // copysign also keeps tanh(-0) = -0, which the polynomial would lose.
  return std::copysign(blend(ax < 0.625f, small, large), x);
}

namespace detail {

/// erfc(t) e^(t^2) for t >= 0: smooth, from 1 at 0 down to ~1/(t sqrt(pi)).
/// A polynomial in s = 1/(1 + t/2), relative error ~3e-7 on [0, 11].
EDGEC_VECTOR_INLINE float erfc_scaled(float t) {
  const float s = 1.0f / (1.0f + 0.5f * t);
  float p = 1.066416595e-02f;
  p = p * s - 1.143585294e-01f;
  p = p * s + 4.078495502e-01f;
  p = p * s - 6.418310404e-01f;
  p = p * s + 3.979007602e-01f;
  p = p * s - 8.590509742e-02f;
  p = p * s + 2.213359773e-01f;
  p = p * s + 2.395183444e-01f;
  p = p * s + 2.827564776e-01f;
  p = p * s + 2.820693851e-01f;
  return s * p;
}

/// e^(-scale * t^2) for t >= 0, scale 1 or 0.5. t = hi + lo with hi of 12
/// significant bits, so hi^2 is exact and the rounding of t^2 (which e^-t^2
/// would magnify by t^2) never happens.
EDGEC_VECTOR_INLINE float exp_neg_square(float t, float scale) {
  const float hi = std::bit_cast<float>(std::bit_cast<uint32_t>(t) & 0xFFFFF000u);
  const float lo = t - hi;
  return vexp(-scale * (hi * hi)) * vexp(-scale * (lo * (t + hi)));
}

/// min(t, limit) for t >= 0 (or NaN, which becomes `limit`) as an integer
/// clamp, which stays branch-free.
EDGEC_VECTOR_INLINE float clamp_nonneg(float t, float limit) {
  return std::bit_cast<float>(
      std::min(std::bit_cast<int32_t>(t), std::bit_cast<int32_t>(limit)));
}

}  // namespace detail

/// erf(x): an odd polynomial below |x| = 0.8, 1 - erfc(|x|) above.
EDGEC_VECTOR_INLINE float verf(float x) {
  const float ax = std::fabs(x);
  const float z = x * x;
  float p = -6.563830539e-04f;
  p = p * z + 5.090029445e-03f;
  p = p * z - 2.682382055e-02f;
  p = p * z + 1.128319204e-01f;
  p = p * z - 3.761260808e-01f;
  p = p * z + 1.128379107e+00f;
  const float small = x * p;
  // Past 11, erfc(t) < 1e-53 and 1 - erfc is 1; the clamp keeps inf out.
  const float t = detail::clamp_nonneg(ax, 11.0f);
  const float erfc = detail::exp_neg_square(t, 1.0f) * detail::erfc_scaled(t);
  const float large = std::copysign(1.0f - erfc, x);
  return blend(ax < 0.8f, small, blend(x != x, x, large));
}

/// GELU 0.5 x (1 + erf(x / sqrt2)) = 0.5 x erfc(-x / sqrt2). For x < 0 the
/// erfc is computed directly (1 + erf would cancel to nothing); e^(-x^2/2)
/// is taken from x itself, not from the rounded x / sqrt2.
EDGEC_VECTOR_INLINE float vgelu_erf(float x) {
  // Past |x| = 16 the erfc factor is 0 (x < 0) or 2 (x > 0) in float.
  const float ax = detail::clamp_nonneg(std::fabs(x), 16.0f);
  const float erfc = detail::exp_neg_square(ax, 0.5f) *
                     detail::erfc_scaled(ax * 0.70710678118654752f);
  // NaN propagates through the multiplication by x.
  return 0.5f * x * blend(x < 0, erfc, 2.0f - erfc);
}

// float64 overloads: the C library in double. float64 is computed as itself
// (elementwise_common.h) and is for accuracy, not speed, so these are the
// plain scalar calls that the float versions above replace.
inline double vexp(double x) { return std::exp(x); }
inline double vtanh(double x) { return std::tanh(x); }
inline double verf(double x) { return std::erf(x); }
/// 0.5 x erfc(-x / sqrt2): erfc keeps the tiny results of large negative x.
inline double vgelu_erf(double x) { return 0.5 * x * std::erfc(-x * 0.70710678118654752440); }

}  // namespace edgec

// IEEE 754 binary16 storage. float16 tensors are stored as half and computed
// in float32; these conversions round to nearest even like numpy's. And
// bfloat16 (the upper half of a float32's bits), a storage type that cast
// converts: widening is exact, narrowing rounds to nearest even as ONNX's
// Cast (opset 19 on) and PyTorch do, a NaN stays a quiet NaN of its sign.
#pragma once

#include <cstdint>
#include <cstring>

namespace edgec {

struct Half {
  uint16_t bits = 0;
};

inline float half_to_float(Half h) {
  const uint32_t sign = static_cast<uint32_t>(h.bits & 0x8000u) << 16;
  uint32_t exp = (h.bits >> 10) & 0x1fu;
  uint32_t mant = h.bits & 0x3ffu;
  uint32_t out;
  if (exp == 0) {
    if (mant == 0) {
      out = sign;
    } else {  // subnormal: renormalize
      exp = 127 - 15 + 1;
      while ((mant & 0x400u) == 0) {
        mant <<= 1;
        --exp;
      }
      mant &= 0x3ffu;
      out = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 0x1f) {
    out = sign | 0x7f800000u | (mant << 13);
  } else {
    out = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &out, sizeof f);
  return f;
}

inline Half float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or nan
    const uint16_t nan_bit = abs > 0x7f800000u ? 0x200u : 0u;
    return Half{static_cast<uint16_t>(sign | 0x7c00u | nan_bit)};
  }
  if (abs >= 0x477ff000u) return Half{static_cast<uint16_t>(sign | 0x7c00u)};  // overflow
  if (abs < 0x38800000u) {  // subnormal or zero in half
    if (abs < 0x33000000u) return Half{sign};
    const uint32_t exp = abs >> 23;
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - exp;  // value = mant * 2^(exp-150) = keep * 2^-24
    const uint32_t rem = mant & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1);
    uint32_t keep = mant >> shift;
    if (rem > halfway || (rem == halfway && (keep & 1u))) ++keep;
    return Half{static_cast<uint16_t>(sign | keep)};
  }
  uint32_t h = ((abs >> 13) - ((127u - 15u) << 10));
  const uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return Half{static_cast<uint16_t>(sign | h)};
}

inline float bfloat16_to_float(uint16_t bits) {
  const uint32_t x = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}

inline uint16_t float_to_bfloat16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/// A double rounded once to bfloat16 (not through a float32 rounding,
/// which can round a value just off a halfway point onto it): when the
/// float32 nearest `d` is a bfloat16 halfway point that `d` is not, `d`
/// lies on the side of it the float32 rounding moved it away from.
inline uint16_t double_to_bfloat16(double d) {
  const float f = static_cast<float>(d);
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  if ((x & 0xffffu) == 0x8000u && (x & 0x7fffffffu) < 0x7f800000u && static_cast<double>(f) != d) {
    const bool away = (d < 0 ? -d : d) > (f < 0 ? -static_cast<double>(f) : static_cast<double>(f));
    return static_cast<uint16_t>((x >> 16) + (away ? 1u : 0u));
  }
  return float_to_bfloat16(f);
}

}  // namespace edgec

// Float16 in the kernels: stored as Half, computed in f32. widen() reads a
// stored element as the type it is computed in and narrow<T>() stores a
// computed float as T; every kernel that handles f16 element by element
// converts with these two.
#pragma once

#include <type_traits>

#include "base/dtype.h"
#include "base/half.h"

namespace edgec {

/// The type an element of storage type T is computed in: float for f16, T
/// itself otherwise.
template <typename T>
using Compute = std::conditional_t<std::is_same_v<T, Half>, float, T>;

template <typename T>
inline Compute<T> widen(T v) {
  if constexpr (std::is_same_v<T, Half>) {
    return half_to_float(v);
  } else {
    return v;
  }
}

template <typename T>
inline T narrow(float v) {
  if constexpr (std::is_same_v<T, Half>) {
    return float_to_half(v);
  } else {
    return static_cast<T>(v);
  }
}

/// A computed double stored as double (float64 is computed as itself; the
/// float overload above would round it to float).
template <typename T>
  requires std::is_same_v<T, double>
inline T narrow(double v) {
  return v;
}

/// Runs a float kernel's typed body, `fn.template operator()<T>()`, with T the
/// storage type of `dtype`: float for f32, Half for f16 (the kernel has
/// refused every other dtype before).
template <typename Fn>
inline void dispatch_float(DType dtype, Fn&& fn) {
  if (dtype == DType::Float32) {
    fn.template operator()<float>();
  } else {
    fn.template operator()<Half>();
  }
}

}  // namespace edgec

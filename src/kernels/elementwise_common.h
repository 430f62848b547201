// Shared machinery of the elementwise kernels: dtype dispatch over type
// lists, float16 staging, and the row loops that StridedLoop drives.
//
// A kernel validates its operands, sizes its output, dispatches on dtype and
// hands map_unary/map_binary/map_ternary a functor on compute types: float16
// is widened to float32 in blocks on the stack (so the functor's float loop is
// reused and vectorized) and narrowed back on store; every other dtype is
// computed as itself.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#if defined(__F16C__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

#include "base/attrs.h"
#include "base/error.h"
#include "base/half.h"
#include "kernels/broadcast.h"
#include "kernels/kernel_checks.h"
#include "kernels/registry.h"
#include "kernels/tensor.h"

namespace edgec {

// ---------------------------------------------------------------------------
// Kernel lists of the elementwise files; elementwise_kernels() joins them.

std::span<const KernelEntry> elementwise_binary_kernels();  // elementwise.cpp
std::span<const KernelEntry> elementwise_unary_kernels();   // elementwise_unary.cpp
std::span<const KernelEntry> elementwise_copy_kernels();    // elementwise_cast.cpp

// ---------------------------------------------------------------------------
// Dtype dispatch.

template <typename... Ts>
struct TypeList {};

// Float64Types is what the float math takes: float16 computed in float32,
// double computed as itself (never through float).
using Float64Types = TypeList<float, Half, double>;
using IntegerTypes = TypeList<int64_t, int32_t, int16_t, int8_t, uint64_t, uint32_t, uint16_t, uint8_t>;
using NumericTypes = TypeList<float, Half, double, int64_t, int32_t, int16_t, int8_t, uint64_t, uint32_t,
                              uint16_t, uint8_t>;
using AllTypes = TypeList<float, Half, double, int64_t, int32_t, int16_t, int8_t, uint64_t, uint32_t,
                          uint16_t, uint8_t, bool>;
using BoolTypes = TypeList<bool>;

template <typename T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, float>) return DType::Float32;
  else if constexpr (std::is_same_v<T, Half>) return DType::Float16;
  else if constexpr (std::is_same_v<T, int64_t>) return DType::Int64;
  else if constexpr (std::is_same_v<T, int32_t>) return DType::Int32;
  else if constexpr (std::is_same_v<T, int8_t>) return DType::Int8;
  else if constexpr (std::is_same_v<T, uint8_t>) return DType::UInt8;
  else if constexpr (std::is_same_v<T, double>) return DType::Float64;
  else if constexpr (std::is_same_v<T, int16_t>) return DType::Int16;
  else if constexpr (std::is_same_v<T, uint16_t>) return DType::UInt16;
  else if constexpr (std::is_same_v<T, uint32_t>) return DType::UInt32;
  else if constexpr (std::is_same_v<T, uint64_t>) return DType::UInt64;
  else {
    static_assert(std::is_same_v<T, bool>, "no DType for this type");
    return DType::Bool;
  }
}

template <typename... Ts>
constexpr bool contains_dtype(TypeList<Ts...>, DType dtype) {
  return ((dtype == dtype_of<Ts>()) || ...);
}

/// "f32, f16" for messages.
template <typename... Ts>
std::string dtype_names(TypeList<Ts...>) {
  std::string s;
  ((s += (s.empty() ? "" : ", "), s += dtype_name(dtype_of<Ts>())), ...);
  return s;
}

/// Calls fn(std::type_identity<T>{}) for the T of `List` whose dtype is
/// `dtype`. Returns false (calling nothing) when `List` has no such T.
template <typename... Ts, typename Fn>
bool dispatch_dtype(TypeList<Ts...>, DType dtype, Fn&& fn) {
  return ((dtype == dtype_of<Ts>() && (fn(std::type_identity<Ts>{}), true)) || ...);
}

/// Calls fn(std::type_identity<U>{}) with the unsigned type U of `dtype`'s
/// size: kernels that only move elements (where, clone) dispatch on size,
/// not dtype. `dtype` must be valid (checked by the caller).
template <typename Fn>
void dispatch_element_size(DType dtype, Fn&& fn) {
  switch (dtype_size(dtype)) {
    case 1: fn(std::type_identity<uint8_t>{}); break;
    case 2: fn(std::type_identity<uint16_t>{}); break;
    case 4: fn(std::type_identity<uint32_t>{}); break;
    default: fn(std::type_identity<uint64_t>{}); break;
  }
}

/// The type a storage type is computed in: float16 in float32.
template <typename T>
struct ComputeOf {
  using type = T;
};
template <>
struct ComputeOf<Half> {
  using type = float;
};
template <typename T>
using compute_t = typename ComputeOf<T>::type;

// A bool tensor read from a file may hold bytes other than 0 and 1; reading
// such a byte as `bool` is undefined, so bools are read as bytes.
template <typename T>
inline T load(const T* p) {
  return *p;
}
template <>
inline bool load<bool>(const bool* p) {
  uint8_t byte;
  std::memcpy(&byte, p, 1);
  return byte != 0;
}

// ---------------------------------------------------------------------------
// Integer arithmetic that wraps like numpy instead of overflowing (signed
// overflow is undefined in C++): computed in the unsigned type of the same
// width, whose conversion back is modular.

template <typename T>
inline T wrapping_add(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <typename T>
inline T wrapping_sub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}
template <typename T>
inline T wrapping_mul(T a, T b) {
  // At least `unsigned`: narrower unsigned types promote to int, whose
  // product could overflow.
  using U = std::make_unsigned_t<T>;
  using Wide = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
  return static_cast<T>(static_cast<U>(static_cast<Wide>(static_cast<U>(a)) *
                                       static_cast<Wide>(static_cast<U>(b))));
}
template <typename T>
inline T wrapping_neg(T a) {
  return wrapping_sub(T{0}, a);
}

/// Float to integer, truncating toward zero like numpy's astype, with the
/// cases C++ leaves undefined defined: NaN gives 0, values beyond the range
/// saturate to its ends.
template <typename To, typename From>
inline To saturating_float_to_int(From v) {
  static_assert(std::is_integral_v<To> && std::is_floating_point_v<From>);
  constexpr double kMin = static_cast<double>(std::numeric_limits<To>::min());
  // max + 1 is a power of two, exact in double (max itself may not be).
  constexpr double kMaxPlusOne = static_cast<double>(std::numeric_limits<To>::max() / 2 + 1) * 2.0;
  const double d = static_cast<double>(v);
  if (d != d) return 0;
  if (d < kMin) return std::numeric_limits<To>::min();
  if (d >= kMaxPlusOne) return std::numeric_limits<To>::max();
  return static_cast<To>(d);
}

// ---------------------------------------------------------------------------
// Kernel checks (elementwise_common.cpp). Each fails with a message that
// starts with the op name.

/// Checks the operand counts and each input's layout.
Error check_operands(std::string_view op, std::span<const Tensor> inputs, size_t num_inputs,
                     std::span<Tensor> outputs, size_t num_outputs);

/// InvalidType unless `a` and `b` have the same dtype.
Error check_same_dtype(std::string_view op, const Tensor& a, const Tensor& b);

/// InvalidType naming the dtypes `op` accepts.
template <typename... Ts>
Error check_dtype_in(std::string_view op, const Tensor& t, TypeList<Ts...> list) {
  if (contains_dtype(list, t.dtype)) return Error::Ok;
  return fail(Error::InvalidType, std::string(op) + ": expected dtype " + dtype_names(list) +
                                      ", got " + std::string(dtype_name(t.dtype)));
}

/// The dtypes of a type list, for an operator's declaration.
template <typename... Ts>
DTypeSet dtype_set(TypeList<Ts...>) {
  return DTypeSet{dtype_of<Ts>()...};
}

/// The declaration of an elementwise operator (docs: "Adding an operator").
OpDecl elementwise_decl(std::string_view name, std::string_view overload, std::vector<OperandDecl> operands,
                        DTypeSet dtypes, ResultRule result, std::string_view summary,
                        std::vector<AttrDecl> attrs = {});

/// Reads a float attribute (an int is accepted); `dflt` when absent.
Error read_float_attr(std::string_view op, const Attrs& attrs, std::string_view name, double dflt,
                      double& value);

/// Reads a string attribute that must be one of `choices`; `dflt` when absent.
Error read_choice_attr(std::string_view op, const Attrs& attrs, std::string_view name,
                       std::string_view dflt, std::initializer_list<std::string_view> choices,
                       std::string_view& value);

// ---------------------------------------------------------------------------
// float16 staging.

/// Rows are processed in blocks of this many elements when float16 operands
/// are staged as float32 on the stack.
inline constexpr int64_t kStageBlock = 256;

inline void widen_halves(const Half* src, int64_t stride, int64_t n, float* dst) {
  int64_t i = 0;
#if defined(__F16C__)
  if (stride == 1) {
    for (; i + 8 <= n; i += 8) {
      const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
      _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
    }
  }
#elif defined(__aarch64__)
  // ARMv8-A converts halves in its baseline (fcvtl); Half is a struct of
  // its bits, read as such.
  if (stride == 1) {
    for (; i + 4 <= n; i += 4) vst1q_f32(dst + i, vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(&src[i].bits))));
  }
#endif
  for (; i < n; ++i) dst[i] = half_to_float(src[i * stride]);
}

inline void narrow_to_halves(const float* src, int64_t n, Half* dst) {
  int64_t i = 0;
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
  }
#elif defined(__aarch64__)
  // Rounds to nearest even (FPCR's default mode), as float_to_half does.
  for (; i + 4 <= n; i += 4) vst1_u16(&dst[i].bits, vreinterpret_u16_f16(vcvt_f16_f32(vld1q_f32(src + i))));
#endif
  for (; i < n; ++i) dst[i] = float_to_half(src[i]);
}

/// An input's block in its compute type: float16 is widened into a stack
/// buffer (a broadcast scalar stays a single value), others are used in place.
template <typename T>
struct InputBlock {
  const T* ptr = nullptr;
  int64_t stride = 0;
  void stage(const T* src, int64_t src_stride, int64_t /*n*/) {
    ptr = src;
    stride = src_stride;
  }
};
template <>
struct InputBlock<Half> {
  float buf[kStageBlock];
  const float* ptr = buf;
  int64_t stride = 1;
  void stage(const Half* src, int64_t src_stride, int64_t n) {
    stride = src_stride == 0 ? 0 : 1;
    widen_halves(src, src_stride, src_stride == 0 ? 1 : n, buf);
  }
};

/// An output block in its compute type; float16 is narrowed on commit.
template <typename T>
struct OutputBlock {
  T* ptr = nullptr;
  void begin(T* dst) { ptr = dst; }
  void commit(T* /*dst*/, int64_t /*n*/) {}
};
template <>
struct OutputBlock<Half> {
  float buf[kStageBlock];
  float* ptr = buf;
  void begin(Half* /*dst*/) {}
  void commit(Half* dst, int64_t n) { narrow_to_halves(buf, n, dst); }
};

template <typename... Ts>
inline constexpr bool kAnyHalf = (std::is_same_v<Ts, Half> || ...);

// ---------------------------------------------------------------------------
// Row loops on compute types. The output is contiguous (stride 1); stride-1
// and stride-0 inputs get their own loops so the compiler vectorizes them.
// They are flattened: the functor and everything it calls is inlined into the
// loop, which is what lets a large functor (gelu, erf) vectorize at all.

#if defined(__GNUC__)
#define EDGEC_FLATTEN [[gnu::flatten]]
#else
#define EDGEC_FLATTEN
#endif

template <typename O, typename A, typename F>
EDGEC_FLATTEN inline void unary_row_plain(O* o, const A* a, int64_t sa, int64_t n, const F& f) {
  if (sa == 1) {
    for (int64_t i = 0; i < n; ++i) o[i] = f(load(a + i));
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = f(load(a + i * sa));
  }
}

template <typename O, typename A, typename B, typename F>
EDGEC_FLATTEN inline void binary_row_plain(O* o, const A* a, int64_t sa, const B* b, int64_t sb, int64_t n,
                             const F& f) {
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) o[i] = f(load(a + i), load(b + i));
  } else if (sa == 1 && sb == 0) {
    const B bv = load(b);
    for (int64_t i = 0; i < n; ++i) o[i] = f(load(a + i), bv);
  } else if (sa == 0 && sb == 1) {
    const A av = load(a);
    for (int64_t i = 0; i < n; ++i) o[i] = f(av, load(b + i));
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = f(load(a + i * sa), load(b + i * sb));
  }
}

template <typename O, typename A, typename B, typename C, typename F>
EDGEC_FLATTEN inline void ternary_row_plain(O* o, const A* a, int64_t sa, const B* b, int64_t sb, const C* c,
                              int64_t sc, int64_t n, const F& f) {
  if (sa == 1 && sb == 1 && sc == 1) {
    for (int64_t i = 0; i < n; ++i) o[i] = f(load(a + i), load(b + i), load(c + i));
  } else if (sa == 1 && sb == 1 && sc == 0) {
    const C cv = load(c);
    for (int64_t i = 0; i < n; ++i) o[i] = f(load(a + i), load(b + i), cv);
  } else if (sa == 1 && sb == 0 && sc == 1) {
    const B bv = load(b);
    for (int64_t i = 0; i < n; ++i) o[i] = f(load(a + i), bv, load(c + i));
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = f(load(a + i * sa), load(b + i * sb), load(c + i * sc));
  }
}

template <typename O, typename A, typename F>
inline void unary_row(O* o, const A* a, int64_t sa, int64_t n, const F& f) {
  if constexpr (!kAnyHalf<O, A>) {
    unary_row_plain(o, a, sa, n, f);
  } else {
    InputBlock<A> ab;
    OutputBlock<O> ob;
    for (int64_t j = 0; j < n; j += kStageBlock) {
      const int64_t m = std::min(kStageBlock, n - j);
      ab.stage(a + j * sa, sa, m);
      ob.begin(o + j);
      unary_row_plain(ob.ptr, ab.ptr, ab.stride, m, f);
      ob.commit(o + j, m);
    }
  }
}

template <typename O, typename A, typename B, typename F>
inline void binary_row(O* o, const A* a, int64_t sa, const B* b, int64_t sb, int64_t n,
                       const F& f) {
  if constexpr (!kAnyHalf<O, A, B>) {
    binary_row_plain(o, a, sa, b, sb, n, f);
  } else {
    InputBlock<A> ab;
    InputBlock<B> bb;
    OutputBlock<O> ob;
    for (int64_t j = 0; j < n; j += kStageBlock) {
      const int64_t m = std::min(kStageBlock, n - j);
      ab.stage(a + j * sa, sa, m);
      bb.stage(b + j * sb, sb, m);
      ob.begin(o + j);
      binary_row_plain(ob.ptr, ab.ptr, ab.stride, bb.ptr, bb.stride, m, f);
      ob.commit(o + j, m);
    }
  }
}

// ---------------------------------------------------------------------------
// Whole-tensor maps. `out` must already be resized to the broadcast shape of
// the inputs; O and the input types are storage types, `f` takes and returns
// compute types.

template <typename O, typename A, typename F>
void map_unary(const KernelContext& ctx, const Tensor& a, Tensor& out, const F& f) {
  const StridedLoop<2> loop(out.shape(), {&out, &a});
  O* o = out.data_as<O>();
  const A* ap = a.data_as<A>();
  loop.run_rows(ctx.num_threads, [&](const auto& off, const auto& st, int64_t n) {
    unary_row(o + off[0], ap + off[1], st[1], n, f);
  });
}

template <typename O, typename A, typename B, typename F>
void map_binary(const KernelContext& ctx, const Tensor& a, const Tensor& b, Tensor& out,
                const F& f) {
  const StridedLoop<3> loop(out.shape(), {&out, &a, &b});
  O* o = out.data_as<O>();
  const A* ap = a.data_as<A>();
  const B* bp = b.data_as<B>();
  loop.run_rows(ctx.num_threads, [&](const auto& off, const auto& st, int64_t n) {
    binary_row(o + off[0], ap + off[1], st[1], bp + off[2], st[2], n, f);
  });
}

/// No float16 staging: ternary kernels (where) only move elements.
template <typename O, typename A, typename B, typename C, typename F>
void map_ternary(const KernelContext& ctx, const Tensor& a, const Tensor& b, const Tensor& c,
                 Tensor& out, const F& f) {
  static_assert(!kAnyHalf<O, A, B, C>, "stage float16 operands or move them as uint16_t");
  const StridedLoop<4> loop(out.shape(), {&out, &a, &b, &c});
  O* o = out.data_as<O>();
  const A* ap = a.data_as<A>();
  const B* bp = b.data_as<B>();
  const C* cp = c.data_as<C>();
  loop.run_rows(ctx.num_threads, [&](const auto& off, const auto& st, int64_t n) {
    ternary_row_plain(o + off[0], ap + off[1], st[1], bp + off[2], st[2], cp + off[3], st[3], n,
                      f);
  });
}

/// True if `pred` holds for any element of `t`, a tensor of T (not float16).
/// Kernels use it to reject data before computing, e.g. an integer divisor
/// of 0.
template <typename T, typename Pred>
bool any_element(const Tensor& t, const Pred& pred) {
  const StridedLoop<1> loop(t.shape(), {&t});
  const T* p = t.data_as<T>();
  bool found = false;
  loop.for_each_row(0, loop.numel(), [&](const auto& off, const auto& st, int64_t n) {
    const T* row = p + off[0];
    bool hit = false;
    for (int64_t i = 0; i < n; ++i) hit |= pred(load(row + i * st[0]));
    found |= hit;
  });
  return found;
}

}  // namespace edgec

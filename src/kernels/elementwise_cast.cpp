// Kernels that convert or move elements: cast between any two dtypes, and
// clone (a copy into a contiguous output).
//
// cast follows numpy's astype: float to integer truncates toward zero,
// integer to integer wraps, to bool tests != 0, from bool gives 0 or 1. What
// C++ leaves undefined (NaN or out-of-range float to integer) is defined
// here: NaN gives 0 and out-of-range values saturate.
//
// bfloat16 is a storage type that only cast converts and clone copies (its
// bits in uint16_t): to another dtype through float32, which holds every
// bfloat16 exactly; from one rounding to nearest even, once (half.h; 64-bit
// integers past 2^53 are first rounded to float64).
#include <type_traits>

#include "kernels/elementwise_common.h"

namespace edgec {
namespace {

/// One element from compute type From to compute type To.
template <typename To, typename From>
To convert_value(From v) {
  if constexpr (std::is_same_v<To, From>) return v;
  else if constexpr (std::is_same_v<To, bool>) return v != From(0);
  else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>)
    return saturating_float_to_int<To>(v);
  else return static_cast<To>(v);  // modular between integers (C++20), rounding to float
}

/// Copies `x` into `out` (same dtype, already sized) as raw elements.
void copy_elements(const KernelContext& ctx, const Tensor& x, Tensor& out) {
  dispatch_element_size(x.dtype, [&](auto tag) {
    using U = typename decltype(tag)::type;
    map_unary<U, U>(ctx, x, out, [](U v) { return v; });
  });
}

Error clone_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& /*attrs*/,
                   std::span<Tensor> outputs) {
  constexpr std::string_view op = "clone";
  EDGEC_TRY(check_operands(op, inputs, 1, outputs, 1));
  const Tensor& x = inputs[0];
  Tensor& out = outputs[0];
  if (x.dtype != DType::BFloat16) EDGEC_TRY(check_dtype_in(op, x, AllTypes{}));
  EDGEC_TRY(check_output_dtype(op, out, x.dtype));
  EDGEC_TRY(resize_output(op, out, x.shape()));
  copy_elements(ctx, x, out);
  return Error::Ok;
}

/// A cast to or from bfloat16 (not both: equal dtypes are a copy).
void cast_bfloat16(const KernelContext& ctx, const Tensor& x, DType to, Tensor& out) {
  if (x.dtype == DType::BFloat16) {
    dispatch_dtype(AllTypes{}, to, [&](auto to_tag) {
      using To = typename decltype(to_tag)::type;
      map_unary<To, uint16_t>(ctx, x, out, [](uint16_t bits) {
        return convert_value<compute_t<To>>(bfloat16_to_float(bits));
      });
    });
    return;
  }
  dispatch_dtype(AllTypes{}, x.dtype, [&](auto from_tag) {
    using From = typename decltype(from_tag)::type;
    map_unary<uint16_t, From>(ctx, x, out, [](compute_t<From> v) -> uint16_t {
      if constexpr (std::is_same_v<From, bool>) {
        return float_to_bfloat16(v ? 1.0f : 0.0f);
      } else if constexpr (std::is_same_v<compute_t<From>, float>) {
        return float_to_bfloat16(v);
      } else {
        return double_to_bfloat16(static_cast<double>(v));
      }
    });
  });
}

Error cast_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                  std::span<Tensor> outputs) {
  constexpr std::string_view op = "cast";
  EDGEC_TRY(check_operands(op, inputs, 1, outputs, 1));
  const Tensor& x = inputs[0];
  Tensor& out = outputs[0];

  // Target dtype.
  const AttrValue* attr = attrs.find("dtype");
  const DType* to = attr == nullptr ? nullptr : std::get_if<DType>(attr);
  if (to == nullptr || !(contains_dtype(AllTypes{}, *to) || *to == DType::BFloat16)) {
    return fail(Error::InvalidArgument,
                "cast: expected a dtype attribute 'dtype', got " +
                    (attr == nullptr ? std::string("none")
                                     : std::string(attr_kind_name(attr_kind(*attr)))));
  }
  if (x.dtype != DType::BFloat16) EDGEC_TRY(check_dtype_in(op, x, AllTypes{}));
  EDGEC_TRY(check_output_dtype(op, out, *to));

  // Shape and convert.
  EDGEC_TRY(resize_output(op, out, x.shape()));
  if (x.dtype == *to) {
    copy_elements(ctx, x, out);
    return Error::Ok;
  }
  if (x.dtype == DType::BFloat16 || *to == DType::BFloat16) {
    cast_bfloat16(ctx, x, *to, out);
    return Error::Ok;
  }
  dispatch_dtype(AllTypes{}, x.dtype, [&](auto from_tag) {
    using From = typename decltype(from_tag)::type;
    dispatch_dtype(AllTypes{}, *to, [&](auto to_tag) {
      using To = typename decltype(to_tag)::type;
      map_unary<To, From>(ctx, x, out, [](compute_t<From> v) {
        return convert_value<compute_t<To>>(v);
      });
    });
  });
  return Error::Ok;
}


}  // namespace

std::span<const KernelEntry> elementwise_copy_kernels() {
  static const KernelEntry kCopyKernels[] = {
      {elementwise_decl("cast", "default", {{"self"}}, dtype_set(AllTypes{}) | DTypeSet{DType::BFloat16},
                        ResultRule::Custom,
                        "converts to dtype (float to int truncates toward zero; to bf16 rounds to nearest even)",
                        {required(attr_dtype("dtype", DType::Float32))}),
       cast_kernel},
      {elementwise_decl("clone", "default", {{"self"}}, dtype_set(AllTypes{}) | DTypeSet{DType::BFloat16},
                        ResultRule::SameAsInput, "a contiguous copy"),
       clone_kernel},
  };
  return kCopyKernels;
}

}  // namespace edgec

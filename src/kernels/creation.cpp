// Creation kernels: tensors made from attributes alone (no tensor inputs).
// The output's dtype, chosen by the caller, decides the element type.
#include <cmath>
#include <string>

#include "base/half.h"
#include "kernels/families.h"
#include "kernels/shape_common.h"

namespace edgec {
namespace {

using namespace shape_detail;

// The attributes of the family, declared once: the rows at the end of this
// file and the kernels read them.
struct CreationDecls {
  AttrDecl start = attr_float("start", 0);
  AttrDecl end = required(attr_float("end", 0));
  AttrDecl step = attr_float("step", 1, AttrRule::NonZero);
  AttrDecl shape = required(attr_ints("shape", AttrRule::NonNegative));
  AttrDecl value = attr_float("value", 0);
  AttrDecl dtype = required(attr_dtype("dtype", DType::Float32));
  AttrDecl seed = attr_int("seed", 0);
};

// arange's results are numbers; full fills any dtype.
constexpr DTypeSet kArangeTypes = kNumericDTypes;

// The operator table gives these ops a `dtype` attribute and allocates the
// output from it; the kernel writes the output's dtype and checks the two
// agree when the attribute is there (the kernel itself does without it).
Error check_dtype_attr(std::string_view op, const Attrs& attrs, const Tensor& out) {
  const AttrValue* v = attrs.find(declared<CreationDecls>().dtype.name);
  if (v == nullptr) return Error::Ok;
  const DType* d = std::get_if<DType>(v);
  if (d == nullptr) {
    return fail(Error::InvalidArgument, std::string(op) + ": expected attribute 'dtype' of kind dtype, got " +
                                            std::string(attr_kind_name(attr_kind(*v))));
  }
  return check_output_dtype(op, out, *d);
}

// ---- arange ------------------------------------------------------------------

template <typename T>
void arange_ints(T* dst, int64_t n, int64_t start, int64_t step) {
  // Each value lies in [start, end) but i * step alone may not fit in int64
  // (start = INT64_MIN, step = INT64_MAX); unsigned arithmetic wraps to the
  // right value instead of overflowing.
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t v = static_cast<uint64_t>(start) + static_cast<uint64_t>(i) * static_cast<uint64_t>(step);
    dst[i] = static_cast<T>(static_cast<int64_t>(v));
  }
}

// [start, end) by step, length ceil((end - start) / step). All-int bounds
// are computed exactly in int64 (and the length in 128 bits); a float
// bound makes the whole computation double, like torch.
Error arange_kernel(KernelContext&, std::span<const Tensor> inputs, const Attrs& attrs,
                    std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "arange";
  EDGEC_TRY(check_arity(kOp, inputs, 0, outputs, 1));
  Tensor& out = outputs[0];
  EDGEC_TRY(check_dtype_attr(kOp, attrs, out));
  if (!kArangeTypes.contains(out.dtype)) {
    return fail(Error::InvalidType,
                "arange: expected a numeric output dtype, got " + std::string(dtype_name(out.dtype)));
  }
  const CreationDecls& decls = declared<CreationDecls>();
  // A missing end is reported before the kinds of the others.
  if (!attrs.has(decls.end.name)) {
    return fail(Error::InvalidArgument, "arange: missing required attribute 'end'");
  }
  Number start, end, step;
  EDGEC_TRY(number_attr(kOp, attrs, decls.start, start));
  EDGEC_TRY(number_attr(kOp, attrs, decls.end, end));
  EDGEC_TRY(number_attr(kOp, attrs, decls.step, step));
  const bool exact = start.is_int && end.is_int && step.is_int;

  int64_t n = 0;
  if (exact) {
    if (step.i == 0) return fail(Error::InvalidArgument, "arange: step must be nonzero, got 0");
    n = arange_int_length(start.i, end.i, step.i);
  } else {
    const double s = start.as_double(), e = end.as_double(), st = step.as_double();
    if (st == 0.0) return fail(Error::InvalidArgument, "arange: step must be nonzero, got 0");
    if (!std::isfinite(s) || !std::isfinite(e) || !std::isfinite(st)) {
      return fail(Error::InvalidArgument, "arange: expected finite start, end and step, got " +
                                              std::to_string(s) + ", " + std::to_string(e) +
                                              ", " + std::to_string(st));
    }
    const double len = std::ceil((e - s) / st);
    if (len >= 9.2e18) {
      return fail(Error::InvalidShape, "arange: length " + std::to_string(len) + " is too large");
    }
    n = len > 0 ? static_cast<int64_t>(len) : 0;
  }
  const int64_t shape[1] = {n};
  EDGEC_TRY(resize_output(kOp, out, shape));

  if (exact && !is_floating(out.dtype)) {
    switch (out.dtype) {
      case DType::Int64: arange_ints(out.data_as<int64_t>(), n, start.i, step.i); break;
      case DType::Int32: arange_ints(out.data_as<int32_t>(), n, start.i, step.i); break;
      case DType::Int8: arange_ints(out.data_as<int8_t>(), n, start.i, step.i); break;
      case DType::UInt8: arange_ints(out.data_as<uint8_t>(), n, start.i, step.i); break;
      case DType::Int16: arange_ints(out.data_as<int16_t>(), n, start.i, step.i); break;
      case DType::UInt16: arange_ints(out.data_as<uint16_t>(), n, start.i, step.i); break;
      case DType::UInt32: arange_ints(out.data_as<uint32_t>(), n, start.i, step.i); break;
      case DType::UInt64: arange_ints(out.data_as<uint64_t>(), n, start.i, step.i); break;
      default: break;
    }
    return Error::Ok;
  }
  const double s = start.as_double();
  const double st = step.as_double();
  const size_t esz = dtype_size(out.dtype);
  for (int64_t i = 0; i < n; ++i) {
    const Number v{false, 0, s + static_cast<double>(i) * st};
    const uint64_t bits = scalar_bits(out.dtype, v);
    std::memcpy(at(out.data, i, esz), &bits, esz);  // little endian: the low bytes
  }
  return Error::Ok;
}

// ---- full --------------------------------------------------------------------

Error full_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                  std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "full";
  EDGEC_TRY(check_arity(kOp, inputs, 0, outputs, 1));
  Tensor& out = outputs[0];
  EDGEC_TRY(check_dtype_attr(kOp, attrs, out));
  std::span<const int64_t> shape;
  EDGEC_TRY(ints_attr(kOp, attrs, declared<CreationDecls>().shape, shape));
  for (int64_t s : shape) {
    if (s < 0) {
      return fail(Error::InvalidShape, "full: expected non-negative sizes, got " +
                                           shape_string(shape));
    }
  }
  Number value;
  EDGEC_TRY(number_attr(kOp, attrs, declared<CreationDecls>().value, value));
  EDGEC_TRY(resize_output(kOp, out, shape));

  const int64_t n = out.numel();
  const size_t esz = dtype_size(out.dtype);
  const uint64_t bits = scalar_bits(out.dtype, value);
  if (ctx.num_threads > 1 && n >= kParallelElements) {
    const int64_t chunks = ctx.num_threads;
#pragma omp parallel for num_threads(ctx.num_threads) schedule(static)
    for (int64_t c = 0; c < chunks; ++c) {
      const int64_t b = n * c / chunks;
      fill_bits(at(out.data, b, esz), n * (c + 1) / chunks - b, esz, bits);
    }
  } else {
    fill_bits(out.data, n, esz, bits);
  }
  return Error::Ok;
}

// ---- rand_like -----------------------------------------------------------------

// Uniform [0, 1) values with x's shape: element i is the top 24 bits of
// splitmix64(seed + i) scaled by 2^-24, so a given seed always gives the same
// tensor (tests can reproduce it) while constant folding must never run it.
uint64_t splitmix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

Error rand_like_kernel(KernelContext&, std::span<const Tensor> inputs, const Attrs& attrs,
                       std::span<Tensor> outputs) {
  if (inputs.size() != 1 || outputs.size() != 1)
    return fail(Error::InvalidArgument, "rand_like: expected 1 input and 1 output, got " +
                                            std::to_string(inputs.size()) + " and " + std::to_string(outputs.size()));
  const Tensor& x = inputs[0];
  Tensor& y = outputs[0];
  if (!kFloatDTypes.contains(x.dtype) || y.dtype != x.dtype)
    return fail(Error::InvalidType, "rand_like: expected a float input and output of its dtype, got " +
                                        std::string(dtype_name(x.dtype)) + " and " + std::string(dtype_name(y.dtype)));
  EDGEC_TRY(y.resize(x.shape()));
  const uint64_t seed = static_cast<uint64_t>(declared<CreationDecls>().seed.int_value(attrs));
  const int64_t n = y.numel();
  for (int64_t i = 0; i < n; ++i) {
    const float v = static_cast<float>(splitmix64(seed + static_cast<uint64_t>(i)) >> 40) * (1.0f / 16777216.0f);
    if (y.dtype == DType::Float32) y.data_as<float>()[i] = v;
    else y.data_as<Half>()[i] = float_to_half(v);
  }
  return Error::Ok;
}


}  // namespace

std::span<const KernelEntry> creation_kernels() {
  const CreationDecls& d = declared<CreationDecls>();
  static const KernelEntry kCreationKernels[] = {
      {declare("rand_like", "creation", {{"self"}}, {d.seed}, kFloatDTypes, kOpRandom,
               "uniform [0, 1) values with self's shape and dtype (never folded)"),
       rand_like_kernel},
      {declare("arange", "creation", {}, {d.start, d.end, d.step, d.dtype}, kArangeTypes, kOpAllocation,
               "[start, end) by step (default 0 and 1) as a 1-D tensor of dtype"),
       arange_kernel},
      {declare("full", "creation", {}, {d.shape, d.value, d.dtype}, kAllDTypes, kOpAllocation,
               "a tensor of shape and dtype filled with value (default 0)"),
       full_kernel},
  };
  return kCreationKernels;
}

}  // namespace edgec

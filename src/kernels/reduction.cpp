// Reductions (sum, mean, prod, amax, amin), arg reductions (argmax, argmin)
// and the cumulative sum.
//
// Every reduction is planned the same way: the kept dims and the reduced dims
// are each sorted by input stride and coalesced, then whichever set holds the
// innermost memory dim decides the loop order. Reducing an inner axis walks
// each output's input run with several independent accumulators (so the loop
// vectorizes without reassociating under -ffast-math); reducing an outer
// axis keeps a row of up to kChunk accumulators for neighbouring outputs and
// sweeps the reduced rows over it, so the inner loop is contiguous either way.
//
// Integer sums and products wrap modulo 2^64 and are truncated to the output
// dtype (unsigned arithmetic: signed overflow would be undefined). float16 is
// accumulated in float32, float64 in float64.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "kernels/axis_util.h"
#include "kernels/families.h"
#include "kernels/kernel_checks.h"

namespace edgec {
namespace {

using axis::AxisPlan, axis::StridedDims, axis::kChunk, axis::kLanes;

/// Storage of a bool element: any nonzero byte reads as true.
struct BoolByte {
  uint8_t bits;
};

std::string str(int64_t v) { return std::to_string(v); }

std::string shape_of(const Tensor& t) { return shape_string(t.shape()); }

// ---------------------------------------------------------------------------
// Reduction operators: identity, load (element -> accumulator), combine, and
// finish (accumulator -> element).

/// The accumulator of a float element: double for double, float otherwise.
template <typename T>
using FloatAcc = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename T>
struct SumOp {
  using Acc = std::conditional_t<std::is_integral_v<T>, uint64_t, FloatAcc<T>>;
  static Acc identity() { return Acc(0); }
  static Acc load(T v) {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<uint64_t>(static_cast<int64_t>(v));
    } else {
      return axis::widen(v);
    }
  }
  static Acc combine(Acc a, Acc b) { return a + b; }
  static T finish(Acc a) {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<int64_t>(a));
    } else {
      return axis::narrow<T>(a);
    }
  }
};

template <typename T>
struct ProdOp : SumOp<T> {
  using Acc = typename SumOp<T>::Acc;
  static Acc identity() { return Acc(1); }
  static Acc combine(Acc a, Acc b) { return a * b; }
};

// NaN wins both amax and amin, like numpy and torch.
template <typename T, bool kMax>
struct ExtremumOp {
  // Integers compare in int64, but uint64 in itself (its upper half is not an int64).
  using IntAcc = std::conditional_t<std::is_same_v<T, uint64_t>, uint64_t, int64_t>;
  using Acc = std::conditional_t<std::is_integral_v<T>, IntAcc, FloatAcc<T>>;
  static Acc identity() {
    if constexpr (std::is_integral_v<T>) {
      return kMax ? std::numeric_limits<Acc>::min() : std::numeric_limits<Acc>::max();
    } else {
      return kMax ? -std::numeric_limits<Acc>::infinity() : std::numeric_limits<Acc>::infinity();
    }
  }
  static Acc load(T v) {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<Acc>(v);
    } else {
      return axis::widen(v);
    }
  }
  static Acc combine(Acc a, Acc b) {
    if constexpr (std::is_integral_v<T>) {
      return kMax ? (b > a ? b : a) : (b < a ? b : a);
    } else {
      return ((kMax ? b > a : b < a) || b != b) ? b : a;
    }
  }
  static T finish(Acc a) {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(a);
    } else {
      return axis::narrow<T>(a);
    }
  }
};

// amax over bools is "any", amin is "all".
template <bool kMax>
struct ExtremumOp<BoolByte, kMax> {
  using Acc = uint8_t;
  static Acc identity() { return kMax ? 0 : 1; }
  static Acc load(BoolByte v) { return v.bits != 0; }
  static Acc combine(Acc a, Acc b) { return kMax ? (a | b) : (a & b); }
  static BoolByte finish(Acc a) { return BoolByte{a}; }
};

// Reduces n elements p[0], p[s], ... with kLanes independent accumulators.
template <typename Op, typename T>
inline typename Op::Acc reduce_line(const T* p, int64_t n, int64_t s) {
  using Acc = typename Op::Acc;
  if constexpr (std::is_same_v<Op, ExtremumOp<float, true>> || std::is_same_v<Op, ExtremumOp<float, false>>) {
    if (s == 1) return axis::extremum_contiguous<std::is_same_v<Op, ExtremumOp<float, true>>>(p, n, Op::identity());
  }
  Acc lanes[kLanes];
  for (int l = 0; l < kLanes; ++l) lanes[l] = Op::identity();
  int64_t i = 0;
  if (s == 1) {
    for (; i + kLanes <= n; i += kLanes) {
      for (int l = 0; l < kLanes; ++l) lanes[l] = Op::combine(lanes[l], Op::load(p[i + l]));
    }
  } else {
    for (; i + kLanes <= n; i += kLanes) {
      for (int l = 0; l < kLanes; ++l) lanes[l] = Op::combine(lanes[l], Op::load(p[(i + l) * s]));
    }
  }
  for (int w = kLanes / 2; w > 0; w /= 2) {
    for (int l = 0; l < w; ++l) lanes[l] = Op::combine(lanes[l], lanes[l + w]);
  }
  Acc acc = lanes[0];
  for (; i < n; ++i) acc = Op::combine(acc, Op::load(p[i * s]));
  return acc;
}

// ---------------------------------------------------------------------------
// Multi-dim reduction engine.

struct ReducePlan {
  StridedDims<2> kept;  // dims that survive: (input stride, output stride)
  StridedDims<1> red;   // reduced dims: input stride
  bool inner = false;   // the reduced dims hold the innermost memory dim
};

ReducePlan make_reduce_plan(const Tensor& x, const std::array<bool, kMaxRank>& reduced) {
  ReducePlan plan;
  std::array<int64_t, kMaxRank> out_strides{};
  int64_t s = 1;
  for (int i = x.rank - 1; i >= 0; --i) {
    if (!reduced[i]) {
      out_strides[i] = s;
      s *= x.sizes[i];
    }
  }
  for (int i = 0; i < x.rank; ++i) {
    if (reduced[i]) {
      plan.red.push(x.sizes[i], {x.strides[i]});
    } else {
      plan.kept.push(x.sizes[i], {x.strides[i], out_strides[i]});
    }
  }
  plan.kept.sort_by_first_operand();
  plan.kept.coalesce();
  plan.red.sort_by_first_operand();
  plan.red.coalesce();
  plan.inner = plan.red.rank > 0 &&
               (plan.kept.rank == 0 ||
                axis::stride_key(plan.red.line_stride(0)) < axis::stride_key(plan.kept.line_stride(0)));
  return plan;
}

template <typename Op, typename T, typename Finish>
void run_reduce(const ReducePlan& plan, const T* x, T* y, Finish finish, const KernelContext& ctx,
                int64_t work) {
  using Acc = typename Op::Acc;
  const StridedDims<1>& red = plan.red;
  const int64_t in_step = plan.kept.line_stride(0);
  const int64_t out_step = plan.kept.line_stride(1);
  const int64_t red_len = red.line_len();
  const int64_t red_step = red.line_stride(0);
  const int64_t chunk = plan.inner ? axis::outputs_per_task(red.numel()) : kChunk;
  axis::run_tasks(plan.kept, chunk, x, y, ctx.num_threads, work, [&](const T* in, T* out, int64_t n) {
    if (plan.inner) {
      for (int64_t j = 0; j < n; ++j) {
        const T* base = in + j * in_step;
        Acc acc = Op::identity();
        axis::for_each_line(red, [&](const std::array<int64_t, 1>& off) {
          acc = Op::combine(acc, reduce_line<Op>(base + off[0], red_len, red_step));
        });
        out[j * out_step] = finish(acc);
      }
    } else {
      Acc acc[kChunk];
      for (int64_t j = 0; j < n; ++j) acc[j] = Op::identity();
      axis::for_each_line(red, [&](const std::array<int64_t, 1>& off) {
        for (int64_t r = 0; r < red_len; ++r) {
          const T* row = in + off[0] + r * red_step;
          if (in_step == 1) {
            for (int64_t j = 0; j < n; ++j) acc[j] = Op::combine(acc[j], Op::load(row[j]));
          } else {
            for (int64_t j = 0; j < n; ++j) acc[j] = Op::combine(acc[j], Op::load(row[j * in_step]));
          }
        }
      });
      for (int64_t j = 0; j < n; ++j) out[j * out_step] = finish(acc[j]);
    }
  });
}

enum class ReduceKind { Sum, Mean, Prod, Max, Min };

// The dtypes and attributes of the family, declared once: the rows at the
// end of this file and the kernels read them.
constexpr DTypeSet kSumTypes = {DType::Float32, DType::Float16, DType::Float64, DType::Int64, DType::Int32,
                                DType::UInt64,  DType::UInt32};
constexpr DTypeSet kMeanTypes = {DType::Float32, DType::Float16, DType::Float64};
constexpr DTypeSet kExtremumTypes = {DType::Float32, DType::Float16, DType::Float64, DType::Int64,
                                     DType::Int32,   DType::Int16,   DType::Int8,    DType::UInt64,
                                     DType::UInt32,  DType::UInt16,  DType::UInt8,   DType::Bool};
constexpr DTypeSet kArgTypes = kExtremumTypes;

struct ReduceDecls {
  AttrDecl dims = attr_ints("dims");
  AttrDecl keepdim = attr_bool("keepdim", false);
  AttrDecl dim = required(attr_int("dim", 0));
  AttrDecl select_last = attr_bool("select_last_index", false);
  AttrDecl exclusive = attr_bool("exclusive", false);
  AttrDecl reverse = attr_bool("reverse", false);
};

DTypeSet reduce_dtypes(ReduceKind kind) {
  switch (kind) {
    case ReduceKind::Mean: return kMeanTypes;
    case ReduceKind::Sum:
    case ReduceKind::Prod: return kSumTypes;
    case ReduceKind::Max:
    case ReduceKind::Min: return kExtremumTypes;
  }
  return {};
}

bool reduce_supports(ReduceKind kind, DType d) { return reduce_dtypes(kind).contains(d); }

template <typename T>
void reduce_typed(ReduceKind kind, const ReducePlan& plan, const Tensor& x, Tensor& y,
                  int64_t count, const KernelContext& ctx) {
  const T* in = x.data_as<T>();
  T* out = y.data_as<T>();
  const int64_t work = x.numel();
  if constexpr (std::is_same_v<T, BoolByte>) {
    if (kind == ReduceKind::Max) {
      run_reduce<ExtremumOp<T, true>>(plan, in, out, ExtremumOp<T, true>::finish, ctx, work);
    } else {
      run_reduce<ExtremumOp<T, false>>(plan, in, out, ExtremumOp<T, false>::finish, ctx, work);
    }
  } else {
    switch (kind) {
      case ReduceKind::Sum:
        run_reduce<SumOp<T>>(plan, in, out, SumOp<T>::finish, ctx, work);
        break;
      case ReduceKind::Mean:
        if constexpr (!std::is_integral_v<T>) {
          // An empty reduction is 0 / 0 = NaN, as in numpy.
          using Acc = typename SumOp<T>::Acc;
          const Acc inv_count = Acc(1) / static_cast<Acc>(count);
          const bool empty = count == 0;
          run_reduce<SumOp<T>>(
              plan, in, out,
              [=](Acc acc) {
                return axis::narrow<T>(empty ? std::numeric_limits<Acc>::quiet_NaN()
                                             : acc * inv_count);
              },
              ctx, work);
        }
        break;
      case ReduceKind::Prod:
        run_reduce<ProdOp<T>>(plan, in, out, ProdOp<T>::finish, ctx, work);
        break;
      case ReduceKind::Max:
        run_reduce<ExtremumOp<T, true>>(plan, in, out, ExtremumOp<T, true>::finish, ctx, work);
        break;
      case ReduceKind::Min:
        run_reduce<ExtremumOp<T, false>>(plan, in, out, ExtremumOp<T, false>::finish, ctx, work);
        break;
    }
  }
}

// Reads `dims` (int[] or a single int; absent or empty = every dim).
Error parse_reduce_dims(std::string_view op, const Attrs& attrs, int rank,
                        std::array<bool, kMaxRank>& reduced) {
  reduced.fill(false);
  const AttrValue* v = attrs.find(declared<ReduceDecls>().dims.name);
  int64_t single = 0;
  std::span<const int64_t> dims;
  if (v != nullptr) {
    if (const auto* list = std::get_if<std::vector<int64_t>>(v)) {
      dims = *list;
    } else if (const auto* one = std::get_if<int64_t>(v)) {
      single = *one;
      dims = {&single, 1};
    } else {
      return fail(Error::InvalidArgument, std::string(op) + ": expected attribute dims to be int[], got " +
                                              std::string(attr_kind_name(attr_kind(*v))));
    }
  }
  if (dims.empty()) {
    for (int i = 0; i < rank; ++i) reduced[i] = true;
    return Error::Ok;
  }
  std::array<bool, kMaxRank> seen{};
  for (int64_t d : dims) {
    const int w = axis::wrap_dim(d, rank);
    if (w < 0) {
      return fail(Error::InvalidArgument, std::string(op) + ": dim " + str(d) +
                                              " is out of range for an input of rank " + str(rank));
    }
    if (seen[w]) {
      return fail(Error::InvalidArgument,
                  std::string(op) + ": dim " + str(d) + " appears more than once in dims " +
                      shape_string(dims));
    }
    seen[w] = true;
    if (rank > 0) reduced[w] = true;
  }
  return Error::Ok;
}

Error check_arity(std::string_view op, std::span<const Tensor> inputs, size_t n_in,
                  std::span<Tensor> outputs) {
  if (inputs.size() != n_in || outputs.size() != 1) {
    return fail(Error::InvalidArgument, std::string(op) + ": expected " + str(static_cast<int64_t>(n_in)) +
                                            " input(s) and 1 output, got " +
                                            str(static_cast<int64_t>(inputs.size())) + " and " +
                                            str(static_cast<int64_t>(outputs.size())));
  }
  return Error::Ok;
}

Error unsupported_dtype(std::string_view op, DType d) {
  return fail(Error::InvalidType,
              std::string(op) + ": input dtype " + std::string(dtype_name(d)) + " is not supported");
}

Error reduce_kernel(ReduceKind kind, std::string_view op, KernelContext& ctx,
                    std::span<const Tensor> inputs, const Attrs& attrs, std::span<Tensor> outputs) {
  // Check arguments.
  EDGEC_TRY(check_arity(op, inputs, 1, outputs));
  const Tensor& x = inputs[0];
  Tensor& y = outputs[0];
  if (!reduce_supports(kind, x.dtype)) return unsupported_dtype(op, x.dtype);
  EDGEC_TRY(check_output_dtype(op, y, x.dtype));
  std::array<bool, kMaxRank> reduced;
  EDGEC_TRY(parse_reduce_dims(op, attrs, x.rank, reduced));
  const bool keepdim = declared<ReduceDecls>().keepdim.bool_value(attrs);

  // Size the output.
  std::array<int64_t, kMaxRank> shape{};
  int out_rank = 0;
  int64_t count = 1;
  for (int i = 0; i < x.rank; ++i) {
    if (reduced[i]) {
      count *= x.sizes[i];
      if (keepdim) shape[out_rank++] = 1;
    } else {
      shape[out_rank++] = x.sizes[i];
    }
  }
  if (count == 0 && (kind == ReduceKind::Max || kind == ReduceKind::Min)) {
    return fail(Error::InvalidShape, std::string(op) + ": cannot reduce over an empty dim of input " +
                                         shape_of(x) + " (the result has no identity)");
  }
  EDGEC_TRY(y.resize({shape.data(), static_cast<size_t>(out_rank)}));
  if (y.numel() == 0) return Error::Ok;

  // Reduce.
  const ReducePlan plan = make_reduce_plan(x, reduced);
  switch (x.dtype) {
    case DType::Float32: reduce_typed<float>(kind, plan, x, y, count, ctx); break;
    case DType::Float16: reduce_typed<Half>(kind, plan, x, y, count, ctx); break;
    case DType::Int64: reduce_typed<int64_t>(kind, plan, x, y, count, ctx); break;
    case DType::Int32: reduce_typed<int32_t>(kind, plan, x, y, count, ctx); break;
    case DType::Bool: reduce_typed<BoolByte>(kind, plan, x, y, count, ctx); break;
    case DType::Float64: reduce_typed<double>(kind, plan, x, y, count, ctx); break;
    case DType::Int16: reduce_typed<int16_t>(kind, plan, x, y, count, ctx); break;
    case DType::Int8: reduce_typed<int8_t>(kind, plan, x, y, count, ctx); break;
    case DType::UInt64: reduce_typed<uint64_t>(kind, plan, x, y, count, ctx); break;
    case DType::UInt32: reduce_typed<uint32_t>(kind, plan, x, y, count, ctx); break;
    case DType::UInt16: reduce_typed<uint16_t>(kind, plan, x, y, count, ctx); break;
    case DType::UInt8: reduce_typed<uint8_t>(kind, plan, x, y, count, ctx); break;
    default: return unsupported_dtype(op, x.dtype);
  }
  return Error::Ok;
}

Error sum_kernel(KernelContext& ctx, std::span<const Tensor> in, const Attrs& a, std::span<Tensor> out) {
  return reduce_kernel(ReduceKind::Sum, "sum", ctx, in, a, out);
}
Error mean_kernel(KernelContext& ctx, std::span<const Tensor> in, const Attrs& a, std::span<Tensor> out) {
  return reduce_kernel(ReduceKind::Mean, "mean", ctx, in, a, out);
}
Error prod_kernel(KernelContext& ctx, std::span<const Tensor> in, const Attrs& a, std::span<Tensor> out) {
  return reduce_kernel(ReduceKind::Prod, "prod", ctx, in, a, out);
}
Error amax_kernel(KernelContext& ctx, std::span<const Tensor> in, const Attrs& a, std::span<Tensor> out) {
  return reduce_kernel(ReduceKind::Max, "amax", ctx, in, a, out);
}
Error amin_kernel(KernelContext& ctx, std::span<const Tensor> in, const Attrs& a, std::span<Tensor> out) {
  return reduce_kernel(ReduceKind::Min, "amin", ctx, in, a, out);
}

// ---------------------------------------------------------------------------
// argmax / argmin.

template <typename T>
inline auto arg_value(T v) {
  if constexpr (std::is_same_v<T, BoolByte>) {
    return static_cast<int>(v.bits != 0);
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    return v;
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<int64_t>(v);
  } else {
    return axis::widen(v);
  }
}

// Whether v replaces best. NaN counts as the extreme (numpy's argmax/argmin
// return the first NaN); ties keep the first index unless kLast.
template <bool kMax, bool kLast, typename V>
inline bool arg_takes(V v, V best) {
  const bool v_nan = v != v;  // never true for integers
  const bool best_nan = best != best;
  if constexpr (kLast) {
    return v_nan || (!best_nan && (kMax ? v >= best : v <= best));
  } else {
    return !best_nan && (v_nan || (kMax ? v > best : v < best));
  }
}

// A contiguous float line in two vectorizable passes: find the extreme value,
// then the first (or last) index holding it. NaN is the extreme if present.
template <bool kMax, bool kLast>
int64_t arg_contiguous(const float* p, int64_t n) {
  const float best = axis::extremum_contiguous<kMax>(p, n, p[0]);
  const bool nan = best != best;
  auto hit = [&](int64_t i) { return nan ? p[i] != p[i] : p[i] == best; };
  if constexpr (kLast) {
    for (int64_t i = n - 1; i > 0; --i) {
      if (hit(i)) return i;
    }
    return 0;
  } else {
    for (int64_t i = 0; i < n; ++i) {
      if (hit(i)) return i;
    }
    return 0;
  }
}

template <bool kMax, bool kLast, typename T>
void run_arg(const AxisPlan& plan, const T* x, int64_t* y, const KernelContext& ctx, int64_t work) {
  using V = decltype(arg_value(T{}));
  const int64_t in_step = plan.outer.line_stride(0);
  const int64_t out_step = plan.outer.line_stride(1);
  const int64_t n_axis = plan.len;
  const int64_t axis_step = plan.in_stride;
  axis::run_axis_tasks(plan, x, y, ctx.num_threads, work, [&](const T* in, int64_t* out, int64_t n) {
    if (plan.axis_innermost) {
      if constexpr (std::is_same_v<T, float>) {
        if (axis_step == 1) {
          for (int64_t j = 0; j < n; ++j) out[j * out_step] = arg_contiguous<kMax, kLast>(in + j * in_step, n_axis);
          return;
        }
      }
      for (int64_t j = 0; j < n; ++j) {
        const T* p = in + j * in_step;
        V best = arg_value(p[0]);
        int64_t best_index = 0;
        for (int64_t r = 1; r < n_axis; ++r) {
          const V v = arg_value(p[r * axis_step]);
          if (arg_takes<kMax, kLast>(v, best)) {
            best = v;
            best_index = r;
          }
        }
        out[j * out_step] = best_index;
      }
    } else {
      V best[kChunk];
      int64_t index[kChunk];
      for (int64_t j = 0; j < n; ++j) {
        best[j] = arg_value(in[j * in_step]);
        index[j] = 0;
      }
      axis::with_step(in_step, [&](auto step) {
        for (int64_t r = 1; r < n_axis; ++r) {
          const T* row = in + r * axis_step;
          for (int64_t j = 0; j < n; ++j) {
            const V v = arg_value(row[j * step]);
            const bool take = arg_takes<kMax, kLast>(v, best[j]);
            best[j] = take ? v : best[j];
            index[j] = take ? r : index[j];
          }
        }
      });
      for (int64_t j = 0; j < n; ++j) out[j * out_step] = index[j];
    }
  });
}

template <bool kMax, typename T>
void arg_typed(bool last, const AxisPlan& plan, const Tensor& x, Tensor& y, const KernelContext& ctx) {
  if (last) {
    run_arg<kMax, true>(plan, x.data_as<T>(), y.data_as<int64_t>(), ctx, x.numel());
  } else {
    run_arg<kMax, false>(plan, x.data_as<T>(), y.data_as<int64_t>(), ctx, x.numel());
  }
}

template <bool kMax>
Error arg_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                 std::span<Tensor> outputs) {
  constexpr std::string_view op = kMax ? "argmax" : "argmin";
  // Check arguments.
  EDGEC_TRY(check_arity(op, inputs, 1, outputs));
  const Tensor& x = inputs[0];
  Tensor& y = outputs[0];
  EDGEC_TRY(check_output_dtype(op, y, DType::Int64));
  const ReduceDecls& decls = declared<ReduceDecls>();
  if (!attrs.has(decls.dim.name)) return fail(Error::InvalidArgument, std::string(op) + ": missing attribute dim");
  const int64_t raw_dim = decls.dim.int_value(attrs);
  const int dim = axis::wrap_dim(raw_dim, x.rank);
  if (dim < 0) {
    return fail(Error::InvalidArgument, std::string(op) + ": dim " + str(raw_dim) +
                                            " is out of range for an input of rank " + str(x.rank));
  }
  const bool keepdim = decls.keepdim.bool_value(attrs);
  const bool last = decls.select_last.bool_value(attrs);
  if (x.rank > 0 && x.sizes[dim] == 0) {
    return fail(Error::InvalidShape, std::string(op) + ": cannot reduce over dim " + str(raw_dim) +
                                         " of size 0 (input " + shape_of(x) + ")");
  }

  // Size the output.
  std::array<int64_t, kMaxRank> shape{};
  std::array<int64_t, kMaxRank> out_strides{};
  int out_rank = 0;
  for (int i = 0; i < x.rank; ++i) {
    if (i != dim) {
      shape[out_rank++] = x.sizes[i];
    } else if (keepdim) {
      shape[out_rank++] = 1;
    }
  }
  EDGEC_TRY(y.resize({shape.data(), static_cast<size_t>(out_rank)}));
  if (y.numel() == 0) return Error::Ok;
  int64_t s = 1;
  for (int i = x.rank - 1; i >= 0; --i) {
    if (i == dim) continue;
    out_strides[i] = s;
    s *= x.sizes[i];
  }

  // Reduce.
  const AxisPlan plan = axis::make_axis_plan(x, dim, out_strides.data());
  switch (x.dtype) {
    case DType::Float32: arg_typed<kMax, float>(last, plan, x, y, ctx); break;
    case DType::Float16: arg_typed<kMax, Half>(last, plan, x, y, ctx); break;
    case DType::Int64: arg_typed<kMax, int64_t>(last, plan, x, y, ctx); break;
    case DType::Int32: arg_typed<kMax, int32_t>(last, plan, x, y, ctx); break;
    case DType::Int8: arg_typed<kMax, int8_t>(last, plan, x, y, ctx); break;
    case DType::UInt8: arg_typed<kMax, uint8_t>(last, plan, x, y, ctx); break;
    case DType::Bool: arg_typed<kMax, BoolByte>(last, plan, x, y, ctx); break;
    case DType::Float64: arg_typed<kMax, double>(last, plan, x, y, ctx); break;
    case DType::Int16: arg_typed<kMax, int16_t>(last, plan, x, y, ctx); break;
    case DType::UInt64: arg_typed<kMax, uint64_t>(last, plan, x, y, ctx); break;
    case DType::UInt32: arg_typed<kMax, uint32_t>(last, plan, x, y, ctx); break;
    case DType::UInt16: arg_typed<kMax, uint16_t>(last, plan, x, y, ctx); break;
    case DType::BFloat16: return unsupported_dtype(op, x.dtype);  // a storage type (base/dtype.h)
  }
  return Error::Ok;
}

// ---------------------------------------------------------------------------
// cumsum (ONNX CumSum: `exclusive` shifts by one, `reverse` scans from the end).

template <typename T>
void run_cumsum(const AxisPlan& plan, const T* x, T* y, bool exclusive, bool reverse,
                const KernelContext& ctx, int64_t work) {
  using Op = SumOp<T>;
  using Acc = typename Op::Acc;
  const int64_t in_step = plan.outer.line_stride(0);
  const int64_t out_step = plan.outer.line_stride(1);
  const int64_t n_axis = plan.len;
  // Reverse walks the axis from its end; the tasks' pointers start there.
  const int64_t first = reverse ? n_axis - 1 : 0;
  const int64_t in_axis = reverse ? -plan.in_stride : plan.in_stride;
  const int64_t out_axis = reverse ? -plan.out_stride : plan.out_stride;
  const T* x_first = x + first * plan.in_stride;
  T* y_first = y + first * plan.out_stride;
  axis::run_axis_tasks(plan, x_first, y_first, ctx.num_threads, work, [&](const T* in, T* out, int64_t n) {
    if (plan.axis_innermost) {
      for (int64_t j = 0; j < n; ++j) {
        const T* p = in + j * in_step;
        T* q = out + j * out_step;
        Acc acc = Op::identity();
        for (int64_t r = 0; r < n_axis; ++r) {
          const Acc v = Op::load(p[r * in_axis]);
          if (exclusive) {
            q[r * out_axis] = Op::finish(acc);
            acc += v;
          } else {
            acc += v;
            q[r * out_axis] = Op::finish(acc);
          }
        }
      }
    } else {
      Acc acc[kChunk];
      for (int64_t j = 0; j < n; ++j) acc[j] = Op::identity();
      axis::with_step(in_step == 1 && out_step == 1 ? 1 : 0, [&](auto contiguous) {
        const int64_t is = contiguous == 1 ? 1 : in_step;
        const int64_t os = contiguous == 1 ? 1 : out_step;
        for (int64_t r = 0; r < n_axis; ++r) {
          const T* row = in + r * in_axis;
          T* out_row = out + r * out_axis;
          if (exclusive) {
            for (int64_t j = 0; j < n; ++j) {
              out_row[j * os] = Op::finish(acc[j]);
              acc[j] += Op::load(row[j * is]);
            }
          } else {
            for (int64_t j = 0; j < n; ++j) {
              acc[j] += Op::load(row[j * is]);
              out_row[j * os] = Op::finish(acc[j]);
            }
          }
        }
      });
    }
  });
}

Error cumsum_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                    std::span<Tensor> outputs) {
  constexpr std::string_view op = "cumsum";
  // Check arguments.
  EDGEC_TRY(check_arity(op, inputs, 1, outputs));
  const Tensor& x = inputs[0];
  Tensor& y = outputs[0];
  if (!reduce_supports(ReduceKind::Sum, x.dtype)) return unsupported_dtype(op, x.dtype);
  EDGEC_TRY(check_output_dtype(op, y, x.dtype));
  const ReduceDecls& decls = declared<ReduceDecls>();
  if (!attrs.has(decls.dim.name)) return fail(Error::InvalidArgument, "cumsum: missing attribute dim");
  const int64_t raw_dim = decls.dim.int_value(attrs);
  const int dim = axis::wrap_dim(raw_dim, x.rank);
  if (dim < 0) {
    return fail(Error::InvalidArgument, "cumsum: dim " + str(raw_dim) +
                                            " is out of range for an input of rank " + str(x.rank));
  }
  const bool exclusive = decls.exclusive.bool_value(attrs);
  const bool reverse = decls.reverse.bool_value(attrs);

  // Size the output.
  EDGEC_TRY(y.resize(x.shape()));
  if (y.numel() == 0) return Error::Ok;

  // Scan.
  const AxisPlan plan = axis::make_axis_plan(x, dim, y.strides.data());
  const int64_t work = x.numel();
  auto scan = [&](auto zero) {
    using T = decltype(zero);
    run_cumsum(plan, x.data_as<T>(), y.data_as<T>(), exclusive, reverse, ctx, work);
  };
  switch (x.dtype) {
    case DType::Float32: scan(float{}); break;
    case DType::Float16: scan(Half{}); break;
    case DType::Int64: scan(int64_t{}); break;
    case DType::Int32: scan(int32_t{}); break;
    case DType::Float64: scan(double{}); break;
    case DType::UInt64: scan(uint64_t{}); break;
    case DType::UInt32: scan(uint32_t{}); break;
    default: return unsupported_dtype(op, x.dtype);
  }
  return Error::Ok;
}


}  // namespace

std::span<const KernelEntry> reduction_kernels() {
  const ReduceDecls& d = declared<ReduceDecls>();
  const std::vector<AttrDecl> reduce = {d.dims, d.keepdim};
  const std::vector<AttrDecl> arg = {d.dim, d.keepdim, d.select_last};
  auto row = [](std::string_view name, std::vector<AttrDecl> attrs, DTypeSet dtypes, std::string_view summary) {
    return declare(name, "reduction", {{"self"}}, std::move(attrs), dtypes, 0, summary);
  };
  static const KernelEntry kReductionKernels[] = {
      {row("amax", reduce, kExtremumTypes, "maximum over dims"), amax_kernel},
      {row("amin", reduce, kExtremumTypes, "minimum over dims"), amin_kernel},
      {row("argmax", arg, kArgTypes, "index of the maximum along dim"), arg_kernel<true>},
      {row("argmin", arg, kArgTypes, "index of the minimum along dim"), arg_kernel<false>},
      {row("cumsum", {d.dim, d.exclusive, d.reverse}, kSumTypes, "running sum along dim (ONNX CumSum)"),
       cumsum_kernel},
      {row("mean", reduce, kMeanTypes, "mean over dims"), mean_kernel},
      {row("prod", reduce, kSumTypes, "product over dims"), prod_kernel},
      {row("sum", reduce, kSumTypes, "sum over dims"), sum_kernel},
  };
  return kReductionKernels;
}

}  // namespace edgec

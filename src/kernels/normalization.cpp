// Normalization kernels: softmax, log_softmax, batch_norm (inference),
// layer_norm, group_norm, instance_norm and lrn. float32 and float16 compute in
// float32 (float16 is widened on load and rounded once on store); float64
// computes in double throughout (Compute<T>, f16_compute.h), never through
// float.
//
// Statistics use two passes (mean, then the mean of squared deviations):
// E[x^2] - E[x]^2 cancels catastrophically when the mean is large next to
// the spread. Each line is summed with independent float accumulators (so
// the loop vectorizes) and line totals are added in double.
//
// softmax needs exp on every element; std::exp does not vectorize without
// -ffast-math, so exp_nonpositive() below is a branch-free polynomial the
// compiler can vectorize, accurate to about 1 ulp on the range softmax uses.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "kernels/axis_util.h"
#include "kernels/families.h"

namespace edgec {
namespace {

using axis::AxisPlan, axis::StridedDims, axis::kChunk, axis::kLanes;

std::string str(int64_t v) { return std::to_string(v); }

// Branch-free select: GCC keeps a float `c ? a : b` as control flow under
// -ftrapping-math, which stops the loop around it from vectorizing.
inline float select(bool c, float a, float b) {
  const uint32_t m = 0u - static_cast<uint32_t>(c);
  return std::bit_cast<float>((std::bit_cast<uint32_t>(a) & m) | (std::bit_cast<uint32_t>(b) & ~m));
}

// exp(x) for x <= 0 (softmax's x - max), also fine up to ~88. Splits
// x = n*ln2 + r with |r| <= ln2/2 and evaluates exp(r) by its Taylor series to
// degree 7 (truncation error < 1e-8 relative), then scales by 2^n through the
// exponent bits. NaN propagates; below -87.3 (where the result would be
// subnormal) it flushes to 0, -inf included.
inline float exp_nonpositive(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;  // ln 2 split so n * kLn2Hi is exact
  constexpr float kLn2Lo = -2.12194440e-4f;
  constexpr float kShifter = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const bool flush = x < -87.3f;
  x = select(x > 88.3f, 88.3f, x);
  x = select(flush, -87.3f, x);
  const float t = x * kLog2e + kShifter;
  const float n = t - kShifter;
  const float r = (x - n * kLn2Hi) - n * kLn2Lo;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  // t's low mantissa bits hold n; unsigned math keeps NaN inputs well defined.
  const uint32_t biased = std::bit_cast<uint32_t>(t) - std::bit_cast<uint32_t>(kShifter) + 127u;
  const float scale = std::bit_cast<float>(biased << 23);
  return select(flush, 0.0f, p * scale);
}

// NaN-propagating max, so a NaN anywhere in a softmax line poisons the line
// (as in numpy) instead of being skipped.
inline float nan_max(float a, float b) { return (b > a || b != b) ? b : a; }

template <typename T>
float line_max(const T* p, int64_t n, int64_t s) {
  if constexpr (std::is_same_v<T, float>) {
    if (s == 1) return axis::extremum_contiguous<true>(p, n, -std::numeric_limits<float>::infinity());
  }
  float lanes[kLanes];
  for (float& l : lanes) l = -std::numeric_limits<float>::infinity();
  int64_t i = 0;
  if (s == 1) {
    for (; i + kLanes <= n; i += kLanes) {
      for (int l = 0; l < kLanes; ++l) lanes[l] = nan_max(lanes[l], axis::widen(p[i + l]));
    }
  } else {
    for (; i + kLanes <= n; i += kLanes) {
      for (int l = 0; l < kLanes; ++l) lanes[l] = nan_max(lanes[l], axis::widen(p[(i + l) * s]));
    }
  }
  float m = lanes[0];
  for (int l = 1; l < kLanes; ++l) m = nan_max(m, lanes[l]);
  for (; i < n; ++i) m = nan_max(m, axis::widen(p[i * s]));
  return m;
}

// sum over i of f(widen(p[i * s])) with kLanes accumulators (of double for
// float64).
template <typename T, typename F>
Compute<T> line_sum(const T* p, int64_t n, int64_t s, F f) {
  Compute<T> lanes[kLanes] = {};
  int64_t i = 0;
  if (s == 1) {
    for (; i + kLanes <= n; i += kLanes) {
      for (int l = 0; l < kLanes; ++l) lanes[l] += f(axis::widen(p[i + l]));
    }
  } else {
    for (; i + kLanes <= n; i += kLanes) {
      for (int l = 0; l < kLanes; ++l) lanes[l] += f(axis::widen(p[(i + l) * s]));
    }
  }
  for (int w = kLanes / 2; w > 0; w /= 2) {
    for (int l = 0; l < w; ++l) lanes[l] += lanes[l + w];
  }
  Compute<T> total = lanes[0];
  for (; i < n; ++i) total += f(axis::widen(p[i * s]));
  return total;
}

// The attributes of the family, declared once: the rows at the end of this
// file and the kernels read them.
struct NormDecls {
  AttrDecl dim = required(attr_int("dim", 0));
  AttrDecl eps = attr_float("eps", 1e-5);
  AttrDecl num_groups = required(attr_int("num_groups", 1, AttrRule::Positive));
  AttrDecl axis = attr_int("axis", -1);
  // lrn (ONNX LRN's attributes, its defaults).
  AttrDecl size = required(attr_int("size", 1, AttrRule::Positive));
  AttrDecl alpha = attr_float("alpha", 1e-4);
  AttrDecl beta = attr_float("beta", 0.75);
  AttrDecl bias = attr_float("bias", 1.0);
};

Error check_arity(std::string_view op, std::span<const Tensor> inputs, size_t min_in, size_t max_in,
                  std::span<Tensor> outputs) {
  if (inputs.size() < min_in || inputs.size() > max_in || outputs.size() != 1) {
    std::string want = min_in == max_in ? str(static_cast<int64_t>(min_in))
                                        : str(static_cast<int64_t>(min_in)) + " to " +
                                              str(static_cast<int64_t>(max_in));
    return fail(Error::InvalidArgument, std::string(op) + ": expected " + want +
                                            " inputs and 1 output, got " +
                                            str(static_cast<int64_t>(inputs.size())) + " and " +
                                            str(static_cast<int64_t>(outputs.size())));
  }
  return Error::Ok;
}

// The dtypes of the family.
constexpr DTypeSet kNormTypes = kFloatDTypes | DTypeSet{DType::Float64};

// x must be float; y must match it.
Error check_float_io(std::string_view op, const Tensor& x, const Tensor& y) {
  if (!kNormTypes.contains(x.dtype)) {
    return fail(Error::InvalidType, std::string(op) + ": expected a f32, f16 or f64 input, got " +
                                        std::string(dtype_name(x.dtype)));
  }
  if (y.dtype != x.dtype) {
    return fail(Error::InvalidType, std::string(op) + ": expected output dtype " +
                                        std::string(dtype_name(x.dtype)) + ", got " +
                                        std::string(dtype_name(y.dtype)));
  }
  return Error::Ok;
}

Error read_dim(std::string_view op, const Attrs& attrs, const AttrDecl& decl, const Tensor& x, int* dim) {
  const std::string_view name = decl.name;
  if (!attrs.has(name)) return fail(Error::InvalidArgument, std::string(op) + ": missing attribute " + std::string(name));
  const int64_t raw = decl.int_value(attrs);
  *dim = axis::wrap_dim(raw, x.rank);
  if (*dim < 0) {
    return fail(Error::InvalidArgument, std::string(op) + ": " + std::string(name) + " " + str(raw) +
                                            " is out of range for an input of rank " + str(x.rank));
  }
  return Error::Ok;
}

// ---------------------------------------------------------------------------
// softmax / log_softmax.

template <bool kLog, typename T>
void softmax_line(const T* x, int64_t n, int64_t xs, T* y, int64_t ys) {
  const float m = line_max(x, n, xs);
  if constexpr (!kLog && std::is_same_v<T, float>) {
    if (xs == 1 && ys == 1) {
      // Store the exponentials once, then rescale in place.
      float lanes[kLanes] = {};
      int64_t i = 0;
      for (; i + kLanes <= n; i += kLanes) {
        for (int l = 0; l < kLanes; ++l) {
          const float e = exp_nonpositive(x[i + l] - m);
          y[i + l] = e;
          lanes[l] += e;
        }
      }
      float total = 0.0f;
      for (float l : lanes) total += l;
      for (; i < n; ++i) {
        y[i] = exp_nonpositive(x[i] - m);
        total += y[i];
      }
      const float inv = 1.0f / total;
      for (int64_t k = 0; k < n; ++k) y[k] *= inv;
      return;
    }
  }
  const float total = line_sum(x, n, xs, [m](float v) { return exp_nonpositive(v - m); });
  if constexpr (kLog) {
    // (x - m) first: x - m is exact near the maximum, x - (m + log) is not.
    const float log_total = std::log(total);
    for (int64_t i = 0; i < n; ++i) y[i * ys] = axis::narrow<T>((axis::widen(x[i * xs]) - m) - log_total);
  } else {
    const float inv = 1.0f / total;
    for (int64_t i = 0; i < n; ++i) {
      y[i * ys] = axis::narrow<T>(exp_nonpositive(axis::widen(x[i * xs]) - m) * inv);
    }
  }
}

template <bool kLog, typename T>
void run_softmax(const AxisPlan& plan, const T* x, T* y, const KernelContext& ctx, int64_t work) {
  const int64_t in_step = plan.outer.line_stride(0);
  const int64_t out_step = plan.outer.line_stride(1);
  const int64_t n_axis = plan.len;
  const int64_t xs = plan.in_stride;
  const int64_t ys = plan.out_stride;
  axis::run_axis_tasks(plan, x, y, ctx.num_threads, work, [&](const T* in, T* out, int64_t n) {
    if (plan.axis_innermost) {
      for (int64_t j = 0; j < n; ++j) softmax_line<kLog>(in + j * in_step, n_axis, xs, out + j * out_step, ys);
      return;
    }
    // The axis is outer in memory: sweep it over n neighbouring lines at once.
    float m[kChunk];
    float total[kChunk];
    for (int64_t j = 0; j < n; ++j) {
      m[j] = -std::numeric_limits<float>::infinity();
      total[j] = 0.0f;
    }
    axis::with_step(in_step, [&](auto step) {
      for (int64_t r = 0; r < n_axis; ++r) {
        const T* row = in + r * xs;
        for (int64_t j = 0; j < n; ++j) m[j] = nan_max(m[j], axis::widen(row[j * step]));
      }
      for (int64_t r = 0; r < n_axis; ++r) {
        const T* row = in + r * xs;
        for (int64_t j = 0; j < n; ++j) total[j] += exp_nonpositive(axis::widen(row[j * step]) - m[j]);
      }
    });
    if constexpr (kLog) {
      for (int64_t j = 0; j < n; ++j) total[j] = std::log(total[j]);
    } else {
      for (int64_t j = 0; j < n; ++j) total[j] = 1.0f / total[j];
    }
    const bool unit = in_step == 1 && out_step == 1;
    axis::with_step(unit ? 1 : 0, [&](auto contiguous) {
      const int64_t is = contiguous == 1 ? 1 : in_step;
      const int64_t os = contiguous == 1 ? 1 : out_step;
      for (int64_t r = 0; r < n_axis; ++r) {
        const T* row = in + r * xs;
        T* out_row = out + r * ys;
        for (int64_t j = 0; j < n; ++j) {
          const float v = axis::widen(row[j * is]) - m[j];
          if constexpr (kLog) {
            out_row[j * os] = axis::narrow<T>(v - total[j]);
          } else {
            out_row[j * os] = axis::narrow<T>(exp_nonpositive(v) * total[j]);
          }
        }
      }
    });
  });
}

// float64: each line in double with std::exp, a plain loop (float64 is for
// accuracy, not speed). NaN poisons its line, as in the float path.
template <bool kLog>
void softmax_line_f64(const double* x, int64_t n, int64_t xs, double* y, int64_t ys) {
  double m = -std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i * xs];
    m = (v > m || v != v) ? v : m;
  }
  double total = 0.0;
  for (int64_t i = 0; i < n; ++i) total += std::exp(x[i * xs] - m);
  if constexpr (kLog) {
    const double log_total = std::log(total);
    for (int64_t i = 0; i < n; ++i) y[i * ys] = (x[i * xs] - m) - log_total;
  } else {
    for (int64_t i = 0; i < n; ++i) y[i * ys] = std::exp(x[i * xs] - m) / total;
  }
}

template <bool kLog>
void run_softmax_f64(const AxisPlan& plan, const double* x, double* y, const KernelContext& ctx, int64_t work) {
  const int64_t in_step = plan.outer.line_stride(0);
  const int64_t out_step = plan.outer.line_stride(1);
  axis::run_axis_tasks(plan, x, y, ctx.num_threads, work, [&](const double* in, double* out, int64_t n) {
    for (int64_t j = 0; j < n; ++j) {
      softmax_line_f64<kLog>(in + j * in_step, plan.len, plan.in_stride, out + j * out_step, plan.out_stride);
    }
  });
}

template <bool kLog>
Error softmax_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                     std::span<Tensor> outputs) {
  constexpr std::string_view op = kLog ? "log_softmax" : "softmax";
  // Check arguments.
  EDGEC_TRY(check_arity(op, inputs, 1, 1, outputs));
  const Tensor& x = inputs[0];
  Tensor& y = outputs[0];
  EDGEC_TRY(check_float_io(op, x, y));
  int dim = 0;
  EDGEC_TRY(read_dim(op, attrs, declared<NormDecls>().dim, x, &dim));

  // Size the output.
  EDGEC_TRY(y.resize(x.shape()));
  if (y.numel() == 0) return Error::Ok;

  // Normalize.
  const AxisPlan plan = axis::make_axis_plan(x, dim, y.strides.data());
  if (x.dtype == DType::Float64) {
    run_softmax_f64<kLog>(plan, x.data_as<double>(), y.data_as<double>(), ctx, x.numel());
    return Error::Ok;
  }
  dispatch_float(x.dtype, [&]<typename T>() {
    run_softmax<kLog>(plan, x.data_as<T>(), y.data_as<T>(), ctx, x.numel());
  });
  return Error::Ok;
}

// ---------------------------------------------------------------------------
// Per-channel parameters (weight, bias, statistics).

// Runs fn.template operator()<T>() with T the storage type of a float dtype
// of the family (float, Half or double).
template <typename Fn>
void dispatch_norm(DType dtype, Fn&& fn) {
  if (dtype == DType::Float64) {
    fn.template operator()<double>();
  } else {
    dispatch_float(dtype, fn);
  }
}

// A float parameter read by channel index, whatever its float dtype; the
// caller rounds it to its compute type.
struct Param {
  const void* data = nullptr;
  DType dtype = DType::Float32;
  int64_t stride = 0;

  double at(int64_t i) const {
    if (data == nullptr) return 0.0;
    switch (dtype) {
      case DType::Float64: return static_cast<const double*>(data)[i * stride];
      case DType::Float16: return half_to_float(static_cast<const Half*>(data)[i * stride]);
      default: return static_cast<const float*>(data)[i * stride];
    }
  }
  template <typename C>
  C get(int64_t i) const {
    return static_cast<C>(at(i));
  }
};

// Checks that `p` is a 1-D float tensor of `channels` elements.
Error check_channel_param(std::string_view op, std::string_view name, const Tensor& p,
                          int64_t channels, const Tensor& x, bool same_dtype) {
  if (!kNormTypes.contains(p.dtype) || (same_dtype && p.dtype != x.dtype)) {
    return fail(Error::InvalidType, std::string(op) + ": expected " + std::string(name) + " of dtype " +
                                        std::string(same_dtype ? dtype_name(x.dtype) : "f32, f16 or f64") +
                                        ", got " + std::string(dtype_name(p.dtype)));
  }
  if (p.rank != 1 || p.sizes[0] != channels) {
    return fail(Error::InvalidShape, std::string(op) + ": expected " + std::string(name) + " of shape [" +
                                         str(channels) + "] (channels of input " +
                                         shape_string(x.shape()) + "), got " +
                                         shape_string(p.shape()));
  }
  return Error::Ok;
}

// y = x * scale + shift over one channel's elements (all dims from 2 on).
template <typename T>
void affine_block(const StridedDims<2>& spatial, const T* x, T* y, Compute<T> scale, Compute<T> shift) {
  const int64_t n = spatial.line_len();
  const int64_t xs = spatial.line_stride(0);
  const int64_t ys = spatial.line_stride(1);
  axis::for_each_line(spatial, [&](const std::array<int64_t, 2>& off) {
    const T* p = x + off[0];
    T* q = y + off[1];
    if (xs == 1 && ys == 1) {
      for (int64_t i = 0; i < n; ++i) q[i] = axis::narrow<T>(axis::widen(p[i]) * scale + shift);
    } else {
      for (int64_t i = 0; i < n; ++i) q[i * ys] = axis::narrow<T>(axis::widen(p[i * xs]) * scale + shift);
    }
  });
}

// The dims after the channel dim, walked by x and y.
StridedDims<2> spatial_dims(const Tensor& x, const Tensor& y) {
  StridedDims<2> d;
  for (int i = 2; i < x.rank; ++i) d.push(x.sizes[i], {x.strides[i], y.strides[i]});
  d.coalesce();
  return d;
}

// ---------------------------------------------------------------------------
// batch_norm (inference): y = (x - mean) / sqrt(var + eps) * weight + bias
// per channel (dim 1).

// Calls body(c0, x_block, y_block) for every block of `per_group`
// channels from c0 of every sample of x and y (dims 0 and 1), in parallel
// when the tensor is large enough.
template <typename T, typename Body>
void for_each_channel_block(const Tensor& x, Tensor& y, int64_t per_group, const KernelContext& ctx, Body&& body) {
  const int64_t groups = x.sizes[1] / per_group;
  const int64_t blocks = x.sizes[0] * groups;
  const T* xd = x.data_as<T>();
  T* yd = y.data_as<T>();
  const int threads = axis::thread_count(ctx.num_threads, x.numel(), blocks);
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (int64_t block = 0; block < blocks; ++block) {
    const int64_t n = block / groups;
    const int64_t c0 = (block % groups) * per_group;
    body(c0, xd + n * x.strides[0] + c0 * x.strides[1], yd + n * y.strides[0] + c0 * y.strides[1]);
  }
}

template <typename T>
void run_batch_norm(const Tensor& x, Tensor& y, const Param* params, double eps_attr, const KernelContext& ctx) {
  using C = Compute<T>;
  const C eps = static_cast<C>(eps_attr);
  const StridedDims<2> spatial = spatial_dims(x, y);
  for_each_channel_block<T>(x, y, 1, ctx, [&](int64_t c, const T* xc, T* yc) {
    const C scale = params[0].get<C>(c) / std::sqrt(params[3].get<C>(c) + eps);
    const C shift = params[1].get<C>(c) - params[2].get<C>(c) * scale;
    affine_block(spatial, xc, yc, scale, shift);
  });
}

Error batch_norm_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                        std::span<Tensor> outputs) {
  constexpr std::string_view op = "batch_norm";
  constexpr std::string_view kNames[] = {"weight", "bias", "running_mean", "running_var"};
  // Check arguments.
  EDGEC_TRY(check_arity(op, inputs, 5, 5, outputs));
  const Tensor& x = inputs[0];
  Tensor& y = outputs[0];
  EDGEC_TRY(check_float_io(op, x, y));
  if (x.rank < 2) {
    return fail(Error::InvalidShape, "batch_norm: expected an input of rank >= 2 (N, C, ...), got " +
                                         shape_string(x.shape()));
  }
  Param params[4];
  for (int i = 0; i < 4; ++i) {
    const Tensor& p = inputs[1 + i];
    EDGEC_TRY(check_channel_param(op, kNames[i], p, x.sizes[1], x, false));
    params[i] = Param{p.data, p.dtype, p.strides[0]};
  }
  const double eps = declared<NormDecls>().eps.float_value(attrs);

  // Size the output.
  EDGEC_TRY(y.resize(x.shape()));
  if (y.numel() == 0) return Error::Ok;

  // Normalize.
  dispatch_norm(x.dtype, [&]<typename T>() { run_batch_norm<T>(x, y, params, eps, ctx); });
  return Error::Ok;
}

// ---------------------------------------------------------------------------
// group_norm / instance_norm: statistics per (sample, group of channels),
// affine per channel.

// Mean and 1/sqrt(var + eps) of channels [c0, c0 + count) of sample n.
template <typename T>
void group_stats(const T* x, int64_t channel_stride, int64_t count, const StridedDims<2>& spatial,
                 double eps, Compute<T>* mean, Compute<T>* rstd) {
  using C = Compute<T>;
  const int64_t n = spatial.line_len();
  const int64_t xs = spatial.line_stride(0);
  const double elements = static_cast<double>(count) * static_cast<double>(spatial.numel());
  double total = 0.0;
  for (int64_t c = 0; c < count; ++c) {
    axis::for_each_line(spatial, [&](const std::array<int64_t, 2>& off) {
      total += line_sum(x + c * channel_stride + off[0], n, xs, [](C v) { return v; });
    });
  }
  const C m = static_cast<C>(total / elements);
  double squares = 0.0;
  for (int64_t c = 0; c < count; ++c) {
    axis::for_each_line(spatial, [&](const std::array<int64_t, 2>& off) {
      squares += line_sum(x + c * channel_stride + off[0], n, xs, [m](C v) { return (v - m) * (v - m); });
    });
  }
  *mean = m;
  *rstd = static_cast<C>(1.0 / std::sqrt(squares / elements + eps));
}

template <typename T>
void run_group_norm(const Tensor& x, Tensor& y, int64_t groups, Param weight, Param bias, bool has_w,
                    bool has_b, double eps, const KernelContext& ctx) {
  using C = Compute<T>;
  const int64_t per_group = x.sizes[1] / groups;
  const StridedDims<2> spatial = spatial_dims(x, y);
  for_each_channel_block<T>(x, y, per_group, ctx, [&](int64_t c0, const T* xb, T* yb) {
    C mean = 0;
    C rstd = 0;
    group_stats(xb, x.strides[1], per_group, spatial, eps, &mean, &rstd);
    for (int64_t c = 0; c < per_group; ++c) {
      const C scale = (has_w ? weight.get<C>(c0 + c) : C(1)) * rstd;
      const C shift = (has_b ? bias.get<C>(c0 + c) : C(0)) - mean * scale;
      affine_block(spatial, xb + c * x.strides[1], yb + c * y.strides[1], scale, shift);
    }
  });
}

// Shared by group_norm (groups from the attribute) and instance_norm (one
// group per channel).
Error grouped_norm(std::string_view op, bool instance, KernelContext& ctx, std::span<const Tensor> inputs,
                   const Attrs& attrs, std::span<Tensor> outputs) {
  // Check arguments.
  EDGEC_TRY(check_arity(op, inputs, 1, 3, outputs));
  const Tensor& x = inputs[0];
  Tensor& y = outputs[0];
  EDGEC_TRY(check_float_io(op, x, y));
  if (x.rank < 2) {
    return fail(Error::InvalidShape, std::string(op) + ": expected an input of rank >= 2 (N, C, ...), got " +
                                         shape_string(x.shape()));
  }
  const int64_t channels = x.sizes[1];
  int64_t groups = channels;
  if (!instance) {
    if (!attrs.has(declared<NormDecls>().num_groups.name))
      return fail(Error::InvalidArgument, "group_norm: missing attribute num_groups");
    groups = declared<NormDecls>().num_groups.int_value(attrs);
    if (groups <= 0 || channels % groups != 0) {
      return fail(Error::InvalidArgument, "group_norm: num_groups " + str(groups) +
                                              " must be positive and divide the " + str(channels) +
                                              " channels of input " + shape_string(x.shape()));
    }
  }
  Param weight;
  Param bias;
  const bool has_w = inputs.size() >= 2;
  const bool has_b = inputs.size() >= 3;
  if (has_w) {
    EDGEC_TRY(check_channel_param(op, "weight", inputs[1], channels, x, true));
    weight = Param{inputs[1].data, inputs[1].dtype, inputs[1].strides[0]};
  }
  if (has_b) {
    EDGEC_TRY(check_channel_param(op, "bias", inputs[2], channels, x, true));
    bias = Param{inputs[2].data, inputs[2].dtype, inputs[2].strides[0]};
  }
  const double eps = declared<NormDecls>().eps.float_value(attrs);

  // Size the output.
  EDGEC_TRY(y.resize(x.shape()));
  if (y.numel() == 0) return Error::Ok;

  // Normalize.
  dispatch_norm(x.dtype, [&]<typename T>() {
    run_group_norm<T>(x, y, groups, weight, bias, has_w, has_b, eps, ctx);
  });
  return Error::Ok;
}

Error group_norm_kernel(KernelContext& ctx, std::span<const Tensor> in, const Attrs& a, std::span<Tensor> out) {
  return grouped_norm("group_norm", false, ctx, in, a, out);
}
Error instance_norm_kernel(KernelContext& ctx, std::span<const Tensor> in, const Attrs& a,
                           std::span<Tensor> out) {
  return grouped_norm("instance_norm", true, ctx, in, a, out);
}

// ---------------------------------------------------------------------------
// layer_norm: statistics over dims [axis, rank) per leading index; weight
// and bias broadcast against x.shape[axis:].

template <typename T, bool kHasW, bool kHasB>
void run_layer_norm(const Tensor& x, Tensor& y, int axis_dim, const T* w, const T* b,
                    const StridedDims<4>& inner, double eps, const KernelContext& ctx) {
  using C = Compute<T>;
  StridedDims<2> outer;
  for (int i = 0; i < axis_dim; ++i) outer.push(x.sizes[i], {x.strides[i], y.strides[i]});
  outer.coalesce();
  const int64_t n = inner.line_len();
  const int64_t xs = inner.line_stride(0);
  const int64_t ys = inner.line_stride(1);
  const int64_t ws = inner.line_stride(2);
  const int64_t bs = inner.line_stride(3);
  const double elements = static_cast<double>(inner.numel());
  // One task a row (a leading index): its statistics, then its outputs.
  auto row = [&](const T* xr, T* yr, int64_t) {
    double total = 0.0;
    axis::for_each_line(inner, [&](const std::array<int64_t, 4>& off) {
      total += line_sum(xr + off[0], n, xs, [](C v) { return v; });
    });
    const C mean = static_cast<C>(total / elements);
    double squares = 0.0;
    axis::for_each_line(inner, [&](const std::array<int64_t, 4>& off) {
      squares += line_sum(xr + off[0], n, xs, [mean](C v) { return (v - mean) * (v - mean); });
    });
    const C rstd = static_cast<C>(1.0 / std::sqrt(squares / elements + eps));

    axis::for_each_line(inner, [&](const std::array<int64_t, 4>& off) {
      const T* p = xr + off[0];
      T* q = yr + off[1];
      if (xs == 1 && ys == 1 && (!kHasW || ws == 1) && (!kHasB || bs == 1)) {
        // The common contiguous case, spelled out so the loop vectorizes.
        const T* wp = kHasW ? w + off[2] : nullptr;
        const T* bp = kHasB ? b + off[3] : nullptr;
        for (int64_t i = 0; i < n; ++i) {
          C v = (axis::widen(p[i]) - mean) * rstd;
          if constexpr (kHasW) v *= axis::widen(wp[i]);
          if constexpr (kHasB) v += axis::widen(bp[i]);
          q[i] = axis::narrow<T>(v);
        }
        return;
      }
      for (int64_t i = 0; i < n; ++i) {
        C v = (axis::widen(p[i * xs]) - mean) * rstd;
        if constexpr (kHasW) v *= axis::widen(w[off[2] + i * ws]);
        if constexpr (kHasB) v += axis::widen(b[off[3] + i * bs]);
        q[i * ys] = axis::narrow<T>(v);
      }
    });
  };
  axis::run_tasks(outer, 1, x.data_as<T>(), y.data_as<T>(), ctx.num_threads, x.numel(), row);
}

template <typename T>
void layer_norm_typed(const Tensor& x, Tensor& y, int axis_dim, const Tensor* w, const Tensor* b,
                      const StridedDims<4>& inner, double eps, const KernelContext& ctx) {
  const T* wd = w ? w->data_as<T>() : nullptr;
  const T* bd = b ? b->data_as<T>() : nullptr;
  if (w && b) {
    run_layer_norm<T, true, true>(x, y, axis_dim, wd, bd, inner, eps, ctx);
  } else if (w) {
    run_layer_norm<T, true, false>(x, y, axis_dim, wd, bd, inner, eps, ctx);
  } else if (b) {
    run_layer_norm<T, false, true>(x, y, axis_dim, wd, bd, inner, eps, ctx);
  } else {
    run_layer_norm<T, false, false>(x, y, axis_dim, wd, bd, inner, eps, ctx);
  }
}

// Strides that broadcast `p` against x.shape[axis:] (right-aligned, size-1
// dims stretch), or an error naming the mismatch.
Error broadcast_param(std::string_view name, const Tensor& p, const Tensor& x, int axis_dim,
                      std::array<int64_t, kMaxRank>& strides) {
  const int norm_rank = x.rank - axis_dim;
  bool ok = p.rank <= norm_rank && p.dtype == x.dtype;
  for (int i = 0; ok && i < norm_rank; ++i) {
    const int pi = i - (norm_rank - p.rank);
    const int64_t size = pi >= 0 ? p.sizes[pi] : 1;
    if (size != x.sizes[axis_dim + i] && size != 1) ok = false;
    strides[axis_dim + i] = (pi >= 0 && size != 1) ? p.strides[pi] : 0;
  }
  if (p.dtype != x.dtype) {
    return fail(Error::InvalidType, "layer_norm: expected " + std::string(name) + " of dtype " +
                                        std::string(dtype_name(x.dtype)) + ", got " +
                                        std::string(dtype_name(p.dtype)));
  }
  if (!ok) {
    return fail(Error::InvalidShape, "layer_norm: expected " + std::string(name) + " of shape " +
                                         shape_string(x.shape().subspan(axis_dim)) + " (input " +
                                         shape_string(x.shape()) + ", axis " + str(axis_dim) + "), got " +
                                         shape_string(p.shape()));
  }
  return Error::Ok;
}

Error layer_norm_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                        std::span<Tensor> outputs) {
  constexpr std::string_view op = "layer_norm";
  // Check arguments.
  EDGEC_TRY(check_arity(op, inputs, 1, 3, outputs));
  const Tensor& x = inputs[0];
  Tensor& y = outputs[0];
  EDGEC_TRY(check_float_io(op, x, y));
  if (x.rank < 1) return fail(Error::InvalidShape, "layer_norm: expected an input of rank >= 1, got []");
  const int64_t raw_axis = declared<NormDecls>().axis.int_value(attrs);
  if (raw_axis < -x.rank || raw_axis >= x.rank) {
    return fail(Error::InvalidArgument, "layer_norm: axis " + str(raw_axis) +
                                            " is out of range for an input of rank " + str(x.rank));
  }
  const int axis_dim = static_cast<int>(raw_axis < 0 ? raw_axis + x.rank : raw_axis);
  const Tensor* w = inputs.size() >= 2 ? &inputs[1] : nullptr;
  const Tensor* b = inputs.size() >= 3 ? &inputs[2] : nullptr;
  std::array<int64_t, kMaxRank> w_strides{};
  std::array<int64_t, kMaxRank> b_strides{};
  if (w) EDGEC_TRY(broadcast_param("weight", *w, x, axis_dim, w_strides));
  if (b) EDGEC_TRY(broadcast_param("bias", *b, x, axis_dim, b_strides));
  const double eps = declared<NormDecls>().eps.float_value(attrs);

  // Size the output.
  EDGEC_TRY(y.resize(x.shape()));
  if (y.numel() == 0) return Error::Ok;

  // Normalize.
  StridedDims<4> inner;
  for (int i = axis_dim; i < x.rank; ++i) {
    inner.push(x.sizes[i], {x.strides[i], y.strides[i], w_strides[i], b_strides[i]});
  }
  inner.coalesce();
  dispatch_norm(x.dtype, [&]<typename T>() { layer_norm_typed<T>(x, y, axis_dim, w, b, inner, eps, ctx); });
  return Error::Ok;
}


// ---------------------------------------------------------------------------
// lrn: local response normalization across channels (ONNX LRN),
// y = x / (bias + alpha / size * sum of x^2 over the window)^beta, where the
// window of channel c is [c - floor((size-1)/2), c + ceil((size-1)/2)] cut to
// the channels (ONNX's; torch's local_response_norm puts the longer half
// before c when size is even).

template <typename T>
void run_lrn(const Tensor& x, Tensor& y, int64_t size, double alpha, double beta, double bias,
             const KernelContext& ctx) {
  using C = Compute<T>;
  const int64_t channels = x.sizes[1];
  const int64_t before = (size - 1) / 2, after = size / 2;
  const C scale = static_cast<C>(alpha / static_cast<double>(size));
  const C shift = static_cast<C>(bias);
  const C power = static_cast<C>(-beta);
  const StridedDims<2> spatial = spatial_dims(x, y);
  const int64_t n = spatial.line_len();
  const int64_t xs = spatial.line_stride(0);
  const int64_t ys = spatial.line_stride(1);
  const int64_t cs = x.strides[1];
  for_each_channel_block<T>(x, y, 1, ctx, [&](int64_t c, const T* xc, T* yc) {
    // The window as channel offsets from c.
    const int64_t lo = std::max<int64_t>(0, c - before) - c;
    const int64_t hi = std::min(channels - 1, c + after) - c;
    axis::for_each_line(spatial, [&](const std::array<int64_t, 2>& off) {
      const T* p = xc + off[0];
      T* q = yc + off[1];
      for (int64_t i = 0; i < n; ++i) {
        C squares = 0;
        for (int64_t k = lo; k <= hi; ++k) {
          const C v = axis::widen(p[i * xs + k * cs]);
          squares += v * v;
        }
        q[i * ys] = axis::narrow<T>(axis::widen(p[i * xs]) * std::pow(shift + scale * squares, power));
      }
    });
  });
}

Error lrn_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                 std::span<Tensor> outputs) {
  constexpr std::string_view op = "lrn";
  const NormDecls& d = declared<NormDecls>();
  // Check arguments.
  EDGEC_TRY(check_arity(op, inputs, 1, 1, outputs));
  const Tensor& x = inputs[0];
  Tensor& y = outputs[0];
  EDGEC_TRY(check_float_io(op, x, y));
  if (x.rank < 2) {
    return fail(Error::InvalidShape, "lrn: expected an input of rank >= 2 (N, C, ...), got " + shape_string(x.shape()));
  }
  if (!attrs.has(d.size.name)) return fail(Error::InvalidArgument, "lrn: missing attribute size");
  int64_t size = 0;
  double alpha = 0, beta = 0, bias = 0;
  EDGEC_TRY(read_attr(op, attrs, d.size, size));
  EDGEC_TRY(read_attr(op, attrs, d.alpha, alpha));
  EDGEC_TRY(read_attr(op, attrs, d.beta, beta));
  EDGEC_TRY(read_attr(op, attrs, d.bias, bias));

  // Size the output.
  EDGEC_TRY(y.resize(x.shape()));
  if (y.numel() == 0) return Error::Ok;

  // Normalize.
  dispatch_norm(x.dtype, [&]<typename T>() { run_lrn<T>(x, y, size, alpha, beta, bias, ctx); });
  return Error::Ok;
}

}  // namespace

std::span<const KernelEntry> normalization_kernels() {
  const NormDecls& d = declared<NormDecls>();
  const OperandDecl input{"input"};
  const OperandDecl opt_weight{"weight", OperandKind::Optional};
  const OperandDecl opt_bias{"bias", OperandKind::Optional};
  auto row = [](std::string_view name, std::vector<OperandDecl> operands, std::vector<AttrDecl> attrs,
                std::string_view summary) {
    return declare(name, "nn", std::move(operands), std::move(attrs), kNormTypes, 0, summary);
  };
  static const KernelEntry kNormalizationKernels[] = {
      {row("batch_norm", {input, {"weight"}, {"bias"}, {"running_mean"}, {"running_var"}}, {d.eps},
           "inference batch normalization over channel dim 1"),
       batch_norm_kernel},
      {row("group_norm", {input, opt_weight, opt_bias}, {d.num_groups, d.eps},
           "normalization over groups of channels with per-channel affine"),
       group_norm_kernel},
      {row("instance_norm", {input, opt_weight, opt_bias}, {d.eps},
           "normalization per sample and channel with per-channel affine"),
       instance_norm_kernel},
      {row("layer_norm", {input, opt_weight, opt_bias}, {d.axis, d.eps},
           "normalization over dims [axis, rank) with optional affine"),
       layer_norm_kernel},
      {row("lrn", {input}, {d.size, d.alpha, d.beta, d.bias},
           "local response normalization across channels (ONNX LRN's window)"),
       lrn_kernel},
      {row("log_softmax", {{"self"}}, {d.dim}, "log of softmax along dim"), softmax_kernel<true>},
      {row("softmax", {{"self"}}, {d.dim}, "softmax along dim"), softmax_kernel<false>},
  };
  return kNormalizationKernels;
}

}  // namespace edgec

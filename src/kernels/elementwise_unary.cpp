// Unary elementwise kernels: float math (computed in float32 for float16, in
// double for float64), activations with torch's definitions and defaults (ONNX's where torch has
// none), the few ops that also take integers (neg, abs, relu, sign, clamp,
// shrink) and bitwise_not, which takes only integers. exp, tanh, erf and
// what is built on them (sigmoid, gelu) use the vectorizable versions of
// elementwise_math.h; the rest call libm.
#include <array>
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/elementwise_common.h"
#include "kernels/elementwise_math.h"

namespace edgec {
namespace {

/// The float attributes of a unary functor: declared once, read in order into
/// doubles that the functor's `set` turns into its own fields (so a functor
/// states its attributes and their meaning, not the reading).
template <size_t N>
struct FloatAttrs {
  std::array<AttrDecl, N> decls;

  std::vector<AttrDecl> list() const { return {decls.begin(), decls.end()}; }
  Error read(std::string_view op, const Attrs& attrs, std::array<double, N>& values) const {
    for (size_t i = 0; i < N; ++i) EDGEC_TRY(read_attr(op, attrs, decls[i], values[i]));
    return Error::Ok;
  }
};

/// Reads an Op's declared float attributes (`attr_decls()`) into the functor (a
/// `set` that can refuse the values returns an Error); an Op without them is
/// used as it is.
template <typename Op>
Error bind_attrs(const Attrs& attrs, Op& op) {
  if constexpr (requires { Op::attr_decls(); }) {
    std::array<double, std::tuple_size_v<std::remove_cvref_t<decltype(Op::attr_decls().decls)>>> values{};
    EDGEC_TRY(Op::attr_decls().read(Op::kName, attrs, values));
    if constexpr (std::is_void_v<decltype(op.set(values))>) {
      op.set(values);
    } else {
      return op.set(values);
    }
  }
  return Error::Ok;
}

/// The kernel of a unary op: input dtype from `Types`, output of that dtype
/// (bool for predicates). An Op with float attributes (`attr_decls()`, `set`) reads
/// them first; one with `bind<T>()` returns the functor for compute type T
/// (to hoist per-dtype constants out of the loop).
template <typename Op, typename Types, bool kBoolOut = false>
Error unary_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                   std::span<Tensor> outputs) {
  constexpr std::string_view op_name = Op::kName;
  EDGEC_TRY(check_operands(op_name, inputs, 1, outputs, 1));
  const Tensor& x = inputs[0];
  Tensor& out = outputs[0];

  // Attributes and dtypes.
  Op op{};
  EDGEC_TRY(bind_attrs(attrs, op));
  EDGEC_TRY(check_dtype_in(op_name, x, Types{}));
  EDGEC_TRY(check_output_dtype(op_name, out, kBoolOut ? DType::Bool : x.dtype));

  // Shape and compute.
  EDGEC_TRY(resize_output(op_name, out, x.shape()));
  dispatch_dtype(Types{}, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using O = std::conditional_t<kBoolOut, bool, T>;
    if constexpr (requires { op.template bind<compute_t<T>>(); }) {
      map_unary<O, T>(ctx, x, out, op.template bind<compute_t<T>>());
    } else {
      map_unary<O, T>(ctx, x, out, op);
    }
  });
  return Error::Ok;
}

// --- Ops on numbers of any kind ---------------------------------------------

struct Neg {
  static constexpr std::string_view kName = "neg";
  template <typename T>
  T operator()(T x) const {
    if constexpr (std::is_integral_v<T>) return wrapping_neg(x);
    else return -x;
  }
};

struct Abs {
  static constexpr std::string_view kName = "abs";
  template <typename T>
  T operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>) return std::fabs(x);
    else if constexpr (std::is_signed_v<T>) return x < 0 ? wrapping_neg(x) : x;  // abs(MIN) wraps
    else return x;
  }
};

struct Relu {
  static constexpr std::string_view kName = "relu";
  template <typename T>
  T operator()(T x) const {
    // `x < 0` rather than `x > 0` so NaN passes through, as in torch.
    if constexpr (std::is_signed_v<T> || std::is_floating_point_v<T>) return x < 0 ? T(0) : x;
    else return x;
  }
};

struct Sign {
  static constexpr std::string_view kName = "sign";
  template <typename T>
  T operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>) return x > 0 ? T(1) : x < 0 ? T(-1) : x == 0 ? T(0) : x;
    else if constexpr (std::is_signed_v<T>) return static_cast<T>((x > 0) - (x < 0));
    else return static_cast<T>(x > 0);
  }
};

struct Clamp {
  static constexpr std::string_view kName = "clamp";
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();

  static const FloatAttrs<2>& attr_decls() {
    // Built on first use: the kernel tables may be read during another
    // file's static initialization.
    static const FloatAttrs<2> a{{attr_float("min", -std::numeric_limits<double>::infinity()),
                                            attr_float("max", std::numeric_limits<double>::infinity())}};
    return a;
  }
  Error set(const std::array<double, 2>& v) {
    lo = v[0];
    hi = v[1];
    if (std::isnan(lo) || std::isnan(hi)) {
      return fail(Error::InvalidArgument, "clamp: expected numeric bounds, got min " + std::to_string(lo) +
                                              ", max " + std::to_string(hi));
    }
    return Error::Ok;
  }

  // Like numpy's clip: max with min, then min with max, so min > max gives
  // max everywhere.
  template <typename T>
  auto bind() const {
    if constexpr (std::is_floating_point_v<T>) {
      const T l = static_cast<T>(lo);
      const T h = static_cast<T>(hi);
      return [l, h](T x) { return std::min(std::max(x, l), h); };
    } else {
      // The bounds stay real numbers: an integer x is below lo exactly when
      // x < ceil(lo), and then becomes lo truncated, as if x were clamped in
      // float and cast back. Bounds outside the dtype's range saturate.
      const T below = saturating_float_to_int<T>(std::ceil(lo));
      const T above = saturating_float_to_int<T>(std::floor(hi));
      const T lo_value = saturating_float_to_int<T>(lo);
      const T hi_value = saturating_float_to_int<T>(hi);
      const bool all_hi = lo > hi;
      return [=](T x) {
        if (all_hi) return hi_value;
        return x < below ? lo_value : x > above ? hi_value : x;
      };
    }
  }
};

// --- Float math ----------------------------------------------------------------
// Every functor is a template on its compute type F: float (f32, and f16
// widened) or double (f64). float64 is computed in double with the C library
// (the vexp/vtanh/verf overloads of elementwise_math.h), never through float:
// it is for accuracy, not speed.

#define EDGEC_FLOAT_UNARY(Name, name, expr)          \
  struct Name {                                     \
    static constexpr std::string_view kName = name; \
    template <typename F>                           \
    F operator()(F x) const {                       \
      return expr;                                  \
    }                                               \
  };
EDGEC_FLOAT_UNARY(Exp, "exp", vexp(x))
EDGEC_FLOAT_UNARY(Log, "log", std::log(x))
EDGEC_FLOAT_UNARY(Sqrt, "sqrt", std::sqrt(x))
EDGEC_FLOAT_UNARY(Rsqrt, "rsqrt", F(1) / std::sqrt(x))
EDGEC_FLOAT_UNARY(Reciprocal, "reciprocal", F(1) / x)
EDGEC_FLOAT_UNARY(Sin, "sin", std::sin(x))
EDGEC_FLOAT_UNARY(Cos, "cos", std::cos(x))
EDGEC_FLOAT_UNARY(Tanh, "tanh", vtanh(x))
EDGEC_FLOAT_UNARY(Tan, "tan", std::tan(x))
EDGEC_FLOAT_UNARY(Asin, "asin", std::asin(x))
EDGEC_FLOAT_UNARY(Acos, "acos", std::acos(x))
EDGEC_FLOAT_UNARY(Atan, "atan", std::atan(x))
EDGEC_FLOAT_UNARY(Sinh, "sinh", std::sinh(x))
EDGEC_FLOAT_UNARY(Cosh, "cosh", std::cosh(x))
EDGEC_FLOAT_UNARY(Asinh, "asinh", std::asinh(x))
EDGEC_FLOAT_UNARY(Acosh, "acosh", std::acosh(x))
EDGEC_FLOAT_UNARY(Atanh, "atanh", std::atanh(x))
EDGEC_FLOAT_UNARY(Erf, "erf", verf(x))
EDGEC_FLOAT_UNARY(Floor, "floor", std::floor(x))
EDGEC_FLOAT_UNARY(Ceil, "ceil", std::ceil(x))
// The default rounding mode is to nearest, ties to even, as numpy rounds.
EDGEC_FLOAT_UNARY(Round, "round", std::nearbyint(x))
EDGEC_FLOAT_UNARY(Hardsigmoid, "hardsigmoid", std::min(std::max(x + F(3), F(0)), F(6)) / F(6))
EDGEC_FLOAT_UNARY(Hardswish, "hardswish", x * std::min(std::max(x + F(3), F(0)), F(6)) / F(6))
// ONNX Softsign (torch.nn.Softsign).
EDGEC_FLOAT_UNARY(Softsign, "softsign", x / (F(1) + std::fabs(x)))
#undef EDGEC_FLOAT_UNARY

struct Sigmoid {
  static constexpr std::string_view kName = "sigmoid";
  // e^-|x| never overflows: 1/(1+e) for x >= 0, e/(1+e) below, which keeps
  // the tiny (even subnormal) results of large negative x instead of 0.
  float operator()(float x) const {
    const float e = vexp(-std::fabs(x));
    const float s = 1.0f / (1.0f + e);
    return blend(x < 0, e * s, s);
  }
  double operator()(double x) const {
    const double e = std::exp(-std::fabs(x));
    const double s = 1.0 / (1.0 + e);
    return x < 0 ? e * s : s;
  }
};

struct IsNan {
  static constexpr std::string_view kName = "isnan";
  template <typename F>
  bool operator()(F x) const {
    return x != x;
  }
};

// ONNX IsInf: which infinities count is fixed per kernel instance, so the
// element loop tests only those.
template <bool kPositive, bool kNegative>
struct IsInf {
  static constexpr std::string_view kName = "isinf";
  template <typename F>
  bool operator()(F x) const {
    constexpr F kInf = std::numeric_limits<F>::infinity();
    return (kPositive && x == kInf) || (kNegative && x == -kInf);
  }
};

// Built on first use: the kernel tables may be read during another file's
// static initialization.
const AttrDecl& isinf_detect_positive() {
  static const AttrDecl d = attr_bool("detect_positive", true);
  return d;
}
const AttrDecl& isinf_detect_negative() {
  static const AttrDecl d = attr_bool("detect_negative", true);
  return d;
}

Error isinf_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                   std::span<Tensor> outputs) {
  bool positive = true, negative = true;
  EDGEC_TRY(read_attr("isinf", attrs, isinf_detect_positive(), positive));
  EDGEC_TRY(read_attr("isinf", attrs, isinf_detect_negative(), negative));
  if (positive && negative) return unary_kernel<IsInf<true, true>, Float64Types, true>(ctx, inputs, attrs, outputs);
  if (positive) return unary_kernel<IsInf<true, false>, Float64Types, true>(ctx, inputs, attrs, outputs);
  if (negative) return unary_kernel<IsInf<false, true>, Float64Types, true>(ctx, inputs, attrs, outputs);
  return unary_kernel<IsInf<false, false>, Float64Types, true>(ctx, inputs, attrs, outputs);
}

// The activations with float attributes keep them in double and bind<F>()
// rounds them once to the compute type, so the element loop sees constants
// of its own type (float loops stay float and vectorize; double loops use
// the attribute as given).

// Softplus with torch's overflow guard: above the threshold, log1p(exp(bx))/b
// equals x to float precision, and exp would overflow soon after.
template <typename F>
inline F softplus(F x, F beta, F threshold) {
  const F bx = beta * x;
  return bx > threshold ? x : std::log1p(std::exp(bx)) / beta;
}

struct Softplus {
  static constexpr std::string_view kName = "softplus";
  double beta = 1.0;
  double threshold = 20.0;

  static const FloatAttrs<2>& attr_decls() {
    // Built on first use: the kernel tables may be read during another
    // file's static initialization.
    static const FloatAttrs<2> a{
      {attr_float("beta", 1.0, AttrRule::NonZero), attr_float("threshold", 20.0)}};
    return a;
  }
  void set(const std::array<double, 2>& v) {
    beta = v[0];
    threshold = v[1];
  }
  template <typename F>
  auto bind() const {
    const F b = static_cast<F>(beta), t = static_cast<F>(threshold);
    return [b, t](F x) { return softplus(x, b, t); };
  }
};

struct Mish {
  static constexpr std::string_view kName = "mish";
  template <typename F>
  F operator()(F x) const {
    return x * vtanh(softplus(x, F(1), F(20)));
  }
};

struct LeakyRelu {
  static constexpr std::string_view kName = "leaky_relu";
  double slope = 0.01;

  static const FloatAttrs<1>& attr_decls() {
    // Built on first use: the kernel tables may be read during another
    // file's static initialization.
    static const FloatAttrs<1> a{{attr_float("negative_slope", 0.01)}};
    return a;
  }
  void set(const std::array<double, 1>& v) { slope = v[0]; }
  template <typename F>
  auto bind() const {
    const F s = static_cast<F>(slope);
    return [s](F x) { return x > 0 ? x : x * s; };
  }
};

struct Elu {
  static constexpr std::string_view kName = "elu";
  double alpha = 1.0;

  static const FloatAttrs<1>& attr_decls() {
    // Built on first use: the kernel tables may be read during another
    // file's static initialization.
    static const FloatAttrs<1> a{{attr_float("alpha", 1.0)}};
    return a;
  }
  void set(const std::array<double, 1>& v) { alpha = v[0]; }
  // expm1: exp(x) - 1 loses all digits near 0.
  template <typename F>
  auto bind() const {
    const F a = static_cast<F>(alpha);
    return [a](F x) { return x > 0 ? x : a * std::expm1(x); };
  }
};

// torch.nn.SELU; ONNX Selu. The defaults are torch's constants (ONNX's are
// the same, rounded to float).
struct Selu {
  static constexpr std::string_view kName = "selu";
  double alpha_gamma = 0, gamma = 0;

  static const FloatAttrs<2>& attr_decls() {
    // Built on first use: the kernel tables may be read during another
    // file's static initialization.
    static const FloatAttrs<2> a{
      {attr_float("alpha", 1.6732632423543772), attr_float("gamma", 1.0507009873554805)}};
    return a;
  }
  void set(const std::array<double, 2>& v) {
    alpha_gamma = v[0] * v[1];
    gamma = v[1];
  }
  template <typename F>
  auto bind() const {
    const F ag = static_cast<F>(alpha_gamma), g = static_cast<F>(gamma);
    return [ag, g](F x) { return x > 0 ? g * x : ag * std::expm1(x); };
  }
};

// torch.nn.CELU; ONNX Celu: max(0, x) + min(0, alpha (e^(x / alpha) - 1)).
struct Celu {
  static constexpr std::string_view kName = "celu";
  double alpha = 1.0;

  static const FloatAttrs<1>& attr_decls() {
    // Built on first use: the kernel tables may be read during another
    // file's static initialization.
    static const FloatAttrs<1> a{{attr_float("alpha", 1.0, AttrRule::NonZero)}};
    return a;
  }
  void set(const std::array<double, 1>& v) { alpha = v[0]; }
  template <typename F>
  auto bind() const {
    const F a = static_cast<F>(alpha);
    return [a](F x) { return x > 0 ? x : a * std::expm1(x / a); };
  }
};

// ONNX ThresholdedRelu: x where x > alpha, else 0 (NaN too: the comparison
// is false, as in ONNX Runtime).
struct ThresholdedRelu {
  static constexpr std::string_view kName = "thresholded_relu";
  double alpha = 1.0;

  static const FloatAttrs<1>& attr_decls() {
    // Built on first use: the kernel tables may be read during another
    // file's static initialization.
    static const FloatAttrs<1> a{{attr_float("alpha", 1.0)}};
    return a;
  }
  void set(const std::array<double, 1>& v) { alpha = v[0]; }
  template <typename F>
  auto bind() const {
    const F a = static_cast<F>(alpha);
    return [a](F x) { return x > a ? x : F(0); };
  }
};

// ONNX Shrink (torch's hardshrink is bias 0, softshrink bias = lambd): x +
// bias where x < -lambd, x - bias where x > lambd, else 0. Integers are
// compared and shifted in double and truncated toward zero, as ONNX Runtime
// does in float; a result beyond the dtype's range saturates (ONNX Runtime
// leaves it undefined).
struct Shrink {
  static constexpr std::string_view kName = "shrink";
  double lambd = 0.5, bias = 0.0;

  static const FloatAttrs<2>& attr_decls() {
    // Built on first use: the kernel tables may be read during another
    // file's static initialization.
    static const FloatAttrs<2> a{{attr_float("lambd", 0.5), attr_float("bias", 0.0)}};
    return a;
  }
  void set(const std::array<double, 2>& v) {
    lambd = v[0];
    bias = v[1];
  }

  template <typename T>
  auto bind() const {
    if constexpr (std::is_floating_point_v<T>) {
      const T l = static_cast<T>(lambd), b = static_cast<T>(bias);
      return [l, b](T x) { return x < -l ? x + b : x > l ? x - b : T(0); };
    } else {
      const double l = lambd, b = bias;
      return [l, b](T x) {
        const double d = static_cast<double>(x);
        return d < -l ? saturating_float_to_int<T>(d + b) : d > l ? saturating_float_to_int<T>(d - b) : T(0);
      };
    }
  }
};

struct GeluErf {
  static constexpr std::string_view kName = "gelu";
  template <typename F>
  F operator()(F x) const {
    return vgelu_erf(x);
  }
};

struct GeluTanh {
  static constexpr std::string_view kName = "gelu";
  template <typename F>
  F operator()(F x) const {
    constexpr F kSqrt2OverPi = F(0.79788456080286536);
    return F(0.5) * x * (F(1) + vtanh(kSqrt2OverPi * (x + F(0.044715) * x * x * x)));
  }
};

const AttrDecl& gelu_approximate() {
  static const AttrDecl d = attr_string("approximate", "none", {"none", "tanh"});
  return d;
}

Error gelu_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                  std::span<Tensor> outputs) {
  std::string_view approximate;
  EDGEC_TRY(read_attr("gelu", attrs, gelu_approximate(), approximate));
  if (approximate == "tanh") return unary_kernel<GeluTanh, Float64Types>(ctx, inputs, attrs, outputs);
  return unary_kernel<GeluErf, Float64Types>(ctx, inputs, attrs, outputs);
}

struct LogicalNot {
  static constexpr std::string_view kName = "logical_not";
  bool operator()(bool x) const { return !x; }
};

// The complement of every bit of an integer (ONNX BitwiseNot).
struct BitwiseNot {
  static constexpr std::string_view kName = "bitwise_not";
  template <typename T>
  T operator()(T x) const {
    return static_cast<T>(~x);
  }
};

// A unary operator's row: declared dtypes and kernel from one type list,
// attributes from the functor's own declarations.
template <typename Op, typename Types, bool kBoolOut = false>
KernelEntry unary_entry(std::string_view summary) {
  std::vector<AttrDecl> attrs;
  if constexpr (requires { Op::attr_decls(); }) attrs = Op::attr_decls().list();
  return {elementwise_decl(Op::kName, "default", {{"self"}}, dtype_set(Types{}),
                           kBoolOut ? ResultRule::SameShapeBool : ResultRule::SameAsInput, summary, std::move(attrs)),
          unary_kernel<Op, Types, kBoolOut>};
}

}  // namespace

std::span<const KernelEntry> elementwise_unary_kernels() {
  static const KernelEntry kUnaryKernels[] = {
      unary_entry<Neg, NumericTypes>("-x"),
      unary_entry<Abs, NumericTypes>("|x|"),
      unary_entry<Relu, NumericTypes>("max(x, 0)"),
      unary_entry<Sign, NumericTypes>("-1, 0 or 1"),
      unary_entry<Clamp, NumericTypes>("min(max(x, min), max); either bound optional"),
      unary_entry<Shrink, NumericTypes>("x + bias if x < -lambd, x - bias if x > lambd, else 0"),
      unary_entry<Exp, Float64Types>("e^x"),
      unary_entry<Log, Float64Types>("natural log"),
      unary_entry<Sqrt, Float64Types>("square root"),
      unary_entry<Rsqrt, Float64Types>("1 / sqrt(x)"),
      unary_entry<Reciprocal, Float64Types>("1 / x"),
      unary_entry<Sin, Float64Types>("sine"),
      unary_entry<Cos, Float64Types>("cosine"),
      unary_entry<Tanh, Float64Types>("hyperbolic tangent"),
      unary_entry<Tan, Float64Types>("tangent"),
      unary_entry<Asin, Float64Types>("arcsine"),
      unary_entry<Acos, Float64Types>("arccosine"),
      unary_entry<Atan, Float64Types>("arctangent"),
      unary_entry<Sinh, Float64Types>("hyperbolic sine"),
      unary_entry<Cosh, Float64Types>("hyperbolic cosine"),
      unary_entry<Asinh, Float64Types>("inverse hyperbolic sine"),
      unary_entry<Acosh, Float64Types>("inverse hyperbolic cosine"),
      unary_entry<Atanh, Float64Types>("inverse hyperbolic tangent"),
      unary_entry<Sigmoid, Float64Types>("1 / (1 + e^-x)"),
      unary_entry<Erf, Float64Types>("error function"),
      unary_entry<Floor, Float64Types>("round down"),
      unary_entry<Ceil, Float64Types>("round up"),
      unary_entry<Round, Float64Types>("round half to even"),
      unary_entry<Hardsigmoid, Float64Types>("relu6(x + 3) / 6"),
      unary_entry<Hardswish, Float64Types>("x * relu6(x + 3) / 6"),
      unary_entry<IsNan, Float64Types, true>("x is NaN"),
      {elementwise_decl("isinf", "default", {{"self"}}, dtype_set(Float64Types{}), ResultRule::SameShapeBool,
                        "x is +inf (detect_positive) or -inf (detect_negative)",
                        {isinf_detect_positive(), isinf_detect_negative()}),
       isinf_kernel},
      unary_entry<Softsign, Float64Types>("x / (1 + |x|)"),
      unary_entry<Softplus, Float64Types>("log(1 + e^(beta x)) / beta, linear above threshold"),
      unary_entry<Mish, Float64Types>("x * tanh(softplus(x))"),
      unary_entry<LeakyRelu, Float64Types>("x if x > 0 else negative_slope * x"),
      unary_entry<Elu, Float64Types>("x if x > 0 else alpha (e^x - 1)"),
      unary_entry<Selu, Float64Types>("gamma x if x > 0 else gamma alpha (e^x - 1)"),
      unary_entry<Celu, Float64Types>("x if x > 0 else alpha (e^(x / alpha) - 1)"),
      unary_entry<ThresholdedRelu, Float64Types>("x if x > alpha else 0"),
      {elementwise_decl("gelu", "default", {{"self"}}, dtype_set(Float64Types{}), ResultRule::Custom,
                        "x * Phi(x); approximate none (erf) or tanh", {gelu_approximate()}),
       gelu_kernel},
      unary_entry<LogicalNot, BoolTypes>("not x"),
      unary_entry<BitwiseNot, IntegerTypes>("~x on the bits of an integer"),
  };
  return kUnaryKernels;
}

}  // namespace edgec

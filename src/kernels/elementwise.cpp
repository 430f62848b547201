// Binary elementwise kernels with numpy broadcasting (arithmetic,
// comparisons, logical and bitwise ops) and where; elementwise_kernels()
// also gathers the unary and cast/copy lists.
//
// Semantics follow numpy where torch and numpy agree: integer arithmetic
// wraps, float floor division and remainder use numpy's divmod (the result
// snapped to an integer, remainder with the divisor's sign), maximum/minimum
// propagate NaN. Integer division by zero and negative integer exponents are
// errors, checked on the data before anything is computed.
#include <cmath>
#include <type_traits>
#include <vector>

#include "kernels/elementwise_common.h"
#include "kernels/families.h"

namespace edgec {
namespace {

// What an integer right-hand operand must satisfy; checked before computing.
enum class IntegerRhs { Any, NonZero, NonNegative };

template <typename Op>
constexpr IntegerRhs integer_rhs_rule() {
  if constexpr (requires { Op::kIntegerRhs; }) {
    return Op::kIntegerRhs;
  } else {
    return IntegerRhs::Any;
  }
}

Error check_integer_rhs(std::string_view op, IntegerRhs rule, const Tensor& b) {
  if (rule == IntegerRhs::Any || !is_integral(b.dtype)) return Error::Ok;
  bool bad = false;
  dispatch_dtype(IntegerTypes{}, b.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (rule == IntegerRhs::NonZero) {
      bad = any_element<T>(b, [](T v) { return v == 0; });
    } else if constexpr (std::is_signed_v<T>) {
      bad = any_element<T>(b, [](T v) { return v < 0; });
    }
  });
  if (!bad) return Error::Ok;
  if (rule == IntegerRhs::NonZero) {
    return fail(Error::InvalidArgument, std::string(op) + ": integer division by zero");
  }
  return fail(Error::InvalidArgument,
              std::string(op) + ": expected non-negative integer exponents, got a negative one");
}

/// The kernel of a broadcasting binary op: both inputs of one dtype from
/// `Types`, output of that dtype (or bool for comparisons).
template <typename Op, typename Types, bool kBoolOut = false>
Error binary_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& /*attrs*/,
                    std::span<Tensor> outputs) {
  constexpr std::string_view op = Op::kName;
  EDGEC_TRY(check_operands(op, inputs, 2, outputs, 1));
  const Tensor& a = inputs[0];
  const Tensor& b = inputs[1];
  Tensor& out = outputs[0];

  // Dtypes.
  EDGEC_TRY(check_same_dtype(op, a, b));
  EDGEC_TRY(check_dtype_in(op, a, Types{}));
  EDGEC_TRY(check_output_dtype(op, out, kBoolOut ? DType::Bool : a.dtype));

  // Shape, then data that would make the op undefined.
  Result<StaticShape> shape = broadcast_shapes(op, {&a, &b});
  if (!shape.ok()) return shape.error();
  EDGEC_TRY(resize_output(op, out, shape->dims()));
  if (out.numel() == 0) return Error::Ok;
  EDGEC_TRY(check_integer_rhs(op, integer_rhs_rule<Op>(), b));

  // Compute.
  dispatch_dtype(Types{}, a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using O = std::conditional_t<kBoolOut, bool, T>;
    map_binary<O, T, T>(ctx, a, b, out, Op{});
  });
  return Error::Ok;
}

// --- Arithmetic ------------------------------------------------------------

// A binary op computed one way on integers and another on floats; `rhs` is
// what an integer right-hand operand must satisfy.
#define EDGEC_INT_FLOAT_BINARY(Name, name, rhs, int_expr, float_expr) \
  struct Name {                                                       \
    static constexpr std::string_view kName = name;                   \
    static constexpr IntegerRhs kIntegerRhs = IntegerRhs::rhs;        \
    template <typename T>                                             \
    T operator()(T a, T b) const {                                    \
      if constexpr (std::is_integral_v<T>) return int_expr;           \
      else return float_expr;                                         \
    }                                                                 \
  };
EDGEC_INT_FLOAT_BINARY(Add, "add", Any, wrapping_add(a, b), a + b)
EDGEC_INT_FLOAT_BINARY(Sub, "sub", Any, wrapping_sub(a, b), a - b)
EDGEC_INT_FLOAT_BINARY(Mul, "mul", Any, wrapping_mul(a, b), a * b)

// Integer quotients and remainders. Divisors were checked to be non-zero;
// the b == 0 guards keep a racing writer from turning that into SIGFPE, and
// MIN / -1 (which traps on x86) is the wrapped negation, as in numpy.

template <typename T>
T int_div_trunc(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return wrapping_neg(a);
  }
  return static_cast<T>(a / b);
}

template <typename T>
T int_div_floor(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return wrapping_neg(a);
    const T q = static_cast<T>(a / b);
    return (a % b != 0 && ((a < 0) != (b < 0))) ? static_cast<T>(q - 1) : q;
  } else {
    return static_cast<T>(a / b);
  }
}

template <typename T>
T int_fmod(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
  }
  return static_cast<T>(a % b);
}

template <typename T>
T int_remainder(T a, T b) {
  const T r = int_fmod(a, b);
  if constexpr (std::is_signed_v<T>) {
    if (r != 0 && ((r < 0) != (b < 0))) return static_cast<T>(r + b);
  }
  return r;
}

// numpy's npy_divmod: the quotient is computed from fmod so that
// a == floor_div * b + remainder holds as closely as floats allow.
template <typename F>
inline F float_remainder(F a, F b) {
  F mod = std::fmod(a, b);
  if (b == 0) return mod;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) mod += b;
  } else {
    mod = std::copysign(F(0), b);
  }
  return mod;
}

template <typename F>
inline F float_floor_div(F a, F b) {
  if (b == 0) return a / b;
  const F mod = std::fmod(a, b);
  F div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= F(1);
  if (div == 0) return std::copysign(F(0), a / b);
  F floor_div = std::floor(div);
  if (div - floor_div > F(0.5)) floor_div += F(1);
  return floor_div;
}

struct DivTrue {
  static constexpr std::string_view kName = "div";
  float operator()(float a, float b) const { return a / b; }
  double operator()(double a, double b) const { return a / b; }
};

EDGEC_INT_FLOAT_BINARY(DivTrunc, "div", NonZero, int_div_trunc(a, b), std::trunc(a / b))
EDGEC_INT_FLOAT_BINARY(DivFloor, "div", NonZero, int_div_floor(a, b), float_floor_div(a, b))

// Built on first use, like every declaration: the kernel tables may be read
// during another file's static initialization.
const AttrDecl& rounding_mode_decl() {
  static const AttrDecl d = attr_string("rounding_mode", "none", {"none", "trunc", "floor"});
  return d;
}

Error div_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                 std::span<Tensor> outputs) {
  std::string_view mode;
  EDGEC_TRY(read_attr("div", attrs, rounding_mode_decl(), mode));
  if (mode == "trunc") return binary_kernel<DivTrunc, NumericTypes>(ctx, inputs, attrs, outputs);
  if (mode == "floor") return binary_kernel<DivFloor, NumericTypes>(ctx, inputs, attrs, outputs);
  // True division of integers would need a float output; the graph must cast.
  if (!inputs.empty() && is_integral(inputs[0].dtype)) {
    return fail(Error::InvalidType,
                "div: rounding_mode 'none' expected float inputs, got " +
                    std::string(dtype_name(inputs[0].dtype)) + " (use 'trunc' or 'floor')");
  }
  return binary_kernel<DivTrue, Float64Types>(ctx, inputs, attrs, outputs);
}

EDGEC_INT_FLOAT_BINARY(Remainder, "remainder", NonZero, int_remainder(a, b), float_remainder(a, b))
EDGEC_INT_FLOAT_BINARY(Fmod, "fmod", NonZero, int_fmod(a, b), std::fmod(a, b))
#undef EDGEC_INT_FLOAT_BINARY

struct Pow {
  static constexpr std::string_view kName = "pow";
  static constexpr IntegerRhs kIntegerRhs = IntegerRhs::NonNegative;
  template <typename T>
  T operator()(T base, T exp) const {
    if constexpr (std::is_integral_v<T>) {
      // Square-and-multiply, wrapping like numpy; exponents were checked to
      // be non-negative (a negative one would give 1 here).
      T result = 1;
      while (exp > 0) {
        if (exp & 1) result = wrapping_mul(result, base);
        base = wrapping_mul(base, base);
        exp = static_cast<T>(exp >> 1);
      }
      return result;
    } else {
      return std::pow(base, exp);
    }
  }
};

struct Maximum {
  static constexpr std::string_view kName = "maximum";
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) return (a >= b || a != a) ? a : b;
    else return a >= b ? a : b;
  }
};

struct Minimum {
  static constexpr std::string_view kName = "minimum";
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) return (a <= b || a != a) ? a : b;
    else return a <= b ? a : b;
  }
};

// --- Comparisons and logic -------------------------------------------------

#define EDGEC_COMPARISON(Name, name, expr)   \
  struct Name {                              \
    static constexpr std::string_view kName = name; \
    template <typename T>                    \
    bool operator()(T a, T b) const {        \
      return expr;                           \
    }                                        \
  };
EDGEC_COMPARISON(Eq, "eq", a == b)
EDGEC_COMPARISON(Ne, "ne", a != b)
EDGEC_COMPARISON(Lt, "lt", a < b)
EDGEC_COMPARISON(Le, "le", a <= b)
EDGEC_COMPARISON(Gt, "gt", a > b)
EDGEC_COMPARISON(Ge, "ge", a >= b)
EDGEC_COMPARISON(LogicalAnd, "logical_and", a && b)
EDGEC_COMPARISON(LogicalOr, "logical_or", a || b)
EDGEC_COMPARISON(LogicalXor, "logical_xor", a != b)
#undef EDGEC_COMPARISON

// --- Bitwise -----------------------------------------------------------------

// On integers only (ONNX BitwiseAnd/Or/Xor): the bits of the stored two's
// complement, so the same on signed and unsigned types.
#define EDGEC_BITWISE(Name, name, op)               \
  struct Name {                                     \
    static constexpr std::string_view kName = name; \
    template <typename T>                           \
    T operator()(T a, T b) const {                  \
      return static_cast<T>(a op b);                \
    }                                               \
  };
EDGEC_BITWISE(BitwiseAnd, "bitwise_and", &)
EDGEC_BITWISE(BitwiseOr, "bitwise_or", |)
EDGEC_BITWISE(BitwiseXor, "bitwise_xor", ^)
#undef EDGEC_BITWISE

// Shifts of integers by integers (ONNX BitShift, torch's
// bitwise_left_shift/bitwise_right_shift), as numpy defines them: a shift
// amount that is negative or at least the type's width shifts every bit
// out, giving 0 (or -1 for a negative value shifted right); a right shift
// of a signed value is arithmetic. The left shift is computed on the
// unsigned type, so it wraps as integer arithmetic does.
template <typename T>
constexpr bool shift_in_range(T b) {
  return static_cast<std::make_unsigned_t<T>>(b) < sizeof(T) * 8;
}
struct BitwiseLeftShift {
  static constexpr std::string_view kName = "bitwise_left_shift";
  template <typename T>
  T operator()(T a, T b) const {
    using U = std::make_unsigned_t<T>;
    return shift_in_range(b) ? static_cast<T>(static_cast<U>(static_cast<U>(a) << b)) : T{0};
  }
};
struct BitwiseRightShift {
  static constexpr std::string_view kName = "bitwise_right_shift";
  template <typename T>
  T operator()(T a, T b) const {
    if (shift_in_range(b)) return static_cast<T>(a >> b);
    if constexpr (std::is_signed_v<T>) return a < T{0} ? T{-1} : T{0};
    return T{0};
  }
};

// --- where -------------------------------------------------------------------

Error where_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& /*attrs*/,
                   std::span<Tensor> outputs) {
  constexpr std::string_view op = "where";
  EDGEC_TRY(check_operands(op, inputs, 3, outputs, 1));
  const Tensor& cond = inputs[0];
  const Tensor& x = inputs[1];
  const Tensor& y = inputs[2];
  Tensor& out = outputs[0];

  // Dtypes.
  if (cond.dtype != DType::Bool) {
    return fail(Error::InvalidType, "where: expected a bool condition, got " +
                                        std::string(dtype_name(cond.dtype)));
  }
  EDGEC_TRY(check_same_dtype(op, x, y));
  EDGEC_TRY(check_dtype_in(op, x, AllTypes{}));
  EDGEC_TRY(check_output_dtype(op, out, x.dtype));

  // Shape.
  Result<StaticShape> shape = broadcast_shapes(op, {&cond, &x, &y});
  if (!shape.ok()) return shape.error();
  EDGEC_TRY(resize_output(op, out, shape->dims()));

  // Select bit patterns: no dtype needs converting to be copied.
  dispatch_element_size(x.dtype, [&](auto tag) {
    using U = typename decltype(tag)::type;
    map_ternary<U, bool, U, U>(ctx, cond, x, y, out,
                               [](bool c, U a, U b) { return c ? a : b; });
  });
  return Error::Ok;
}

// A binary operator's row: declared dtypes and kernel from one type list.
template <typename Op, typename Types, bool kBoolOut = false>
KernelEntry binary_entry(std::string_view summary) {
  return {elementwise_decl(Op::kName, "Tensor", {{"self"}, {"other"}}, dtype_set(Types{}),
                           kBoolOut ? ResultRule::BroadcastToBool : ResultRule::Broadcast, summary),
          binary_kernel<Op, Types, kBoolOut>};
}

}  // namespace

std::span<const KernelEntry> elementwise_binary_kernels() {
  static const KernelEntry kBinaryKernels[] = {
      binary_entry<Add, NumericTypes>("a + b"),
      binary_entry<Sub, NumericTypes>("a - b"),
      binary_entry<Mul, NumericTypes>("a * b"),
      {elementwise_decl("div", "Tensor", {{"self"}, {"other"}}, dtype_set(NumericTypes{}), ResultRule::Custom,
                        "a / b; rounding_mode none (float), trunc or floor", {rounding_mode_decl()}),
       div_kernel},
      binary_entry<Pow, NumericTypes>("a ** b"),
      binary_entry<Maximum, AllTypes>("elementwise max"),
      binary_entry<Minimum, AllTypes>("elementwise min"),
      binary_entry<Remainder, NumericTypes>("python-style modulo (sign of the divisor)"),
      binary_entry<Fmod, NumericTypes>("C-style modulo (sign of the dividend)"),
      binary_entry<Eq, AllTypes, true>("a == b"),
      binary_entry<Ne, AllTypes, true>("a != b"),
      binary_entry<Lt, AllTypes, true>("a < b"),
      binary_entry<Le, AllTypes, true>("a <= b"),
      binary_entry<Gt, AllTypes, true>("a > b"),
      binary_entry<Ge, AllTypes, true>("a >= b"),
      binary_entry<LogicalAnd, BoolTypes, true>("a and b"),
      binary_entry<LogicalOr, BoolTypes, true>("a or b"),
      binary_entry<LogicalXor, BoolTypes, true>("a xor b"),
      binary_entry<BitwiseAnd, IntegerTypes>("a & b on the bits of integers"),
      binary_entry<BitwiseOr, IntegerTypes>("a | b on the bits of integers"),
      binary_entry<BitwiseXor, IntegerTypes>("a ^ b on the bits of integers"),
      binary_entry<BitwiseLeftShift, IntegerTypes>("a << b; 0 where b < 0 or b >= the width"),
      binary_entry<BitwiseRightShift, IntegerTypes>("a >> b (arithmetic); 0 or -1 where b < 0 or b >= the width"),
      {elementwise_decl("where", "default", {{"condition"}, {"self"}, {"other"}}, dtype_set(AllTypes{}),
                        ResultRule::Custom, "condition ? a : b"),
       where_kernel},
  };
  return kBinaryKernels;
}

std::span<const KernelEntry> elementwise_kernels() {
  static const std::vector<KernelEntry> all = [] {
    std::vector<KernelEntry> v;
    for (auto list : {elementwise_binary_kernels(), elementwise_unary_kernels(),
                      elementwise_copy_kernels()}) {
      v.insert(v.end(), list.begin(), list.end());
    }
    return v;
  }();
  return all;
}

}  // namespace edgec

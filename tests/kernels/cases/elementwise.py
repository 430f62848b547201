"""Cases for the elementwise family: broadcasting binary ops, comparisons,
logical and bitwise ops, where, unary math and activations, cast and clone.

References come from numpy. float32 results of math functions are computed
in float64 and rounded; float16 ones in float32 and rounded (the kernels
compute float16 in float32). Integer arithmetic wraps in numpy as in the
kernels. Inputs that make numpy's result platform-defined (out-of-range float
to integer casts) are avoided; the kernels' own choice there is pinned by
tests/kernels/elementwise_test.cpp.
"""
import math
import warnings

import numpy as np

from common import case, dtype, view

rng = np.random.default_rng(20240607)

F32 = dict(atol=1e-5, rtol=1e-5)
F16 = dict(atol=1e-3, rtol=2e-3)
# float64 is computed in double: against numpy's double results to ~1e-12
# (float32 rounding anywhere would show as ~1e-7).
F64 = dict(atol=1e-12, rtol=1e-12)

# FLOATS: the float types of the vectorized float math; F64_FLOATS adds
# float64, which every float operator takes (computed in double).
FLOATS = [np.float32, np.float16]
F64_FLOATS = FLOATS + [np.float64]
INTS = [np.int64, np.int32, np.int8, np.uint8, np.int16, np.uint16, np.uint32, np.uint64]
NUMERIC = FLOATS + [np.float64] + INTS
ALL = NUMERIC + [np.bool_]

NAMES = {np.float32: "f32", np.float16: "f16", np.int64: "i64", np.int32: "i32", np.int8: "i8",
         np.uint8: "u8", np.bool_: "bool", np.float64: "f64", np.int16: "i16", np.uint16: "u16",
         np.uint32: "u32", np.uint64: "u64"}


def tol(dt):
    return F16 if dt == np.float16 else F64 if dt == np.float64 else F32


def rand(shape, dt, lo=-50, hi=50):
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dt, np.integer):
        info = np.iinfo(dt)
        return rng.integers(max(lo, info.min), min(hi, info.max) + 1, size=shape).astype(dt)
    return rng.uniform(lo / 10, hi / 10, size=shape).astype(dt)


def nonzero(shape, dt):
    x = rand(shape, dt)
    if dt == np.bool_:
        return np.ones(shape, np.bool_)
    x[x == 0] = 3
    return x


def quiet(f, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return f(*args)


def float_ref(f, *xs):
    """f evaluated in float64 (float32 for float16 inputs), rounded to the input dtype."""
    dt = xs[0].dtype
    wide = np.float32 if dt == np.float16 else np.float64
    return quiet(lambda: np.asarray(f(*[x.astype(wide) for x in xs])).astype(dt))


# --- Binary arithmetic ---------------------------------------------------------

def wrap_ref(f, a, b):
    """Integer f computed in int64 (or exactly in float) and wrapped to a's dtype."""
    if np.issubdtype(a.dtype, np.integer):
        return np.asarray(quiet(f, a.astype(np.int64), b.astype(np.int64))).astype(a.dtype)
    return float_ref(f, a, b)


def trunc_div_ref(a, b):
    if np.issubdtype(a.dtype, np.integer):
        a64, b64 = a.astype(np.int64), b.astype(np.int64)
        q = np.abs(a64) // np.abs(b64) * np.sign(a64) * np.sign(b64)
        return q.astype(a.dtype)
    return float_ref(lambda x, y: np.trunc(x / y), a, b)


def floor_div_ref(a, b):
    if np.issubdtype(a.dtype, np.integer):
        return quiet(np.floor_divide, a.astype(np.int64), b.astype(np.int64)).astype(a.dtype)
    # numpy's float floor_divide in the input precision (float32 for both):
    # its divmod snapping is what the kernel reproduces.
    w = np.float64 if a.dtype == np.float64 else np.float32  # float64 is computed as itself
    return quiet(np.floor_divide, a.astype(w), b.astype(w)).astype(a.dtype)


def remainder_ref(a, b):
    if np.issubdtype(a.dtype, np.integer):
        return quiet(np.remainder, a.astype(np.int64), b.astype(np.int64)).astype(a.dtype)
    w = np.float64 if a.dtype == np.float64 else np.float32
    return quiet(np.remainder, a.astype(w), b.astype(w)).astype(a.dtype)


def fmod_ref(a, b):
    if np.issubdtype(a.dtype, np.integer):
        return quiet(np.fmod, a.astype(np.int64), b.astype(np.int64)).astype(a.dtype)
    return float_ref(np.fmod, a, b)


def pow_ref(a, b):
    if np.issubdtype(a.dtype, np.integer):
        # Square-and-multiply in Python ints, wrapped: numpy's int power wraps the same way.
        bits = np.iinfo(a.dtype).bits
        out = []
        for x, e in zip(a.astype(np.int64).ravel().tolist(), b.astype(np.int64).ravel().tolist()):
            v = pow(x, e, 1 << bits)
            out.append(v)
        wrapped = np.array(out, dtype=np.uint64).astype(np.dtype("u%d" % (bits // 8)))
        return wrapped.view(a.dtype).reshape(a.shape)
    return float_ref(np.power, a, b)


def binary_cases(op, ref, dtypes, make_b=rand, b_kind=None):
    out = []
    for dt in dtypes:
        n = NAMES[dt]
        a = rand((3, 4), dt)
        b = make_b((4,), dt)
        out.append(case("%s_%s_broadcast_row" % (op, n), op, [a, b], outputs=[ref(a, b)], **tol(dt)))
        a = rand((2, 1, 5), dt)
        b = make_b((3, 1), dt)
        out.append(case("%s_%s_broadcast_both" % (op, n), op, [a, b],
                        outputs=[ref(*np.broadcast_arrays(a, b))], **tol(dt)))
        a = rand((4, 3, 2), dt)
        b = make_b((2, 3, 4), dt)
        out.append(case("%s_%s_strided" % (op, n), op, [a, b], perms=[[2, 1, 0], None],
                        outputs=[ref(a.transpose(2, 1, 0), b)], **tol(dt)))
        a = rand((), dt)
        b = make_b((2, 3), dt)
        out.append(case("%s_%s_scalar_lhs" % (op, n), op, [a, b],
                        outputs=[ref(np.broadcast_to(a, b.shape), b)], **tol(dt)))
        a = rand((0, 3), dt)
        b = make_b((3,), dt)
        out.append(case("%s_%s_empty" % (op, n), op, [a, b], outputs=[np.zeros((0, 3), dt)]))
    return out


def arithmetic_cases():
    out = []
    out += binary_cases("add", lambda a, b: wrap_ref(np.add, a, b), NUMERIC)
    out += binary_cases("sub", lambda a, b: wrap_ref(np.subtract, a, b), NUMERIC)
    out += binary_cases("mul", lambda a, b: wrap_ref(np.multiply, a, b), NUMERIC)
    # Long contiguous rows (vector loops, float16 staged in several 256-blocks).
    for dt in NUMERIC:
        a, b = rand((3, 700), dt), rand((3, 700), dt)
        out.append(case("add_%s_long" % NAMES[dt], "add", [a, b], outputs=[wrap_ref(np.add, a, b)], **tol(dt)))
        b = rand((700,), dt)
        out.append(case("mul_%s_long_broadcast" % NAMES[dt], "mul", [a, b],
                        outputs=[wrap_ref(np.multiply, a, b)], **tol(dt)))
    # Integer overflow wraps, like numpy.
    a = np.array([100, -100, 127, -128], np.int8)
    b = np.array([100, -100, 1, -1], np.int8)
    out.append(case("add_i8_wraps", "add", [a, b], outputs=[wrap_ref(np.add, a, b)]))
    a = np.array([2**31 - 1, -2**31, 65536], np.int32)
    b = np.array([1, 1, 65536], np.int32)
    out.append(case("add_i32_wraps", "add", [a, b], outputs=[wrap_ref(np.add, a, b)]))
    out.append(case("mul_i32_wraps", "mul", [a, b], outputs=[wrap_ref(np.multiply, a, b)]))
    a = np.array([2**62, -2**63, 3], np.int64)
    b = np.array([4, -1, -2**62], np.int64)
    out.append(case("mul_i64_wraps", "mul", [a, b], outputs=[quiet(np.multiply, a, b)]))
    out.append(case("sub_i64_wraps", "sub", [a, b], outputs=[quiet(np.subtract, a, b)]))
    a = np.array([200, 3, 0], np.uint8)
    b = np.array([100, 5, 1], np.uint8)
    out.append(case("add_u8_wraps", "add", [a, b], outputs=[wrap_ref(np.add, a, b)]))
    out.append(case("sub_u8_wraps", "sub", [a, b], outputs=[wrap_ref(np.subtract, a, b)]))
    out.append(case("mul_u8_wraps", "mul", [a, b], outputs=[wrap_ref(np.multiply, a, b)]))
    # Float specials.
    a = np.array([np.inf, -np.inf, np.nan, 1e38, 0.0], np.float32)
    b = np.array([1.0, np.inf, 2.0, 1e38, -0.0], np.float32)
    out.append(case("add_f32_specials", "add", [a, b], outputs=[quiet(np.add, a, b)]))
    out.append(case("mul_f32_specials", "mul", [a, b], outputs=[quiet(np.multiply, a, b)]))
    out.append(case("add_f16_overflow", "add", [np.array([60000.0, -60000.0], np.float16)] * 2,
                    outputs=[np.array([np.inf, -np.inf], np.float16)]))
    # Errors.
    out.append(case("add_bool_rejected", "add", [rand((2,), np.bool_)] * 2, error="add: expected dtype",
                    out_specs=[("bool", [2])]))
    out.append(case("add_mixed_dtypes", "add", [rand((2,), np.float32), rand((2,), np.int32)],
                    error="add: expected inputs of the same dtype, got f32 and i32"))
    out.append(case("add_bad_broadcast", "add", [rand((2, 3), np.float32), rand((4,), np.float32)],
                    error="add: cannot broadcast shapes [2, 3] and [4]"))
    out.append(case("sub_bad_broadcast_middle", "sub", [rand((2, 3, 1), np.float32), rand((2, 1), np.float32)],
                    error="cannot broadcast"))
    out.append(case("mul_wrong_output_dtype", "mul", [rand((2,), np.float32)] * 2,
                    error="mul: expected output dtype f32, got i64", out_specs=[("i64", [2])]))
    out.append(case("add_one_input", "add", [rand((2,), np.float32)], error="add: expected 2 inputs, got 1"))
    return out


def division_cases():
    out = []
    # True division (floats only).
    for dt in FLOATS + [np.float64]:
        out += binary_cases("div", lambda a, b: float_ref(np.divide, a, b), [dt], make_b=nonzero)
    a = np.array([1.0, -1.0, 0.0, np.inf], np.float32)
    b = np.array([0.0, 0.0, 0.0, np.inf], np.float32)
    out.append(case("div_f32_by_zero", "div", [a, b], outputs=[quiet(np.divide, a, b)]))
    # trunc and floor, every numeric dtype; signs mixed.
    for mode, ref in (("trunc", trunc_div_ref), ("floor", floor_div_ref)):
        for dt in NUMERIC:
            n = NAMES[dt]
            a = rand((3, 4), dt)
            b = nonzero((4,), dt)
            out.append(case("div_%s_%s" % (mode, n), "div", [a, b], attrs={"rounding_mode": mode},
                            outputs=[ref(a, b)], **tol(dt)))
            a = rand((4, 3), dt)
            b = nonzero((3, 4), dt)
            out.append(case("div_%s_%s_strided" % (mode, n), "div", [a, b], attrs={"rounding_mode": mode},
                            perms=[[1, 0], None], outputs=[ref(a.T, b)], **tol(dt)))
        for dt in (np.int64, np.int32, np.int8):
            info = np.iinfo(dt)
            a = np.array([7, -7, 7, -7, 6, -6, info.min, info.max, 0], dt)
            b = np.array([2, 2, -2, -2, 3, -3, -1, -1, -5], dt)
            out.append(case("div_%s_%s_signs" % (mode, NAMES[dt]), "div", [a, b], attrs={"rounding_mode": mode},
                            outputs=[ref(a, b)]))
        a = np.array([7.5, -7.5, 7.5, -7.5, 1e-30, -0.0, np.inf, 5.0], np.float32)
        b = np.array([2.0, 2.0, -2.0, -2.0, -3.0, 4.0, 2.0, np.inf], np.float32)
        out.append(case("div_%s_f32_signs" % mode, "div", [a, b], attrs={"rounding_mode": mode},
                        outputs=[ref(a, b)]))
        out.append(case("div_%s_f32_by_zero" % mode, "div", [np.array([1.0, -1.0, 0.0], np.float32),
                                                             np.zeros(3, np.float32)],
                        attrs={"rounding_mode": mode},
                        outputs=[ref(np.array([1.0, -1.0, 0.0], np.float32), np.zeros(3, np.float32))]))
        out.append(case("div_%s_i32_by_zero" % mode, "div", [rand((2, 3), np.int32), np.array([1, 0, 2], np.int32)],
                        attrs={"rounding_mode": mode}, error="div: integer division by zero",
                        out_specs=[("i32", [2, 3])]))
    out.append(case("div_floor_u8_by_zero_broadcast", "div", [rand((4,), np.uint8), np.zeros((), np.uint8)],
                    attrs={"rounding_mode": "floor"}, error="integer division by zero", out_specs=[("u8", [4])]))
    # An empty output divides nothing, so a zero divisor is not an error.
    out.append(case("div_trunc_i64_empty_with_zero", "div", [np.zeros((0,), np.int64), np.zeros((1,), np.int64)],
                    attrs={"rounding_mode": "trunc"}, outputs=[np.zeros((0,), np.int64)]))
    out.append(case("div_none_on_ints", "div", [rand((2,), np.int32), nonzero((2,), np.int32)],
                    error="div: rounding_mode 'none' expected float inputs, got i32", out_specs=[("i32", [2])]))
    out.append(case("div_bad_mode", "div", [rand((2,), np.float32)] * 2, attrs={"rounding_mode": "round"},
                    error="div: expected attribute rounding_mode to be one of 'none', 'trunc', 'floor', got 'round'"))
    out.append(case("div_mode_not_string", "div", [rand((2,), np.float32)] * 2, attrs={"rounding_mode": 1},
                    error="rounding_mode"))

    # remainder (sign of the divisor) and fmod (sign of the dividend).
    for op, ref in (("remainder", remainder_ref), ("fmod", fmod_ref)):
        for dt in NUMERIC:
            out += binary_cases(op, ref, [dt], make_b=nonzero)
        for dt in (np.int64, np.int32, np.int8):
            info = np.iinfo(dt)
            a = np.array([7, -7, 7, -7, 6, -6, info.min, info.max, 0], dt)
            b = np.array([3, 3, -3, -3, 3, -3, -1, -1, -5], dt)
            out.append(case("%s_%s_signs" % (op, NAMES[dt]), op, [a, b], outputs=[ref(a, b)]))
        a = np.array([7.5, -7.5, 7.5, -7.5, 6.0, -6.0, 1.0, -1.0, np.inf, 3.0], np.float32)
        b = np.array([2.0, 2.0, -2.0, -2.0, 3.0, 3.0, np.inf, np.inf, 2.0, 0.0], np.float32)
        out.append(case("%s_f32_signs" % op, op, [a, b], outputs=[ref(a, b)]))
        out.append(case("%s_i8_by_zero" % op, op, [rand((3,), np.int8), np.array([1, 0, 1], np.int8)],
                        error="%s: integer division by zero" % op, out_specs=[("i8", [3])]))
    out.append(case("remainder_bool_rejected", "remainder", [rand((2,), np.bool_)] * 2,
                    error="remainder: expected dtype", out_specs=[("bool", [2])]))
    return out


def pow_cases():
    out = []
    for dt in FLOATS + [np.float64]:
        n = NAMES[dt]
        a = rng.uniform(0.1, 3.0, (3, 4)).astype(dt)
        b = rng.uniform(-2.0, 3.0, (4,)).astype(dt)
        out.append(case("pow_%s_broadcast" % n, "pow", [a, b], outputs=[float_ref(np.power, a, b)], **tol(dt)))
        a = rng.uniform(0.1, 3.0, (4, 3)).astype(dt)
        b = rng.uniform(-2.0, 3.0, (3, 4)).astype(dt)
        out.append(case("pow_%s_strided" % n, "pow", [a, b], perms=[[1, 0], None],
                        outputs=[float_ref(np.power, a.T, b)], **tol(dt)))
        a = np.array([-2.0, -2.0, -1.5, 0.0, 0.0, 2.0, np.nan, 1.0], dt)
        b = np.array([3.0, 2.0, 0.5, 0.0, -1.0, 0.5, 0.0, np.nan], dt)
        out.append(case("pow_%s_specials" % n, "pow", [a, b], outputs=[float_ref(np.power, a, b)], **tol(dt)))
    for dt in INTS:
        n = NAMES[dt]
        lo = 0 if dt == np.uint8 else -5
        a = rng.integers(lo, 6, (3, 4)).astype(dt)
        b = rng.integers(0, 6, (4,)).astype(dt)
        out.append(case("pow_%s_broadcast" % n, "pow", [a, b], outputs=[pow_ref(*np.broadcast_arrays(a, b))]))
        a = rng.integers(lo, 6, (4, 3)).astype(dt)
        b = rng.integers(0, 6, (3, 4)).astype(dt)
        out.append(case("pow_%s_strided" % n, "pow", [a, b], perms=[[1, 0], None], outputs=[pow_ref(a.T, b)]))
    a = np.array([3, -2, 2, 0, -1, 7], np.int8)
    b = np.array([5, 7, 9, 0, 3, 100], np.int8)
    out.append(case("pow_i8_wraps", "pow", [a, b], outputs=[pow_ref(a, b)]))
    a = np.array([3, 10, -3], np.int64)
    b = np.array([40, 19, 41], np.int64)
    out.append(case("pow_i64_wraps", "pow", [a, b], outputs=[pow_ref(a, b)]))
    out.append(case("pow_i32_negative_exponent", "pow", [np.array([2, 3], np.int32), np.array([1, -1], np.int32)],
                    error="pow: expected non-negative integer exponents", out_specs=[("i32", [2])]))
    return out


def minmax_cases():
    out = []
    out += binary_cases("maximum", np.maximum, ALL)
    out += binary_cases("minimum", np.minimum, ALL)
    for dt in FLOATS:
        a = np.array([np.nan, 1.0, np.nan, -np.inf, 2.0], dt)
        b = np.array([1.0, np.nan, np.nan, 0.0, np.inf], dt)
        out.append(case("maximum_%s_nan" % NAMES[dt], "maximum", [a, b], outputs=[np.maximum(a, b)]))
        out.append(case("minimum_%s_nan" % NAMES[dt], "minimum", [a, b], outputs=[np.minimum(a, b)]))
    return out


# --- Comparisons and logic -------------------------------------------------------

COMPARISONS = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
               "gt": np.greater, "ge": np.greater_equal}


def small(shape, dt):
    """Values in [-3, 3] (whole numbers for floats) so that equal elements occur."""
    if np.issubdtype(dt, np.floating):
        return np.round(rng.uniform(-3, 3, shape)).astype(dt)
    return rand(shape, dt, -3, 3)


def comparison_cases():
    out = []
    for op, f in COMPARISONS.items():
        for dt in ALL:
            n = NAMES[dt]
            # Small ranges so that equal elements occur.
            a = small((3, 4), dt)
            b = small((4,), dt)
            out.append(case("%s_%s_broadcast" % (op, n), op, [a, b], outputs=[f(a, b)]))
            a = small((4, 3), dt)
            b = small((3, 1), dt)
            out.append(case("%s_%s_strided" % (op, n), op, [a, b], perms=[[1, 0], None], outputs=[f(a.T, b)]))
        a = np.array([np.nan, np.nan, 1.0, -0.0, np.inf], np.float32)
        b = np.array([np.nan, 1.0, np.nan, 0.0, np.inf], np.float32)
        out.append(case("%s_f32_nan" % op, op, [a, b], outputs=[f(a, b)]))
        a = small((2, 500), np.float16)
        b = small((500,), np.float16)
        out.append(case("%s_f16_long" % op, op, [a, b], outputs=[f(a, b)]))
        out.append(case("%s_empty" % op, op, [np.zeros((0, 2), np.int32), np.zeros((1, 2), np.int32)],
                        outputs=[np.zeros((0, 2), np.bool_)]))
    out.append(case("eq_wrong_output_dtype", "eq", [rand((2,), np.float32)] * 2,
                    error="eq: expected output dtype bool, got f32", out_specs=[("f32", [2])]))
    out.append(case("lt_mixed_dtypes", "lt", [rand((2,), np.int64), rand((2,), np.int32)],
                    error="lt: expected inputs of the same dtype, got i64 and i32", out_specs=[("bool", [2])]))

    for op, f in (("logical_and", np.logical_and), ("logical_or", np.logical_or),
                  ("logical_xor", np.logical_xor)):
        a = rand((3, 4), np.bool_)
        b = rand((4,), np.bool_)
        out.append(case("%s_broadcast" % op, op, [a, b], outputs=[f(a, b)]))
        a = rand((4, 3, 2), np.bool_)
        b = rand((2, 3, 4), np.bool_)
        out.append(case("%s_strided" % op, op, [a, b], perms=[[2, 1, 0], None], outputs=[f(a.transpose(2, 1, 0), b)]))
        a = rand((), np.bool_)
        b = rand((5,), np.bool_)
        out.append(case("%s_scalar" % op, op, [a, b], outputs=[f(a, b)]))
        out.append(case("%s_empty" % op, op, [np.zeros((2, 0), np.bool_), np.zeros((0,), np.bool_)],
                        outputs=[np.zeros((2, 0), np.bool_)]))
        out.append(case("%s_not_bool" % op, op, [rand((2,), np.int32)] * 2,
                        error="%s: expected dtype bool, got i32" % op, out_specs=[("bool", [2])]))
    return out


def where_cases():
    out = []
    for dt in ALL:
        n = NAMES[dt]
        c = rand((3, 4), np.bool_)
        x = rand((3, 4), dt)
        y = rand((3, 4), dt)
        out.append(case("where_%s" % n, "where", [c, x, y], outputs=[np.where(c, x, y)]))
        c = rand((3, 1), np.bool_)
        x = rand((1, 4), dt)
        y = rand((), dt)
        out.append(case("where_%s_broadcast3" % n, "where", [c, x, y], outputs=[np.where(c, x, y)]))
        c = rand((2, 3, 4), np.bool_)
        x = rand((4, 3, 2), dt)
        y = rand((4, 3), dt)
        out.append(case("where_%s_strided" % n, "where", [c, x, y], perms=[None, [2, 1, 0], [1, 0]],
                        outputs=[np.where(c, x.transpose(2, 1, 0), y.T)]))
    # Attention-mask shape: mask broadcast over batch, y a scalar.
    c = rand((1, 1, 5, 300), np.bool_)
    x = rand((2, 3, 5, 300), np.float32)
    y = np.array(-np.inf, np.float32)
    out.append(case("where_f32_mask_scalar", "where", [c, x, y], outputs=[np.where(c, x, y)]))
    x = rand((2, 3, 5, 300), np.float16)
    out.append(case("where_f16_scalar_x", "where", [c, np.array(7.5, np.float16), x],
                    outputs=[np.where(c, np.float16(7.5), x)]))
    out.append(case("where_empty", "where", [np.zeros((0, 1), np.bool_), rand((3,), np.int64), rand((1,), np.int64)],
                    outputs=[np.zeros((0, 3), np.int64)]))
    out.append(case("where_cond_not_bool", "where", [rand((2,), np.int32), rand((2,), np.float32), rand((2,), np.float32)],
                    error="where: expected a bool condition, got i32"))
    out.append(case("where_mixed_dtypes", "where", [rand((2,), np.bool_), rand((2,), np.float32), rand((2,), np.float16)],
                    error="where: expected inputs of the same dtype, got f32 and f16"))
    out.append(case("where_bad_broadcast", "where", [rand((2,), np.bool_), rand((3,), np.float32), rand((1,), np.float32)],
                    error="where: cannot broadcast shapes [2] and [3] and [1]"))
    return out


# --- Bitwise ----------------------------------------------------------------------

BITWISE = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor}

# Its own generator, so that these cases leave the values of the others as they were.
bitwise_rng = np.random.default_rng(18)


def full_range(shape, dt):
    """Integers over the whole range of `dt`, its extremes first."""
    info = np.iinfo(dt)
    x = bitwise_rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)
    x.flat[:2] = [info.min, info.max][:x.size]
    return x


def bitwise_cases():
    out = []
    for op, f in BITWISE.items():
        for dt in INTS:
            n = NAMES[dt]
            a, b = full_range((3, 4), dt), full_range((4,), dt)
            out.append(case("%s_%s_broadcast_row" % (op, n), op, [a, b], outputs=[f(a, b)]))
            a, b = full_range((2, 1, 5), dt), full_range((3, 1), dt)
            out.append(case("%s_%s_broadcast_both" % (op, n), op, [a, b], outputs=[f(a, b)]))
            a, b = full_range((4, 3, 2), dt), full_range((2, 3, 4), dt)
            out.append(case("%s_%s_strided" % (op, n), op, [a, b], perms=[[2, 1, 0], None],
                            outputs=[f(a.transpose(2, 1, 0), b)]))
            a, b = full_range((), dt), full_range((2, 3), dt)
            out.append(case("%s_%s_scalar_lhs" % (op, n), op, [a, b], outputs=[f(a, b)]))
            out.append(case("%s_%s_empty" % (op, n), op, [np.zeros((0, 3), dt), full_range((3,), dt)],
                            outputs=[np.zeros((0, 3), dt)]))
        out.append(case("%s_float_rejected" % op, op, [np.ones(2, np.float32)] * 2,
                        error="%s: expected dtype i64, i32, i16, i8, u64, u32, u16, u8, got f32" % op, out_specs=[("f32", [2])]))
        out.append(case("%s_bool_rejected" % op, op, [np.ones(2, np.bool_)] * 2,
                        error="%s: expected dtype i64, i32, i16, i8, u64, u32, u16, u8, got bool" % op, out_specs=[("bool", [2])]))
        out.append(case("%s_mixed_dtypes" % op, op, [np.ones(2, np.int32), np.ones(2, np.uint8)],
                        error="%s: expected inputs of the same dtype, got i32 and u8" % op, out_specs=[("i32", [2])]))
    for dt in INTS:
        n = NAMES[dt]
        x = full_range((3, 5), dt)
        out.append(case("bitwise_not_%s" % n, "bitwise_not", [x], outputs=[np.invert(x)]))
        x = full_range((4, 3, 2), dt)
        out.append(case("bitwise_not_%s_strided" % n, "bitwise_not", [x], perms=[[1, 2, 0]],
                        outputs=[np.invert(x.transpose(1, 2, 0))]))
    out.append(case("bitwise_not_empty", "bitwise_not", [np.zeros((2, 0), np.int8)], outputs=[np.zeros((2, 0), np.int8)]))
    out.append(case("bitwise_not_float_rejected", "bitwise_not", [np.ones(2, np.float16)],
                    error="bitwise_not: expected dtype i64, i32, i16, i8, u64, u32, u16, u8, got f16", out_specs=[("f16", [2])]))
    out.append(case("bitwise_not_bool_rejected", "bitwise_not", [np.ones(2, np.bool_)],
                    error="bitwise_not: expected dtype i64, i32, i16, i8, u64, u32, u16, u8, got bool", out_specs=[("bool", [2])]))
    return out + shift_cases()


SHIFTS = {"bitwise_left_shift": np.left_shift, "bitwise_right_shift": np.right_shift}


def shift_amounts(shape, dt):
    """Shift amounts from 0 past the width of `dt` (numpy gives 0, or -1 for a
    negative value shifted right, from the width on), and negative ones for
    signed types (also out of range)."""
    bits = np.iinfo(dt).bits
    low = -3 if np.iinfo(dt).min < 0 else 0
    return bitwise_rng.integers(low, bits + 3, size=shape).astype(dt)


def shift_cases():
    out = []
    for op, f in SHIFTS.items():
        for dt in INTS:
            n = NAMES[dt]
            a, b = full_range((4, 6), dt), shift_amounts((4, 6), dt)
            b.flat[:3] = [0, np.iinfo(dt).bits - 1, np.iinfo(dt).bits]
            out.append(case("%s_%s" % (op, n), op, [a, b], outputs=[f(a, b)]))
            a, b = full_range((3, 1), dt), shift_amounts((5,), dt)
            out.append(case("%s_%s_broadcast" % (op, n), op, [a, b], outputs=[f(a, b)]))
            a, b = full_range((4, 3, 2), dt), shift_amounts((2, 3, 4), dt)
            out.append(case("%s_%s_strided" % (op, n), op, [a, b], perms=[[2, 1, 0], None],
                            outputs=[f(a.transpose(2, 1, 0), b)]))
        out.append(case("%s_float_rejected" % op, op, [np.ones(2, np.float32)] * 2,
                        error="%s: expected dtype i64, i32, i16, i8, u64, u32, u16, u8, got f32" % op, out_specs=[("f32", [2])]))
        out.append(case("%s_mixed_dtypes" % op, op, [np.ones(2, np.uint32), np.ones(2, np.uint8)],
                        error="%s: expected inputs of the same dtype, got u32 and u8" % op, out_specs=[("u32", [2])]))
    return out


# --- Unary -------------------------------------------------------------------------

def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def softplus_ref(x, beta=1.0, threshold=20.0):
    return np.where(beta * x > threshold, x, np.log1p(np.exp(beta * x)) / beta)


# torch.nn.SELU's constants.
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def selu_ref(x, alpha=SELU_ALPHA, gamma=SELU_SCALE):
    return gamma * np.where(x > 0, x, alpha * np.expm1(x))


def celu_ref(x, alpha=1.0):
    return np.where(x > 0, x, alpha * np.expm1(x / alpha))


def hardsigmoid_ref(x):
    return np.clip(x + 3, 0, 6) / 6


def thresholded_relu_ref(x, alpha=1.0):
    return np.where(x > alpha, x, 0)


def shrink_ref(x, lambd=0.5, bias=0.0):
    """ONNX Shrink; integers in float64, truncated and saturated to their range."""
    if x.dtype in (np.float32, np.float16, np.float64):
        wide = x.astype(np.float64)
        return quiet(lambda: np.where(wide < -lambd, wide + bias, np.where(wide > lambd, wide - bias, 0))).astype(x.dtype)
    wide = x.astype(np.float64)
    y = np.trunc(np.where(wide < -lambd, wide + bias, np.where(wide > lambd, wide - bias, 0)))
    info = np.iinfo(x.dtype)
    return np.clip(y, info.min, info.max).astype(x.dtype)


def isinf_ref(x, positive=True, negative=True):
    return (np.isposinf(x) & positive) | (np.isneginf(x) & negative)


verf = np.vectorize(math.erf, otypes=[np.float64])

# op -> (reference on float64, input range)
FLOAT_UNARY = {
    "exp": (np.exp, (-10, 10)),
    "log": (np.log, (0.01, 100)),
    "sqrt": (np.sqrt, (0, 100)),
    "rsqrt": (lambda x: 1 / np.sqrt(x), (0.01, 100)),
    "reciprocal": (lambda x: 1 / x, (0.1, 10)),
    "sin": (np.sin, (-10, 10)),
    "cos": (np.cos, (-10, 10)),
    "tanh": (np.tanh, (-5, 5)),
    "tan": (np.tan, (-1.5, 1.5)),
    "asin": (np.arcsin, (-1, 1)),
    "acos": (np.arccos, (-1, 1)),
    "atan": (np.arctan, (-10, 10)),
    "sinh": (np.sinh, (-10, 10)),
    "cosh": (np.cosh, (-10, 10)),
    "asinh": (np.arcsinh, (-10, 10)),
    "acosh": (np.arccosh, (1, 10)),
    "atanh": (np.arctanh, (-0.99, 0.99)),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), (-20, 20)),
    "erf": (verf, (-4, 4)),
    "floor": (np.floor, (-10, 10)),
    "ceil": (np.ceil, (-10, 10)),
    "round": (np.round, (-10, 10)),
    "hardsigmoid": (hardsigmoid_ref, (-5, 5)),
    "hardswish": (lambda x: x * hardsigmoid_ref(x), (-5, 5)),
    "softplus": (softplus_ref, (-10, 25)),
    "mish": (lambda x: x * np.tanh(softplus_ref(x)), (-10, 25)),
    "leaky_relu": (lambda x: np.where(x > 0, x, 0.01 * x), (-5, 5)),
    "elu": (lambda x: np.where(x > 0, x, np.expm1(x)), (-5, 5)),
    "selu": (selu_ref, (-5, 5)),
    "celu": (celu_ref, (-5, 5)),
    "gelu": (lambda x: 0.5 * x * (1 + verf(x / np.sqrt(2))), (-6, 6)),
    "softsign": (lambda x: x / (1 + np.abs(x)), (-10, 10)),
    "thresholded_relu": (thresholded_relu_ref, (-5, 5)),
}


def uniform(shape, dt, lo, hi):
    return rng.uniform(lo, hi, shape).astype(dt)


def unary_float_cases():
    out = []
    for op, (f, (lo, hi)) in FLOAT_UNARY.items():
        for dt in F64_FLOATS:
            n = NAMES[dt]
            x = uniform((3, 5), dt, lo, hi)
            out.append(case("%s_%s" % (op, n), op, [x], outputs=[float_ref(f, x)], **tol(dt)))
            x = uniform((4, 3, 2), dt, lo, hi)
            out.append(case("%s_%s_strided" % (op, n), op, [x], perms=[[2, 0, 1]],
                            outputs=[float_ref(f, x.transpose(2, 0, 1))], **tol(dt)))
        x = uniform((2, 600), np.float16, lo, hi)
        out.append(case("%s_f16_long" % op, op, [x], outputs=[float_ref(f, x)], **F16))
        out.append(case("%s_empty" % op, op, [np.zeros((0, 4), np.float32)], outputs=[np.zeros((0, 4), np.float32)]))
        out.append(case("%s_int_rejected" % op, op, [rand((2,), np.int32)],
                        error="%s: expected dtype f32, f16, f64, got i32" % op,
                        out_specs=[("i32", [2])]))
    # Special values (NaN, infinities, zeros, domain edges).
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 1e-7, 0.5, -0.5, 1.5, 2.5, -2.5, 88.0,
                         -88.0, 100.0, -100.0], np.float32)
    for op, (f, _) in FLOAT_UNARY.items():
        out.append(case("%s_f32_specials" % op, op, [specials], outputs=[float_ref(f, specials)]))
        s64 = specials.astype(np.float64)
        out.append(case("%s_f64_specials" % op, op, [s64], outputs=[float_ref(f, s64)], **F64))
    x = np.array([-1.0, 0.0, 1.0, 4.0], np.float32)
    out.append(case("log_sqrt_domain", "log", [x], outputs=[float_ref(np.log, x)]))
    out.append(case("sqrt_negative", "sqrt", [x], outputs=[float_ref(np.sqrt, x)]))
    out.append(case("round_half_even_f16", "round", [np.array([0.5, 1.5, 2.5, -0.5, -1.5, 3.5], np.float16)],
                    outputs=[np.array([0.0, 2.0, 2.0, -0.0, -2.0, 4.0], np.float16)]))
    x = uniform((20,), np.float32, -1e-3, 1e-3)
    out.append(case("elu_near_zero", "elu", [x], outputs=[float_ref(lambda v: np.where(v > 0, v, np.expm1(v)), x)],
                    atol=1e-9, rtol=1e-5))

    # Attributes.
    x = uniform((3, 4), np.float32, -5, 5)
    out.append(case("leaky_relu_slope", "leaky_relu", [x], attrs={"negative_slope": 0.2},
                    outputs=[float_ref(lambda v: np.where(v > 0, v, 0.2 * v), x)]))
    out.append(case("leaky_relu_int_slope", "leaky_relu", [x], attrs={"negative_slope": 2},
                    outputs=[float_ref(lambda v: np.where(v > 0, v, 2 * v), x)]))
    out.append(case("elu_alpha", "elu", [x], attrs={"alpha": 0.5},
                    outputs=[float_ref(lambda v: np.where(v > 0, v, 0.5 * np.expm1(v)), x)]))
    out.append(case("selu_alpha_gamma", "selu", [x], attrs={"alpha": 1.5, "gamma": 0.75},
                    outputs=[float_ref(lambda v: selu_ref(v, 1.5, 0.75), x)]))
    # float64 uses the attributes as given, not rounded to float (0.1 is not
    # a float).
    x64 = uniform((3, 4), np.float64, -5, 5)
    out.append(case("leaky_relu_slope_f64", "leaky_relu", [x64], attrs={"negative_slope": 0.1},
                    outputs=[np.where(x64 > 0, x64, 0.1 * x64)], **F64))
    out.append(case("selu_alpha_gamma_f64", "selu", [x64], attrs={"alpha": 1.1, "gamma": 0.3},
                    outputs=[selu_ref(x64, 1.1, 0.3)], **F64))
    out.append(case("celu_alpha_f64", "celu", [x64], attrs={"alpha": 0.3},
                    outputs=[celu_ref(x64, 0.3)], **F64))
    out.append(case("celu_alpha", "celu", [x], attrs={"alpha": 0.7},
                    outputs=[float_ref(lambda v: celu_ref(v, 0.7), x)]))
    out.append(case("celu_alpha_zero", "celu", [x], attrs={"alpha": 0.0},
                    error="celu: expected a non-zero alpha, got 0"))
    out.append(case("gelu_none_explicit", "gelu", [x], attrs={"approximate": "none"},
                    outputs=[float_ref(lambda v: 0.5 * v * (1 + verf(v / np.sqrt(2))), x)]))
    for dt in F64_FLOATS:
        xt = uniform((3, 5), dt, -6, 6)
        out.append(case("gelu_tanh_%s" % NAMES[dt], "gelu", [xt], attrs={"approximate": "tanh"},
                        outputs=[float_ref(gelu_tanh, xt)], **tol(dt)))
    out.append(case("gelu_bad_approximate", "gelu", [x], attrs={"approximate": "fast"},
                    error="gelu: expected attribute approximate to be one of 'none', 'tanh', got 'fast'"))
    xs = uniform((4, 5), np.float32, -10, 10)
    out.append(case("softplus_beta_threshold", "softplus", [xs], attrs={"beta": 2.0, "threshold": 5.0},
                    outputs=[float_ref(lambda v: softplus_ref(v, 2.0, 5.0), xs)]))
    out.append(case("softplus_zero_beta", "softplus", [xs], attrs={"beta": 0.0},
                    error="softplus: expected a non-zero beta, got 0"))
    out.append(case("elu_alpha_string", "elu", [xs], attrs={"alpha": "one"},
                    error="elu: expected attribute alpha to be a float, got str"))
    for dt in F64_FLOATS:
        x = np.array([np.nan, np.inf, -np.inf, 0.0, 1.0, -3.0], dt)
        out.append(case("isnan_%s" % NAMES[dt], "isnan", [x], outputs=[np.isnan(x)]))
        x = uniform((3, 4), dt, -1, 1)
        x[1, 2] = np.nan
        out.append(case("isnan_%s_strided" % NAMES[dt], "isnan", [x], perms=[[1, 0]], outputs=[np.isnan(x.T)]))
    out.append(case("isnan_wrong_output", "isnan", [specials], error="isnan: expected output dtype bool, got f32",
                    out_specs=[("f32", [17])]))
    x = uniform((3, 4), np.float32, -5, 5)
    for alpha in (2.0, -0.5, 0):
        out.append(case("thresholded_relu_alpha_%s" % str(alpha).replace("-", "neg").replace(".", "_"),
                        "thresholded_relu", [x], attrs={"alpha": alpha},
                        outputs=[float_ref(lambda v: thresholded_relu_ref(v, alpha), x)]))
    out.append(case("thresholded_relu_alpha_string", "thresholded_relu", [x], attrs={"alpha": "one"},
                    error="thresholded_relu: expected attribute alpha to be a float, got str"))
    # isinf: each combination of the two flags, on every special value.
    for dt in F64_FLOATS:
        x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -3.0, 65504.0, -65504.0], dt)
        for positive in (True, False):
            for negative in (True, False):
                attrs = {}
                if not positive:
                    attrs["detect_positive"] = False
                if not negative:
                    attrs["detect_negative"] = 0  # ONNX's int form reads as a bool
                out.append(case("isinf_%s_%s_%s" % (NAMES[dt], "pos" if positive else "nopos",
                                                    "neg" if negative else "noneg"),
                                "isinf", [x], attrs=attrs, outputs=[isinf_ref(x, positive, negative)]))
        x = uniform((3, 4), dt, -1, 1)
        x[0, 1], x[2, 3], x[1, 0] = np.inf, -np.inf, np.nan
        out.append(case("isinf_%s_strided" % NAMES[dt], "isinf", [x], perms=[[1, 0]], outputs=[isinf_ref(x.T)]))
    out.append(case("isinf_wrong_output", "isinf", [specials], error="isinf: expected output dtype bool, got f32",
                    out_specs=[("f32", [17])]))
    out.append(case("isinf_int_rejected", "isinf", [rand((2,), np.int32)], error="isinf: expected dtype f32, f16, f64, got i32",
                    out_specs=[("bool", [2])]))
    out.append(case("isinf_flag_string", "isinf", [specials], attrs={"detect_positive": "yes"},
                    error="isinf: expected attribute detect_positive to be a bool, got str"))
    return out


def unary_numeric_cases():
    out = []
    refs = {
        "neg": lambda x: quiet(np.negative, x),
        "abs": lambda x: quiet(np.abs, x),
        "relu": lambda x: np.maximum(x, np.zeros((), x.dtype)),
        "sign": np.sign,
    }
    for op, f in refs.items():
        for dt in NUMERIC:
            n = NAMES[dt]
            x = rand((3, 5), dt)
            x[0, 0] = 0
            out.append(case("%s_%s" % (op, n), op, [x], outputs=[f(x)], **tol(dt)))
            x = rand((4, 3, 2), dt)
            out.append(case("%s_%s_strided" % (op, n), op, [x], perms=[[1, 2, 0]],
                            outputs=[f(x.transpose(1, 2, 0))], **tol(dt)))
        out.append(case("%s_bool_rejected" % op, op, [rand((2,), np.bool_)], error="%s: expected dtype" % op,
                        out_specs=[("bool", [2])]))
        out.append(case("%s_empty_i32" % op, op, [np.zeros((2, 0, 3), np.int32)], outputs=[np.zeros((2, 0, 3), np.int32)]))
    for dt in (np.int8, np.int32, np.int64):
        info = np.iinfo(dt)
        x = np.array([info.min, info.max, -1, 0, 1], dt)
        out.append(case("neg_%s_extremes" % NAMES[dt], "neg", [x], outputs=[quiet(np.negative, x)]))
        out.append(case("abs_%s_extremes" % NAMES[dt], "abs", [x], outputs=[quiet(np.abs, x)]))
    x = np.array([0, 1, 255], np.uint8)
    out.append(case("neg_u8_wraps", "neg", [x], outputs=[quiet(np.negative, x)]))
    x = np.array([np.nan, -np.inf, np.inf, -0.0, 0.0, -2.0, 3.0], np.float32)
    for op, f in refs.items():
        out.append(case("%s_f32_specials" % op, op, [x], outputs=[f(x)]))

    # clamp: bounds are floats; either may be absent; min > max gives max.
    def clamp_ref(x, lo=None, hi=None):
        wide = x.astype(np.float64)
        if lo is not None:
            wide = np.maximum(wide, lo)
        if hi is not None:
            wide = np.minimum(wide, hi)
        if np.issubdtype(x.dtype, np.integer):
            info = np.iinfo(x.dtype)
            wide = np.clip(np.trunc(wide), info.min, info.max)
        return wide.astype(x.dtype)

    for dt in NUMERIC:
        n = NAMES[dt]
        x = rand((4, 5), dt)
        for label, attrs in (("both", {"min": -2.5, "max": 3.5}), ("min_only", {"min": 1.0}),
                             ("max_only", {"max": -1.0}), ("none", {}), ("inverted", {"min": 4.0, "max": 2.0}),
                             ("int_attrs", {"min": -3, "max": 3})):
            out.append(case("clamp_%s_%s" % (n, label), "clamp", [x], attrs=attrs,
                            outputs=[clamp_ref(x, attrs.get("min"), attrs.get("max"))], **tol(dt)))
        out.append(case("clamp_%s_strided" % n, "clamp", [x], attrs={"min": -1.5, "max": 2.0}, perms=[[1, 0]],
                        outputs=[clamp_ref(x.T, -1.5, 2.0)], **tol(dt)))
    # Fractional and out-of-range bounds on integers behave like clamping in float and casting back.
    x = np.arange(-5, 6, dtype=np.int32)
    for label, lo, hi in (("fractional", 1.5, 2.7), ("fractional_neg", -2.5, -0.5), ("beyond_range", -1e12, 1e12),
                          ("inverted_fractional", 2.7, 1.5)):
        out.append(case("clamp_i32_%s" % label, "clamp", [x], attrs={"min": lo, "max": hi},
                        outputs=[clamp_ref(x, lo, hi)]))
    x = np.array([0, 10, 200, 255], np.uint8)
    out.append(case("clamp_u8_beyond_range", "clamp", [x], attrs={"min": -10.0, "max": 300.0}, outputs=[x]))
    x = np.array([np.nan, -np.inf, np.inf, 0.5], np.float32)
    out.append(case("clamp_f32_specials", "clamp", [x], attrs={"min": -1.0, "max": 1.0},
                    outputs=[np.array([np.nan, -1.0, 1.0, 0.5], np.float32)]))
    out.append(case("clamp_bool_rejected", "clamp", [rand((2,), np.bool_)], attrs={"min": 0.0},
                    error="clamp: expected dtype", out_specs=[("bool", [2])]))
    out.append(case("clamp_min_string", "clamp", [rand((2,), np.float32)], attrs={"min": "zero"},
                    error="clamp: expected attribute min to be a float, got str"))

    # shrink: ONNX's hard (bias 0) and soft (bias = lambd) forms and others, on every numeric dtype.
    for dt in NUMERIC:
        n = NAMES[dt]
        x = rand((4, 5), dt)
        for label, attrs in (("default", {}), ("hard", {"lambd": 1.5}), ("soft", {"lambd": 1.5, "bias": 1.5}),
                             ("int_attrs", {"lambd": 2, "bias": 1}), ("fractional_bias", {"lambd": 0.5, "bias": 0.25})):
            out.append(case("shrink_%s_%s" % (n, label), "shrink", [x], attrs=attrs,
                            outputs=[shrink_ref(x, attrs.get("lambd", 0.5), attrs.get("bias", 0.0))], **tol(dt)))
        x = rand((3, 2, 4), dt)
        out.append(case("shrink_%s_strided" % n, "shrink", [x], attrs={"lambd": 1.0, "bias": 0.5}, perms=[[2, 0, 1]],
                        outputs=[shrink_ref(x.transpose(2, 0, 1), 1.0, 0.5)], **tol(dt)))
    x = np.arange(-2.0, 2.1, dtype=np.float32)  # ONNX's own example values
    out.append(case("shrink_onnx_soft", "shrink", [x], attrs={"lambd": 1.5, "bias": 1.5},
                    outputs=[np.array([-0.5, 0, 0, 0, 0.5], np.float32)]))
    out.append(case("shrink_f32_specials", "shrink", [np.array([np.nan, np.inf, -np.inf, 0.5, -0.5, 0.0], np.float32)],
                    attrs={"lambd": 0.5, "bias": 1.0},
                    outputs=[np.array([0, np.inf, -np.inf, 0, 0, 0], np.float32)]))
    # Integer results beyond the dtype saturate (ONNX Runtime leaves them undefined).
    out.append(case("shrink_u8_saturates", "shrink", [np.array([0, 1, 2, 250, 255], np.uint8)],
                    attrs={"lambd": 0.5, "bias": 3.0}, outputs=[np.array([0, 0, 0, 247, 252], np.uint8)]))
    out.append(case("shrink_i8_saturates", "shrink", [np.array([-128, -100, 0, 100, 127], np.int8)],
                    attrs={"lambd": 10.0, "bias": -50.0}, outputs=[np.array([-128, -128, 0, 127, 127], np.int8)]))
    x = np.array([2**62 + 2**40, -(2**62), 7, -7], np.int64)
    out.append(case("shrink_i64_large", "shrink", [x], attrs={"lambd": 3.0, "bias": 2.0},
                    outputs=[shrink_ref(x, 3.0, 2.0)]))
    out.append(case("shrink_bool_rejected", "shrink", [rand((2,), np.bool_)], error="shrink: expected dtype",
                    out_specs=[("bool", [2])]))
    out.append(case("shrink_lambd_string", "shrink", [rand((2,), np.float32)], attrs={"lambd": "half"},
                    error="shrink: expected attribute lambd to be a float, got str"))

    # logical_not
    x = rand((3, 4), np.bool_)
    out.append(case("logical_not", "logical_not", [x], outputs=[np.logical_not(x)]))
    out.append(case("logical_not_strided", "logical_not", [x], perms=[[1, 0]], outputs=[np.logical_not(x.T)]))
    out.append(case("logical_not_float_rejected", "logical_not", [rand((2,), np.float32)],
                    error="logical_not: expected dtype bool, got f32", out_specs=[("bool", [2])]))
    out.append(case("neg_two_outputs", "neg", [rand((2,), np.float32)], error="neg: expected 1 output, got 2",
                    out_specs=[("f32", [2]), ("f32", [2])]))
    return out


# --- cast and clone -------------------------------------------------------------------

def cast_source(src, dst, shape):
    """Values of dtype `src` whose cast to `dst` numpy defines on every platform."""
    if src == np.bool_:
        return rand(shape, np.bool_)
    if np.issubdtype(src, np.floating):
        if dst in INTS:
            info = np.iinfo(dst)
            lo, hi = max(info.min, -1000), min(info.max, 1000)
            x = rng.uniform(lo, hi, shape).astype(src)
            return np.clip(x, lo, hi - 1).astype(src)  # truncation stays in range
        x = rng.uniform(-100, 100, shape).astype(src)
        x.flat[0] = 0
        return x
    x = rand(shape, src, -300, 300)  # integers wrap when narrowed (numpy defines that)
    x.flat[0] = 0
    return x


def cast_cases():
    out = []
    for src in ALL:
        for dst in ALL:
            s, d = NAMES[src], NAMES[dst]
            x = cast_source(src, dst, (3, 4))
            out.append(case("cast_%s_to_%s" % (s, d), "cast", [x], attrs={"dtype": dtype(d)},
                            outputs=[x.astype(dst)], atol=0, rtol=0))
            x = cast_source(src, dst, (4, 3, 2))
            out.append(case("cast_%s_to_%s_strided" % (s, d), "cast", [x], attrs={"dtype": dtype(d)},
                            perms=[[2, 0, 1]], outputs=[x.transpose(2, 0, 1).astype(dst)], atol=0, rtol=0))
        out.append(case("cast_%s_empty" % NAMES[src], "cast", [np.zeros((0, 3), src)], attrs={"dtype": dtype("f16")},
                        outputs=[np.zeros((0, 3), np.float16)]))
    # Rounding of float32 to float16 (ties to even, overflow to inf, subnormals).
    x = np.array([1.0009766, 1.00048828125, 65504.0, 65520.0, 1e-7, 6e-8, -3e-8, np.nan, -np.inf], np.float32)
    out.append(case("cast_f32_to_f16_rounding", "cast", [x], attrs={"dtype": dtype("f16")},
                    outputs=[quiet(x.astype, np.float16)], atol=0, rtol=0))
    x = np.array([2**24 + 1, -(2**40) - 3, 2**62], np.int64)
    out.append(case("cast_i64_to_f32_rounds", "cast", [x], attrs={"dtype": dtype("f32")},
                    outputs=[x.astype(np.float32)], atol=0, rtol=0))
    x = np.array([np.nan, 0.0, -0.0, np.inf, 1e-30], np.float32)
    out.append(case("cast_f32_to_bool_specials", "cast", [x], attrs={"dtype": dtype("bool")}, outputs=[x.astype(np.bool_)]))
    x = np.array([-0.9, 0.9, -127.9, 127.9, -1.5], np.float32)
    out.append(case("cast_f32_to_i8_truncates", "cast", [x], attrs={"dtype": dtype("i8")}, outputs=[x.astype(np.int8)]))
    x = np.array([255.9, 0.5, 3.99], np.float16)
    out.append(case("cast_f16_to_u8_truncates", "cast", [x], attrs={"dtype": dtype("u8")}, outputs=[x.astype(np.uint8)]))
    out.append(case("cast_missing_dtype", "cast", [rand((2,), np.float32)],
                    error="cast: expected a dtype attribute 'dtype', got none"))
    out.append(case("cast_dtype_as_string", "cast", [rand((2,), np.float32)], attrs={"dtype": "f16"},
                    error="cast: expected a dtype attribute 'dtype', got str", out_specs=[("f16", [2])]))
    out.append(case("cast_output_mismatch", "cast", [rand((2,), np.float32)], attrs={"dtype": dtype("i32")},
                    error="cast: expected output dtype i32, got f16", out_specs=[("f16", [2])]))

    for dt in ALL:
        n = NAMES[dt]
        x = rand((3, 4), dt)
        out.append(case("clone_%s" % n, "clone", [x], outputs=[x.copy()], atol=0, rtol=0))
        x = rand((2, 3, 4), dt)
        out.append(case("clone_%s_strided" % n, "clone", [x], perms=[[2, 0, 1]],
                        outputs=[np.ascontiguousarray(x.transpose(2, 0, 1))], atol=0, rtol=0))
        x = np.asarray(rand((), dt))
        out.append(case("clone_%s_scalar" % n, "clone", [x], outputs=[x.copy()], atol=0, rtol=0))
    out.append(case("clone_empty", "clone", [np.zeros((3, 0), np.int8)], outputs=[np.zeros((3, 0), np.int8)]))
    out.append(case("clone_wrong_output", "clone", [rand((2,), np.int8)], error="clone: expected output dtype i8, got u8",
                    out_specs=[("u8", [2])]))
    return out


def cases():
    return (arithmetic_cases() + division_cases() + pow_cases() + minmax_cases() + comparison_cases()
            + where_cases() + bitwise_cases() + unary_float_cases() + unary_numeric_cases() + cast_cases())

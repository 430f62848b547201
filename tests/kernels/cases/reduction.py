"""Cases for sum, mean, prod, amax, amin, argmax, argmin and cumsum.

References come from numpy: float32 results are computed in float64 and
rounded, float16 ones in float32 (what the kernels promise), integer sums and
products wrap like the kernels' two's-complement arithmetic. Shapes are chosen
to reach both loop orders of the kernels: reducing the innermost memory dim
(one accumulator set per output) and reducing an outer dim (a row of
accumulators swept over the reduced rows, in chunks of 256 outputs).
"""
import warnings

import numpy as np

from common import case, given, view

rng = np.random.default_rng(1234)

F32 = dict(atol=1e-4, rtol=1e-5)
F16 = dict(atol=2e-3, rtol=2e-3)


def rand(shape, dtype):
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-50, 50, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def tol(dtype):
    return F16 if dtype == np.float16 else F32


def axes(dims, rank):
    return None if not dims else tuple(d % rank for d in dims) if rank else None


def reduce_ref(op, x, dims, keepdim):
    # Some cases reduce NaN/inf or nothing on purpose; numpy's warnings are noise.
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return _reduce_ref(op, x, dims, keepdim)


def _reduce_ref(op, x, dims, keepdim):
    ax = axes(dims, x.ndim)
    if op == "mean":
        wide = np.float32 if x.dtype == np.float16 else np.float64
        return np.asarray(np.mean(x.astype(wide), axis=ax, keepdims=keepdim)).astype(x.dtype)
    if x.dtype in (np.float16, np.float32, np.float64):
        wide = x.astype(np.float32 if x.dtype == np.float16 else np.float64)
        f = {"sum": np.sum, "prod": np.prod, "amax": np.amax, "amin": np.amin}[op]
        return np.asarray(f(wide, axis=ax, keepdims=keepdim)).astype(x.dtype)
    if op in ("sum", "prod"):
        f = np.sum if op == "sum" else np.prod
        return np.asarray(f(x.astype(np.int64), axis=ax, keepdims=keepdim)).astype(x.dtype)
    f = np.amax if op == "amax" else np.amin
    return np.asarray(f(x, axis=ax, keepdims=keepdim)).astype(x.dtype)


def reduce_case(name, op, x, dims=None, keepdim=None, perm=None, **kw):
    attrs = {}
    if dims is not None:
        attrs["dims"] = dims
    if keepdim is not None:
        attrs["keepdim"] = keepdim
    y = reduce_ref(op, view(x, perm), dims, bool(keepdim))
    opts = dict(tol(x.dtype))
    opts.update(kw)
    return case(name, op, inputs=[x], attrs=attrs, outputs=[y],
                perms=None if perm is None else [perm], **opts)


def arg_ref(op, x, dim, keepdim, last):
    d = dim % max(x.ndim, 1)
    f = np.argmax if op == "argmax" else np.argmin
    if x.ndim == 0:
        return np.array(0, dtype=np.int64)
    if last:
        n = x.shape[d]
        r = n - 1 - f(np.flip(x, axis=d), axis=d)
    else:
        r = f(x, axis=d)
    r = np.asarray(r, dtype=np.int64)
    if keepdim:
        r = np.expand_dims(r, d)
    return r


def arg_case(name, op, x, dim, keepdim=None, last=None, perm=None):
    attrs = {"dim": dim}
    if keepdim is not None:
        attrs["keepdim"] = keepdim
    if last is not None:
        attrs["select_last_index"] = last
    y = arg_ref(op, view(x, perm), dim, bool(keepdim), bool(last))
    return case(name, op, inputs=[x], attrs=attrs, outputs=[y], perms=None if perm is None else [perm])


def cumsum_ref(x, dim, exclusive, reverse):
    if x.ndim == 0:
        return (np.zeros_like(x) if exclusive else x.copy())
    d = dim % x.ndim
    wide = {np.dtype(np.float16): np.float32, np.dtype(np.float32): np.float64,
            np.dtype(np.float64): np.float64}.get(x.dtype, np.int64)
    w = x.astype(wide)
    if reverse:
        w = np.flip(w, axis=d)
    c = np.cumsum(w, axis=d)
    if exclusive:
        c = c - w
    if reverse:
        c = np.flip(c, axis=d)
    return c.astype(x.dtype)


def cumsum_case(name, x, dim, exclusive=None, reverse=None, perm=None):
    attrs = {"dim": dim, **given(exclusive=exclusive, reverse=reverse)}
    y = cumsum_ref(view(x, perm), dim, bool(exclusive), bool(reverse))
    return case(name, "cumsum", inputs=[x], attrs=attrs, outputs=[y],
                perms=None if perm is None else [perm], **tol(x.dtype))


def error_case(name, op, x, attrs, out_dtype, error):
    return case(name, op, inputs=[x], attrs=attrs, outputs=[], error=error,
                out_specs=[(out_dtype, [1])])


def cases():
    out = []
    f32, f16, i64, i32 = np.float32, np.float16, np.int64, np.int32

    # Every op x dtype on a small 3-D tensor, reducing inner, outer, middle and all dims.
    f64, wide_ints = np.float64, [np.uint64, np.uint32]
    small_ints = [np.int16, np.int8, np.uint16, np.uint8]
    dtypes = {"sum": [f32, f16, f64, i64, i32] + wide_ints, "mean": [f32, f16, f64],
              "prod": [f32, f16, f64, i64, i32] + wide_ints,
              "amax": [f32, f16, f64, i64, i32, np.bool_] + wide_ints + small_ints,
              "amin": [f32, f16, f64, i64, i32, np.bool_] + wide_ints + small_ints}
    for op, dts in dtypes.items():
        for dt in dts:
            tag = np.dtype(dt).name
            x = rand((3, 4, 5), dt)
            if op == "prod" and dt in (f32, f16, f64):
                x = (rng.random((3, 4, 5)) + 0.5).astype(dt)  # keep products in range
            if op == "prod" and np.issubdtype(dt, np.integer):
                x = rng.integers(-3, 4, size=(3, 4, 5)).astype(dt)
            out.append(reduce_case(f"{op}_{tag}_inner", op, x, dims=[2]))
            out.append(reduce_case(f"{op}_{tag}_outer", op, x, dims=[0]))
            out.append(reduce_case(f"{op}_{tag}_middle_keepdim", op, x, dims=[1], keepdim=True))
            out.append(reduce_case(f"{op}_{tag}_all", op, x))
            out.append(reduce_case(f"{op}_{tag}_two_dims", op, x, dims=[0, 2]))
            out.append(reduce_case(f"{op}_{tag}_perm", op, x, dims=[-1], perm=[2, 0, 1]))

    # Large shapes: long contiguous lines (lanes + tail), outer dims wider than one
    # 256-output chunk, negative and unordered dims, empty dims list = all.
    x = rand((7, 300, 33), f32)
    out.append(reduce_case("sum_f32_large_inner", "sum", x, dims=[-1]))
    out.append(reduce_case("sum_f32_large_outer", "sum", x, dims=[0], atol=1e-4))
    out.append(reduce_case("sum_f32_large_middle", "sum", x, dims=[1], atol=5e-4))
    out.append(reduce_case("sum_f32_large_outer_inner", "sum", x, dims=[2, 0], keepdim=True, atol=5e-4))
    out.append(reduce_case("mean_f32_large_all_empty_dims", "mean", x, dims=[]))
    out.append(reduce_case("amax_f32_large_inner_perm", "amax", x, dims=[1], perm=[0, 2, 1]))
    out.append(reduce_case("amin_f32_large_outer_perm", "amin", x, dims=[0], perm=[2, 1, 0]))
    out.append(reduce_case("sum_f32_large_perm_all", "sum", x, perm=[1, 2, 0], atol=2e-3))
    out.append(reduce_case("mean_f16_large_perm", "mean", rand((300, 40), f16), dims=[1], perm=[1, 0]))
    out.append(reduce_case("sum_i64_large_outer", "sum", rand((600, 300), i64), dims=[0]))
    out.append(reduce_case("amax_i32_large", "amax", rand((5, 1000), i32), dims=[1]))

    # Integer wraparound: sums and products wrap like fixed-width integers.
    big = np.array([2**62, 2**62, 2**62, 5], dtype=i64)
    out.append(reduce_case("sum_i64_wraps", "sum", big, dims=[0]))
    out.append(reduce_case("prod_i32_wraps", "prod", np.array([65536, 65536, 3], dtype=i32), dims=[0]))
    out.append(reduce_case("sum_i32_wraps", "sum", np.array([2**31 - 1, 1, 5], dtype=i32), dims=[0]))

    # NaN wins amax/amin (numpy semantics); infinities are ordinary values.
    nan_x = np.array([[1.0, np.nan, 3.0], [-np.inf, 2.0, np.inf]], dtype=f32)
    out.append(reduce_case("amax_nan", "amax", nan_x, dims=[1]))
    out.append(reduce_case("amin_nan_outer", "amin", nan_x, dims=[0]))
    out.append(reduce_case("sum_inf", "sum", nan_x[1:], dims=[1]))

    # dims as a single int, keepdim over every dim.
    x = rand((3, 4, 5), f32)
    out.append(case("sum_dims_single_int", "sum", inputs=[x], attrs={"dims": -2},
                    outputs=[np.sum(x.astype(np.float64), axis=1).astype(f32)], **F32))
    out.append(reduce_case("sum_f32_all_keepdim", "sum", x, keepdim=True))
    out.append(reduce_case("amin_f32_all_dims_listed", "amin", x, dims=[2, 0, 1], keepdim=True))

    # Scalars and size-1 dims.
    out.append(reduce_case("sum_scalar", "sum", np.array(3.5, dtype=f32)))
    out.append(reduce_case("sum_scalar_dim0", "sum", np.array(3.5, dtype=f32), dims=[0]))
    out.append(reduce_case("amax_scalar_keepdim", "amax", np.array(-2, dtype=i64), keepdim=True))
    out.append(reduce_case("sum_size1_dims", "sum", rand((1, 5, 1), f32), dims=[0, 2]))
    out.append(reduce_case("sum_size1_keepdim", "sum", rand((4, 1), f32), dims=[1], keepdim=True))

    # Empty tensors: empty outputs, and empty reductions (sum=0, prod=1, mean=NaN).
    e = np.zeros((2, 0, 3), dtype=f32)
    out.append(reduce_case("sum_empty_reduction", "sum", e, dims=[1]))
    out.append(reduce_case("prod_empty_reduction", "prod", e, dims=[1], keepdim=True))
    out.append(reduce_case("mean_empty_reduction", "mean", e, dims=[1]))
    out.append(reduce_case("sum_empty_output", "sum", e, dims=[2]))
    out.append(reduce_case("amax_empty_output", "amax", e, dims=[0]))
    out.append(reduce_case("sum_i32_empty_all", "sum", np.zeros((0, 4), dtype=i32)))

    # Errors.
    x = rand((2, 3), f32)
    out.append(error_case("amax_empty_dim_error", "amax", e, {"dims": [1]}, "f32", "amax: cannot reduce over an empty dim"))
    out.append(error_case("amin_empty_all_error", "amin", np.zeros((0,), dtype=i64), {}, "i64", "amin: cannot reduce over an empty dim"))
    out.append(error_case("sum_dim_out_of_range", "sum", x, {"dims": [2]}, "f32", "sum: dim 2 is out of range"))
    out.append(error_case("sum_dim_negative_out_of_range", "sum", x, {"dims": [-3]}, "f32", "dim -3 is out of range"))
    out.append(error_case("sum_duplicate_dims", "sum", x, {"dims": [1, -1]}, "f32", "appears more than once"))
    out.append(error_case("mean_int_unsupported", "mean", rand((2, 3), i64), {}, "i64", "mean: input dtype i64"))
    out.append(error_case("sum_bool_unsupported", "sum", rand((2, 3), np.bool_), {}, "bool", "sum: input dtype bool"))
    out.append(error_case("sum_i8_unsupported", "sum", rand((2, 3), np.int8), {}, "i8", "sum: input dtype i8"))
    out.append(error_case("sum_dims_float", "sum", x, {"dims": [1.0]}, "f32", "sum: expected attribute dims to be int[], got float[]"))
    out.append(error_case("sum_wrong_output_dtype", "sum", x, {}, "f16", "sum: expected output dtype f32, got f16"))

    # argmax / argmin.
    for op in ("argmax", "argmin"):
        for dt in (f32, f16, np.float64, i64, i32, np.int16, np.int8, np.uint64, np.uint32, np.uint16, np.uint8,
                   np.bool_):
            tag = np.dtype(dt).name
            x = rand((4, 6, 5), dt)
            if dt == np.uint64:  # values on both sides of 2^63
                x = rng.integers(0, 2**64 - 1, size=(4, 6, 5), dtype=np.uint64)
            if dt == np.uint8:
                x = rng.integers(0, 200, size=(4, 6, 5)).astype(dt)
            out.append(arg_case(f"{op}_{tag}_inner", op, x, dim=2))
            out.append(arg_case(f"{op}_{tag}_outer_keepdim", op, x, dim=0, keepdim=True))
            out.append(arg_case(f"{op}_{tag}_middle_perm", op, x, dim=-2, perm=[1, 2, 0]))
        # Ties: first index by default, last with select_last_index.
        ties = rng.integers(0, 3, size=(5, 7)).astype(f32)
        out.append(arg_case(f"{op}_ties_first_inner", op, ties, dim=1))
        out.append(arg_case(f"{op}_ties_last_inner", op, ties, dim=1, last=True))
        out.append(arg_case(f"{op}_ties_first_outer", op, ties, dim=0))
        out.append(arg_case(f"{op}_ties_last_outer_keepdim", op, ties, dim=0, keepdim=True, last=True))
        # NaN is the extreme for both (numpy returns the first NaN).
        nx = np.array([[1.0, np.nan, 5.0, np.nan], [2.0, 0.0, -1.0, 7.0]], dtype=f32)
        out.append(arg_case(f"{op}_nan_inner", op, nx, dim=1))
        out.append(arg_case(f"{op}_nan_outer", op, nx, dim=0))
        out.append(arg_case(f"{op}_large_outer", op, rand((9, 700), f32), dim=0))
        out.append(arg_case(f"{op}_large_inner", op, rand((3, 1000), f32), dim=-1))
        out.append(arg_case(f"{op}_scalar", op, np.array(4.0, dtype=f32), dim=0))
        out.append(arg_case(f"{op}_size1_dim", op, rand((3, 1, 2), f32), dim=1, keepdim=True))
        out.append(arg_case(f"{op}_empty_output", op, np.zeros((0, 3), dtype=f32), dim=1))
        out.append(error_case(f"{op}_empty_dim_error", op, np.zeros((3, 0), dtype=f32), {"dim": 1}, "i64", f"{op}: cannot reduce over dim 1 of size 0"))
        out.append(error_case(f"{op}_dim_out_of_range", op, rand((3, 2), f32), {"dim": 2}, "i64", f"{op}: dim 2 is out of range"))
        out.append(error_case(f"{op}_missing_dim", op, rand((3, 2), f32), {}, "i64", f"{op}: missing attribute dim"))
        out.append(error_case(f"{op}_wrong_output_dtype", op, rand((3, 2), f32), {"dim": 0}, "i32", f"{op}: expected output dtype i64, got i32"))

    # cumsum.
    for dt in (f32, f16, np.float64, i64, i32, np.uint64, np.uint32):
        tag = np.dtype(dt).name
        x = rand((3, 4, 5), dt)
        for exclusive in (False, True):
            for reverse in (False, True):
                sfx = ("_excl" if exclusive else "") + ("_rev" if reverse else "")
                out.append(cumsum_case(f"cumsum_{tag}_inner{sfx}", x, dim=2, exclusive=exclusive, reverse=reverse))
                out.append(cumsum_case(f"cumsum_{tag}_outer{sfx}", x, dim=0, exclusive=exclusive, reverse=reverse))
                out.append(cumsum_case(f"cumsum_{tag}_perm{sfx}", x, dim=-2, exclusive=exclusive, reverse=reverse,
                                       perm=[2, 1, 0]))
    out.append(cumsum_case("cumsum_f32_large_outer", rand((20, 600), f32), dim=0))
    out.append(cumsum_case("cumsum_f32_large_inner_rev", rand((4, 900), f32), dim=1, reverse=True))
    out.append(cumsum_case("cumsum_1d", rand((10,), f32), dim=0))
    out.append(cumsum_case("cumsum_scalar", np.array(2.5, dtype=f32), dim=-1, exclusive=False))
    out.append(cumsum_case("cumsum_scalar_exclusive", np.array(7, dtype=i64), dim=0, exclusive=True))
    out.append(cumsum_case("cumsum_i32_wraps", np.array([2**31 - 1, 1, 1], dtype=i32), dim=0))
    out.append(cumsum_case("cumsum_empty", np.zeros((0, 3), dtype=f32), dim=1))
    out.append(cumsum_case("cumsum_empty_axis", np.zeros((2, 0), dtype=i64), dim=1))
    out.append(error_case("cumsum_dim_out_of_range", "cumsum", rand((3, 2), f32), {"dim": -3}, "f32", "cumsum: dim -3 is out of range"))
    out.append(error_case("cumsum_bool_unsupported", "cumsum", rand((3,), np.bool_), {"dim": 0}, "bool", "cumsum: input dtype bool"))
    out.append(error_case("cumsum_missing_dim", "cumsum", rand((3,), f32), {}, "f32", "cumsum: missing attribute dim"))
    return out

"""Cases for scatter (ONNX ScatterElements) and scatter_nd (ONNX ScatterND).

References: loops over the indices in row-major order that combine each
update into a copy of the input with numpy's ufuncs on the dtype, as ONNX's
reference implementation does (none replaces, add is np.add, mul
np.multiply, min np.minimum, max np.maximum: integers wrap, float16 rounds
to float16, NaN propagates, bools or/and); and the examples of ONNX's
operator documentation, written out by hand. Duplicate indices combine in
order (with none the last wins). Index tensors come as i64 and i32,
contiguous and permuted; out-of-range indices, positive and negative, must
fail.
"""
import numpy as np

from common import case, dtype_tag as tag, random_array, view

rng = np.random.default_rng(7)

ALL = [np.float32, np.float16, np.int64, np.int32, np.int8, np.uint8, np.bool_,
       np.float64, np.int16, np.uint16, np.uint32, np.uint64]
REDUCTIONS = ["none", "add", "mul", "min", "max"]
UFUNC = {"none": lambda a, b: b, "add": np.add, "mul": np.multiply, "min": np.minimum, "max": np.maximum}


def rand(shape, dtype):
    return random_array(rng, shape, dtype)


def indices(shape, size, dtype=np.int64, negative=True):
    lo = -size if negative else 0
    return rng.integers(lo, size, size=shape).astype(dtype)


def err(name, op, inputs, attrs, error):
    return case(name, op, inputs=inputs, attrs=attrs, outputs=[], error=error,
                out_specs=[(inputs[0].dtype, [1])])


def combine(out, at, value, reduction):
    # 0-d arrays keep the dtype (a Python scalar would promote).
    with np.errstate(over="ignore", invalid="ignore"):
        out[at] = UFUNC[reduction](np.asarray(out[at]), np.asarray(value))


# ---- scatter -----------------------------------------------------------------

def scatter_ref(x, idx, upd, dim, reduction):
    out = np.array(x, order="C")
    d = dim % x.ndim
    for pos in np.ndindex(*idx.shape):
        i = int(idx[pos])
        at = list(pos)
        at[d] = i + x.shape[d] if i < 0 else i
        combine(out, tuple(at), upd[pos], reduction)
    return out


def scatter_case(name, x, idx, upd, dim, reduction="none", perms=None):
    xv, iv, uv = (view(a, perms[i] if perms else None) for i, a in enumerate([x, idx, upd]))
    y = scatter_ref(xv, iv, uv, dim, reduction)
    attrs = {"dim": dim}
    if reduction != "none":
        attrs["reduction"] = reduction
    return case(name, "scatter", inputs=[x, idx, upd], attrs=attrs, outputs=[y], perms=perms)


def scatter_cases():
    out = []
    for dt in ALL:
        for r in REDUCTIONS:
            x = rand((3, 4), dt)
            # Duplicates are likely: 12 updates into rows of 4.
            out.append(scatter_case(f"scatter_{tag(dt)}_{r}", x, indices((3, 4), 4), rand((3, 4), dt), 1, r))
    x = rand((4, 5, 6), np.float32)
    out.append(scatter_case("scatter_dim0_smaller", x, indices((2, 3, 4), 4, np.int32),
                            rand((2, 3, 4), np.float32), 0, "add"))
    out.append(scatter_case("scatter_negative_dim", x, indices((4, 5, 9), 6), rand((4, 5, 9), np.float32), -1))
    out.append(scatter_case("scatter_perm_all", x, indices((3, 5, 6), 4), rand((3, 5, 6), np.float32), 1, "max",
                            perms=[[2, 0, 1], [2, 0, 1], [2, 0, 1]]))
    out.append(scatter_case("scatter_perm_index", x, indices((5, 2, 4), 5), rand((4, 5, 2), np.float32), 1, "mul",
                            perms=[None, [2, 0, 1], None]))
    out.append(scatter_case("scatter_empty_index", x, np.zeros((4, 0, 6), np.int64), np.zeros((4, 0, 6), np.float32),
                            1))
    out.append(scatter_case("scatter_empty_input", np.zeros((0, 3), np.int32), np.zeros((0, 2), np.int64),
                            np.zeros((0, 2), np.int32), 1))
    nan = np.array([[1.0, np.nan, 3.0]], np.float32)
    out.append(scatter_case("scatter_nan_max", nan, np.array([[1, 0, 2]], np.int64),
                            np.array([[5.0, np.nan, 2.0]], np.float32), 1, "max"))
    out.append(scatter_case("scatter_nan_min", nan, np.array([[1, 1, 0]], np.int64),
                            np.array([[0.0, 9.0, np.nan]], np.float32), 1, "min"))
    # ONNX's documentation, examples 1 and 2 of ScatterElements.
    out.append(case("scatter_onnx_example_1", "scatter",
                    inputs=[np.zeros((3, 3), np.float32), np.array([[1, 0, 2], [0, 2, 1]], np.int64),
                            np.array([[1.0, 1.1, 1.2], [2.0, 2.1, 2.2]], np.float32)],
                    attrs={"dim": 0},
                    outputs=[np.array([[2.0, 1.1, 0.0], [1.0, 0.0, 2.2], [0.0, 2.1, 1.2]], np.float32)]))
    out.append(case("scatter_onnx_example_2", "scatter",
                    inputs=[np.array([[1.0, 2.0, 3.0, 4.0, 5.0]], np.float32), np.array([[1, 3]], np.int64),
                            np.array([[1.1, 2.1]], np.float32)],
                    attrs={"dim": 1}, outputs=[np.array([[1.0, 1.1, 3.0, 2.1, 5.0]], np.float32)]))
    # By hand: duplicates 1 and 1 add both (1 + 1.1 + 2.1), -1 is the last.
    out.append(case("scatter_duplicates_add", "scatter",
                    inputs=[np.array([[1.0, 2.0, 3.0, 4.0, 5.0]], np.float32), np.array([[1, 1, -1]], np.int32),
                            np.array([[1.1, 2.1, 0.5]], np.float32)],
                    attrs={"dim": 1, "reduction": "add"},
                    outputs=[np.array([[1.0, 5.2, 3.0, 4.0, 5.5]], np.float32)]))
    out.append(err("scatter_out_of_range", "scatter", [x, np.full((4, 5, 6), 6, np.int64), x], {"dim": 2},
                   "scatter: index 6 is out of range for size 6"))
    out.append(err("scatter_negative_out_of_range", "scatter",
                   [x, np.full((1, 1, 1), -5, np.int32), np.zeros((1, 1, 1), np.float32)], {"dim": 0},
                   "scatter: index -5 is out of range for size 4"))
    out.append(err("scatter_rank_mismatch", "scatter", [x, np.zeros((4, 5), np.int64), np.zeros((4, 5), np.float32)],
                   {"dim": 0}, "scatter: expected indices of rank 3 no larger than [4, 5, 6] outside dim 0, got [4, 5]"))
    out.append(err("scatter_updates_shape", "scatter",
                   [x, np.zeros((4, 5, 6), np.int64), np.zeros((4, 5, 5), np.float32)], {"dim": 0},
                   "scatter: expected updates of the indices' shape [4, 5, 6], got [4, 5, 5]"))
    out.append(err("scatter_updates_dtype", "scatter",
                   [x, np.zeros((4, 5, 6), np.int64), np.zeros((4, 5, 6), np.float16)], {"dim": 0},
                   "scatter: expected updates of dtype f32 like the input, got f16"))
    out.append(err("scatter_bool_index", "scatter",
                   [x, np.zeros((4, 5, 6), np.bool_), x], {"dim": 0},
                   "scatter: expected indices of dtype i64 or i32, got bool"))
    out.append(err("scatter_bad_reduction", "scatter", [x, np.zeros((4, 5, 6), np.int64), x],
                   {"dim": 0, "reduction": "mean"}, "scatter"))
    out.append(err("scatter_scalar_input", "scatter",
                   [np.array(1.0, np.float32), np.zeros((), np.int64), np.array(2.0, np.float32)], {"dim": 0},
                   "scatter: expected an input of rank >= 1"))
    return out


# ---- scatter_nd --------------------------------------------------------------

def scatter_nd_ref(x, idx, upd, reduction):
    out = np.array(x, order="C")
    k = idx.shape[-1]
    for pos in np.ndindex(*idx.shape[:-1]):
        at = tuple(int(v) + x.shape[j] if v < 0 else int(v) for j, v in enumerate(idx[pos]))
        for sub in np.ndindex(*x.shape[k:]):
            combine(out, at + sub, upd[pos + sub], reduction)
    return out


def scatter_nd_case(name, x, idx, upd, reduction="none", perms=None):
    xv, iv, uv = (view(a, perms[i] if perms else None) for i, a in enumerate([x, idx, upd]))
    y = scatter_nd_ref(xv, iv, uv, reduction)
    attrs = {"reduction": reduction} if reduction != "none" else {}
    return case(name, "scatter_nd", inputs=[x, idx, upd], attrs=attrs, outputs=[y], perms=perms)


def scatter_nd_cases():
    out = []
    for dt in ALL:
        for r in REDUCTIONS:
            x = rand((4, 3, 2), dt)
            # Five slices [3, 2] into four rows: a duplicate at least.
            out.append(scatter_nd_case(f"scatter_nd_{tag(dt)}_{r}", x, indices((5, 1), 4), rand((5, 3, 2), dt), r))
    x = rand((4, 5, 6), np.float32)
    out.append(scatter_nd_case("scatter_nd_elements", x,
                               np.stack([indices((3, 2), 4), indices((3, 2), 5), indices((3, 2), 6)], -1),
                               rand((3, 2), np.float32), "add"))
    out.append(scatter_nd_case("scatter_nd_k2_i32", x,
                               np.stack([indices((7,), 4), indices((7,), 5)], -1).astype(np.int32),
                               rand((7, 6), np.float32), "mul"))
    out.append(scatter_nd_case("scatter_nd_empty_indices", x, np.zeros((0, 1), np.int64),
                               np.zeros((0, 5, 6), np.float32)))
    out.append(scatter_nd_case("scatter_nd_perm_all", x, indices((2, 3, 1), 5), rand((4, 2, 6, 3), np.float32), "min",
                               perms=[[1, 0, 2], [1, 0, 2], [3, 1, 0, 2]]))
    out.append(scatter_nd_case("scatter_nd_perm_updates", x, indices((2, 3, 1), 5), rand((4, 2, 6, 3), np.float32),
                               perms=[[1, 0, 2], [1, 0, 2], [3, 1, 0, 2]]))
    out.append(scatter_nd_case("scatter_nd_empty_input", np.zeros((2, 0), np.int8), indices((3, 1), 2),
                               np.zeros((3, 0), np.int8)))
    # ONNX's documentation, examples 1 and 2 of ScatterND.
    out.append(case("scatter_nd_onnx_example_1", "scatter_nd",
                    inputs=[np.arange(1, 9, dtype=np.float32), np.array([[4], [3], [1], [7]], np.int64),
                            np.array([9, 10, 11, 12], np.float32)],
                    outputs=[np.array([1, 11, 3, 10, 9, 6, 7, 12], np.float32)]))
    data = np.array([[[1, 2, 3, 4], [5, 6, 7, 8], [8, 7, 6, 5], [4, 3, 2, 1]]] * 2
                    + [[[8, 7, 6, 5], [4, 3, 2, 1], [1, 2, 3, 4], [5, 6, 7, 8]]] * 2, np.float32)
    upd = np.array([[[5, 5, 5, 5], [6, 6, 6, 6], [7, 7, 7, 7], [8, 8, 8, 8]],
                    [[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3], [4, 4, 4, 4]]], np.float32)
    expected = np.array([upd[0], data[1], upd[1], data[3]], np.float32)
    out.append(case("scatter_nd_onnx_example_2", "scatter_nd",
                    inputs=[data, np.array([[0], [2]], np.int64), upd], outputs=[expected]))
    # By hand: [0, 1] twice with mul, and [-1, -1] is [1, 2].
    out.append(case("scatter_nd_duplicates_mul", "scatter_nd",
                    inputs=[np.array([[1, 2, 3], [4, 5, 6]], np.int64),
                            np.array([[0, 1], [0, 1], [-1, -1]], np.int64), np.array([3, 4, 10], np.int64)],
                    attrs={"reduction": "mul"}, outputs=[np.array([[1, 24, 3], [4, 5, 60]], np.int64)]))
    out.append(err("scatter_nd_out_of_range", "scatter_nd",
                   [x, np.array([[0, 5]], np.int64), np.zeros((1, 6), np.float32)], {},
                   "scatter_nd: index 5 is out of range for size 5"))
    out.append(err("scatter_nd_negative_out_of_range", "scatter_nd",
                   [x, np.array([[-5]], np.int32), np.zeros((1, 5, 6), np.float32)], {},
                   "scatter_nd: index -5 is out of range for size 4"))
    out.append(err("scatter_nd_too_many_coordinates", "scatter_nd",
                   [x, np.zeros((1, 4), np.int64), np.zeros((1,), np.float32)], {},
                   "scatter_nd: expected indices of rank >= 1 whose last dim is 1 to 3"))
    out.append(err("scatter_nd_scalar_indices", "scatter_nd",
                   [x, np.array(0, np.int64), np.zeros((5, 6), np.float32)], {},
                   "scatter_nd: expected indices of rank >= 1"))
    out.append(err("scatter_nd_updates_shape", "scatter_nd",
                   [x, np.zeros((2, 1), np.int64), np.zeros((2, 5, 5), np.float32)], {},
                   "scatter_nd: expected updates of shape indices.shape[:-1] + input.shape[1:]"))
    out.append(err("scatter_nd_updates_dtype", "scatter_nd",
                   [x, np.zeros((2, 1), np.int64), np.zeros((2, 5, 6), np.float64)], {},
                   "scatter_nd: expected updates of dtype f32 like the input, got f64"))
    out.append(err("scatter_nd_bad_reduction", "scatter_nd",
                   [x, np.zeros((2, 1), np.int64), np.zeros((2, 5, 6), np.float32)], {"reduction": "sum"},
                   "scatter_nd"))
    return out


def large_cases():
    """Above the copy's 32k-element threshold, so that the driver's 3-thread
    run takes the parallel copy."""
    out = []
    x = rand((60, 700), np.float32)
    out.append(scatter_case("large_scatter", x, indices((60, 300), 700), rand((60, 300), np.float32), 1, "add",
                            perms=[None, None, None]))
    out.append(scatter_nd_case("large_scatter_nd", x, indices((20, 1), 60), rand((20, 700), np.float32), "max"))
    return out


def cases():
    return scatter_cases() + scatter_nd_cases() + large_cases()

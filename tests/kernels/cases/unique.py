"""Cases for unique (ONNX Unique).

Reference: np.unique (return_index, return_inverse, return_counts; with
axis, of the slices along it) for sorted results; for unsorted ones, the
same groups in the order they first occur, as ONNX's spec orders them.
NaNs are equal to each other and sort last (np.unique's equal_nan). The
last output is the kernel's workspace, left zero.
"""
import numpy as np

from common import case, dtype_tag as tag, random_array

rng = np.random.default_rng(11)


def unique_ref(x, axis, sorted_):
    if axis is None:
        flat = x.reshape(-1)
        y, idx, inv, cnt = np.unique(flat, return_index=True, return_inverse=True, return_counts=True)
    else:
        y, idx, inv, cnt = np.unique(x, axis=axis, return_index=True, return_inverse=True, return_counts=True)
    inv = inv.reshape(-1)
    if not sorted_:
        order = np.argsort(idx, kind="stable")
        pos = np.empty_like(order)
        pos[order] = np.arange(len(order))
        y = np.take(y, order, axis=0 if axis is None else axis)
        idx, cnt, inv = idx[order], cnt[order], pos[inv]
    return [np.ascontiguousarray(y), idx.astype(np.int64), inv.astype(np.int64), cnt.astype(np.int64)]


def unique_case(name, x, axis=None, sorted_=True, perm=None):
    xv = x if perm is None else x.transpose(perm)
    n = xv.size if axis is None else xv.shape[axis]
    attrs = {"sorted": sorted_}
    if axis is not None:
        attrs["dim"] = [axis]
    return case(name, "unique", inputs=[x], attrs=attrs,
                outputs=unique_ref(xv, axis, sorted_) + [np.zeros(3 * n, np.int64)],
                perms=None if perm is None else [perm])


def cases():
    out = []
    for dt in [np.float32, np.float16, np.float64, np.int64, np.int32, np.int16, np.int8, np.uint8, np.uint16,
               np.uint32, np.uint64]:
        x = (random_array(rng, (4, 6), dt) if dt in (np.float32, np.float16, np.float64)
             else rng.integers(0, 5, size=(4, 6)).astype(dt))
        if dt in (np.float32, np.float16, np.float64):
            x = np.round(x * 2).astype(dt)  # repeats
        out.append(unique_case(f"unique_{tag(dt)}", x))
        out.append(unique_case(f"unique_{tag(dt)}_unsorted", x, sorted_=False))
    out.append(unique_case("unique_bool", rng.random((3, 4)) < 0.5))
    x = rng.integers(0, 2, size=(5, 3)).astype(np.float32)
    out.append(unique_case("unique_axis0", x, axis=0))
    out.append(unique_case("unique_axis0_unsorted", x, axis=0, sorted_=False))
    out.append(unique_case("unique_axis1", x, axis=1))
    x3 = rng.integers(0, 2, size=(2, 6, 2)).astype(np.int32)
    out.append(unique_case("unique_axis1_3d", x3, axis=1))
    out.append(unique_case("unique_axis1_3d_unsorted", x3, axis=1, sorted_=False))
    out.append(unique_case("unique_strided", x3, axis=0, perm=[1, 0, 2]))
    out.append(unique_case("unique_strided_flat", x3, perm=[2, 1, 0], sorted_=False))
    out.append(unique_case("unique_signed_zero", np.array([0.0, -0.0, 1.0, 0.0], np.float32)))
    out.append(unique_case("unique_empty", np.zeros((0,), np.float32)))
    out.append(unique_case("unique_scalar", np.array(3, np.int64)))
    out.append(case("unique_bad_dim", "unique", inputs=[x], attrs={"dim": [2]}, outputs=[],
                    error="unique: dim 2 is out of range for rank 2", out_specs=[("f32", [5, 3])] + [("i64", [5])] * 3 +
                    [("i64", [15])]))
    return out

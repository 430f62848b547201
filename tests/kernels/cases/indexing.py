"""Cases for take, gather, index, nonzero, pick and topk.

References: np.take (ONNX Gather), fancy indexing over np.indices grids
(torch.gather, whose index may be smaller than the input in the other dims),
numpy advanced indexing x[i0, i1] and x[mask] (the same as PyTorch's when
the indices cover the leading dims), np.argwhere (torch.nonzero's layout), a list's item for pick,
and a per-slice Python sort for topk with ONNX's tie rule (lower index
first) and NaN ranking above every number.
Index tensors come as i64 and i32, contiguous and permuted; out-of-range
indices, positive and negative, must fail.
"""
import math

import numpy as np

from common import case, dtype_tag as tag, given, random_array, view

rng = np.random.default_rng(99)

ALL = [np.float32, np.float16, np.int64, np.int32, np.int8, np.uint8, np.bool_,
       np.float64, np.int16, np.uint16, np.uint32, np.uint64]
NUMERIC = [np.float32, np.float16, np.int64, np.int32, np.int8, np.uint8,
           np.float64, np.int16, np.uint16, np.uint32, np.uint64]


def rand(shape, dtype):
    return random_array(rng, shape, dtype)


def indices(shape, size, dtype=np.int64, negative=True):
    lo = -size if negative else 0
    return rng.integers(lo, size, size=shape).astype(dtype)


def err(name, op, inputs, attrs, error, out_specs=None):
    return case(name, op, inputs=inputs, attrs=attrs, outputs=[], error=error,
                out_specs=out_specs or [(inputs[0].dtype if inputs else np.float32, [1])])


# ---- take --------------------------------------------------------------------

def take_case(name, x, idx, dim, perms=None):
    xv = view(x, perms[0] if perms else None)
    iv = view(idx, perms[1] if perms else None)
    y = np.take(xv, iv.astype(np.int64), axis=dim)
    return case(name, "take", inputs=[x, idx], attrs={"dim": dim}, outputs=[np.array(y, order="C")], perms=perms)


def take_cases():
    out = []
    for dt in ALL:
        x = rand((5, 4), dt)
        out.append(take_case(f"take_{tag(dt)}_rows", x, indices((3,), 5), 0))
        out.append(take_case(f"take_{tag(dt)}_last_dim", x, indices((2, 3), 4), -1))
    x = rand((4, 5, 6), np.float32)
    out.append(take_case("take_middle_i32", x, indices((2, 2), 5, np.int32), 1))
    out.append(take_case("take_scalar_index", x, np.array(-2, dtype=np.int64), 1))
    out.append(take_case("take_repeated", x, np.array([3, 3, 0, -1, 3], dtype=np.int64), 0))
    out.append(take_case("take_perm_x", x, indices((3,), 6), 0, perms=[[2, 0, 1], None]))
    out.append(take_case("take_perm_both", x, indices((3, 2), 4), 2, perms=[[1, 2, 0], [1, 0]]))
    out.append(take_case("take_empty_indices", x, np.zeros((0,), dtype=np.int64), 1))
    out.append(take_case("take_empty_input", np.zeros((3, 0), dtype=np.int8), indices((2,), 3), 0))
    emb = rand((50, 64), np.float32)
    out.append(take_case("take_embedding", emb, indices((4, 300), 50, negative=False), 0))
    out.append(err("take_out_of_range", "take", [x, np.array([0, 5], dtype=np.int64)], {"dim": 1},
                   "take: index 5 is out of range for size 5"))
    out.append(err("take_negative_out_of_range", "take", [x, np.array([-7], dtype=np.int32)], {"dim": -1},
                   "take: index -7 is out of range for size 6"))
    out.append(err("take_empty_dim", "take", [np.zeros((0, 2), np.float32), np.array([0], np.int64)], {"dim": 0},
                   "take: index 0 is out of range for size 0"))
    out.append(err("take_float_indices", "take", [x, np.array([0.0], dtype=np.float32)], {"dim": 0},
                   "take: expected indices of dtype i64 or i32, got f32"))
    out.append(err("take_dim_out_of_range", "take", [x, np.array([0], dtype=np.int64)], {"dim": 3},
                   "take: dim 3 is out of range for rank 3"))
    out.append(err("take_scalar_input", "take", [np.array(1.0, np.float32), np.array([0], np.int64)], {"dim": 0},
                   "take: expected an input of rank >= 1"))
    return out


# ---- gather ------------------------------------------------------------------

def gather_ref(x, idx, dim):
    d = dim % x.ndim
    idx = np.where(idx < 0, idx + x.shape[d], idx).astype(np.int64)
    grid = list(np.indices(idx.shape, sparse=True))
    grid[d] = idx
    return x[tuple(grid)]


def gather_case(name, x, idx, dim, perms=None):
    y = gather_ref(view(x, perms[0] if perms else None), view(idx, perms[1] if perms else None), dim)
    return case(name, "gather", inputs=[x, idx], attrs={"dim": dim}, outputs=[np.array(y, order="C")], perms=perms)


def gather_cases():
    out = []
    for dt in ALL:
        x = rand((3, 4), dt)
        out.append(gather_case(f"gather_{tag(dt)}_dim1", x, indices((3, 6), 4), 1))
        out.append(gather_case(f"gather_{tag(dt)}_dim0", x, indices((2, 4), 3), 0))
    x = rand((4, 5, 6), np.float32)
    out.append(gather_case("gather_smaller_index", x, indices((2, 3, 4), 5, np.int32), 1))
    out.append(gather_case("gather_last_dim", x, indices((4, 5, 2), 6), -1))
    out.append(gather_case("gather_perm_x", x, indices((6, 4, 3), 5), 2, perms=[[2, 0, 1], None]))
    out.append(gather_case("gather_perm_index", x, indices((3, 2, 4), 6), 2, perms=[None, [1, 2, 0]]))
    out.append(gather_case("gather_empty_index", x, np.zeros((4, 0, 6), dtype=np.int64), 1))
    out.append(gather_case("gather_1d", rand((7,), np.int64), indices((10,), 7), 0))
    out.append(err("gather_out_of_range", "gather", [x, np.full((4, 5, 6), 6, dtype=np.int64)], {"dim": 2},
                   "gather: index 6 is out of range for size 6"))
    out.append(err("gather_negative_out_of_range", "gather", [x, np.full((1, 1, 1), -5, dtype=np.int32)], {"dim": 0},
                   "gather: index -5 is out of range for size 4"))
    out.append(err("gather_rank_mismatch", "gather", [x, np.zeros((4, 5), dtype=np.int64)], {"dim": 0},
                   "gather: expected an index of rank 3 no larger than [4, 5, 6] outside dim 0, got [4, 5]"))
    out.append(err("gather_index_too_large", "gather", [x, np.zeros((4, 6, 6), dtype=np.int64)], {"dim": 0},
                   "gather: expected an index of rank 3"))
    out.append(err("gather_bool_index", "gather", [x, np.zeros((4, 5, 6), dtype=np.bool_)], {"dim": 0},
                   "gather: expected index of dtype i64 or i32, got bool"))
    return out


# ---- index -------------------------------------------------------------------

def index_case(name, x, idxs, perms=None):
    views = [view(a, perms[i] if perms else None) for i, a in enumerate([x] + idxs)]
    xv, ivs = views[0], views[1:]
    key = tuple(i if i.dtype == np.bool_ else i.astype(np.int64) for i in ivs)
    y = xv[key if len(key) > 1 or key[0].dtype != np.bool_ else key[0]]
    return case(name, "index", inputs=[x] + idxs, outputs=[np.array(y, order="C")], perms=perms)


def mask(shape, p=0.5):
    return rng.random(shape) < p


def index_cases():
    out = []
    for dt in ALL:
        x = rand((4, 5, 3), dt)
        out.append(index_case(f"index_{tag(dt)}_one", x, [indices((2, 3), 4)]))
        out.append(index_case(f"index_{tag(dt)}_mask", x, [mask((4, 5))]))
    x = rand((4, 5, 6), np.float32)
    out.append(index_case("index_two_broadcast", x, [indices((3, 1), 4), indices((1, 2), 5, np.int32)]))
    out.append(index_case("index_three_full", x, [indices((2,), 4), indices((2,), 5), indices((2,), 6)]))
    out.append(index_case("index_scalar_indices", x, [np.array(1, np.int64), np.array(-1, np.int64)]))
    out.append(index_case("index_perm", x, [indices((2, 3), 6), indices((2,), 4)], perms=[[2, 0, 1], [1, 0], None]))
    out.append(index_case("index_empty_indices", x, [np.zeros((0, 2), dtype=np.int64)]))
    out.append(index_case("index_mask_1d", x, [mask((4,))]))
    out.append(index_case("index_mask_3d", x, [mask((4, 5, 6))]))
    out.append(index_case("index_mask_all_false", x, [np.zeros((4, 5), dtype=np.bool_)]))
    out.append(index_case("index_mask_all_true", x, [np.ones((4,), dtype=np.bool_)]))
    out.append(index_case("index_mask_perm", x, [mask((4, 5))], perms=[[1, 0, 2], [1, 0]]))
    out.append(index_case("index_mask_perm_x", x, [mask((6, 4))], perms=[[2, 0, 1], None]))
    out.append(index_case("index_mask_scalar_true", x, [np.array(True)]))
    out.append(index_case("index_mask_scalar_false", x, [np.array(False)]))
    out.append(index_case("index_mask_empty", np.zeros((0, 3), np.int32), [np.zeros((0,), np.bool_)]))
    big = rand((300, 200), np.float32)
    out.append(index_case("index_mask_large", big, [mask((300, 200), 0.3)]))
    out.append(index_case("index_mask_large_rows", big, [mask((300,), 0.7)]))
    out.append(err("index_out_of_range", "index", [x, np.array([0, 4], dtype=np.int64)], {},
                   "index: index 4 is out of range for size 4"))
    out.append(err("index_negative_out_of_range", "index", [x, np.array([0], np.int64), np.array([-6], np.int32)], {},
                   "index: index -6 is out of range for size 5"))
    out.append(err("index_mixed_mask", "index", [x, mask((4,)), np.array([0], np.int64)], {},
                   "index: a bool mask combined with other indices is not supported"))
    out.append(err("index_mask_shape", "index", [x, mask((4, 6))], {},
                   "index: expected a bool mask matching the leading dims of [4, 5, 6], got [4, 6]"))
    out.append(err("index_no_broadcast", "index", [x, indices((2,), 4), indices((3,), 5)], {},
                   "index: index shapes [2], [3] do not broadcast"))
    out.append(err("index_too_many", "index", [x] + [np.array([0], np.int64)] * 4, {},
                   "index: expected at most 3 indices for an input of shape [4, 5, 6], got 4"))
    out.append(err("index_float_index", "index", [x, np.array([0.0], np.float32)], {},
                   "index: expected index tensors of dtype i64 or i32, got f32"))
    out.append(err("index_no_indices", "index", [x], {}, "index: expected an input and at least 1 index"))
    return out


# ---- nonzero -----------------------------------------------------------------

def nonzero_case(name, x, perm=None):
    y = np.argwhere(view(x, perm)).astype(np.int64)
    return case(name, "nonzero", inputs=[x], outputs=[y], perms=None if perm is None else [perm])


def nonzero_cases():
    out = []
    for dt in ALL:
        x = rand((3, 4, 5), dt)
        if dt != np.bool_:
            x[rng.random(x.shape) < 0.5] = 0
        out.append(nonzero_case(f"nonzero_{tag(dt)}", x))
        out.append(nonzero_case(f"nonzero_{tag(dt)}_perm", x, perm=[2, 0, 1]))
    f = np.array([0.0, -0.0, np.nan, 1.0, -np.inf, 0.0], dtype=np.float32)
    out.append(nonzero_case("nonzero_f32_signed_zero_nan", f))
    out.append(nonzero_case("nonzero_f16_signed_zero_nan", f.astype(np.float16)))
    out.append(nonzero_case("nonzero_all_zero", np.zeros((3, 2), np.int32)))
    out.append(nonzero_case("nonzero_empty", np.zeros((0, 4), np.float32)))
    out.append(nonzero_case("nonzero_scalar_true", np.array(3, np.int64)))
    out.append(nonzero_case("nonzero_scalar_false", np.array(0.0, np.float32)))
    out.append(nonzero_case("nonzero_1d", np.array([0, 1, 0, 2, 3], np.int8)))
    big = mask((200, 300), 0.2)
    out.append(nonzero_case("nonzero_large", big))
    out.append(nonzero_case("nonzero_large_perm", big, perm=[1, 0]))
    out.append(err("nonzero_wrong_out_dtype", "nonzero", [np.ones((2,), np.float32)], {},
                   "nonzero: expected output dtype i64, got i32", out_specs=[("i32", [2, 1])]))
    return out


# ---- pick --------------------------------------------------------------------

def pick_case(name, index, tensors, perms=None):
    """The tensor of `tensors` at the scalar `index` (negative wraps once),
    copied whole; the candidates may differ in shape."""
    views = [view(t, perms[i + 1] if perms else None) for i, t in enumerate(tensors)]
    y = views[int(index)]
    return case(name, "pick", inputs=[index] + tensors, outputs=[np.array(y, order="C")], perms=perms)


def pick_cases():
    out = []
    for dt in ALL:
        ts = [rand((2, 3, 4), dt), rand((1, 3, 4), dt), rand((3, 3, 4), dt)]
        out.append(pick_case(f"pick_{tag(dt)}_first", np.array(0, np.int64), ts))
        out.append(pick_case(f"pick_{tag(dt)}_last", np.array(2, np.int64), ts))
    ts = [rand((2, 5), np.float32), rand((4, 1), np.float32), rand((0, 3), np.float32)]
    out.append(pick_case("pick_negative", np.array(-2, np.int64), ts))
    out.append(pick_case("pick_negative_first", np.array(-3, np.int32), ts))
    out.append(pick_case("pick_i32_index", np.array(1, np.int32), ts))
    out.append(pick_case("pick_empty_tensor", np.array(2, np.int64), ts))
    out.append(pick_case("pick_one", np.array(0, np.int64), [rand((3,), np.int8)]))
    out.append(pick_case("pick_scalars", np.array(1, np.int64), [np.array(1.5, np.float64), np.array(-2.0, np.float64)]))
    out.append(pick_case("pick_perm", np.array(1, np.int64), [rand((2, 3), np.float16), rand((4, 5), np.float16)],
                         perms=[None, None, [1, 0]]))
    out.append(pick_case("pick_same_shape", np.array(-1, np.int64), [rand((2, 2), np.uint8), rand((2, 2), np.uint8)]))
    ts = [rand((2, 3), np.float32), rand((1, 3), np.float32)]
    out.append(err("pick_out_of_range", "pick", [np.array(2, np.int64)] + ts, {},
                   "pick: index 2 is out of range for size 2", out_specs=[(np.float32, [2, 3])]))
    out.append(err("pick_negative_out_of_range", "pick", [np.array(-3, np.int32)] + ts, {},
                   "pick: index -3 is out of range for size 2", out_specs=[(np.float32, [2, 3])]))
    out.append(err("pick_index_not_scalar", "pick", [np.array([0], np.int64)] + ts, {},
                   "pick: expected a scalar index, got shape [1]", out_specs=[(np.float32, [2, 3])]))
    out.append(err("pick_float_index", "pick", [np.array(0.0, np.float32)] + ts, {},
                   "pick: expected an index of dtype i64 or i32, got f32", out_specs=[(np.float32, [2, 3])]))
    out.append(err("pick_ranks_differ", "pick", [np.array(0, np.int64), ts[0], rand((3,), np.float32)], {},
                   "pick: expected tensors of one dtype and rank, got f32 [2, 3] and f32 [3]",
                   out_specs=[(np.float32, [2, 3])]))
    out.append(err("pick_dtypes_differ", "pick", [np.array(0, np.int64), ts[0], rand((1, 3), np.int32)], {},
                   "pick: expected tensors of one dtype and rank, got f32 [2, 3] and i32 [1, 3]",
                   out_specs=[(np.float32, [2, 3])]))
    out.append(err("pick_no_tensors", "pick", [np.array(0, np.int64)], {},
                   "pick: expected an index and at least 1 tensor, got 1 tensor(s)", out_specs=[(np.float32, [1])]))
    out.append(err("pick_wrong_out_dtype", "pick", [np.array(0, np.int64)] + ts, {},
                   "pick: expected output dtype f32, got i32", out_specs=[("i32", [2, 3])]))
    out.append(err("pick_capacity", "pick", [np.array(0, np.int64)] + ts, {},
                   "pick: output of shape [2, 3] needs", out_specs=[(np.float32, [2, 3], 8)]))
    return out


# ---- topk --------------------------------------------------------------------

def topk_ref(x, k, dim, largest):
    d = dim % max(x.ndim, 1)
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64) if k else None
    moved = np.moveaxis(x, d, -1)
    flat = moved.reshape((int(np.prod(moved.shape[:-1])), moved.shape[-1]))
    vals = np.empty((flat.shape[0], k), x.dtype)
    idxs = np.empty((flat.shape[0], k), np.int64)

    def key(v, i):
        v = float(v)
        if math.isnan(v):
            return (0 if largest else 1, 0.0, i)
        return (1 if largest else 0, -v if largest else v, i)

    for r, row in enumerate(flat):
        order = sorted(range(len(row)), key=lambda i: key(row[i], i))[:k]
        vals[r] = row[order]
        idxs[r] = order
    shape = moved.shape[:-1] + (k,)
    return (np.array(np.moveaxis(vals.reshape(shape), -1, d), order="C"),
            np.array(np.moveaxis(idxs.reshape(shape), -1, d), order="C"))


def topk_case(name, x, k, dim=None, largest=None, sorted_=None, perm=None):
    attrs = {"k": k, **given(dim=dim, largest=largest, sorted=sorted_)}
    v, i = topk_ref(view(x, perm), k, -1 if dim is None else dim, largest is not False)
    return case(name, "topk", inputs=[x], attrs=attrs, outputs=[v, i], perms=None if perm is None else [perm])


def topk_cases():
    out = []
    for dt in NUMERIC:
        x = rand((3, 7), dt)
        out.append(topk_case(f"topk_{tag(dt)}", x, 3))
        out.append(topk_case(f"topk_{tag(dt)}_smallest", x, 4, largest=False))
        out.append(topk_case(f"topk_{tag(dt)}_dim0_perm", x, 2, dim=0, perm=[1, 0]))
    ties = np.array([[1, 3, 3, 2, 3, 1, 1]], dtype=np.int32)
    out.append(topk_case("topk_ties_largest", ties, 4))
    out.append(topk_case("topk_ties_smallest", ties, 5, largest=False))
    fties = np.array([2.0, np.nan, 2.0, -1.0, np.nan, 5.0, -0.0, 0.0], dtype=np.float32)
    out.append(topk_case("topk_nan_largest", fties, 4))
    out.append(topk_case("topk_nan_smallest", fties, 8, largest=False))
    out.append(topk_case("topk_f16_nan", fties.astype(np.float16), 3))
    x = rand((4, 5, 6), np.float32)
    out.append(topk_case("topk_middle_dim", x, 3, dim=1))
    out.append(topk_case("topk_unsorted_attr", x, 2, dim=-1, sorted_=False))
    out.append(topk_case("topk_int_bool_attrs", x, 2, dim=0, largest=1, sorted_=1))
    out.append(topk_case("topk_k_equals_n", x, 6))
    out.append(topk_case("topk_k_zero", x, 0, dim=1))
    out.append(topk_case("topk_k1", x, 1, dim=2, perm=[2, 1, 0]))
    out.append(topk_case("topk_empty_batch", np.zeros((0, 5), np.float32), 2))
    out.append(topk_case("topk_empty_dim", np.zeros((3, 0), np.int64), 0))
    out.append(topk_case("topk_scalar", np.array(4.5, np.float32), 1))
    big = rand((8, 1000), np.float32)
    out.append(topk_case("topk_large_n", big, 10))
    out.append(topk_case("topk_large_k", big, 700, largest=False))
    dup = rng.integers(0, 5, size=(6, 400)).astype(np.int8)
    out.append(topk_case("topk_many_ties", dup, 50, dim=1))
    out.append(err("topk_k_too_large", "topk", [x], {"k": 7}, "topk: k 7 is out of range for dim 2 of size 6",
                   out_specs=[("f32", [4, 5, 7]), ("i64", [4, 5, 7])]))
    out.append(err("topk_k_negative", "topk", [x], {"k": -1}, "topk: k -1 is out of range",
                   out_specs=[("f32", [1]), ("i64", [1])]))
    out.append(err("topk_bool", "topk", [np.ones((3,), np.bool_)], {"k": 1}, "topk: expected a numeric input, got bool",
                   out_specs=[("bool", [1]), ("i64", [1])]))
    out.append(err("topk_bad_index_dtype", "topk", [x], {"k": 1}, "topk: expected indices output dtype i64, got i32",
                   out_specs=[("f32", [4, 5, 1]), ("i32", [4, 5, 1])]))
    out.append(err("topk_missing_k", "topk", [x], {}, "topk: missing required attribute 'k'",
                   out_specs=[("f32", [1]), ("i64", [1])]))
    return out


def large_cases():
    """Above the kernels' 32k-element threshold, so that the driver's 3-thread
    run takes the parallel paths."""
    out = []
    x = rand((60, 700), np.float32)
    out.append(take_case("large_take_last_dim", x, indices((700,), 700), 1, perms=None))
    out.append(gather_case("large_gather_perm", x, indices((700, 60), 60), 1, perms=[[1, 0], None]))
    out.append(index_case("large_index_two", x, [indices((300, 1), 60), indices((1, 200), 700, np.int32)]))
    out.append(index_case("large_index_rows", x, [indices((100,), 60)]))
    out.append(topk_case("large_topk", rand((40, 1000), np.float16), 5, largest=False))
    out.append(topk_case("large_topk_dim0", rand((1000, 40), np.int32), 3, dim=0))
    return out


def cases():
    return take_cases() + gather_cases() + index_cases() + nonzero_cases() + pick_cases() + topk_cases() + large_cases()

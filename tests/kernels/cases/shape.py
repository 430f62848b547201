"""Cases for reshape, permute, expand, squeeze, unsqueeze, flatten, concat,
split, slice, select, pad, tile, triu and tril.

These kernels only move data, so every op runs over every dtype, over
strided (permuted) inputs and over empty tensors. References are numpy's
own operations (reshape, transpose, broadcast_to, python slicing, np.pad,
np.tile, np.triu); ONNX's negative pads are np.pad followed by a crop.
Shapes reaching the kernels' special paths: transposes of at least 32x32
(the tiled copy), broadcasts (stride 0) and reversed slices (negative strides).
"""
import numpy as np

from common import case, dtype_tag as tag, given, random_array, view

rng = np.random.default_rng(2024)

ALL = [np.float32, np.float16, np.int64, np.int32, np.int8, np.uint8, np.bool_,
       np.float64, np.int16, np.uint16, np.uint32, np.uint64]
INT64_MAX = 2**63 - 1
INT64_MIN = -2**63


def rand(shape, dtype):
    return random_array(rng, shape, dtype)


def one(name, op, x, attrs, expected, perm=None):
    return case(name, op, inputs=[x], attrs=attrs, outputs=[np.array(expected, order="C")],
                perms=None if perm is None else [perm])


def err(name, op, inputs, attrs, error, out_specs=None):
    if not isinstance(inputs, list):
        inputs = [inputs]
    dt = inputs[0].dtype if inputs else np.float32
    return case(name, op, inputs=inputs, attrs=attrs, outputs=[], error=error,
                out_specs=out_specs or [(dt, [1])])


# ---- reshape, squeeze, unsqueeze, flatten ------------------------------------

def reshape_cases():
    out = []
    for dt in ALL:
        x = rand((2, 3, 4), dt)
        out.append(one(f"reshape_{tag(dt)}", "reshape", x, {"shape": [4, -1]}, x.reshape(4, -1)))
        out.append(one(f"reshape_{tag(dt)}_perm", "reshape", x, {"shape": [-1, 6]},
                       view(x, [2, 0, 1]).reshape(-1, 6), perm=[2, 0, 1]))
    x = rand((3, 5), np.float32)
    out.append(one("reshape_to_rank4", "reshape", x, {"shape": [1, 3, 1, 5]}, x.reshape(1, 3, 1, 5)))
    out.append(one("reshape_infer_first", "reshape", x, {"shape": [-1, 3]}, x.reshape(-1, 3)))
    s = rand((1, 1), np.int64)
    out.append(one("reshape_to_scalar", "reshape", s, {"shape": []}, s.reshape(())))
    out.append(one("reshape_from_scalar", "reshape", np.array(7, dtype=np.int8), {"shape": [1, 1, 1]},
                   np.array(7, dtype=np.int8).reshape(1, 1, 1)))
    e = np.zeros((0, 3), dtype=np.float32)
    out.append(one("reshape_empty", "reshape", e, {"shape": [3, -1]}, e.reshape(3, -1)))
    out.append(one("reshape_empty_explicit", "reshape", e, {"shape": [3, 0, 5]}, e.reshape(3, 0, 5)))
    out.append(err("reshape_mismatch", "reshape", x, {"shape": [4, 4]},
                   "reshape: cannot reshape [3, 5] (15 elements) into [4, 4]"))
    out.append(err("reshape_not_divisible", "reshape", x, {"shape": [4, -1]}, "reshape: cannot reshape [3, 5]"))
    out.append(err("reshape_two_inferred", "reshape", x, {"shape": [-1, -1]}, "reshape: expected at most one -1"))
    out.append(err("reshape_negative_size", "reshape", x, {"shape": [-3, 5]}, "reshape: invalid size -3"))
    out.append(err("reshape_infer_with_zero", "reshape", e, {"shape": [0, -1]}, "reshape: cannot reshape [0, 3]"))
    out.append(err("reshape_missing_shape", "reshape", x, {}, "reshape: missing required attribute 'shape'"))
    out.append(err("reshape_wrong_out_dtype", "reshape", x, {"shape": [15]}, "reshape: expected output dtype f32, got i64",
                   out_specs=[("i64", [15])]))

    for dt in ALL:
        x = rand((1, 3, 1, 2), dt)
        out.append(one(f"squeeze_all_{tag(dt)}", "squeeze", x, {}, np.squeeze(x)))
    x = rand((1, 3, 1, 2), np.float32)
    out.append(one("squeeze_dims", "squeeze", x, {"dims": [0, -2]}, np.squeeze(x, axis=(0, 2))))
    out.append(one("squeeze_one_dim", "squeeze", x, {"dims": [2]}, np.squeeze(x, axis=2)))
    out.append(one("squeeze_empty_dims_list_is_noop", "squeeze", x, {"dims": []}, x))
    out.append(one("squeeze_perm", "squeeze", x, {}, np.squeeze(view(x, [3, 2, 1, 0])), perm=[3, 2, 1, 0]))
    out.append(one("squeeze_scalar", "squeeze", np.array(2.5, dtype=np.float32), {}, np.array(2.5, dtype=np.float32)))
    out.append(one("squeeze_scalar_dim0", "squeeze", np.array(2.5, dtype=np.float32), {"dims": [0]},
                   np.array(2.5, dtype=np.float32)))
    e = np.zeros((1, 0, 1), dtype=np.int32)
    out.append(one("squeeze_empty", "squeeze", e, {}, np.squeeze(e)))
    out.append(err("squeeze_not_size1", "squeeze", x, {"dims": [1]}, "squeeze: dim 1 of shape [1, 3, 1, 2] has size 3, expected 1"))
    out.append(err("squeeze_out_of_range", "squeeze", x, {"dims": [4]}, "squeeze: dim 4 is out of range for rank 4"))
    out.append(err("squeeze_duplicate", "squeeze", x, {"dims": [0, -4]}, "squeeze: dim -4 appears twice"))

    for dt in ALL:
        x = rand((3, 2), dt)
        out.append(one(f"unsqueeze_{tag(dt)}", "unsqueeze", x, {"dims": [0, 3]}, x.reshape(1, 3, 2, 1)))
    x = rand((3, 4), np.float32)
    out.append(one("unsqueeze_negative", "unsqueeze", x, {"dims": [-1]}, x[:, :, None]))
    out.append(one("unsqueeze_middle_two", "unsqueeze", x, {"dims": [1, 2]}, x[:, None, None, :]))
    out.append(one("unsqueeze_unordered", "unsqueeze", x, {"dims": [3, 0]}, x[None, :, :, None]))
    out.append(one("unsqueeze_perm", "unsqueeze", x, {"dims": [1]}, x.T[:, None, :], perm=[1, 0]))
    out.append(one("unsqueeze_scalar", "unsqueeze", np.array(3, dtype=np.int64), {"dims": [0]},
                   np.array([3], dtype=np.int64)))
    e = np.zeros((0, 2), dtype=np.uint8)
    out.append(one("unsqueeze_empty", "unsqueeze", e, {"dims": [1]}, e[:, None, :]))
    out.append(err("unsqueeze_out_of_range", "unsqueeze", x, {"dims": [3]}, "unsqueeze: dim 3 is out of range for rank 3"))
    out.append(err("unsqueeze_duplicate", "unsqueeze", x, {"dims": [0, 0]}, "unsqueeze: dim 0 appears twice"))
    out.append(err("unsqueeze_rank_too_big", "unsqueeze", rand((1,) * 7, np.float32), {"dims": [0, 1]},
                   "unsqueeze: expected a result of rank at most 8, got rank 9"))

    for dt in ALL:
        x = rand((2, 3, 4, 5), dt)
        out.append(one(f"flatten_{tag(dt)}", "flatten", x, {}, x.reshape(-1)))
    x = rand((2, 3, 4, 5), np.float32)
    out.append(one("flatten_middle", "flatten", x, {"start_dim": 1, "end_dim": 2}, x.reshape(2, 12, 5)))
    out.append(one("flatten_negative", "flatten", x, {"start_dim": -3, "end_dim": -1}, x.reshape(2, 60)))
    out.append(one("flatten_single_dim", "flatten", x, {"start_dim": 2, "end_dim": 2}, x))
    out.append(one("flatten_perm", "flatten", x, {"start_dim": 1}, view(x, [3, 1, 0, 2]).reshape(5, -1),
                   perm=[3, 1, 0, 2]))
    out.append(one("flatten_scalar", "flatten", np.array(1.5, dtype=np.float16), {}, np.array([1.5], dtype=np.float16)))
    e = np.zeros((2, 0, 3), dtype=np.float32)
    out.append(one("flatten_empty", "flatten", e, {"start_dim": 0, "end_dim": 1}, e.reshape(0, 3)))
    out.append(err("flatten_start_after_end", "flatten", x, {"start_dim": 2, "end_dim": 1},
                   "flatten: start_dim 2 comes after end_dim 1"))
    out.append(err("flatten_out_of_range", "flatten", x, {"start_dim": 4}, "flatten: dim 4 is out of range for rank 4"))
    return out


# ---- permute, expand ---------------------------------------------------------

def permute_cases():
    out = []
    for dt in ALL:
        x = rand((2, 3, 4), dt)
        out.append(one(f"permute_{tag(dt)}", "permute", x, {"dims": [2, 0, 1]}, x.transpose(2, 0, 1)))
        out.append(one(f"permute_{tag(dt)}_perm_input", "permute", x, {"dims": [1, 2, 0]},
                       view(x, [2, 1, 0]).transpose(1, 2, 0), perm=[2, 1, 0]))
        # Large enough for the tiled transpose (both dims >= 32).
        y = rand((3, 40, 70), dt)
        out.append(one(f"permute_{tag(dt)}_tiled", "permute", y, {"dims": [0, 2, 1]}, y.transpose(0, 2, 1)))
    x = rand((2, 3, 4), np.float32)
    out.append(one("permute_negative_dims", "permute", x, {"dims": [-1, -3, -2]}, x.transpose(2, 0, 1)))
    out.append(one("permute_identity", "permute", x, {"dims": [0, 1, 2]}, x))
    big = rand((33, 65), np.float32)
    out.append(one("permute_2d_tiled_ragged", "permute", big, {"dims": [1, 0]}, big.T))
    out.append(one("permute_tiled_back_to_contiguous", "permute", big, {"dims": [1, 0]}, big, perm=[1, 0]))
    y = rand((4, 35, 3, 40), np.int32)
    out.append(one("permute_tiled_outer_dims", "permute", y, {"dims": [2, 3, 0, 1]}, y.transpose(2, 3, 0, 1)))
    out.append(one("permute_scalar", "permute", np.array(5, dtype=np.int32), {"dims": []}, np.array(5, dtype=np.int32)))
    e = np.zeros((2, 0, 3), dtype=np.float32)
    out.append(one("permute_empty", "permute", e, {"dims": [2, 1, 0]}, e.transpose(2, 1, 0)))
    out.append(err("permute_wrong_count", "permute", x, {"dims": [1, 0]}, "permute: expected 3 dims for an input of shape [2, 3, 4], got [1, 0]"))
    out.append(err("permute_duplicate", "permute", x, {"dims": [0, 0, 1]}, "permute: dim 0 appears twice"))
    out.append(err("permute_out_of_range", "permute", x, {"dims": [0, 1, 3]}, "permute: dim 3 is out of range for rank 3"))

    for dt in ALL:
        x = rand((3, 1), dt)
        out.append(one(f"expand_{tag(dt)}", "expand", x, {"shape": [2, 3, 4]}, np.broadcast_to(x, (2, 3, 4))))
    x = rand((3, 1), np.float32)
    out.append(one("expand_keep_with_minus1", "expand", x, {"shape": [2, -1, 5]}, np.broadcast_to(x, (2, 3, 5))))
    out.append(one("expand_same_shape", "expand", x, {"shape": [3, 1]}, x))
    out.append(one("expand_perm", "expand", x, {"shape": [2, 3]}, np.broadcast_to(x.T, (2, 3)), perm=[1, 0]))
    # ONNX Expand is bidirectional: a target 1 keeps the input size, and the target may be shorter.
    y = rand((2, 3), np.int64)
    out.append(one("expand_bidirectional_one", "expand", y, {"shape": [1, 3]}, y))
    col = y[:, :1].copy()
    out.append(one("expand_bidirectional_shorter", "expand", col, {"shape": [4]}, np.broadcast_to(col, (2, 4))))
    s = np.array(1.5, dtype=np.float16)
    out.append(one("expand_scalar", "expand", s, {"shape": [2, 2]}, np.broadcast_to(s, (2, 2))))
    out.append(one("expand_to_empty", "expand", x, {"shape": [0, 3, 2]}, np.broadcast_to(x, (0, 3, 2))))
    out.append(one("expand_size1_to_zero", "expand", x, {"shape": [3, 0]}, np.broadcast_to(x, (3, 0))))
    out.append(err("expand_incompatible", "expand", x, {"shape": [4, 2]}, "expand: cannot expand [3, 1] to [4, 2]"))
    out.append(err("expand_minus1_new_dim", "expand", x, {"shape": [-1, 3, 1]}, "expand: -1 is not allowed for the new leading dim 0"))
    out.append(err("expand_negative", "expand", x, {"shape": [3, -2]}, "expand: invalid size -2"))
    return out


# ---- concat, split -----------------------------------------------------------

def concat_cases():
    out = []
    for dt in ALL:
        a, b, c = rand((2, 3), dt), rand((2, 1), dt), rand((2, 4), dt)
        out.append(case(f"concat_{tag(dt)}_last", "concat", inputs=[a, b, c], attrs={"dim": -1},
                        outputs=[np.concatenate([a, b, c], axis=1)]))
        d = rand((1, 3), dt)
        out.append(case(f"concat_{tag(dt)}_first", "concat", inputs=[a, d], attrs={"dim": 0},
                        outputs=[np.concatenate([a, d], axis=0)]))
    a, b = rand((2, 3, 4), np.float32), rand((4, 3, 2), np.float32)
    out.append(case("concat_perm", "concat", inputs=[a, b], attrs={"dim": 1},
                    outputs=[np.concatenate([a.transpose(0, 2, 1), b.transpose(2, 0, 1)], axis=1)],
                    perms=[[0, 2, 1], [2, 0, 1]]))
    out.append(case("concat_single", "concat", inputs=[a], attrs={"dim": 2}, outputs=[a]))
    out.append(case("concat_default_dim", "concat", inputs=[a, a], attrs={}, outputs=[np.concatenate([a, a])]))
    e = np.zeros((2, 0, 4), dtype=np.float32)
    out.append(case("concat_with_empty", "concat", inputs=[e, a, e], attrs={"dim": 1},
                    outputs=[np.concatenate([e, a, e], axis=1)]))
    out.append(case("concat_all_empty", "concat", inputs=[e, e], attrs={"dim": 0},
                    outputs=[np.concatenate([e, e], axis=0)]))
    # torch.cat skips 1-D empty inputs whatever the others' rank.
    legacy = np.zeros((0,), np.float32)
    out.append(case("concat_legacy_empty", "concat", inputs=[legacy, a, legacy], attrs={"dim": 1},
                    outputs=[a]))
    out.append(case("concat_only_legacy_empty", "concat", inputs=[legacy, legacy], attrs={"dim": 0},
                    outputs=[legacy]))
    big = [rand((64, 300), np.float32), rand((64, 200), np.float32)]
    out.append(case("concat_large", "concat", inputs=big, attrs={"dim": 1}, outputs=[np.concatenate(big, axis=1)]))
    out.append(err("concat_dtype_mismatch", "concat", [a, a.astype(np.int64)], {"dim": 0},
                   "concat: expected input 1 of dtype f32, got i64"))
    out.append(err("concat_shape_mismatch", "concat", [a, rand((2, 4, 4), np.float32)], {"dim": 0},
                   "concat: expected input 1 to match [2, 3, 4] except in dim 0, got [2, 4, 4]"))
    out.append(err("concat_rank_mismatch", "concat", [a, rand((2, 3), np.float32)], {"dim": 0},
                   "concat: expected input 1 to match"))
    out.append(err("concat_dim_out_of_range", "concat", [a, a], {"dim": 3}, "concat: dim 3 is out of range for rank 3"))
    out.append(err("concat_scalar", "concat", [np.array(1.0, dtype=np.float32)], {"dim": 0}, "concat: expected inputs of rank >= 1"))

    for dt in ALL:
        x = rand((2, 6, 3), dt)
        parts = np.split(x, [1, 3], axis=1)
        out.append(case(f"split_{tag(dt)}", "split", inputs=[x], attrs={"dim": 1, "sizes": [1, 2, 3]},
                        outputs=parts))
    x = rand((4, 6), np.float32)
    out.append(case("split_perm", "split", inputs=[x], attrs={"dim": -1, "sizes": [3, 1]},
                    outputs=np.split(x.T, [3], axis=1), perms=[[1, 0]]))
    out.append(case("split_zero_part", "split", inputs=[x], attrs={"dim": 0, "sizes": [0, 4, 0]},
                    outputs=[x[:0], x, x[4:]]))
    out.append(case("split_one", "split", inputs=[x], attrs={"dim": 0, "sizes": [4]}, outputs=[x]))
    e = np.zeros((0, 4), dtype=np.int32)
    out.append(case("split_empty_input", "split", inputs=[e], attrs={"dim": 1, "sizes": [1, 3]},
                    outputs=[e[:, :1], e[:, 1:]]))
    out.append(err("split_bad_sum", "split", x, {"dim": 1, "sizes": [2, 2]},
                   "split: sizes [2, 2] sum to 4, expected size 6 of dim 1", out_specs=[("f32", [4, 2])] * 2))
    out.append(err("split_count_mismatch", "split", x, {"dim": 1, "sizes": [2, 2, 2]},
                   "split: expected 2 sizes (one per output), got [2, 2, 2]", out_specs=[("f32", [4, 3])] * 2))
    out.append(err("split_negative", "split", x, {"dim": 1, "sizes": [-1, 7]}, "split: negative size",
                   out_specs=[("f32", [4, 3])] * 2))
    out.append(err("split_missing_sizes", "split", x, {"dim": 1}, "split: missing required attribute 'sizes'",
                   out_specs=[("f32", [4, 2])] * 3))
    return out


# ---- slice, select -----------------------------------------------------------

def slice_ref(x, dims, starts, ends, steps):
    idx = [slice(None)] * x.ndim
    for i, d in enumerate(dims):
        idx[d] = slice(starts[i], ends[i], steps[i] if steps else 1)
    return x[tuple(idx)]


def slice_case(name, x, dims, starts, ends, steps=None, perm=None, with_dims=True):
    attrs = {"starts": starts, "ends": ends}
    if with_dims:
        attrs["dims"] = dims
    if steps is not None:
        attrs["steps"] = steps
    xv = view(x, perm)
    nd = [d % xv.ndim for d in dims]
    return one(name, "slice", x, attrs, slice_ref(xv, nd, starts, ends, steps), perm=perm)


def slice_cases():
    out = []
    for dt in ALL:
        x = rand((4, 5, 6), dt)
        out.append(slice_case(f"slice_{tag(dt)}", x, [1, 2], [1, 0], [4, 6], [1, 2]))
        out.append(slice_case(f"slice_{tag(dt)}_reverse", x, [0], [-1], [INT64_MIN], [-1]))
    x = rand((4, 5, 6), np.float32)
    out.append(slice_case("slice_negative_bounds", x, [-1], [-4], [-1]))
    out.append(slice_case("slice_clamped_ends", x, [0, 2], [-100, 2], [100, INT64_MAX]))
    out.append(slice_case("slice_start_beyond_end", x, [1], [4], [2]))
    out.append(slice_case("slice_negative_step_2", x, [2], [INT64_MAX], [INT64_MIN], [-2]))
    out.append(slice_case("slice_negative_step_bounded", x, [2], [4], [1], [-2]))
    out.append(slice_case("slice_negative_step_end_minus1", x, [1], [3], [-1], [-1]))  # python: end -1 -> n-1: empty
    out.append(slice_case("slice_negative_step_empty", x, [1], [0], [3], [-1]))
    out.append(slice_case("slice_huge_step", x, [2], [1], [6], [INT64_MAX]))
    out.append(slice_case("slice_huge_negative_step", x, [2], [5], [INT64_MIN], [INT64_MIN]))
    out.append(slice_case("slice_all_three", x, [0, 1, 2], [3, 4, 1], [0, 0, 5], [-1, -2, 3]))
    out.append(slice_case("slice_no_dims_attr", x, [0, 1], [1, 1], [3, 4], with_dims=False))
    out.append(slice_case("slice_perm", x, [0, 1], [1, 5], [5, 0], [2, -1], perm=[2, 0, 1]))
    out.append(slice_case("slice_perm_reverse_all", x, [0, 1, 2], [-1, -1, -1], [INT64_MIN] * 3, [-1] * 3, perm=[1, 2, 0]))
    e = np.zeros((3, 0, 2), dtype=np.int64)
    out.append(slice_case("slice_empty_input", e, [1], [0], [5]))
    out.append(slice_case("slice_empty_input_negative_step", e, [1], [-1], [INT64_MIN], [-1]))
    out.append(slice_case("slice_no_dims", x, [], [], []))
    out.append(err("slice_step_zero", "slice", x, {"dims": [1], "starts": [0], "ends": [2], "steps": [0]},
                   "slice: step 0 for dim 1"))
    out.append(err("slice_length_mismatch", "slice", x, {"dims": [1, 2], "starts": [0], "ends": [2, 3]},
                   "slice: expected starts, ends, dims and steps of one length"))
    out.append(err("slice_dim_out_of_range", "slice", x, {"dims": [3], "starts": [0], "ends": [2]},
                   "slice: dim 3 is out of range for rank 3"))
    out.append(err("slice_duplicate_dim", "slice", x, {"dims": [1, -2], "starts": [0, 0], "ends": [2, 2]},
                   "slice: dim -2 appears twice"))

    for dt in ALL:
        x = rand((3, 4, 5), dt)
        out.append(one(f"select_{tag(dt)}", "select", x, {"dim": 1, "index": 2}, x[:, 2]))
    x = rand((3, 4, 5), np.float32)
    out.append(one("select_negative_index", "select", x, {"dim": -1, "index": -1}, x[..., -1]))
    out.append(one("select_first_dim", "select", x, {"dim": 0, "index": 0}, x[0]))
    out.append(one("select_perm", "select", x, {"dim": 0, "index": 3}, x.transpose(1, 2, 0)[3], perm=[1, 2, 0]))
    out.append(one("select_to_scalar", "select", x[0, 0].copy(), {"dim": 0, "index": 4}, x[0, 0, 4]))
    e = np.zeros((2, 0), dtype=np.float32)
    out.append(one("select_empty", "select", e, {"dim": 0, "index": 1}, e[1]))
    out.append(err("select_out_of_range", "select", x, {"dim": 1, "index": 4}, "select: index 4 is out of range for size 4"))
    out.append(err("select_negative_out_of_range", "select", x, {"dim": 1, "index": -5}, "select: index -5 is out of range for size 4"))
    out.append(err("select_empty_dim", "select", e, {"dim": 1, "index": 0}, "select: index 0 is out of range for size 0"))
    out.append(err("select_missing_index", "select", x, {"dim": 1}, "select: missing required attribute 'index'"))
    out.append(err("select_scalar", "select", np.array(1.0, dtype=np.float32), {"dim": 0, "index": 0},
                   "select: dim 0 is out of range for rank 0"))
    return out


# ---- pad, tile, triu, tril ---------------------------------------------------

def pad_ref(x, pads, mode, value):
    r = x.ndim
    if r == 0:
        return x.copy()
    begins, ends = pads[:r], pads[r:]
    width = [(max(b, 0), max(e, 0)) for b, e in zip(begins, ends)]
    if mode == "constant":
        y = np.pad(x, width, mode="constant", constant_values=np.array(value).astype(x.dtype))
    else:
        y = np.pad(x, width, mode=mode)
    crop = tuple(slice(max(-b, 0), y.shape[i] - max(-e, 0)) for i, (b, e) in enumerate(zip(begins, ends)))
    return y[crop]


def pad_case(name, x, pads, mode=None, value=None, perm=None):
    attrs = {"pads": pads, **given(mode=mode, value=value)}
    return one(name, "pad", x, attrs, pad_ref(view(x, perm), pads, mode or "constant", value or 0), perm=perm)


def pad_cases():
    out = []
    for dt in ALL:
        x = rand((2, 3, 4), dt)
        out.append(pad_case(f"pad_constant_{tag(dt)}", x, [1, 0, 2, 0, 3, 1], value=1.0))
        out.append(pad_case(f"pad_reflect_{tag(dt)}", x, [1, 2, 3, 1, 0, 2], mode="reflect"))
        out.append(pad_case(f"pad_edge_{tag(dt)}", x, [0, 3, 1, 2, 1, 4], mode="edge"))
    x = rand((3, 4, 5), np.float32)
    out.append(pad_case("pad_default_zero", x, [1, 1, 1, 1, 1, 1]))
    out.append(pad_case("pad_int_value", x.astype(np.int32), [0, 0, 2, 0, 0, 2], value=-7))
    out.append(pad_case("pad_negative_crop", x, [-1, 2, -2, 0, -1, 1], value=5.0))
    out.append(pad_case("pad_crop_everything_in_a_dim", x, [0, 0, -3, 0, 0, -2]))
    out.append(pad_case("pad_reflect_crop", x, [2, -1, 0, -1, 3, 1], mode="reflect"))
    out.append(pad_case("pad_edge_crop", x, [-2, 2, 0, 0, -4, 3], mode="edge"))
    out.append(pad_case("pad_reflect_max", x, [2, 3, 4, 2, 3, 4], mode="reflect"))
    out.append(pad_case("pad_constant_perm", x, [1, 0, 2, 2, 1, 0], value=-1.5, perm=[2, 0, 1]))
    out.append(pad_case("pad_reflect_perm", x, [1, 2, 2, 2, 1, 0], mode="reflect", perm=[1, 2, 0]))
    out.append(pad_case("pad_edge_perm", x, [3, 0, 1, 0, 2, 2], mode="edge", perm=[2, 1, 0]))
    out.append(pad_case("pad_zero_pads", x, [0] * 6, mode="reflect"))
    out.append(pad_case("pad_1d", rand((7,), np.int64), [3, 2], mode="reflect"))
    out.append(pad_case("pad_scalar", np.array(4.0, dtype=np.float32), [], value=1.0))
    e = np.zeros((2, 0), dtype=np.float32)
    out.append(pad_case("pad_empty_constant", e, [1, 0, 2, 1], value=3.0))
    out.append(pad_case("pad_empty_result", x, [0, 0, 0, -3, 0, 0]))
    big = rand((64, 700), np.float16)
    out.append(pad_case("pad_large_reflect", big, [3, 5, 7, 2], mode="reflect"))
    out.append(err("pad_reflect_too_wide", "pad", x, {"pads": [3, 0, 0, 0, 0, 0], "mode": "reflect"},
                   "pad: reflect padding 3 of dim 0 needs a size greater than the padding, got 3"))
    out.append(err("pad_edge_empty", "pad", e, {"pads": [0, 1, 0, 0], "mode": "edge"},
                   "pad: edge padding of dim 1 needs a non-empty dim"))
    out.append(err("pad_wrong_length", "pad", x, {"pads": [1, 1]}, "pad: expected 6 pads for an input of shape [3, 4, 5], got [1, 1]"))
    out.append(err("pad_bad_mode", "pad", x, {"pads": [0] * 6, "mode": "wrap"}, "pad: expected mode constant, reflect or edge, got 'wrap'"))
    out.append(err("pad_negative_size", "pad", x, {"pads": [-2, 0, 0, -2, 0, 0]}, "pad: pads -2, -2 of dim 0 with size 3"))

    for dt in ALL:
        x = rand((2, 3), dt)
        out.append(one(f"tile_{tag(dt)}", "tile", x, {"repeats": [2, 3]}, np.tile(x, (2, 3))))
    x = rand((2, 3, 4), np.float32)
    out.append(one("tile_ones", "tile", x, {"repeats": [1, 1, 1]}, x))
    out.append(one("tile_inner", "tile", x, {"repeats": [1, 1, 5]}, np.tile(x, (1, 1, 5))))
    out.append(one("tile_perm", "tile", x, {"repeats": [3, 1, 2]}, np.tile(x.transpose(2, 0, 1), (3, 1, 2)), perm=[2, 0, 1]))
    out.append(one("tile_zero", "tile", x, {"repeats": [2, 0, 1]}, np.tile(x, (2, 0, 1))))
    out.append(one("tile_scalar", "tile", np.array(3, dtype=np.int8), {"repeats": []}, np.array(3, dtype=np.int8)))
    t = rand((3, 4), np.float32)
    out.append(one("tile_large", "tile", t, {"repeats": [3000, 4]}, np.tile(t, (3000, 4))))
    out.append(err("tile_wrong_count", "tile", x, {"repeats": [2, 2]}, "tile: expected 3 repeats for an input of shape [2, 3, 4], got [2, 2]"))
    out.append(err("tile_negative", "tile", x, {"repeats": [1, -1, 1]}, "tile: expected non-negative repeats, got [1, -1, 1]"))

    for op, ref in (("triu", np.triu), ("tril", np.tril)):
        for dt in ALL:
            x = rand((3, 4), dt)
            out.append(one(f"{op}_{tag(dt)}", op, x, {}, ref(x)))
        x = rand((2, 4, 5), np.float32)
        for k in (1, -1, 3, -3, 100, -100):
            out.append(one(f"{op}_diagonal_{k}".replace("-", "m"), op, x, {"diagonal": k}, ref(x, k)))
        out.append(one(f"{op}_diagonal_int64_max", op, x, {"diagonal": INT64_MAX}, ref(x, 10)))
        out.append(one(f"{op}_diagonal_int64_min", op, x, {"diagonal": INT64_MIN}, ref(x, -10)))
        out.append(one(f"{op}_perm", op, x, {"diagonal": 1}, ref(x.transpose(2, 1, 0), 1), perm=[2, 1, 0]))
        b = rand((2, 3, 3, 3), np.float16)
        out.append(one(f"{op}_batched_4d", op, b, {}, ref(b)))
        tall = rand((6, 2), np.int64)
        out.append(one(f"{op}_tall", op, tall, {"diagonal": -2}, ref(tall, -2)))
        e = np.zeros((2, 0, 3), dtype=np.float32)
        out.append(one(f"{op}_empty", op, e, {}, ref(e)))
        out.append(err(f"{op}_rank1", op, rand((4,), np.float32), {}, f"{op}: expected an input of rank >= 2, got [4]"))
    return out


def large_cases():
    """Above the kernels' 32k-element threshold, so that the driver's 3-thread
    run takes the parallel paths (row chunks, one long row split, tiles)."""
    out = []
    v = rand((100000,), np.float32)
    out.append(one("large_reshape_one_row", "reshape", v, {"shape": [250, 400]}, v.reshape(250, 400)))
    out.append(slice_case("large_slice_strided_row", v, [0], [-1], [INT64_MIN], [-3]))
    x = rand((3, 200, 100), np.float32)
    out.append(one("large_permute_tiled", "permute", x, {"dims": [0, 2, 1]}, x.transpose(0, 2, 1)))
    out.append(one("large_permute_tiled_i8", "permute", x.astype(np.int8), {"dims": [2, 1, 0]},
                   x.astype(np.int8).transpose(2, 1, 0)))
    heads = rand((2, 128, 8, 32), np.float16)
    out.append(one("large_permute_heads", "permute", heads, {"dims": [0, 2, 1, 3]}, heads.transpose(0, 2, 1, 3)))
    row = rand((1, 300), np.int64)
    out.append(one("large_expand", "expand", row, {"shape": [200, 300]}, np.broadcast_to(row, (200, 300))))
    parts = [rand((64, 300), np.float32), rand((64, 250), np.float32)]
    out.append(case("large_concat", "concat", inputs=parts, attrs={"dim": 1}, outputs=[np.concatenate(parts, axis=1)]))
    out.append(case("large_split_perm", "split", inputs=[x], attrs={"dim": 0, "sizes": [40, 60]},
                    outputs=np.split(x.transpose(2, 1, 0), [40], axis=0), perms=[[2, 1, 0]]))
    out.append(pad_case("large_pad_constant_perm", x, [1, 0, 2, 0, 3, 1], value=2.0, perm=[1, 0, 2]))
    out.append(pad_case("large_pad_edge_crop", x, [0, -5, 3, 1, 2, -7], mode="edge"))
    out.append(one("large_triu", "triu", x, {"diagonal": 3}, np.triu(x, 3)))
    out.append(one("large_tril_perm", "tril", x, {"diagonal": -2}, np.tril(x.transpose(2, 0, 1), -2), perm=[2, 0, 1]))
    return out


def cases():
    return (reshape_cases() + permute_cases() + concat_cases() + slice_cases() + pad_cases() +
            large_cases())

"""Cases for softmax, log_softmax, batch_norm, layer_norm, group_norm,
instance_norm and lrn.

References are computed in float64 and rounded to the case dtype. softmax is
checked along the innermost memory dim (one line at a time) and along outer
dims (the kernel sweeps the axis over rows of neighbouring outputs), with
inputs shifted far from zero where that would break a naive formula (exp
overflow, E[x^2] - E[x]^2 cancellation).
"""
import warnings

import numpy as np

from common import case, view

rng = np.random.default_rng(4321)

F32 = dict(atol=1e-5, rtol=1e-4)
F16 = dict(atol=3e-3, rtol=3e-3)


def rand(shape, dtype=np.float32, scale=1.0, shift=0.0):
    return (rng.standard_normal(shape) * scale + shift).astype(dtype)


def tol(dtype):
    if dtype == np.float64:
        return dict(atol=1e-12, rtol=1e-12)
    return F16 if dtype == np.float16 else F32


def softmax_ref(x, dim, log):
    w = x.astype(np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        m = np.max(w, axis=dim, keepdims=True)
        e = np.exp(w - m)
        s = np.sum(e, axis=dim, keepdims=True)
        r = (w - m - np.log(s)) if log else e / s
    return r.astype(x.dtype)


def softmax_case(name, x, dim, log=False, perm=None, **kw):
    op = "log_softmax" if log else "softmax"
    opts = dict(tol(x.dtype))
    opts.update(kw)
    return case(name, op, inputs=[x], attrs={"dim": dim}, outputs=[softmax_ref(view(x, perm), dim, log)],
                perms=None if perm is None else [perm], **opts)


def channel_shape(x):
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)


def batch_norm_ref(x, w, b, m, v, eps):
    s = channel_shape(x)
    r = (x.astype(np.float64) - m.astype(np.float64).reshape(s)) / np.sqrt(v.astype(np.float64).reshape(s) + eps)
    return (r * w.astype(np.float64).reshape(s) + b.astype(np.float64).reshape(s)).astype(x.dtype)


def layer_norm_ref(x, w, b, axis, eps):
    axes = tuple(range(axis % x.ndim, x.ndim))
    d = x.astype(np.float64)
    mean = d.mean(axis=axes, keepdims=True)
    var = ((d - mean) ** 2).mean(axis=axes, keepdims=True)
    r = (d - mean) / np.sqrt(var + eps)
    if w is not None:
        r = r * w.astype(np.float64)
    if b is not None:
        r = r + b.astype(np.float64)
    return r.astype(x.dtype)


def group_norm_ref(x, w, b, groups, eps):
    n, c = x.shape[:2]
    d = x.astype(np.float64).reshape(n, groups, -1)
    mean = d.mean(axis=2, keepdims=True)
    var = ((d - mean) ** 2).mean(axis=2, keepdims=True)
    r = ((d - mean) / np.sqrt(var + eps)).reshape(x.shape)
    s = channel_shape(x)
    if w is not None:
        r = r * w.astype(np.float64).reshape(s)
    if b is not None:
        r = r + b.astype(np.float64).reshape(s)
    return r.astype(x.dtype)


def lrn_ref(x, size, alpha=1e-4, beta=0.75, bias=1.0):
    """ONNX LRN: the window of channel c is [c - (size-1)//2, c + size//2]."""
    d = x.astype(np.float64)
    channels = x.shape[1]
    squares = np.zeros_like(d)
    for c in range(channels):
        lo, hi = max(0, c - (size - 1) // 2), min(channels - 1, c + size // 2)
        squares[:, c] = (d[:, lo:hi + 1] ** 2).sum(axis=1)
    return (d / (bias + alpha / size * squares) ** beta).astype(x.dtype)


def err(name, op, inputs, attrs, error, out_dtype="f32"):
    return case(name, op, inputs=inputs, attrs=attrs, outputs=[], error=error, out_specs=[(out_dtype, [1])])


def cases():
    out = []
    f32, f16 = np.float32, np.float16

    # softmax / log_softmax: inner, outer and middle dims, permuted views, both dtypes.
    for log in (False, True):
        op = "log_softmax" if log else "softmax"
        for dt in (f32, f16, np.float64):
            tag = np.dtype(dt).name
            x = rand((3, 4, 37), dt, scale=3.0)
            out.append(softmax_case(f"{op}_{tag}_inner", x, dim=-1, log=log))
            out.append(softmax_case(f"{op}_{tag}_outer", x, dim=0, log=log))
            out.append(softmax_case(f"{op}_{tag}_middle", x, dim=1, log=log))
            out.append(softmax_case(f"{op}_{tag}_perm_inner", x, dim=2, log=log, perm=[0, 2, 1]))
            out.append(softmax_case(f"{op}_{tag}_perm_outer", x, dim=0, log=log, perm=[2, 1, 0]))
        # Large logits (a naive exp overflows), long lines, wide outer sweeps.
        out.append(softmax_case(f"{op}_large_logits", rand((4, 50), scale=30.0, shift=500.0), dim=1, log=log))
        out.append(softmax_case(f"{op}_long_inner", rand((3, 1000), scale=4.0), dim=1, log=log))
        out.append(softmax_case(f"{op}_wide_outer", rand((10, 600), scale=4.0), dim=0, log=log))
        # -inf entries (masking) become exact zeros; a NaN poisons its line.
        masked = rand((3, 6))
        masked[0, 2] = -np.inf
        masked[1, :3] = -np.inf
        masked[2, 4] = np.nan
        out.append(softmax_case(f"{op}_masked_nan", masked, dim=1, log=log))
        out.append(softmax_case(f"{op}_masked_nan_outer", masked.T.copy(), dim=0, log=log))
        out.append(softmax_case(f"{op}_scalar", np.array(1.5, dtype=f32), dim=0, log=log))
        out.append(softmax_case(f"{op}_size1_axis", rand((4, 1)), dim=1, log=log))
        out.append(softmax_case(f"{op}_empty", np.zeros((0, 5), dtype=f32), dim=1, log=log))
        out.append(case(f"{op}_empty_axis", op, inputs=[np.zeros((3, 0), dtype=f32)], attrs={"dim": 1},
                        outputs=[np.zeros((3, 0), dtype=f32)]))
        out.append(err(f"{op}_dim_out_of_range", op, [rand((2, 3))], {"dim": 2}, f"{op}: dim 2 is out of range"))
        out.append(err(f"{op}_missing_dim", op, [rand((2, 3))], {}, f"{op}: missing attribute dim"))
        out.append(err(f"{op}_int_input", op, [np.ones((2, 3), dtype=np.int32)], {"dim": 1},
                       f"{op}: expected a f32, f16 or f64 input, got i32", "i32"))

    # batch_norm (float64: computed in double, so within 1e-12 of the
    # reference; float32 rounding anywhere would show).
    for dt in (f32, f16, np.float64):
        tag = np.dtype(dt).name
        for shape in [(2, 3), (2, 3, 5), (2, 4, 3, 5), (1, 2, 2, 2, 3)]:
            c = shape[1]
            x = rand(shape, dt)
            w, b, m = rand((c,), dt), rand((c,), dt), rand((c,), dt)
            v = (rng.random(c) + 0.5).astype(dt)
            ref = batch_norm_ref(x, w, b, m, v, 1e-5)
            out.append(case(f"batch_norm_{tag}_rank{len(shape)}", "batch_norm", inputs=[x, w, b, m, v],
                            outputs=[ref], **tol(dt)))
    x = rand((2, 3, 4, 5))
    w, b, m = rand((3,)), rand((3,)), rand((3,))
    v = (rng.random(3) + 0.5).astype(f32)
    out.append(case("batch_norm_channels_last_view", "batch_norm",
                    inputs=[x.transpose(0, 2, 3, 1).copy(), w, b, m, v],
                    outputs=[batch_norm_ref(x, w, b, m, v, 1e-3)], perms=[[0, 3, 1, 2], None, None, None, None],
                    attrs={"eps": 1e-3}, **F32))
    xh = rand((2, 3, 4), f16)
    out.append(case("batch_norm_f16_input_f32_stats", "batch_norm", inputs=[xh, w, b, m, v],
                    outputs=[batch_norm_ref(xh, w, b, m, v, 1e-5)], **F16))
    x64 = rand((2, 3, 4), np.float64)
    out.append(case("batch_norm_f64_input_f32_stats", "batch_norm", inputs=[x64, w, b, m, v],
                    outputs=[batch_norm_ref(x64, w, b, m, v, 1e-5)], **tol(np.float64)))
    out.append(case("batch_norm_empty", "batch_norm", inputs=[np.zeros((0, 3, 2), dtype=f32), w, b, m, v],
                    outputs=[np.zeros((0, 3, 2), dtype=f32)]))
    out.append(err("batch_norm_rank1", "batch_norm", [rand((3,)), w, b, m, v], {}, "batch_norm: expected an input of rank >= 2"))
    out.append(err("batch_norm_param_size", "batch_norm", [rand((2, 4)), w, b, m, v], {},
                   "batch_norm: expected weight of shape [4]"))
    out.append(err("batch_norm_var_shape", "batch_norm", [x, w, b, m, rand((3, 1))], {},
                   "batch_norm: expected running_var of shape [3]"))
    out.append(err("batch_norm_missing_input", "batch_norm", [x, w, b, m], {}, "batch_norm: expected 5 inputs"))
    out.append(err("batch_norm_int_param", "batch_norm", [x, w, np.zeros(3, dtype=np.int64), m, v], {},
                   "batch_norm: expected bias of dtype f32, f16 or f64, got i64"))

    # layer_norm: default axis, other axes, optional weight/bias, broadcast weight, views.
    for dt in (f32, f16, np.float64):
        tag = np.dtype(dt).name
        x = rand((4, 5, 40), dt, shift=3.0)
        w, b = rand((40,), dt), rand((40,), dt)
        out.append(case(f"layer_norm_{tag}_last", "layer_norm", inputs=[x, w, b],
                        outputs=[layer_norm_ref(x, w, b, -1, 1e-5)], **tol(dt)))
        w2, b2 = rand((5, 40), dt), rand((5, 40), dt)
        out.append(case(f"layer_norm_{tag}_axis1", "layer_norm", inputs=[x, w2, b2], attrs={"axis": 1},
                        outputs=[layer_norm_ref(x, w2, b2, 1, 1e-5)], **tol(dt)))
        out.append(case(f"layer_norm_{tag}_no_affine", "layer_norm", inputs=[x], attrs={"axis": -2, "eps": 1e-3},
                        outputs=[layer_norm_ref(x, None, None, -2, 1e-3)], **tol(dt)))
        out.append(case(f"layer_norm_{tag}_weight_only", "layer_norm", inputs=[x, w],
                        outputs=[layer_norm_ref(x, w, None, -1, 1e-5)], **tol(dt)))
    x = rand((3, 7, 6), shift=1000.0)  # large mean: E[x^2] - E[x]^2 would lose every digit
    out.append(case("layer_norm_large_mean", "layer_norm", inputs=[x], outputs=[layer_norm_ref(x, None, None, -1, 1e-5)],
                    atol=2e-3, rtol=1e-3))
    x = rand((3, 7, 6), np.float64, shift=1e6)
    out.append(case("layer_norm_f64_large_mean", "layer_norm", inputs=[x],
                    outputs=[layer_norm_ref(x, None, None, -1, 1e-5)], atol=1e-9, rtol=1e-9))
    x = rand((6, 5, 4))
    w, b = rand((6, 4)), rand((4,))
    out.append(case("layer_norm_perm_axis0", "layer_norm", inputs=[x, w, b], attrs={"axis": 0},
                    outputs=[layer_norm_ref(x.transpose(1, 0, 2), w, b, 0, 1e-5)], perms=[[1, 0, 2], None, None], **F32))
    wt = rand((4, 5))
    out.append(case("layer_norm_perm_weight", "layer_norm", inputs=[x, wt], attrs={"axis": 1},
                    outputs=[layer_norm_ref(x, wt.T, None, 1, 1e-5)], perms=[None, [1, 0]], **F32))
    wb = rand((1, 4))
    out.append(case("layer_norm_broadcast_weight", "layer_norm", inputs=[x, wb, b], attrs={"axis": 1},
                    outputs=[layer_norm_ref(x, wb, b, 1, 1e-5)], **F32))
    x = rand((2, 3, 700))
    out.append(case("layer_norm_long_rows", "layer_norm", inputs=[x], outputs=[layer_norm_ref(x, None, None, 2, 1e-5)],
                    **F32))
    x1 = rand((9,))
    out.append(case("layer_norm_1d", "layer_norm", inputs=[x1], outputs=[layer_norm_ref(x1, None, None, 0, 1e-5)], **F32))
    out.append(case("layer_norm_empty", "layer_norm", inputs=[np.zeros((0, 4), dtype=f32)],
                    outputs=[np.zeros((0, 4), dtype=f32)]))
    out.append(err("layer_norm_weight_shape", "layer_norm", [rand((2, 3, 4)), rand((3,))], {}, "layer_norm: expected weight of shape [4]"))
    out.append(err("layer_norm_bias_shape", "layer_norm", [rand((2, 3, 4)), rand((4,)), rand((2, 4))], {},
                   "layer_norm: expected bias of shape [4]"))
    out.append(err("layer_norm_axis_range", "layer_norm", [rand((2, 3))], {"axis": 2}, "layer_norm: axis 2 is out of range"))
    out.append(err("layer_norm_weight_dtype", "layer_norm", [rand((2, 3)), rand((3,), f16)], {},
                   "layer_norm: expected weight of dtype f32, got f16"))
    out.append(err("layer_norm_scalar", "layer_norm", [np.array(1.0, dtype=f32)], {}, "layer_norm: expected an input of rank >= 1"))
    out.append(err("layer_norm_too_many_inputs", "layer_norm", [rand((2, 3)), rand((3,)), rand((3,)), rand((3,))], {},
                   "layer_norm: expected 1 to 3 inputs"))

    # group_norm.
    for dt in (f32, f16, np.float64):
        tag = np.dtype(dt).name
        x = rand((2, 6, 5, 3), dt, shift=2.0)
        w, b = rand((6,), dt), rand((6,), dt)
        for g in (1, 2, 3, 6):
            out.append(case(f"group_norm_{tag}_g{g}", "group_norm", inputs=[x, w, b], attrs={"num_groups": g},
                            outputs=[group_norm_ref(x, w, b, g, 1e-5)], **tol(dt)))
    x = rand((3, 4, 10))
    w, b = rand((4,)), rand((4,))
    out.append(case("group_norm_no_affine", "group_norm", inputs=[x], attrs={"num_groups": 2, "eps": 1e-2},
                    outputs=[group_norm_ref(x, None, None, 2, 1e-2)], **F32))
    out.append(case("group_norm_weight_only", "group_norm", inputs=[x, w], attrs={"num_groups": 4},
                    outputs=[group_norm_ref(x, w, None, 4, 1e-5)], **F32))
    x2 = rand((5, 4))
    out.append(case("group_norm_rank2", "group_norm", inputs=[x2, w, b], attrs={"num_groups": 2},
                    outputs=[group_norm_ref(x2, w, b, 2, 1e-5)], **F32))
    xl = rand((2, 10, 3, 4))
    out.append(case("group_norm_channels_last_view", "group_norm", inputs=[xl, w, b], attrs={"num_groups": 2},
                    outputs=[group_norm_ref(xl.transpose(0, 3, 1, 2), w, b, 2, 1e-5)], perms=[[0, 3, 1, 2], None, None], **F32))
    xm = rand((2, 4, 50), shift=1000.0)
    out.append(case("group_norm_large_mean", "group_norm", inputs=[xm], attrs={"num_groups": 2},
                    outputs=[group_norm_ref(xm, None, None, 2, 1e-5)], atol=2e-3, rtol=1e-3))
    out.append(case("group_norm_empty", "group_norm", inputs=[np.zeros((2, 4, 0), dtype=f32), w, b], attrs={"num_groups": 2},
                    outputs=[np.zeros((2, 4, 0), dtype=f32)]))
    out.append(err("group_norm_indivisible", "group_norm", [x, w, b], {"num_groups": 3}, "group_norm: num_groups 3 must be positive and divide the 4 channels"))
    out.append(err("group_norm_zero_groups", "group_norm", [x], {"num_groups": 0}, "group_norm: num_groups 0"))
    out.append(err("group_norm_missing_groups", "group_norm", [x], {}, "group_norm: missing attribute num_groups"))
    out.append(err("group_norm_weight_shape", "group_norm", [x, rand((2,))], {"num_groups": 2}, "group_norm: expected weight of shape [4]"))
    out.append(err("group_norm_rank1", "group_norm", [rand((4,))], {"num_groups": 2}, "group_norm: expected an input of rank >= 2"))

    # instance_norm.
    for dt in (f32, f16, np.float64):
        tag = np.dtype(dt).name
        x = rand((2, 3, 4, 5), dt, shift=-1.0)
        w, b = rand((3,), dt), rand((3,), dt)
        out.append(case(f"instance_norm_{tag}", "instance_norm", inputs=[x, w, b],
                        outputs=[group_norm_ref(x, w, b, 3, 1e-5)], **tol(dt)))
    x = rand((2, 3, 7))
    w, b = rand((3,)), rand((3,))
    out.append(case("instance_norm_no_affine", "instance_norm", inputs=[x], attrs={"eps": 1e-3},
                    outputs=[group_norm_ref(x, None, None, 3, 1e-3)], **F32))
    xp = rand((7, 3, 2))
    out.append(case("instance_norm_perm", "instance_norm", inputs=[xp, w, b], perms=[[2, 1, 0], None, None],
                    outputs=[group_norm_ref(xp.transpose(2, 1, 0), w, b, 3, 1e-5)], **F32))
    out.append(case("instance_norm_single_element", "instance_norm", inputs=[rand((2, 3)), w, b],
                    outputs=[np.broadcast_to(b, (2, 3)).astype(f32)], **F32))
    out.append(err("instance_norm_bias_shape", "instance_norm", [x, w, rand((4,))], {}, "instance_norm: expected bias of shape [3]"))
    out.append(err("instance_norm_bias_dtype", "instance_norm", [x, w, rand((3,), f16)], {}, "instance_norm: expected bias of dtype f32, got f16"))
    # lrn: odd and even windows (ONNX's: the longer half after c), windows
    # wider than the channels, ranks 2 to 5, a channels-last view.
    for dt in (f32, f16, np.float64):
        tag = np.dtype(dt).name
        x = rand((2, 6, 4, 3), dt, scale=3.0)
        for size in (1, 2, 3, 4, 5, 9):
            out.append(case(f"lrn_{tag}_size{size}", "lrn", inputs=[x], attrs={"size": size},
                            outputs=[lrn_ref(x, size)], **tol(dt)))
    x = rand((2, 5, 7), scale=4.0)
    out.append(case("lrn_attrs", "lrn", inputs=[x], attrs={"size": 3, "alpha": 0.5, "beta": 0.6, "bias": 2.0},
                    outputs=[lrn_ref(x, 3, 0.5, 0.6, 2.0)], **F32))
    x64 = rand((2, 5, 7), np.float64, scale=4.0)
    out.append(case("lrn_f64_attrs", "lrn", inputs=[x64], attrs={"size": 4, "alpha": 0.3, "beta": 0.9, "bias": 1.1},
                    outputs=[lrn_ref(x64, 4, 0.3, 0.9, 1.1)], **tol(np.float64)))
    x2 = rand((3, 8), scale=10.0)
    out.append(case("lrn_rank2", "lrn", inputs=[x2], attrs={"size": 3, "alpha": 0.1},
                    outputs=[lrn_ref(x2, 3, 0.1)], **F32))
    x5 = rand((1, 4, 2, 3, 2))
    out.append(case("lrn_rank5", "lrn", inputs=[x5], attrs={"size": 2, "alpha": 1.0},
                    outputs=[lrn_ref(x5, 2, 1.0)], **F32))
    xl = rand((2, 3, 4, 6), scale=5.0)
    out.append(case("lrn_channels_last_view", "lrn", inputs=[xl], attrs={"size": 3, "alpha": 0.2},
                    perms=[[0, 3, 1, 2]], outputs=[lrn_ref(xl.transpose(0, 3, 1, 2), 3, 0.2)], **F32))
    out.append(case("lrn_empty", "lrn", inputs=[np.zeros((0, 3, 2), dtype=f32)], attrs={"size": 3},
                    outputs=[np.zeros((0, 3, 2), dtype=f32)]))
    out.append(err("lrn_rank1", "lrn", [rand((4,))], {"size": 3}, "lrn: expected an input of rank >= 2"))
    out.append(err("lrn_missing_size", "lrn", [rand((2, 3))], {}, "lrn: missing attribute size"))
    out.append(err("lrn_zero_size", "lrn", [rand((2, 3))], {"size": 0}, "lrn: expected attribute size to be"))
    out.append(err("lrn_int_input", "lrn", [np.ones((2, 3), dtype=np.int32)], {"size": 3},
                   "lrn: expected a f32, f16 or f64 input, got i32", "i32"))
    out.append(err("instance_norm_wrong_output", "instance_norm", [x], {}, "instance_norm: expected output dtype f32, got f16", "f16"))
    return out

"""Cases for the quantized family's standard operators (ONNX semantics,
docs/semantics.md §9): quantize_linear, dequantize_linear,
dynamic_quantize_linear, conv_integer, qlinear_conv, matmul_integer,
qlinear_matmul.

References are written from the ONNX operator spec in numpy: round half to
even is np.rint, saturation is np.clip, the division x / scale and the
requantization multiplier x_scale * w_scale / y_scale are float32 (in that
order), integer sums are int64 (exact). Integer results compare exactly.
"""
import numpy as np

from common import case, dtype

RNG = np.random.default_rng(32)

QRANGE = {np.uint8: (0, 255), np.int8: (-128, 127)}
F32 = np.float32


def rand_q(dtype, shape):
    lo, hi = QRANGE[dtype]
    return RNG.integers(lo, hi + 1, size=shape).astype(dtype)


def saturate(v, dtype):
    lo, hi = QRANGE[dtype]
    return np.clip(v, lo, hi).astype(dtype)


def per_axis(p, ndim, axis):
    """A per-tensor ([] or [1]) or per-axis ([C]) parameter shaped to broadcast along `axis`."""
    p = np.asarray(p)
    if p.ndim == 0 or p.size == 1:
        return p.reshape(())
    shape = [1] * ndim
    shape[axis] = p.size
    return p.reshape(shape)


def quantize_ref(x, scale, zp, axis=1, dtype=np.uint8):
    s = per_axis(scale, x.ndim, axis).astype(F32)
    z = per_axis(zp, x.ndim, axis).astype(np.int64) if zp is not None else np.int64(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        q = np.rint(x.astype(F32) / s).astype(np.float64)  # x / scale in float32, then rounded
    return saturate(q + z, dtype if zp is None else zp.dtype.type)


def dequantize_ref(x, scale, zp, axis=1):
    s = per_axis(scale, x.ndim, axis).astype(F32)
    z = per_axis(zp, x.ndim, axis).astype(np.int64) if zp is not None else np.int64(0)
    return ((x.astype(np.int64) - z).astype(F32) * s).astype(F32)


def requantize(acc, mult, zp, dtype):
    """saturate(rint(float32(acc) * mult) + zp); mult float32."""
    v = acc.astype(F32) * mult.astype(F32)
    return saturate(np.rint(v).astype(np.float64) + int(zp), dtype)


def conv_int_ref(x, w, xzp=0, wzp=0, stride=None, pads=None, dilation=None, groups=1):
    """int64 sum of (x - xzp)(w - wzp[co]); padding reads xzp; pads [(begin, end)] per axis."""
    nd = x.ndim - 2
    stride = stride or [1] * nd
    dilation = dilation or [1] * nd
    pads = pads or [(0, 0)] * nd
    xd = x.astype(np.int64) - np.int64(xzp)
    wz = np.asarray(wzp, dtype=np.int64).reshape(-1)
    wd = w.astype(np.int64) - (wz.reshape((-1,) + (1,) * (w.ndim - 1)) if wz.size > 1 else wz[0])
    xp = np.pad(xd, [(0, 0), (0, 0)] + [tuple(p) for p in pads])  # zeros: x_zp after subtraction
    n = x.shape[0]
    cout, cig = w.shape[:2]
    ks = w.shape[2:]
    outs = [(xp.shape[2 + a] - dilation[a] * (ks[a] - 1) - 1) // stride[a] + 1 for a in range(nd)]
    out = np.zeros((n, cout) + tuple(outs), dtype=np.int64)
    cog = cout // groups
    for tap in np.ndindex(*ks):
        sl = tuple(slice(tap[a] * dilation[a], tap[a] * dilation[a] + stride[a] * (outs[a] - 1) + 1, stride[a])
                   for a in range(nd))
        patch = xp[(slice(None), slice(None)) + sl]
        for g in range(groups):
            pg = patch[:, g * cig:(g + 1) * cig]
            wg = wd[(slice(g * cog, (g + 1) * cog), slice(None)) + tap]
            out[:, g * cog:(g + 1) * cog] += np.einsum('nc...,oc->no...', pg, wg)
    return out


def flat(pads):
    return [p[0] for p in pads] + [p[1] for p in pads]


def window_attrs(stride, pads, dilation, groups):
    attrs = {}
    if stride:
        attrs["stride"] = stride
    if pads:
        attrs["padding"] = flat(pads)
    if dilation:
        attrs["dilation"] = dilation
    if groups != 1:
        attrs["groups"] = groups
    return attrs


def scalar(v, dtype):
    return np.array(v, dtype=dtype)


# ---- quantize_linear / dequantize_linear -----------------------------------------


def quantize_cases():
    out = []
    # Ties: x / scale exactly .5 rounds to even, at both signs.
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, 4.5, 0.0, -0.0], dtype=F32)
    for dt, zp in ((np.uint8, 128), (np.int8, 0)):
        s = scalar(1.0, F32)
        z = scalar(zp, dt)
        out.append(case("quantize_ties_%s" % dt.__name__, "quantize_linear", [x, s, z],
                        outputs=[quantize_ref(x, s, z, dtype=dt)]))
    # Ties through a scale: 0.25 / 0.5 = 0.5 and 0.75 / 0.5 = 1.5 exactly.
    x = np.array([0.25, 0.75, 1.25, -0.25, -0.75, -1.25], dtype=F32)
    s, z = scalar(0.5, F32), scalar(10, np.uint8)
    out.append(case("quantize_ties_scaled", "quantize_linear", [x, s, z], outputs=[quantize_ref(x, s, z)]))
    # Saturation at both ends, and infinities.
    x = np.array([-1e9, -300.0, -129.0, -128.6, 126.6, 127.4, 128.0, 300.0, 1e9, np.inf, -np.inf], dtype=F32)
    for dt, zp in ((np.uint8, 3), (np.int8, -2)):
        s, z = scalar(1.0, F32), scalar(zp, dt)
        out.append(case("quantize_saturate_%s" % dt.__name__, "quantize_linear", [x, s, z],
                        outputs=[quantize_ref(x, s, z, dtype=dt)]))
    # NaN gives the dtype's minimum, as in ONNX Runtime 1.30 (its MLAS clamps
    # with max_ps, which returns the bound for NaN); the spec leaves it open.
    x = np.array([np.nan, 1.0, -np.nan, np.inf], dtype=F32)
    for dt, zp in ((np.uint8, 7), (np.int8, -3)):
        s, z = scalar(1.0, F32), scalar(zp, dt)
        want = np.where(np.isnan(x), QRANGE[dt][0], np.nan_to_num(quantize_ref(np.nan_to_num(x, nan=0.0), s, z, dtype=dt)))
        out.append(case("quantize_nan_%s" % dt.__name__, "quantize_linear", [x, s, z], outputs=[want.astype(dt)]))
    # Random per tensor, both dtypes; no zero point: the dtype attribute.
    x = (RNG.standard_normal((2, 3, 5)) * 40).astype(F32)
    for dt in (np.uint8, np.int8):
        s, z = scalar(0.37, F32), scalar(17 if dt is np.uint8 else -9, dt)
        out.append(case("quantize_per_tensor_%s" % dt.__name__, "quantize_linear", [x, s, z],
                        outputs=[quantize_ref(x, s, z, dtype=dt)]))
        out.append(case("quantize_no_zero_point_%s" % dt.__name__, "quantize_linear", [x, s],
                        attrs={"dtype": dtype("u8" if dt is np.uint8 else "i8")},
                        outputs=[quantize_ref(x, s, None, dtype=dt)]))
    # No zero point and no dtype: u8 (ONNX's default).
    out.append(case("quantize_default_u8", "quantize_linear", [x, scalar(0.5, F32)],
                    outputs=[quantize_ref(x, scalar(0.5, F32), None)]))
    # A [1] scale is per tensor.
    s1, z1 = np.array([0.25], dtype=F32), np.array([5], dtype=np.int8)
    out.append(case("quantize_scale_shape_1", "quantize_linear", [x, s1, z1],
                    outputs=[quantize_ref(x, s1, z1)]))
    # Per axis: axis 1 (default), 0, the last one, and negative.
    for axis in (1, 0, 2, -1, -3):
        c = x.shape[axis]
        s = (RNG.uniform(0.05, 0.5, size=c)).astype(F32)
        z = rand_q(np.int8, (c,))
        out.append(case("quantize_per_axis_%d" % axis, "quantize_linear", [x, s, z],
                        attrs={"axis": axis} if axis != 1 else None,
                        outputs=[quantize_ref(x, s, z, axis=axis)]))
    # A strided (permuted) input, per axis.
    xt = (RNG.standard_normal((4, 6)) * 10).astype(F32)
    s = RNG.uniform(0.05, 0.5, size=4).astype(F32)
    z = rand_q(np.uint8, (4,))
    out.append(case("quantize_permuted_per_axis", "quantize_linear", [xt, s, z], attrs={"axis": 1},
                    perms=[[1, 0], None, None], outputs=[quantize_ref(xt.T, s, z, axis=1)]))
    # f16 input, computed in float32.
    xh = (RNG.standard_normal((3, 4)) * 8).astype(np.float16)
    s, z = scalar(0.1, F32), scalar(100, np.uint8)
    out.append(case("quantize_f16", "quantize_linear", [xh, s, z], outputs=[quantize_ref(xh, s, z)]))
    # A scalar input.
    out.append(case("quantize_scalar", "quantize_linear", [np.array(2.5, dtype=F32), scalar(1.0, F32),
                                                          scalar(0, np.int8)],
                    outputs=[np.array(2, dtype=np.int8)]))
    # Errors.
    out.append(case("quantize_wrong_scale_length", "quantize_linear",
                    [x, np.ones(4, dtype=F32), np.zeros(4, dtype=np.uint8)],
                    error="y_scale has 4 entries; expected 1 (per tensor) or 3", out_specs=[("u8", [2, 3, 5])]))
    out.append(case("quantize_zero_point_dtype_mismatch", "quantize_linear",
                    [x, np.ones(3, dtype=F32), np.zeros(3, dtype=np.int32)],
                    error="the result must be i8 or u8, got i32", out_specs=[("i32", [2, 3, 5])]))
    out.append(case("quantize_zero_point_shape", "quantize_linear",
                    [x, np.ones(3, dtype=F32), np.zeros((), dtype=np.uint8)],
                    error="y_zero_point shape [] must equal y_scale's [3]", out_specs=[("u8", [2, 3, 5])]))
    out.append(case("quantize_scale_dtype", "quantize_linear",
                    [x, np.ones((), dtype=np.float16), np.zeros((), dtype=np.uint8)],
                    error="y_scale must be f32, got f16", out_specs=[("u8", [2, 3, 5])]))
    out.append(case("quantize_axis_out_of_range", "quantize_linear",
                    [x, np.ones(3, dtype=F32), np.zeros(3, dtype=np.uint8)], attrs={"axis": 3},
                    error="axis 3 is out of range", out_specs=[("u8", [2, 3, 5])]))
    return out


def dequantize_cases():
    out = []
    for dt in (np.uint8, np.int8):
        x = rand_q(dt, (2, 4, 3))
        s, z = scalar(0.173, F32), rand_q(dt, ())
        out.append(case("dequantize_per_tensor_%s" % dt.__name__, "dequantize_linear", [x, s, z],
                        outputs=[dequantize_ref(x, s, z)]))
        out.append(case("dequantize_no_zero_point_%s" % dt.__name__, "dequantize_linear", [x, s],
                        outputs=[dequantize_ref(x, s, None)]))
        for axis in (1, 0, -1):
            c = x.shape[axis]
            s = RNG.uniform(0.01, 2.0, size=c).astype(F32)
            z = rand_q(dt, (c,))
            out.append(case("dequantize_per_axis_%s_%d" % (dt.__name__, axis), "dequantize_linear", [x, s, z],
                            attrs={"axis": axis} if axis != 1 else None, outputs=[dequantize_ref(x, s, z, axis)]))
    # Extremes: 255 - 0 and -128 - 127.
    x = np.array([0, 255, 128], dtype=np.uint8)
    out.append(case("dequantize_u8_extremes", "dequantize_linear", [x, scalar(3.0, F32), scalar(255, np.uint8)],
                    outputs=[dequantize_ref(x, scalar(3.0, F32), scalar(255, np.uint8))]))
    x = np.array([-128, 127, 0], dtype=np.int8)
    out.append(case("dequantize_i8_extremes", "dequantize_linear", [x, scalar(0.5, F32), scalar(127, np.int8)],
                    outputs=[dequantize_ref(x, scalar(0.5, F32), scalar(127, np.int8))]))
    # int32 (a bias), per axis, zero point 0.
    x = RNG.integers(-2**31, 2**31 - 1, size=(5, 2)).astype(np.int32)
    s = np.array([1e-4, 3e-6], dtype=F32)
    out.append(case("dequantize_i32_per_axis", "dequantize_linear", [x, s, np.zeros(2, dtype=np.int32)],
                    attrs={"axis": 1}, outputs=[dequantize_ref(x, s, np.zeros(2, dtype=np.int32), 1)]))
    # Permuted input.
    x = rand_q(np.int8, (3, 5))
    s = RNG.uniform(0.1, 1.0, size=5).astype(F32)
    z = rand_q(np.int8, (5,))
    out.append(case("dequantize_permuted", "dequantize_linear", [x, s, z], attrs={"axis": 0},
                    perms=[[1, 0], None, None], outputs=[dequantize_ref(x.T, s, z, 0)]))
    # Errors.
    x = rand_q(np.uint8, (2, 3))
    out.append(case("dequantize_zero_point_dtype_mismatch", "dequantize_linear",
                    [x, scalar(1.0, F32), scalar(0, np.int8)],
                    error="x_zero_point must have dtype u8 (x's), got i8", out_specs=[("f32", [2, 3])]))
    out.append(case("dequantize_wrong_scale_length", "dequantize_linear",
                    [x, np.ones(2, dtype=F32), np.zeros(2, dtype=np.uint8)],
                    error="x_scale has 2 entries; expected 1 (per tensor) or 3", out_specs=[("f32", [2, 3])]))
    out.append(case("dequantize_float_input", "dequantize_linear", [x.astype(F32), scalar(1.0, F32)],
                    error="expected an i8, u8 or i32 input, got f32", out_specs=[("f32", [2, 3])]))
    return out


def dynamic_ref(x):
    """ONNX DynamicQuantizeLinear as ONNX Runtime computes it: the range
    widened to hold 0; scale 1 when it is empty (all zeros); the zero point
    clamped to [0, 255], then rounded."""
    lo = F32(min(F32(0), x.min())) if x.size else F32(0)
    hi = F32(max(F32(0), x.max())) if x.size else F32(0)
    scale = F32(1.0) if hi == lo else F32((hi - lo) / F32(255))
    zp = np.rint(np.clip(F32(0) - lo / scale, F32(0), F32(255)))
    y = saturate(np.rint(x / scale).astype(np.float64) + zp, np.uint8)
    return [y, np.array(scale, dtype=F32), np.array(zp, dtype=np.uint8)]


def dynamic_cases():
    out = []
    xs = {
        "mixed": (RNG.standard_normal((3, 7)) * 3).astype(F32),
        "positive": RNG.uniform(0.5, 9.0, size=(11,)).astype(F32),
        "negative": RNG.uniform(-9.0, -0.5, size=(2, 2, 3)).astype(F32),
        "zeros": np.zeros((4,), dtype=F32),
        # ONNX's own example values.
        "onnx_example": np.array([0, 2, -3, -2.5, 1.34, 0.5], dtype=F32),
    }
    for name, x in xs.items():
        out.append(case("dynamic_quantize_%s" % name, "dynamic_quantize_linear", [x], outputs=dynamic_ref(x)))
    x = (RNG.standard_normal((4, 3)) * 3).astype(F32)
    out.append(case("dynamic_quantize_permuted", "dynamic_quantize_linear", [x], perms=[[1, 0]],
                    outputs=dynamic_ref(x.T)))
    out.append(case("dynamic_quantize_int_input", "dynamic_quantize_linear", [np.zeros(3, dtype=np.int32)],
                    error="expected an f32 input, got i32",
                    out_specs=[("u8", [3]), ("f32", []), ("u8", [])]))
    return out


# ---- convolutions ----------------------------------------------------------------------


def conv_setups():
    """(name, x shape, w shape, stride, pads, dilation, groups)."""
    return [
        ("2d", (2, 5, 7, 6), (4, 5, 3, 3), None, None, None, 1),
        ("2d_padded", (1, 3, 6, 5), (6, 3, 3, 3), None, [(1, 1), (1, 1)], None, 1),
        ("2d_strided_asym_pad", (1, 4, 9, 8), (5, 4, 3, 2), [2, 3], [(2, 0), (1, 2)], None, 1),
        ("2d_dilated", (1, 3, 9, 9), (2, 3, 3, 3), None, [(2, 2), (2, 2)], [2, 2], 1),
        ("2d_grouped", (2, 6, 5, 5), (9, 2, 3, 3), None, [(1, 1), (1, 1)], None, 3),
        ("depthwise", (2, 4, 6, 7), (4, 1, 3, 3), None, [(1, 1), (1, 1)], None, 4),
        ("depthwise_strided", (1, 3, 9, 8), (3, 1, 3, 3), [2, 2], [(1, 1), (1, 1)], None, 3),
        ("depthwise_multiplier", (1, 2, 5, 5), (6, 1, 3, 2), None, [(0, 1), (1, 0)], [1, 2], 2),
        ("1x1", (1, 8, 4, 4), (3, 8, 1, 1), None, None, None, 1),
        ("1d", (2, 3, 10), (4, 3, 3), [2], [(1, 2)], None, 1),
        ("3d", (1, 2, 4, 5, 4), (3, 2, 2, 3, 2), [1, 2, 1], [(1, 0), (1, 1), (0, 1)], None, 1),
        # K = 300 * 1 crosses the kernel's K tile (256) and 40 output
        # channels its 4-row blocks unevenly; 19 x 19 = 361 positions cross
        # its column tiles (128).
        ("deep", (1, 300, 19, 19), (40, 300, 1, 1), None, None, None, 1),
        ("wide_kernel", (1, 30, 12, 12), (7, 30, 3, 3), None, [(1, 1), (1, 1)], None, 1),
    ]


def conv_integer_cases():
    out = []
    for i, (name, xs, ws, stride, pads, dil, groups) in enumerate(conv_setups()):
        xdt = np.uint8 if i % 2 == 0 else np.int8
        wdt = np.int8 if i % 3 else np.uint8
        x = rand_q(xdt, xs)
        w = rand_q(wdt, ws)
        xzp = rand_q(xdt, ())
        per_channel = i % 2 == 1
        wzp = rand_q(wdt, (ws[0],)) if per_channel else rand_q(wdt, ())
        ref = conv_int_ref(x, w, xzp, wzp, stride, pads, dil, groups).astype(np.int32)
        out.append(case("conv_integer_%s" % name, "conv_integer", [x, w, xzp, wzp],
                        attrs=window_attrs(stride, pads, dil, groups), outputs=[ref]))
    # No zero points; only x's.
    x = rand_q(np.uint8, (1, 3, 5, 5))
    w = rand_q(np.uint8, (2, 3, 2, 2))
    out.append(case("conv_integer_no_zero_points", "conv_integer", [x, w],
                    outputs=[conv_int_ref(x, w).astype(np.int32)]))
    xzp = scalar(200, np.uint8)
    out.append(case("conv_integer_x_zero_point_padded", "conv_integer", [x, w, xzp],
                    attrs={"padding": [1, 1]},
                    outputs=[conv_int_ref(x, w, 200, 0, pads=[(1, 1), (1, 1)]).astype(np.int32)]))
    # Permuted input.
    x = rand_q(np.int8, (1, 5, 6, 4))  # stored N, H, W, C; the kernel sees N, C, H, W
    xv = x.transpose(0, 3, 1, 2)
    w = rand_q(np.int8, (3, 4, 3, 3))
    out.append(case("conv_integer_permuted_input", "conv_integer", [x, w, scalar(-3, np.int8), scalar(2, np.int8)],
                    perms=[[0, 3, 1, 2], None, None, None],
                    outputs=[conv_int_ref(xv, w, -3, 2).astype(np.int32)]))
    # Errors.
    x = rand_q(np.uint8, (1, 4, 5, 5))
    w = rand_q(np.int8, (3, 4, 3, 3))
    out.append(case("conv_integer_w_zero_point_length", "conv_integer",
                    [x, w, scalar(0, np.uint8), np.zeros(2, dtype=np.int8)],
                    error="w_zero_point has 2 entries; expected 1 (per tensor) or 3 (one per output channel)",
                    out_specs=[("i32", [1, 3, 3, 3])]))
    out.append(case("conv_integer_x_zero_point_dtype", "conv_integer", [x, w, scalar(0, np.int8)],
                    error="x_zero_point must have dtype u8 (x's), got i8", out_specs=[("i32", [1, 3, 3, 3])]))
    out.append(case("conv_integer_float_input", "conv_integer", [x.astype(F32), w],
                    error="expected i8 or u8 x and w", out_specs=[("i32", [1, 3, 3, 3])]))
    return out


def qlinear_conv_case(name, x, xs, xzp, w, ws, wzp, ys, yzp, bias, stride=None, pads=None, dil=None, groups=1,
                      perms=None, xv=None):
    xv = x if xv is None else xv
    acc = conv_int_ref(xv, w, xzp, wzp, stride, pads, dil, groups)
    if bias is not None:
        acc = acc + bias.astype(np.int64).reshape((1, -1) + (1,) * (x.ndim - 2))
    cout = w.shape[0]
    mult = (F32(xs) * np.broadcast_to(ws.astype(F32), (cout,)) / F32(ys)).astype(F32)  # float32, in order
    mult = mult.reshape((1, cout) + (1,) * (x.ndim - 2))
    ref = requantize(acc.astype(np.int32), mult, yzp, yzp.dtype.type)
    inputs = [x, xs, xzp, w, ws, wzp, ys, yzp] + ([bias] if bias is not None else [])
    return case(name, "qlinear_conv", inputs, attrs=window_attrs(stride, pads, dil, groups),
                perms=perms, outputs=[ref])


def qlinear_conv_cases():
    out = []
    for i, (name, xs_, ws_, stride, pads, dil, groups) in enumerate(conv_setups()):
        xdt = np.uint8 if i % 2 == 0 else np.int8
        wdt = np.int8 if i % 4 != 3 else np.uint8
        ydt = np.uint8 if i % 3 != 1 else np.int8
        x = rand_q(xdt, xs_)
        w = rand_q(wdt, ws_)
        cout = ws_[0]
        k = int(np.prod(ws_[1:]))
        xzp = rand_q(xdt, ())
        per_channel = i % 2 == 0
        wzp = rand_q(wdt, (cout,)) if per_channel else rand_q(wdt, ())
        wsc = RNG.uniform(0.002, 0.02, size=(cout,)).astype(F32) if per_channel else scalar(0.01, F32)
        xsc = scalar(0.05, F32)
        # y_scale near the accumulator's spread so that outputs fill the range and saturate at the ends.
        ysc = scalar(0.05 * 0.01 * 128 * np.sqrt(k) * 0.6, F32)
        yzp = rand_q(ydt, ())
        bias = RNG.integers(-20000, 20000, size=cout).astype(np.int32) if i % 3 != 2 else None
        out.append(qlinear_conv_case("qlinear_conv_%s" % name, x, xsc, xzp, w, wsc, wzp, ysc, yzp, bias,
                                     stride, pads, dil, groups))
    # u8 activations, s8 weights, per channel, bias: a typical layer, plus s8/s8.
    for xdt in (np.uint8, np.int8):
        x = rand_q(xdt, (1, 16, 8, 8))
        w = rand_q(np.int8, (8, 16, 3, 3))
        out.append(qlinear_conv_case("qlinear_conv_typical_%s_s8" % xdt.__name__, x, scalar(0.02, F32),
                                     rand_q(xdt, ()), w, RNG.uniform(0.001, 0.01, 8).astype(F32),
                                     np.zeros(8, dtype=np.int8), scalar(0.3, F32), rand_q(np.uint8, ()),
                                     RNG.integers(-5000, 5000, 8).astype(np.int32), pads=[(1, 1), (1, 1)]))
    # Padding reads x_zp: x all at its zero point gives the bias only.
    x = np.full((1, 2, 3, 3), 77, dtype=np.uint8)
    w = rand_q(np.int8, (2, 2, 3, 3))
    out.append(qlinear_conv_case("qlinear_conv_zero_point_padding", x, scalar(0.5, F32), scalar(77, np.uint8), w,
                                 scalar(0.5, F32), scalar(0, np.int8), scalar(1.0, F32), scalar(10, np.uint8),
                                 np.array([4, -7], dtype=np.int32), pads=[(1, 1), (1, 1)]))
    # Requantization ties: acc * mult exactly .5 (mult = 0.5).
    x = np.array([[[[1, 3, 5, -1, -3, -5]]]], dtype=np.int8)
    w = np.ones((1, 1, 1, 1), dtype=np.int8)
    out.append(qlinear_conv_case("qlinear_conv_ties", x, scalar(0.5, F32), scalar(0, np.int8), w, scalar(1.0, F32),
                                 scalar(0, np.int8), scalar(1.0, F32), scalar(0, np.int8), None))
    # Saturation at both ends of i8 and u8.
    x = np.array([[[[-128, 127, 0, 100, -100]]]], dtype=np.int8)
    w = np.array([[[[127]]]], dtype=np.int8)
    for ydt in (np.int8, np.uint8):
        out.append(qlinear_conv_case("qlinear_conv_saturate_%s" % ydt.__name__, x, scalar(1.0, F32),
                                     scalar(0, np.int8), w, scalar(0.05, F32), scalar(0, np.int8), scalar(1.0, F32),
                                     scalar(3, ydt), None))
    # Permuted (NHWC-stored) input.
    xs_ = rand_q(np.uint8, (1, 6, 5, 7))
    xv = xs_.transpose(0, 3, 1, 2)
    w = rand_q(np.int8, (4, 7, 3, 3))
    out.append(qlinear_conv_case("qlinear_conv_permuted_input", xs_, scalar(0.03, F32), scalar(128, np.uint8), w,
                                 RNG.uniform(0.001, 0.01, 4).astype(F32), np.zeros(4, dtype=np.int8),
                                 scalar(0.2, F32), scalar(128, np.uint8), None, pads=[(1, 1), (1, 1)],
                                 perms=[[0, 3, 1, 2]] + [None] * 7, xv=xv))
    # Errors.
    x = rand_q(np.uint8, (1, 4, 5, 5))
    w = rand_q(np.int8, (3, 4, 3, 3))
    base = [x, scalar(0.1, F32), scalar(0, np.uint8), w, scalar(0.1, F32), scalar(0, np.int8), scalar(0.1, F32),
            scalar(0, np.uint8)]
    spec = [("u8", [1, 3, 3, 3])]

    def with_(i, v, extra=()):
        ins = list(base)
        ins[i] = v
        return ins + list(extra)

    out.append(case("qlinear_conv_w_scale_length", "qlinear_conv",
                    [x, scalar(0.1, F32), scalar(0, np.uint8), w, np.ones(2, dtype=F32), np.zeros(2, dtype=np.int8),
                     scalar(0.1, F32), scalar(0, np.uint8)],
                    error="w_scale has 2 entries; expected 1 (per tensor) or 3 (one per output channel)",
                    out_specs=spec))
    out.append(case("qlinear_conv_x_scale_per_channel", "qlinear_conv",
                    [x, np.ones(4, dtype=F32), np.zeros(4, dtype=np.uint8)] + base[3:],
                    error="x_scale must be per tensor", out_specs=spec))
    out.append(case("qlinear_conv_w_zero_point_dtype", "qlinear_conv", with_(5, scalar(0, np.uint8)),
                    error="w_zero_point must have dtype i8 (w's), got u8", out_specs=spec))
    out.append(case("qlinear_conv_bias_dtype", "qlinear_conv", with_(0, x, [np.zeros(3, dtype=F32)]),
                    error="bias must be i32, got f32", out_specs=spec))
    out.append(case("qlinear_conv_bias_shape", "qlinear_conv", with_(0, x, [np.zeros(4, dtype=np.int32)]),
                    error="bias must have shape [3] (output channels), got [4]", out_specs=spec))
    out.append(case("qlinear_conv_groups", "qlinear_conv", base, attrs={"groups": 2},
                    error="groups 2 must divide both the input channels 4 and the output channels 3",
                    out_specs=spec))
    return out


# ---- matmuls -----------------------------------------------------------------------------


def matmul_int_ref(a, b, azp=0, bzp=0):
    """numpy matmul of (a - azp[row]) and (b - bzp[col]) in int64."""
    az = np.asarray(azp, dtype=np.int64)
    bz = np.asarray(bzp, dtype=np.int64)
    ad = a.astype(np.int64) - (az.reshape(-1, 1) if az.ndim == 1 and az.size > 1 else az.reshape(()))
    bd = b.astype(np.int64) - (bz.reshape(-1) if bz.ndim == 1 and bz.size > 1 else bz.reshape(()))
    return np.matmul(ad, bd)


def matmul_setups():
    """(name, a shape, b shape)."""
    return [
        ("2d", (5, 7), (7, 6)),
        ("batch_broadcast", (2, 3, 4, 9), (3, 9, 5)),
        ("b_broadcast", (3, 4, 6), (6, 2)),
        ("a_vector", (6,), (2, 6, 3)),
        ("b_vector", (2, 4, 6), (6,)),
        # K crosses the kernel's K tile (256), N its column tile (128), M its row tile (64).
        ("large", (70, 300), (300, 130)),
    ]


def matmul_integer_cases():
    out = []
    for i, (name, ash, bsh) in enumerate(matmul_setups()):
        adt = np.uint8 if i % 2 == 0 else np.int8
        bdt = np.int8 if i % 3 else np.uint8
        a = rand_q(adt, ash)
        b = rand_q(bdt, bsh)
        m = ash[-2] if len(ash) > 1 else 1
        n = bsh[-1] if len(bsh) > 1 else 1
        azp = rand_q(adt, (m,)) if i % 2 == 1 and len(ash) > 1 else rand_q(adt, ())
        bzp = rand_q(bdt, (n,)) if i % 2 == 0 and len(bsh) > 1 else rand_q(bdt, ())
        out.append(case("matmul_integer_%s" % name, "matmul_integer", [a, b, azp, bzp],
                        outputs=[matmul_int_ref(a, b, azp, bzp).astype(np.int32)]))
    a = rand_q(np.uint8, (3, 4))
    b = rand_q(np.uint8, (4, 2))
    out.append(case("matmul_integer_no_zero_points", "matmul_integer", [a, b],
                    outputs=[matmul_int_ref(a, b).astype(np.int32)]))
    out.append(case("matmul_integer_a_zero_point_only", "matmul_integer", [a, b, scalar(12, np.uint8)],
                    outputs=[matmul_int_ref(a, b, 12).astype(np.int32)]))
    # ONNX's own example: a_zero_point 12, no b zero point.
    a = np.array([[11, 7, 3], [10, 6, 2], [9, 5, 1], [8, 4, 0]], dtype=np.uint8)
    b = np.array([[1, 4], [2, 5], [3, 6]], dtype=np.uint8)
    out.append(case("matmul_integer_onnx_example", "matmul_integer", [a, b, scalar(12, np.uint8), scalar(0, np.uint8)],
                    outputs=[np.array([[-38, -83], [-44, -98], [-50, -113], [-56, -128]], dtype=np.int32)]))
    # Transposed operands.
    a = rand_q(np.int8, (6, 4))
    b = rand_q(np.int8, (5, 6))
    out.append(case("matmul_integer_transposed", "matmul_integer", [a, b, scalar(3, np.int8), scalar(-1, np.int8)],
                    perms=[[1, 0], [1, 0], None, None],
                    outputs=[matmul_int_ref(a.T, b.T, 3, -1).astype(np.int32)]))
    # a's batch and rows as one matrix against a 2-D b (the kernel multiplies
    # them as one GEMM where the layout allows): one-row batch entries (a
    # decoder's [T, 1, K] activations), a permuted view whose one-row entries
    # are K apart, a view whose batch entries are not one run of rows, and a
    # per-row zero point that must stay per batch entry's row.
    b = rand_q(np.int8, (40, 70))
    a = rand_q(np.uint8, (66, 1, 40))
    out.append(case("matmul_integer_one_row_batches", "matmul_integer", [a, b, scalar(131, np.uint8), scalar(-5, np.int8)],
                    outputs=[matmul_int_ref(a, b, 131, -5).astype(np.int32)]))
    a = rand_q(np.uint8, (1, 6, 40))
    out.append(case("matmul_integer_one_row_batches_view", "matmul_integer", [a, b, scalar(7, np.uint8)],
                    perms=[[1, 0, 2], None, None],
                    outputs=[matmul_int_ref(a.transpose(1, 0, 2), b, 7).astype(np.int32)]))
    a = rand_q(np.uint8, (3, 5, 40))
    out.append(case("matmul_integer_batch_view", "matmul_integer", [a, b, scalar(7, np.uint8)],
                    perms=[[1, 0, 2], None, None],
                    outputs=[matmul_int_ref(a.transpose(1, 0, 2), b, 7).astype(np.int32)]))
    a = rand_q(np.int8, (4, 3, 40))
    azp = rand_q(np.int8, (3,))
    out.append(case("matmul_integer_batch_per_row_zero_point", "matmul_integer", [a, b, azp],
                    outputs=[matmul_int_ref(a, b, azp).astype(np.int32)]))
    # Errors.
    a = rand_q(np.uint8, (3, 4))
    b = rand_q(np.int8, (4, 2))
    out.append(case("matmul_integer_b_zero_point_length", "matmul_integer",
                    [a, b, scalar(0, np.uint8), np.zeros(3, dtype=np.int8)],
                    error="b_zero_point has 3 entries; expected 1 (per tensor) or 2 (one per column of b)",
                    out_specs=[("i32", [3, 2])]))
    out.append(case("matmul_integer_zero_point_dtype", "matmul_integer", [a, b, scalar(0, np.int8)],
                    error="a_zero_point must have dtype u8 (a's), got i8", out_specs=[("i32", [3, 2])]))
    out.append(case("matmul_integer_contracted", "matmul_integer", [a, rand_q(np.int8, (5, 2))],
                    error="contracted dims differ", out_specs=[("i32", [3, 2])]))
    return out


def qlinear_matmul_ref(a, asc, azp, b, bsc, bzp, ysc, yzp):
    acc = matmul_int_ref(a, b, azp, bzp)
    n = acc.shape[-1] if b.ndim > 1 else 1
    mult = (F32(asc) * np.broadcast_to(bsc.astype(F32).reshape(-1), (n,)) / F32(ysc)).astype(F32)
    if b.ndim == 1:
        mult = mult.reshape(())
    return requantize(acc.astype(np.int32), mult, yzp, yzp.dtype.type)


def qlinear_matmul_cases():
    out = []
    for i, (name, ash, bsh) in enumerate(matmul_setups()):
        adt = np.uint8 if i % 2 == 0 else np.int8
        bdt = np.int8 if i % 3 else np.uint8
        ydt = np.uint8 if i % 2 else np.int8
        a = rand_q(adt, ash)
        b = rand_q(bdt, bsh)
        k = ash[-1]
        n = bsh[-1] if len(bsh) > 1 else 1
        per_col = i % 2 == 0 and len(bsh) > 1
        bsc = RNG.uniform(0.002, 0.02, size=(n,)).astype(F32) if per_col else scalar(0.01, F32)
        bzp = rand_q(bdt, (n,)) if per_col else rand_q(bdt, ())
        asc, azp = scalar(0.05, F32), rand_q(adt, ())
        ysc = scalar(0.05 * 0.01 * 128 * np.sqrt(k) * 0.6, F32)
        yzp = rand_q(ydt, ())
        out.append(case("qlinear_matmul_%s" % name, "qlinear_matmul", [a, asc, azp, b, bsc, bzp, ysc, yzp],
                        outputs=[qlinear_matmul_ref(a, asc, azp, b, bsc, bzp, ysc, yzp)]))
    # ONNX's own example (u8, per tensor).
    a = np.array([[208, 236, 0, 238], [3, 214, 255, 29]], dtype=np.uint8)
    b = np.array([[152, 51, 244], [60, 26, 255], [0, 127, 246], [127, 254, 247]], dtype=np.uint8)
    ins = [a, scalar(0.0066, F32), scalar(113, np.uint8), b, scalar(0.00705, F32), scalar(114, np.uint8),
           scalar(0.0107, F32), scalar(118, np.uint8)]
    out.append(case("qlinear_matmul_onnx_example", "qlinear_matmul", ins,
                    outputs=[np.array([[168, 115, 255], [1, 66, 151]], dtype=np.uint8)]))
    # One-row batch entries against a 2-D b (one GEMM over the batch).
    a = rand_q(np.uint8, (66, 1, 40))
    b = rand_q(np.int8, (40, 70))
    ins = [a, scalar(0.05, F32), scalar(120, np.uint8), b, RNG.uniform(0.002, 0.02, size=(70,)).astype(F32),
           np.zeros(70, dtype=np.int8), scalar(0.05 * 0.01 * 128 * np.sqrt(40) * 0.6, F32), scalar(3, np.int8)]
    out.append(case("qlinear_matmul_one_row_batches", "qlinear_matmul", ins, outputs=[qlinear_matmul_ref(*ins)]))
    # Errors.
    a = rand_q(np.uint8, (3, 4))
    b = rand_q(np.int8, (4, 2))
    out.append(case("qlinear_matmul_a_per_row", "qlinear_matmul",
                    [a, np.ones(3, dtype=F32), np.zeros(3, dtype=np.uint8), b, scalar(1.0, F32), scalar(0, np.int8),
                     scalar(1.0, F32), scalar(0, np.uint8)],
                    error="a_scale must be per tensor", out_specs=[("u8", [3, 2])]))
    out.append(case("qlinear_matmul_b_scale_length", "qlinear_matmul",
                    [a, scalar(1.0, F32), scalar(0, np.uint8), b, np.ones(4, dtype=F32), np.zeros(4, dtype=np.int8),
                     scalar(1.0, F32), scalar(0, np.uint8)],
                    error="b_scale has 4 entries; expected 1 (per tensor) or 2 (one per column of b)",
                    out_specs=[("u8", [3, 2])]))
    out.append(case("qlinear_matmul_y_zero_point_dtype", "qlinear_matmul",
                    [a, scalar(1.0, F32), scalar(0, np.uint8), b, scalar(1.0, F32), scalar(0, np.int8),
                     scalar(1.0, F32), scalar(0, np.int32)],
                    error="y_zero_point must be i8 or u8, got i32", out_specs=[("u8", [3, 2])]))
    return out


def empty_cases():
    """Empty tensors: K = 0 sums to nothing (the requantized zero point), no rows or no elements."""
    out = []
    a = np.zeros((3, 0), dtype=np.uint8)
    b = np.zeros((0, 2), dtype=np.int8)
    out.append(case("matmul_integer_k0", "matmul_integer", [a, b, scalar(5, np.uint8), scalar(1, np.int8)],
                    outputs=[np.zeros((3, 2), dtype=np.int32)]))
    ins = [a, scalar(0.5, F32), scalar(5, np.uint8), b, scalar(0.5, F32), scalar(1, np.int8), scalar(1.0, F32),
           scalar(9, np.uint8)]
    out.append(case("qlinear_matmul_k0", "qlinear_matmul", ins, outputs=[np.full((3, 2), 9, dtype=np.uint8)]))
    a = np.zeros((0, 4), dtype=np.uint8)
    b = rand_q(np.int8, (4, 2))
    out.append(case("matmul_integer_m0", "matmul_integer", [a, b], outputs=[np.zeros((0, 2), dtype=np.int32)]))
    x = np.zeros((0, 3), dtype=F32)
    out.append(case("quantize_empty", "quantize_linear", [x, np.ones(3, dtype=F32), np.zeros(3, dtype=np.int8)],
                    outputs=[np.zeros((0, 3), dtype=np.int8)]))
    x = np.zeros((0, 2, 5, 5), dtype=np.uint8)
    w = rand_q(np.int8, (3, 2, 3, 3))
    out.append(case("conv_integer_batch0", "conv_integer", [x, w], outputs=[np.zeros((0, 3, 3, 3), dtype=np.int32)]))
    return out


def cases():
    return (quantize_cases() + dequantize_cases() + dynamic_cases() + conv_integer_cases() + qlinear_conv_cases() +
            matmul_integer_cases() + qlinear_matmul_cases() + empty_cases())

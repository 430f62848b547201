"""Cases of the com.microsoft quantized kernels (src/kernels/quantized_ms.cpp):
qlinear_add, qlinear_mul, qlinear_avg_pool, qlinear_sigmoid and
qlinear_leaky_relu, against numpy written from ONNX Runtime 1.30's MLAS
algorithms as the kernel file's header states them (f32 steps, fused
multiply-adds where MLAS writes them, round half to even, saturation).
tests/cli/microsoft_quantized_test.sh compares the same operators with
ONNX Runtime itself."""
import numpy as np

from common import case

F32 = np.float32
F64 = np.float64
RNG = np.random.default_rng(3201)


def scalar(v, dt):
    return np.array(v, dtype=dt)


def rne_i32(v):
    """x86's cvtps2dq: nearest even; outside int32 (or NaN) gives INT32_MIN."""
    v = np.asarray(v, dtype=F32).astype(F64)
    out = np.full(v.shape, -2 ** 31, dtype=np.int64)
    ok = (v >= -2.0 ** 31) & (v < 2.0 ** 31)
    out[ok] = np.rint(v[ok]).astype(np.int64)
    return out


def fma(a, b, c):
    """f32 fused multiply-add (the product is exact in f64 for these operands)."""
    return (np.asarray(a, F32).astype(F64) * np.asarray(b, F32).astype(F64) + np.asarray(c, F32).astype(F64)).astype(F32)


def limits(dt):
    info = np.iinfo(dt)
    return int(info.min), int(info.max)


def qadd_ref(a, sa, za, b, sb, zb, sy, zy, dt):
    rac, rbc = F32(F32(sa) / F32(sy)), F32(F32(sb) / F32(sy))
    fixed = F32(F32(zy) - F32(F32(rac * F32(za)) + F32(rbc * F32(zb))))
    A, B = np.broadcast_arrays(a.astype(F32), b.astype(F32))
    shape = A.shape
    # ONNX Runtime hands MLAS rows along the last dim: an operand that is
    # one value along a row (broadcast there) is folded into the constant.
    last = shape[-1] if shape else 1
    a_row = a.shape[-1] if a.ndim else 1
    b_row = b.shape[-1] if b.ndim else 1
    if b_row == 1 and a_row == last and last > 1:
        r = fma(A, rac, F32(fixed + F32(B * rbc)))
    elif a_row == 1 and b_row == last and last > 1:
        r = fma(B, rbc, F32(fixed + F32(A * rac)))
    else:
        r = fma(A, rac, fma(B, rbc, np.full(shape, fixed, F32)))
    lo, hi = limits(dt)
    return np.clip(rne_i32(r), lo, hi).astype(dt)


def qmul_ref(a, sa, za, b, sb, zb, sy, zy, dt):
    ratio = F32(F32(F32(sa) * F32(sb)) / F32(sy))
    prod = (a.astype(np.int64) - za) * (b.astype(np.int64) - zb)
    r = F32(prod.astype(F32) * ratio) + F32(zy)
    lo, hi = limits(dt)
    return np.clip(rne_i32(r.astype(F32)), lo, hi).astype(dt)


def binary_cases():
    out = []
    for dt in (np.uint8, np.int8):
        lo, hi = limits(dt)
        shift = lo
        vals = np.arange(lo, hi + 1).astype(dt)
        for k, (sa, za, sb, zb, sy, zy) in enumerate([(0.05, 128, 0.03, 100, 0.07, 120),
                                                       (1.0, 0, 1.0, 0, 2.0, 0),
                                                       (0.0123, 7, 0.456, 250, 0.1, 3)]):
            za, zb, zy = za + shift, zb + shift, zy + shift
            # Every pair again through the kernels' vectorized row loops: both
            # operands varying along rows (row i pairs vals rotated by i with
            # vals), and a contiguous a with one b value per row.
            forms = [("pairs", vals.reshape(256, 1), vals.reshape(1, 256)),
                     ("pairs_rows", np.stack([np.roll(vals, -i) for i in range(256)]), vals.reshape(1, 256)),
                     ("pairs_row_b", vals.reshape(1, 256), vals.reshape(256, 1)),
                     ("scalar_b", RNG.integers(lo, hi + 1, (3, 17)).astype(dt), scalar(RNG.integers(lo, hi + 1), dt)),
                     ("same", RNG.integers(lo, hi + 1, (2, 3, 5)).astype(dt),
                      RNG.integers(lo, hi + 1, (2, 3, 5)).astype(dt))]
            for form, a, b in forms:
                params = [scalar(sa, F32), scalar(za, dt), scalar(sb, F32), scalar(zb, dt), scalar(sy, F32),
                          scalar(zy, dt)]
                ins = [a, params[0], params[1], b, params[2], params[3], params[4], params[5]]
                name = "%s_s%d_%s" % (np.dtype(dt).name, k, form)
                out.append(case("qlinear_add_" + name, "qlinear_add", ins,
                                outputs=[qadd_ref(a, sa, za, b, sb, zb, sy, zy, dt)]))
                out.append(case("qlinear_mul_" + name, "qlinear_mul", ins,
                                outputs=[qmul_ref(a, sa, za, b, sb, zb, sy, zy, dt)]))
    a = np.zeros((2, 2), np.uint8)
    out.append(case("qlinear_add_zero_point_dtype", "qlinear_add",
                    [a, scalar(1.0, F32), scalar(0, np.int8), a, scalar(1.0, F32), scalar(0, np.uint8),
                     scalar(1.0, F32), scalar(0, np.uint8)],
                    error="a_zero_point must be one u8 value", out_specs=[("u8", [2, 2])]))
    return out


def avg_pool_ref(x, sx, zx, sy, zy, kernel, stride, pads, count_include_pad, dt):
    nd = len(kernel)
    spatial = x.shape[2:]
    lo_, hi_ = limits(dt)
    if all(k == s for k, s in zip(kernel, spatial)) and not any(pads):
        n = int(np.prod(spatial))
        acc = x.reshape(x.shape[0], x.shape[1], -1).astype(np.int64).sum(-1) - zx * n
        scale = F32(F32(sx) / F32(F32(sy) * F32(n)))
        r = np.clip(rne_i32(acc.astype(F32) * scale), lo_ - zy, hi_ - zy) + zy
        return r.reshape(x.shape[:2] + (1,) * nd).astype(dt)
    outs = [(spatial[i] + pads[i] + pads[nd + i] - kernel[i]) // stride[i] + 1 for i in range(nd)]
    deq = (F32(sx) * (x.astype(np.int64) - zx).astype(F32)).astype(F32)
    y = np.zeros(x.shape[:2] + tuple(outs), dt)
    for n in range(x.shape[0]):
        for c in range(x.shape[1]):
            for idx in np.ndindex(*outs):
                lo = [max(idx[i] * stride[i] - pads[i], 0) for i in range(nd)]
                hi = [min(idx[i] * stride[i] - pads[i] + kernel[i], spatial[i]) for i in range(nd)]
                s = F32(0)
                for p in np.ndindex(*[hi[i] - lo[i] for i in range(nd)]):
                    s = F32(s + deq[(n, c) + tuple(lo[i] + p[i] for i in range(nd))])
                count = int(np.prod(kernel)) if count_include_pad else int(np.prod([hi[i] - lo[i] for i in range(nd)]))
                q = F32(F32(F32(s / F32(count)) / F32(sy)) + F32(zy))
                y[(n, c) + idx] = np.clip(np.rint(F64(q)), lo_, hi_)
    return y


def pool_cases():
    out = []
    configs = [("k3s2p1", (1, 2, 7, 7), [3, 3], [2, 2], [1, 1, 1, 1], False),
               ("k3s2p1_incl", (1, 2, 7, 7), [3, 3], [2, 2], [1, 1, 1, 1], True),
               ("1d", (2, 2, 9), [4], [3], [1, 2], False),
               ("global", (2, 3, 5, 5), [5, 5], [1, 1], [0, 0, 0, 0], False)]
    for dt in (np.uint8, np.int8):
        lo, hi = limits(dt)
        for name, shape, kernel, stride, pads, incl in configs:
            x = RNG.integers(lo, hi + 1, shape).astype(dt)
            sx, zx, sy, zy = 0.0172, lo + 3, 0.0123, lo + 250
            out.append(case("qlinear_avg_pool_%s_%s" % (np.dtype(dt).name, name), "qlinear_avg_pool",
                            [x, scalar(sx, F32), scalar(zx, dt), scalar(sy, F32), scalar(zy, dt)],
                            attrs={"kernel_size": kernel, "stride": stride, "padding": pads,
                                   "count_include_pad": incl},
                            outputs=[avg_pool_ref(x, sx, zx, sy, zy, kernel, stride, pads, incl, dt)]))
    return out


ALPHAS = [2.48287947061529e-01, 8.51377133304701e-03, 6.08574864600143e-05, 1.15627324459942e-07, 4.37031012579801e-11]
BETAS = [9.93151921023180e-01, 1.16817656904453e-01, 1.70198817374094e-03, 6.29106785017040e-06,
         5.76102136993427e-09, 6.10247389755681e-13]


def mlas_logistic(v):
    """MLAS's FMA3 logistic kernel (Eigen's rational approximation)."""
    v = np.clip(v.astype(F32), F32(-18), F32(18))
    x2 = F32(v * v)
    p = fma(x2, F32(ALPHAS[4]), F32(ALPHAS[3]))
    for a in (ALPHAS[2], ALPHAS[1], ALPHAS[0]):
        p = fma(x2, p, F32(a))
    q = fma(x2, F32(BETAS[5]), F32(BETAS[4]))
    for b in (BETAS[3], BETAS[2], BETAS[1], BETAS[0]):
        q = fma(x2, q, F32(b))
    p = F32(v * p)
    return np.maximum(F32(0), F32(F32(p / q) + F32(0.5)))


def lut_ref(x, sx, zx, sy, zy, fn, dt):
    lo, hi = limits(dt)
    v = (F32(sx) * (x.astype(np.int64) - zx).astype(F32)).astype(F32)
    f = fn(v).astype(F32)
    c = np.minimum(F32(hi - zy), np.maximum(F32(lo - zy), (f / F32(sy)).astype(F32)))
    return (rne_i32(c) + zy).astype(dt)


def lut_cases():
    out = []
    for dt in (np.uint8, np.int8):
        lo, hi = limits(dt)
        x = np.arange(lo, hi + 1).astype(dt).reshape(16, 16)
        for k, (sx, zx, sy, zy) in enumerate([(0.05, 128, 1.0 / 256, 0), (0.1, 100, 0.004, 10)]):
            zx, zy = zx + lo, zy + lo
            params = [x, scalar(sx, F32), scalar(zx, dt), scalar(sy, F32), scalar(zy, dt)]
            name = "%s_s%d" % (np.dtype(dt).name, k)
            out.append(case("qlinear_sigmoid_" + name, "qlinear_sigmoid", params,
                            outputs=[lut_ref(x, sx, zx, sy, zy, mlas_logistic, dt)]))
            for alpha in (0.01, 0.3):
                leaky = lambda v, a=alpha: np.where(v >= 0, v, (F32(a) * v).astype(F32)).astype(F32)
                out.append(case("qlinear_leaky_relu_%s_alpha%g" % (name, alpha), "qlinear_leaky_relu", params,
                                attrs={"alpha": alpha}, outputs=[lut_ref(x, sx, zx, sy, zy, leaky, dt)]))
    return out


def cases():
    return binary_cases() + pool_cases() + lut_cases()

"""Cases for grid_sample (ONNX GridSample, 2-D and 3-D).

The reference is written from ONNX's operator spec with ONNX Runtime's
arithmetic: a normalized location n maps to (n + 1) / 2 * (size - 1) with
align_corners, else ((n + 1) * size - 1) / 2; nearest rounds half to even;
in nearest and linear mode, a location outside [lo, hi] (0, size - 1 with
align_corners, else -0.5, size - 0.5) is clamped to [0, size - 1] (border)
or reflected at lo and hi (reflection), while cubic mode keeps it (ONNX
Runtime 1.30's models/onnx_newer/gridsample_cubic_* cases show it); pixels outside the input are 0 (zeros), the edge pixel
(border) or reflected (reflection); linear weights the 2^d neighbours,
cubic the 4x4 with Keys' a = -0.75.
"""
import itertools
import math

import numpy as np

from common import case

rng = np.random.default_rng(16)


def reflect(x, lo, hi):
    rng_ = hi - lo
    if rng_ <= 0:
        return lo
    if x < lo:
        dx = lo - x
        n = int(dx / rng_)
        r = dx - n * rng_
        return lo + r if n % 2 == 0 else hi - r
    if x > hi:
        dx = x - hi
        n = int(dx / rng_)
        r = dx - n * rng_
        return hi - r if n % 2 == 0 else lo + r
    return x


def cubic_coeffs(t):
    a = -0.75
    t = abs(t)
    return [((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
            ((a + 2) * t - (a + 3)) * t * t + 1,
            ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
            ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a]


def grid_sample_ref(x, grid, mode, padding, align):
    """x [N, C, *spatial], grid [N, *out, d] (innermost axis first in its last dim).
    Locations are computed in the kernel's arithmetic (f32 for f32 and f16,
    f64 for f64), so that those landing on .5 round as in the kernel."""
    ft = np.float64 if x.dtype == np.float64 else np.float32
    x = x.astype(np.float64)
    d = x.ndim - 2
    sizes = list(x.shape[2:])[::-1]  # innermost first
    lo = [0.0 if align else -0.5] * d
    hi = [(s - 1.0) if align else (s - 0.5) for s in sizes]
    out_shape = grid.shape[1:-1]
    y = np.zeros(x.shape[:2] + out_shape)

    def pixel(img, q):
        idx = []
        for a in range(d):
            v = q[a]
            if v < 0 or v >= sizes[a]:
                if padding == "zeros":
                    return np.zeros(img.shape[0])
                if padding == "border":
                    v = min(max(v, 0), sizes[a] - 1)
                else:
                    v = min(max(int(reflect(float(v), lo[a], hi[a])), 0), sizes[a] - 1)
            idx.append(v)
        return img[(slice(None),) + tuple(idx[::-1])]

    for n in range(x.shape[0]):
        for p in itertools.product(*[range(s) for s in out_shape]):
            g = grid[(n,) + p].astype(ft)
            loc = []
            for a in range(d):
                s, one, two = ft(sizes[a]), ft(1), ft(2)
                v = (g[a] + one) / two * (s - one) if align else ((g[a] + one) * s - one) / two
                if mode == "nearest":
                    v = np.rint(v)
                loc.append(float(v))
            if mode != "cubic" and any(loc[a] < lo[a] or loc[a] > hi[a] for a in range(d)):
                for a in range(d):
                    if padding == "border":
                        loc[a] = min(max(loc[a], 0.0), sizes[a] - 1.0)
                    elif padding == "reflection":
                        loc[a] = reflect(loc[a], lo[a], hi[a])
            img = x[n]
            if mode == "nearest":
                v = pixel(img, [int(l) for l in loc])
            elif mode == "linear":
                base = [math.floor(l) for l in loc]
                v = 0
                for corner in itertools.product([0, 1], repeat=d):
                    w = 1.0
                    for a in range(d):
                        w *= (loc[a] - base[a]) if corner[a] else (base[a] + 1 - loc[a])
                    v = v + w * pixel(img, [base[a] + corner[a] for a in range(d)])
            else:
                x0, y0 = math.floor(loc[0]) - 1, math.floor(loc[1]) - 1
                cx, cy = cubic_coeffs(loc[0] - x0 - 1), cubic_coeffs(loc[1] - y0 - 1)
                v = 0
                for h in range(4):
                    row = sum(cx[w] * pixel(img, [x0 + w, y0 + h]) for w in range(4))
                    v = v + cy[h] * row
            y[(n, slice(None)) + p] = v
    return y


def gs_case(name, x, grid, mode="linear", padding="zeros", align=False, dtype=np.float32, atol=1e-5, perms=None):
    xv = x if perms is None or perms[0] is None else x.transpose(perms[0])
    gv = grid if perms is None or perms[1] is None else grid.transpose(perms[1])
    y = grid_sample_ref(xv.astype(dtype), gv.astype(dtype), mode, padding, align)
    return case(name, "grid_sample", inputs=[x.astype(dtype), grid.astype(dtype)],
                attrs={"mode": mode, "padding_mode": padding, "align_corners": align},
                outputs=[y.astype(dtype)], perms=perms, atol=atol, rtol=atol)


def cases():
    out = []
    x = rng.standard_normal((2, 3, 5, 6)).astype(np.float32)
    grid = rng.uniform(-1.3, 1.3, size=(2, 4, 7, 2)).astype(np.float32)
    # Exact pixel centres and half-way points test the rounding of nearest.
    grid[0, 0, :, 0] = np.linspace(-1, 1, 7)
    grid[0, 1, :, :] = [[-1, -1], [1, 1], [-0.5, 0.5], [0.2, -0.2], [0, 0], [-3.2, 2.5], [4.1, -5.0]]
    for mode in ("linear", "nearest", "cubic"):
        for padding in ("zeros", "border", "reflection"):
            for align in (False, True):
                out.append(gs_case(f"grid_sample_{mode}_{padding}_{'align' if align else 'noalign'}", x, grid,
                                   mode, padding, align))
    x3 = rng.standard_normal((1, 2, 3, 4, 5)).astype(np.float32)
    grid3 = rng.uniform(-1.2, 1.2, size=(1, 2, 3, 4, 3)).astype(np.float32)
    for mode in ("linear", "nearest"):
        for padding in ("zeros", "border", "reflection"):
            out.append(gs_case(f"grid_sample_3d_{mode}_{padding}", x3, grid3, mode, padding, True))
            out.append(gs_case(f"grid_sample_3d_{mode}_{padding}_noalign", x3, grid3, mode, padding, False))
    out.append(gs_case("grid_sample_f64", x, grid, "cubic", "border", dtype=np.float64))
    out.append(gs_case("grid_sample_f16", x, grid, "linear", "reflection", dtype=np.float16, atol=4e-3))
    xt = np.ascontiguousarray(x.transpose(0, 1, 3, 2))
    out.append(gs_case("grid_sample_strided", xt, grid, "linear", "border", perms=[[0, 1, 3, 2], None]))
    out.append(gs_case("grid_sample_one_pixel", x[:, :, :1, :1], grid, "linear", "reflection", True))
    out.append(case("grid_sample_cubic_3d", "grid_sample", inputs=[x3, grid3], attrs={"mode": "cubic"}, outputs=[],
                    error="cubic mode is for 2-D inputs", out_specs=[("f32", [1, 2, 2, 3, 4])]))
    out.append(case("grid_sample_bad_grid", "grid_sample", inputs=[x, grid[..., :1]], outputs=[],
                    error="expected a grid [2, ..., 2] of rank 4", out_specs=[("f32", [2, 3, 4, 7])]))
    return out

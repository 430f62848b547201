"""Cases for upsample_nearest and upsample_bilinear (NCL / NCHW, PyTorch semantics).

The references follow torch 1.13's index arithmetic (aten/native/UpSample.h):
nearest takes src = min(floor(dst * float(in / out)), in - 1) in float32 (with
the exact 1x and 2x cases special-cased, as torch does); linear/bilinear uses
a float32 scale but a float64 source coordinate, and rounds the weights to
float32. With align_corners corner pixels map onto each other; without it
pixel centres are aligned (half-pixel) and the source coordinate is clamped at 0.
"""
import numpy as np

from common import case, lift, lifted_f64, lifted_size, unlift

F16_TOL = dict(atol=2e-3, rtol=2e-3)


def nearest_src(dst, n_in, n_out):
    if n_out == n_in:
        return dst
    if n_out == 2 * n_in:
        return dst >> 1
    scale = np.float32(n_in) / np.float32(n_out)
    return min(int(np.floor(np.float32(dst) * scale)), n_in - 1)


def linear_tap(dst, n_in, n_out, align_corners):
    # torch 1.13: float scale, source coordinate in double, weight rounded to float.
    if n_in == n_out:
        return dst, dst, 1.0, 0.0
    if align_corners:
        scale = np.float32(n_in - 1) / np.float32(n_out - 1) if n_out > 1 else np.float32(0)
        src = float(scale) * dst
    else:
        scale = np.float32(n_in) / np.float32(n_out)
        src = max(float(scale) * (dst + 0.5) - 0.5, 0.0)
    i0 = int(src)
    i1 = i0 + 1 if i0 < n_in - 1 else i0
    l1 = np.float32(src - i0)
    return i0, i1, float(np.float32(1) - l1), float(l1)


def nearest_ref(x, output_size):
    nd, osz = lifted_size(x, output_size)
    x4 = lift(x)
    h, w = x4.shape[2:]
    ys = [nearest_src(i, h, osz[0]) for i in range(osz[0])]
    xs = [nearest_src(j, w, osz[1]) for j in range(osz[1])]
    out = x4[:, :, ys][:, :, :, xs]
    return unlift(out, nd)


def bilinear_ref(x, output_size, align_corners):
    nd, osz, x4, out = lifted_f64(x, output_size)
    h, w = x4.shape[2:]
    for i in range(osz[0]):
        y0, y1, ly0, ly1 = linear_tap(i, h, osz[0], align_corners)
        for j in range(osz[1]):
            x0, x1, lx0, lx1 = linear_tap(j, w, osz[1], align_corners)
            out[:, :, i, j] = (ly0 * (lx0 * x4[:, :, y0, x0] + lx1 * x4[:, :, y0, x1]) +
                               ly1 * (lx0 * x4[:, :, y1, x0] + lx1 * x4[:, :, y1, x1]))
    out = out.astype(x.dtype)
    return unlift(out, nd)


def cases():
    rng = np.random.default_rng(777)

    def randn(*shape, dtype=np.float32):
        return rng.standard_normal(shape).astype(dtype)

    out = []

    def add_nearest(name, x, size, perm=None, x_view=None):
        xl = x if x_view is None else x_view
        out.append(case(name, 'upsample_nearest', inputs=[x], attrs={'output_size': list(size)},
                        outputs=[nearest_ref(xl, size)], perms=None if perm is None else [perm]))

    add_nearest('nearest2d_2x', randn(2, 3, 4, 5), [8, 10])
    add_nearest('nearest2d_3x', randn(1, 2, 3, 4), [9, 12])
    add_nearest('nearest2d_non_integer_up', randn(1, 2, 5, 7), [8, 11])
    add_nearest('nearest2d_non_integer_up_large', randn(1, 1, 7, 13), [37, 29])
    add_nearest('nearest2d_down', randn(2, 2, 9, 8), [4, 3])
    add_nearest('nearest2d_mixed', randn(1, 2, 6, 3), [3, 10])
    add_nearest('nearest2d_identity', randn(1, 2, 3, 4), [3, 4])
    add_nearest('nearest2d_f16', randn(1, 2, 3, 5, dtype=np.float16), [7, 9])
    x_nhwc = randn(2, 3, 4, 5)
    add_nearest('nearest2d_nhwc_view', x_nhwc, [7, 6], perm=[0, 3, 1, 2], x_view=x_nhwc.transpose(0, 3, 1, 2))
    add_nearest('nearest2d_empty_batch', randn(0, 2, 3, 3), [6, 6])
    add_nearest('nearest2d_zero_output', randn(1, 2, 3, 3), [0, 6])
    add_nearest('nearest2d_wide_rows', randn(1, 1, 2, 300), [3, 700])
    add_nearest('nearest2d_large_parallel', randn(2, 8, 32, 32), [64, 96])
    add_nearest('nearest1d_2x', randn(2, 3, 6), [12])
    add_nearest('nearest1d_non_integer', randn(2, 3, 7), [10])
    add_nearest('nearest1d_down', randn(2, 3, 10), [3])
    x_nlc = randn(2, 5, 3)
    add_nearest('nearest1d_nlc_view', x_nlc, [9], perm=[0, 2, 1], x_view=x_nlc.transpose(0, 2, 1))

    def add_bilinear(name, x, size, align_corners, perm=None, x_view=None, tol=None):
        xl = x if x_view is None else x_view
        out.append(case(name, 'upsample_bilinear', inputs=[x],
                        attrs={'output_size': list(size), 'align_corners': align_corners},
                        outputs=[bilinear_ref(xl, size, align_corners)],
                        perms=None if perm is None else [perm], **(tol or {})))

    add_bilinear('bilinear2d_2x', randn(2, 3, 4, 5), [8, 10], False)
    add_bilinear('bilinear2d_2x_align_corners', randn(2, 3, 4, 5), [8, 10], True)
    add_bilinear('bilinear2d_non_integer', randn(1, 2, 5, 7), [8, 11], False)
    add_bilinear('bilinear2d_non_integer_align_corners', randn(1, 2, 5, 7), [8, 11], True)
    add_bilinear('bilinear2d_down', randn(1, 2, 9, 8), [4, 3], False)
    add_bilinear('bilinear2d_down_align_corners', randn(1, 2, 9, 8), [4, 3], True)
    add_bilinear('bilinear2d_one_height_identity_width', randn(1, 2, 5, 4), [1, 4], True)
    add_bilinear('bilinear2d_from_single_pixel', randn(1, 2, 1, 1), [3, 4], False)
    add_bilinear('bilinear2d_f16', randn(1, 2, 3, 4, dtype=np.float16), [6, 7], False, tol=F16_TOL)
    x_nhwc2 = randn(1, 4, 3, 3)
    add_bilinear('bilinear2d_nhwc_view', x_nhwc2, [7, 5], True, perm=[0, 3, 1, 2],
                 x_view=x_nhwc2.transpose(0, 3, 1, 2))
    add_bilinear('bilinear2d_empty_batch', randn(0, 2, 3, 3), [6, 6], False)
    add_bilinear('bilinear2d_wide_rows', randn(1, 1, 2, 300), [3, 700], False)
    add_bilinear('bilinear2d_large_parallel', randn(2, 8, 32, 32), [64, 64], False)
    add_bilinear('linear1d', randn(2, 3, 6), [13], False)
    add_bilinear('linear1d_align_corners', randn(2, 3, 6), [13], True)
    add_bilinear('linear1d_down', randn(2, 3, 11), [4], False)
    x_nlc2 = randn(2, 6, 3)
    add_bilinear('linear1d_nlc_view', x_nlc2, [10], False, perm=[0, 2, 1], x_view=x_nlc2.transpose(0, 2, 1))

    def resize_error(name, op, x, attrs, error, dtype='f32'):
        out.append(case(name, op, inputs=[x], attrs=attrs, outputs=[], error=error, out_specs=[(dtype, [1])]))

    resize_error('nearest_error_rank', 'upsample_nearest', randn(2, 3, 4), {'output_size': [4, 4]},
                 'upsample_nearest: a 2-d output_size needs a rank-4 input (N, C, spatial...), got shape [2, 3, 4]')
    resize_error('nearest_error_int', 'upsample_nearest', rng.integers(0, 9, (1, 1, 2, 2)).astype(np.int64),
                 {'output_size': [4, 4]}, 'upsample_nearest: expected an f32 or f16 input, got i64', dtype='i64')
    resize_error('nearest_error_missing_size', 'upsample_nearest', randn(1, 1, 2, 2), {},
                 "upsample_nearest: 'output_size' must be an int list with 1 or 2 entries, got none")
    resize_error('nearest_error_negative_size', 'upsample_nearest', randn(1, 1, 2, 2), {'output_size': [4, -4]},
                 "upsample_nearest: 'output_size' entries must be in [0, ")
    resize_error('bilinear_error_empty_input', 'upsample_bilinear', randn(1, 1, 0, 2), {'output_size': [4, 4]},
                 'upsample_bilinear: cannot resize an empty spatial dim of input [1, 1, 0, 2] to output_size [4, 4]')
    resize_error('bilinear_error_output_dtype', 'upsample_bilinear', randn(1, 1, 2, 2), {'output_size': [4, 4]},
                 "upsample_bilinear: output dtype must match the input's f32, got f16", dtype='f16')
    resize_error('bilinear_error_too_many_sizes', 'upsample_bilinear', randn(1, 1, 2, 2, 2),
                 {'output_size': [4, 4, 4]},
                 "upsample_bilinear: 'output_size' must be an int list with 1 or 2 entries, got 3 entries")
    return out

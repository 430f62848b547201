"""Cases for upsample_nearest, upsample_bilinear (NCL / NCHW, PyTorch semantics)
and resize (ONNX Resize in every mode).

The upsample references follow torch 1.13's index arithmetic
(aten/native/UpSample.h): nearest takes src = min(floor(dst * float(in / out)),
in - 1) in float32 (with the exact 1x and 2x cases special-cased, as torch
does); linear/bilinear uses a float32 scale but a float64 source coordinate,
and rounds the weights to float32. With align_corners corner pixels map onto
each other; without it pixel centres are aligned (half-pixel) and the source
coordinate is clamped at 0.

The resize reference is written from the ONNX Resize specification (opsets
11-19), axis by axis in float64:
- an output coordinate maps to the input coordinate x_original by
  coordinate_transformation_mode, with scale = output length / input length
  as the node gives it (a given scale, not out / in) and length_resized =
  scale * input length;
- nearest takes the input index nearest_mode rounds x_original to;
- linear and cubic weigh every input index j by the filter at
  |j - x_original| (the triangle, or Keys' cubic with coefficient a); with
  antialias the filter is stretched by 1 / scale when downscaling and the
  weights renormalized; exclude_outside drops the indices outside the input
  and renormalizes; other indices outside the input read the edge element;
- in tf_crop_and_resize, an output whose x_original falls outside the input
  on any axis is extrapolation_value.
Applying the axes one after another is the same sum as the tensor product
of their weights.
"""
import math

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

# ---- resize (ONNX) -------------------------------------------------------------

def onnx_source_coordinate(coord, o, n_in, n_out, scale, roi_start, roi_end):
    """x_original of output coordinate o (ONNX's coordinate_transformation_mode)."""
    length = scale * n_in  # length_resized, a real number
    if coord == 'half_pixel':
        return (o + 0.5) / scale - 0.5
    if coord == 'half_pixel_symmetric':
        offset = n_in / 2 * (1 - n_out / length)
        return offset + (o + 0.5) / scale - 0.5
    if coord == 'pytorch_half_pixel':
        return (o + 0.5) / scale - 0.5 if length > 1 else 0.0
    if coord == 'align_corners':
        return 0.0 if length == 1 else o * (n_in - 1) / (length - 1)
    if coord == 'asymmetric':
        return o / scale
    if coord == 'tf_half_pixel_for_nn':
        return (o + 0.5) / scale
    if coord == 'tf_crop_and_resize':
        if length > 1:
            return roi_start * (n_in - 1) + o * (roi_end - roi_start) * (n_in - 1) / (length - 1)
        return 0.5 * (roi_start + roi_end) * (n_in - 1)
    raise ValueError(coord)


def onnx_nearest(x, nearest_mode):
    lo = math.floor(x)
    frac = x - lo
    if frac == 0:
        return lo
    return {
        'round_prefer_floor': lo if frac <= 0.5 else lo + 1,
        'round_prefer_ceil': lo if frac < 0.5 else lo + 1,
        'floor': lo,
        'ceil': lo + 1,
    }[nearest_mode]


def onnx_filter(mode, d, a):
    if mode == 'linear':
        return max(0.0, 1.0 - d)
    if d <= 1:
        return (a + 2) * d ** 3 - (a + 3) * d ** 2 + 1
    if d < 2:
        return a * d ** 3 - 5 * a * d ** 2 + 8 * a * d - 4 * a
    return 0.0


def onnx_axis_weights(n_in, n_out, scale, roi, p):
    """The (n_out, n_in) weights of one axis and the outputs that fall outside
    the input (tf_crop_and_resize)."""
    w = np.zeros((n_out, n_in))
    outside = np.zeros(n_out, dtype=bool)
    for o in range(n_out):
        x = onnx_source_coordinate(p['coordinate_transformation_mode'], o, n_in, n_out, scale, *roi)
        if p['coordinate_transformation_mode'] == 'tf_crop_and_resize' and not 0 <= x <= n_in - 1:
            outside[o] = True
            continue
        if p['mode'] == 'nearest':
            w[o, min(max(onnx_nearest(x, p['nearest_mode']), 0), n_in - 1)] = 1
            continue
        stretch = min(scale, 1.0) if p['antialias'] else 1.0
        reach = math.ceil((1 if p['mode'] == 'linear' else 2) / stretch) + 1
        lo = math.floor(x)
        taps = []
        for j in range(lo - reach, lo + reach + 2):
            weight = onnx_filter(p['mode'], abs(j - x) * stretch, p['cubic_coeff_a'])
            if p['exclude_outside'] and not 0 <= j < n_in:
                weight = 0.0
            taps.append((j, weight))
        total = sum(weight for _, weight in taps)
        norm = 1 / total if (p['antialias'] or p['exclude_outside']) and total != 0 else 1.0
        for j, weight in taps:
            w[o, min(max(j, 0), n_in - 1)] += weight * norm
    return w, outside


RESIZE_DEFAULTS = dict(mode='nearest', coordinate_transformation_mode='half_pixel',
                       nearest_mode='round_prefer_floor', cubic_coeff_a=-0.75, exclude_outside=False,
                       extrapolation_value=0.0, antialias=False)


def resize_ref(x, axes, sizes, scales=None, roi=None, **attrs):
    """ONNX Resize of `x`: axes[i] to sizes[i] elements, coordinates mapped with
    scales[i] (default sizes[i] / input size); roi holds the starts, then the
    ends, of the axes."""
    p = dict(RESIZE_DEFAULTS, **attrs)
    y = x.astype(np.float64)
    masks = []
    for i, (a, n_out) in enumerate(zip(axes, sizes)):
        n_in = x.shape[a]
        scale = scales[i] if scales is not None else n_out / max(n_in, 1)
        r = (roi[i], roi[len(axes) + i]) if roi is not None else (0.0, 1.0)
        w, out_a = onnx_axis_weights(n_in, n_out, scale, r, p)
        y = np.moveaxis(np.tensordot(w, np.moveaxis(y, a, 0), axes=1), 0, a)
        shape = [1] * x.ndim
        shape[a] = n_out
        masks.append(out_a.reshape(shape))
    outside = np.zeros(y.shape, dtype=bool)
    for m in masks:
        outside = outside | m
    y[outside] = p['extrapolation_value']
    return y.astype(x.dtype)


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

    # ---- resize (ONNX) ----

    def add_resize(name, x, axes, sizes, scales=None, roi=None, perm=None, tol=None, **attrs):
        xv = x if perm is None else x.transpose(perm)
        a = {'axes': list(axes), 'output_size': list(sizes)}
        if scales is not None:
            a['scales'] = [float(s) for s in scales]
        if roi is not None:
            a['roi'] = [float(r) for r in roi]
        a.update(attrs)
        out.append(case('resize_' + name, 'resize', inputs=[x], attrs=a,
                        outputs=[resize_ref(xv, axes, sizes, scales, roi, **attrs)],
                        perms=None if perm is None else [perm], **(tol or {})))

    # nearest: every nearest_mode where the coordinates land on .5 (asymmetric
    # x2, align_corners 4 -> 7) and off it (half_pixel, non-integer scales).
    for nm in ('round_prefer_floor', 'round_prefer_ceil', 'floor', 'ceil'):
        add_resize('nearest_asymmetric_x2_' + nm, randn(1, 2, 3, 4), [2, 3], [6, 8],
                   mode='nearest', coordinate_transformation_mode='asymmetric', nearest_mode=nm)
        add_resize('nearest_align_corners_' + nm, randn(1, 2, 4, 4), [2, 3], [7, 7],
                   mode='nearest', coordinate_transformation_mode='align_corners', nearest_mode=nm)
        add_resize('nearest_half_pixel_non_integer_' + nm, randn(1, 2, 5, 7), [2, 3], [8, 4], scales=[1.7, 0.6],
                   mode='nearest', coordinate_transformation_mode='half_pixel', nearest_mode=nm)
    for coord in ('half_pixel_symmetric', 'pytorch_half_pixel', 'tf_half_pixel_for_nn'):
        add_resize('nearest_' + coord, randn(2, 3, 5, 6), [2, 3], [7, 4], scales=[1.5, 0.7],
                   mode='nearest', coordinate_transformation_mode=coord)
    add_resize('nearest_default_modes', randn(1, 1, 4, 4), [2, 3], [3, 7])
    add_resize('nearest_tf_crop_and_resize', randn(1, 2, 6, 5), [2, 3], [4, 5], roi=[0.1, -0.2, 0.9, 1.3],
               mode='nearest', coordinate_transformation_mode='tf_crop_and_resize', nearest_mode='round_prefer_ceil',
               extrapolation_value=-7.0)

    # linear in every coordinate mode, up and down, scales that are not out / in.
    for coord in ('half_pixel', 'half_pixel_symmetric', 'pytorch_half_pixel', 'align_corners', 'asymmetric',
                  'tf_half_pixel_for_nn'):
        add_resize('linear_up_' + coord, randn(1, 2, 4, 5), [2, 3], [9, 8], mode='linear',
                   coordinate_transformation_mode=coord)
        add_resize('linear_down_scales_' + coord, randn(1, 2, 9, 8), [2, 3], [5, 3], scales=[0.6, 0.45],
                   mode='linear', coordinate_transformation_mode=coord)
    add_resize('linear_pytorch_half_pixel_to_one', randn(1, 2, 4, 6), [2, 3], [3, 1], mode='linear',
               coordinate_transformation_mode='pytorch_half_pixel')
    add_resize('linear_align_corners_to_one', randn(1, 2, 4, 6), [2, 3], [1, 2], mode='linear',
               coordinate_transformation_mode='align_corners')
    add_resize('linear_tf_crop_and_resize', randn(1, 1, 4, 4), [2, 3], [3, 3],
               roi=[0.4, 0.6, 1.2, 1.7], mode='linear', coordinate_transformation_mode='tf_crop_and_resize',
               extrapolation_value=10.0)
    add_resize('linear_tf_crop_and_resize_scales', randn(2, 3, 6, 7), [2, 3], [4, 9], scales=[0.7, 1.3],
               roi=[0.0, 0.25, 0.8, 1.0], mode='linear', coordinate_transformation_mode='tf_crop_and_resize')
    add_resize('linear_tf_crop_and_resize_to_one', randn(1, 2, 5, 5), [2, 3], [1, 4],
               roi=[0.2, 0.0, 0.6, 1.0], mode='linear', coordinate_transformation_mode='tf_crop_and_resize')

    # cubic: both usual coefficients, with and without exclude_outside.
    for a_name, a in (('a075', -0.75), ('a05', -0.5)):
        for excl in (False, True):
            tag = a_name + ('_exclude_outside' if excl else '')
            add_resize('cubic_up_' + tag, randn(1, 2, 4, 4), [2, 3], [8, 8], mode='cubic', cubic_coeff_a=a,
                       exclude_outside=excl)
            add_resize('cubic_down_scales_' + tag, randn(1, 2, 7, 9), [2, 3], [5, 7], scales=[0.8, 0.8],
                       mode='cubic', cubic_coeff_a=a, exclude_outside=excl)
    for coord in ('align_corners', 'asymmetric', 'pytorch_half_pixel', 'half_pixel_symmetric'):
        add_resize('cubic_' + coord, randn(1, 2, 5, 6), [2, 3], [9, 4], scales=[1.9, 0.75], mode='cubic',
                   coordinate_transformation_mode=coord)
    add_resize('cubic_tf_crop_and_resize_exclude_outside', randn(1, 2, 6, 6), [2, 3], [5, 4],
               roi=[0.1, -0.1, 0.9, 0.7], mode='cubic', coordinate_transformation_mode='tf_crop_and_resize',
               exclude_outside=True, extrapolation_value=2.5)

    # antialias: a stretched filter when downscaling, none when upscaling.
    for mode in ('linear', 'cubic'):
        add_resize('antialias_%s_half' % mode, randn(1, 2, 8, 8), [2, 3], [4, 4], mode=mode, antialias=True)
        add_resize('antialias_%s_non_integer' % mode, randn(1, 2, 10, 9), [2, 3], [6, 4], scales=[0.6, 0.45],
                   mode=mode, antialias=True)
        add_resize('antialias_%s_exclude_outside' % mode, randn(1, 1, 9, 11), [2, 3], [3, 5], mode=mode,
                   antialias=True, exclude_outside=True, coordinate_transformation_mode='align_corners')
        add_resize('antialias_%s_upscale' % mode, randn(1, 2, 3, 4), [2, 3], [7, 9], mode=mode, antialias=True)
    add_resize('antialias_cubic_many_taps', randn(1, 1, 3, 200), [3], [5], mode='cubic', antialias=True,
               tol=dict(atol=1e-4, rtol=1e-4))
    add_resize('antialias_nearest_ignored', randn(1, 1, 8, 8), [2, 3], [3, 3], mode='nearest', antialias=True)

    # Any axes: not only the trailing ones, any rank.
    add_resize('axis0_only', randn(4, 3, 5), [0], [7], mode='linear')
    add_resize('axes_0_2', randn(4, 3, 5), [0, 2], [2, 9], mode='cubic')
    add_resize('middle_axis_nhwc', randn(2, 5, 4, 3), [1, 2], [8, 6], mode='linear',
               coordinate_transformation_mode='align_corners')
    add_resize('rank1', randn(6), [0], [10], mode='cubic', coordinate_transformation_mode='asymmetric')
    add_resize('rank5_trilinear', randn(1, 2, 3, 4, 5), [2, 3, 4], [5, 3, 8], mode='linear')
    add_resize('rank8_all_axes', randn(2, 1, 2, 1, 3, 1, 2, 3), list(range(8)), [3, 2, 1, 2, 4, 1, 3, 2],
               mode='linear')
    add_resize('no_axes', randn(2, 3), [], [], mode='cubic')
    add_resize('scalar', np.array(1.5, dtype=np.float32), [], [])
    add_resize('strided_nhwc_view', randn(1, 5, 6, 3), [2, 3], [9, 4], perm=[0, 3, 1, 2], mode='cubic')
    add_resize('f16_linear', randn(1, 2, 5, 6, dtype=np.float16), [2, 3], [7, 4], mode='linear', tol=F16_TOL)
    add_resize('f16_cubic_antialias', randn(1, 2, 9, 6, dtype=np.float16), [2, 3], [4, 6], mode='cubic',
               antialias=True, tol=F16_TOL)
    add_resize('empty_batch', randn(0, 2, 3, 3), [2, 3], [5, 5], mode='linear')
    add_resize('zero_output', randn(1, 2, 3, 3), [2, 3], [0, 5], mode='linear')
    add_resize('empty_axis_to_empty', randn(1, 2, 0, 3), [2, 3], [0, 5], mode='cubic')
    # output_size -1: the axis is sized when the kernel runs, floor(in * scale)
    # (a symbolic dim resized by a scale): 5 * 0.6 -> 3, 7 * 2.5 -> 17.
    def add_by_scale(name, x, axes, scales, **attrs):
        sizes = [int(math.floor(x.shape[a] * s)) for a, s in zip(axes, scales)]
        a = {'axes': list(axes), 'output_size': [-1] * len(axes), 'scales': [float(s) for s in scales]}
        a.update(attrs)
        out.append(case('resize_by_scale_' + name, 'resize', inputs=[x], attrs=a,
                        outputs=[resize_ref(x, axes, sizes, scales, **attrs)]))

    add_by_scale('nearest', randn(1, 2, 5, 7), [2, 3], [0.6, 2.5])
    add_by_scale('linear', randn(2, 3, 5, 7), [2, 3], [0.6, 2.5], mode='linear')
    add_by_scale('cubic_one_axis', randn(1, 2, 6, 4), [2], [2.0], mode='cubic', coordinate_transformation_mode='asymmetric')

    add_resize('wide_rows', randn(1, 1, 2, 300), [2, 3], [3, 1100], mode='cubic')
    add_resize('large_parallel', randn(2, 8, 32, 32), [2, 3], [48, 80], mode='cubic', exclude_outside=True)
    add_resize('large_parallel_one_row', randn(1, 3000), [1], [70001], mode='linear')

    def resize_err(name, x, attrs, error, dtype='f32', capacity=1 << 20):
        out.append(case('resize_error_' + name, 'resize', inputs=[x], attrs=attrs, outputs=[], error=error,
                        out_specs=[(dtype, [1], capacity)]))

    x4 = randn(1, 1, 4, 4)
    resize_err('axes_order', x4, {'axes': [3, 2], 'output_size': [2, 2]},
               "resize: expected 'axes' to be increasing axes of the rank-4 input, got [3, 2]")
    resize_err('axis_range', x4, {'axes': [4], 'output_size': [2]},
               "resize: expected 'axes' to be increasing axes of the rank-4 input, got [4]")
    resize_err('missing_axes', x4, {'output_size': [2]}, "resize: expected attribute 'axes' to be int[], got none")
    resize_err('sizes_count', x4, {'axes': [2, 3], 'output_size': [2]},
               "resize: expected 2 entries in 'output_size' (one per axis), got 1")
    resize_err('scales_count', x4, {'axes': [2, 3], 'output_size': [2, 2], 'scales': [0.5]},
               "resize: expected 2 entries in 'scales' (one per axis), got 1")
    resize_err('scales_positive', x4, {'axes': [2, 3], 'output_size': [2, 2], 'scales': [0.5, 0.0]},
               "resize: expected 'scales' entries > 0, got 0.000000 for axis 3")
    resize_err('scales_finite', x4, {'axes': [2], 'output_size': [2], 'scales': [float('inf')]},
               "resize: expected finite entries in 'scales', got inf")
    resize_err('roi_count', x4, {'axes': [2, 3], 'output_size': [2, 2], 'roi': [0.0, 1.0]},
               "resize: expected 4 entries in 'roi' (the starts, then the ends, of each axis), got 2")
    resize_err('negative_size', x4, {'axes': [2], 'output_size': [-1]},
               "resize: expected 'output_size' entries >= 0, or -1 (floor(size * scale)) with 'scales', got [-1]")
    resize_err('negative_size_with_scales', x4, {'axes': [2], 'output_size': [-2], 'scales': [2.0]},
               "resize: expected 'output_size' entries >= 0, or -1 (floor(size * scale)) with 'scales', got [-2]")
    resize_err('empty_axis', randn(1, 1, 0, 4), {'axes': [2], 'output_size': [3]},
               'resize: cannot resize the empty axis 2 of input [1, 1, 0, 4] to 3')
    resize_err('mode', x4, {'axes': [2], 'output_size': [3], 'mode': 'bicubic'},
               "resize: expected attribute mode to be one of 'nearest', 'linear', 'cubic', got 'bicubic'")
    resize_err('coordinate_mode', x4, {'axes': [2], 'output_size': [3], 'coordinate_transformation_mode': 'center'},
               "resize: expected attribute coordinate_transformation_mode to be one of 'half_pixel'")
    resize_err('antialias_taps', randn(1, 1, 1, 500), {'axes': [3], 'output_size': [4], 'mode': 'cubic',
                                                       'antialias': True},
               'resize: antialias at scale 0.008000 on axis 3 needs 500.000000 taps per output, more than the 256')
    resize_err('int_input', rng.integers(0, 9, (1, 1, 2, 2)).astype(np.int64), {'axes': [2], 'output_size': [4]},
               'resize: expected an f32 or f16 input, got i64', dtype='i64')
    resize_err('output_dtype', x4, {'axes': [2], 'output_size': [4]},
               "resize: output dtype must match the input's f32, got f16", dtype='f16')
    resize_err('output_capacity', x4, {'axes': [2, 3], 'output_size': [40, 40]},
               'output of shape [1, 1, 40, 40] needs 6400 bytes, only 4096 available', capacity=4096)
    return out

"""Cases for max_pool, avg_pool and adaptive_avg_pool (NCL / NCHW / NCDHW, PyTorch semantics), and
max_pool_with_indices (ONNX MaxPool with its Indices output).

The references loop over output positions and clip each window to the input,
written from torch's definitions: the ceil_mode rule (the last window must
start inside the input or the left padding), avg_pool's divisor (padded
positions count when count_include_pad, the ceil_mode overhang never does)
and adaptive pooling's floor/ceil window bounds. avg_pool's dilation is ONNX
AveragePool's (opset 19; torch has none): the window's elements lie
`dilation` apart, and the divisor counts those of them inside the input (or,
with count_include_pad, inside the input or its padding).
"""
import itertools

import numpy as np

from common import case, flat_pads, given, lifted_f64, unlift

F16_TOL = dict(atol=2e-3, rtol=2e-3)


def pooled_size(n, k, s, pb, pe, d, ceil_mode):
    out = (n + pb + pe - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= n + pb:
        out -= 1
    return out


def window_axes(x, kernel, stride, pads, dilation, ceil_mode):
    """Per spatial axis of x, per output index: (the input positions of the
    window that lie inside the input, how many lie inside the input or its
    padding)."""
    nd = x.ndim - 2
    stride = list(stride or kernel)
    dilation = list(dilation or [1] * nd)
    pads = list(pads or [(0, 0)] * nd)
    axes = []
    for a in range(nd):
        size, k, s, d, (pb, pe) = x.shape[2 + a], kernel[a], stride[a], dilation[a], pads[a]
        windows = []
        for o in range(pooled_size(size, k, s, pb, pe, d, ceil_mode)):
            positions = [o * s - pb + t * d for t in range(k)]
            windows.append(([q for q in positions if 0 <= q < size], sum(1 for q in positions if q < size + pe)))
        axes.append(windows)
    return axes


def max_pool_ref(x, kernel, stride=None, pads=None, dilation=None, ceil_mode=False):
    axes = window_axes(x, kernel, stride, pads, dilation, ceil_mode)
    if np.issubdtype(x.dtype, np.floating):
        lowest = -np.inf
    else:
        lowest = np.iinfo(x.dtype).min
    out = np.full(x.shape[:2] + tuple(len(w) for w in axes), lowest,
                  dtype=np.float64 if x.dtype == np.float16 else x.dtype)
    for o in itertools.product(*[range(len(w)) for w in axes]):
        inside = [axes[a][o[a]][0] for a in range(len(axes))]
        if all(inside):
            win = x[np.ix_(range(x.shape[0]), range(x.shape[1]), *inside)]
            out[(slice(None), slice(None)) + o] = win.max(axis=tuple(range(2, x.ndim)))  # NaN propagates, as in torch
    return out.astype(x.dtype)


def avg_pool_ref(x, kernel, stride=None, pads=None, ceil_mode=False, count_include_pad=True, dilation=None):
    axes = window_axes(x, kernel, stride, pads, dilation, ceil_mode)
    xd = x.astype(np.float64)
    out = np.zeros(x.shape[:2] + tuple(len(w) for w in axes))
    for o in itertools.product(*[range(len(w)) for w in axes]):
        inside = [axes[a][o[a]][0] for a in range(len(axes))]
        if not all(inside):
            continue  # torch writes 0 for a window that is all padding
        padded = [axes[a][o[a]][1] for a in range(len(axes))]
        div = np.prod(padded) if count_include_pad else np.prod([len(i) for i in inside])
        win = xd[np.ix_(range(x.shape[0]), range(x.shape[1]), *inside)]
        out[(slice(None), slice(None)) + o] = win.sum(axis=tuple(range(2, x.ndim))) / div
    return out.astype(x.dtype)


def adaptive_avg_pool_ref(x, output_size):
    nd, osz, x4, out = lifted_f64(x, output_size)
    h, w = x4.shape[2:]
    for i in range(osz[0]):
        h0, h1 = (i * h) // osz[0], -((-(i + 1) * h) // osz[0])
        for j in range(osz[1]):
            w0, w1 = (j * w) // osz[1], -((-(j + 1) * w) // osz[1])
            out[:, :, i, j] = x4[:, :, h0:h1, w0:w1].mean(axis=(2, 3))
    out = out.astype(x.dtype)
    return unlift(out, nd)


def padding_attr(attrs_pad, pads):
    """The padding attribute as attrs_pad gives it, or else flattened from pads."""
    return attrs_pad if attrs_pad is not None else None if pads is None else flat_pads(pads)


def cases():
    rng = np.random.default_rng(4321)

    def randn(*shape, dtype=np.float32):
        return rng.standard_normal(shape).astype(dtype)

    def randint(lo, hi, *shape, dtype):
        return rng.integers(lo, hi, shape).astype(dtype)

    out = []

    # --- max_pool ------------------------------------------------------------------
    def add_max(name, x, kernel, stride=None, pads=None, dilation=None, ceil_mode=None, attrs_pad=None,
                stride_attr=None, perm=None, x_view=None, tol=None):
        stride_list = stride_attr if stride_attr is not None else None if stride is None else list(stride)
        attrs = {'kernel_size': list(kernel),
                 **given(stride=stride_list, padding=padding_attr(attrs_pad, pads),
                         dilation=None if dilation is None else list(dilation), ceil_mode=ceil_mode)}
        xl = x if x_view is None else x_view
        expected = max_pool_ref(xl, kernel, stride, pads, dilation, bool(ceil_mode))
        out.append(case(name, 'max_pool', inputs=[x], attrs=attrs, outputs=[expected],
                        perms=None if perm is None else [perm], **(tol or {})))

    add_max('max_pool2d_resnet_stem', randn(2, 3, 11, 12), [3, 3], [2, 2], [(1, 1), (1, 1)], attrs_pad=[1, 1])
    add_max('max_pool2d_2x2_default_stride', randn(1, 2, 6, 8), [2, 2])
    add_max('max_pool2d_empty_stride_list', randn(1, 2, 6, 6), [3, 3], stride_attr=[])
    add_max('max_pool2d_stride1', randn(2, 2, 5, 6), [2, 3], [1, 1])
    add_max('max_pool2d_ceil_mode', randn(1, 3, 6, 7), [3, 3], [2, 2], ceil_mode=True)
    add_max('max_pool2d_ceil_mode_off', randn(1, 3, 6, 7), [3, 3], [2, 2], ceil_mode=False)
    # Here ceil would add a window starting in the right padding; torch drops it.
    add_max('max_pool2d_ceil_mode_last_window_rule', randn(1, 2, 5, 5), [2, 2], [2, 2], [(1, 1), (1, 1)],
            ceil_mode=True, attrs_pad=[1, 1])
    add_max('max_pool2d_dilation2', randn(1, 2, 9, 8), [3, 2], [1, 2], [(1, 1), (1, 1)], dilation=[2, 3],
            attrs_pad=[1, 1])
    add_max('max_pool2d_asymmetric_pads', randn(2, 2, 5, 6), [3, 3], [2, 2], [(0, 2), (1, 0)])
    add_max('max_pool2d_all_negative_with_padding', -np.abs(randn(1, 2, 4, 4)) - 1, [3, 3], [1, 1],
            [(1, 1), (1, 1)], attrs_pad=[1, 1])
    nan_x = randn(1, 2, 4, 4)
    nan_x[0, 0, 1, 2] = np.nan
    nan_x[0, 1, 3, 3] = np.nan
    add_max('max_pool2d_nan_propagates', nan_x, [2, 2], [1, 1])
    add_max('max_pool2d_f16', randn(2, 3, 7, 7, dtype=np.float16), [3, 3], [2, 2], [(1, 1), (1, 1)],
            attrs_pad=[1, 1])
    add_max('max_pool2d_i32', randint(-1000, 1000, 2, 2, 6, 5, dtype=np.int32), [3, 2], [2, 1],
            [(1, 1), (0, 0)], attrs_pad=[1, 0])
    add_max('max_pool2d_i64', randint(-2**40, 2**40, 1, 3, 5, 5, dtype=np.int64), [2, 2], [2, 2], ceil_mode=True)
    add_max('max_pool2d_i8', randint(-128, 128, 1, 2, 4, 6, dtype=np.int8), [2, 3], [2, 3])
    add_max('max_pool2d_u8', randint(0, 256, 1, 2, 5, 5, dtype=np.uint8), [3, 3], [1, 1], [(1, 1), (1, 1)],
            attrs_pad=[1, 1])
    x_nhwc = randn(2, 7, 6, 3)
    add_max('max_pool2d_nhwc_view', x_nhwc, [3, 3], [2, 2], [(1, 1), (1, 1)], attrs_pad=[1, 1],
            perm=[0, 3, 1, 2], x_view=x_nhwc.transpose(0, 3, 1, 2))
    add_max('max_pool2d_empty_batch', randn(0, 3, 6, 6), [2, 2])
    add_max('max_pool2d_empty_channels', randn(2, 0, 6, 6), [3, 3], [2, 2])
    add_max('max_pool2d_large_parallel', randn(2, 16, 40, 40), [3, 3], [2, 2], [(1, 1), (1, 1)], attrs_pad=[1, 1])
    # Padding wider than the window (ONNX allows it, torch does not): windows
    # wholly inside the padding give the lowest value, as torch's -inf start.
    add_max('max_pool1d_window_in_padding', randn(1, 2, 2), [2], [2], [(2, 2)], attrs_pad=[2])
    add_max('max_pool1d_window_in_padding_i32', randint(-9, 9, 1, 2, 2, dtype=np.int32), [2], [2], [(2, 2)],
            attrs_pad=[2])
    add_max('max_pool1d', randn(2, 3, 11), [3], [2], [(1, 1)], attrs_pad=[1])
    add_max('max_pool1d_ceil_dilation', randn(2, 2, 12), [2], [3], [(1, 1)], dilation=[2], ceil_mode=True,
            attrs_pad=[1])
    add_max('max_pool1d_i64', randint(-50, 50, 2, 3, 9, dtype=np.int64), [4], [2], ceil_mode=True)
    x_nlc = randn(2, 10, 3)
    add_max('max_pool1d_nlc_view', x_nlc, [3], [1], perm=[0, 2, 1], x_view=x_nlc.transpose(0, 2, 1))
    # 3-d (N, C, D, H, W): every axis its own stride, dilation and pads.
    add_max('max_pool3d_k3_s2_pad1', randn(2, 3, 6, 7, 8), [3, 3, 3], [2, 2, 2], [(1, 1), (1, 1), (1, 1)],
            attrs_pad=[1, 1, 1])
    add_max('max_pool3d_default_stride', randn(1, 2, 4, 6, 5), [2, 2, 2])
    add_max('max_pool3d_dilation_ceil_asymmetric', randn(1, 2, 7, 8, 9), [2, 3, 2], [2, 1, 3],
            [(1, 0), (0, 1), (1, 1)], dilation=[2, 1, 2], ceil_mode=True)
    add_max('max_pool3d_ceil_last_window_rule', randn(1, 2, 5, 5, 5), [2, 2, 2], [2, 2, 2],
            [(1, 1), (1, 1), (1, 1)], ceil_mode=True, attrs_pad=[1, 1, 1])
    add_max('max_pool3d_depth_only', randn(2, 2, 6, 3, 4), [3, 1, 1], [1, 1, 1], [(1, 1), (0, 0), (0, 0)])
    add_max('max_pool3d_f16', randn(1, 3, 5, 6, 6, dtype=np.float16), [3, 3, 3], [2, 2, 2],
            [(1, 1), (1, 1), (1, 1)], attrs_pad=[1, 1, 1])
    add_max('max_pool3d_i32', randint(-1000, 1000, 2, 2, 4, 5, 6, dtype=np.int32), [2, 3, 2], [1, 2, 2],
            [(0, 1), (1, 1), (0, 0)])
    add_max('max_pool3d_u8', randint(0, 256, 1, 2, 4, 4, 4, dtype=np.uint8), [2, 2, 2], [2, 2, 2])
    x_ndhwc = randn(1, 4, 5, 6, 3)
    add_max('max_pool3d_ndhwc_view', x_ndhwc, [2, 3, 3], [2, 1, 2], [(0, 0), (1, 1), (1, 1)], attrs_pad=[0, 1, 1],
            perm=[0, 4, 1, 2, 3], x_view=x_ndhwc.transpose(0, 4, 1, 2, 3))
    add_max('max_pool3d_empty_batch', randn(0, 2, 4, 4, 4), [2, 2, 2])
    add_max('max_pool3d_large_parallel', randn(2, 8, 12, 20, 20), [3, 3, 3], [2, 2, 2], [(1, 1), (1, 1), (1, 1)],
            attrs_pad=[1, 1, 1])

    def pool_error(name, op, x, attrs, error, dtype='f32'):
        out.append(case(name, op, inputs=[x], attrs=attrs, outputs=[], error=error, out_specs=[(dtype, [1])]))

    pool_error('max_pool_error_window_too_large', 'max_pool', randn(1, 2, 3, 3), {'kernel_size': [4, 4]},
               'max_pool: window [4, 4] (dilation [1, 1]) does not fit the input [1, 2, 3, 3]')
    pool_error('max_pool_error_rank', 'max_pool', randn(2, 3, 8), {'kernel_size': [2, 2]},
               'max_pool: a 2-d window needs a rank-4 input (N, C, spatial...), got shape [2, 3, 8]')
    pool_error('max_pool_error_no_kernel_size', 'max_pool', randn(1, 2, 4, 4), {},
               "max_pool: 'kernel_size' must be an int list with 1 to 3 entries, got none")
    pool_error('max_pool_error_4d_window', 'max_pool', randn(1, 1, 2, 2, 2, 2), {'kernel_size': [1, 1, 1, 1]},
               "max_pool: 'kernel_size' must be an int list with 1 to 3 entries, got 4 entries")
    pool_error('max_pool_error_3d_window_rank', 'max_pool', randn(1, 2, 4, 4), {'kernel_size': [2, 2, 2]},
               'max_pool: a 3-d window needs a rank-5 input (N, C, spatial...), got shape [1, 2, 4, 4]')
    pool_error('max_pool_error_kernel_zero', 'max_pool', randn(1, 2, 4, 4), {'kernel_size': [0, 2]},
               "max_pool: 'kernel_size' entries must be in [1, ")
    pool_error('max_pool_error_stride_count', 'max_pool', randn(1, 2, 4, 4), {'kernel_size': [2, 2], 'stride': [2]},
               "max_pool: expected 2 entries in 'stride' (one per spatial dim), got 1")
    pool_error('max_pool_error_bool', 'max_pool', rng.integers(0, 2, (1, 1, 4, 4)).astype(bool),
               {'kernel_size': [2, 2]}, 'max_pool: expected a float or integer input, got bool', dtype='bool')
    pool_error('max_pool_error_output_dtype', 'max_pool', randn(1, 2, 4, 4), {'kernel_size': [2, 2]},
               "max_pool: output dtype must match the input's f32, got f16", dtype='f16')

    # --- avg_pool ------------------------------------------------------------------
    def add_avg(name, x, kernel, stride=None, pads=None, ceil_mode=None, count_include_pad=None, attrs_pad=None,
                perm=None, x_view=None, tol=None, dilation=None):
        attrs = {'kernel_size': list(kernel),
                 **given(stride=None if stride is None else list(stride), padding=padding_attr(attrs_pad, pads),
                         ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                         dilation=None if dilation is None else list(dilation))}
        xl = x if x_view is None else x_view
        cip = True if count_include_pad is None else count_include_pad
        expected = avg_pool_ref(xl, kernel, stride, pads, bool(ceil_mode), cip, dilation)
        out.append(case(name, 'avg_pool', inputs=[x], attrs=attrs, outputs=[expected],
                        perms=None if perm is None else [perm], **(tol or {})))

    add_avg('avg_pool2d_2x2', randn(2, 3, 6, 8), [2, 2])
    add_avg('avg_pool2d_3x3_pad_count_include', randn(1, 2, 5, 6), [3, 3], [1, 1], [(1, 1), (1, 1)],
            attrs_pad=[1, 1])
    add_avg('avg_pool2d_3x3_pad_count_exclude', randn(1, 2, 5, 6), [3, 3], [1, 1], [(1, 1), (1, 1)],
            count_include_pad=False, attrs_pad=[1, 1])
    # The ceil_mode overhang (past the right padding) never counts in the divisor.
    add_avg('avg_pool2d_ceil_overhang_include', randn(1, 2, 6, 7), [3, 3], [2, 2], [(1, 1), (1, 1)],
            ceil_mode=True, attrs_pad=[1, 1])
    add_avg('avg_pool2d_ceil_overhang_exclude', randn(1, 2, 6, 7), [3, 3], [2, 2], [(1, 1), (1, 1)],
            ceil_mode=True, count_include_pad=False, attrs_pad=[1, 1])
    add_avg('avg_pool2d_ceil_no_pad', randn(1, 2, 7, 5), [2, 2], [2, 2], ceil_mode=True)
    add_avg('avg_pool2d_asymmetric_pads', randn(2, 2, 6, 5), [3, 2], [2, 1], [(2, 0), (0, 1)])
    add_avg('avg_pool2d_asymmetric_pads_exclude', randn(2, 2, 6, 5), [3, 2], [2, 1], [(2, 0), (0, 1)],
            count_include_pad=False)
    # Windows that lie wholly in the padding average to 0, as in torch.
    add_avg('avg_pool2d_window_in_padding', randn(1, 1, 2, 2), [2, 2], [2, 2], [(2, 2), (2, 2)],
            count_include_pad=False, attrs_pad=[2, 2])
    add_avg('avg_pool2d_f16', randn(1, 3, 6, 6, dtype=np.float16), [3, 3], [2, 2], [(1, 1), (1, 1)],
            attrs_pad=[1, 1], tol=F16_TOL)
    x_nhwc2 = randn(1, 6, 5, 4)
    add_avg('avg_pool2d_nhwc_view', x_nhwc2, [2, 2], [1, 2], perm=[0, 3, 1, 2],
            x_view=x_nhwc2.transpose(0, 3, 1, 2))
    add_avg('avg_pool2d_empty_batch', randn(0, 2, 4, 4), [2, 2])
    add_avg('avg_pool2d_large_parallel', randn(2, 16, 40, 40), [3, 3], [2, 2], [(1, 1), (1, 1)], attrs_pad=[1, 1],
            count_include_pad=False)
    add_avg('avg_pool1d', randn(2, 3, 10), [3], [2], [(1, 1)], attrs_pad=[1])
    add_avg('avg_pool1d_ceil_exclude', randn(2, 3, 10), [4], [3], [(2, 2)], ceil_mode=True,
            count_include_pad=False, attrs_pad=[2])
    add_avg('avg_pool1d_f16', randn(1, 2, 9, dtype=np.float16), [2], [2], ceil_mode=True, tol=F16_TOL)
    # 3-d.
    add_avg('avg_pool3d_k2', randn(2, 3, 4, 6, 8), [2, 2, 2])
    add_avg('avg_pool3d_pad_count_include', randn(1, 2, 5, 6, 7), [3, 3, 3], [2, 1, 2], [(1, 1), (1, 1), (1, 1)],
            attrs_pad=[1, 1, 1])
    add_avg('avg_pool3d_pad_count_exclude', randn(1, 2, 5, 6, 7), [3, 3, 3], [2, 1, 2], [(1, 1), (1, 1), (1, 1)],
            count_include_pad=False, attrs_pad=[1, 1, 1])
    add_avg('avg_pool3d_ceil_overhang_include', randn(1, 2, 6, 5, 7), [3, 2, 3], [2, 2, 2],
            [(1, 1), (0, 1), (1, 0)], ceil_mode=True)
    add_avg('avg_pool3d_ceil_overhang_exclude', randn(1, 2, 6, 5, 7), [3, 2, 3], [2, 2, 2],
            [(1, 1), (0, 1), (1, 0)], ceil_mode=True, count_include_pad=False)
    add_avg('avg_pool3d_f16', randn(1, 2, 4, 5, 6, dtype=np.float16), [2, 3, 3], [2, 1, 2],
            [(0, 0), (1, 1), (1, 1)], attrs_pad=[0, 1, 1], tol=F16_TOL)
    x_ndhwc2 = randn(2, 3, 4, 5, 3)
    add_avg('avg_pool3d_ndhwc_view', x_ndhwc2, [2, 2, 3], [1, 2, 1], perm=[0, 4, 1, 2, 3],
            x_view=x_ndhwc2.transpose(0, 4, 1, 2, 3))
    add_avg('avg_pool3d_large_parallel', randn(2, 8, 12, 20, 20), [3, 3, 3], [2, 2, 2], [(1, 1), (1, 1), (1, 1)],
            attrs_pad=[1, 1, 1], count_include_pad=False)
    # Dilated (ONNX AveragePool's dilations): window elements `dilation`
    # apart; the divisor counts those inside the input (and its padding,
    # with count_include_pad), never the ceil_mode overhang.
    add_avg('avg_pool1d_dilation2', randn(2, 3, 11), [3], [1], dilation=[2])
    add_avg('avg_pool1d_dilation3_pads_include', randn(1, 2, 10), [3], [2], [(2, 3)], dilation=[3])
    add_avg('avg_pool1d_dilation3_pads_exclude', randn(1, 2, 10), [3], [2], [(2, 3)], dilation=[3],
            count_include_pad=False)
    add_avg('avg_pool1d_dilation2_ceil_include', randn(1, 2, 9), [2], [3], [(1, 1)], dilation=[2], ceil_mode=True,
            attrs_pad=[1])
    add_avg('avg_pool2d_dilation2', randn(2, 3, 4, 5), [2, 2], [1, 1], dilation=[2, 2])
    add_avg('avg_pool2d_dilation_pads_include', randn(1, 2, 7, 8), [3, 2], [2, 1], [(1, 2), (2, 1)],
            dilation=[2, 3])
    add_avg('avg_pool2d_dilation_pads_exclude', randn(1, 2, 7, 8), [3, 2], [2, 1], [(1, 2), (2, 1)],
            dilation=[2, 3], count_include_pad=False)
    add_avg('avg_pool2d_dilation_ceil_exclude', randn(1, 2, 8, 9), [2, 3], [3, 2], [(1, 1), (1, 1)],
            dilation=[3, 2], ceil_mode=True, count_include_pad=False, attrs_pad=[1, 1])
    add_avg('avg_pool2d_dilation_ceil_include', randn(1, 2, 8, 9), [2, 3], [3, 2], [(1, 1), (1, 1)],
            dilation=[3, 2], ceil_mode=True, attrs_pad=[1, 1])
    # A window whose dilated elements all miss the input (they fall in the
    # padding on both sides of it): averages to 0.
    add_avg('avg_pool2d_dilated_window_in_padding', randn(1, 1, 3, 2), [2, 2], [1, 1], [(0, 0), (3, 4)],
            dilation=[1, 5], count_include_pad=False)
    add_avg('avg_pool2d_dilated_window_in_padding_include', randn(1, 1, 3, 2), [2, 2], [1, 1], [(0, 0), (3, 4)],
            dilation=[1, 5])
    add_avg('avg_pool2d_dilation_f16', randn(1, 3, 6, 6, dtype=np.float16), [2, 2], [1, 1], [(1, 1), (1, 1)],
            dilation=[2, 2], attrs_pad=[1, 1], tol=F16_TOL)
    add_avg('avg_pool3d_dilation', randn(2, 2, 5, 6, 7), [2, 2, 3], [1, 2, 1], dilation=[2, 3, 2])
    add_avg('avg_pool3d_dilation_pads_ceil_include', randn(1, 2, 6, 7, 8), [2, 3, 2], [2, 2, 3],
            [(1, 1), (2, 1), (0, 1)], dilation=[2, 2, 3], ceil_mode=True)
    add_avg('avg_pool3d_dilation_pads_ceil_exclude', randn(1, 2, 6, 7, 8), [2, 3, 2], [2, 2, 3],
            [(1, 1), (2, 1), (0, 1)], dilation=[2, 2, 3], ceil_mode=True, count_include_pad=False)

    pool_error('avg_pool_error_int', 'avg_pool', rng.integers(0, 5, (1, 1, 4, 4)).astype(np.int32),
               {'kernel_size': [2, 2]}, 'avg_pool: expected an f32 or f16 input, got i32', dtype='i32')
    pool_error('avg_pool_error_dilated_window_too_large', 'avg_pool', randn(1, 1, 6, 6),
               {'kernel_size': [2, 2], 'dilation': [1, 6]},
               'avg_pool: window [2, 2] (dilation [1, 6]) does not fit the input [1, 1, 6, 6] padded by [0, 0] + [0, 0]')
    pool_error('avg_pool_error_dilation_zero', 'avg_pool', randn(1, 1, 6, 6), {'kernel_size': [2, 2], 'dilation': [0, 1]},
               "avg_pool: 'dilation' entries must be in [1, ")
    pool_error('avg_pool_error_window_too_large', 'avg_pool', randn(1, 1, 3), {'kernel_size': [5], 'padding': [0, 1]},
               'avg_pool: window [5] (dilation [1]) does not fit the input [1, 1, 3] padded by [0] + [1]')
    pool_error('avg_pool_error_padding_count', 'avg_pool', randn(1, 1, 6, 6), {'kernel_size': [2, 2], 'padding': [1]},
               "avg_pool: expected 2 or 4 entries in 'padding', got 1")

    # --- adaptive_avg_pool -----------------------------------------------------------
    def add_adaptive(name, x, output_size, perm=None, x_view=None, tol=None):
        xl = x if x_view is None else x_view
        expected = adaptive_avg_pool_ref(xl, output_size)
        out.append(case(name, 'adaptive_avg_pool', inputs=[x], attrs={'output_size': list(output_size)},
                        outputs=[expected], perms=None if perm is None else [perm], **(tol or {})))

    add_adaptive('adaptive_avg_pool2d_global', randn(2, 5, 7, 7), [1, 1])
    add_adaptive('adaptive_avg_pool2d_uneven', randn(2, 3, 5, 7), [3, 2])
    add_adaptive('adaptive_avg_pool2d_grow', randn(1, 2, 3, 4), [5, 7])
    add_adaptive('adaptive_avg_pool2d_identity', randn(1, 2, 4, 3), [4, 3])
    add_adaptive('adaptive_avg_pool2d_f16', randn(1, 3, 6, 5, dtype=np.float16), [4, 3], tol=F16_TOL)
    x_nhwc3 = randn(2, 6, 6, 3)
    add_adaptive('adaptive_avg_pool2d_nhwc_view', x_nhwc3, [1, 1], perm=[0, 3, 1, 2],
                 x_view=x_nhwc3.transpose(0, 3, 1, 2))
    add_adaptive('adaptive_avg_pool2d_global_large', randn(2, 64, 30, 30), [1, 1])
    add_adaptive('adaptive_avg_pool2d_empty_batch', randn(0, 3, 4, 4), [2, 2])
    add_adaptive('adaptive_avg_pool2d_zero_output', randn(1, 3, 4, 4), [0, 2])
    add_adaptive('adaptive_avg_pool1d', randn(2, 3, 10), [4])
    add_adaptive('adaptive_avg_pool1d_global', randn(2, 3, 10), [1])

    pool_error('adaptive_avg_pool_error_rank', 'adaptive_avg_pool', randn(2, 3, 4), {'output_size': [1, 1]},
               'adaptive_avg_pool: a 2-d output_size needs a rank-4 input (N, C, spatial...), got shape [2, 3, 4]')
    pool_error('adaptive_avg_pool_error_empty_spatial', 'adaptive_avg_pool', randn(1, 2, 0, 4), {'output_size': [1, 1]},
               'adaptive_avg_pool: cannot pool an empty spatial dim of input [1, 2, 0, 4] to output_size [1, 1]')
    pool_error('adaptive_avg_pool_error_negative', 'adaptive_avg_pool', randn(1, 2, 4, 4), {'output_size': [-1, 1]},
               "adaptive_avg_pool: 'output_size' entries must be in [0, ")
    pool_error('adaptive_avg_pool_error_missing', 'adaptive_avg_pool', randn(1, 2, 4, 4), {},
               "adaptive_avg_pool: 'output_size' must be an int list with 1 or 2 entries, got none")
    return out + max_pool_with_indices_cases()


def max_pool_indices_ref(x, kernel, stride=None, pads=None, dilation=None, ceil_mode=False, storage_order=0):
    """ONNX MaxPool with its Indices output, from the spec and ONNX Runtime:
    each window's maximum and the flat index of the element it came from over
    N x C x spatial (padding not counted), row major over the spatial dims
    (storage_order 0) or column major (1). Of equal maxima the first in the
    window's row-major order wins; the first NaN wins over numbers."""
    axes = window_axes(x, kernel, stride, pads, dilation, ceil_mode)
    spatial = x.shape[2:]
    values = np.zeros(x.shape[:2] + tuple(len(w) for w in axes), x.dtype)
    indices = np.zeros(values.shape, np.int64)
    plane = int(np.prod(spatial))
    for n, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        for o in itertools.product(*[range(len(w)) for w in axes]):
            best, at = None, None
            for pos in itertools.product(*[axes[a][o[a]][0] for a in range(len(axes))]):
                v = x[(n, c) + pos]
                if best is None or v > best or (np.isnan(v) and not np.isnan(best)):
                    best, at = v, pos
            if storage_order == 0:
                offset = int(np.ravel_multi_index(at, spatial))
            else:
                offset = int(np.ravel_multi_index(at[::-1], spatial[::-1]))
            values[(n, c) + o] = best
            indices[(n, c) + o] = (n * x.shape[1] + c) * plane + offset
    return values, indices


def max_pool_with_indices_cases():
    rng = np.random.default_rng(905)
    out = []

    def randn(*shape, dtype=np.float32):
        return rng.standard_normal(shape).astype(dtype)

    def add(name, x, kernel, stride=None, pads=None, dilation=None, ceil_mode=None, storage_order=None,
            perm=None, tol=None):
        attrs = {'kernel_size': list(kernel),
                 **given(stride=None if stride is None else list(stride),
                         padding=None if pads is None else flat_pads(pads),
                         dilation=None if dilation is None else list(dilation), ceil_mode=ceil_mode,
                         storage_order=storage_order)}
        xv = x if perm is None else x.transpose(perm)
        values, indices = max_pool_indices_ref(xv, kernel, stride, pads, dilation, bool(ceil_mode), storage_order or 0)
        out.append(case('max_pool_with_indices_' + name, 'max_pool_with_indices', inputs=[x], attrs=attrs,
                        outputs=[values, indices], perms=None if perm is None else [perm], **(tol or {})))

    # ONNX's cases' shapes: a 5x5 window padded by 2, and strides 2 read column major.
    add('2d_pads', randn(1, 1, 5, 5), [5, 5], [1, 1], [(2, 2), (2, 2)])
    add('2d_strides_column_major', randn(1, 1, 5, 5), [2, 2], [2, 2], storage_order=1)
    add('2d_batch_channels', randn(2, 3, 6, 7), [3, 2], [2, 1], [(1, 0), (0, 1)])
    add('2d_batch_channels_column_major', randn(2, 3, 6, 7), [3, 2], [2, 1], [(1, 0), (0, 1)], storage_order=1)
    add('2d_dilation_ceil', randn(1, 2, 9, 8), [3, 2], [2, 3], [(1, 1), (1, 1)], dilation=[2, 2], ceil_mode=True)
    add('2d_ties_first_wins', rng.integers(0, 3, (2, 2, 6, 6)).astype(np.int32), [3, 3], [1, 1], [(1, 1), (1, 1)])
    nan_x = randn(1, 1, 4, 4)
    nan_x[0, 0, 1, 1] = nan_x[0, 0, 2, 3] = np.nan
    add('2d_nan_wins', nan_x, [2, 2], [1, 1])
    add('2d_f16', randn(1, 2, 5, 6, dtype=np.float16), [2, 3], [1, 2])
    add('2d_i64', rng.integers(-2**40, 2**40, (1, 2, 5, 5)), [2, 2], [2, 2], ceil_mode=True)
    add('2d_u8', rng.integers(0, 256, (1, 2, 4, 6)).astype(np.uint8), [2, 3], [2, 3])
    add('2d_nhwc_view', randn(1, 5, 6, 3), [3, 3], [2, 2], [(1, 1), (1, 1)], perm=[0, 3, 1, 2])
    add('1d', randn(2, 3, 11), [3], [2], [(1, 1)])
    add('1d_column_major', randn(2, 3, 11), [3], [2], [(1, 1)], storage_order=1)
    add('3d', randn(1, 2, 4, 5, 6), [2, 3, 2], [2, 1, 2], [(0, 1), (1, 1), (1, 0)])
    add('3d_column_major', randn(1, 2, 4, 5, 6), [2, 3, 2], [2, 1, 2], [(0, 1), (1, 1), (1, 0)], storage_order=1)
    add('empty_batch', randn(0, 2, 4, 4), [2, 2])

    def error(name, x, attrs, message, specs=(('f32', [1]), ('i64', [1]))):
        out.append(case('max_pool_with_indices_' + name, 'max_pool_with_indices', inputs=[x], attrs=attrs,
                        outputs=[], error=message, out_specs=list(specs)))

    error('storage_order_2', randn(1, 1, 4, 4), {'kernel_size': [2, 2], 'storage_order': 2},
          'max_pool_with_indices: expected storage_order 0 or 1, got 2')
    error('indices_i32', randn(1, 1, 4, 4), {'kernel_size': [2, 2]},
          'max_pool_with_indices: expected output dtype i64, got i32', (('f32', [1]), ('i32', [1])))
    error('one_output', randn(1, 1, 4, 4), {'kernel_size': [2, 2]},
          'max_pool_with_indices: expected 2 outputs, got 1', (('f32', [1]),))
    error('window_too_large', randn(1, 2, 3, 3), {'kernel_size': [4, 4]},
          'max_pool_with_indices: window [4, 4] (dilation [1, 1]) does not fit the input [1, 2, 3, 3]')
    error('bool', rng.integers(0, 2, (1, 1, 4, 4)).astype(bool), {'kernel_size': [2, 2]},
          'max_pool_with_indices: expected a float or integer input, got bool', (('bool', [1]), ('i64', [1])))
    return out

"""Cases for conv and conv_transpose (NCL / NCHW / NCDHW, PyTorch semantics).

References are written directly in numpy (float64 accumulation, then cast),
one tap at a time: conv gathers a strided slice of the padded input per tap,
conv_transpose scatters each tap into a strided slice of the uncropped output.
Padding is given per axis as (begin, end), as in the kernels' 2*nd form.
"""
import numpy as np

from common import case, flat_pads, given

F32_TOL = dict(atol=1e-4, rtol=1e-4)
F16_TOL = dict(atol=3e-3, rtol=3e-3)


def conv_ref(x, w, b=None, stride=None, pads=None, dilation=None, groups=1):
    """x [N, C, *sp], w [Cout, C/groups, *k]; pads = [(begin, end)] per axis."""
    nd = x.ndim - 2
    stride = stride or [1] * nd
    dilation = dilation or [1] * nd
    pads = pads or [(0, 0)] * nd
    xd = x.astype(np.float64)
    wd = w.astype(np.float64)
    xp = np.pad(xd, [(0, 0), (0, 0)] + [tuple(p) for p in pads])
    n, c = x.shape[:2]
    cout, cig = w.shape[:2]
    ks = w.shape[2:]
    outs = [(xp.shape[2 + a] - dilation[a] * (ks[a] - 1) - 1) // stride[a] + 1 for a in range(nd)]
    out = np.zeros((n, cout) + tuple(outs))
    cog = cout // groups
    for tap in np.ndindex(*ks):
        sl = tuple(slice(tap[a] * dilation[a], tap[a] * dilation[a] + stride[a] * (outs[a] - 1) + 1, stride[a])
                   for a in range(nd))
        patch = xp[(slice(None), slice(None)) + sl]  # [N, C, *out]
        for g in range(groups):
            pg = patch[:, g * cig:(g + 1) * cig]
            wg = wd[(slice(g * cog, (g + 1) * cog), slice(None)) + tap]  # [cog, cig]
            out[:, g * cog:(g + 1) * cog] += np.einsum('nc...,oc->no...', pg, wg)
    if b is not None:
        out += b.astype(np.float64).reshape((1, cout) + (1,) * nd)
    return out.astype(x.dtype)


def conv_transpose_ref(x, w, b=None, stride=None, pads=None, output_padding=None, dilation=None, groups=1):
    """x [N, Cin, *sp], w [Cin, Cout/groups, *k]; pads = [(begin, end)] per axis."""
    nd = x.ndim - 2
    stride = stride or [1] * nd
    dilation = dilation or [1] * nd
    pads = pads or [(0, 0)] * nd
    output_padding = output_padding or [0] * nd
    n, cin = x.shape[:2]
    cog = w.shape[1]
    cout = cog * groups
    cig = cin // groups
    ks = w.shape[2:]
    ins = x.shape[2:]
    outs = [(ins[a] - 1) * stride[a] - pads[a][0] - pads[a][1] + dilation[a] * (ks[a] - 1) + output_padding[a] + 1
            for a in range(nd)]
    full = [max((ins[a] - 1) * stride[a] + dilation[a] * (ks[a] - 1) + 1, pads[a][0] + outs[a]) for a in range(nd)]
    acc = np.zeros((n, cout) + tuple(full))
    xd = x.astype(np.float64)
    wd = w.astype(np.float64)
    for tap in np.ndindex(*ks):
        sl = tuple(slice(tap[a] * dilation[a], tap[a] * dilation[a] + stride[a] * (ins[a] - 1) + 1, stride[a])
                   for a in range(nd))
        for g in range(groups):
            xg = xd[:, g * cig:(g + 1) * cig]
            wg = wd[(slice(g * cig, (g + 1) * cig), slice(None)) + tap]  # [cig, cog]
            acc[(slice(None), slice(g * cog, (g + 1) * cog)) + sl] += np.einsum('nc...,co->no...', xg, wg)
    crop = tuple(slice(pads[a][0], pads[a][0] + outs[a]) for a in range(nd))
    out = acc[(slice(None), slice(None)) + crop]
    if b is not None:
        out = out + b.astype(np.float64).reshape((1, cout) + (1,) * nd)
    return out.astype(x.dtype)


def conv_attrs(stride, dilation, groups, attrs_pad, pads, output_padding=None):
    """A conv or conv_transpose case's attributes: those given, groups unless
    1, and the padding as attrs_pad or else flattened from pads."""
    padding = attrs_pad if attrs_pad is not None else None if pads is None else flat_pads(pads)
    return given(stride=stride, dilation=dilation, output_padding=output_padding,
                 groups=None if groups == 1 else groups, padding=padding)


def cases():
    rng = np.random.default_rng(1234)

    def randn(*shape, dtype=np.float32):
        return rng.standard_normal(shape).astype(dtype)

    out = []

    def add_conv(name, x, w, b=None, stride=None, pads=None, dilation=None, groups=1, attrs_pad=None,
                 perms=None, tol=F32_TOL, x_view=None, w_view=None):
        """x_view/w_view: the logical tensors when x/w are stored permuted."""
        xl = x if x_view is None else x_view
        wl = w if w_view is None else w_view
        attrs = conv_attrs(stride, dilation, groups, attrs_pad, pads)
        inputs = [x, w] + ([b] if b is not None else [])
        expected = conv_ref(xl, wl, b, stride, pads, dilation, groups)
        out.append(case(name, 'conv', inputs=inputs, attrs=attrs, outputs=[expected], perms=perms, **tol))

    # --- conv2d ---------------------------------------------------------------
    add_conv('conv2d_3x3_pad1_bias', randn(2, 3, 7, 6), randn(4, 3, 3, 3), randn(4),
             pads=[(1, 1), (1, 1)], attrs_pad=[1, 1])
    add_conv('conv2d_stride2_nobias', randn(1, 3, 9, 8), randn(5, 3, 3, 3), stride=[2, 2])
    add_conv('conv2d_stride_hw_differ', randn(2, 2, 10, 9), randn(3, 2, 3, 2), randn(3), stride=[3, 2],
             pads=[(1, 1), (0, 0)], attrs_pad=[1, 0])
    add_conv('conv2d_dilation2_pad2', randn(1, 4, 9, 9), randn(3, 4, 3, 3), randn(3), dilation=[2, 2],
             pads=[(2, 2), (2, 2)], attrs_pad=[2, 2])
    add_conv('conv2d_asymmetric_pads', randn(2, 3, 6, 7), randn(2, 3, 3, 2), randn(2),
             pads=[(1, 2), (0, 1)])
    add_conv('conv2d_pad_larger_than_kernel', randn(1, 2, 3, 3), randn(2, 2, 2, 2), randn(2),
             pads=[(3, 2), (2, 3)], stride=[2, 1])
    add_conv('conv2d_groups2', randn(2, 4, 6, 6), randn(6, 2, 3, 3), randn(6), groups=2,
             pads=[(1, 1), (1, 1)], attrs_pad=[1, 1])
    add_conv('conv2d_depthwise', randn(2, 5, 8, 7), randn(5, 1, 3, 3), randn(5), groups=5,
             pads=[(1, 1), (1, 1)], attrs_pad=[1, 1])
    add_conv('conv2d_depthwise_multiplier2_stride2', randn(1, 3, 9, 9), randn(6, 1, 5, 5), randn(6), groups=3,
             stride=[2, 2], pads=[(2, 2), (2, 2)], attrs_pad=[2, 2])
    add_conv('conv2d_1x1', randn(2, 8, 5, 6), randn(7, 8, 1, 1), randn(7))
    add_conv('conv2d_1x1_stride2', randn(2, 8, 7, 6), randn(7, 8, 1, 1), randn(7), stride=[2, 2])
    add_conv('conv2d_1x1_padded', randn(1, 3, 4, 4), randn(2, 3, 1, 1), randn(2), pads=[(1, 1), (1, 1)],
             attrs_pad=[1, 1])
    add_conv('conv2d_kernel_equals_input', randn(3, 2, 4, 5), randn(3, 2, 4, 5), randn(3))
    # Big enough to cross every internal tile: K = 40*9 > 128, Cout 70 > 64,
    # 13 * 15 output positions > 128.
    add_conv('conv2d_tiled', randn(2, 40, 13, 15), randn(70, 40, 3, 3) * np.float32(0.2), randn(70),
             pads=[(1, 1), (1, 1)], attrs_pad=[1, 1])
    add_conv('conv2d_tiled_1x1', randn(1, 150, 12, 12), randn(70, 150, 1, 1) * np.float32(0.1), randn(70))
    add_conv('conv2d_grouped_tiled', randn(1, 48, 12, 11), randn(96, 16, 3, 3) * np.float32(0.2), randn(96),
             groups=3, stride=[1, 2], pads=[(1, 1), (1, 1)], attrs_pad=[1, 1])
    # f16 storage, computed in f32.
    add_conv('conv2d_f16', randn(2, 3, 6, 6, dtype=np.float16), randn(4, 3, 3, 3, dtype=np.float16),
             randn(4, dtype=np.float16), pads=[(1, 1), (1, 1)], attrs_pad=[1, 1], tol=F16_TOL)
    add_conv('conv2d_f16_1x1_groups', randn(1, 4, 5, 5, dtype=np.float16), randn(6, 2, 1, 1, dtype=np.float16),
             groups=2, tol=F16_TOL)
    add_conv('conv2d_f16_tiled', randn(1, 20, 12, 12, dtype=np.float16),
             (randn(70, 20, 3, 3) * np.float32(0.2)).astype(np.float16), randn(70, dtype=np.float16),
             pads=[(1, 1), (1, 1)], attrs_pad=[1, 1], tol=F16_TOL)
    # Non-contiguous operands: NHWC storage viewed as NCHW, a transposed weight.
    x_nhwc = randn(2, 6, 7, 3)
    add_conv('conv2d_input_nhwc_view', x_nhwc, randn(4, 3, 3, 3), randn(4), pads=[(1, 1), (1, 1)],
             attrs_pad=[1, 1], perms=[[0, 3, 1, 2], None, None], x_view=x_nhwc.transpose(0, 3, 1, 2))
    w_stored = randn(3, 3, 2, 5)  # [kh, kw, cin, cout]
    add_conv('conv2d_weight_hwio_view', randn(1, 2, 6, 6), w_stored, randn(5), stride=[2, 2],
             perms=[None, [3, 2, 0, 1], None], w_view=w_stored.transpose(3, 2, 0, 1))
    x_nhwc1 = randn(1, 5, 5, 8)
    w_io = randn(8, 6, 1, 1)
    add_conv('conv2d_1x1_both_views', x_nhwc1, w_io, None, perms=[[0, 3, 1, 2], [1, 0, 2, 3]],
             x_view=x_nhwc1.transpose(0, 3, 1, 2), w_view=w_io.transpose(1, 0, 2, 3))
    x_t = randn(7, 4, 3, 6)  # stored [H, C, N, W]
    add_conv('conv2d_input_permuted_hw', x_t, randn(2, 4, 2, 3), randn(2), pads=[(0, 1), (1, 0)],
             perms=[[2, 1, 0, 3], None, None], x_view=x_t.transpose(2, 1, 0, 3))
    # Empty tensors.
    add_conv('conv2d_empty_batch', randn(0, 3, 5, 5), randn(4, 3, 3, 3), randn(4), pads=[(1, 1), (1, 1)],
             attrs_pad=[1, 1])
    add_conv('conv2d_zero_out_channels', randn(2, 3, 5, 5), randn(0, 3, 3, 3), randn(0))
    add_conv('conv2d_zero_in_channels_is_bias', randn(2, 0, 4, 4), randn(3, 0, 3, 3), randn(3))

    # --- conv1d (Diffusion Policy U-Net: kernel 5, padding 2) -------------------------
    add_conv('conv1d_k5_pad2', randn(3, 16, 12), randn(24, 16, 5) * np.float32(0.3), randn(24),
             pads=[(2, 2)], attrs_pad=[2])
    add_conv('conv1d_k5_long_tiled', randn(2, 64, 200), randn(80, 64, 5) * np.float32(0.2), randn(80),
             pads=[(2, 2)], attrs_pad=[2])
    add_conv('conv1d_stride2_dilation3_asym', randn(2, 3, 20), randn(4, 3, 3), randn(4), stride=[2],
             dilation=[3], pads=[(1, 4)])
    add_conv('conv1d_groups_depthwise', randn(2, 4, 9), randn(4, 1, 3), None, groups=4, pads=[(1, 1)],
             attrs_pad=[1])
    add_conv('conv1d_k1', randn(2, 6, 7), randn(5, 6, 1), randn(5))
    add_conv('conv1d_k1_stride3', randn(2, 6, 10), randn(5, 6, 1), randn(5), stride=[3])
    x_nlc = randn(2, 9, 6)
    add_conv('conv1d_input_nlc_view', x_nlc, randn(4, 6, 5), randn(4), pads=[(2, 2)], attrs_pad=[2],
             perms=[[0, 2, 1], None, None], x_view=x_nlc.transpose(0, 2, 1))
    add_conv('conv1d_f16', randn(2, 4, 10, dtype=np.float16), randn(3, 4, 5, dtype=np.float16),
             randn(3, dtype=np.float16), pads=[(2, 2)], attrs_pad=[2], tol=F16_TOL)
    add_conv('conv1d_empty_batch', randn(0, 4, 10), randn(3, 4, 5), randn(3), pads=[(2, 2)], attrs_pad=[2])

    # --- conv3d (N, C, D, H, W) ---------------------------------------------------
    add_conv('conv3d_3x3x3_pad1_bias', randn(2, 3, 5, 6, 7), randn(4, 3, 3, 3, 3), randn(4),
             pads=[(1, 1), (1, 1), (1, 1)], attrs_pad=[1, 1, 1])
    add_conv('conv3d_stride_dilation_asymmetric', randn(1, 2, 9, 8, 7), randn(3, 2, 2, 3, 2), randn(3),
             stride=[2, 1, 3], dilation=[2, 1, 2], pads=[(1, 0), (0, 2), (1, 1)])
    add_conv('conv3d_nobias_stride2', randn(1, 4, 6, 7, 8), randn(5, 4, 3, 3, 3), stride=[2, 2, 2])
    add_conv('conv3d_groups2', randn(2, 4, 5, 5, 5), randn(6, 2, 3, 3, 3), randn(6), groups=2,
             pads=[(1, 1), (1, 1), (1, 1)], attrs_pad=[1, 1, 1])
    # Depthwise: the flattened padded planes (stride 1) and the row passes.
    add_conv('conv3d_depthwise', randn(1, 4, 6, 5, 7), randn(4, 1, 3, 3, 3), randn(4), groups=4,
             pads=[(1, 1), (1, 1), (1, 1)], attrs_pad=[1, 1, 1])
    add_conv('conv3d_depthwise_strided_dilated', randn(2, 3, 7, 8, 9), randn(6, 1, 3, 2, 3), randn(6), groups=3,
             stride=[2, 2, 1], dilation=[1, 2, 2], pads=[(2, 1), (1, 1), (0, 2)])
    add_conv('conv3d_1x1x1', randn(2, 8, 3, 4, 5), randn(6, 8, 1, 1, 1), randn(6))
    add_conv('conv3d_1x1x1_stride2', randn(1, 8, 5, 4, 5), randn(6, 8, 1, 1, 1), randn(6), stride=[2, 1, 2])
    # Small volumes pool their columns across the batch (the scatter walks
    # depth too); a large one crosses every tile (K = 20 * 27 > 128, 336
    # output positions > 128, Cout 70 > 64).
    add_conv('conv3d_batch_folded', randn(3, 4, 2, 3, 3), randn(5, 4, 2, 2, 2), randn(5), pads=[(0, 1), (0, 0), (1, 0)])
    add_conv('conv3d_tiled', randn(1, 20, 6, 7, 8), randn(70, 20, 3, 3, 3) * np.float32(0.2), randn(70),
             pads=[(1, 1), (1, 1), (1, 1)], attrs_pad=[1, 1, 1])
    add_conv('conv3d_f16', randn(1, 3, 4, 5, 5, dtype=np.float16), randn(4, 3, 3, 3, 3, dtype=np.float16),
             randn(4, dtype=np.float16), pads=[(1, 1), (1, 1), (1, 1)], attrs_pad=[1, 1, 1], tol=F16_TOL)
    x_ndhwc = randn(1, 4, 5, 6, 3)
    add_conv('conv3d_input_ndhwc_view', x_ndhwc, randn(4, 3, 2, 3, 3), randn(4), pads=[(0, 1), (1, 1), (1, 1)],
             perms=[[0, 4, 1, 2, 3], None, None], x_view=x_ndhwc.transpose(0, 4, 1, 2, 3))
    w_dhwio = randn(2, 2, 2, 3, 5)  # [kd, kh, kw, cin, cout]
    add_conv('conv3d_weight_dhwio_view', randn(1, 3, 4, 4, 4), w_dhwio, randn(5), stride=[1, 2, 1],
             perms=[None, [4, 3, 0, 1, 2], None], w_view=w_dhwio.transpose(4, 3, 0, 1, 2))
    add_conv('conv3d_empty_batch', randn(0, 3, 4, 4, 4), randn(2, 3, 3, 3, 3), randn(2))

    # --- conv errors -----------------------------------------------------------
    def error_adder(op):
        """A function that adds an error case of `op`: the kernel must refuse `inputs`."""
        def add(name, inputs, attrs, error, out_shape=(1,), dtype='f32'):
            out.append(case(name, op, inputs=inputs, attrs=attrs, outputs=[], error=error,
                            out_specs=[(dtype, list(out_shape))]))
        return add

    conv_error = error_adder('conv')

    conv_error('conv_error_channel_mismatch', [randn(1, 3, 5, 5), randn(4, 2, 3, 3)], {},
               'conv: weight [4, 2, 3, 3] expects 2 input channels')
    conv_error('conv_error_groups_not_dividing', [randn(1, 4, 5, 5), randn(3, 2, 3, 3)], {'groups': 2},
               'conv: groups 2 must divide both the input channels 4 and the output channels 3')
    conv_error('conv_error_groups_list', [randn(1, 4, 5, 5), randn(4, 2, 3, 3)], {'groups': [2]},
               "conv: attribute 'groups' must be an int, got int[]")
    conv_error('conv_error_groups_zero', [randn(1, 4, 5, 5), randn(4, 4, 3, 3)], {'groups': 0},
               'conv: groups must be >= 1, got 0')
    conv_error('conv_error_kernel_larger_than_padded_input', [randn(1, 2, 3, 3), randn(2, 2, 5, 5)],
               {'padding': [0, 0]}, 'conv: kernel [5, 5] (dilation [1, 1]) is larger than the input [1, 2, 3, 3]')
    conv_error('conv_error_dilated_kernel_too_large', [randn(1, 2, 8), randn(2, 2, 3)], {'dilation': [4]},
               'conv: kernel [3] (dilation [4]) is larger than the input [1, 2, 8]')
    conv_error('conv_error_rank6_input', [randn(1, 2, 3, 3, 3, 3), randn(2, 2, 1, 1, 1, 1)], {},
               'conv: expected a rank-3 (N, C, L), rank-4 (N, C, H, W) or rank-5 (N, C, D, H, W) input, '
               'got shape [1, 2, 3, 3, 3, 3]')
    conv_error('conv_error_kernel_larger_than_padded_input_3d', [randn(1, 2, 2, 5, 5), randn(2, 2, 3, 3, 3)],
               {'padding': [0, 1, 1]},
               'conv: kernel [3, 3, 3] (dilation [1, 1, 1]) is larger than the input [1, 2, 2, 5, 5] padded by '
               '[0, 1, 1] + [0, 1, 1]')
    conv_error('conv_error_padding_count_3d', [randn(1, 2, 4, 4, 4), randn(3, 2, 3, 3, 3)], {'padding': [1, 1]},
               "conv: expected 3 or 6 entries in 'padding', got 2")
    conv_error('conv_error_weight_rank', [randn(1, 2, 5, 5), randn(2, 2, 3)], {},
               'conv: weight [2, 2, 3] must have the input\'s rank 4')
    conv_error('conv_error_bias_shape', [randn(1, 2, 5, 5), randn(3, 2, 3, 3), randn(2)], {},
               'conv: bias must have shape [3] (output channels), got [2]')
    conv_error('conv_error_weight_dtype', [randn(1, 2, 5, 5), randn(3, 2, 3, 3, dtype=np.float16)], {},
               'conv: weight dtype f16 does not match the input\'s f32')
    conv_error('conv_error_int_input', [rng.integers(0, 5, (1, 2, 5, 5)).astype(np.int32),
                                        rng.integers(0, 5, (3, 2, 3, 3)).astype(np.int32)], {},
               'conv: expected an f32 or f16 input, got i32', dtype='i32')
    conv_error('conv_error_output_dtype', [randn(1, 2, 5, 5), randn(3, 2, 3, 3)], {},
               'conv: output dtype must match the input\'s f32, got f16', dtype='f16')
    conv_error('conv_error_stride_zero', [randn(1, 2, 5, 5), randn(3, 2, 3, 3)], {'stride': [1, 0]},
               "conv: 'stride' entries must be in [1, ")
    conv_error('conv_error_negative_padding', [randn(1, 2, 5, 5), randn(3, 2, 3, 3)], {'padding': [1, -1]},
               "conv: 'padding' entries must be in [0, ")
    conv_error('conv_error_padding_count', [randn(1, 2, 5, 5), randn(3, 2, 3, 3)], {'padding': [1, 1, 1]},
               "conv: expected 2 or 4 entries in 'padding', got 3")
    conv_error('conv_error_stride_count', [randn(1, 2, 5), randn(3, 2, 3)], {'stride': [1, 1]},
               "conv: expected 1 entries in 'stride' (one per spatial dim), got 2")
    conv_error('conv_error_missing_weight', [randn(1, 2, 5, 5)], {},
               'conv: expected inputs (x, w) or (x, w, bias) and 1 output, got 1 inputs')

    # --- conv_transpose ----------------------------------------------------------
    def add_convt(name, x, w, b=None, stride=None, pads=None, output_padding=None, dilation=None, groups=1,
                  attrs_pad=None, perms=None, tol=F32_TOL, x_view=None, w_view=None):
        xl = x if x_view is None else x_view
        wl = w if w_view is None else w_view
        attrs = conv_attrs(stride, dilation, groups, attrs_pad, pads, output_padding)
        inputs = [x, w] + ([b] if b is not None else [])
        expected = conv_transpose_ref(xl, wl, b, stride, pads, output_padding, dilation, groups)
        out.append(case(name, 'conv_transpose', inputs=inputs, attrs=attrs, outputs=[expected], perms=perms,
                        **tol))

    add_convt('convt2d_basic', randn(2, 3, 4, 5), randn(3, 2, 3, 3), randn(2))
    add_convt('convt2d_stride2_pad1_outpad1', randn(1, 4, 5, 4), randn(4, 3, 3, 3), randn(3), stride=[2, 2],
              pads=[(1, 1), (1, 1)], attrs_pad=[1, 1], output_padding=[1, 1])
    add_convt('convt2d_k2_s2_unet', randn(2, 6, 3, 4), randn(6, 4, 2, 2), randn(4), stride=[2, 2])
    add_convt('convt2d_stride_gt_kernel', randn(1, 2, 3, 3), randn(2, 3, 2, 2), randn(3), stride=[3, 3],
              output_padding=[2, 1])
    add_convt('convt2d_dilation2_stride3', randn(1, 3, 4, 5), randn(3, 2, 3, 2), randn(2), stride=[3, 2],
              dilation=[2, 3], pads=[(1, 1), (2, 2)], attrs_pad=[1, 2])
    add_convt('convt2d_dilation_outpad', randn(1, 2, 4, 4), randn(2, 2, 2, 2), None, stride=[1, 1],
              dilation=[3, 2], output_padding=[2, 1])
    add_convt('convt2d_asymmetric_pads', randn(2, 3, 5, 4), randn(3, 2, 4, 3), randn(2), stride=[2, 2],
              pads=[(1, 2), (0, 2)])
    add_convt('convt2d_groups2', randn(2, 4, 4, 4), randn(4, 3, 3, 3), randn(6), stride=[2, 1], groups=2,
              pads=[(1, 1), (1, 1)], attrs_pad=[1, 1])
    add_convt('convt2d_depthwise', randn(1, 3, 5, 5), randn(3, 1, 3, 3), randn(3), stride=[2, 2], groups=3)
    add_convt('convt2d_tiled', randn(1, 40, 9, 10), randn(40, 70, 3, 3) * np.float32(0.2), randn(70),
              stride=[2, 2], pads=[(1, 1), (1, 1)], attrs_pad=[1, 1], output_padding=[1, 1])
    add_convt('convt2d_f16', randn(1, 3, 4, 4, dtype=np.float16), randn(3, 2, 3, 3, dtype=np.float16),
              randn(2, dtype=np.float16), stride=[2, 2], pads=[(1, 1), (1, 1)], attrs_pad=[1, 1], tol=F16_TOL)
    x_nhwc2 = randn(1, 4, 5, 3)
    w_t = randn(3, 3, 3, 2)  # stored [kh, kw, cin, cout]
    add_convt('convt2d_views', x_nhwc2, w_t, randn(2), stride=[2, 2], pads=[(1, 1), (1, 1)], attrs_pad=[1, 1],
              perms=[[0, 3, 1, 2], [2, 3, 0, 1], None], x_view=x_nhwc2.transpose(0, 3, 1, 2),
              w_view=w_t.transpose(2, 3, 0, 1))
    add_convt('convt2d_empty_batch', randn(0, 3, 4, 4), randn(3, 2, 3, 3), randn(2), stride=[2, 2])
    add_convt('convt2d_1x1', randn(2, 5, 3, 4), randn(5, 4, 1, 1), randn(4))
    # Diffusion Policy Upsample1d: ConvTranspose1d(C, C, 4, stride 2, padding 1).
    add_convt('convt1d_k4_s2_p1', randn(2, 16, 8), randn(16, 16, 4) * np.float32(0.3), randn(16), stride=[2],
              pads=[(1, 1)], attrs_pad=[1])
    add_convt('convt1d_long_tiled', randn(1, 70, 100), randn(70, 80, 4) * np.float32(0.2), randn(80),
              stride=[2], pads=[(1, 1)], attrs_pad=[1])
    add_convt('convt1d_dilation2_stride4_outpad', randn(2, 3, 6), randn(3, 2, 3), randn(2), stride=[4],
              dilation=[2], output_padding=[3], pads=[(2, 1)])
    x_nlc2 = randn(2, 7, 4)
    add_convt('convt1d_input_nlc_view', x_nlc2, randn(4, 3, 3), randn(3), stride=[2], pads=[(1, 1)],
              attrs_pad=[1], perms=[[0, 2, 1], None, None], x_view=x_nlc2.transpose(0, 2, 1))
    add_convt('convt1d_f16', randn(1, 4, 6, dtype=np.float16), randn(4, 3, 4, dtype=np.float16),
              randn(3, dtype=np.float16), stride=[2], pads=[(1, 1)], attrs_pad=[1], tol=F16_TOL)
    # 3-d: a phase per (z, y, x) residue of the stride.
    add_convt('convt3d_stride2_pad1_outpad', randn(1, 3, 3, 4, 3), randn(3, 2, 3, 3, 3), randn(2), stride=[2, 2, 2],
              pads=[(1, 1), (1, 1), (1, 1)], attrs_pad=[1, 1, 1], output_padding=[1, 0, 1])
    add_convt('convt3d_basic', randn(2, 2, 3, 3, 4), randn(2, 3, 2, 3, 2), randn(3))
    add_convt('convt3d_groups_dilation_asymmetric', randn(2, 4, 3, 3, 4), randn(4, 3, 2, 3, 2), randn(6),
              stride=[1, 2, 3], dilation=[2, 1, 2], groups=2, pads=[(1, 0), (0, 1), (2, 1)])
    add_convt('convt3d_depthwise_k2_s2', randn(1, 3, 2, 3, 3), randn(3, 1, 2, 2, 2), randn(3), stride=[2, 2, 2],
              groups=3)
    add_convt('convt3d_stride_gt_kernel_outpad', randn(1, 2, 2, 2, 3), randn(2, 2, 2, 1, 2), None,
              stride=[3, 2, 3], output_padding=[2, 1, 0])
    add_convt('convt3d_tiled', randn(1, 40, 3, 4, 5), randn(40, 70, 2, 2, 2) * np.float32(0.2), randn(70),
              stride=[2, 2, 2])
    add_convt('convt3d_f16', randn(1, 3, 3, 3, 3, dtype=np.float16), randn(3, 2, 3, 3, 3, dtype=np.float16),
              randn(2, dtype=np.float16), stride=[2, 2, 2], pads=[(1, 1), (1, 1), (1, 1)], attrs_pad=[1, 1, 1],
              tol=F16_TOL)
    x_ndhwc2 = randn(1, 3, 3, 2, 4)
    add_convt('convt3d_input_ndhwc_view', x_ndhwc2, randn(4, 2, 2, 2, 2), randn(2), stride=[2, 1, 2],
              perms=[[0, 4, 1, 2, 3], None, None], x_view=x_ndhwc2.transpose(0, 4, 1, 2, 3))
    add_convt('convt3d_empty_batch', randn(0, 2, 2, 2, 2), randn(2, 2, 2, 2, 2), randn(2), stride=[2, 2, 2])

    convt_error = error_adder('conv_transpose')

    convt_error('convt_error_channel_mismatch', [randn(1, 3, 4, 4), randn(2, 2, 3, 3)], {},
                'conv_transpose: weight [2, 2, 3, 3] expects 2 input channels, but the input [1, 3, 4, 4] has 3')
    convt_error('convt_error_groups_not_dividing', [randn(1, 3, 4, 4), randn(3, 2, 3, 3)], {'groups': 2},
                'conv_transpose: groups 2 must divide the input channels 3')
    convt_error('convt_error_output_padding_too_large', [randn(1, 2, 4, 4), randn(2, 2, 3, 3)],
                {'stride': [2, 2], 'output_padding': [2, 0]},
                'conv_transpose: output_padding [2, 0] must be smaller than stride [2, 2] or dilation [1, 1]')
    convt_error('convt_error_padding_eats_output', [randn(1, 2, 2), randn(2, 2, 2)], {'padding': [2]},
                'conv_transpose: input [1, 2, 2] with kernel [2] and padding [2] + [2] gives an empty output')
    convt_error('convt_error_rank2_input', [randn(2, 4), randn(4, 2)], {},
                'conv_transpose: expected a rank-3 (N, C, L), rank-4 (N, C, H, W) or rank-5 (N, C, D, H, W) input, '
                'got shape [2, 4]')
    convt_error('convt_error_output_padding_3d', [randn(1, 2, 2, 2, 2), randn(2, 2, 2, 2, 2)],
                {'stride': [2, 1, 2], 'output_padding': [1, 1, 0]},
                'conv_transpose: output_padding [1, 1, 0] must be smaller than stride [2, 1, 2] or dilation [1, 1, 1]')
    convt_error('convt_error_bias_shape', [randn(1, 2, 4, 4), randn(2, 3, 3, 3), randn(2)], {'groups': 2},
                'conv_transpose: bias must have shape [6] (output channels), got [2]')
    return out

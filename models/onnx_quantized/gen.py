#!/usr/bin/python3
"""Writes ONNX test cases of the standard quantization operators with outputs
from ONNX Runtime 1.30, for tests/frontends/onnx_quantized_test.cpp.

QLinearConv (u8 activations with s8 weights and s8 with s8, per output
channel, with bias, depthwise, grouped, strided, padded, dilated, SAME_UPPER
padding, 1-D, K and positions past the kernel's tiles) and QLinearMatMul
(2-D, batch broadcast, per column, u8 and s8), and QuantizeLinear,
DequantizeLinear (opsets 13, 19 and 21, per tensor and per axis, f16),
DynamicQuantizeLinear (all zeros too), ConvInteger and MatMulInteger. The
weights, scales and zero points are initializers, as quantizers write them.
Each case is a folder as ONNX's backend tests lay them out (model.onnx,
test_data_set_0/input_<i>.pb, output_<i>.pb); outputs come from
onnxruntime-node 1.30.0 (models/onnx_newer/ort_oracle.py), never from edgec.

    /usr/bin/python3 models/onnx_quantized/gen.py build/npm/ort130 [OUT_DIR]

OUT_DIR (default: this folder) lets tests/cli/onnx_quantized_ort_test.sh
write the cases afresh and compare them with the stored ones.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "onnx_newer"))
from ort_oracle import write_case  # noqa: E402

RNG = np.random.default_rng(3203)
IR_OF_OPSET = {10: 5, 11: 6, 13: 7, 19: 9, 21: 10}
ELEM = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float16): TensorProto.FLOAT16,
        np.dtype(np.uint8): TensorProto.UINT8, np.dtype(np.int8): TensorProto.INT8,
        np.dtype(np.int32): TensorProto.INT32}
QRANGE = {np.uint8: (0, 255), np.int8: (-128, 127)}


def rand_q(dtype, shape):
    lo, hi = QRANGE[dtype]
    return RNG.integers(lo, hi + 1, size=shape).astype(dtype)


def build(node, feeds, inits, out_specs, opset):
    """A one-node model: `feeds` are graph inputs (name -> array), `inits`
    initializers, out_specs (name, elem type) its outputs."""
    inputs = [helper.make_tensor_value_info(n, ELEM[a.dtype], list(a.shape)) for n, a in feeds.items()]
    outputs = [helper.make_tensor_value_info(n, t, None) for n, t in out_specs]
    g = helper.make_graph([node], "case", inputs, outputs,
                          initializer=[numpy_helper.from_array(a, n) for n, a in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = IR_OF_OPSET[opset]
    return m


def qlinear_conv(name, x_dt, w_dt, y_dt, xshape, wshape, per_channel=True, bias=True, opset=13, **attrs):
    cout = wshape[0]
    k = int(np.prod(wshape[1:]))
    x = rand_q(x_dt, xshape)
    w = rand_q(w_dt, wshape)
    inits = {
        "x_scale": np.array(0.05, dtype=np.float32),
        "x_zero_point": rand_q(x_dt, ()),
        "w": w,
        # ONNX Runtime takes a per-channel weight zero point only when all
        # its entries are equal (0 for s8 weights, as quantizers write them).
        "w_scale": (RNG.uniform(0.002, 0.02, size=(cout,)) if per_channel else np.array([0.01])).astype(np.float32),
        "w_zero_point": np.full((cout,) if per_channel else (1,), 0 if w_dt is np.int8 else 131, dtype=w_dt),
        # Near the accumulators' spread, so that outputs reach both ends.
        "y_scale": np.array(0.05 * 0.01 * 128 * np.sqrt(k) * 0.5, dtype=np.float32),
        "y_zero_point": rand_q(y_dt, ()),
    }
    names = ["x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale", "y_zero_point"]
    if bias:
        inits["B"] = RNG.integers(-30000, 30000, size=cout).astype(np.int32)
        names.append("B")
    node = helper.make_node("QLinearConv", names, ["y"], **attrs)
    return name, build(node, {"x": x}, inits, [("y", ELEM[np.dtype(y_dt)])], opset), {"x": x}


def qlinear_matmul(name, a_dt, b_dt, y_dt, ashape, bshape, per_column=False, opset=13):
    k = ashape[-1]
    n = bshape[-1]
    a = rand_q(a_dt, ashape)
    b = rand_q(b_dt, bshape)
    inits = {
        "a_scale": np.array(0.05, dtype=np.float32),
        "a_zero_point": rand_q(a_dt, ()),
        "b": b,
        "b_scale": (RNG.uniform(0.002, 0.02, size=(n,)) if per_column else np.array(0.01)).astype(np.float32),
        "b_zero_point": (rand_q(b_dt, (n,)) if per_column else rand_q(b_dt, ())),
        "y_scale": np.array(0.05 * 0.01 * 128 * np.sqrt(k) * 0.5, dtype=np.float32),
        "y_zero_point": rand_q(y_dt, ()),
    }
    node = helper.make_node("QLinearMatMul", ["a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point",
                                              "y_scale", "y_zero_point"], ["y"])
    return name, build(node, {"a": a}, inits, [("y", ELEM[np.dtype(y_dt)])], opset), {"a": a}


def ties(op, x_dt, w_dt):
    """acc * (x_scale * w_scale / y_scale) = acc * 0.5 exactly: every odd
    accumulator is a tie, which must round to even (both signs)."""
    lo, hi = (-20, 20)
    if op == "QLinearConv":
        x = RNG.integers(max(lo, QRANGE[x_dt][0]), hi, size=(1, 3, 6, 6)).astype(x_dt)
        w = RNG.integers(max(-3, QRANGE[w_dt][0]), 4, size=(4, 3, 1, 1)).astype(w_dt)
        names = ["x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale", "y_zero_point"]
    else:
        x = RNG.integers(max(lo, QRANGE[x_dt][0]), hi, size=(6, 5)).astype(x_dt)
        w = RNG.integers(max(-3, QRANGE[w_dt][0]), 4, size=(5, 4)).astype(w_dt)
        names = ["a", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale", "y_zero_point"]
    feed = names[0]
    inits = {"x_scale": np.array(0.25, dtype=np.float32), "x_zero_point": np.array(0, dtype=x_dt), "w": w,
             "w_scale": np.array(0.5, dtype=np.float32), "w_zero_point": np.array(0, dtype=w_dt),
             "y_scale": np.array(0.25, dtype=np.float32), "y_zero_point": np.array(0 if x_dt is np.int8 else 100, x_dt)}
    node = helper.make_node(op, names, ["y"])
    name = "%s_ties_%s%s" % (op.lower(), "u8" if x_dt is np.uint8 else "s8", "u8" if w_dt is np.uint8 else "s8")
    return name, build(node, {feed: x}, inits, [("y", ELEM[np.dtype(x_dt)])], 13), {feed: x}


def quantize(name, x, scale, zp, opset=13, **attrs):
    inits = {"y_scale": scale}
    names = ["x", "y_scale"]
    out = TensorProto.UINT8
    if zp is not None:
        inits["y_zero_point"] = zp
        names.append("y_zero_point")
        out = ELEM[zp.dtype]
    node = helper.make_node("QuantizeLinear", names, ["y"], **attrs)
    return name, build(node, {"x": x}, inits, [("y", out)], opset), {"x": x}


def dequantize(name, x, scale, zp, opset=13, **attrs):
    inits = {"x_scale": scale}
    names = ["x", "x_scale"]
    if zp is not None:
        inits["x_zero_point"] = zp
        names.append("x_zero_point")
    node = helper.make_node("DequantizeLinear", names, ["y"], **attrs)
    return name, build(node, {"x": x}, inits, [("y", ELEM[scale.dtype])], opset), {"x": x}


def dynamic(name, x):
    node = helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "y_scale", "y_zero_point"])
    outs = [("y", TensorProto.UINT8), ("y_scale", TensorProto.FLOAT), ("y_zero_point", TensorProto.UINT8)]
    return name, build(node, {"x": x}, {}, outs, 11), {"x": x}


def conv_integer(name, x_dt, w_dt, xshape, wshape, **attrs):
    x = rand_q(x_dt, xshape)
    inits = {"w": rand_q(w_dt, wshape), "x_zero_point": rand_q(x_dt, ()),
             "w_zero_point": np.array(3 if w_dt is np.uint8 else 0, dtype=w_dt)}
    node = helper.make_node("ConvInteger", ["x", "w", "x_zero_point", "w_zero_point"], ["y"], **attrs)
    return name, build(node, {"x": x}, inits, [("y", TensorProto.INT32)], 10), {"x": x}


def matmul_integer(name, a_dt, b_dt, ashape, bshape, per_column=False):
    """(ONNX Runtime refuses a per-row a_zero_point.)"""
    a = rand_q(a_dt, ashape)
    n = bshape[-1]
    inits = {"b": rand_q(b_dt, bshape), "a_zero_point": rand_q(a_dt, ()),
             "b_zero_point": rand_q(b_dt, (n,)) if per_column else rand_q(b_dt, ())}
    node = helper.make_node("MatMulInteger", ["a", "b", "a_zero_point", "b_zero_point"], ["y"])
    return name, build(node, {"a": a}, inits, [("y", TensorProto.INT32)], 10), {"a": a}


def cases():
    u8, s8 = np.uint8, np.int8
    out = [
        # A ResNet-like 3x3 layer, u8 activations and s8 weights, per channel, bias.
        qlinear_conv("qlinearconv_u8s8_3x3_per_channel", u8, s8, u8, (1, 16, 12, 12), (24, 16, 3, 3),
                     pads=[1, 1, 1, 1]),
        qlinear_conv("qlinearconv_s8s8_strided", s8, s8, s8, (2, 8, 11, 10), (12, 8, 3, 3), strides=[2, 2],
                     pads=[1, 0, 1, 2]),
        qlinear_conv("qlinearconv_u8s8_depthwise", u8, s8, u8, (1, 32, 14, 14), (32, 1, 3, 3), group=32,
                     pads=[1, 1, 1, 1]),
        qlinear_conv("qlinearconv_s8s8_depthwise_strided", s8, s8, s8, (1, 16, 15, 15), (16, 1, 5, 5), group=16,
                     strides=[2, 2], pads=[2, 2, 2, 2]),
        qlinear_conv("qlinearconv_u8u8_grouped_per_tensor", u8, u8, u8, (1, 12, 9, 9), (18, 4, 3, 3), group=3,
                     per_channel=False, pads=[1, 1, 1, 1]),
        qlinear_conv("qlinearconv_u8s8_1x1_deep", u8, s8, u8, (1, 320, 10, 10), (40, 320, 1, 1)),
        qlinear_conv("qlinearconv_u8s8_dilated", u8, s8, u8, (1, 6, 13, 11), (10, 6, 3, 3), dilations=[2, 2],
                     pads=[2, 1, 2, 3], bias=False),
        # ONNX Runtime refuses SAME with dilations.
        qlinear_conv("qlinearconv_u8s8_same_upper", u8, s8, u8, (1, 6, 13, 11), (10, 6, 4, 3), strides=[2, 1],
                     auto_pad="SAME_UPPER"),
        qlinear_conv("qlinearconv_s8s8_1d", s8, s8, s8, (2, 5, 20), (7, 5, 3), pads=[1, 1]),
        qlinear_conv("qlinearconv_u8s8_no_bias_per_tensor", u8, s8, u8, (1, 4, 7, 7), (4, 4, 3, 3),
                     per_channel=False, bias=False),
        qlinear_matmul("qlinearmatmul_u8s8_2d", u8, s8, u8, (7, 40), (40, 19)),
        qlinear_matmul("qlinearmatmul_s8s8_batch_broadcast", s8, s8, s8, (2, 3, 5, 33), (33, 9)),
        qlinear_matmul("qlinearmatmul_u8u8_large", u8, u8, u8, (70, 300), (300, 130)),
        qlinear_matmul("qlinearmatmul_u8s8_per_column", u8, s8, u8, (6, 24), (24, 10), per_column=True),
        ties("QLinearConv", np.uint8, np.int8),
        ties("QLinearConv", np.int8, np.int8),
        ties("QLinearMatMul", np.uint8, np.int8),
        ties("QLinearMatMul", np.int8, np.int8),
        quantize("quantizelinear_ties", np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 254.5, -1e6, 1e6], dtype=np.float32),
                 np.array(1.0, dtype=np.float32), np.array(0, dtype=np.int8)),
        quantize("quantizelinear_per_axis_negative", (RNG.standard_normal((2, 3, 4)) * 30).astype(np.float32),
                 RNG.uniform(0.1, 0.5, size=4).astype(np.float32), rand_q(u8, (4,)), axis=-1),
        quantize("quantizelinear_19_f16", (RNG.standard_normal((3, 5)) * 10).astype(np.float16),
                 np.array(0.125, dtype=np.float16), np.array(-3, dtype=np.int8), opset=19),
        quantize("quantizelinear_21_per_axis", (RNG.standard_normal((4, 3)) * 10).astype(np.float32),
                 RNG.uniform(0.05, 0.2, size=4).astype(np.float32), rand_q(s8, (4,)), opset=21, axis=0),
        quantize("quantizelinear_21_no_zero_point", (RNG.standard_normal((6,)) * 100).astype(np.float32),
                 np.array(0.7, dtype=np.float32), None, opset=21),
        dequantize("dequantizelinear_per_axis", rand_q(s8, (2, 5, 3)), RNG.uniform(0.01, 1, 5).astype(np.float32),
                   rand_q(s8, (5,))),
        dequantize("dequantizelinear_21_f16", rand_q(u8, (3, 4)), np.array(0.0625, dtype=np.float16),
                   np.array(128, dtype=np.uint8), opset=21),
        dequantize("dequantizelinear_int32", RNG.integers(-2**20, 2**20, size=(8,)).astype(np.int32),
                   np.array(0.001, dtype=np.float32), None),
        dynamic("dynamicquantizelinear_zeros", np.zeros((2, 3), dtype=np.float32)),
        dynamic("dynamicquantizelinear_random", (RNG.standard_normal((4, 9)) * 5 + 1).astype(np.float32)),
        dynamic("dynamicquantizelinear_positive", RNG.uniform(1, 3, size=(10,)).astype(np.float32)),
        conv_integer("convinteger_u8s8_padded", u8, s8, (1, 8, 9, 9), (6, 8, 3, 3), pads=[1, 1, 1, 1]),
        conv_integer("convinteger_u8u8_grouped", u8, u8, (1, 6, 7, 7), (6, 2, 3, 3), group=3, strides=[2, 2]),
        matmul_integer("matmulinteger_u8s8_batch", u8, s8, (2, 5, 17), (17, 6)),
        matmul_integer("matmulinteger_u8u8_per_column", u8, u8, (5, 12), (12, 4), per_column=True),
        # NaN gives the dtype's minimum in ONNX Runtime (MLAS clamps with max_ps first).
        quantize("quantizelinear_nan_inf_u8", np.array([np.nan, -np.nan, 1.0, np.inf, -np.inf, 300.0], np.float32),
                 np.array(1.0, dtype=np.float32), np.array(7, dtype=np.uint8)),
        quantize("quantizelinear_nan_inf_s8", np.array([np.nan, -np.nan, 1.0, np.inf, -np.inf, 300.0], np.float32),
                 np.array(1.0, dtype=np.float32), np.array(-3, dtype=np.int8)),
        # K = 48 x 9 = 432 crosses the kernel's K tile (256), 400 positions its column tile (128).
        qlinear_conv("qlinearconv_u8s8_3x3_tiles", u8, s8, u8, (1, 48, 20, 20), (32, 48, 3, 3), pads=[1, 1, 1, 1]),
    ]
    return out


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    ort_dir = os.path.abspath(sys.argv[1])
    out_dir = sys.argv[2] if len(sys.argv) == 3 else HERE
    for name, m, feeds in cases():
        write_case(out_dir, name, m, feeds, ort_dir)


if __name__ == "__main__":
    main()

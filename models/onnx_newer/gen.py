#!/usr/bin/python3
"""Cases of the operators that changed or came after opset 17, with
outputs from ONNX Runtime 1.30 (ort_oracle.py):

    models/onnx_newer/gen.py /tmp/ort130     # ORT_DIR holding onnxruntime-node 1.30.0
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from ort_oracle import model, write_case

F = TensorProto.FLOAT


def vi(name, shape, elem=F):
    return helper.make_tensor_value_info(name, elem, shape)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def main():
    ort_dir, out = sys.argv[1], os.path.dirname(os.path.abspath(__file__))
    rng = np.random.default_rng(18)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)

    def case(name, nodes, outputs, opset, inits=(), feeds=None, inputs=None):
        feeds = feeds if feeds is not None else {"x": x}
        inputs = inputs or [vi(k, list(v.shape)) for k, v in feeds.items()]
        write_case(out, name, model(nodes, inputs, outputs, opset, inits), feeds, ort_dir)

    # Reduce* read their axes from an input from opset 18.
    for op in ["ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2", "ReduceSumSquare"]:
        case(op.lower() + "_axes_input_18", [helper.make_node(op, ["x", "axes"], ["y"], keepdims=0)],
             [vi("y", None)], 18, [ints("axes", [1, -1])])
    case("reducemean_no_axes_noop_18", [helper.make_node("ReduceMean", ["x"], ["y"], noop_with_empty_axes=1)],
         [vi("y", None)], 18)
    case("reducemax_all_axes_20", [helper.make_node("ReduceMax", ["x"], ["y"], keepdims=1)], [vi("y", None)], 20)
    # Split's num_outputs (18): a last part smaller when the size does not divide.
    x7 = rng.standard_normal((2, 7)).astype(np.float32)
    case("split_num_outputs_uneven_18",
         [helper.make_node("Split", ["x"], ["a", "b", "c"], axis=1, num_outputs=3)],
         [vi("a", None), vi("b", None), vi("c", None)], 18, feeds={"x": x7})
    case("split_num_outputs_even_18", [helper.make_node("Split", ["x"], ["a", "b"], axis=-1, num_outputs=2)],
         [vi("a", None), vi("b", None)], 18, feeds={"x": rng.standard_normal((3, 6)).astype(np.float32)})
    # Pad's axes input (18) and wrap mode (19).
    case("pad_axes_18", [helper.make_node("Pad", ["x", "pads", "", "axes"], ["y"], mode="constant")],
         [vi("y", None)], 18, [ints("pads", [1, 0, 2, 1]), ints("axes", [1, 3])])
    case("pad_reflect_axes_negative_19", [helper.make_node("Pad", ["x", "pads", "", "axes"], ["y"], mode="reflect")],
         [vi("y", None)], 19, [ints("pads", [1, 2]), ints("axes", [-1])])
    # Cast's saturate (19) on a type it does not concern.
    case("cast_saturate_19", [helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT16, saturate=1)],
         [vi("y", None, TensorProto.FLOAT16)], 19)
    # New operators.
    case("mish_18", [helper.make_node("Mish", ["x"], ["y"])], [vi("y", None)], 18)
    case("gelu_20", [helper.make_node("Gelu", ["x"], ["y"])], [vi("y", None)], 20)
    case("gelu_tanh_20", [helper.make_node("Gelu", ["x"], ["y"], approximate="tanh")], [vi("y", None)], 20)
    x6 = rng.standard_normal((2, 6, 3, 3)).astype(np.float32)
    g_scale = numpy_helper.from_array(rng.standard_normal(3).astype(np.float32), "scale")
    g_bias = numpy_helper.from_array(rng.standard_normal(3).astype(np.float32), "bias")
    case("groupnorm_per_group_18",
         [helper.make_node("GroupNormalization", ["x", "scale", "bias"], ["y"], num_groups=3, epsilon=1e-3)],
         [vi("y", None)], 18, [g_scale, g_bias], feeds={"x": x6})
    c_scale = numpy_helper.from_array(rng.standard_normal(6).astype(np.float32), "scale")
    c_bias = numpy_helper.from_array(rng.standard_normal(6).astype(np.float32), "bias")
    case("groupnorm_per_channel_21",
         [helper.make_node("GroupNormalization", ["x", "scale", "bias"], ["y"], num_groups=2)],
         [vi("y", None)], 21, [c_scale, c_bias], feeds={"x": x6})
    r_scale = numpy_helper.from_array(rng.standard_normal(5).astype(np.float32), "scale")
    case("rmsnorm_23", [helper.make_node("RMSNormalization", ["x", "scale"], ["y"], epsilon=1e-4)],
         [vi("y", None)], 23, [r_scale])
    r2_scale = numpy_helper.from_array(rng.standard_normal((4, 5)).astype(np.float32), "scale")
    case("rmsnorm_axis_2_23", [helper.make_node("RMSNormalization", ["x", "scale"], ["y"], axis=2)],
         [vi("y", None)], 23, [r2_scale])
    # A small convolutional block at each later opset and IR version.
    w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w")
    for opset in (21, 22, 23):
        case("conv_relu_flatten_%d" % opset,
             [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]), helper.make_node("Relu", ["c"], ["r"]),
              helper.make_node("Flatten", ["r"], ["y"])], [vi("y", None)], opset, [w])

    # ---- AveragePool's dilations (opset 19) -----------------------------------------
    # The window's elements lie `dilations` apart. 2-d on x; 3-d with
    # asymmetric pads, excluding the padding from the divisor, and with
    # ceil_mode including it (the last windows overhang the padding, and
    # the overhang never counts). Own generator: the cases above keep
    # their inputs.
    case("averagepool_dilations_19",
         [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], dilations=[2, 2], strides=[1, 1])],
         [vi("y", None)], 19)
    x3 = np.random.default_rng(19).standard_normal((1, 2, 5, 6, 7)).astype(np.float32)
    pool3 = dict(kernel_shape=[2, 3, 2], dilations=[2, 1, 2], strides=[1, 2, 2], pads=[1, 1, 0, 0, 1, 1])
    case("averagepool_3d_dilations_pads_19",
         [helper.make_node("AveragePool", ["x"], ["y"], count_include_pad=0, **pool3)], [vi("y", None)], 19,
         feeds={"x": x3})
    case("averagepool_3d_dilations_ceil_count_include_pad_19",
         [helper.make_node("AveragePool", ["x"], ["y"], count_include_pad=1, ceil_mode=1, **pool3)],
         [vi("y", None)], 19, feeds={"x": x3})

    spectral_cases(ort_dir, out)
    grid_sample_cases(ort_dir, out)


def spectral_cases(ort_dir, out):
    """DFT of opset 20: the axis an input (default -2, negative counted from
    the back), dft_length padding and truncating, onesided and inverse."""
    rng = np.random.default_rng(20)

    def case(name, nodes, inits, feeds):
        inputs = [vi(k, list(v.shape)) for k, v in feeds.items()]
        write_case(out, name, model(nodes, inputs, [vi("y", None)], 20, inits), feeds, ort_dir)

    def scalar(name, value):
        return numpy_helper.from_array(np.array(value, dtype=np.int64), name)

    case("dft_axis_input_onesided_20", [helper.make_node("DFT", ["x", "", "axis"], ["y"], onesided=1)],
         [scalar("axis", 2)], {"x": rng.standard_normal((2, 3, 10, 1)).astype(np.float32)})
    case("dft_default_axis_inverse_length_20", [helper.make_node("DFT", ["x", "n"], ["y"], inverse=1)],
         [scalar("n", 16)], {"x": rng.standard_normal((2, 12, 2)).astype(np.float32)})
    case("dft_negative_axis_truncated_20", [helper.make_node("DFT", ["x", "n", "axis"], ["y"])],
         [scalar("n", 6), scalar("axis", -3)], {"x": rng.standard_normal((3, 8, 5, 2)).astype(np.float32)})


def grid_sample_cases(ort_dir, out):
    """GridSample of opset 20: the modes renamed linear and cubic, and 3-D
    inputs [N, C, D, H, W] with grids [N, D_out, H_out, W_out, 3] (linear and
    nearest; cubic stays 2-D). Grids reach past [-1, 1] so that every
    padding mode matters (cubic pads each of its 16 pixels, not the
    location)."""
    rng = np.random.default_rng(2020)

    def case(name, attrs, x, grid):
        feeds = {"x": x, "grid": grid}
        inputs = [vi(k, list(v.shape)) for k, v in feeds.items()]
        node = helper.make_node("GridSample", ["x", "grid"], ["y"], **attrs)
        write_case(out, name, model([node], inputs, [vi("y", None)], 20), feeds, ort_dir)

    x2 = rng.standard_normal((2, 3, 5, 6)).astype(np.float32)
    g2 = rng.uniform(-1.3, 1.3, size=(2, 4, 7, 2)).astype(np.float32)
    case("gridsample_linear_default_20", {}, x2, g2)
    case("gridsample_cubic_border_20", dict(mode="cubic", padding_mode="border"), x2, g2)
    case("gridsample_cubic_reflection_align_corners_20",
         dict(mode="cubic", padding_mode="reflection", align_corners=1), x2, g2)
    case("gridsample_nearest_reflection_align_corners_20",
         dict(mode="nearest", padding_mode="reflection", align_corners=1), x2, g2)
    x3 = rng.standard_normal((2, 2, 3, 4, 5)).astype(np.float32)
    g3 = rng.uniform(-1.3, 1.3, size=(2, 3, 4, 2, 3)).astype(np.float32)
    case("gridsample_3d_linear_20", dict(mode="linear"), x3, g3)
    case("gridsample_3d_linear_border_align_corners_20", dict(mode="linear", padding_mode="border", align_corners=1),
         x3, g3)
    case("gridsample_3d_linear_reflection_20", dict(mode="linear", padding_mode="reflection"), x3, g3)
    case("gridsample_3d_nearest_20", dict(mode="nearest"), x3, g3)
    case("gridsample_3d_nearest_reflection_align_corners_20",
         dict(mode="nearest", padding_mode="reflection", align_corners=1), x3, g3)


if __name__ == "__main__":
    main()

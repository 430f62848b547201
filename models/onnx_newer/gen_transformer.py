#!/usr/bin/python3
"""Cases of BitwiseAnd/Or/Xor/Not and CenterCropPad (opset 18), with
outputs from ONNX Runtime 1.30 (ort_oracle.py):

    models/onnx_newer/gen_transformer.py /tmp/ort130   # ORT_DIR holding onnxruntime-node 1.30.0

Every input is a graph input, fed with the arrays below, except
CenterCropPad's shape, which edgec reads at import time (an initializer).
"""
import os
import sys

import numpy as np
from onnx import helper, mapping, numpy_helper

from ort_oracle import model, write_case


def vi(name, a):
    """A graph value of the element type and shape of array `a` (None: any shape)."""
    return helper.make_tensor_value_info(name, mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(a.dtype)], list(a.shape))


def out(name, dtype=np.float32):
    return helper.make_tensor_value_info(name, mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dtype)], None)


def main():
    ort_dir, folder = sys.argv[1], os.path.dirname(os.path.abspath(__file__))
    # Each section below draws from a generator of its own, so that cases
    # added to one leave the data of the others as it was.
    rng = None

    def normal(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    def case(name, node, feeds, outputs, opset, inits=()):
        """One node reading `feeds` (name -> array, in input order) and `inits`."""
        m = model([node], [vi(k, v) for k, v in feeds.items()], outputs, opset, inits)
        write_case(folder, name, m, feeds, ort_dir)

    # ---- BitwiseAnd/Or/Xor/Not ----
    rng = np.random.default_rng(3)
    def ints(shape, dtype):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)

    for dtype, tname in ((np.int32, "int32"), (np.uint8, "uint8")):
        for op in ("And", "Or", "Xor"):
            feeds = {"a": ints((3, 4), dtype), "b": ints((4,), dtype)}
            case("bitwise_%s_%s_18" % (op.lower(), tname), helper.make_node("Bitwise" + op, ["a", "b"], ["c"]),
                 feeds, [out("c", dtype)], 18)
        case("bitwise_not_%s_18" % tname, helper.make_node("BitwiseNot", ["x"], ["y"]),
             {"x": ints((2, 3, 4), dtype)}, [out("y", dtype)], 18)

    # ---- CenterCropPad ----
    rng = np.random.default_rng(4)
    def crop_pad(name, x, shape, **attrs):
        target = numpy_helper.from_array(np.array(shape, np.int64), "shape")
        case(name, helper.make_node("CenterCropPad", ["x", "shape"], ["y"], **attrs), {"x": x}, [out("y", x.dtype)],
             18, [target])

    crop_pad("centercroppad_crop_18", normal(2, 7, 9), [2, 4, 4])
    crop_pad("centercroppad_pad_18", normal(2, 3, 4), [2, 6, 7])
    crop_pad("centercroppad_crop_and_pad_axes_18", normal(2, 5, 6, 3), [3, 6], axes=[1, -1])
    crop_pad("centercroppad_int32_axes_18", ints((4, 5, 6), np.int32), [2, 9], axes=[2, 0])


if __name__ == "__main__":
    main()

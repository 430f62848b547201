#!/usr/bin/python3
"""Cases of RotaryEmbedding and Attention (opset 23), BitwiseAnd/Or/Xor/Not
and CenterCropPad (opset 18), with outputs from ONNX Runtime 1.30
(ort_oracle.py):

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
    """A graph input of the element type and shape of array `a`."""
    return helper.make_tensor_value_info(name, mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(a.dtype)], list(a.shape))


def out(name, dtype=np.float32):
    """A graph output of element type `dtype`, of any shape."""
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

    # ---- RotaryEmbedding ----
    rng = np.random.default_rng(1)

    def caches(positions, half):
        """cos and sin of position * frequency, (positions, half)."""
        freq = 1.0 / (10000 ** (np.arange(half) / half))
        angle = np.outer(np.arange(positions), freq)
        return np.cos(angle).astype(np.float32), np.sin(angle).astype(np.float32)

    def rotary(name, x, half, num_heads=None, position_ids=None, **attrs):
        batch, seq = x.shape[0], x.shape[-2] if x.ndim == 4 else x.shape[1]
        if position_ids is None:
            # Per batch and position already: positions shifted per batch.
            cos, sin = caches(seq + batch, half)
            pick = np.stack([np.arange(seq) + b for b in range(batch)])
            feeds = {"x": x, "cos": cos[pick], "sin": sin[pick]}
        else:
            cos, sin = caches(16, half)
            feeds = {"x": x, "cos": cos, "sin": sin, "position_ids": position_ids}
        if num_heads is not None:
            attrs["num_heads"] = num_heads
        node = helper.make_node("RotaryEmbedding", list(feeds), ["y"], **attrs)
        case(name, node, feeds, [out("y")], 23)

    positions = np.array([[0, 1, 2, 3, 4], [7, 3, 9, 0, 15]], np.int64)
    rotary("rotary_4d_23", normal(2, 3, 5, 8), 4)
    rotary("rotary_4d_interleaved_23", normal(2, 3, 5, 8), 4, interleaved=1)
    rotary("rotary_4d_position_ids_23", normal(2, 3, 5, 8), 4, position_ids=positions)
    rotary("rotary_3d_position_ids_23", normal(2, 5, 24), 4, num_heads=3, position_ids=positions)
    rotary("rotary_3d_interleaved_position_ids_23", normal(2, 5, 24), 4, num_heads=3, position_ids=positions,
           interleaved=1)
    rotary("rotary_3d_23", normal(2, 5, 12), 3, num_heads=2)
    rotary("rotary_3d_partial_dim_23", normal(2, 5, 24), 2, num_heads=3, position_ids=positions,
           rotary_embedding_dim=4)
    rotary("rotary_4d_partial_dim_interleaved_23", normal(2, 2, 5, 10), 3, interleaved=1, rotary_embedding_dim=6)

    # ---- Attention ----
    rng = np.random.default_rng(2)

    def attention(name, feeds, outputs=("y",), **attrs):
        """Attention of the feeds (Q, K, V, then optional inputs by name)."""
        order = ["q", "k", "v", "mask", "past_key", "past_value"]
        inputs = [k if k in feeds else "" for k in order]
        while inputs[-1] == "":
            inputs.pop()
        all_outputs = ["y", "present_key", "present_value", "qk"]
        names = [o if o in outputs else "" for o in all_outputs]
        while names[-1] == "":
            names.pop()
        node = helper.make_node("Attention", inputs, names, **attrs)
        ordered = {k: feeds[k] for k in order if k in feeds}
        case(name, node, ordered, [out(o) for o in names if o], 23)

    attention("attention_4d_23", {"q": normal(2, 3, 4, 8), "k": normal(2, 3, 6, 8), "v": normal(2, 3, 6, 5)})
    attention("attention_3d_heads_23", {"q": normal(2, 4, 24), "k": normal(2, 6, 24), "v": normal(2, 6, 15)},
              q_num_heads=3, kv_num_heads=3)
    attention("attention_gqa_4d_23", {"q": normal(1, 4, 3, 8), "k": normal(1, 2, 5, 8), "v": normal(1, 2, 5, 8)})
    attention("attention_gqa_3d_23", {"q": normal(2, 3, 32), "k": normal(2, 5, 16), "v": normal(2, 5, 16)},
              q_num_heads=4, kv_num_heads=2)
    attention("attention_mqa_3d_23", {"q": normal(1, 3, 24), "k": normal(1, 4, 8), "v": normal(1, 4, 6)},
              q_num_heads=3, kv_num_heads=1)
    attention("attention_causal_23", {"q": normal(2, 2, 5, 8), "k": normal(2, 2, 5, 8), "v": normal(2, 2, 5, 8)},
              is_causal=1)
    attention("attention_causal_cross_23", {"q": normal(1, 2, 3, 8), "k": normal(1, 2, 6, 8), "v": normal(1, 2, 6, 8)},
              is_causal=1)
    bool_mask = rng.random((2, 1, 4, 6)) < 0.7
    bool_mask[:, :, :, 0] = True  # no row masked everywhere
    attention("attention_bool_mask_23",
              {"q": normal(2, 3, 4, 8), "k": normal(2, 3, 6, 8), "v": normal(2, 3, 6, 8), "mask": bool_mask})
    attention("attention_bool_mask_2d_causal_23",
              {"q": normal(1, 2, 4, 8), "k": normal(1, 2, 4, 8), "v": normal(1, 2, 4, 8),
               "mask": rng.random((4, 4)) < 0.8}, is_causal=1)
    attention("attention_float_mask_23",
              {"q": normal(2, 3, 4, 8), "k": normal(2, 3, 6, 8), "v": normal(2, 3, 6, 8), "mask": normal(3, 4, 6)})
    attention("attention_float_mask_3d_gqa_23",
              {"q": normal(2, 3, 32), "k": normal(2, 5, 16), "v": normal(2, 5, 16), "mask": normal(2, 1, 3, 5)},
              q_num_heads=4, kv_num_heads=2)
    attention("attention_softcap_23", {"q": normal(1, 2, 4, 8), "k": normal(1, 2, 6, 8), "v": normal(1, 2, 6, 8)},
              softcap=0.5)
    attention("attention_softcap_causal_23",
              {"q": normal(1, 2, 4, 8), "k": normal(1, 2, 4, 8), "v": normal(1, 2, 4, 8)}, softcap=0.8, is_causal=1)
    attention("attention_softcap_float_mask_23",
              {"q": normal(1, 2, 4, 8), "k": normal(1, 2, 6, 8), "v": normal(1, 2, 6, 8), "mask": normal(4, 6)},
              softcap=1.5)
    attention("attention_scale_23", {"q": normal(2, 2, 3, 8), "k": normal(2, 2, 5, 8), "v": normal(2, 2, 5, 4)},
              scale=0.7)
    attention("attention_qk_output_23", {"q": normal(2, 2, 3, 8), "k": normal(2, 2, 5, 8), "v": normal(2, 2, 5, 4)},
              outputs=("y", "qk"), scale=0.3, softcap=2.0)
    attention("attention_past_23",
              {"q": normal(2, 2, 1, 8), "k": normal(2, 2, 1, 8), "v": normal(2, 2, 1, 6),
               "past_key": normal(2, 2, 4, 8), "past_value": normal(2, 2, 4, 6)},
              outputs=("y", "present_key", "present_value"))
    attention("attention_past_causal_23",
              {"q": normal(1, 2, 3, 8), "k": normal(1, 2, 3, 8), "v": normal(1, 2, 3, 8),
               "past_key": normal(1, 2, 4, 8), "past_value": normal(1, 2, 4, 8)},
              outputs=("y", "present_key", "present_value"), is_causal=1)
    attention("attention_past_3d_gqa_mask_23",
              {"q": normal(2, 2, 32), "k": normal(2, 2, 16), "v": normal(2, 2, 16),
               "mask": rng.random((2, 1, 2, 5)) < 0.8, "past_key": normal(2, 2, 3, 8), "past_value": normal(2, 2, 3, 8)},
              outputs=("y", "present_key", "present_value"), q_num_heads=4, kv_num_heads=2)
    attention("attention_present_without_past_23",
              {"q": normal(1, 6, 12), "k": normal(1, 6, 12), "v": normal(1, 6, 12)},
              outputs=("y", "present_key", "present_value"), q_num_heads=2, kv_num_heads=2)

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

"""Fixtures written directly with onnx.helper, for constructs PyTorch 1.13's
exporter does not write (Scan), with their references computed in numpy.

Each builder takes a numpy Generator (make_fixtures.py seeds it from the
fixture's name) and returns (model, inputs, reference, extras): the
ModelProto (opset 17), the main input set (name -> array), a function from
an input set to the list of outputs in graph order, and {"cases": {label:
input set}} for the extra input sets (NAME.case-LABEL.*.npz).
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
BATCH, FEATURES = 2, 4


def _scan_cumulative_model(w, acc0):
    f32 = TensorProto.FLOAT
    state = [BATCH, FEATURES]
    body = helper.make_graph(
        [
            # W is read from the outer graph (an initializer there).
            helper.make_node("MatMul", ["s_prev", "W"], ["sw"], name="body_matmul"),
            helper.make_node("Add", ["sw", "x_t"], ["pre"], name="body_add"),
            helper.make_node("Tanh", ["pre"], ["s_next"], name="body_tanh"),
            helper.make_node("Mul", ["s_next", "xr_t"], ["z_t"], name="body_mul"),
            helper.make_node("Constant", [], ["half"], name="body_half",
                             value=numpy_helper.from_array(np.array(0.5, np.float32), "half")),
            helper.make_node("Mul", ["z_t", "half"], ["z_half"], name="body_scale"),
            helper.make_node("Add", ["acc_prev", "z_half"], ["acc_next"], name="body_acc"),
            helper.make_node("Identity", ["s_next"], ["s_t"], name="body_s_out"),
        ],
        "scan_cumulative_body",
        [helper.make_tensor_value_info("s_prev", f32, state),
         helper.make_tensor_value_info("acc_prev", f32, state),
         helper.make_tensor_value_info("x_t", f32, state),
         helper.make_tensor_value_info("xr_t", f32, state)],
        [helper.make_tensor_value_info("s_next", f32, state),
         helper.make_tensor_value_info("acc_next", f32, state),
         helper.make_tensor_value_info("s_t", f32, state),
         helper.make_tensor_value_info("z_t", f32, state)],
    )
    scan = helper.make_node(
        "Scan", ["s0", "acc0", "x", "x"], ["s", "acc", "ys", "zs"], name="scan",
        body=body, num_scan_inputs=2, scan_input_directions=[0, 1], scan_output_directions=[0, 1])
    seq = ["seq", BATCH, FEATURES]
    graph = helper.make_graph(
        [scan], "scan_cumulative",
        [helper.make_tensor_value_info("x", f32, seq), helper.make_tensor_value_info("s0", f32, state)],
        [helper.make_tensor_value_info("s", f32, state), helper.make_tensor_value_info("acc", f32, state),
         helper.make_tensor_value_info("ys", f32, seq), helper.make_tensor_value_info("zs", f32, seq)],
        initializer=[numpy_helper.from_array(w, "W"), numpy_helper.from_array(acc0, "acc0")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="edgec models/nets/onnx_built.py")
    model.ir_version = 8  # what torch 1.13 writes at opset 17
    return model


def build_scan_cumulative(rng):
    """Scan over x [seq, 2, 4] (seq symbolic) in both directions at once:
    x read forward as x_t and backward as xr_t, states s (s0 an input) and
    acc (a zero initializer), scan outputs ys forward and zs reversed:

        s_t   = tanh(s_{t-1} @ W + x[t])
        z_t   = s_t * x[seq-1-t]
        acc_t = acc_{t-1} + 0.5 * z_t
        ys[t] = s_t,  zs[seq-1-t] = z_t
    """
    w = (rng.standard_normal((FEATURES, FEATURES)) * 0.6).astype(np.float32)
    acc0 = np.zeros((BATCH, FEATURES), np.float32)

    def inputs(seq):
        return {"x": rng.standard_normal((seq, BATCH, FEATURES)).astype(np.float32),
                "s0": (rng.standard_normal((BATCH, FEATURES)) * 0.5).astype(np.float32)}

    def reference(given):
        x, s = given["x"], given["s0"].copy()
        acc = acc0.copy()
        ys, zs = [], []
        for t in range(x.shape[0]):
            s = np.tanh(s @ w + x[t]).astype(np.float32)
            z = (s * x[x.shape[0] - 1 - t]).astype(np.float32)
            acc = (acc + np.float32(0.5) * z).astype(np.float32)
            ys.append(s)
            zs.append(z)
        stack = lambda a: np.stack(a) if a else np.zeros((0, BATCH, FEATURES), np.float32)  # noqa: E731
        return [s, acc, stack(ys), stack(zs[::-1])]

    main = inputs(5)
    cases = {"seq1": inputs(1), "seq8": inputs(8)}
    return _scan_cumulative_model(w, acc0), main, reference, {"cases": cases}

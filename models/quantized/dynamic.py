#!/usr/bin/python3
"""Dynamic quantization of a float32 ONNX model's MatMuls, in the form ONNX
Runtime's quantize_dynamic writes (issue 32: the GPT-style decoder of the
benchmark):

    x -> DynamicQuantizeLinear -> (x_q uint8, x_scale, x_zero_point)
    MatMulInteger(x_q, W_q int8, x_zero_point, W_zero_point 0) -> int32
    Cast(to float) ; Mul(x_scale, W_scale) ; Mul -> y

    /usr/bin/python3 models/quantized/dynamic.py MODEL.onnx OUT.onnx

Each MatMul whose second input is a 2-D float32 initializer (a weight) is
rewritten; a MatMul of two activations (attention's) stays float32, and so
does every other operator (quantize_dynamic's default op types are MatMul,
Conv and Attention; this model has only MatMul of them outside Gemm, which
quantize_dynamic leaves float). The weight is quantized as quantize_dynamic
does by default: int8, per tensor, symmetric (scale = max |W| / 127 in
float32, zero point 0, values rounded half to even and clipped to
[-127, 127]). An activation read by several such MatMuls is quantized once.
Prints what it rewrote.
"""
import sys

sys.dont_write_bytecode = True

import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def quantize_weight(w):
    rmax = np.float32(np.abs(w).max())
    scale = np.float32(rmax / np.float32(127)) if rmax > 0 else np.float32(1)
    q = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
    return q, scale


def rewrite(model):
    graph = model.graph
    inits = {t.name: t for t in graph.initializer}
    nodes, new_inits, quantized_inputs = [], [], {}
    rewritten = 0
    for node in graph.node:
        w = inits.get(node.input[1]) if node.op_type == "MatMul" else None
        if w is None or w.data_type != TensorProto.FLOAT or len(w.dims) != 2:
            nodes.append(node)
            continue
        base = node.name or node.output[0]
        x = node.input[0]
        if x not in quantized_inputs:
            q = f"{x}_quantized"
            quantized_inputs[x] = (q, f"{x}_scale", f"{x}_zero_point")
            nodes.append(helper.make_node("DynamicQuantizeLinear", [x], list(quantized_inputs[x]),
                                          name=f"{x}_QuantizeLinear"))
        xq, xs, xzp = quantized_inputs[x]
        wq, ws = quantize_weight(numpy_helper.to_array(w))
        wq_name, ws_name, wzp_name = f"{w.name}_quantized", f"{w.name}_scale", f"{w.name}_zero_point"
        if wq_name not in {t.name for t in new_inits}:
            new_inits += [numpy_helper.from_array(wq, wq_name), numpy_helper.from_array(ws, ws_name),
                          numpy_helper.from_array(np.int8(0), wzp_name)]
        y = node.output[0]
        nodes += [
            helper.make_node("MatMulInteger", [xq, wq_name, xzp, wzp_name], [f"{y}_output_quantized"],
                             name=f"{base}_quant"),
            helper.make_node("Cast", [f"{y}_output_quantized"], [f"{y}_output_quantized_cast"],
                             to=TensorProto.FLOAT, name=f"{base}_cast"),
            helper.make_node("Mul", [xs, ws_name], [f"{y}_scales_mul"], name=f"{base}_scales_mul"),
            helper.make_node("Mul", [f"{y}_output_quantized_cast", f"{y}_scales_mul"], [y], name=f"{base}_output"),
        ]
        rewritten += 1
    used = {i for n in nodes for i in n.input}
    kept = [t for t in graph.initializer if t.name in used]
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(kept + new_inits)
    return rewritten, len(quantized_inputs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("out")
    args = parser.parse_args()
    model = onnx.load(args.model)
    if not any(o.domain in ("", "ai.onnx") and o.version >= 11 for o in model.opset_import):
        raise SystemExit(f"dynamic.py: {args.model}: DynamicQuantizeLinear needs opset >= 11")
    matmuls, activations = rewrite(model)
    onnx.checker.check_model(model)
    onnx.save(model, args.out)
    print(f"dynamic.py: {matmuls} MatMul(s) with constant weights -> MatMulInteger, {activations} "
          f"DynamicQuantizeLinear; {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

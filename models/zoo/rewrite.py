#!/usr/bin/python3
"""Rewrites an opset-17 model (as torch 1.13 exports it) to opset 18, 20 or 21,
the way newer exporters write those opsets.

    /usr/bin/python3 models/zoo/rewrite.py IN.onnx OUT.onnx --opset N

Debian's ONNX 1.12 knows no schema past opset 17, so this is done by hand,
following ONNX's changelog:
  - 18: the Reduce* operators other than ReduceSum take `axes` as an input
    instead of an attribute; Split without a `split` input needs
    `num_outputs`, and a Split into equal parts is written with
    `num_outputs` (as torch.onnx's newer exporter writes torch.chunk);
  - 20: the erf form of GELU (x * 0.5 * (1 + erf(x / sqrt 2)), five nodes
    in torch 1.13's export) is the Gelu operator;
  - 21: no operator of these models changed (21 adds element types);
and the IR version is the one the opset came with (8, 9, 10).
The result is checked by ONNX Runtime 1.30 (ort_check.py), which runs these
opsets; edgec's tests compare both with PyTorch.
"""
import argparse
import collections
import math
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

IR_OF_OPSET = {18: 8, 20: 9, 21: 10}
REDUCE_AXES_BECAME_INPUT = {"ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                            "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"}


def _constants(graph):
    """name -> numpy value of every initializer and Constant node's output."""
    values = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    for n in graph.node:
        if n.op_type == "Constant" and n.attribute and n.attribute[0].name == "value":
            values[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
    return values


def _shapes(model):
    """name -> static shape of every value shape inference sizes (ONNX 1.12's
    inference, run on the opset-17 model before it is rewritten)."""
    inferred = onnx.shape_inference.infer_shapes(model)
    shapes = {}
    for vi in list(inferred.graph.value_info) + list(inferred.graph.input) + list(inferred.graph.output):
        dims = vi.type.tensor_type.shape.dim
        if all(d.HasField("dim_value") for d in dims):
            shapes[vi.name] = [d.dim_value for d in dims]
    return shapes


def _attr(node, name, default=None):
    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


def _drop_attr(node, name):
    kept = [a for a in node.attribute if a.name != name]
    del node.attribute[:]
    node.attribute.extend(kept)


def _to_opset_18(model):
    graph = model.graph
    constants = _constants(graph)
    shapes = None  # inferred on the first Split that needs them (slow on large models)
    taken = {i.name for i in graph.initializer} | {o for n in graph.node for o in n.output}
    for k, node in enumerate(graph.node):
        if node.op_type in REDUCE_AXES_BECAME_INPUT:
            axes = _attr(node, "axes")
            if axes is not None:
                name = f"{node.name or node.op_type + str(k)}_axes"
                while name in taken:
                    name += "_"
                taken.add(name)
                graph.initializer.append(numpy_helper.from_array(np.array(axes, dtype=np.int64), name))
                _drop_attr(node, "axes")
                node.input.append(name)
        elif node.op_type == "Split":
            outputs = len(node.output)
            if len(node.input) < 2 or not node.input[1]:
                node.attribute.append(helper.make_attribute("num_outputs", outputs))
            else:
                split = constants.get(node.input[1])
                axis = _attr(node, "axis", 0)
                if split is not None and shapes is None:
                    shapes = _shapes(model)
                shape = shapes.get(node.input[0]) if shapes is not None else None
                if split is not None and shape is not None and len(set(split.tolist())) == 1:
                    dim = shape[axis]
                    if math.ceil(dim / outputs) == split[0]:
                        del node.input[1:]
                        node.attribute.append(helper.make_attribute("num_outputs", outputs))


def _gelu_chains(graph, constants):
    """(x, [the five nodes], output) of every erf GELU as torch 1.13 exports it:
    Div(x, sqrt 2) -> Erf -> Add(1) -> Mul(x, .) -> Mul(., 0.5)."""
    consumers = {}
    for n in graph.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)

    def scalar(name, value):
        v = constants.get(name)
        return v is not None and v.size == 1 and abs(float(v.reshape(())) - value) < 1e-6

    def only_consumer(value, op_type):
        users = consumers.get(value, [])
        return users[0] if len(users) == 1 and users[0].op_type == op_type else None

    chains = []
    for div in graph.node:
        if div.op_type != "Div" or not scalar(div.input[1], math.sqrt(2)):
            continue
        x = div.input[0]
        erf = only_consumer(div.output[0], "Erf")
        add = erf and only_consumer(erf.output[0], "Add")
        if not add or not (scalar(add.input[1], 1.0) or scalar(add.input[0], 1.0)):
            continue
        mul = only_consumer(add.output[0], "Mul")
        if not mul or x not in mul.input:
            continue
        half = only_consumer(mul.output[0], "Mul")
        if not half or not (scalar(half.input[1], 0.5) or scalar(half.input[0], 0.5)):
            continue
        chains.append((x, [div, erf, add, mul, half], half.output[0]))
    return chains


def _to_opset_20(model):
    graph = model.graph
    chains = _gelu_chains(graph, _constants(graph))
    first = {id(c[1][0]): c for c in chains}
    dropped = {id(n) for c in chains for n in c[1]}
    nodes = []
    for n in graph.node:
        if id(n) in first:
            x, _, out = first[id(n)]
            nodes.append(helper.make_node("Gelu", [x], [out], name=(n.name or out) + "_gelu"))
        elif id(n) not in dropped:
            nodes.append(n)
    del graph.node[:]
    graph.node.extend(nodes)
    return len(chains)


def rewrite(model, opset):
    """A copy of the opset-17 `model` at `opset` (18, 20 or 21)."""
    if opset not in IR_OF_OPSET:
        raise ValueError(f"opset {opset}: rewrite.py writes {sorted(IR_OF_OPSET)}")
    versions = {o.domain: o.version for o in model.opset_import}
    if versions.get("", versions.get("ai.onnx")) != 17:
        raise ValueError(f"the model is at opset {versions}; rewrite.py starts from 17")
    out = onnx.ModelProto()
    out.CopyFrom(model)
    _to_opset_18(out)
    if opset >= 20:
        _to_opset_20(out)
    del out.graph.value_info[:]  # inferred by ONNX 1.12's rules; consumers infer their own
    for o in out.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = opset
    out.ir_version = IR_OF_OPSET[opset]
    out.producer_name = "edgec models/zoo/rewrite.py"
    return out


def changes(before, after):
    """What the rewrite changed, in words: the nodes that now take `axes` as
    an input, the Splits with `num_outputs`, and the operators added or
    removed."""
    def count(m, pred):
        return sum(1 for n in m.graph.node if pred(n))
    words = []
    axes = count(after, lambda n: n.op_type in REDUCE_AXES_BECAME_INPUT and len(n.input) > 1)
    if axes:
        words.append(f"{axes} Reduce* with axes as an input")
    splits = count(after, lambda n: n.op_type == "Split" and _attr(n, "num_outputs") is not None)
    if splits:
        words.append(f"{splits} Split with num_outputs")
    ops_before = collections.Counter(n.op_type for n in before.graph.node)
    ops_after = collections.Counter(n.op_type for n in after.graph.node)
    for op in sorted(set(ops_before) | set(ops_after)):
        delta = ops_after[op] - ops_before[op]
        if delta:
            words.append(f"{op} {delta:+d}")
    return ", ".join(words) or "only the opset and IR version"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source")
    parser.add_argument("target")
    parser.add_argument("--opset", type=int, required=True, choices=sorted(IR_OF_OPSET))
    args = parser.parse_args()
    onnx.save(rewrite(onnx.load(args.source), args.opset), args.target)
    return 0


if __name__ == "__main__":
    sys.exit(main())

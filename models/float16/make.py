#!/usr/bin/python3
"""A float16 ONNX model as the float16 converters write one (issue 31):
a small U-Net-like segmentation net (convolutions with batch norm and ReLU,
max pooling, a residual add, hardswish, bilinear upsampling, concat on
channels, a sigmoid mask head, and a global-average-pooled linear head for
class logits), exported by PyTorch 1.13 in float32 at opset 17 and then
converted the way onnxconverter_common.float16.convert_float_to_float16
(keep_io_types=True) converts a model:

  - every float initializer and Constant becomes float16 (but those only
    blocked operators read) (the file holds
    half the bytes), every float value in the graph becomes float16;
  - a Cast to float16 after each float input and a Cast back to float
    before each output, so the model's inputs and outputs stay float32;
  - the operators of the converter's default block list met here (Resize)
    stay float32 with a Cast pair around them, and their float initializer
    operands (scales) stay float32.

The converter appends the input Casts at the end of the node list; this
script puts them first (`--converter-order` appends them, for an importer
that sorts nodes).

    /usr/bin/python3 models/float16/make.py OUTDIR [--size 64] [--width 8] [--converter-order]

writes OUTDIR/segnet.onnx (float32), OUTDIR/segnet.f16.onnx (float16), and
OUTDIR/segnet.inputs.npz / segnet.outputs.npz (input 'image'; PyTorch's
float32 outputs 'mask' and 'logits'). The data is seeded: the same
arguments give the same files. --size and --width scale the net for
bench/float16 (512 and 32 there).
"""
import sys

sys.dont_write_bytecode = True

import argparse
import io
import os

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

BLOCKED = {"Resize"}  # Of the converter's DEFAULT_OP_BLOCK_LIST, what torch exports here.


def block(cin, cout):
    return torch.nn.Sequential(
        torch.nn.Conv2d(cin, cout, 3, padding=1, bias=False),
        torch.nn.BatchNorm2d(cout),
        torch.nn.ReLU(),
    )


class SegNet(torch.nn.Module):
    def __init__(self, w, classes=10):
        super().__init__()
        self.enc1 = torch.nn.Sequential(block(3, w), block(w, w))
        self.enc2 = block(w, 2 * w)
        self.enc2b = torch.nn.Conv2d(2 * w, 2 * w, 3, padding=1)
        self.bott = torch.nn.Sequential(block(2 * w, 4 * w), block(4 * w, 4 * w))
        self.up2 = block(6 * w, 2 * w)
        self.up1 = block(3 * w, w)
        self.head = torch.nn.Conv2d(w, 1, 1)
        self.fc = torch.nn.Linear(4 * w, classes)
        self.pool = torch.nn.MaxPool2d(2)
        self.up = torch.nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        e2 = torch.nn.functional.hardswish(self.enc2b(e2) + e2)
        b = self.bott(self.pool(e2))
        d2 = self.up2(torch.cat([self.up(b), e2], dim=1))
        d1 = self.up1(torch.cat([self.up(d2), e1], dim=1))
        mask = torch.sigmoid(self.head(d1))
        logits = self.fc(b.mean(dim=(2, 3)))
        return mask, logits


def make_torch(width, seed):
    torch.manual_seed(seed)
    net = SegNet(width)
    # Batch statistics away from the identity, so that folding them matters.
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
    return net.eval()


def export(net, x):
    f = io.BytesIO()
    torch.onnx.export(net, (x,), f, opset_version=17, input_names=["image"], output_names=["mask", "logits"],
                      do_constant_folding=True)
    return onnx.load_from_string(f.getvalue())


def to_float16(model, converter_order):
    """The conversion convert_float_to_float16(keep_io_types=True) makes
    (module docstring)."""
    g = model.graph
    F32, F16 = TensorProto.FLOAT, TensorProto.FLOAT16
    inits = {t.name: t for t in g.initializer}
    blocked_uses, other_uses = set(), set()
    for n in g.node:
        (blocked_uses if n.op_type in BLOCKED else other_uses).update(n.input)
    for name, t in inits.items():
        if t.data_type == F32 and name in other_uses:
            t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float16), name))
    nodes = []
    for n in g.node:
        if n.op_type == "Constant" and n.output[0] in other_uses:
            for a in n.attribute:
                if a.name == "value" and a.t.data_type == F32:
                    a.t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(a.t).astype(np.float16)))
        if n.op_type == "Cast":
            for a in n.attribute:
                if a.name == "to" and a.i == F32:
                    a.i = F16
        if n.op_type in BLOCKED:
            # Data in f32 around it: its first operand cast up, its result cast down.
            up, out = n.input[0] + "_f32_" + n.name, n.output[0]
            nodes.append(helper.make_node("Cast", [n.input[0]], [up], to=F32, name=n.name + "_input_cast0"))
            n.input[0] = up
            n.output[0] = out + "_f32"
            nodes.append(n)
            nodes.append(helper.make_node("Cast", [out + "_f32"], [out], to=F16, name=n.name + "_output_cast0"))
            continue
        nodes.append(n)
    input_casts = []
    for i, inp in enumerate(g.input):
        if inp.name in inits or inp.type.tensor_type.elem_type != F32:
            continue
        cast_out = f"graph_input_cast_{i}"
        for n in nodes:
            for k, name in enumerate(n.input):
                if name == inp.name:
                    n.input[k] = cast_out
        input_casts.append(helper.make_node("Cast", [inp.name], [cast_out], to=F16, name=f"graph_input_cast{i}"))
    output_casts = []
    for i, out in enumerate(g.output):
        if out.type.tensor_type.elem_type != F32:
            continue
        inner = f"graph_output_cast_{i}"
        for n in nodes:
            for k, name in enumerate(n.output):
                if name == out.name:
                    n.output[k] = inner
        output_casts.append(helper.make_node("Cast", [inner], [out.name], to=F32, name=f"graph_output_cast{i}"))
    all_nodes = (nodes + input_casts if converter_order else input_casts + nodes) + output_casts
    del g.node[:]
    g.node.extend(all_nodes)
    del g.value_info[:]
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir")
    parser.add_argument("--size", type=int, default=64, help="image height and width")
    parser.add_argument("--width", type=int, default=8, help="channels of the first stage")
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--converter-order", action="store_true",
                        help="append the input Casts at the end of the node list, as the converter does")
    args = parser.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    net = make_torch(args.width, args.seed)
    rng = np.random.default_rng(args.seed)
    x = rng.uniform(-1, 1, (1, 3, args.size, args.size)).astype(np.float32)
    with torch.no_grad():
        mask, logits = net(torch.from_numpy(x))
    model = export(net, torch.from_numpy(x))
    base = os.path.join(args.outdir, "segnet")
    onnx.save(model, base + ".onnx")
    f16 = to_float16(model, args.converter_order)
    if not args.converter_order:
        onnx.checker.check_model(onnx.shape_inference.infer_shapes(f16), full_check=True)
    onnx.save(f16, base + ".f16.onnx")
    np.savez(base + ".inputs.npz", image=x)
    np.savez(base + ".outputs.npz", mask=mask.numpy(), logits=logits.numpy())
    print(f"{base}.onnx ({os.path.getsize(base + '.onnx')} bytes), {base}.f16.onnx "
          f"({os.path.getsize(base + '.f16.onnx')} bytes)")


if __name__ == "__main__":
    sys.exit(main())

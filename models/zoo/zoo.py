#!/usr/bin/python3
"""The developers' own model zoo: torchvision architectures exported by torch
1.13 at opsets 17, 11 and 12, rewritten to opsets 18, 20 and 21 the way newer
exporters write them (rewrite.py), with PyTorch's outputs as the reference.

    /usr/bin/python3 models/zoo/zoo.py OUTDIR NAME [--opsets 17,11,12,18,20,21]
    /usr/bin/python3 models/zoo/zoo.py --list

For model NAME it writes, in OUTDIR:
  NAME.opsetN.onnx     one file per opset (11, 12, 17: torch.onnx.export at
                       that opset; 18, 20, 21: the opset-17 file rewritten)
  NAME.inputs.npz      the input image, keyed by the graph input's name
  NAME.outputs.npz     PyTorch's output for it (eval mode, one thread)

Weights are random (torchvision's own initialization, seeded from the name),
and then made to look trained where it matters for a compiler: every
normalization layer's scale and shift moved away from 1 and 0, ConvNeXt's
layer scales from 1e-6 to O(1), and BatchNorm's running statistics measured
on random images (so that eval-mode activations stay O(1) through the depth
of the network) and then perturbed, so that no normalization is the
identity; a layer initialized to zeros (ViT's head) gets random weights.
Must run with Debian's /usr/bin/python3 (python3-torch,
python3-torchvision 0.14, python3-onnx). The output is deterministic.
"""
import sys

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree

import argparse
import os
import time
import warnings
import zlib

import numpy as np
import onnx
import torch
import torchvision
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import rewrite  # noqa: E402
from make_fixtures import save_npz  # noqa: E402

EXPORTED_OPSETS = (17, 11, 12)
REWRITTEN_OPSETS = (18, 20, 21)
ALL_OPSETS = EXPORTED_OPSETS + REWRITTEN_OPSETS


class Segmentation(nn.Module):
    """torchvision's segmentation models return a dict; the exported graph
    has its one tensor ("out") as the output."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x):
        return self.inner(x)["out"]


def _tv(fn, **kw):
    return lambda: getattr(torchvision.models, fn)(weights=None, **kw)


def _seg(fn, **kw):
    return lambda: Segmentation(getattr(torchvision.models.segmentation, fn)(weights=None, weights_backbone=None, **kw))


# name -> (builder, input height and width, output name)
MODELS = {
    "resnet50": (_tv("resnet50"), 224, "logits"),
    "mobilenet_v2": (_tv("mobilenet_v2"), 224, "logits"),
    "mobilenet_v3_small": (_tv("mobilenet_v3_small"), 224, "logits"),
    "mobilenet_v3_large": (_tv("mobilenet_v3_large"), 224, "logits"),
    "efficientnet_b0": (_tv("efficientnet_b0"), 224, "logits"),
    "squeezenet1_1": (_tv("squeezenet1_1"), 224, "logits"),
    "shufflenet_v2_x1_0": (_tv("shufflenet_v2_x1_0"), 224, "logits"),
    "regnet_y_400mf": (_tv("regnet_y_400mf"), 224, "logits"),
    "convnext_tiny": (_tv("convnext_tiny"), 224, "logits"),
    "densenet121": (_tv("densenet121"), 224, "logits"),
    "googlenet": (_tv("googlenet", aux_logits=False, init_weights=True), 224, "logits"),
    "mnasnet1_0": (_tv("mnasnet1_0"), 224, "logits"),
    "vit_b_16": (_tv("vit_b_16"), 224, "logits"),
    "swin_t": (_tv("swin_t"), 224, "logits"),
    "lraspp_mobilenet_v3_large": (_seg("lraspp_mobilenet_v3_large"), 224, "out"),
    "deeplabv3_resnet50": (_seg("deeplabv3_resnet50", aux_loss=False), 224, "out"),
}

NORMS = (nn.BatchNorm2d, nn.LayerNorm, nn.GroupNorm)


@torch.no_grad()
def make_trained_looking(model, hw, generator):
    """Scales and shifts of every norm away from 1 and 0, layer scales O(1),
    BatchNorm statistics measured on random images and then perturbed."""
    for m in model.modules():
        # ViT's head is initialized to zeros (every output would be 0).
        if isinstance(m, (nn.Linear, nn.Conv2d)) and not m.weight.any():
            m.weight.normal_(0, m.weight[0].numel() ** -0.5, generator=generator)
        if isinstance(m, NORMS) and getattr(m, "weight", None) is not None:
            m.weight.uniform_(0.8, 1.2, generator=generator)
            m.bias.normal_(0, 0.1, generator=generator)
        # ConvNeXt's CNBlock (layer_scale, initialized to 1e-6: each block
        # would add next to nothing to its residual).
        scale = getattr(m, "layer_scale", None)
        if isinstance(scale, nn.Parameter):
            scale.uniform_(0.2, 0.6, generator=generator)
    bns = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    if bns:
        model.eval()
        for bn in bns:
            bn.reset_running_stats()
            bn.momentum = None  # the cumulative average over the calibration batches
            bn.train()
        for _ in range(2):
            model(torch.rand(2, 3, hw, hw, generator=generator) * 2 - 1)
        for bn in bns:
            bn.eval()
            bn.momentum = 0.1
            std = bn.running_var.sqrt()
            bn.running_mean.add_(torch.randn(bn.running_mean.shape, generator=generator) * 0.1 * std)
            bn.running_var.mul_(torch.empty(bn.running_var.shape).uniform_(0.8, 1.25, generator=generator))
    model.eval()


def build(name):
    builder, hw, _ = MODELS[name]
    seed = zlib.crc32(name.encode())
    torch.manual_seed(seed)
    model = builder()
    generator = torch.Generator().manual_seed(seed + 1)
    make_trained_looking(model, hw, generator)
    image = torch.rand(1, 3, hw, hw, generator=generator) * 2 - 1
    return model, image


def export(model, image, path, opset, output_name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (image,), path, opset_version=opset, do_constant_folding=True,
                          input_names=["image"], output_names=[output_name])


def make(outdir, name, opsets):
    model, image = build(name)
    output_name = MODELS[name][2]
    with torch.no_grad():
        reference = model(image)
    if not torch.isfinite(reference).all() or reference.std() <= 1e-3 * reference.abs().max() or not reference.any():
        raise SystemExit(f"{name}: PyTorch's output is not a useful reference (constant or not finite): "
                         f"min {reference.min().item():.3g}, max {reference.max().item():.3g}")
    save_npz(os.path.join(outdir, name + ".inputs.npz"), [("image", image.numpy())])
    save_npz(os.path.join(outdir, name + ".outputs.npz"), [(output_name, reference.numpy())])
    exported, source = {}, None
    for opset in sorted(set(opsets) | ({17} if set(opsets) & set(REWRITTEN_OPSETS) else set())):
        path = os.path.join(outdir, f"{name}.opset{opset}.onnx")
        start = time.time()
        if opset in REWRITTEN_OPSETS:
            source = source or onnx.load(exported[17])
            rewritten = rewrite.rewrite(source, opset)
            onnx.save(rewritten, path)
            how = "rewritten from opset 17: " + rewrite.changes(source, rewritten)
        else:
            export(model, image, path, opset, output_name)
            exported[opset] = path
            how = "exported by torch " + torch.__version__
        print(f"{name}: opset {opset}: {os.path.getsize(path) / 1e6:.1f} MB, {how}, {time.time() - start:.1f} s")
    stale = [o for o in exported if o not in opsets]
    for o in stale:  # opset 17 made only as the source of the rewrites
        os.remove(exported[o])
    print(f"{name}: output {output_name} {tuple(reference.shape)}, |max| {reference.abs().max().item():.3g}")


def main():
    parser = argparse.ArgumentParser(description="Export the torchvision zoo and PyTorch references.")
    parser.add_argument("outdir", nargs="?")
    parser.add_argument("name", nargs="?")
    parser.add_argument("--opsets", default=",".join(map(str, ALL_OPSETS)))
    parser.add_argument("--list", action="store_true", help="list the models and exit")
    args = parser.parse_args()
    if args.list:
        for name, (_, hw, out) in MODELS.items():
            print(f"{name} 1x3x{hw}x{hw} {out}")
        return 0
    if not args.outdir or args.name not in MODELS:
        parser.error(f"OUTDIR and a model name are required; --list shows them (got {args.name!r})")
    opsets = [int(o) for o in args.opsets.split(",")]
    bad = [o for o in opsets if o not in ALL_OPSETS]
    if bad:
        parser.error(f"opsets {bad}: the zoo has {list(ALL_OPSETS)}")
    torch.set_num_threads(1)  # bit-identical references from run to run
    os.makedirs(args.outdir, exist_ok=True)
    make(args.outdir, args.name, opsets)
    return 0


if __name__ == "__main__":
    sys.exit(main())

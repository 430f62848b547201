#!/usr/bin/python3
"""Exports edgec's end-to-end fixtures: ONNX models made by Debian's torch 1.13
(opset 17) with their inputs and PyTorch's outputs.

    /usr/bin/python3 models/make_fixtures.py OUTDIR [--only NAME ...] [--large] [--list]

For each fixture NAME it writes OUTDIR/NAME.onnx, OUTDIR/NAME.inputs.npz (keys:
the graph's user inputs) and OUTDIR/NAME.outputs.npz (keys: the graph outputs,
values from the PyTorch model in eval mode), and merges an entry into
OUTDIR/manifest.json (inputs/outputs with shapes and dtypes, parameter count,
operator histogram, notes).

Without options it makes the small fixtures (committed under models/fixtures).
--large adds resnet18, act_full and diffusion_full (tens to hundreds of MB;
made at test/bench time, never committed). --only picks fixtures by name, of
any size. The output is deterministic: fixed seeds, one thread, fixed zip
timestamps; rerunning gives the same bytes.

Must run with Debian's /usr/bin/python3 (python3-torch, python3-onnx).
"""
import sys

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree

import argparse
import collections
import copy
import glob
import hashlib
import io
import json
import os
import re
import time
import warnings
import zipfile
import zlib

import numpy as np
import onnx
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nets import act, detector, diffusion, onnx_built, small  # noqa: E402
from nets.resnet import ResNet, calibrate_batchnorm, perturb_norm_affine  # noqa: E402

OPSET = 17
MANIFEST_VERSION = 1


class Fixture:
    """kind "torch": build() returns (model, inputs[, export settings]);
    kind "onnx": build(rng) returns (ModelProto, inputs, numpy reference,
    extras) (nets/onnx_built.py)."""

    def __init__(self, name, tier, build, outputs, notes, kind="torch"):
        self.name, self.tier, self.build, self.outputs, self.notes = name, tier, build, outputs, notes
        self.kind = kind


def build_resnet18():
    model = ResNet(width=64, norm=torch.nn.BatchNorm2d, num_classes=1000)
    perturb_norm_affine(model)
    calibrate_batchnorm(model, [torch.rand(4, 3, 224, 224) * 2 - 1 for _ in range(2)])
    return model, {"input": torch.rand(1, 3, 224, 224) * 2 - 1}


def _fixtures():
    fx = [
        Fixture("act", "small", lambda: act.build(act.ActConfig()), ["action"],
                "ACT-style policy, small: ResNet-18 layout at width 8 with frozen batch norm (buffers), "
                "96x96 image, d_model 64, 4 heads, ff 256, 4 encoder + 1 decoder post-norm layers, chunk 20, "
                "6-dim state/action, mean/std normalization buffers."),
        Fixture("diffusion", "small", lambda: diffusion.build(diffusion.DiffusionConfig()), ["action"],
                "Diffusion-Policy-style policy, small: 2 observation steps of 72x72 images center-cropped to "
                "64x64, ResNet (width 16, 1 block per stage) with GroupNorm, spatial softmax (16 keypoints), "
                "1-D U-Net down_dims (16, 32, 64) kernel 5 GroupNorm(8) Mish FiLM, horizon 16, 3 unrolled DDPM "
                "steps (timesteps 66, 33, 0 folded to constants) with the noise as inputs."),
        Fixture("unet1d", "small", lambda: diffusion.build_unet(diffusion.DiffusionConfig()), ["noise_pred"],
                "The small diffusion U-Net alone, one call: the int64 timestep is a graph input, so the "
                "sinusoidal embedding and its MLP are computed at run time (Cast int64 -> float)."),
        Fixture("transformer", "small", lambda: small.build_transformer(dynamic=False), ["out"],
                "nn.Transformer, 2 + 2 layers, d_model 64, 4 heads, ff 256, 32 source and 32 target tokens, "
                "sequence first, causal target mask (a -inf/0 constant)."),
        Fixture("transformer_dynamic", "small", lambda: small.build_transformer(dynamic=True), ["out"],
                "The same transformer exported with dynamic sequence lengths (src_len, tgt_len; run with 24 "
                "and 16): Shape/Gather/Concat chains and a causal mask built in the graph (Trilu)."),
        Fixture("mlp", "small", lambda: small.build_mlp(dynamic=False), ["y"],
                "MLP 64 -> 256 (ReLU) -> 256 (GELU) -> 16, batch 1."),
        Fixture("mlp_dynamic", "small", lambda: small.build_mlp(dynamic=True), ["y"],
                "The same MLP with a dynamic batch dimension (batch; run with 3)."),
        Fixture("fpn_dynamic", "small", small.build_fpn_dynamic, ["score"],
                "A detector's FPN top-down path with dynamic height and width (run with 40x56): stride-2 "
                "stages, lateral 1x1 convolutions, coarser maps upsampled by 2 (nearest, bilinear) and added, "
                "a head upsampled by 2 to the input's size; every Resize scales a symbolic dim."),
        Fixture("vad_stream", "small", small.build_vad_stream, ["prob", "hn", "cn"],
                "A streaming voice-activity model, scripted (torch.jit.script): a conv front end chosen by an "
                "`if` on the int64 sample-rate input (the exporter writes ONNX If), an LSTM whose state is an "
                "input and an output, a sigmoid head; one 32 ms chunk (512 samples at 16 kHz). The sample rate "
                "is fixed at compile time (vad_stream.fixed.npz, --fix-inputs)."),
        Fixture("script_control", "small", small.build_script_control, ["h", "y", "acc"],
                "Data-dependent control flow, scripted (torch.jit.script): an `if` on the sign of x's sum "
                "(ONNX If; a Linear, or a Linear, ReLU and scale) and a `for` whose trip count is the int64 "
                "input `steps` (ONNX Loop with a run-time trip count; a Linear on concat(h, y) and tanh in the "
                "body, the iteration number added, two carried values h and acc). Main set: then branch, 7 "
                "trips; cases else_0, then_1, else_7 (NAME.case-LABEL.*.npz)."),
        Fixture("scan_cumulative", "small", onnx_built.build_scan_cumulative, ["s", "acc", "ys", "zs"],
                "ONNX Scan written with onnx.helper (numpy reference): x [seq, 2, 4] with seq symbolic, read "
                "forward and reversed (scan_input_directions [0, 1]), states s = tanh(s @ W + x_t) (W an outer "
                "initializer) and acc += 0.5 * s * xr_t, scan outputs ys (forward) and zs (reversed). Main set "
                "seq 5; cases seq1, seq8.", kind="onnx"),
        Fixture("activations", "small", small.build_activations, ["y", "z"],
                "SELU after a convolution, CELU (alpha 0.7) after a linear layer, and both on the input: "
                "ONNX Selu and Celu (opset 17)."),
        Fixture("conv3d", "small", small.build_conv3d, ["y"],
                "3-d convolution and pooling: Conv3d (stride, padding), a grouped dilated Conv3d, MaxPool3d "
                "(ceil mode), AvgPool3d (padding, count_include_pad=False), ConvTranspose3d (output padding), "
                "on a 2x3x8x16x16 input."),
        Fixture("lstm_bidirectional", "small", small.build_lstm_bidirectional, ["y", "h", "c"],
                "nn.LSTM, 2 layers, bidirectional, input 16, hidden 32, sequence first (10 steps, batch 2), "
                "initial h0/c0 as inputs, a linear head on every step: ONNX LSTM (opset 17)."),
        Fixture("gru_sequence", "small", small.build_gru_sequence, ["y", "h"],
                "nn.GRU, 1 layer, batch first (batch 3, 9 steps, input 24, hidden 20) after a tanh projection, "
                "a linear head on the last step: ONNX GRU with linear_before_reset 1 (opset 17)."),
        Fixture("spectrogram", "small", small.build_spectrogram, ["logmel"],
                "A speech front end: torch.stft of 2x16000 samples (n_fft 400 = 2^4 5^2, hop 160, periodic Hann "
                "window, center with reflect padding), power, 40 mel filters (a constant [201, 40]) and log: "
                "Pad (reflect), ONNX STFT (onesided), Transpose, MatMul, Log. torch 1.13 has no ONNX export of "
                "aten::stft; nets/small.py registers the opset-17 symbolic later PyTorch releases ship "
                "(STFT with frame_step, window and frame_length, then a transpose to torch's layout)."),
        Fixture("detector", "small", detector.build_detector, ["keep", "boxes", "scores"],
                "A tiny single-stage detector ending in torchvision.ops.nms (exported as ONNX "
                "NonMaxSuppression, then Gather): three stride-2 convolutions over a 64x64 image, per cell of "
                "the 8x8 map a box head (decoded around the cell centres) and a sigmoid score head, NMS at IoU "
                "0.3. Outputs: the kept indices (int64, best first; their number is data dependent), their "
                "boxes and scores. The image is the first seeded draw with no two scores within 1e-4 and no IoU "
                "within 1e-3 of the threshold, so the kept set is unambiguous; ONNX Runtime 1.30 keeps the same "
                "indices."),
        Fixture("folded_output", "small", lambda: (small.FoldedOutput(), {"observation.state": torch.randn(1, 8)}),
                ["action", "pos_embed", "action_scale"],
                "Outputs: action (computed), pos_embed (a sine table that depends on no input: the exporter "
                "folds it to a Constant node that feeds the output directly) and action_scale (a parameter "
                "returned as is: Identity of an initializer)."),
    ]
    for name, (build, notes) in small.mask_fixtures().items():
        fx.append(Fixture(name, "small", build, ["y"], notes))
    fx += [
        Fixture("resnet18", "large", build_resnet18, ["logits"],
                "ResNet-18 (torchvision layout, 11.7M parameters), 1x3x224x224, random init with measured "
                "batch-norm statistics; batch norm is folded into the convolutions by the exporter. Not "
                "committed (47 MB): generate with --only resnet18."),
        Fixture("act_full", "large", lambda: act.build(act.ACT_FULL), ["action"],
                "ACT at its real size: ResNet-18 backbone, one 480x640 camera, d_model 512, 8 heads, ff 3200, "
                "4 + 1 layers, chunk 100, 14-dim state/action. Benchmark only."),
        Fixture("diffusion_full", "large", lambda: diffusion.build(diffusion.DIFFUSION_FULL), ["action"],
                "Diffusion Policy at LeRobot's PushT size (ResNet-18 GroupNorm encoder, 96x96 crop 84, "
                "down_dims 512/1024/2048, ~263M parameters), 3 unrolled steps. Benchmark only."),
    ]
    return fx


FIXTURES = _fixtures()

# What `edgec compile` says of a fixture whose exported graph is invalid,
# after "error: <the .onnx path>: ". Written into its manifest entry
# (expected_error); tests/cli/fixture_test.sh expects exactly that line.
EXPECTED_ERRORS = {
    "mask_2d_axis1_invalid": "node '/Squeeze' (#4, Squeeze, domain ai.onnx, opset 17): [squeeze] expected dim 1 of "
                             "i64[4, 2] to have size 1, got 2",
}


def fixture_seed(name):
    return zlib.crc32(name.encode()) & 0x7FFFFFFF


def np_dtype_name(arr):
    return "bool" if arr.dtype == np.bool_ else str(arr.dtype)


def save_npz(path, arrays):
    """np.savez's format (stored .npy members, zip64 headers) with a fixed
    timestamp, so the same arrays give the same bytes."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, arr in arrays:
            buf = io.BytesIO()
            # ascontiguousarray would make a 0-d array 1-d (a scalar input's shape is []).
            arr = np.asarray(arr)
            np.lib.format.write_array(buf, arr if arr.flags.c_contiguous else np.ascontiguousarray(arr),
                                      allow_pickle=False)
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            with zf.open(info, "w", force_zip64=True) as f:
                f.write(buf.getvalue())


def value_info_shape(vi):
    dims = []
    for d in vi.type.tensor_type.shape.dim:
        dims.append(d.dim_value if d.HasField("dim_value") else (d.dim_param or "?"))
    return dims


def to_numpy(t):
    return t.detach().cpu().numpy()


def _export_torch(fx, onnx_path):
    """Builds a PyTorch fixture, computes its references (the main input set
    and any extra cases) and exports it to onnx_path. Returns the inputs
    (name -> array, every input the model takes), a function giving the
    reference outputs of an input set, the extra cases, the names to fix,
    the export settings and the parameter and buffer counts."""
    built = fx.build()
    model, inputs = built[0], built[1]
    extra = dict(built[2]) if len(built) > 2 else {}
    # Inputs a deployment fixes (a sample rate): saved apart, for `edgec
    # compile --fix-inputs NAME.fixed.npz`.
    fixed = extra.pop("fix_inputs", [])
    # Extra input sets (label -> inputs, the same names in the same order):
    # NAME.case-LABEL.inputs.npz / .outputs.npz, e.g. the other branch of an
    # `if` or another trip count of a loop.
    cases = extra.pop("cases", {})
    model.eval()
    # Export from a copy taken before the reference run: a model that mutates a
    # buffer must be exported from the same state the reference started from.
    export_model = copy.deepcopy(model)

    # Grad stays enabled for the reference too: under no_grad, nn.Transformer
    # and nn.MultiheadAttention take fused fast paths whose rounding differs
    # from the graph that is exported.
    def reference(case_inputs):
        if list(case_inputs) != list(inputs):
            raise RuntimeError(f"{fx.name}: a case's inputs {list(case_inputs)} differ from {list(inputs)}")
        ref = model(*case_inputs.values())
        ref = ref if isinstance(ref, (tuple, list)) else (ref,)
        if len(ref) != len(fx.outputs):
            raise RuntimeError(f"{fx.name}: model returned {len(ref)} outputs, expected {fx.outputs}")
        return [to_numpy(r) for r in ref]

    refs = {None: reference(inputs)}
    for label, case_inputs in cases.items():
        refs[label] = reference(case_inputs)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(export_model, tuple(inputs.values()), onnx_path, opset_version=OPSET,
                          do_constant_folding=True, input_names=list(inputs), output_names=fx.outputs, **extra)

    def as_numpy(d):
        return {k: to_numpy(v) for k, v in d.items()}

    return (as_numpy(inputs), refs, {label: as_numpy(c) for label, c in cases.items()}, fixed, extra,
            sum(p.numel() for p in model.parameters()), sum(b.numel() for b in model.buffers()))


def _export_onnx_built(fx, onnx_path):
    """A fixture written with onnx.helper (nets/onnx_built.py): the builder
    returns the model, the inputs, a numpy reference and extra cases; the
    same results as _export_torch. Its parameters are its initializers."""
    proto, inputs, reference, extra = fx.build(np.random.default_rng(fixture_seed(fx.name)))
    extra = dict(extra)
    cases = extra.pop("cases", {})
    onnx.save(proto, onnx_path)
    refs = {None: reference(inputs)}
    for label, case_inputs in cases.items():
        refs[label] = reference(case_inputs)
    params = sum(int(np.prod(i.dims)) for i in proto.graph.initializer)
    return inputs, refs, cases, [], extra, params, 0


def export_one(fx, outdir):
    """Builds, runs and exports one fixture; returns its manifest entry."""
    torch.manual_seed(fixture_seed(fx.name))
    onnx_path = os.path.join(outdir, fx.name + ".onnx")
    export = _export_onnx_built if fx.kind == "onnx" else _export_torch
    inputs, refs, cases, fixed, extra, parameters, buffers = export(fx, onnx_path)
    proto = onnx.load(onnx_path)
    checker_error = None
    try:
        onnx.checker.check_model(proto, full_check=True)
    except Exception as e:  # onnx raises several unrelated types
        checker_error = f"{type(e).__name__}: {e}".strip()

    initializer_names = {init.name for init in proto.graph.initializer}
    graph_inputs = [vi for vi in proto.graph.input if vi.name not in initializer_names]
    overridable = [vi.name for vi in proto.graph.input if vi.name in initializer_names]
    graph_outputs = list(proto.graph.output)
    if [vi.name for vi in graph_outputs] != fx.outputs:
        raise RuntimeError(f"{fx.name}: graph outputs {[vi.name for vi in graph_outputs]} != {fx.outputs}")
    unknown = [vi.name for vi in graph_inputs if vi.name not in inputs]
    if unknown:
        raise RuntimeError(f"{fx.name}: graph has inputs the model did not take: {unknown}")
    dropped = [n for n in inputs if n not in {vi.name for vi in graph_inputs}]

    def input_arrays(given):
        return [(vi.name, given[vi.name]) for vi in graph_inputs if vi.name not in fixed]

    in_arrays = input_arrays(inputs)
    out_arrays = list(zip(fx.outputs, refs[None]))
    fixed_arrays = [(vi.name, inputs[vi.name]) for vi in graph_inputs if vi.name in fixed]
    fixed_path = os.path.join(outdir, fx.name + ".fixed.npz")
    if fixed_arrays:
        save_npz(fixed_path, fixed_arrays)
    elif os.path.exists(fixed_path):
        os.remove(fixed_path)
    save_npz(os.path.join(outdir, fx.name + ".inputs.npz"), in_arrays)
    save_npz(os.path.join(outdir, fx.name + ".outputs.npz"), out_arrays)
    # Extra input sets: NAME.case-LABEL.{inputs,outputs}.npz; those of an
    # earlier run that the fixture no longer has are removed.
    case_sets = [(label, input_arrays(cases[label]), list(zip(fx.outputs, refs[label]))) for label in cases]
    for label, case_in, case_out in case_sets:
        if not re.fullmatch(r"[A-Za-z0-9_]+", label):
            raise RuntimeError(f"{fx.name}: case label {label!r} is not [A-Za-z0-9_]+")
        save_npz(os.path.join(outdir, f"{fx.name}.case-{label}.inputs.npz"), case_in)
        save_npz(os.path.join(outdir, f"{fx.name}.case-{label}.outputs.npz"), case_out)
    case_suffixes = [f".case-{label}.{kind}.npz" for label in cases for kind in ("inputs", "outputs")]
    for stale in glob.glob(os.path.join(glob.escape(outdir), glob.escape(fx.name) + ".case-*.npz")):
        if os.path.basename(stale)[len(fx.name):] not in case_suffixes:
            os.remove(stale)

    op_types = collections.Counter(
        (n.op_type if n.domain in ("", "ai.onnx") else f"{n.domain}.{n.op_type}") for n in proto.graph.node)
    graph_vi = {vi.name: vi for vi in list(proto.graph.input) + graph_outputs}

    def describe(name, arr):
        return {"name": name, "shape": list(arr.shape), "dtype": np_dtype_name(arr),
                "onnx_shape": value_info_shape(graph_vi[name])}

    entry = {
        "name": fx.name,
        "committed": fx.tier == "small",
        "notes": fx.notes,
        "inputs": [describe(n, a) for n, a in in_arrays],
        **({"fixed_inputs": [describe(n, a) for n, a in fixed_arrays]} if fixed_arrays else {}),
        "outputs": [describe(n, a) for n, a in out_arrays],
        **({"cases": [{"label": label, "inputs": [describe(n, a) for n, a in case_in],
                       "outputs": [describe(n, a) for n, a in case_out]}
                      for label, case_in, case_out in case_sets]} if case_sets else {}),
        "parameters": parameters,
        "buffers": buffers,
        "initializers": len(proto.graph.initializer),
        "initializer_elements": sum(int(np.prod(i.dims)) for i in proto.graph.initializer),
        "nodes": len(proto.graph.node),
        "op_types": dict(sorted(op_types.items())),
        "opset": OPSET,
        "ir_version": proto.ir_version,
        "onnx_valid": checker_error is None,
    }
    if fx.kind == "onnx":
        entry["generator"] = "onnx.helper (nets/onnx_built.py), numpy reference"
    if checker_error:
        entry["checker_error"] = checker_error
    if fx.name in EXPECTED_ERRORS:
        entry["expected_error"] = EXPECTED_ERRORS[fx.name]
    if dropped:
        entry["inputs_dropped_by_exporter"] = dropped
    if overridable:
        entry["overridable_initializers"] = overridable
    if extra.get("dynamic_axes"):
        entry["dynamic_axes"] = {k: {str(a): n for a, n in v.items()} for k, v in extra["dynamic_axes"].items()}
    for suffix in (".onnx", ".inputs.npz", ".outputs.npz") + ((".fixed.npz",) if fixed_arrays else ()) + \
            tuple(case_suffixes):
        path = os.path.join(outdir, fx.name + suffix)
        with open(path, "rb") as f:
            entry.setdefault("files", {})[fx.name + suffix] = {
                "bytes": os.path.getsize(path), "sha256": hashlib.sha256(f.read()).hexdigest()}
    return entry


def write_manifest(outdir, entries):
    """Merges `entries` into OUTDIR/manifest.json (so --only runs add to a
    folder instead of forgetting what it already held), in registry order."""
    path = os.path.join(outdir, "manifest.json")
    known = {}
    if os.path.exists(path):
        with open(path) as f:
            for e in json.load(f).get("fixtures", []):
                known[e["name"]] = e
    for e in entries:
        known[e["name"]] = e
    order = {fx.name: i for i, fx in enumerate(FIXTURES)}
    fixtures = sorted(known.values(), key=lambda e: (order.get(e["name"], len(order)), e["name"]))
    union = collections.Counter()
    for e in fixtures:
        union.update(e["op_types"])
    manifest = {
        "version": MANIFEST_VERSION,
        "generator": "models/make_fixtures.py",
        "torch": torch.__version__,
        "onnx": onnx.__version__,
        "opset": OPSET,
        "op_types_union": dict(sorted(union.items())),
        "fixtures": fixtures,
    }
    text = json.dumps(manifest, indent=1)
    # Lists of plain values (shapes, names) on one line each.
    text = re.sub(r"\[\s*([^\[\]{}]*?)\s*\]", lambda m: "[" + re.sub(r"\s*\n\s*", " ", m.group(1)) + "]", text)
    with open(path, "w") as f:
        f.write(text + "\n")


def main():
    parser = argparse.ArgumentParser(description="Export edgec's fixture models and PyTorch references.")
    parser.add_argument("outdir", nargs="?")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="make only these fixtures (any size)")
    parser.add_argument("--large", action="store_true", help="also make resnet18, act_full, diffusion_full")
    parser.add_argument("--list", action="store_true", help="list the fixtures and exit")
    args = parser.parse_args()

    if args.list:
        for fx in FIXTURES:
            print(f"{fx.name:28s} {fx.tier:6s} {fx.notes}")
        return 0
    if not args.outdir:
        parser.error("OUTDIR is required")
    by_name = {fx.name: fx for fx in FIXTURES}
    if args.only:
        unknown = [n for n in args.only if n not in by_name]
        if unknown:
            parser.error(f"unknown fixture(s) {unknown}; --list shows them")
        chosen = [by_name[n] for n in args.only]
    else:
        chosen = [fx for fx in FIXTURES if fx.tier == "small" or args.large]

    torch.set_num_threads(1)  # bit-identical references from run to run
    os.makedirs(args.outdir, exist_ok=True)
    entries = []
    for fx in chosen:
        start = time.time()
        entry = export_one(fx, args.outdir)
        entries.append(entry)
        size = sum(f["bytes"] for f in entry["files"].values())
        status = "ok" if entry["onnx_valid"] else "INVALID (onnx checker: " + entry["checker_error"][:120] + ")"
        print(f"{fx.name}: {entry['nodes']} nodes, {entry['parameters']} parameters, {size / 1e6:.2f} MB, "
              f"{time.time() - start:.1f} s, {status}")
        print("  inputs:  " + ", ".join(f"{i['name']} {i['dtype']}{i['shape']}" for i in entry["inputs"]))
        print("  outputs: " + ", ".join(f"{o['name']} {o['dtype']}{o['shape']}" for o in entry["outputs"]))
        print("  op_types: " + " ".join(f"{k}:{v}" for k, v in entry["op_types"].items()))
    write_manifest(args.outdir, entries)
    union = collections.Counter()
    for e in entries:
        union.update(e["op_types"])
    print(f"op_types used ({len(union)}): " + " ".join(sorted(union)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Checks one zoo model quantized by `edgec quantize` (issue 32, item 7):
its report, its program size, and edgec's int8 outputs against ONNX
Runtime 1.30's on the same QDQ file.

    /usr/bin/python3 models/quantized/zoo_check.py --qdq Q.onnx --report R.json --calibration DIR
        --node-modules NM --exact PORTABLE.edgec --delegated DEFAULT.edgec --f32 F32.edgec
        --edgec EDGEC [--cosine 0.99] [--size-ratio 0.3]

  - the report (`edgec quantize --report`) compared the quantized model with
    the float one, and every output's cosine similarity is >= --cosine;
  - the int8 program (DEFAULT.edgec, the default delegates) is at most
    --size-ratio times the float32 one (F32.edgec);
  - on each held-back calibration file (the report's holdout_samples last
    files by name, those the report compared on), ONNX Runtime 1.30 runs the
    QDQ file (all graph optimizations: its QDQ transformer makes the integer
    operators) and edgec runs both programs. Every output of the QDQ file
    is a DequantizeLinear of a constant scale s and zero point, so an output
    differs from ORT's by a whole number of steps s. PORTABLE.edgec (compiled
    with --backends none: the portable int8 kernels, which compute as ORT's
    MLAS does) must equal ORT's exactly; DEFAULT.edgec must be within one
    step everywhere (the issue's rule for dequantized outputs; the onednn
    delegate rounds as ONNX does, docs/semantics.md §9.4, so on this
    machine it is exact too: the distribution printed shows it).
Prints the distribution of the differences in steps; exits 1 on a failure.
"""
import sys

sys.dont_write_bytecode = True

import argparse
import glob
import json
import os
import subprocess
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qdq_models import run_ort  # noqa: E402


def output_steps(model):
    """{output name: the scale of the DequantizeLinear writing it}, or None
    for an output the quantizer left float32 (its last layer kept float)."""
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    producer = {o: n for n in model.graph.node for o in n.output}
    steps = {}
    for out in model.graph.output:
        node = producer.get(out.name)
        if node is None or node.op_type != "DequantizeLinear" or node.input[1] not in inits:
            steps[out.name] = None
            continue
        scale = inits[node.input[1]]
        if scale.size != 1:
            raise SystemExit(f"zoo_check.py: output {out.name}: per-axis scale {scale.shape}; expected per tensor")
        steps[out.name] = float(scale.reshape(()))
    return steps


def edgec_run(edgec, program, inputs, tmp):
    out = os.path.join(tmp, "out.npz")
    proc = subprocess.run([edgec, "run", program, "--inputs", inputs, "--outputs", out], capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"edgec run {program}: {proc.stderr.strip()}")
    return dict(np.load(out))


def in_steps(got, want, step):
    """|got - want| / step as whole numbers; NaN anywhere counts as a huge difference."""
    d = np.abs(got.astype(np.float64) - want.astype(np.float64)) / step
    d[~np.isfinite(d)] = 1e9
    return np.rint(d).astype(np.int64)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for a in ("--qdq", "--report", "--calibration", "--node-modules", "--exact", "--delegated", "--f32",
              "--edgec"):
        parser.add_argument(a, required=True)
    parser.add_argument("--cosine", type=float, default=0.99)
    parser.add_argument("--size-ratio", type=float, default=0.3)
    args = parser.parse_args()
    problems = []
    label = os.path.basename(args.qdq)

    with open(args.report) as f:
        report = json.load(f)
    if not report.get("compared"):
        problems.append(f"{label}: the report did not compare the quantized model with the float one")
    for o in report.get("outputs", []):
        ok = o["cosine"] >= args.cosine
        print(f"{label}: report: output {o['name']}: cosine {o['cosine']:.6f} "
              f"({'>=' if ok else 'BELOW'} {args.cosine}), max abs error {o['max_abs_error']:.3g}, "
              f"relative error {o['relative_error']:.3g} on {report['holdout_samples']} held-back sample(s)")
        if not ok:
            problems.append(f"{label}: output {o['name']}: cosine {o['cosine']:.6f} < {args.cosine}")

    f32, q8 = os.path.getsize(args.f32), os.path.getsize(args.delegated)
    ratio = q8 / f32
    print(f"{label}: program int8 {q8} bytes, float32 {f32} bytes: {ratio:.3f} (limit {args.size_ratio})")
    if ratio > args.size_ratio:
        problems.append(f"{label}: int8 program is {ratio:.3f} x the float32 one (limit {args.size_ratio})")

    steps = output_steps(onnx.load(args.qdq))
    files = sorted(glob.glob(os.path.join(args.calibration, "*.npz")))
    held = files[-report["holdout_samples"]:]
    totals = {"exact": {}, "delegated": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for path in held:
            try:
                want = run_ort(args.qdq, dict(np.load(path)), args.node_modules)
            except RuntimeError as e:
                problems.append(f"{label}: ONNX Runtime 1.30 on {os.path.basename(path)}: {e}")
                break
            for kind, program in (("exact", args.exact), ("delegated", args.delegated)):
                try:
                    got = edgec_run(args.edgec, program, path, tmp)
                except RuntimeError as e:
                    problems.append(f"{label}: {e}")
                    continue
                for name, step in steps.items():
                    if got[name].shape != want[name].shape:
                        problems.append(f"{label}: {os.path.basename(path)}: {name}: shape {got[name].shape}, "
                                        f"ORT {want[name].shape}")
                        continue
                    if step is None:
                        # A float32 output (the last layer kept float): in steps
                        # of a uint8 quantization of ORT's range, and the portable
                        # kernels within float rounding (1e-4 of the largest value).
                        w = want[name].astype(np.float64)
                        step = float(w.max() - w.min()) / 255
                        if kind == "exact":
                            err = np.abs(got[name] - w).max()
                            if not err <= 1e-4 * np.abs(w).max():
                                problems.append(f"{label}: {os.path.basename(path)}: float output {name}: the "
                                                f"portable kernels differ from ONNX Runtime by {err:.3g}")
                            continue
                    d = in_steps(got[name], want[name], step)
                    hist = totals[kind].setdefault(name, np.zeros(0, np.int64))
                    counts = np.bincount(d.ravel())
                    if counts.size > hist.size:
                        hist = np.pad(hist, (0, counts.size - hist.size))
                    hist[:counts.size] += counts
                    totals[kind][name] = hist
    for kind, program in (("exact", args.exact), ("delegated", args.delegated)):
        for name, hist in totals[kind].items():
            n = int(hist.sum())
            dist = ", ".join(f"{k} step(s): {int(c)}" for k, c in enumerate(hist) if c)
            unit = (f"step {steps[name]:.4g}" if steps[name] is not None else
                    "float32 output, in steps of its range / 255")
            print(f"{label}: {os.path.basename(program)} vs ONNX Runtime 1.30, output {name} "
                  f"({unit}) on {len(held)} held-back sample(s), {n} values: {dist}")
            if kind == "exact" and hist.size > 1 and hist[1:].sum():
                problems.append(f"{label}: {name}: the portable int8 kernels differ from ONNX Runtime in "
                                f"{int(hist[1:].sum())} of {n} values (must be exact)")
            if kind == "delegated":
                if hist.size > 2 and hist[2:].sum():
                    problems.append(f"{label}: {name}: with the default delegates {int(hist[2:].sum())} of {n} "
                                    f"values are more than one step from ONNX Runtime's (the largest "
                                    f"{hist.size - 1} steps)")
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

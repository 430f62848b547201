#!/usr/bin/python3
"""float16 models (issue 31) against ONNX Runtime 1.30, same machine, same
run: each model in float32 and converted to float16 as the converters
convert one (models/float16/make.py: f16 weights and activations, Casts at
the f32 inputs and outputs, Resize kept f32), compiled by edgec with its
default delegates, timed by `edgec bench` and by ONNX Runtime (node,
bench/models/ort_bench.js) at each thread count, the systems alternating
within each round.

    /usr/bin/python3 bench/float16/bench.py [--build build] [--work DIR]
        [--models segnet512,resnet50] [--threads 1,2] [--rounds 3] [--iters 5] [--warmup 1]

Models: segnet512, models/float16/make.py's U-Net-like segmentation net at
512 x 512, first stage 32 channels; resnet50, torchvision's (models/zoo,
opset 17) at 224 x 224. Before timing, edgec's f16 outputs are checked
against ONNX Runtime's (1e-3 + 1e-3 |ref|) and printed. Prints a table of
median milliseconds per run (over every round's timed runs); writes
nothing else. Timings are reported in bench/RESULTS.md, never asserted.
"""
import sys

sys.dont_write_bytecode = True

import argparse
import importlib.util
import json
import os
import statistics
import subprocess

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PY = "/usr/bin/python3"
sys.path.insert(0, os.path.join(ROOT, "models"))
sys.path.insert(0, os.path.join(ROOT, "bench", "models"))
from check_ort import run_ort  # noqa: E402
from compare import write_raw_inputs  # noqa: E402


def load_make():
    spec = importlib.util.spec_from_file_location("float16_make", os.path.join(ROOT, "models", "float16", "make.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def prepare(name, work):
    """(f32 .onnx, f16 .onnx, inputs .npz) of model `name`, made once into `work`."""
    folder = os.path.join(work, name)
    os.makedirs(folder, exist_ok=True)
    if name == "segnet512":
        f32, f16, inputs = (os.path.join(folder, f) for f in ("segnet.onnx", "segnet.f16.onnx", "segnet.inputs.npz"))
        if not os.path.exists(f16):
            subprocess.run([PY, os.path.join(ROOT, "models", "float16", "make.py"), folder, "--size", "512",
                            "--width", "32"], check=True, capture_output=True)
        return f32, f16, inputs
    f32 = os.path.join(folder, f"{name}.opset17.onnx")
    f16 = os.path.join(folder, f"{name}.f16.onnx")
    inputs = os.path.join(folder, f"{name}.inputs.npz")
    if not os.path.exists(f32):
        subprocess.run([PY, os.path.join(ROOT, "models", "zoo", "zoo.py"), folder, name, "--opsets", "17"], check=True,
                       capture_output=True)
    if not os.path.exists(f16):
        onnx.save(load_make().to_float16(onnx.load(f32), False), f16)
    return f32, f16, inputs


def edgec_times(edgec, program, inputs, threads, iters, warmup):
    out = subprocess.run([edgec, "bench", program, "--inputs", inputs, "--threads", str(threads), "--iters",
                          str(iters), "--warmup", str(warmup), "--json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)["times_ms"]


def ort_times(node_modules, model, raw_index, threads, iters, warmup):
    env = dict(os.environ, NODE_PATH=node_modules)
    out = subprocess.run(["node", os.path.join(ROOT, "bench", "models", "ort_bench.js"), model, raw_index,
                          str(threads), str(warmup), str(iters)], check=True, capture_output=True, text=True, env=env)
    return json.loads(out.stdout)["times_ms"]


def check_outputs(edgec, program, f16, inputs, node_modules, work):
    """Max |edgec - ORT| of each output and whether it is within 1e-3 + 1e-3 |ORT|."""
    out = os.path.join(work, "out.npz")
    subprocess.run([edgec, "run", program, "--inputs", inputs, "--outputs", out], check=True, capture_output=True)
    got = dict(np.load(out))
    want = run_ort(f16, dict(np.load(inputs)), node_modules)
    lines = []
    for k, w in want.items():
        g = got[k].astype(np.float64)
        diff = np.abs(g - w)
        ok = bool(np.all(diff <= 1e-3 + 1e-3 * np.abs(w)))
        lines.append(f"{k}: max |edgec - ORT| {diff.max():.3g} ({'within' if ok else 'NOT within'} 1e-3 + 1e-3 |ORT|)")
    return "; ".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--work", default="/tmp/edgec-bench-float16")
    parser.add_argument("--models", default="segnet512,resnet50")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iters", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    args = parser.parse_args()
    edgec = os.path.join(args.build, "bin", "edgec")
    node_modules = os.path.join(args.build, "npm", "ort130", "node_modules")
    with open(os.path.join(node_modules, "onnxruntime-node", "package.json")) as f:
        ort_version = json.load(f)["version"]
    threads = [int(t) for t in args.threads.split(",")]
    rows = []
    for name in args.models.split(","):
        f32, f16, inputs = prepare(name, args.work)
        folder = os.path.dirname(f16)
        programs = {}
        for label, model in (("f32", f32), ("f16", f16)):
            programs[label] = os.path.join(folder, f"{label}.edgec")
            subprocess.run([edgec, "compile", model, "-o", programs[label]], check=True, capture_output=True)
        sizes = {k: os.path.getsize(p) for k, p in programs.items()}
        print(f"{name}: program f16 {sizes['f16']} bytes, f32 {sizes['f32']} ({sizes['f16'] / sizes['f32']:.3f}); "
              + check_outputs(edgec, programs["f16"], f16, inputs, node_modules, folder), flush=True)
        raw = write_raw_inputs([inputs], os.path.join(folder, "raw"))
        times = {}
        for _ in range(args.rounds):
            for t in threads:
                for system, run in (
                        ("ORT f16", lambda: ort_times(node_modules, f16, raw, t, args.iters, args.warmup)),
                        ("edgec f16", lambda: edgec_times(edgec, programs["f16"], inputs, t, args.iters, args.warmup)),
                        ("ORT f32", lambda: ort_times(node_modules, f32, raw, t, args.iters, args.warmup)),
                        ("edgec f32", lambda: edgec_times(edgec, programs["f32"], inputs, t, args.iters, args.warmup))):
                    times.setdefault((t, system), []).extend(run())
        for t in threads:
            med = {s: statistics.median(times[(t, s)]) for s in ("ORT f16", "edgec f16", "ORT f32", "edgec f32")}
            rows.append((name, t, med))
    print(f"\nmedian ms per run (ONNX Runtime {ort_version}; {args.rounds} rounds x {args.iters} runs)")
    print("| model | threads | ORT f16 | edgec f16 | edgec f16 / ORT f16 | ORT f32 | edgec f32 |")
    print("|---|---|---|---|---|---|---|")
    for name, t, m in rows:
        print(f"| {name} | {t} | {m['ORT f16']:.1f} | {m['edgec f16']:.1f} | {m['edgec f16'] / m['ORT f16']:.2f} | "
              f"{m['ORT f32']:.1f} | {m['edgec f32']:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""int8 models (issue 32) against float32 and ONNX Runtime 1.30, same
machine, same run: per model and thread count, edgec float32, edgec int8,
ONNX Runtime float32 and ONNX Runtime int8 on the same quantized file, the
systems alternating within each round; file sizes and peak RSS too.

    /usr/bin/python3 bench/int8/bench.py [--build build] [--work DIR] [--skimage DIR]
        [--models resnet50,mobilenet_v2,efficientnet_b0,act,gpt] [--threads 1,2]
        [--rounds 3] [--iters 5] [--warmup 1] [--quantize-args ARGS]

Models and their int8 form:
  - resnet50, mobilenet_v2, efficientnet_b0: torchvision's (models/zoo,
    opset 17) at 224 x 224, quantized by `edgec quantize` (QDQ, as ONNX
    Runtime's quantize_static writes; --quantize-args are passed on) from 32
    calibration files of scikit-image's photos (models/quantized/
    calibration.py; --skimage: skimage/data of Debian's python3-skimage);
  - act: the ACT-style policy fixture (models/fixtures/act.onnx), quantized
    the same way from 32 synthetic files (smooth colour fields with noise for
    the image, normal values for the state), as tests/cli/quantize_test.sh;
  - gpt: the GPT-style decoder (models/gpt.py), its constant-weight MatMuls
    dynamically quantized (models/quantized/dynamic.py: DynamicQuantizeLinear
    + MatMulInteger, as quantize_dynamic writes).
Each is compiled by edgec with its default delegates and timed by `edgec
bench`, and by ONNX Runtime (node, bench/models/ort_bench.js; all graph
optimizations) on the same .onnx files. Before timing, the cosine of edgec's
int8 outputs against its float32 ones and the largest difference from ONNX
Runtime's int8 outputs are printed for the model's input file. Prints a
table of median milliseconds per run (over every round's timed runs), the
program and .onnx sizes, and each system's peak RSS (KiB, /usr/bin/time for
edgec, the node process's own for ORT) at the last thread count. Timings are
reported in bench/RESULTS.md, never asserted; a system that fails is shown
as "fails" with its error printed.
"""
import sys

sys.dont_write_bytecode = True

import argparse
import json
import os
import statistics
import subprocess

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PY = "/usr/bin/python3"
sys.path.insert(0, os.path.join(ROOT, "bench", "models"))
sys.path.insert(0, os.path.join(ROOT, "models", "quantized"))
from compare import run_process, write_raw_inputs  # noqa: E402
from qdq_models import run_ort  # noqa: E402

SKIMAGE = "debian/python3-skimage/usr/lib/python3/dist-packages/skimage/data"
ZOO = ("resnet50", "mobilenet_v2", "efficientnet_b0")
SYSTEMS = ("edgec f32", "edgec int8", "ORT f32", "ORT int8")


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:3])}: {(proc.stderr or proc.stdout).strip()[-600:]}")
    return proc.stdout


def synthetic_calibration(model, out, n):
    """Smooth colour fields with noise for 4-D inputs, normal values otherwise."""
    m = onnx.load(model)
    inits = {t.name for t in m.graph.initializer}
    rng = np.random.default_rng(7)
    os.makedirs(out, exist_ok=True)
    for k in range(n):
        arrays = {}
        for i in m.graph.input:
            if i.name in inits:
                continue
            shape = [d.dim_value or 1 for d in i.type.tensor_type.shape.dim]
            if len(shape) == 4:
                h, w = shape[2], shape[3]
                y, x = np.mgrid[0:h, 0:w] / max(h, w)
                img = np.stack([np.sin(rng.uniform(1, 6) * x + rng.uniform(0, 6) * y + rng.uniform(0, 6))
                                for _ in range(shape[1])])
                img = 0.5 + 0.4 * img + 0.1 * rng.standard_normal((shape[1], h, w))
                arrays[i.name] = np.clip(img, 0, 1)[None].repeat(shape[0], 0).astype(np.float32)
            else:
                arrays[i.name] = rng.standard_normal(shape).astype(np.float32)
        np.savez(os.path.join(out, f"sample{k:02d}.npz"), **arrays)


def prepare(name, args, edgec):
    """(float .onnx, int8 .onnx, inputs .npz, how it was quantized), made once into the work folder."""
    folder = os.path.join(args.work, name)
    os.makedirs(folder, exist_ok=True)
    q = os.path.join(folder, f"{name}.int8.onnx")
    if name in ZOO:
        f32 = os.path.join(folder, f"{name}.opset17.onnx")
        if not os.path.exists(f32):
            run([PY, os.path.join(ROOT, "models", "zoo", "zoo.py"), folder, name, "--opsets", "17"])
        cal = os.path.join(folder, "cal")
        run([PY, os.path.join(ROOT, "models", "quantized", "calibration.py"), args.skimage, cal, "--model", f32,
             "--count", "32"])
        inputs = os.path.join(cal, "sample031.npz")
    elif name == "act":
        f32 = os.path.join(ROOT, "models", "fixtures", "act.onnx")
        cal = os.path.join(folder, "cal")
        synthetic_calibration(f32, cal, 32)
        inputs = os.path.join(ROOT, "models", "fixtures", "act.inputs.npz")
    elif name == "gpt":
        f32 = os.path.join(folder, "gpt.onnx")
        if not os.path.exists(f32):
            run([PY, os.path.join(ROOT, "models", "gpt.py"), folder])
        run([PY, os.path.join(ROOT, "models", "quantized", "dynamic.py"), f32, q])
        return f32, q, os.path.join(folder, "gpt.inputs.npz"), "models/quantized/dynamic.py"
    else:
        raise SystemExit(f"bench.py: unknown model {name}")
    out = run([edgec, "quantize", f32, "--calibration", cal, "-o", q] + args.quantize_args.split())
    return f32, q, inputs, "edgec quantize " + args.quantize_args + ": " + out.strip().splitlines()[0]


def edgec_times(edgec, program, inputs, threads, iters, warmup):
    code, out, err, rss = run_process([edgec, "bench", program, "--inputs", inputs, "--threads", str(threads),
                                       "--iters", str(iters), "--warmup", str(warmup), "--json"])
    if code != 0:
        raise RuntimeError(err.strip()[-600:])
    return json.loads(out)["times_ms"], rss


def ort_times(node_modules, model, raw_index, threads, iters, warmup):
    env = dict(os.environ, NODE_PATH=node_modules)
    code, out, err, _ = run_process(["node", os.path.join(ROOT, "bench", "models", "ort_bench.js"), model, raw_index,
                                     str(threads), str(warmup), str(iters)], env=env)
    if code != 0:
        raise RuntimeError(err.strip()[-600:])
    result = json.loads(out)
    return result["times_ms"], result["peak_rss_kib"]


def check(edgec, programs, q, inputs, node_modules, folder):
    out = {}
    for label in ("f32", "int8"):
        path = os.path.join(folder, f"{label}.out.npz")
        run([edgec, "run", programs[label], "--inputs", inputs, "--outputs", path])
        out[label] = dict(np.load(path))
    ort = run_ort(q, dict(np.load(inputs)), node_modules)
    lines = []
    for k, a in out["f32"].items():
        a = a.astype(np.float64).ravel()
        b = out["int8"][k].astype(np.float64).ravel()
        cos = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
        lines.append(f"{k}: cosine int8 vs f32 {cos:.5f}, max |edgec int8 - ORT int8| "
                     f"{np.abs(b - ort[k].ravel()).max():.3g} (|ORT| max {np.abs(ort[k]).max():.3g})")
    return "; ".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--work", default="/tmp/edgec-bench-int8")
    parser.add_argument("--skimage", help="skimage/data (default: BUILD/" + SKIMAGE + ")")
    parser.add_argument("--models", default="resnet50,mobilenet_v2,efficientnet_b0,act,gpt")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iters", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--quantize-args", default="", help="extra edgec quantize arguments, space-separated")
    args = parser.parse_args()
    args.skimage = args.skimage or os.path.join(args.build, SKIMAGE)
    edgec = os.path.join(args.build, "bin", "edgec")
    node_modules = os.path.join(args.build, "npm", "ort130", "node_modules")
    with open(os.path.join(node_modules, "onnxruntime-node", "package.json")) as f:
        ort_version = json.load(f)["version"]
    threads = [int(t) for t in args.threads.split(",")]
    rows, sizes = [], []
    for name in args.models.split(","):
        f32, q, inputs, how = prepare(name, args, edgec)
        folder = os.path.join(args.work, name)
        programs = {}
        for label, model in (("f32", f32), ("int8", q)):
            programs[label] = os.path.join(folder, f"{label}.edgec")
            run([edgec, "compile", model, "-o", programs[label]])
        size = {k: os.path.getsize(p) for k, p in programs.items()}
        onnx_size = {"f32": os.path.getsize(f32), "int8": os.path.getsize(q)}
        try:
            checked = check(edgec, programs, q, inputs, node_modules, folder)
        except RuntimeError as e:
            checked = f"check failed: {e}"
        print(f"{name}: {how}\n  program int8 {size['int8']} bytes, f32 {size['f32']} "
              f"({size['int8'] / size['f32']:.3f}); {checked}", flush=True)
        raw = write_raw_inputs([inputs], os.path.join(folder, "raw"))
        times, rss, failed = {}, {}, {}
        for _ in range(args.rounds):
            for t in threads:
                for system, go in (
                        ("edgec f32", lambda: edgec_times(edgec, programs["f32"], inputs, t, args.iters, args.warmup)),
                        ("edgec int8", lambda: edgec_times(edgec, programs["int8"], inputs, t, args.iters,
                                                           args.warmup)),
                        ("ORT f32", lambda: ort_times(node_modules, f32, raw, t, args.iters, args.warmup)),
                        ("ORT int8", lambda: ort_times(node_modules, q, raw, t, args.iters, args.warmup))):
                    if (t, system) in failed:
                        continue
                    try:
                        ms, peak = go()
                    except RuntimeError as e:
                        failed[(t, system)] = str(e)
                        print(f"{name}: {system} at {t} thread(s) fails: {e}", flush=True)
                        continue
                    times.setdefault((t, system), []).extend(ms)
                    rss[system] = peak
        for t in threads:
            med = {s: statistics.median(times[(t, s)]) if (t, s) in times else None for s in SYSTEMS}
            rows.append((name, t, med))
        sizes.append((name, size, onnx_size, rss))
    fmt = lambda v: "fails" if v is None else f"{v:.2f}" if v < 10 else f"{v:.1f}"  # noqa: E731
    ratio = lambda a, b: "-" if a is None or b is None else f"{a / b:.2f}"  # noqa: E731
    print(f"\nmedian ms per run (ONNX Runtime {ort_version}; {args.rounds} rounds x {args.iters} runs)")
    print("| model | threads | edgec f32 | edgec int8 | ORT f32 | ORT int8 | edgec int8 speed-up over f32 | "
          "edgec int8 / ORT int8 |")
    print("|---|---|---|---|---|---|---|---|")
    for name, t, m in rows:
        speedup = "-" if m["edgec int8"] is None or m["edgec f32"] is None else f"{m['edgec f32'] / m['edgec int8']:.2f}"
        print(f"| {name} | {t} | " + " | ".join(fmt(m[s]) for s in SYSTEMS) +
              f" | {speedup} | {ratio(m['edgec int8'], m['ORT int8'])} |")
    print("\nsizes (bytes) and peak RSS (KiB, at the last thread count)")
    print("| model | program f32 | program int8 | int8 / f32 | .onnx f32 | .onnx int8 | RSS edgec f32 | "
          "RSS edgec int8 | RSS ORT f32 | RSS ORT int8 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, size, onnx_size, rss in sizes:
        print(f"| {name} | {size['f32']} | {size['int8']} | {size['int8'] / size['f32']:.3f} | {onnx_size['f32']} | "
              f"{onnx_size['int8']} | " + " | ".join(str(rss.get(s, "-")) for s in SYSTEMS) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Latency, load time, peak memory and file size of the fixture models in
PyTorch eager, ONNX Runtime and edgec, measured in one run on this machine.

    /usr/bin/python3 bench/models/compare.py --edgec BUILD/bin/edgec --work DIR \\
        --node-modules DIR/node_modules --resnet18-dir DIR [--threads 2] \\
        [--rounds 5] [--iters 10] [--warmup 3] [--models act,...] \\
        [--backends onednn,none] [--results bench/RESULTS.md --command "..."]

bench/models/run.sh prepares what this needs (packages, ONNX Runtime,
the ResNet-18 export) and calls it; see that script for the user-facing
options.

The machine is shared and noisy (identical runs differ by up to 2x), so each
model's systems are interleaved: `--rounds` rounds, each starting every
system once in a rotated order, each process doing `--warmup` untimed and
`--iters` timed runs. The timed runs of all rounds are pooled (rounds x
iters per system, at least 50 for the report). Every system runs in its own
process, whose peak RSS /usr/bin/time reports, measured the same way for
all.
"""
import sys

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree

import argparse
import datetime
import json
import math
import os
import platform
import re
import subprocess
import tempfile

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(ROOT, "models", "fixtures")

# name, label in the tables; ResNet-18 is exported at bench time (too large
# to commit), the others are the committed fixtures. A fixture with a
# NAME.fixed.npz (vad_stream's sample rate) is compiled with --fix-inputs
# it; ONNX Runtime is given those arrays as inputs.
MODELS = [
    ("act", "ACT-style (act)"),
    ("diffusion", "Diffusion-style (diffusion)"),
    ("resnet18", "ResNet-18"),
    ("transformer", "transformer"),
    ("mlp", "MLP"),
    ("lstm_bidirectional", "2-layer bidirectional LSTM (lstm_bidirectional)"),
    ("vad_stream", "VAD, one 32 ms chunk, state carried (vad_stream)"),
]
SECTION = "## Models vs PyTorch and ONNX Runtime"


def percentile_nearest_rank(sorted_values, q):
    return sorted_values[max(0, math.ceil(q * len(sorted_values)) - 1)]


def summarize(times):
    t = sorted(times)
    n = len(t)
    median = t[n // 2] if n % 2 else (t[n // 2 - 1] + t[n // 2]) / 2
    return {"median_ms": median, "p90_ms": percentile_nearest_rank(t, 0.9), "min_ms": t[0], "runs": n}


def weight_bytes(onnx_path):
    """Bytes of the model's initializers (its weights and buffers), from
    their dims and element types rather than their encoding."""
    model = onnx.load(onnx_path)
    total = 0
    for init in model.graph.initializer:
        itemsize = np.dtype(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[init.data_type]).itemsize
        total += int(np.prod(init.dims, dtype=np.int64)) * itemsize
    return total


def write_raw_inputs(npz_paths, folder):
    """The arrays of the .npz files as raw little-endian files + a JSON
    index, for node."""
    os.makedirs(folder, exist_ok=True)
    specs = []
    for npz_path in npz_paths:
        with np.load(npz_path) as arrays:
            for name in arrays.files:
                a = np.ascontiguousarray(arrays[name])
                dtype = "bool" if a.dtype == np.bool_ else str(a.dtype)
                file = f"input{len(specs)}.bin"
                a.astype(a.dtype.newbyteorder("<")).tofile(os.path.join(folder, file))
                specs.append({"name": name, "dtype": dtype, "shape": list(a.shape), "file": file})
    index = os.path.join(folder, "inputs.json")
    with open(index, "w") as f:
        json.dump(specs, f)
    return index


def run_process(cmd, env=None):
    """Runs `cmd` to completion; returns (exit code, stdout, stderr, peak RSS
    in KiB). The RSS comes from /usr/bin/time, not from this process's own
    wait4: Linux carries a process's peak RSS across fork and exec, so a
    child forked from this (large) Python would report at least our size."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r") as rss:
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss.name] + cmd, stdout=out, stderr=err, env=env)
        out.seek(0)
        err.seek(0)
        lines = rss.read().split()
        peak = int(lines[-1]) if lines and lines[-1].isdigit() else 0
        return proc.returncode, out.read().decode(errors="replace"), err.read().decode(errors="replace"), peak


def first_error_line(text):
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    return (errors or lines or ["failed"])[-1][:200]


class System:
    """One column of the comparison: how to start one measuring process."""

    def __init__(self, key, label, cmd, env):
        self.key, self.label, self.cmd, self.env = key, label, cmd, env
        self.times, self.loads, self.rss, self.error, self.extra = [], [], [], None, {}

    def measure(self):
        if self.error:
            return
        code, out, err, rss = run_process(self.cmd, self.env)
        if code != 0:
            self.error = first_error_line(err or out)
            return
        try:
            report = json.loads(out)
        except ValueError:
            self.error = "unreadable report: " + out[-200:]
            return
        self.times += report["times_ms"]
        self.loads.append(report["load_ms"])
        self.rss.append(rss)
        for k in ("max_abs_diff", "torch_version", "ort_version", "file_bytes", "delegates", "instructions"):
            if k in report:
                self.extra[k] = max(self.extra.get(k, report[k]), report[k]) if k == "max_abs_diff" else report[k]

    def result(self):
        if self.error or not self.times:
            return {"error": self.error or "no runs"}
        r = summarize(self.times)
        r["load_ms"] = float(np.median(self.loads))
        r["loads_ms"] = [round(x, 3) for x in self.loads]  # per process, in run order
        r["peak_rss_kib"] = max(self.rss)
        r.update(self.extra)
        return r


def bench_model(name, onnx_path, args, env):
    work = os.path.join(args.work, name)
    os.makedirs(work, exist_ok=True)
    inputs = onnx_path[: -len(".onnx")] + ".inputs.npz"
    outputs = onnx_path[: -len(".onnx")] + ".outputs.npz"
    fixed = onnx_path[: -len(".onnx")] + ".fixed.npz"
    fixed = [fixed] if os.path.exists(fixed) else []
    py = "/usr/bin/python3"
    entry = {"model": name, "onnx": onnx_path, "onnx_bytes": os.path.getsize(onnx_path),
             "weight_bytes": weight_bytes(onnx_path), "systems": {}, "compile": {}}

    systems = []
    torch_model = os.path.join(work, "torch_model.pt")
    code, out, err, _ = run_process([py, os.path.join(HERE, "torch_bench.py"), "save", name, torch_model], env)
    if code == 0:
        systems.append(System("pytorch", "PyTorch", [
            py, os.path.join(HERE, "torch_bench.py"), "run", torch_model, inputs, outputs,
            str(args.threads), str(args.warmup), str(args.iters)], env))
    else:
        entry["systems"]["pytorch"] = {"error": first_error_line(err)}

    raw_index = write_raw_inputs([inputs] + fixed, os.path.join(work, "raw_inputs"))
    node_env = dict(env, NODE_PATH=args.node_modules)
    systems.append(System("ort", "ONNX Runtime", [
        "node", os.path.join(HERE, "ort_bench.js"), onnx_path, raw_index,
        str(args.threads), str(args.warmup), str(args.iters)], node_env))

    for backend in args.backends:
        program = os.path.join(work, f"{name}.{backend}.edgec")
        if os.path.exists(program):
            os.remove(program)  # never measure a stale file if compiling fails
        fix = ["--fix-inputs", fixed[0]] if fixed else []
        code, out, err, _ = run_process([args.edgec, "compile", onnx_path, "-o", program, "--backends", backend] + fix,
                                        env)
        key = f"edgec-{backend}"
        if code != 0:
            entry["systems"][key] = {"error": "compile: " + first_error_line(err)}
            continue
        entry["compile"][backend] = {"file_bytes": os.path.getsize(program)}
        systems.append(System(key, f"edgec {backend}", [
            args.edgec, "bench", program, "--inputs", inputs, "--threads", str(args.threads),
            "--warmup", str(args.warmup), "--iters", str(args.iters), "--json"], env))

    # Rotating the start each round spreads slow phases of the machine over
    # every system instead of over whichever always runs first.
    for r in range(args.rounds):
        for i in range(len(systems)):
            systems[(i + r) % len(systems)].measure()
    for s in systems:
        entry["systems"][s.key] = s.result()
    return entry


# ---------------------------------------------------------------- reporting


def fmt_ms(v):
    return f"{v:.3f}" if v < 1 else f"{v:.2f}" if v < 100 else f"{v:.0f}"


def cell_latency(r):
    if "error" in r:
        return "n/a"
    return f"{fmt_ms(r['median_ms'])} / {fmt_ms(r['p90_ms'])} / {fmt_ms(r['min_ms'])}"


def ratio(a, b, key="median_ms"):
    if "error" in a or "error" in b:
        return "n/a"
    return f"{a[key] / b[key]:.2f}"


def mib(kib):
    return f"{kib / 1024:.0f}"


def tables(entries, backends):
    cols = ["pytorch", "ort"] + [f"edgec-{b}" for b in backends]
    names = {"pytorch": "PyTorch eager", "ort": "ONNX Runtime"}
    names.update({f"edgec-{b}": f"edgec `{b}`" for b in backends})
    label = dict(MODELS)
    lines = []
    runs = {e["systems"][c].get("runs") for e in entries for c in cols if "runs" in e["systems"].get(c, {})}
    lines.append(f"Latency, ms: median / p90 / min over {', '.join(str(r) for r in sorted(runs)) or '?'} "
                 "runs per system")
    lines.append("")
    lines.append("| model | " + " | ".join(names[c] for c in cols) + " |")
    lines.append("|---" * (len(cols) + 1) + "|")
    for e in entries:
        lines.append(f"| {label[e['model']]} | " + " | ".join(cell_latency(e["systems"].get(c, {"error": "-"}))
                                                           for c in cols) + " |")
    lines.append("")
    lines.append("Ratios of medians (below 1: edgec faster); in brackets, of minimums")
    lines.append("")
    head = []
    for b in backends:
        head += [f"`{b}` / ORT", f"`{b}` / PyTorch"]
    lines.append("| model | " + " | ".join(head) + " |")
    lines.append("|---" * (len(head) + 1) + "|")
    for e in entries:
        s = e["systems"]
        cells = []
        for b in backends:
            mine = s.get(f"edgec-{b}", {"error": "-"})
            for peer in ("ort", "pytorch"):
                other = s.get(peer, {"error": "-"})
                med, mn = ratio(mine, other), ratio(mine, other, "min_ms")
                cells.append("n/a" if med == "n/a" else f"{med} ({mn})")
        lines.append(f"| {label[e['model']]} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("Load, ms (median per process) and peak RSS, MiB (largest process)")
    lines.append("")
    lines.append("| model | " + " | ".join(f"{names[c]} load" for c in cols) + " | "
                 + " | ".join(f"{names[c]} RSS" for c in cols) + " |")
    lines.append("|---" * (2 * len(cols) + 1) + "|")
    for e in entries:
        s = e["systems"]
        loads = [fmt_ms(s[c]["load_ms"]) if "load_ms" in s.get(c, {}) else "n/a" for c in cols]
        rss = [mib(s[c]["peak_rss_kib"]) if "peak_rss_kib" in s.get(c, {}) else "n/a" for c in cols]
        lines.append(f"| {label[e['model']]} | " + " | ".join(loads + rss) + " |")
    lines.append("")
    lines.append("File size: the sum of the ONNX initializers' bytes (weights and buffers) against each "
                 "`.edgec` file; the goal is at most 1.02 x weights + 64 KiB")
    lines.append("")
    lines.append("| model | weights | ONNX file | " + " | ".join(f"`{b}` file (ratio, goal met)" for b in backends)
                 + " |")
    lines.append("|---" * (len(backends) + 3) + "|")
    for e in entries:
        w = e["weight_bytes"]
        cells = []
        for b in backends:
            c = e["compile"].get(b)
            if not c:
                cells.append("n/a")
                continue
            f = c["file_bytes"]
            ok = f <= 1.02 * w + 64 * 1024
            cells.append(f"{f:,} ({f / w:.3f}, {'yes' if ok else 'no'})" if w else f"{f:,}")
        lines.append(f"| {label[e['model']]} | {w:,} | {e['onnx_bytes']:,} | " + " | ".join(cells) + " |")
    notes = []
    for e in entries:
        for c in cols:
            err = e["systems"].get(c, {}).get("error")
            if err:
                notes.append(f"- {label[e['model']]}, {names[c]}: n/a ({err})")
        diff = e["systems"].get("pytorch", {}).get("max_abs_diff")
        if diff is not None and diff > 1e-3:
            notes.append(f"- {label[e['model']]}: the rebuilt PyTorch module differs from the fixture's "
                         f"reference by {diff:.2g}")
    if notes:
        lines += ["", "Not measured or worth knowing:", ""] + notes
    return "\n".join(lines)


def machine_description(entries):
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    blas = os.path.realpath("/etc/alternatives/libblas.so.3-x86_64-linux-gnu")
    torch_v = next((e["systems"]["pytorch"].get("torch_version") for e in entries
                    if "torch_version" in e["systems"].get("pytorch", {})), "?")
    ort_v = next((e["systems"]["ort"].get("ort_version") for e in entries
                  if "ort_version" in e["systems"].get("ort", {})), "?")
    try:
        node_v = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        node_v = "?"
    return (f"{cpu}, {os.cpu_count()} cores, Linux {platform.release()}; PyTorch {torch_v} "
            f"(BLAS: {blas}), onnxruntime-node {ort_v} on node {node_v}")


def update_results(path, body):
    """Replaces this script's section of RESULTS.md (up to the next `## `
    heading), or appends it; other sections stay as they are."""
    text = open(path).read() if os.path.exists(path) else "# Benchmark results\n"
    section = SECTION + "\n\n" + body.rstrip() + "\n"
    pattern = re.compile(r"^" + re.escape(SECTION) + r"\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda m: section + ("\n" if m.end() < len(text) else ""), text, count=1)
    else:
        text = text.rstrip() + "\n\n" + section
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--edgec", required=True)
    p.add_argument("--work", required=True, help="scratch folder (compiled programs, saved modules)")
    p.add_argument("--node-modules", required=True, help="a node_modules holding onnxruntime-node")
    p.add_argument("--resnet18-dir", required=True, help="where resnet18.onnx and its inputs were exported")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=8)
    p.add_argument("--iters", type=int, default=10, help="timed runs per process")
    p.add_argument("--warmup", type=int, default=3, help="untimed runs per process")
    p.add_argument("--models", default=",".join(m for m, _ in MODELS))
    p.add_argument("--backends", default="onednn,none")
    p.add_argument("--results", help="RESULTS.md to update (default: print only)")
    p.add_argument("--command", default="bench/models/run.sh", help="the command to cite in RESULTS.md")
    p.add_argument("--json", help="also write the raw results here")
    args = p.parse_args()
    args.backends = [b for b in args.backends.split(",") if b]
    args.work = os.path.abspath(args.work)
    args.node_modules = os.path.abspath(args.node_modules)
    known = dict(MODELS)
    models = [m for m in args.models.split(",") if m]
    for m in models:
        if m not in known:
            p.error(f"unknown model '{m}' (known: {', '.join(known)})")

    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = os.getloadavg()
    entries = []
    for m in models:
        path = os.path.join(args.resnet18_dir if m == "resnet18" else FIXTURES, m + ".onnx")
        print(f"{m}: measuring ({args.rounds} rounds x {args.iters} runs per system)", file=sys.stderr, flush=True)
        entries.append(bench_model(m, path, args, env))
    load_after = os.getloadavg()

    body = tables(entries, args.backends)
    print(body)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(entries, f, indent=1)
    if args.results:
        preamble = (
            f"Command: `{args.command}` ({args.threads} threads; per model and system {args.rounds} "
            f"interleaved processes x {args.iters} timed runs after {args.warmup} warm-up runs).\n"
            f"Machine: {machine_description(entries)}; {started:%Y-%m-%d %H:%M} UTC; load average "
            f"{load_before[0]:.1f} before, {load_after[0]:.1f} after.\n\n"
            "Each system runs the same ONNX export (PyTorch: the module it was exported from, "
            "`torch.inference_mode()`, `OPENBLAS_NUM_THREADS=1`) on the fixture's inputs, batch 1. "
            "Latency is one forward / `execute` alone; load is `torch.load` of the pickled module, "
            "`InferenceSession.create`, and `edgec bench`'s load_ms (mmap, validation, "
            "`Method::create` with delegate init); peak RSS is the whole process's (PyTorch and node "
            "include their interpreters). The machine is shared: a p90 far above its median is "
            "another process taking the cores, so compare medians and minimums.\n")
        update_results(args.results, preamble + "\n" + body + "\n")
        print(f"updated {args.results}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Latency, load time, peak memory and file size of the fixture models, the
torchvision zoo and a GPT-style decoder in PyTorch eager, ONNX Runtime (two
versions) and edgec, measured in one run on this machine at one or more
thread counts.

    /usr/bin/python3 bench/models/compare.py --edgec BUILD/bin/edgec --work DIR \\
        --ort 1.30.0=DIR/node_modules [--ort 1.20.1=DIR/node_modules] \\
        --resnet18-dir DIR [--threads 1,2] [--rounds R] [--iters N] [--warmup N] \\
        [--models act,...] [--backends default,none] [--strict] \\
        [--results bench/RESULTS.md --command "..."]

bench/models/run.sh prepares what this needs (packages, ONNX Runtime) and
calls it; see that script for the user-facing options. The models and their
exports are in catalog.py, the tables in report.py.

The machine is shared and noisy (identical runs differ by up to 2x), so each
model's systems are interleaved: rounds, each starting every system once in
a rotated order, each process doing untimed warm-up runs and then timed
runs. The timed runs of all rounds are pooled. Every system runs in its own
process, whose peak RSS /usr/bin/time reports, measured the same way for
all. Before the even rounds (0, 2, ...) the file the process loads is
evicted from the page cache with posix_fadvise(POSIX_FADV_DONTNEED) (not
drop_caches: the machine is shared), so those loads read it cold; the odd
rounds load it warm.
"""
import sys

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree

import argparse
import datetime
import json
import math
import os
import re
import subprocess
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import catalog  # noqa: E402
import report  # noqa: E402

PY = "/usr/bin/python3"
FLOOR_SHAPE = [1, 16]  # the Identity model's input: 16 float32, 64 bytes
FLOOR_WARMUP, FLOOR_ITERS = 200, 2000


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
    # edgec's "error: ...", node's "Error: Cannot find module ...", Python's "ValueError: ..."
    errors = [line for line in lines if re.match(r"^(error|\w*Error):", line)]
    return (errors or lines or ["failed"])[-1][:200]


def evict(path):
    """Drops the file's pages from the page cache (clean pages only, which
    these are: nothing writes them while we measure)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


class System:
    """One column of the comparison: how to start one measuring process,
    and the file it loads (evicted before the cold rounds)."""

    def __init__(self, key, cmd, env, files):
        self.key, self.cmd, self.env, self.files = key, cmd, env, files
        self.times, self.cold, self.warm, self.rss, self.error, self.extra = [], [], [], [], None, {}

    def measure(self, cold):
        if self.error:
            return
        if cold:
            for f in self.files:
                evict(f)
        code, out, err, rss = run_process(self.cmd, self.env)
        if code != 0:
            self.error = first_error_line(err or out)
            return
        try:
            report_ = json.loads(out)
        except ValueError:
            self.error = "unreadable report: " + " ".join(out.split())[-200:]
            return
        self.times += report_["times_ms"]
        (self.cold if cold else self.warm).append(report_["load_ms"])
        self.rss.append(rss)
        for k in ("max_abs_diff", "torch_version", "torchvision_version", "ort_version", "blas_threads"):
            if k in report_:
                self.extra[k] = max(self.extra.get(k, report_[k]), report_[k]) if k == "max_abs_diff" else report_[k]

    def result(self):
        if self.error or not self.times:
            return {"error": self.error or "no runs"}
        r = summarize(self.times)
        r["load_cold_ms"] = float(np.median(self.cold)) if self.cold else None
        r["load_warm_ms"] = float(np.median(self.warm)) if self.warm else None
        r["loads_cold_ms"] = [round(x, 3) for x in self.cold]
        r["loads_warm_ms"] = [round(x, 3) for x in self.warm]
        r["peak_rss_kib"] = max(self.rss)
        r.update(self.extra)
        return r


def interleave(systems, rounds):
    # Rotating the start each round spreads slow phases of the machine over
    # every system instead of over whichever always runs first.
    for r in range(rounds):
        for i in range(len(systems)):
            systems[(i + r) % len(systems)].measure(cold=r % 2 == 0)


def torch_module(model, onnx_path, work, env):
    """The pickled module for torch_bench.py `run`, made once and kept while
    it is newer than the ONNX file and the scripts that build it."""
    path = os.path.join(work, "torch_model.pt")
    sources = [onnx_path, os.path.join(HERE, "torch_bench.py")] + [
        os.path.join(catalog.ROOT, "models", f) for f in ("make_fixtures.py", "gpt.py", os.path.join("zoo", "zoo.py"))]
    if os.path.exists(path) and all(os.path.getmtime(path) >= os.path.getmtime(s) for s in sources):
        return path, None
    code, _, err, _ = run_process([PY, os.path.join(HERE, "torch_bench.py"), "save", model.source, model.name, path],
                                  env)
    return (path, None) if code == 0 else (None, first_error_line(err))


def bench_model(model, onnx_path, args, env):
    """One entry per thread count: {"model", "threads", "systems", ...}."""
    work = os.path.join(args.work, model.name)
    os.makedirs(work, exist_ok=True)
    inputs, outputs, fixed = catalog.data_paths(onnx_path)
    rounds, iters, warmup = catalog.runs_for(model, args)
    common = {"model": model.name, "onnx": onnx_path, "onnx_bytes": os.path.getsize(onnx_path),
              "weight_bytes": weight_bytes(onnx_path), "compile": {}, "rounds": rounds, "iters": iters,
              "warmup": warmup}
    errors = {}

    pt, err = torch_module(model, onnx_path, work, env)
    if err:
        errors["pytorch"] = err
    else:
        common["pt_bytes"] = os.path.getsize(pt) + (os.path.getsize(pt + ".script")
                                                    if os.path.exists(pt + ".script") else 0)
    raw_index = write_raw_inputs([inputs] + fixed, os.path.join(work, "raw_inputs"))

    programs = {}
    for backend in args.backends:
        key = report.edgec_key(backend)
        program = os.path.join(work, f"{model.name}.{backend}.edgec")
        if os.path.exists(program):
            os.remove(program)  # never measure a stale file if compiling fails
        cmd = [args.edgec, "compile", onnx_path, "-o", program]
        cmd += [] if backend == "default" else ["--backends", backend]
        cmd += ["--fix-inputs", fixed[0]] if fixed else []
        start = time.perf_counter()
        code, out, err, _ = run_process(cmd, env)
        if code != 0:
            errors[key] = "compile: " + first_error_line(err)
            continue
        common["compile"][backend] = {"file_bytes": os.path.getsize(program),
                                      "seconds": round(time.perf_counter() - start, 2)}
        programs[backend] = program

    entries = []
    for t in args.threads:
        systems = []
        if pt:
            torch_run = [PY, os.path.join(HERE, "torch_bench.py"), "run", pt, inputs, outputs, str(t), str(warmup),
                         str(iters)]
            files = [pt] + ([pt + ".script"] if os.path.exists(pt + ".script") else [])
            systems.append(System("pytorch", torch_run, dict(env, OPENBLAS_NUM_THREADS=str(t)), files))
            if t > 1:
                systems.append(System("pytorch-blas1", torch_run, dict(env, OPENBLAS_NUM_THREADS="1"), files))
        for version, node_modules in args.ort:
            systems.append(System(report.ort_key(version), [
                "node", os.path.join(HERE, "ort_bench.js"), onnx_path, raw_index, str(t), str(warmup), str(iters)],
                dict(env, NODE_PATH=node_modules), [onnx_path]))
        for backend, program in programs.items():
            systems.append(System(report.edgec_key(backend), [
                args.edgec, "bench", program, "--inputs", inputs, "--threads", str(t),
                "--warmup", str(warmup), "--iters", str(iters), "--json"], env, [program]))
        interleave(systems, rounds)
        entry = dict(common, threads=t, systems=dict((k, {"error": v}) for k, v in errors.items()))
        for s in systems:
            entry["systems"][s.key] = s.result()
        entries.append(entry)
    return entries


def binding_floor(args, env):
    """Median of session.run on an Identity model of one [1, 16] float32
    input per ORT version and thread count: what any model pays per call in
    onnxruntime-node (N-API binding, tensor wrapping, output allocation)."""
    folder = os.path.join(args.work, "identity")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "identity.onnx")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, FLOOR_SHAPE)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, FLOOR_SHAPE)
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "identity", [x], [y])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), path)
    np.savez(os.path.join(folder, "identity.npz"), x=np.zeros(FLOOR_SHAPE, np.float32))
    raw_index = write_raw_inputs([os.path.join(folder, "identity.npz")], os.path.join(folder, "raw"))
    floors = {}
    for version, node_modules in args.ort:
        for t in args.threads:
            s = System(report.ort_key(version), [
                "node", os.path.join(HERE, "ort_bench.js"), path, raw_index, str(t), str(FLOOR_WARMUP),
                str(FLOOR_ITERS)], dict(env, NODE_PATH=node_modules), [path])
            for _ in range(catalog.FLOOR_PROCESSES):
                s.measure(cold=False)
            floors[f"{version}@{t}"] = s.result()
    return floors


def parse_ort(values, p):
    versions = []
    for v in values:
        version, sep, node_modules = v.partition("=")
        if not sep or not version or not node_modules:
            p.error(f"--ort takes VERSION=NODE_MODULES, got '{v}'")
        versions.append((version, os.path.abspath(node_modules)))
    return versions


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--edgec", required=True)
    p.add_argument("--work", required=True, help="scratch folder (exports, compiled programs, saved modules)")
    p.add_argument("--ort", action="append", default=[], metavar="VERSION=NODE_MODULES",
                   help="an onnxruntime-node version and the node_modules holding it (repeatable)")
    p.add_argument("--resnet18-dir", required=True, help="where resnet18.onnx and its inputs are (exported if not)")
    p.add_argument("--threads", default="2", help="thread counts, comma-separated (e.g. 1,2)")
    p.add_argument("--rounds", type=int, help="processes per system (default: by model size, catalog.RUNS)")
    p.add_argument("--iters", type=int, help="timed runs per process (default: by model size)")
    p.add_argument("--warmup", type=int, help="untimed runs per process (default: by model size)")
    p.add_argument("--models", default=",".join(m.name for m in catalog.MODELS))
    p.add_argument("--backends", default="default",
                   help="edgec backends, one compile each: 'default' (edgec compile's own choice), 'none', ...")
    p.add_argument("--strict", action="store_true", help="exit 1 if any system of any model gave no figures")
    p.add_argument("--dry-run", action="store_true", help="print the plan and the expected duration, run nothing")
    p.add_argument("--results", help="RESULTS.md to update (default: print only)")
    p.add_argument("--command", default="bench/models/run.sh", help="the command to cite in RESULTS.md")
    p.add_argument("--json", help="also write the raw results here")
    args = p.parse_args()
    args.ort = parse_ort(args.ort, p)
    args.backends = [b for b in args.backends.split(",") if b]
    args.threads = [int(t) for t in args.threads.split(",") if t]
    args.work = os.path.abspath(args.work)
    args.resnet18_dir = os.path.abspath(args.resnet18_dir)
    models = []
    for name in (m for m in args.models.split(",") if m):
        if name not in catalog.BY_NAME:
            p.error(f"unknown model '{name}' (known: {', '.join(catalog.BY_NAME)})")
        models.append(catalog.BY_NAME[name])
    if not args.threads or min(args.threads) < 1:
        p.error("--threads takes positive counts")
    for m in models:
        r, i, _ = catalog.runs_for(m, args)
        if r * i < 50:
            print(f"note: {m.name}: {r} rounds x {i} runs is under 50 timed runs per system", file=sys.stderr)

    estimate = catalog.estimate_seconds(models, args)
    print(f"expected duration: about {estimate / 60:.0f} min ({len(models)} models x threads "
          f"{','.join(map(str, args.threads))}; a rough estimate for a 2-core machine)", file=sys.stderr, flush=True)
    if args.dry_run:
        for m in models:
            r, i, w = catalog.runs_for(m, args)
            print(f"{m.name}: {r} processes x {i} timed runs after {w} warm-up per system and thread count, "
                  f"about {catalog.estimate_seconds([m], args):.0f} s")
        return 0
    os.makedirs(args.work, exist_ok=True)
    env = dict(os.environ)
    started = datetime.datetime.now(datetime.timezone.utc)
    t0 = time.perf_counter()
    load_before = os.getloadavg()
    floors = binding_floor(args, env) if args.ort else {}
    entries = []
    for n, m in enumerate(models):
        left = catalog.estimate_seconds(models[n:], args)
        try:
            path = catalog.prepare(m, args)
        except RuntimeError as e:
            entries.append({"model": m.name, "threads": args.threads[0], "error": f"export: {e}", "systems": {}})
            continue
        rounds, iters, _ = catalog.runs_for(m, args)
        print(f"{m.name}: measuring ({rounds} rounds x {iters} runs per system, threads "
              f"{','.join(map(str, args.threads))}; {time.perf_counter() - t0:.0f} s so far, about "
              f"{left / 60:.0f} min left)",
              file=sys.stderr, flush=True)
        entries += bench_model(m, path, args, env)
    load_after = os.getloadavg()
    elapsed = time.perf_counter() - t0

    run = {"started": started, "elapsed_s": elapsed, "estimate_s": estimate, "load_before": load_before,
           "load_after": load_after, "floors": floors, "floor_shape": FLOOR_SHAPE}
    body = report.tables(entries, args, run)
    print(body)
    print(f"took {elapsed / 60:.1f} min (estimated {estimate / 60:.0f})", file=sys.stderr)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"floors": floors, "entries": entries}, f, indent=1)
    if args.results:
        report.update_results(args.results, report.preamble(entries, args, run) + "\n" + body + "\n")
        print(f"updated {args.results}", file=sys.stderr)
    failed = report.failures(entries) + [f"ORT floor {k}: {r['error']}" for k, r in floors.items() if "error" in r]
    if args.strict and failed:
        print("error: no figures for: " + "; ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

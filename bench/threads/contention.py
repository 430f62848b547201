#!/usr/bin/python3
"""Threads under contention and in a control loop (issue 19): edgec and ONNX
Runtime at 1 and 2 threads, on an idle machine and with one CPU-bound
competitor process, and at a fixed rate (50 Hz) as a control loop calls a
policy. Writes the "Threads under contention and at 50 Hz" section of
bench/RESULTS.md.

    /usr/bin/python3 bench/threads/contention.py --edgec BUILD/bin/edgec \\
        --work DIR --node-modules DIR/node_modules --models act,resnet18,mnasnet1_0 \\
        [--rounds 2] [--seconds 4] [--rate 50] [--results bench/RESULTS.md --command "..."]

bench/threads/run.sh prepares what this needs and calls it.

Each measurement is one process (`edgec bench`, or node with
bench/models/ort_bench.js) doing warm-up runs and then timed runs; the
figures of `--rounds` processes per cell are pooled. The competitor is a
shell busy loop started before the measuring process and killed after it.
"""
import sys

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree

import argparse
import datetime
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "models"))
import compare  # noqa: E402  (write_raw_inputs, first_error_line)
import report  # noqa: E402  (the machine line, the RESULTS.md section writer)

SECTION = "## Threads under contention and at 50 Hz"


def percentile(values, q):
    t = sorted(values)
    return t[max(0, min(len(t) - 1, int(round(q * len(t) + 0.5)) - 1))]


class Cell:
    def __init__(self):
        self.times, self.cpu, self.reduced, self.missed, self.error = [], [], 0, 0, None
        self.ort_version = None

    def add(self, d):
        self.times += d["times_ms"]
        self.cpu.append(d.get("cpu_ms_per_run", 0.0))
        self.reduced += d.get("reduced_runs", 0)
        self.missed += d.get("missed", 0)
        self.ort_version = d.get("ort_version", self.ort_version)

    def stats(self):
        t = sorted(self.times)
        n = len(t)
        median = t[n // 2] if n % 2 else (t[n // 2 - 1] + t[n // 2]) / 2
        return {"median": median, "p90": percentile(t, 0.9), "p99": percentile(t, 0.99), "max": t[-1],
                "mean": sum(t) / n, "cpu": sum(self.cpu) / len(self.cpu), "runs": n}


def run_json(cmd, env):
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError(compare.first_error_line(proc.stderr or proc.stdout))
    # edgec prints one indented object; node one line, after anything else it printed.
    out = proc.stdout.strip()
    return json.loads(out[out.index("{"):] if out.startswith("{") else out.splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--edgec", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--node-modules", required=True)
    ap.add_argument("--model-dir", action="append", default=[], metavar="NAME=DIR",
                    help="where NAME.onnx and NAME.inputs.npz (or NAME.opset17.onnx) are")
    ap.add_argument("--models", default="act,resnet18,mnasnet1_0")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=4.0, help="timed seconds per process, back to back")
    ap.add_argument("--rate", type=float, default=50.0)
    ap.add_argument("--rate-runs", type=int, default=150, help="timed runs per process at the rate")
    ap.add_argument("--results")
    ap.add_argument("--command", default="")
    ap.add_argument("--json")
    args = ap.parse_args()

    dirs = dict(item.split("=", 1) for item in args.model_dir)
    os.makedirs(args.work, exist_ok=True)
    node_env = dict(os.environ, NODE_PATH=os.path.abspath(args.node_modules))
    ort_js = os.path.join(ROOT, "bench", "models", "ort_bench.js")
    load_before = os.getloadavg()
    commit = report._version(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"])
    machine = f"{report.cpu_description()}; edgec at {commit or '?'}; node {report._version(['node', '--version'])}"

    models = []
    for name in args.models.split(","):
        d = dirs[name]
        onnx_path = next(p for p in (os.path.join(d, f"{name}.onnx"), os.path.join(d, f"{name}.opset17.onnx"))
                         if os.path.exists(p))
        inputs = os.path.join(d, f"{name}.inputs.npz")
        program = os.path.join(args.work, f"{name}.edgec")
        subprocess.run([args.edgec, "compile", onnx_path, "-o", program], check=True, capture_output=True)
        raw = compare.write_raw_inputs([inputs], os.path.join(args.work, f"{name}.raw"))
        models.append((name, onnx_path, inputs, program, raw))

    def edgec_cmd(program, inputs, threads, iters, warmup, rate):
        cmd = [args.edgec, "bench", program, "--inputs", inputs, "--threads", str(threads), "--iters", str(iters),
               "--warmup", str(warmup), "--json"]
        return cmd + (["--rate", str(rate)] if rate else [])

    def ort_cmd(onnx_path, raw, threads, iters, warmup, rate):
        return ["node", ort_js, onnx_path, raw, str(threads), str(warmup), str(iters)] + ([str(rate)] if rate else [])

    # Back to back: how many timed runs fill --seconds, from one 1-thread edgec probe.
    results = {}
    for name, onnx_path, inputs, program, raw in models:
        probe = run_json(edgec_cmd(program, inputs, 1, 5, 2, 0), os.environ)
        per_run = max(probe["median_ms"], 0.01)
        iters = int(min(2000, max(20, args.seconds * 1000 / per_run)))
        warmup = max(3, iters // 10)
        print(f"[{name}] {per_run:.2f} ms a run at 1 thread: {iters} timed runs per process", file=sys.stderr)
        systems = [
            ("edgec", lambda t, r, i, w: (edgec_cmd(program, inputs, t, i, w, r), os.environ)),
            # the waiting edgec chose before (no spin), and libgomp's own (spin 300,000 times, then
            # sleep), for the comparison the choice rests on
            ("edgec, idle threads sleeping at once", lambda t, r, i, w: (edgec_cmd(program, inputs, t, i, w, r),
                                                                          dict(os.environ, OMP_WAIT_POLICY="PASSIVE"))),
            ("edgec, libgomp's default waiting", lambda t, r, i, w: (edgec_cmd(program, inputs, t, i, w, r),
                                                                      dict(os.environ, GOMP_SPINCOUNT="300000"))),
            ("ONNX Runtime", lambda t, r, i, w: (ort_cmd(onnx_path, raw, t, i, w, r), node_env)),
        ]
        for rnd in range(args.rounds):
            for scenario in ("idle", "competitor", "rate"):
                for system, make in systems:
                    for threads in (1, 2):
                        cell = results.setdefault((name, scenario, system, threads), Cell())
                        if cell.error:
                            continue
                        rate = args.rate if scenario == "rate" else 0
                        n = args.rate_runs if rate else iters
                        cmd, env = make(threads, rate, n, 10 if rate else warmup)
                        busy = None
                        if scenario == "competitor":
                            busy = subprocess.Popen(["sh", "-c", "while :; do :; done"])
                        try:
                            cell.add(run_json(cmd, env))
                        except (RuntimeError, json.JSONDecodeError, IndexError) as e:
                            cell.error = str(e)
                        finally:
                            if busy:
                                busy.kill()
                                busy.wait()
                        s = cell.stats() if cell.times else None
                        print(f"[{name}] round {rnd + 1} {scenario:10s} {system:34s} {threads} thread(s): " +
                              (f"median {s['median']:.3f} ms" if s else f"error: {cell.error}"), file=sys.stderr)
    load_after = os.getloadavg()
    versions = sorted({c.ort_version for c in results.values() if c.ort_version})
    machine += f", onnxruntime-node {' and '.join(versions) or '?'}"

    text = render(args, models, results, machine, load_before, load_after)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({f"{k[0]}|{k[1]}|{k[2]}|{k[3]}": (v.stats() if v.times else {"error": v.error})
                       for k, v in results.items()}, f, indent=1)
    if args.results:
        report.update_results(args.results, text.split("\n", 2)[2], SECTION)


def fmt(v):
    return f"{v:.3f}" if v < 10 else f"{v:.1f}"


def render(args, models, results, machine, load_before, load_after):
    out = [SECTION, ""]
    out.append(f"Command: `{args.command or 'bench/threads/run.sh'}` ({args.rounds} processes per cell, "
               f"back-to-back runs filling about {args.seconds:g} s each; at the rate, {args.rate_runs} runs each).")
    out.append(f"Machine: {machine}; {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC; load average "
               f"{load_before[0]:.2f} before, {load_after[0]:.2f} after.")
    out.append("")
    out.append("The competitor is one CPU-bound process (`sh -c 'while :; do :; done'`). edgec runs as shipped "
               "(idle OpenMP threads spin `GOMP_SPINCOUNT=10000` times, about a quarter of a millisecond, then sleep; "
               "the workers are kept off the caller's CPU; a run takes the cores other tasks leave free); \"idle "
               "threads sleeping at once\" is the same binary with `OMP_WAIT_POLICY=PASSIVE`, its choice before; "
               "\"libgomp's default waiting\" with `GOMP_SPINCOUNT=300000`, libgomp's default spin before sleeping. "
               "ONNX Runtime (onnxruntime-node, its defaults: the intra-op pool spins, then blocks) gets "
               "`intraOpNumThreads` = the threads.")
    out.append("")
    out.append("Back to back, median / p90 in ms; 2/1: median at 2 threads over median at 1 (the goal: at most "
               "1.2 with the competitor); for edgec, the runs that took fewer threads than asked")
    out.append("")
    out.append("| model | system | idle, 1 thread | idle, 2 threads | competitor, 1 thread | competitor, 2 threads "
               "| 2/1 idle | 2/1 competitor |")
    out.append("|---|---|---|---|---|---|---|---|")
    systems = ["edgec", "edgec, idle threads sleeping at once", "edgec, libgomp's default waiting", "ONNX Runtime"]
    for name, *_ in models:
        for system in systems:
            cells = {}
            for scenario in ("idle", "competitor"):
                for t in (1, 2):
                    c = results.get((name, scenario, system, t))
                    cells[(scenario, t)] = (c.stats(), c) if c and c.times else (None, c)
            row = [name, system]
            for scenario in ("idle", "competitor"):
                for t in (1, 2):
                    s, c = cells[(scenario, t)]
                    if not s:
                        row.append("failed" + (f": {c.error}" if c and c.error else ""))
                        continue
                    extra = f" ({c.reduced} of {s['runs']} on fewer)" if system.startswith("edgec") and t == 2 and c.reduced else ""
                    row.append(f"{fmt(s['median'])} / {fmt(s['p90'])}{extra}")
            for scenario in ("idle", "competitor"):
                a, b = cells[(scenario, 1)][0], cells[(scenario, 2)][0]
                row.append(f"{b['median'] / a['median']:.2f}" if a and b else "-")
            out.append("| " + " | ".join(row) + " |")
    out.append("")
    out.append(f"At {args.rate:g} Hz on the idle machine (each run starts at its tick, as a control loop calls "
               "it): p50 / p99 / max in ms; CPU: the process's CPU time per run, the time its threads burn between "
               "runs included; the goals: CPU at most 1.2 x the mean wall time x the threads, p99 at most 1.5 x p50")
    out.append("")
    out.append("| model | system | threads | p50 / p99 / max | CPU ms per run | CPU / (mean wall x threads) | p99 / p50 |")
    out.append("|---|---|---|---|---|---|---|")
    for name, *_ in models:
        for system in systems:
            for t in (1, 2):
                c = results.get((name, "rate", system, t))
                if not c or not c.times:
                    out.append(f"| {name} | {system} | {t} | failed{': ' + c.error if c and c.error else ''} | | | |")
                    continue
                s = c.stats()
                out.append(f"| {name} | {system} | {t} | {fmt(s['median'])} / {fmt(s['p99'])} / {fmt(s['max'])} | "
                           f"{fmt(s['cpu'])} | {s['cpu'] / (s['mean'] * t):.2f} | {s['p99'] / s['median']:.2f} |")
    out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    main()

"""The markdown of bench/models/compare.py: tables, the machine line, and
the rewrite of its section of bench/RESULTS.md."""
import math
import os
import platform
import re
import subprocess

import catalog

SECTION = "## Models vs PyTorch and ONNX Runtime"
ISA_FLAGS = ("avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512_vnni", "avx512_bf16", "avx_vnni", "amx_tile",
             # aarch64's /proc/cpuinfo "Features": NEON, float16 arithmetic, dot product, SVE, int8 and bf16 matmul
             "asimd", "fphp", "asimdhp", "asimddp", "sve", "i8mm", "bf16")


def edgec_key(backend):
    return "edgec" if backend == "default" else f"edgec-{backend}"


def ort_key(version):
    return f"ort-{version}"


def edgec_name(backend):
    return "edgec" if backend == "default" else f"edgec `{backend}`"


def fmt_ms(v):
    return f"{v:.3f}" if v < 1 else f"{v:.2f}" if v < 100 else f"{v:.0f}"


def ok(r):
    return r is not None and "error" not in r


def cell_latency(r):
    return f"{fmt_ms(r['median_ms'])} / {fmt_ms(r['p90_ms'])} / {fmt_ms(r['min_ms'])}" if ok(r) else "n/a"


def pytorch_best(systems, threads):
    """The faster of PyTorch with OpenBLAS at the run's threads and at one
    (by median), and its label."""
    runs = [(systems.get("pytorch"), f"BLAS {threads}"), (systems.get("pytorch-blas1"), "BLAS 1")]
    runs = [(r, label) for r, label in runs if ok(r)]
    if threads == 1:
        runs = [(r, "BLAS 1") for r, _ in runs]
    if not runs:
        return systems.get("pytorch") or {"error": "not run"}, ""
    return min(runs, key=lambda x: x[0]["median_ms"])


def ratio_cell(mine, other):
    if not ok(mine) or not ok(other):
        return "n/a", None
    med = mine["median_ms"] / other["median_ms"]
    return f"{fmt_ratio(med)} ({fmt_ratio(mine['min_ms'] / other['min_ms'])})", med


def fmt_ratio(v):
    return f"{v:.2f}" if v >= 0.1 else f"{v:.2g}"


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def label(name):
    return catalog.BY_NAME[name].label


def tables(entries, args, run):
    backends = args.backends
    versions = [v for v, _ in args.ort]
    failed_exports = [e for e in entries if "error" in e]
    entries = [e for e in entries if "error" not in e]
    lines = []
    runs = sorted({(e["rounds"], e["iters"], e["warmup"]) for e in entries}, reverse=True)
    lines.append("Latency, ms: median / p90 / min over the timed runs of every process ("
                 + "; ".join(f"{r} processes x {i} runs after {w} warm-up" for r, i, w in runs)
                 + " per system; which models got which: the notes). PyTorch: the faster of OpenBLAS at the "
                 "row's threads and at 1 thread, labelled.")
    lines.append("")
    head = [edgec_name(b) for b in backends] + [f"ORT {v}" for v in versions] + ["PyTorch eager"]
    lines.append("| model | threads | " + " | ".join(head) + " |")
    lines.append("|---|---" + "|---" * len(head) + "|")
    for e in entries:
        s = e["systems"]
        best, blas = pytorch_best(s, e["threads"])
        cells = [cell_latency(s.get(edgec_key(b))) for b in backends]
        cells += [cell_latency(s.get(ort_key(v))) for v in versions]
        cells.append(cell_latency(best) + (f" ({blas})" if ok(best) else ""))
        lines.append(f"| {label(e['model'])} | {e['threads']} | " + " | ".join(cells) + " |")

    floors = run["floors"]
    lines.append("")
    lines.append("Ratios of medians (below 1: edgec faster); in brackets, of minimums. ORT floor: the median "
                 f"of `session.run` on an Identity model of one {'x'.join(map(str, run['floor_shape']))} float32 "
                 f"input ({4 * math.prod(run['floor_shape'])} bytes) in that version at the row's threads, "
                 "the per-call cost of onnxruntime-node's "
                 "binding that every ORT figure includes.")
    lines.append("")
    head = []
    for b in backends:
        for v in versions:
            head += [f"ORT {v} floor, ms", f"{edgec_name(b)} / ORT {v}"] if b == backends[0] else \
                [f"{edgec_name(b)} / ORT {v}"]
        head.append(f"{edgec_name(b)} / PyTorch")
    lines.append("| model | threads | " + " | ".join(head) + " |")
    lines.append("|---|---" + "|---" * len(head) + "|")
    ratios = {}  # (backend, peer, threads) -> [median ratios]
    for e in entries:
        s, t = e["systems"], e["threads"]
        cells = []
        for b in backends:
            mine = s.get(edgec_key(b))
            for v in versions:
                if b == backends[0]:
                    f = floors.get(f"{v}@{t}")
                    cells.append(fmt_ms(f["median_ms"]) if ok(f) else "n/a")
                text, value = ratio_cell(mine, s.get(ort_key(v)))
                cells.append(text)
                if value:
                    ratios.setdefault((b, f"ORT {v}", t), []).append(value)
            text, value = ratio_cell(mine, pytorch_best(s, t)[0])
            cells.append(text)
            if value:
                ratios.setdefault((b, "PyTorch", t), []).append(value)
        lines.append(f"| {label(e['model'])} | {t} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("Geometric mean of the median ratios over the models measured by both:")
    lines.append("")
    for b in backends:
        for t in args.threads:
            parts = []
            for peer in [f"ORT {v}" for v in versions] + ["PyTorch"]:
                values = ratios.get((b, peer, t), [])
                if values:
                    parts.append(f"{edgec_name(b)} / {peer} **{fmt_ratio(geomean(values))}** ({len(values)} models)")
            lines.append(f"- {t} thread{'s' if t > 1 else ''}: " + "; ".join(parts))

    cols = [(edgec_key(b), edgec_name(b)) for b in backends] + [(ort_key(v), f"ORT {v}") for v in versions]
    cols += [("pytorch", "PyTorch")]
    lines.append("")
    lines.append("Load, ms: median over the processes that read the file cold / warm. Cold: before the even "
                 "rounds (the first, third...) the file the process loads (the pickled module, the .onnx, the "
                 ".edgec) is evicted from the page cache with posix_fadvise(POSIX_FADV_DONTNEED), not with "
                 "drop_caches (the machine is shared); libraries stay cached. "
                 "PyTorch: `torch.load` of the pickled module; ORT: `InferenceSession.create`; edgec: `edgec "
                 "bench`'s load (mmap, validation, `Method::create` with delegate init: the weights it maps but "
                 "does not touch while loading are read at the first run, a warm-up run). Peak RSS, MiB: the "
                 "largest process (PyTorch and node include their interpreters).")
    lines.append("")
    lines.append("| model | threads | " + " | ".join(f"{n} load" for _, n in cols) + " | "
                 + " | ".join(f"{n} RSS" for _, n in cols) + " |")
    lines.append("|---|---" + "|---" * (2 * len(cols)) + "|")
    for e in entries:
        s = e["systems"]
        loads, rss = [], []
        for key, _ in cols:
            r = pytorch_best(s, e["threads"])[0] if key == "pytorch" else s.get(key)
            if not ok(r):
                loads.append("n/a")
                rss.append("n/a")
                continue
            cold, warm = r.get("load_cold_ms"), r.get("load_warm_ms")
            loads.append(f"{fmt_ms(cold) if cold is not None else '-'} / {fmt_ms(warm) if warm is not None else '-'}")
            rss.append(f"{r['peak_rss_kib'] / 1024:.0f}")
        lines.append(f"| {label(e['model'])} | {e['threads']} | " + " | ".join(loads + rss) + " |")

    lines.append("")
    lines.append("File size, bytes: the sum of the ONNX initializers' bytes (weights and buffers) against "
                 "the file each system loads: the ONNX file (ORT), the pickled module (PyTorch; vad_stream's "
                 "with its TorchScript file), each `.edgec` file (goal: at most 1.02 x weights + 64 KiB)")
    lines.append("")
    lines.append("| model | weights | ONNX file | PyTorch pickle | "
                 + " | ".join(f"{edgec_name(b)} file (ratio, goal met)" for b in backends) + " |")
    lines.append("|---" * (len(backends) + 4) + "|")
    seen = set()
    for e in entries:
        if e["model"] in seen:
            continue
        seen.add(e["model"])
        w = e["weight_bytes"]
        cells = []
        for b in backends:
            c = e["compile"].get(b)
            if not c:
                cells.append("n/a")
                continue
            f = c["file_bytes"]
            met = f <= 1.02 * w + 64 * 1024
            cells.append(f"{f:,} ({f / w:.3f}, {'yes' if met else 'no'})" if w else f"{f:,}")
        pt = f"{e['pt_bytes']:,}" if "pt_bytes" in e else "n/a"
        lines.append(f"| {label(e['model'])} | {w:,} | {e['onnx_bytes']:,} | {pt} | " + " | ".join(cells) + " |")

    notes = [f"- {label(e['model'])}: not measured ({e['error']})" for e in failed_exports]
    notes += notes_lines(entries, args, run)
    if notes:
        lines += ["", "Not measured or worth knowing:", ""] + notes
    return "\n".join(lines)


def notes_lines(entries_ok, args, run):
    notes = []
    by_runs = {}
    for e in entries_ok:
        by_runs.setdefault((e["rounds"], e["iters"], e["warmup"]), set()).add(e["model"])
    if len(by_runs) > 1:
        for (r, i, w), names in sorted(by_runs.items(), reverse=True):
            notes.append(f"- {r} processes x {i} timed runs ({r * i} per system) after {w} warm-up: "
                         + ", ".join(sorted(names)))
    for key in sorted(run["floors"]):
        f = run["floors"][key]
        if not ok(f):
            notes.append(f"- ORT binding floor {key}: n/a ({f['error']})")
    for e in entries_ok:
        for k, r in sorted(e["systems"].items()):
            if "error" in r:
                notes.append(f"- {label(e['model'])}, {k}, {e['threads']} threads: n/a ({r['error']})")
        diff = max((e["systems"].get(k, {}).get("max_abs_diff", 0) for k in ("pytorch", "pytorch-blas1")), default=0)
        if diff > 1e-3:
            notes.append(f"- {label(e['model'])}, {e['threads']} threads: the rebuilt PyTorch module's output "
                         f"differs from the exported reference by up to {diff:.2g}")
    return notes


def failures(entries):
    """'model/system/threads: error' for every system that gave no figures."""
    out = []
    for e in entries:
        if "error" in e:
            out.append(f"{e['model']}: {e['error']}")
        for k, r in e.get("systems", {}).items():
            if "error" in r:
                out.append(f"{e['model']}/{k}/{e['threads']}: {r['error']}")
    return out


def _version(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "?"


def cpu_description():
    """The CPU model, core count, the ISA flags that matter and the kernel."""
    cpu, flags = "?", set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name") and cpu == "?":
                cpu = line.split(":", 1)[1].strip()
            elif line.startswith("CPU part") and cpu == "?":  # aarch64: the core's part number
                cpu = f"{platform.machine()} CPU part {line.split(':', 1)[1].strip()}"
            elif line.startswith(("flags", "Features")) and not flags:
                flags = set(line.split(":", 1)[1].split())
    isa = ", ".join(f for f in ISA_FLAGS if f in flags) or "none of " + ", ".join(ISA_FLAGS)
    return f"{cpu}, {os.cpu_count()} cores ({isa}), Linux {platform.release()}"


def machine_description(entries, args):
    blas = os.path.realpath(f"/etc/alternatives/libblas.so.3-{platform.machine()}-linux-gnu")
    torch_v = next((r["torch_version"] for e in entries for r in e.get("systems", {}).values()
                    if "torch_version" in r), "?")
    tv_v = next((r["torchvision_version"] for e in entries for r in e.get("systems", {}).values()
                 if "torchvision_version" in r), "?")
    ort_v = sorted({r["ort_version"] for e in entries for r in e.get("systems", {}).values() if "ort_version" in r})
    commit = _version(["git", "-C", os.path.dirname(os.path.abspath(args.edgec)), "rev-parse", "--short", "HEAD"])
    return (f"{cpu_description()}; edgec "
            f"{args.edgec} (checkout {commit or '?'}); Python {platform.python_version()}, PyTorch {torch_v}, "
            f"torchvision {tv_v} (BLAS: {blas}); onnxruntime-node "
            f"{' and '.join(ort_v) or '?'} on node {_version(['node', '--version'])}")


def preamble(entries, args, run):
    started, lb, la = run["started"], run["load_before"], run["load_after"]
    return (
        f"Command: `{args.command}` (threads {', '.join(map(str, args.threads))}; every system at the row's "
        f"thread count; took {run['elapsed_s'] / 60:.1f} min, estimated {run['estimate_s'] / 60:.0f}).\n"
        f"Machine: {machine_description(entries, args)}; {started:%Y-%m-%d %H:%M} UTC; load average "
        f"{lb[0]:.2f} / {lb[1]:.2f} / {lb[2]:.2f} before, {la[0]:.2f} / {la[1]:.2f} / {la[2]:.2f} after.\n\n"
        "Each system runs the same ONNX export on the model's inputs, batch 1: the fixtures "
        "(models/fixtures; ResNet-18 made by models/make_fixtures.py), the torchvision zoo "
        "(models/zoo/zoo.py, opset 17) and a GPT-2-style decoder (models/gpt.py: 4 layers, width 256, "
        "4 heads, 64 tokens, vocabulary 1000). PyTorch runs the module the export was made from "
        "(the exporter's own builder and seed), under `torch.inference_mode()`, `torch.set_num_threads(T)`, "
        "with OpenBLAS at T threads and, above one thread, again at 1; ONNX Runtime (npm onnxruntime-node) "
        "with all graph optimizations, an intra-op pool of T threads, sequential; edgec with "
        "`edgec bench --threads T` on the program `edgec compile` made (`default`: its default backends). "
        "Systems are interleaved process by process; latency is one forward / `session.run` / `execute` "
        "alone. The machine is shared: a p90 far above its median is another process taking the cores, so "
        "compare medians and minimums.\n")


def update_results(path, body, title=SECTION):
    """Replaces the section `title` of RESULTS.md (up to the next `## `
    heading), or appends it; other sections stay as they are."""
    text = open(path).read() if os.path.exists(path) else "# Benchmark results\n"
    section = title + "\n\n" + body.rstrip() + "\n"
    pattern = re.compile(r"^" + re.escape(title) + r"\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda m: section + ("\n" if m.end() < len(text) else ""), text, count=1)
    else:
        text = text.rstrip() + "\n\n" + section
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)

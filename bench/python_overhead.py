#!/usr/bin/python3
"""What the Python module adds to a run: `Method.run` on the MLP fixture
(models/fixtures/mlp.onnx) against `edgec bench` (C++, execute alone) on
the same program file, one thread.

Both sides time one run at a time and report the median over ITERS runs
after a warm-up; ROUNDS rounds alternate the two, and the figures are the
medians of the rounds' medians. Method.run's time covers everything a
caller pays: looking the feeds up by name, binding the numpy buffer
(no copy), execute with the GIL released, and copying the output into a
new array in a new dict.

usage: PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py [--build build]
           [--iters 10000] [--rounds 5]
"""
import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--iters", type=int, default=10000)
    ap.add_argument("--warmup", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    sys.path.insert(0, str(Path(args.build) / "python"))
    import edgec

    edgec_bin = Path(args.build) / "bin" / "edgec"
    fixture = ROOT / "models" / "fixtures"
    with tempfile.TemporaryDirectory() as tmp:
        program_path = Path(tmp) / "mlp.edgec"
        subprocess.run([str(edgec_bin), "compile", str(fixture / "mlp.onnx"), "-o", str(program_path)], check=True)
        with np.load(fixture / "mlp.inputs.npz") as z:
            feeds = {k: z[k] for k in z.files}
        method = edgec.load(program_path).method(threads=1)
        cpp, py = [], []
        for _ in range(args.rounds):
            out = subprocess.run([str(edgec_bin), "bench", str(program_path), "--inputs", str(fixture / "mlp.inputs.npz"),
                                  "--iters", str(args.iters), "--warmup", str(args.warmup), "--threads", "1", "--json"],
                                 check=True, capture_output=True, text=True).stdout
            cpp.append(json.loads(out)["median_ms"] * 1e3)
            for _ in range(args.warmup):
                method.run(feeds)
            times = []
            clock = time.perf_counter_ns
            run = method.run
            for _ in range(args.iters):
                start = clock()
                run(feeds)
                times.append(clock() - start)
            py.append(statistics.median(times) / 1e3)
    c, p = statistics.median(cpp), statistics.median(py)
    print(f"edgec bench (C++, execute alone): median {c:.2f} us  (rounds: {', '.join(f'{v:.2f}' for v in cpp)})")
    print(f"Method.run (Python):              median {p:.2f} us  (rounds: {', '.join(f'{v:.2f}' for v in py)})")
    print(f"Python overhead per run:          {p - c:.2f} us")


if __name__ == "__main__":
    main()

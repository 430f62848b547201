#!/usr/bin/python3
"""Checks the zoo's rewritten files (opsets 18, 20, 21, made by rewrite.py) in
ONNX Runtime 1.30, which runs those opsets: each must load, run and match
PyTorch's output within the zoo's tolerance, so that a rewrite that changed
what the model computes is caught by an implementation other than edgec.

    /usr/bin/python3 models/zoo/ort_check.py OUTDIR NAME --node-modules DIR/node_modules

DIR is a folder where `npm install --ignore-scripts onnxruntime-node@1.30.0`
ran (tests/CMakeLists.txt installs it into the build folder). Exits 1 when
ONNX Runtime is not 1.30, refuses a file or differs from PyTorch.
"""
import sys

sys.dont_write_bytecode = True

import argparse
import json
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(here)), "tests", "support"))
from check_ort import run_ort  # noqa: E402
from compare_npz import compare  # noqa: E402

ORT_VERSION = "1.30.0"
REWRITTEN_OPSETS = (18, 20, 21)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir")
    parser.add_argument("name")
    parser.add_argument("--node-modules", required=True)
    parser.add_argument("--atol", type=float, default=1e-4)
    parser.add_argument("--rtol", type=float, default=1e-4)
    args = parser.parse_args()

    package = os.path.join(args.node_modules, "onnxruntime-node", "package.json")
    if not os.path.exists(package):
        print(f"error: no onnxruntime-node in {args.node_modules} (npm install --ignore-scripts "
              f"onnxruntime-node@{ORT_VERSION} there)")
        return 1
    with open(package) as f:
        version = json.load(f)["version"]
    if version != ORT_VERSION:
        print(f"error: {package} is onnxruntime-node {version}; the rewritten opsets are checked with {ORT_VERSION}")
        return 1
    base = os.path.join(args.outdir, args.name)
    inputs = dict(np.load(base + ".inputs.npz"))
    reference = dict(np.load(base + ".outputs.npz"))
    failed = 0
    for opset in REWRITTEN_OPSETS:
        path = f"{base}.opset{opset}.onnx"
        try:
            got = run_ort(path, inputs, args.node_modules)
        except RuntimeError as e:
            print(f"{path}: ONNX Runtime {version} refused it: {e}")
            failed += 1
            continue
        for out_name, want in reference.items():
            if out_name not in got:
                print(f"{path}: ONNX Runtime gave no output {out_name!r} (it gave {sorted(got)})")
                failed += 1
                continue
            problem = compare(out_name, got[out_name], want, args.atol, args.rtol, "scale")
            if problem:
                print(f"{path}: ONNX Runtime {version} differs from PyTorch:\n{problem}")
                failed += 1
            else:
                err = float(np.abs(got[out_name].astype(np.float64) - want).max())
                print(f"{path}: ONNX Runtime {version} matches PyTorch ({out_name}: max abs error {err:.3g})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

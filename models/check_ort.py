#!/usr/bin/python3
"""Cross-checks fixtures against ONNX Runtime (onnxruntime-node from npm).

The fixtures' reference outputs come from PyTorch eager. This script runs the
exported .onnx files through a second, independent implementation to show
that the export itself is faithful (the exporter has produced wrong or invalid
graphs for some indexing patterns). It is a development aid, not a test
dependency: it needs node and `npm install --ignore-scripts
onnxruntime-node@1.20.1` in some folder.

    /usr/bin/python3 models/check_ort.py FIXTURE_DIR --node-modules DIR/node_modules [--only NAME ...]

Prints one line per fixture: the largest absolute and relative difference of
every output, and exits non-zero if any output differs by more than 1e-4
(abs or rel) or a model fails to load or run.
"""
import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

_RUNNER_JS = r"""
const ort = require('onnxruntime-node');
const fs = require('fs');
const req = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const ctors = {float32: Float32Array, int64: BigInt64Array, bool: Uint8Array, int32: Int32Array};
(async () => {
  const session = await ort.InferenceSession.create(req.model,
      {intraOpNumThreads: 1, graphOptimizationLevel: 'all'});
  const feeds = {};
  for (const [name, a] of Object.entries(req.inputs)) {
    const buf = Buffer.from(a.data, 'base64');
    const C = ctors[a.dtype];
    const copy = new Uint8Array(buf.length); copy.set(buf);
    feeds[name] = new ort.Tensor(a.dtype, new C(copy.buffer), a.shape);
  }
  const out = await session.run(feeds);
  const res = {};
  for (const [name, t] of Object.entries(out)) {
    const d = t.data;
    res[name] = {dtype: t.type, shape: t.dims.map(Number),
                 data: Buffer.from(d.buffer, d.byteOffset, d.byteLength).toString('base64')};
  }
  fs.writeFileSync(process.argv[3], JSON.stringify(res));
})().catch(e => { console.error(String(e)); process.exit(1); });
"""

_NP_DTYPES = {"float32": np.float32, "int64": np.int64, "bool": np.bool_, "int32": np.int32}


def run_ort(model_path, inputs, node_modules):
    """Runs one model in ONNX Runtime; returns {output name: array}."""
    with tempfile.TemporaryDirectory() as tmp:
        req = {"model": os.path.abspath(model_path), "inputs": {}}
        for name, arr in inputs.items():
            arr = np.ascontiguousarray(arr)
            dtype = "bool" if arr.dtype == np.bool_ else str(arr.dtype)
            req["inputs"][name] = {"dtype": dtype, "shape": list(arr.shape),
                                   "data": base64.b64encode(arr.tobytes()).decode()}
        paths = [os.path.join(tmp, n) for n in ("runner.js", "req.json", "res.json")]
        with open(paths[0], "w") as f:
            f.write(_RUNNER_JS)
        with open(paths[1], "w") as f:
            json.dump(req, f)
        env = dict(os.environ, NODE_PATH=os.path.abspath(node_modules))
        proc = subprocess.run(["node"] + paths, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr.strip()[-2000:])
        with open(paths[2]) as f:
            res = json.load(f)
    out = {}
    for name, a in res.items():
        data = np.frombuffer(base64.b64decode(a["data"]), dtype=_NP_DTYPES[a["dtype"]])
        out[name] = data.reshape(a["shape"])
    return out


def max_diffs(ref, got):
    """Largest absolute difference, and largest difference relative to |ref|."""
    if ref.size == 0:
        return 0.0, 0.0
    ref = ref.astype(np.float64)
    got = got.astype(np.float64)
    diff = np.abs(ref - got)
    rel = diff / np.maximum(np.abs(ref), 1e-30)
    return float(diff.max()), float(np.minimum(diff, rel).max())


def check_set(label, model, prefix, args):
    """Runs one input set (PREFIX.inputs.npz, with MODEL's NAME.fixed.npz
    if it has one: inputs edgec takes at compile time) and compares with
    PREFIX.outputs.npz; prints one line, returns whether it matched."""
    inputs = dict(np.load(prefix + ".inputs.npz"))
    fixed = model[: -len(".onnx")] + ".fixed.npz"
    if os.path.exists(fixed):
        inputs.update(np.load(fixed))
    ref = dict(np.load(prefix + ".outputs.npz"))
    try:
        got = run_ort(model, inputs, args.node_modules)
    except RuntimeError as e:
        print(f"{label}: FAILED to run: {e}")
        return False
    parts, ok = [], True
    for out_name, r in ref.items():
        g = got.get(out_name)
        if g is None or tuple(g.shape) != tuple(r.shape):
            parts.append(f"{out_name}: shape {None if g is None else list(g.shape)} != {list(r.shape)}")
            ok = False
            continue
        if r.dtype == np.bool_ or np.issubdtype(r.dtype, np.integer):
            same = bool(np.array_equal(r, g))
            parts.append(f"{out_name}: {'equal' if same else 'DIFFERENT'}")
            ok &= same
            continue
        abs_d, min_d = max_diffs(r, g)
        parts.append(f"{out_name}: max abs {abs_d:.2e}, max min(abs,rel) {min_d:.2e}")
        ok &= min_d <= args.tol
    print(f"{label}: {'ok' if ok else 'MISMATCH'}  " + "; ".join(parts))
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("fixture_dir")
    parser.add_argument("--node-modules", required=True)
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--tol", type=float, default=1e-4)
    args = parser.parse_args()

    with open(os.path.join(args.fixture_dir, "manifest.json")) as f:
        manifest = json.load(f)
    failed = 0
    for fx in manifest["fixtures"]:
        name = fx["name"]
        if args.only and name not in args.only:
            continue
        base = os.path.join(args.fixture_dir, name)
        if not os.path.exists(base + ".onnx"):
            continue
        if not fx.get("onnx_valid", True):
            print(f"{name}: skipped (invalid ONNX by design: {fx.get('checker_error', '')[:80]}...)")
            continue
        # The main input set and the extra ones (NAME.case-LABEL.*.npz).
        sets = [(name, base)] + [(f"{name}[case-{c['label']}]", f"{base}.case-{c['label']}")
                                 for c in fx.get("cases", [])]
        for label, prefix in sets:
            failed += not check_set(label, base + ".onnx", prefix, args)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

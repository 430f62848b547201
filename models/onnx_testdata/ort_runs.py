#!/usr/bin/python3
"""Which of libonnx-testdata's models ONNX Runtime runs, and matches.

For each model in pytorch-converted/, pytorch-operator/ and simple/ under
/usr/share/libonnx-testdata/data, every test_data_set_* is run with
onnxruntime-node (ORT_DIR/node_modules/onnxruntime-node, installed with
`npm install --ignore-scripts onnxruntime-node@VERSION`) and its outputs are
compared with the set's output_*.pb (1e-4 absolute plus relative). Prints
one line per model: "DIR/NAME ok" or "DIR/NAME refused: REASON".

tests/frontends/onnx_testdata_models_test.cpp prints these verdicts
(models/onnx_testdata/ort_1.20.txt) beside edgec's; it holds edgec to every
model, whatever ONNX Runtime does, but those models/onnx_testdata/refused.txt
lists with their reason. Regenerate the verdicts with

    models/onnx_testdata/ort_runs.py /tmp/ort > models/onnx_testdata/ort_1.20.txt
"""
import base64
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

ROOT = "/usr/share/libonnx-testdata/data"
SUITES = ["pytorch-converted", "pytorch-operator", "simple"]

RUNNER = r"""
const ort = require(process.argv[2] + '/node_modules/onnxruntime-node');
const fs = require('fs');
const job = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
const types = {float32: Float32Array, float64: Float64Array, int64: BigInt64Array, int32: Int32Array,
               int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array, bool: Uint8Array,
               uint32: Uint32Array, uint64: BigUint64Array};
(async () => {
  try {
    const s = await ort.InferenceSession.create(job.model, {intraOpNumThreads: 1});
    const results = [];
    for (const set of job.sets) {
      const feeds = {};
      for (const t of set) {
        const buf = Buffer.from(t.data, 'base64');
        const T = types[t.dtype];
        if (!T) throw new Error('an input of type ' + t.dtype + ' (this script feeds numeric tensors only)');
        const arr = new T(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
        feeds[t.name] = new ort.Tensor(t.dtype === 'bool' ? 'bool' : t.dtype, arr, t.dims);
      }
      const out = await s.run(feeds);
      results.push(s.outputNames.map(n => ({dims: out[n].dims, type: out[n].type,
        data: Buffer.from(out[n].data.buffer, out[n].data.byteOffset, out[n].data.byteLength).toString('base64')})));
    }
    console.log(JSON.stringify({ok: true, results}));
  } catch (e) {
    console.log(JSON.stringify({ok: false, error: String(e.message || e).split('\n')[0]}));
  }
})();
"""

NP = {"float32": np.float32, "float64": np.float64, "int64": np.int64, "int32": np.int32, "int8": np.int8,
      "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16, "bool": np.bool_, "uint32": np.uint32,
      "uint64": np.uint64}


def read_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def check(model_dir, ort_dir, tmp):
    model = onnx.load(os.path.join(model_dir, "model.onnx"))
    inits = {t.name for t in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in inits]
    sets, expected = [], []
    for d in sorted(glob.glob(os.path.join(model_dir, "test_data_set_*"))):
        feeds = []
        for k, name in enumerate(names):
            a = np.ascontiguousarray(read_pb(os.path.join(d, "input_%d.pb" % k)))
            dtype = "bool" if a.dtype == np.bool_ else ("string" if a.dtype == object else str(a.dtype))
            feeds.append({"name": name, "dtype": dtype, "dims": list(a.shape),
                          "data": base64.b64encode(a.tobytes()).decode()})
        sets.append(feeds)
        expected.append([read_pb(p) for p in sorted(glob.glob(os.path.join(d, "output_*.pb")))])
    job = os.path.join(tmp, "job.json")
    with open(job, "w") as f:
        json.dump({"model": os.path.join(model_dir, "model.onnx"), "sets": sets}, f)
    runner = os.path.join(tmp, "runner.js")
    with open(runner, "w") as f:
        f.write(RUNNER)
    p = subprocess.run(["node", runner, ort_dir, job], capture_output=True, text=True, timeout=600)
    try:
        r = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return "ONNX Runtime crashed: " + (p.stderr.strip().splitlines() or ["no output"])[-1]
    if not r["ok"]:
        return r["error"]
    for s, (got_set, want_set) in enumerate(zip(r["results"], expected)):
        if len(got_set) != len(want_set):
            return "set %d: %d outputs, expected %d" % (s, len(got_set), len(want_set))
        for i, (g, want) in enumerate(zip(got_set, want_set)):
            dt = NP.get(g["type"])
            if dt is None:
                return "output type " + g["type"]
            got = np.frombuffer(base64.b64decode(g["data"]), dtype=dt).reshape(g["dims"])
            if got.shape != want.shape:
                return "set %d output %d: shape %s, expected %s" % (s, i, got.shape, want.shape)
            if want.dtype.kind == "f":
                w = want.astype(np.float64)
                close = np.abs(got - w) <= 1e-4 + 1e-4 * np.abs(w)
                if not np.all(close | (np.isnan(got) & np.isnan(w))):
                    return "set %d output %d differs by %g" % (s, i, float(np.max(np.abs(got - w))))
            elif not np.array_equal(got, want):
                return "set %d output %d differs" % (s, i)
    return None


def main():
    ort_dir = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        for suite in SUITES:
            for model_dir in sorted(glob.glob(os.path.join(ROOT, suite, "*"))):
                name = os.path.relpath(model_dir, ROOT)
                why = check(model_dir, ort_dir, tmp)
                print(name + (" ok" if why is None else " refused: " + why), flush=True)


if __name__ == "__main__":
    main()

"""Writes ONNX test cases of opsets past 17 (which torch 1.13 cannot export
and Debian's ONNX 1.12 cannot check) with outputs from ONNX Runtime 1.30.

A case is a folder laid out as ONNX's own backend tests are (model.onnx,
test_data_set_0/input_<i>.pb and output_<i>.pb), so that the tests run it
as they run libonnx-testdata's. Outputs come from onnxruntime-node
(ORT_DIR/node_modules/onnxruntime-node; install it with
`npm install --ignore-scripts onnxruntime-node@1.30.0`), never from edgec.
"""
import base64
import json
import os
import shutil
import subprocess
import tempfile

import numpy as np
import onnx
from onnx import helper, numpy_helper

RUNNER = r"""
const ort = require(process.argv[2] + '/node_modules/onnxruntime-node');
const fs = require('fs');
const job = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
const types = {float32: Float32Array, float16: Uint16Array, int64: BigInt64Array, int32: Int32Array,
               int8: Int8Array, uint8: Uint8Array, bool: Uint8Array};
(async () => {
  const s = await ort.InferenceSession.create(job.model, {intraOpNumThreads: 1});
  const feeds = {};
  for (const t of job.inputs) {
    const buf = Buffer.from(t.data, 'base64');
    const arr = new types[t.dtype](buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
    feeds[t.name] = new ort.Tensor(t.dtype, arr, t.dims);
  }
  const out = await s.run(feeds);
  console.log(JSON.stringify(s.outputNames.map(n => ({dims: out[n].dims, type: out[n].type,
    data: Buffer.from(out[n].data.buffer, out[n].data.byteOffset, out[n].data.byteLength).toString('base64')}))));
})().catch(e => { console.error(String(e.message || e)); process.exit(1); });
"""

NP = {"float32": np.float32, "float16": np.float16, "int64": np.int64, "int32": np.int32, "int8": np.int8,
      "uint8": np.uint8, "bool": np.bool_}
IR_OF_OPSET = {18: 8, 19: 9, 20: 9, 21: 10, 22: 10, 23: 11}


def model(nodes, inputs, outputs, opset, initializers=()):
    """A model at `opset` (default domain) and the IR version that opset came with."""
    g = helper.make_graph(nodes, "case", inputs, outputs, initializer=list(initializers))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = IR_OF_OPSET[opset]
    return m


def write_case(out_dir, name, m, feeds, ort_dir):
    """Runs `m` on `feeds` (name -> array) in ONNX Runtime; writes the case."""
    case = os.path.join(out_dir, name)
    shutil.rmtree(case, ignore_errors=True)
    os.makedirs(os.path.join(case, "test_data_set_0"))
    onnx.save(m, os.path.join(case, "model.onnx"))
    with tempfile.TemporaryDirectory() as tmp:
        job = {"model": os.path.join(case, "model.onnx"), "inputs": []}
        for k, (n, a) in enumerate(feeds.items()):
            a = np.ascontiguousarray(a)
            dtype = "bool" if a.dtype == np.bool_ else str(a.dtype)
            job["inputs"].append({"name": n, "dtype": dtype, "dims": list(a.shape),
                                  "data": base64.b64encode(a.tobytes()).decode()})
            t = numpy_helper.from_array(a, n)
            with open(os.path.join(case, "test_data_set_0", "input_%d.pb" % k), "wb") as f:
                f.write(t.SerializeToString())
        with open(os.path.join(tmp, "job.json"), "w") as f:
            json.dump(job, f)
        with open(os.path.join(tmp, "runner.js"), "w") as f:
            f.write(RUNNER)
        p = subprocess.run(["node", os.path.join(tmp, "runner.js"), ort_dir, os.path.join(tmp, "job.json")],
                           capture_output=True, text=True)
        if p.returncode != 0:
            shutil.rmtree(case)
            raise RuntimeError("%s: ONNX Runtime: %s" % (name, p.stderr.strip()))
        for k, o in enumerate(json.loads(p.stdout)):
            a = np.frombuffer(base64.b64decode(o["data"]), dtype=NP[o["type"]]).reshape(o["dims"])
            t = numpy_helper.from_array(a, m.graph.output[k].name)
            with open(os.path.join(case, "test_data_set_0", "output_%d.pb" % k), "wb") as f:
                f.write(t.SerializeToString())
    print("wrote", case)

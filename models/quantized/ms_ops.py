#!/usr/bin/python3
"""Small models of ONNX Runtime's com.microsoft quantized operators (the
QOperator and dynamic forms of issue 32), built with onnx.helper, run in
ONNX Runtime 1.30 for the reference outputs.

    /usr/bin/python3 models/quantized/ms_ops.py OUTDIR --node-modules DIR/node_modules

writes, per case NAME, OUTDIR/NAME.onnx, NAME.inputs.npz (random inputs from
a fixed seed, or every value a lookup table has) and NAME.ort.npz (ONNX
Runtime's outputs), and OUTDIR/manifest.json: [{name, float_output}], where
float_output marks the cases whose outputs are f32 (compared within 1e-5
relative), the others' are integers, compared exactly. Exits 1 when ONNX
Runtime is not 1.30.0 or refuses a model. tests/cli/microsoft_quantized_test.sh
runs it and compares edgec's outputs.

The cases: QLinearAdd and QLinearMul on every pair of 8-bit values (a
[256, 1] by b [1, 256] broadcast) for several scale and zero-point sets, u8
and i8, plus same-shape, scalar-b and scalar-a forms and absent zero
points; QLinearAveragePool (1-d, 2-d, 3-d, padding with and without
count_include_pad, ceil_mode, a window over the whole input), and
QLinearGlobalAveragePool; QLinearSigmoid and QLinearLeakyRelu on all 256
input values for several scale sets; QLinearConcat (an input with y's
parameters among others); QGemm u8 x i8, u8 x u8 and i8 x i8, requantized
and f32, transposed operands, alpha, per-column b, int32 C;
MatMulIntegerToFloat and DynamicQuantizeMatMul (per-tensor and per-column
b, zero points, bias, an all-zero a).
"""
import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ORT_VERSION = "1.30.0"
OPSET = 13
MS = "com.microsoft"

_RUNNER_JS = r"""
const ort = require('onnxruntime-node');
const fs = require('fs');
const jobs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const ctors = {float32: Float32Array, int32: Int32Array, int64: BigInt64Array, uint8: Uint8Array, int8: Int8Array};
(async () => {
  const results = {};
  for (const job of jobs) {
    try {
      const session = await ort.InferenceSession.create(job.model,
          {intraOpNumThreads: 1, graphOptimizationLevel: 'all'});
      const feeds = {};
      for (const [name, a] of Object.entries(job.inputs)) {
        const buf = Buffer.from(a.data, 'base64');
        const copy = new Uint8Array(buf.length); copy.set(buf);
        feeds[name] = new ort.Tensor(a.dtype, new ctors[a.dtype](copy.buffer), a.shape);
      }
      const out = await session.run(feeds);
      const res = {};
      for (const [name, t] of Object.entries(out)) {
        const d = t.data;
        res[name] = {dtype: t.type, shape: t.dims.map(Number),
                     data: Buffer.from(d.buffer, d.byteOffset, d.byteLength).toString('base64')};
      }
      results[job.name] = {outputs: res};
    } catch (e) {
      results[job.name] = {error: String(e)};
    }
  }
  fs.writeFileSync(process.argv[3], JSON.stringify(results));
})().catch(e => { console.error(String(e)); process.exit(1); });
"""

_NP = {"float32": np.float32, "int32": np.int32, "int64": np.int64, "uint8": np.uint8, "int8": np.int8}
_ELEM = {np.dtype(np.uint8): TensorProto.UINT8, np.dtype(np.int8): TensorProto.INT8,
         np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int32): TensorProto.INT32}


def run_ort_batch(jobs, node_modules):
    """jobs: [(name, model path, {input: array})] -> {name: {output: array}}; raises on a refusal."""
    with tempfile.TemporaryDirectory() as tmp:
        req = []
        for name, path, inputs in jobs:
            enc = {}
            for k, a in inputs.items():
                a = np.ascontiguousarray(a)
                enc[k] = {"dtype": str(a.dtype), "shape": list(a.shape), "data": base64.b64encode(a.tobytes()).decode()}
            req.append({"name": name, "model": os.path.abspath(path), "inputs": enc})
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
    for name, r in res.items():
        if "error" in r:
            raise RuntimeError(f"{name}: ONNX Runtime refused it: {r['error']}")
        out[name] = {k: np.frombuffer(base64.b64decode(a["data"]), dtype=_NP[a["dtype"]]).reshape(a["shape"])
                     for k, a in r["outputs"].items()}
    return out


# ---- building models ----------------------------------------------------------------


class Case:
    def __init__(self, name, float_output=False):
        self.name = name
        self.float_output = float_output
        self.nodes, self.inputs, self.inits, self.outputs, self.feeds = [], [], [], [], {}

    def input(self, name, array):
        self.inputs.append(helper.make_tensor_value_info(name, _ELEM[array.dtype], list(array.shape)))
        self.feeds[name] = array
        return name

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, ins, outs, domain=MS, **attrs):
        self.nodes.append(helper.make_node(op, ins, outs, name="/" + op + str(len(self.nodes)), domain=domain, **attrs))

    def output(self, name, elem, shape=None):
        self.outputs.append(helper.make_tensor_value_info(name, elem, shape))

    def save(self, folder):
        graph = helper.make_graph(self.nodes, self.name, self.inputs, self.outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(MS, 1)])
        model.ir_version = 7
        path = os.path.join(folder, self.name + ".onnx")
        onnx.save(model, path)
        np.savez(os.path.join(folder, self.name + ".inputs.npz"), **self.feeds)
        return path


def qtype(signed):
    return (np.int8, TensorProto.INT8) if signed else (np.uint8, TensorProto.UINT8)


def all_values(signed):
    return np.arange(-128, 128, dtype=np.int8) if signed else np.arange(256, dtype=np.uint8)


def rand_q(rng, shape, signed):
    dt, _ = qtype(signed)
    lo, hi = (-128, 128) if signed else (0, 256)
    return rng.integers(lo, hi, size=shape).astype(dt)


# (a_scale, a_zp, b_scale, b_zp, y_scale, y_zp) for u8; i8 shifts the zero points by -128.
BINARY_SETS = [
    (0.05, 128, 0.03, 100, 0.07, 120),
    (1.0, 0, 1.0, 0, 2.0, 0),          # halves: ties to even
    (0.0123, 7, 0.456, 250, 0.1, 3),
    (2.0, 10, 0.5, 200, 0.01, 128),    # saturating
    (0.25, 64, 0.125, 32, 0.375, 200),
]


def binary_cases(rng):
    cases = []
    for op in ("QLinearAdd", "QLinearMul"):
        for signed in (False, True):
            dt, elem = qtype(signed)
            shift = -128 if signed else 0
            for k, (sa, za, sb, zb, sy, zy) in enumerate(BINARY_SETS):
                zps = [z + shift for z in (za, zb, zy)]
                forms = [("pairs", all_values(signed).reshape(256, 1), all_values(signed).reshape(1, 256))]
                if k == 0:
                    forms += [("same", rand_q(rng, (3, 5, 7), signed), rand_q(rng, (3, 5, 7), signed)),
                              ("scalar_b", rand_q(rng, (2, 37), signed), rand_q(rng, (), signed)),
                              ("scalar_a", rand_q(rng, (1,), signed), rand_q(rng, (4, 9), signed)),
                              ("rows", rand_q(rng, (6, 1, 5), signed), rand_q(rng, (4, 5), signed))]
                for form, a, b in forms:
                    c = Case(f"{op.lower()}_{'i8' if signed else 'u8'}_s{k}_{form}")
                    ins = [c.input("a", a), c.const("a_scale", np.float32(sa)), c.const("a_zp", dt(zps[0])),
                           c.input("b", b), c.const("b_scale", np.float32(sb)), c.const("b_zp", dt(zps[1])),
                           c.const("y_scale", np.float32(sy)), c.const("y_zp", dt(zps[2]))]
                    c.node(op, ins, ["y"])
                    c.output("y", elem)
                    cases.append(c)
    return cases


def pool_cases(rng):
    cases = []
    configs = [  # name, x shape, attributes
        ("k3s2p1", (2, 3, 9, 9), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])),
        ("k3s2p1_incl", (2, 3, 9, 9), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
                                           count_include_pad=1)),
        ("k2s2_ceil", (1, 4, 7, 7), dict(kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)),
        ("k3s1_asym", (1, 2, 6, 8), dict(kernel_shape=[3, 2], strides=[1, 2], pads=[0, 1, 2, 0])),
        ("1d", (2, 3, 11), dict(kernel_shape=[4], strides=[3], pads=[1, 2])),
        ("3d", (1, 2, 5, 6, 4), dict(kernel_shape=[2, 3, 2], strides=[1, 2, 2], pads=[0, 1, 0, 1, 0, 0])),
        ("whole", (2, 5, 7, 7), dict(kernel_shape=[7, 7])),
    ]
    scale_sets = [(0.05, 128, 0.04, 120), (0.0172, 3, 0.0123, 250)]
    for signed in (False, True):
        dt, elem = qtype(signed)
        shift = -128 if signed else 0
        for name, shape, attrs in configs:
            for k, (sx, zx, sy, zy) in enumerate(scale_sets):
                c = Case(f"qlinearaveragepool_{'i8' if signed else 'u8'}_{name}_s{k}")
                c.node("QLinearAveragePool", [c.input("x", rand_q(rng, shape, signed)), c.const("x_scale", np.float32(sx)),
                                              c.const("x_zp", dt(zx + shift)), c.const("y_scale", np.float32(sy)),
                                              c.const("y_zp", dt(zy + shift))], ["y"], **attrs)
                c.output("y", elem)
                cases.append(c)
        for k, (sx, zx, sy, zy) in enumerate(scale_sets):
            for shape in ((2, 5, 7, 7), (1, 3, 33)):
                c = Case(f"qlinearglobalaveragepool_{'i8' if signed else 'u8'}_{len(shape) - 2}d_s{k}")
                c.node("QLinearGlobalAveragePool",
                       [c.input("x", rand_q(rng, shape, signed)), c.const("x_scale", np.float32(sx)),
                        c.const("x_zp", dt(zx + shift)), c.const("y_scale", np.float32(sy)),
                        c.const("y_zp", dt(zy + shift))], ["y"])
                c.output("y", elem)
                cases.append(c)
    return cases


LUT_SETS = [(0.05, 128, 1.0 / 256, 0), (0.1, 100, 0.004, 10), (0.0173, 131, 0.00391, 3), (0.5, 128, 0.25, 128),
            (0.025, 0, 0.0039215, 0)]


def lut_cases():
    cases = []
    for op, extra in (("QLinearSigmoid", {}), ("QLinearLeakyRelu", {"alpha": 0.1}), ("QLinearLeakyRelu", {})):
        for signed in (False, True):
            dt, elem = qtype(signed)
            shift = -128 if signed else 0
            for k, (sx, zx, sy, zy) in enumerate(LUT_SETS):
                tag = "" if op == "QLinearSigmoid" else ("_alpha" if extra else "_default")
                c = Case(f"{op.lower()}{tag}_{'i8' if signed else 'u8'}_s{k}")
                c.node(op, [c.input("x", all_values(signed).reshape(16, 16)), c.const("x_scale", np.float32(sx)),
                            c.const("x_zp", dt(zx + shift)), c.const("y_scale", np.float32(sy)),
                            c.const("y_zp", dt(min(zy + shift, 127) if signed else zy))], ["y"], **extra)
                c.output("y", elem)
                cases.append(c)
        # Zero points left out.
        c = Case(f"{op.lower()}{'' if op == 'QLinearSigmoid' else ('_alpha' if extra else '_default')}_u8_no_zero_points")
        c.node(op, [c.input("x", all_values(False)), c.const("x_scale", np.float32(0.03)), "",
                    c.const("y_scale", np.float32(0.002)), ""], ["y"], **extra)
        c.output("y", TensorProto.UINT8)
        cases.append(c)
    return cases


def concat_cases(rng):
    cases = []
    for signed in (False, True):
        dt, elem = qtype(signed)
        shift = -128 if signed else 0
        for axis in (1, -1):
            c = Case(f"qlinearconcat_{'i8' if signed else 'u8'}_axis{axis}")
            ins = [c.const("y_scale", np.float32(0.05)), c.const("y_zp", dt(128 + shift))]
            # (shape, scale, zero point): the second has y's parameters (copied as it is).
            for k, (shape, sx, zx) in enumerate((((2, 3, 4), 0.013, 7), ((2, 2, 4), 0.05, 128), ((2, 5, 4), 0.21, 250))):
                if axis == -1:
                    shape = (2, 3, shape[1] + 1)
                ins += [c.input(f"x{k}", rand_q(rng, shape, signed)), c.const(f"s{k}", np.float32(sx)),
                        c.const(f"z{k}", dt(zx + shift))]
            c.node("QLinearConcat", ins, ["y"], axis=axis)
            c.output("y", elem)
            cases.append(c)
    return cases


def gemm_cases(rng):
    cases = []
    M, K, N = 5, 7, 6
    for ta, tb in (("u8", "i8"), ("u8", "u8"), ("i8", "i8")):
        adt, aelem = qtype(ta == "i8")
        bdt, _ = qtype(tb == "i8")
        for requant in (True, False):
            for trans_a, trans_b, alpha, per_col, bias in ((0, 0, 1.0, False, True), (1, 1, 0.5, True, False),
                                                           (0, 1, 2.0, True, True)):
                name = f"qgemm_{ta}{tb}_{'q' if requant else 'f32'}_t{trans_a}{trans_b}_a{alpha:g}" + \
                    ("_col" if per_col else "") + ("_c" if bias else "")
                c = Case(name, float_output=not requant)
                a = rand_q(rng, (K, M) if trans_a else (M, K), ta == "i8")
                b = rand_q(rng, (N, K) if trans_b else (K, N), tb == "i8")
                bz = rand_q(rng, (N,), tb == "i8") if per_col else bdt(3 if tb == "u8" else -3)
                bs = (rng.uniform(0.01, 0.05, N).astype(np.float32) if per_col else np.float32(0.02))
                ins = [c.input("a", a), c.const("a_scale", np.float32(0.031)), c.const("a_zp", adt(120 if ta == "u8" else -5)),
                       c.input("b", b), c.const("b_scale", bs), c.const("b_zp", bz)]
                ins.append(c.const("c", rng.integers(-2000, 2000, N).astype(np.int32)) if bias else "")
                if requant:
                    ins += [c.const("y_scale", np.float32(0.17)), c.const("y_zp", adt(100 if ta == "u8" else 3))]
                c.node("QGemm", ins, ["y"], alpha=alpha, transA=trans_a, transB=trans_b)
                c.output("y", aelem if requant else TensorProto.FLOAT)
                cases.append(c)
    return cases


def matmul_to_float_cases(rng):
    cases = []
    K, N = 9, 5
    for ta, tb in (("u8", "i8"), ("u8", "u8"), ("i8", "i8")):
        adt, _ = qtype(ta == "i8")
        bdt, _ = qtype(tb == "i8")
        for per_col, zps, bias in ((False, True, True), (True, False, False), (True, True, True)):
            name = f"matmulintegertofloat_{ta}{tb}" + ("_col" if per_col else "") + ("_zp" if zps else "") + \
                ("_bias" if bias else "")
            c = Case(name, float_output=True)
            ins = [c.input("a", rand_q(rng, (2, 3, K), ta == "i8")), c.input("b", rand_q(rng, (K, N), tb == "i8")),
                   c.const("a_scale", np.float32(0.023)),
                   c.const("b_scale", rng.uniform(0.01, 0.05, N).astype(np.float32) if per_col else np.float32(0.04))]
            if zps:
                ins += [c.const("a_zp", adt(131 if ta == "u8" else -7)), c.const("b_zp", bdt(5 if tb == "u8" else 2))]
            else:
                ins += ["", ""]
            ins.append(c.const("bias", rng.standard_normal(N).astype(np.float32)) if bias else "")
            while ins and ins[-1] == "":
                ins.pop()
            c.node("MatMulIntegerToFloat", ins, ["y"])
            c.output("y", TensorProto.FLOAT)
            cases.append(c)
    for tb in ("i8", "u8"):
        bdt, _ = qtype(tb == "i8")
        for per_col, zp, bias, a_kind in ((True, False, True, "normal"), (False, True, False, "positive"),
                                          (True, True, True, "zeros")):
            name = f"dynamicquantizematmul_{tb}_{a_kind}" + ("_col" if per_col else "") + ("_zp" if zp else "") + \
                ("_bias" if bias else "")
            c = Case(name, float_output=True)
            a = {"normal": rng.standard_normal((2, 4, K)) * 3, "positive": rng.uniform(0.5, 4, (3, K)),
                 "zeros": np.zeros((2, K))}[a_kind].astype(np.float32)
            ins = [c.input("a", a), c.input("b", rand_q(rng, (K, N), tb == "i8")),
                   c.const("b_scale", rng.uniform(0.01, 0.05, N).astype(np.float32) if per_col else np.float32(0.03)),
                   c.const("b_zp", rand_q(rng, (N,), tb == "i8") if (zp and per_col) else bdt(4)) if zp else "",
                   c.const("bias", rng.standard_normal(N).astype(np.float32)) if bias else ""]
            while ins and ins[-1] == "":
                ins.pop()
            c.node("DynamicQuantizeMatMul", ins, ["y"])
            c.output("y", TensorProto.FLOAT)
            cases.append(c)
    return cases


def all_cases():
    rng = np.random.default_rng(32)
    return (binary_cases(rng) + pool_cases(rng) + lut_cases() + concat_cases(rng) + gemm_cases(rng) +
            matmul_to_float_cases(rng))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir")
    parser.add_argument("--node-modules", required=True)
    args = parser.parse_args()
    package = os.path.join(args.node_modules, "onnxruntime-node", "package.json")
    if not os.path.exists(package):
        print(f"error: no onnxruntime-node in {args.node_modules}")
        return 1
    with open(package) as f:
        version = json.load(f)["version"]
    if version != ORT_VERSION:
        print(f"error: {package} is onnxruntime-node {version}; these cases are checked with {ORT_VERSION}")
        return 1
    os.makedirs(args.outdir, exist_ok=True)
    cases = all_cases()
    jobs = [(c.name, c.save(args.outdir), c.feeds) for c in cases]
    try:
        results = run_ort_batch(jobs, args.node_modules)
    except RuntimeError as e:
        print(f"error: {e}")
        return 1
    manifest = []
    for c in cases:
        np.savez(os.path.join(args.outdir, c.name + ".ort.npz"), **results[c.name])
        manifest.append({"name": c.name, "float_output": c.float_output})
    with open(os.path.join(args.outdir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    values = sum(int(a.size) for r in results.values() for a in r.values())
    print(f"{len(cases)} models run in ONNX Runtime {version}: {values} output values")
    return 0


if __name__ == "__main__":
    sys.exit(main())

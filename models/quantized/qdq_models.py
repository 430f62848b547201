#!/usr/bin/python3
"""QDQ-quantized ONNX models written the way ONNX Runtime's quantize_static
writes them (issue 32), for comparing edgec with ONNX Runtime 1.30:

  - cnn:   conv-relu, conv-relu, conv + residual add, max pool, global
           average pool, flatten, gemm (transB = 1, with bias);
  - dwsep: a depthwise-separable (MobileNet-like) block: depthwise 3x3 conv
           with bias, Clip(0, 6) kept between the conv and its
           QuantizeLinear, pointwise 1x1 conv-relu, pointwise 1x1 conv,
           residual add;
  - mlp:   a transformer-style MLP: matmul (3-D activations times a 2-D
           weight), add of a bias, GELU in float32 between a
           DequantizeLinear and a QuantizeLinear (opset 13: written out with
           Erf; opset 21: the Gelu operator), matmul, a transpose.

Each comes in the activation types quantize_static offers: u8 (uint8
activations, asymmetric) and s8 (int8 activations, asymmetric); weights are
int8, symmetric (zero point 0, range [-127, 127]), per channel (axis 0 of a
convolution's weight and of Gemm's transB weight, axis 1 of MatMul's [K, N]
weight); biases of convolutions and Gemm are int32 with scale x_scale *
w_scale and zero point 0, as ORT's quantize_bias_static computes them.
Activation ranges are calibrated (min-max, ORT's MinMax calibrator) on the
float32 model over seeded calibration inputs, computed by PyTorch. As
quantize_static does, a Relu that is the only reader of a convolution is
removed (its QuantizeLinear takes the ReLU's range); a max pool, flatten
and transpose take their input's scale and zero point; each other
quantized tensor gets its own.

    /usr/bin/python3 models/quantized/qdq_models.py OUTDIR [--only NAME ...]

writes, per model M in cnn_u8, cnn_s8, dwsep_u8, dwsep_s8, mlp_u8, mlp_s8:
OUTDIR/M.opset13.onnx and OUTDIR/M.opset21.onnx (the QDQ models),
OUTDIR/M.float.onnx (the float32 model they were calibrated on, opset 13),
OUTDIR/M.inputs.npz (input 'x', not among the calibration inputs), and
OUTDIR/manifest.json: per model its outputs 'y' (float32, the dequantized
result) and 'y_q' (the integer result 'y' dequantizes) with y's scale and
zero point. The data is seeded: the same arguments give the same files.

As a module: run_ort(model, inputs, node_modules) runs one model in ONNX
Runtime (onnxruntime-node) and returns its outputs.
"""
import sys

sys.dont_write_bytecode = True

import argparse
import base64
import json
import math
import os
import subprocess
import tempfile

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

ACT_TYPES = {
    # name: (numpy dtype, ONNX type, qmin, qmax)
    "u8": (np.uint8, TensorProto.UINT8, 0, 255),
    "s8": (np.int8, TensorProto.INT8, -128, 127),
}
OPSETS = (13, 21)
CALIBRATION_SAMPLES = 16


# ---- ORT's quantization parameters (onnxruntime/python/tools/quantization/quant_utils.py) ----

def compute_scale_zp(rmin, rmax, qmin, qmax, symmetric=False):
    """quant_utils.compute_scale_zp: the range widened to hold 0, scale and
    zero point in float32 (per element of rmin / rmax)."""
    rmin = np.minimum(np.asarray(rmin, np.float32), np.float32(0))
    rmax = np.maximum(np.asarray(rmax, np.float32), np.float32(0))
    if symmetric:
        absmax = np.maximum(np.abs(rmin), np.abs(rmax))
        rmin, rmax = -absmax, absmax
    scale = ((rmax - rmin) / np.float32(qmax - qmin)).astype(np.float32)
    tiny = scale < np.finfo(np.float32).tiny
    scale = np.where(tiny, np.float32(1), scale).astype(np.float32)
    if symmetric:
        zp = np.full(scale.shape, round((qmax + qmin) / 2), np.int64)
    else:
        zp = np.round(np.float32(qmin) - rmin / scale).astype(np.int64)
    zp = np.where(tiny, 0, np.clip(zp, qmin, qmax))
    return scale.astype(np.float32), zp


def quantize(x, scale, zp, qmin, qmax, dtype):
    """quant_utils.quantize_nparray: round half to even of x / scale (float32), plus zp, saturated."""
    q = np.round(np.asarray(x, np.float32) / np.asarray(scale, np.float32)).astype(np.int64) + zp
    return np.clip(q, qmin, qmax).astype(dtype)


# ---- the models, written once against a builder ------------------------------------

def cnn(b):
    x = b.input("x", [1, 3, 16, 16])
    h = b.conv("conv1", x, 3, 32, 3, pad=1, relu=True)
    h = b.conv("conv2", h, 32, 64, 3, pad=1, relu=True)
    r = b.conv("conv3", h, 64, 64, 3, pad=1)
    h = b.add("res", h, r)
    h = b.max_pool("pool", h, 2)
    h = b.global_avg_pool("gap", h)
    h = b.flatten("flat", h)
    return b.gemm("fc", h, 64, 10)


def dwsep(b):
    x = b.input("x", [1, 16, 12, 12])
    h = b.conv("dw", x, 16, 16, 3, pad=1, groups=16, clip6=True)
    h = b.conv("pw1", h, 16, 32, 1, relu=True)
    h = b.conv("pw2", h, 32, 16, 1)
    return b.add("res", x, h)


def mlp(b):
    x = b.input("x", [1, 8, 32])
    h = b.matmul("fc1", x, 32, 64)
    h = b.add_bias("fc1_bias", h, 64)
    h = b.gelu("gelu", h)
    h = b.matmul("fc2", h, 64, 32)
    return b.transpose("t", h, [0, 2, 1])


MODELS = {"cnn": cnn, "dwsep": dwsep, "mlp": mlp}


class Weights:
    """Seeded float32 weights, drawn once per name so both builders see the same."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.cache = {}

    def get(self, name, shape, fan_in):
        if name not in self.cache:
            bound = 1.0 / math.sqrt(fan_in)
            self.cache[name] = self.rng.uniform(-bound, bound, shape).astype(np.float32)
        return self.cache[name]


class FloatBuilder:
    """Computes the float32 model with PyTorch (recording every activation's
    range over the calibration batch) and writes it as an ONNX graph."""

    def __init__(self, weights, batch):
        self.w, self.batch = weights, batch
        self.vals, self.ranges = {}, {}
        self.nodes, self.inits, self.inputs = [], [], []

    def _record(self, name, v):
        self.vals[name] = v
        self.ranges[name] = (float(v.min()), float(v.max()))
        return name

    def _init(self, name, arr):
        self.inits.append(numpy_helper.from_array(arr, name))
        return name

    def input(self, name, shape):
        self.inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape))
        return self._record(name, torch.from_numpy(self.batch))

    def conv(self, name, x, cin, cout, k, pad=0, groups=1, relu=False, clip6=False):
        w = self.w.get(name + ".w", (cout, cin // groups, k, k), cin // groups * k * k)
        bias = self.w.get(name + ".b", (cout,), cin // groups * k * k)
        y = F.conv2d(self.vals[x], torch.from_numpy(w), torch.from_numpy(bias), padding=pad, groups=groups)
        self.nodes.append(helper.make_node("Conv", [x, self._init(name + ".w", w), self._init(name + ".b", bias)],
                                           [name], pads=[pad] * 4, group=groups, kernel_shape=[k, k]))
        self._record(name, y)
        if relu:
            self.nodes.append(helper.make_node("Relu", [name], [name + "_relu"]))
            return self._record(name + "_relu", F.relu(y))
        if clip6:
            lo, hi = self._init(name + "_lo", np.float32(0)), self._init(name + "_hi", np.float32(6))
            self.nodes.append(helper.make_node("Clip", [name, lo, hi], [name + "_clip"]))
            return self._record(name + "_clip", y.clamp(0, 6))
        return name

    def add(self, name, a, c):
        self.nodes.append(helper.make_node("Add", [a, c], [name]))
        return self._record(name, self.vals[a] + self.vals[c])

    def max_pool(self, name, x, k):
        self.nodes.append(helper.make_node("MaxPool", [x], [name], kernel_shape=[k, k], strides=[k, k]))
        return self._record(name, F.max_pool2d(self.vals[x], k))

    def global_avg_pool(self, name, x):
        self.nodes.append(helper.make_node("GlobalAveragePool", [x], [name]))
        return self._record(name, self.vals[x].mean(dim=(2, 3), keepdim=True))

    def flatten(self, name, x):
        self.nodes.append(helper.make_node("Flatten", [x], [name], axis=1))
        return self._record(name, torch.flatten(self.vals[x], 1))

    def gemm(self, name, x, k, n):
        w = self.w.get(name + ".w", (n, k), k)
        bias = self.w.get(name + ".b", (n,), k)
        self.nodes.append(helper.make_node("Gemm", [x, self._init(name + ".w", w), self._init(name + ".b", bias)],
                                           [name], transB=1))
        return self._record(name, self.vals[x] @ torch.from_numpy(w).T + torch.from_numpy(bias))

    def matmul(self, name, x, k, n):
        w = self.w.get(name + ".w", (k, n), k)
        self.nodes.append(helper.make_node("MatMul", [x, self._init(name + ".w", w)], [name]))
        return self._record(name, self.vals[x] @ torch.from_numpy(w))

    def add_bias(self, name, x, n):
        bias = self.w.get(name, (n,), n)
        self.nodes.append(helper.make_node("Add", [x, self._init(name + ".b", bias)], [name]))
        return self._record(name, self.vals[x] + torch.from_numpy(bias))

    def gelu(self, name, x):
        # Written out with Erf (opset 13 has no Gelu): x * 0.5 * (1 + erf(x / sqrt(2))).
        c = {k: self._init(f"{name}_{k}", np.float32(v)) for k, v in (("sqrt2", math.sqrt(2)), ("one", 1), ("half", 0.5))}
        self.nodes += [helper.make_node("Div", [x, c["sqrt2"]], [name + "_d"]),
                       helper.make_node("Erf", [name + "_d"], [name + "_e"]),
                       helper.make_node("Add", [name + "_e", c["one"]], [name + "_a"]),
                       helper.make_node("Mul", [x, name + "_a"], [name + "_m"]),
                       helper.make_node("Mul", [name + "_m", c["half"]], [name])]
        return self._record(name, F.gelu(self.vals[x]))

    def transpose(self, name, x, perm):
        self.nodes.append(helper.make_node("Transpose", [x], [name], perm=perm))
        return self._record(name, self.vals[x].permute(*perm))

    def model(self, out, name):
        self.nodes.append(helper.make_node("Identity", [out], ["y"]))
        shape = list(self.vals[out].shape)
        shape[0] = 1
        graph = helper.make_graph(self.nodes, name, self.inputs,
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)], self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="qdq_models.py")
        m.ir_version = 7
        onnx.checker.check_model(m)
        return m


class QdqBuilder:
    """Writes the QDQ model: every quantized activation T is
    QuantizeLinear(T) -> T_q -> DequantizeLinear -> T_dq, which its readers
    read; weights and biases are quantized initializers behind a
    DequantizeLinear."""

    def __init__(self, weights, ranges, act, opset):
        self.w, self.ranges, self.opset = weights, ranges, opset
        self.np_type, self.onnx_type, self.qmin, self.qmax = ACT_TYPES[act]
        self.nodes, self.inits, self.inputs = [], [], []
        self.params = {}  # activation name -> (scale name, zero point name)
        self.shapes = {}

    def _init(self, name, arr):
        self.inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def _act_params(self, name, like=None):
        if like is not None:
            self.params[name] = self.params[like]
        else:
            scale, zp = compute_scale_zp(*self.ranges[name], self.qmin, self.qmax)
            self.params[name] = (self._init(name + "_scale", scale.astype(np.float32)),
                                 self._init(name + "_zero_point", zp.astype(self.np_type)))
        return self.params[name]

    def _qdq(self, name, like=None):
        """Q and DQ after float activation `name`; returns the DQ's output."""
        s, z = self._act_params(name, like)
        self.nodes += [helper.make_node("QuantizeLinear", [name, s, z], [name + "_q"]),
                       helper.make_node("DequantizeLinear", [name + "_q", s, z], [name + "_dq"])]
        return name + "_dq"

    def _weight(self, name, w, axis):
        """int8 symmetric per channel along `axis`; returns (DQ output, scale)."""
        reduce = tuple(i for i in range(w.ndim) if i != axis)
        scale, zp = compute_scale_zp(w.min(axis=reduce), w.max(axis=reduce), -127, 127, symmetric=True)
        shape = [1] * w.ndim
        shape[axis] = -1
        q = quantize(w, scale.reshape(shape), zp.reshape(shape), -127, 127, np.int8)
        s = self._init(name + "_scale", scale)
        z = self._init(name + "_zero_point", zp.astype(np.int8))
        self.nodes.append(helper.make_node("DequantizeLinear", [self._init(name + "_quantized", q), s, z],
                                           [name + "_dq"], axis=axis))
        return name + "_dq", scale

    def _bias(self, name, bias, x, w_scale):
        """quantize_bias_static: int32, scale x_scale * w_scale (float32), zero point 0."""
        x_scale = next(numpy_helper.to_array(t) for t in self.inits if t.name == self.params[x][0])
        scale = (np.float32(x_scale) * w_scale).astype(np.float32)
        q = np.round(bias.astype(np.float32) / scale).astype(np.int32)
        s = self._init(name + "_scale", scale)
        z = self._init(name + "_zero_point", np.zeros(scale.shape, np.int32))
        self.nodes.append(helper.make_node("DequantizeLinear", [self._init(name + "_quantized", q), s, z],
                                           [name + "_dq"], axis=0))
        return name + "_dq"

    def input(self, name, shape):
        self.inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape))
        self.x_dq = self._qdq(name)
        self.raw = {name: name}
        return name

    def _dq(self, name):
        return self.x_dq if name == self.inputs[0].name else name + "_dq"

    def conv(self, name, x, cin, cout, k, pad=0, groups=1, relu=False, clip6=False):
        w = self.w.get(name + ".w", (cout, cin // groups, k, k), cin // groups * k * k)
        bias = self.w.get(name + ".b", (cout,), cin // groups * k * k)
        wdq, w_scale = self._weight(name + ".w", w, 0)
        bdq = self._bias(name + ".b", bias, x, w_scale)
        self.nodes.append(helper.make_node("Conv", [self._dq(x), wdq, bdq], [name], pads=[pad] * 4, group=groups,
                                           kernel_shape=[k, k]))
        if relu:  # removed, as quantize_static removes it: Q takes the ReLU's range
            self.params[name] = self._act_params(name + "_relu")
            self._qdq(name, like=name)
            self.params[name + "_relu"] = self.params[name]
            return name
        if clip6:  # kept between the conv and its QuantizeLinear (ranges of the conv's output)
            lo, hi = self._init(name + "_lo", np.float32(0)), self._init(name + "_hi", np.float32(6))
            self.nodes.append(helper.make_node("Clip", [name, lo, hi], [name + "_clip"]))
            self._act_params(name)
            self._qdq(name + "_clip", like=name)
            return name + "_clip"
        self._qdq(name)
        return name

    def add(self, name, a, c):
        self.nodes.append(helper.make_node("Add", [self._dq(a), self._dq(c)], [name]))
        self._qdq(name)
        return name

    def max_pool(self, name, x, k):
        self.nodes.append(helper.make_node("MaxPool", [self._dq(x)], [name], kernel_shape=[k, k], strides=[k, k]))
        self._qdq(name, like=x)
        return name

    def global_avg_pool(self, name, x):
        self.nodes.append(helper.make_node("GlobalAveragePool", [self._dq(x)], [name]))
        self._qdq(name)
        return name

    def flatten(self, name, x):
        self.nodes.append(helper.make_node("Flatten", [self._dq(x)], [name], axis=1))
        self._qdq(name, like=x)
        return name

    def transpose(self, name, x, perm):
        self.nodes.append(helper.make_node("Transpose", [self._dq(x)], [name], perm=perm))
        self._qdq(name, like=x)
        return name

    def gemm(self, name, x, k, n):
        w = self.w.get(name + ".w", (n, k), k)
        bias = self.w.get(name + ".b", (n,), k)
        wdq, w_scale = self._weight(name + ".w", w, 0)
        bdq = self._bias(name + ".b", bias, x, w_scale)
        self.nodes.append(helper.make_node("Gemm", [self._dq(x), wdq, bdq], [name], transB=1))
        self._qdq(name)
        return name

    def matmul(self, name, x, k, n):
        w = self.w.get(name + ".w", (k, n), k)
        wdq, _ = self._weight(name + ".w", w, 1)
        self.nodes.append(helper.make_node("MatMul", [self._dq(x), wdq], [name]))
        self._qdq(name)
        return name

    def add_bias(self, name, x, n):
        # An initializer read by Add is quantized as an activation (its own range, per tensor).
        bias = self.w.get(name, (n,), n)
        scale, zp = compute_scale_zp(bias.min(), bias.max(), self.qmin, self.qmax)
        q = quantize(bias, scale, zp, self.qmin, self.qmax, self.np_type)
        s, z = self._init(name + ".b_scale", scale), self._init(name + ".b_zero_point", zp.astype(self.np_type))
        self.nodes.append(helper.make_node("DequantizeLinear", [self._init(name + ".b_quantized", q), s, z],
                                           [name + ".b_dq"]))
        self.nodes.append(helper.make_node("Add", [self._dq(x), name + ".b_dq"], [name]))
        self._qdq(name)
        return name

    def gelu(self, name, x):
        xd = self._dq(x)
        if self.opset >= 20:
            self.nodes.append(helper.make_node("Gelu", [xd], [name]))
        else:
            c = {k: self._init(f"{name}_{k}", np.float32(v))
                 for k, v in (("sqrt2", math.sqrt(2)), ("one", 1), ("half", 0.5))}
            self.nodes += [helper.make_node("Div", [xd, c["sqrt2"]], [name + "_d"]),
                           helper.make_node("Erf", [name + "_d"], [name + "_e"]),
                           helper.make_node("Add", [name + "_e", c["one"]], [name + "_a"]),
                           helper.make_node("Mul", [xd, name + "_a"], [name + "_m"]),
                           helper.make_node("Mul", [name + "_m", c["half"]], [name])]
        self._qdq(name)
        return name

    def model(self, out, name, out_shape):
        # The last activation's QuantizeLinear output is 'y_q', its DequantizeLinear's 'y'.
        for node in self.nodes:
            for i, o in enumerate(node.output):
                if o == out + "_q":
                    node.output[i] = "y_q"
                elif o == out + "_dq":
                    node.output[i] = "y"
            for i, v in enumerate(node.input):
                if v == out + "_q":
                    node.input[i] = "y_q"
        graph = helper.make_graph(
            self.nodes, name, self.inputs,
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape),
             helper.make_tensor_value_info("y_q", self.onnx_type, out_shape)], self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)],
                              producer_name="qdq_models.py")
        m.ir_version = 7 if self.opset == 13 else 10
        if self.opset <= 17:  # ONNX 1.12's checker knows opsets up to 17
            onnx.checker.check_model(m)
        return m


def build(name, act, seed, outdir):
    """Writes M.float.onnx, M.opset{13,21}.onnx and M.inputs.npz; returns the manifest entry."""
    fn = MODELS[name]
    rng = np.random.default_rng(seed)
    fb_shape = {"cnn": (3, 16, 16), "dwsep": (16, 12, 12), "mlp": (8, 32)}[name]
    calib = rng.standard_normal((CALIBRATION_SAMPLES,) + fb_shape).astype(np.float32)
    test_input = rng.standard_normal((1,) + fb_shape).astype(np.float32)
    weights = Weights(seed + 1)
    fb = FloatBuilder(weights, calib)
    with torch.no_grad():
        out = fn(fb)
    model_name = f"{name}_{act}"
    onnx.save(fb.model(out, model_name), os.path.join(outdir, model_name + ".float.onnx"))
    out_shape = [1] + list(fb.vals[out].shape[1:])
    entry = {}
    for opset in OPSETS:
        qb = QdqBuilder(weights, fb.ranges, act, opset)
        fn(qb)
        onnx.save(qb.model(out, model_name, out_shape), os.path.join(outdir, f"{model_name}.opset{opset}.onnx"))
        scale_name, zp_name = qb.params[out]
        arrays = {t.name: numpy_helper.to_array(t) for t in qb.inits}
        entry = {"y_scale": float(arrays[scale_name]), "y_zero_point": int(arrays[zp_name]),
                 "y_dtype": np.dtype(qb.np_type).name, "opsets": list(OPSETS)}
    np.savez(os.path.join(outdir, model_name + ".inputs.npz"), x=test_input)
    return model_name, entry


# ---- ONNX Runtime (onnxruntime-node) ------------------------------------------------

_RUNNER_JS = r"""
const ort = require('onnxruntime-node');
const fs = require('fs');
const req = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const ctors = {float32: Float32Array, int8: Int8Array, uint8: Uint8Array, int32: Int32Array, int64: BigInt64Array};
(async () => {
  const options = {intraOpNumThreads: 1, graphOptimizationLevel: req.optimization};
  const session = await ort.InferenceSession.create(req.model, options);
  const feeds = {};
  for (const [name, a] of Object.entries(req.inputs)) {
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
  fs.writeFileSync(process.argv[3], JSON.stringify(res));
})().catch(e => { console.error(String(e)); process.exit(1); });
"""


def run_ort(model_path, inputs, node_modules, optimization="all"):
    """Runs one model in ONNX Runtime (graph optimizations `optimization`:
    'all' fuses the QDQ groups as ORT's QDQ transformer does); returns
    {output name: array}. Raises RuntimeError when ORT fails."""
    with tempfile.TemporaryDirectory() as tmp:
        req = {"model": os.path.abspath(model_path), "inputs": {}, "optimization": optimization}
        for name, arr in inputs.items():
            arr = np.ascontiguousarray(arr)
            req["inputs"][name] = {"dtype": str(arr.dtype), "shape": list(arr.shape),
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
    return {name: np.frombuffer(base64.b64decode(a["data"]), dtype=np.dtype(a["dtype"])).reshape(a["shape"])
            for name, a in res.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir")
    parser.add_argument("--only", nargs="*", help="model names (cnn, dwsep, mlp)")
    args = parser.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    manifest = {}
    for i, name in enumerate(MODELS):
        if args.only and name not in args.only:
            continue
        for j, act in enumerate(ACT_TYPES):
            model_name, entry = build(name, act, 100 * i + 10 * j + 1, args.outdir)
            manifest[model_name] = entry
            print(f"{model_name}: y scale {entry['y_scale']:.6g}, zero point {entry['y_zero_point']}")
    with open(os.path.join(args.outdir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

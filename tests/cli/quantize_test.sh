#!/usr/bin/env bash
# edgec quantize (issue 32, item 6) on two fixtures: act (the ACT-style
# policy: 21 Conv + Relu, 8 Gemm, 41 MatMul, Add/Mul/Concat, a transformer)
# with min-max calibration, and mlp (Gemm) with percentile calibration.
# Calibration inputs are synthetic (smooth colour fields with noise for
# images, normal values otherwise), made at test time: 10 files, the last 2
# held back. Checks:
#   - the QDQ file is what ONNX Runtime's quantize_static writes (QDQ,
#     per-channel): every Conv/Gemm/MatMul/Add/Mul/Concat reads its float
#     inputs through DequantizeLinear and its output goes through
#     QuantizeLinear -> DequantizeLinear of the same scale and zero point
#     (uint8, per tensor); each Conv/Gemm weight is an int8 initializer
#     (zero point 0, values in -127..127, one scale per output channel, and
#     within half a step of the float weight); each bias is int32 with
#     scale x_scale * w_scale (float32) and within half a step of the float
#     bias; no float copy of a quantized weight is left; opset >= 13;
#   - ONNX Runtime 1.30 runs the QDQ file, and its outputs have cosine >=
#     0.99 against its outputs of the float model on the held-back files;
#   - edgec's report compares the two models, both compiled by edgec, with
#     cosine >= 0.99 per output, and lists the layers that lose most;
#   - --keep-float leaves the named Conv in float32;
#   - the per-layer measurement (on by default, --no-measure turns it
#     off): with EDGEC_ISA=avx2 (oneDNN's slow reference int8 path) every
#     Conv of act stays float32, its report line giving both times; on the
#     machine's best ISA the report lists every Conv/Gemm/MatMul layer the
#     quantizer would quantize with its float32 and int8 times and a
#     decision that follows them (int8 iff int8 <= 90% of float32; which way
#     it goes is not asserted, CPUs differ), and the model written is
#     exactly the --no-measure one with those float32 layers given to
#     --keep-float (same bytes), the kept layers reading float32 weights;
#     the whole float and quantized models are timed too (no direction
#     asserted either);
#   - edgec compile --quantize int8 compiles the quantized model, whose
#     outputs have cosine >= 0.99 against ONNX Runtime's of the float one;
#   - usage errors: a missing folder, an npz without an input, an unknown
#     --keep-float node, a bad --method, too many held back.
#   quantize_test.sh EDGEC NODE_MODULES FIXTURES
set -euo pipefail
edgec=$1 node_modules=$2 fixtures=$3
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$t"

# Synthetic calibration files for MODEL's inputs: make_calibration MODEL DIR N
make_calibration() {
  $py - "$1" "$2" "$3" <<'EOF'
import os, sys
import numpy as np, onnx
model, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
m = onnx.load(model)
inits = {t.name for t in m.graph.initializer}
rng = np.random.default_rng(7)
os.makedirs(out, exist_ok=True)
for k in range(n):
    arrays = {}
    for i in m.graph.input:
        if i.name in inits:
            continue
        shape = [d.dim_value or 1 for d in i.type.tensor_type.shape.dim]
        if len(shape) == 4:
            h, w = shape[2], shape[3]
            y, x = np.mgrid[0:h, 0:w] / max(h, w)
            img = np.stack([np.sin(rng.uniform(1, 6) * x + rng.uniform(0, 6) * y + rng.uniform(0, 6))
                            for _ in range(shape[1])])
            img = 0.5 + 0.4 * img + 0.1 * rng.standard_normal((shape[1], h, w))
            arrays[i.name] = np.clip(img, 0, 1)[None].repeat(shape[0], 0).astype(np.float32)
        else:
            arrays[i.name] = rng.standard_normal(shape).astype(np.float32)
    np.savez(os.path.join(out, f"sample{k:02d}.npz"), **arrays)
EOF
}

# check_qdq FLOAT.onnx QDQ.onnx CALDIR REPORT.json [KEPT_NODES]: the checks
# above on one quantized model (KEPT_NODES: comma-separated, left float32).
check_qdq() {
  $py - "$@" "$node_modules" "$root/models" <<'EOF'
import glob, json, os, sys
import numpy as np, onnx
from onnx import numpy_helper
fmodel, qmodel, cal, report = sys.argv[1:5]
kept = set(sys.argv[5].split(",")) if len(sys.argv) == 8 and sys.argv[5] else set()
node_modules, models = sys.argv[-2:]
sys.path.insert(0, models)
from check_ort import run_ort
problems = []
f = onnx.load(fmodel)
q = onnx.load(qmodel)
fw = {t.name: numpy_helper.to_array(t) for t in f.graph.initializer}
# Weights given as Constant nodes, or as Identity of an initializer, are
# initializers to the quantizer (as after ORT's pre-processing).
for n in f.graph.node:
    if n.op_type == "Constant" and n.attribute[0].name == "value":
        fw[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
    if n.op_type == "Identity" and n.input[0] in fw:
        fw[n.output[0]] = fw[n.input[0]]
# Which tensors are float32, from ONNX's shape inference of the float model.
inferred = onnx.shape_inference.infer_shapes(f).graph
is_float = {v.name: v.type.tensor_type.elem_type == onnx.TensorProto.FLOAT
            for v in list(inferred.value_info) + list(inferred.input) + list(inferred.output)}
qi = {t.name: numpy_helper.to_array(t) for t in q.graph.initializer}
producer = {o: n for n in q.graph.node for o in n.output}
opset = [o.version for o in q.opset_import if o.domain in ("", "ai.onnx")][0]
if opset < 13:
    problems.append(f"opset {opset}, below 13")
count = {}
for n in q.graph.node:
    count[n.op_type] = count.get(n.op_type, 0) + 1
nq, ndq = count.get("QuantizeLinear", 0), count.get("DequantizeLinear", 0)
const_dq = sum(1 for n in q.graph.node if n.op_type == "DequantizeLinear" and n.input[0] in qi)
print(f"{os.path.basename(qmodel)}: {nq} QuantizeLinear, {ndq} DequantizeLinear ({const_dq} of constants), "
      f"{sum(1 for a in qi.values() if a.dtype == np.int8 and a.ndim >= 2)} int8 weights; "
      f"{os.path.getsize(fmodel)} -> {os.path.getsize(qmodel)} bytes")
if nq == 0 or ndq != nq + const_dq:
    problems.append(f"expected one DequantizeLinear per QuantizeLinear plus one per constant: {nq} Q, {ndq} DQ, "
                    f"{const_dq} of constants")
for n in q.graph.node:
    if n.op_type == "QuantizeLinear":
        s, z = qi[n.input[1]], qi[n.input[2]]
        if z.dtype != np.uint8 or s.shape != () or z.shape != ():
            problems.append(f"{n.name}: activations are uint8 per tensor, got {z.dtype} {s.shape}")
        readers = [m for m in q.graph.node if n.output[0] in m.input]
        if len(readers) != 1 or readers[0].op_type != "DequantizeLinear" or readers[0].input[1:] != n.input[1:]:
            problems.append(f"{n.name}: not followed by one DequantizeLinear of the same parameters")

def dq_of(name):
    p = producer.get(name)
    return p if p is not None and p.op_type == "DequantizeLinear" else None

def scale_of(dq):
    return qi[dq.input[1]]

quantized_ops = {"Conv", "Gemm", "MatMul", "Add", "Mul", "Concat"}
seen_kept = set()
for n in q.graph.node:
    if n.op_type not in quantized_ops:
        continue
    if n.name in kept:
        seen_kept.add(n.name)
        # Its weights are the float model's float32 initializers, read
        # directly; no constant reaches it through a DequantizeLinear.
        for i in n.input:
            d = dq_of(i)
            if (d is not None and d.input[0] in qi) or (i in fw and (i not in qi or qi[i].dtype != np.float32)):
                problems.append(f"{n.name}: kept float32, but its input '{i}' is not a float32 initializer")
        continue
    for i in n.input:
        if i in qi and qi[i].dtype == np.float32 and i in fw:
            problems.append(f"{n.name} ({n.op_type}): reads the float initializer '{i}'")
        elif i and i not in qi and dq_of(i) is None and is_float.get(i, False):
            problems.append(f"{n.name} ({n.op_type}): float input '{i}' does not come from a DequantizeLinear")
    readers = [m for m in q.graph.node if n.output[0] in m.input]
    is_output = n.output[0].endswith("_QuantizeLinear_Input")
    # A folded Relu: the node writes the Relu's output, float in the float model.
    if not is_output and is_float.get(n.output[0], False) and not any(m.op_type == "QuantizeLinear" for m in readers):
        problems.append(f"{n.name} ({n.op_type}): its float output is not quantized")
    if n.op_type not in ("Conv", "Gemm"):
        continue
    wdq = dq_of(n.input[1])
    if wdq is None:
        problems.append(f"{n.name}: weight not behind a DequantizeLinear")
        continue
    qw, ws, wz = qi[wdq.input[0]], qi[wdq.input[1]], qi[wdq.input[2]]
    name = wdq.input[0][: -len("_quantized")]
    axis = 0
    if n.op_type == "Gemm":
        axis = 0 if any(a.name == "transB" and a.i for a in n.attribute) else 1
    w = fw.get(name)
    if w is None:
        problems.append(f"{n.name}: int8 weight '{wdq.input[0]}' is not named after a float weight of the model")
        continue
    if name in qi:
        problems.append(f"{n.name}: the float weight '{name}' is still in the file")
    axis_attr = [a.i for a in wdq.attribute if a.name == "axis"]
    if qw.dtype != np.int8 or wz.dtype != np.int8 or np.any(wz != 0) or ws.shape != (w.shape[axis],) or \
            axis_attr != [axis] or qw.shape != w.shape or np.abs(qw.astype(int)).max() > 127:
        problems.append(f"{n.name}: weight not int8 symmetric per channel along axis {axis}: {qw.dtype} zp "
                        f"{wz.dtype} scale {ws.shape} axis {axis_attr}")
        continue
    shape = [1] * w.ndim
    shape[axis] = -1
    err = np.abs(qw.astype(np.float32) * ws.reshape(shape) - w) / ws.reshape(shape)
    if err.max() > 0.5 + 1e-3:
        problems.append(f"{n.name}: int8 weight off the float one by {err.max():.3f} steps")
    if len(n.input) > 2 and n.input[2]:
        bdq = dq_of(n.input[2])
        if bdq is None:
            problems.append(f"{n.name}: bias not behind a DequantizeLinear")
            continue
        qb, bs = qi[bdq.input[0]], qi[bdq.input[1]]
        xs = scale_of(dq_of(n.input[0]))
        if qb.dtype != np.int32 or not np.array_equal(bs, (xs * ws).astype(np.float32)):
            problems.append(f"{n.name}: bias not int32 with scale x_scale * w_scale")
        b = fw[n.input[2]]
        if np.abs(qb.astype(np.float64) * bs - b).max() > 0.5 * bs.max() * 1.001:
            problems.append(f"{n.name}: int32 bias off the float one by more than half a step")
if kept - seen_kept:
    problems.append(f"the nodes kept float, {sorted(kept - seen_kept)}, are not in the quantized model")

# ONNX Runtime 1.30 on the held-back files.
with open(os.path.join(node_modules, "onnxruntime-node", "package.json")) as fp:
    version = json.load(fp)["version"]
if version != "1.30.0":
    problems.append(f"onnxruntime-node {version} in {node_modules}; this test compares with 1.30.0")
held = sorted(glob.glob(os.path.join(cal, "*.npz")))[-2:]
acc = {}
for path in held:
    x = dict(np.load(path))
    try:
        a, b = run_ort(fmodel, x, node_modules), run_ort(qmodel, x, node_modules)
    except RuntimeError as e:
        problems.append(f"ONNX Runtime {version} refused a model: {e}")
        break
    for k in a:
        u, v = a[k].astype(np.float64).ravel(), b[k].astype(np.float64).ravel()
        s = acc.setdefault(k, [0.0, 0.0, 0.0])
        s[0] += u @ v; s[1] += u @ u; s[2] += v @ v
for k, (uv, uu, vv) in acc.items():
    cos = uv / np.sqrt(uu * vv)
    print(f"  ONNX Runtime {version}: output {k}: cosine {cos:.6f} (QDQ vs float, {len(held)} held-back files)")
    if not cos >= 0.99:
        problems.append(f"ONNX Runtime: output {k}: cosine {cos:.6f} below 0.99")

# edgec's own report.
r = json.load(open(report))
if not r["compared"]:
    problems.append(f"the report did not compare the models: {r.get('reason')}")
else:
    for o in r["outputs"]:
        print(f"  edgec report: output {o['name']}: cosine {o['cosine']:.6f}, max abs error {o['max_abs_error']:.3g}")
        if not o["cosine"] >= 0.99:
            problems.append(f"report: output {o['name']}: cosine {o['cosine']} below 0.99")
    if not r["worst_layers"] or r["layers_compared"] < len(r["worst_layers"]):
        problems.append("report: no layers listed")
if r["holdout_samples"] != 2 or r["calibration_samples"] != 8:
    problems.append(f"report: expected 8 calibration and 2 held-back files, got {r['calibration_samples']} and "
                    f"{r['holdout_samples']}")
for p in problems:
    print("  " + p)
sys.exit(1 if problems else 0)
EOF
}

# check_measure REPORT.json QDQ.onnx REFERENCE.onnx REPORT.txt KEPT.txt [OP]:
# the measurement in REPORT.json against the model written (QDQ.onnx) and
# the --no-measure one (REFERENCE.onnx); the layers left float32 go to
# KEPT.txt, comma-separated. With OP, every layer of that operator must
# have been timed and left float32.
check_measure() {
  $py - "$@" <<'EOF'
import json, math, sys
import onnx
report, qmodel, refmodel, text, kept_out = sys.argv[1:6]
must_float = sys.argv[6] if len(sys.argv) > 6 else None
problems = []
top = json.load(open(report))
r = top["measurement"]
q, ref = onnx.load(qmodel), onnx.load(refmodel)
# With held-back files, the whole models are timed too.
w = r.get("whole_model")
if top["holdout_samples"] > 0:
    if not w or not w["measured"] or not (w["float_ms"] > 0 and w["int8_ms"] > 0) or w["runs"] < 3:
        problems.append(f"the whole models are not timed: {w}")
    else:
        print(f"  whole model: float32 {w['float_ms']:.4f} ms, quantized {w['int8_ms']:.4f} ms")
elif w:
    problems.append(f"the whole models timed without a held-back file: {w}")
text = open(text).read().splitlines()

def producers(m):
    return {o: n for n in m.graph.node for o in n.output}

# The layers the quantizer quantizes without the measurement: every
# Conv/Gemm/MatMul of the --no-measure model that reads a DequantizeLinear.
rp = producers(ref)
expected = [n.name for n in ref.graph.node if n.op_type in ("Conv", "Gemm", "MatMul")
            and any(i in rp and rp[i].op_type == "DequantizeLinear" for i in n.input)]
layers = r["layers"]
if not r["measured"]:
    problems.append(f"not measured: {r.get('reason')}")
if [l["name"] for l in layers] != expected:
    problems.append(f"the report lists {len(layers)} layers, the quantizer quantizes {len(expected)}: "
                    f"{sorted(set(expected) ^ {l['name'] for l in layers})[:5]}")
margin = r["margin"]
if not 0 <= margin < 1:
    problems.append(f"margin {margin}")
by_name = {l["name"]: l for l in layers}
qi = {t.name: t for t in q.graph.initializer}
qp = producers(q)
kept = []
timed = 0
for l in layers:
    name, d = l["name"], l["decision"]
    if not l["measured"]:
        # Only a layer of constants is not timed (compiling folds it).
        if not l.get("reason") or d != "int8":
            problems.append(f"{name}: not timed, reason {l.get('reason')!r}, decision {d}")
    else:
        f, i = l["float_ms"], l["int8_ms"]
        if not (f > 0 and i > 0 and math.isfinite(f) and math.isfinite(i)) or l["runs"] < 3:
            problems.append(f"{name}: times {f} / {i} ms over {l['runs']} runs")
        want = "int8" if i <= (1 - margin) * f else "float32"
        if d != want:
            problems.append(f"{name}: float32 {f} ms, int8 {i} ms, decision {d}, expected {want}")
        if "same_as" in l:
            first = by_name.get(l["same_as"])
            if first is None or "same_as" in first or (first["float_ms"], first["int8_ms"]) != (f, i):
                problems.append(f"{name}: timed as {l['same_as']}, whose times differ")
        else:
            timed += 1
            print(f"  {name} ({l['op_type']}): float32 {f:.4f} ms, int8 {i:.4f} ms -> {d}")
    if must_float and l["op_type"].split("+")[0] == must_float and (d != "float32" or not l["measured"]):
        problems.append(f"{name} ({l['op_type']}): expected to stay float32 on this ISA, decision {d}")
    line = [s for s in text if s.startswith(f"  {name} (") and " -> " in s]
    if len(line) != 1 or not (line[0].endswith(f"-> {d}") or f"-> {d} (timed as" in line[0]):
        problems.append(f"{name}: the printed report does not give its decision {d}: {line}")
    # The model written follows the decision: a float32 layer reads no
    # constant through a DequantizeLinear (its weights stay float32, as in
    # the float model), an int8 one reads its weights through them and its
    # output goes to a QuantizeLinear.
    node = [n for n in q.graph.node if n.name == name]
    if len(node) != 1:
        problems.append(f"{name}: not in the quantized model")
        continue
    n = node[0]
    from_const = [i for i in n.input if i in qp and qp[i].op_type == "DequantizeLinear" and qp[i].input[0] in qi]
    float_weights = [i for i in n.input if i in qi and qi[i].data_type == onnx.TensorProto.FLOAT]
    out_q = [m.op_type for m in q.graph.node if n.output[0] in m.input] == ["QuantizeLinear"]
    if d == "float32":
        kept.append(name)
        if from_const or not (float_weights or n.op_type == "MatMul"):
            problems.append(f"{name}: left float32, but reads {from_const} through DequantizeLinear")
    elif not (from_const or n.op_type == "MatMul") or float_weights or not out_q:
        problems.append(f"{name}: int8, but reads float weights {float_weights} or its output is not quantized")
print(f"  {len(layers)} layers, {timed} timed ({r['isa']}, {r['seconds']:.2f} s), {len(kept)} left float32")
if must_float and not any(l["op_type"].startswith(must_float) for l in layers):
    problems.append(f"no {must_float} layer measured")
open(kept_out, "w").write(",".join(kept))
for p in problems:
    print("  " + p)
sys.exit(1 if problems else 0)
EOF
}

make_calibration "$fixtures/act.onnx" cal_act 10
make_calibration "$fixtures/mlp.onnx" cal_mlp 10

# act without the measurement: every layer quantized.
if "$edgec" quantize "$fixtures/act.onnx" --calibration cal_act -o act.all.onnx --no-measure \
    --report act.all.json >act.all.txt 2>&1; then
  cat act.all.txt
  grep -q "layers not timed: turned off (--no-measure)" act.all.txt || fail "--no-measure: not said in the report"
  check_qdq "$fixtures/act.onnx" act.all.onnx cal_act act.all.json || fail "act --no-measure: the quantized model"
else
  fail "edgec quantize act.onnx --no-measure: $(cat act.all.txt)"
fi

# act on the machine's best ISA: the layers not faster in int8 stay float32.
if env -u EDGEC_ISA "$edgec" quantize "$fixtures/act.onnx" --calibration cal_act -o act.qdq.onnx \
    --report act.json >act.txt 2>&1; then
  grep -v "(timed as " act.txt
  if check_measure act.json act.qdq.onnx act.all.onnx act.txt act.kept; then
    kept=$(cat act.kept)
    check_qdq "$fixtures/act.onnx" act.qdq.onnx cal_act act.json "$kept" || fail "act: the quantized model"
    # The same model as --no-measure with the float32 layers kept by name.
    "$edgec" quantize "$fixtures/act.onnx" --calibration cal_act -o act.same.onnx --no-measure \
      ${kept:+--keep-float "$kept"} >same.txt 2>&1 || fail "edgec quantize --no-measure --keep-float: $(cat same.txt)"
    cmp -s act.qdq.onnx act.same.onnx ||
      fail "act: the measured model differs from --no-measure --keep-float with the layers it left float32"
  else
    fail "act: the measurement (best ISA)"
  fi
else
  fail "edgec quantize act.onnx: $(cat act.txt)"
fi

# act with oneDNN held to AVX2, where its int8 convolution is the exact,
# slow reference implementation: every Conv stays float32.
if EDGEC_ISA=avx2 "$edgec" quantize "$fixtures/act.onnx" --calibration cal_act -o act.avx2.onnx --holdout 0 \
    --report act.avx2.json >avx2.txt 2>&1; then
  grep -q "int8 vs float32 per layer on this CPU (avx2, " avx2.txt || fail "EDGEC_ISA=avx2: the report names no ISA"
  check_measure act.avx2.json act.avx2.onnx act.all.onnx avx2.txt avx2.kept Conv ||
    fail "act: the measurement with EDGEC_ISA=avx2"
else
  fail "EDGEC_ISA=avx2 edgec quantize act.onnx: $(cat avx2.txt)"
fi

if "$edgec" quantize "$fixtures/mlp.onnx" --calibration cal_mlp -o mlp.qdq.onnx --method percentile=99.9 \
    --no-measure --report mlp.json >mlp.txt 2>&1; then
  cat mlp.txt
  grep -q "percentile=99.9 calibration" mlp.txt || fail "mlp: the report does not name the percentile method"
  check_qdq "$fixtures/mlp.onnx" mlp.qdq.onnx cal_mlp mlp.json || fail "mlp: the quantized model"
else
  fail "edgec quantize mlp.onnx --method percentile=99.9: $(cat mlp.txt)"
fi

# --keep-float: the first Conv of act stays float32.
conv=$($py -c "import onnx,sys; print(next(n.name for n in onnx.load(sys.argv[1]).graph.node if n.op_type == 'Conv'))" \
  "$fixtures/act.onnx")
if "$edgec" quantize "$fixtures/act.onnx" --calibration cal_act -o kept.onnx --keep-float "$conv" --no-measure \
    --report kept.json >kept.txt 2>&1; then
  grep -q "kept float32 (--keep-float): $conv" kept.txt || fail "--keep-float: the report does not name $conv"
  check_qdq "$fixtures/act.onnx" kept.onnx cal_act kept.json "$conv" || fail "--keep-float $conv"
else
  fail "edgec quantize --keep-float $conv: $(cat kept.txt)"
fi

# edgec compile --quantize int8: quantized in memory, compiled, run on the
# held-back files; its outputs against ONNX Runtime 1.30's of the float model.
if "$edgec" compile "$fixtures/act.onnx" --quantize int8 --calibration cal_act -o act.int8.edgec >c.txt 2>&1 &&
    "$edgec" compile "$fixtures/act.onnx" -o act.f32.edgec >>c.txt 2>&1; then
  for k in 08 09; do
    "$edgec" run act.int8.edgec --inputs cal_act/sample$k.npz --outputs int8_$k.npz >>c.txt 2>&1 ||
      fail "edgec run of the --quantize int8 program: $(cat c.txt)"
  done
  echo "program files: int8 $(stat -c %s act.int8.edgec) bytes, float32 $(stat -c %s act.f32.edgec) bytes"
  $py - "$fixtures/act.onnx" "$node_modules" "$root/models" <<'EOF' || fail "compile --quantize int8: outputs"
import sys
import numpy as np
model, node_modules, models = sys.argv[1:]
sys.path.insert(0, models)
from check_ort import run_ort
uv = uu = vv = 0.0
for k in ("08", "09"):
    want = run_ort(model, dict(np.load(f"cal_act/sample{k}.npz")), node_modules)["action"].astype(np.float64).ravel()
    got = np.load(f"int8_{k}.npz")["action"].astype(np.float64).ravel()
    uv += want @ got; uu += want @ want; vv += got @ got
cos = uv / np.sqrt(uu * vv)
print(f"compile --quantize int8: action: cosine {cos:.6f} against ONNX Runtime 1.30's float32 outputs")
sys.exit(0 if cos >= 0.99 else 1)
EOF
else
  fail "edgec compile --quantize int8: $(cat c.txt)"
fi
expect_error 2 60 "--quantize: expected int8, got 'int4'" \
  compile "$fixtures/act.onnx" --quantize int4 --calibration cal_act -o x.edgec || true
expect_error 2 60 "--quantize int8 needs --calibration DIR" compile "$fixtures/act.onnx" --quantize int8 -o x.edgec || true
expect_error 2 60 "--calibration, --method, --keep-float and --no-measure apply with --quantize int8" \
  compile "$fixtures/act.onnx" --calibration cal_act -o x.edgec || true
expect_error 2 60 "--calibration, --method, --keep-float and --no-measure apply with --quantize int8" \
  compile "$fixtures/act.onnx" --no-measure -o x.edgec || true

# Usage errors.
expect_error 2 60 "--calibration 'nowhere' is not a folder" \
  quantize "$fixtures/act.onnx" --calibration nowhere -o x.onnx || true
mkdir -p empty && expect_error 2 60 "holds no .npz file" \
  quantize "$fixtures/act.onnx" --calibration empty -o x.onnx || true
mkdir -p partial
$py -c "import numpy as np; np.savez('partial/a.npz', **{'observation.image': np.zeros((1, 3, 96, 96), np.float32)})"
cp partial/a.npz partial/b.npz
expect_error 1 60 "partial/a.npz: missing input 'observation.state'" \
  quantize "$fixtures/act.onnx" --calibration partial -o x.onnx || true
expect_error 2 60 "--keep-float: $fixtures/act.onnx has no node named 'no_such_node'" \
  quantize "$fixtures/act.onnx" --calibration cal_act -o x.onnx --keep-float no_such_node || true
expect_error 2 60 "--method: expected minmax, percentile or percentile=P" \
  quantize "$fixtures/act.onnx" --calibration cal_act -o x.onnx --method entropy || true
expect_error 2 60 "--method: expected percentile=P with P above 0 and at most 100" \
  quantize "$fixtures/act.onnx" --calibration cal_act -o x.onnx --method percentile=101 || true
expect_error 2 60 "leaving none to calibrate with" \
  quantize "$fixtures/act.onnx" --calibration cal_act -o x.onnx --holdout 10 || true
[ ! -e x.onnx ] && [ ! -e x.edgec ] || fail "a refused command left x.onnx or x.edgec behind"
report_failures

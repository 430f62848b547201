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

# check_qdq FLOAT.onnx QDQ.onnx CALDIR REPORT.json [KEPT_NODE]: the checks
# above on one quantized model.
check_qdq() {
  $py - "$@" "$node_modules" "$root/models" <<'EOF'
import glob, json, os, sys
import numpy as np, onnx
from onnx import numpy_helper
fmodel, qmodel, cal, report = sys.argv[1:5]
kept = sys.argv[5] if len(sys.argv) == 8 else None
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
seen_kept = False
for n in q.graph.node:
    if n.op_type not in quantized_ops:
        continue
    if kept and n.name == kept:
        seen_kept = True
        if dq_of(n.input[1]) or n.input[1] not in qi or qi[n.input[1]].dtype != np.float32:
            problems.append(f"{n.name}: kept float by --keep-float, but its weight is not a float32 initializer")
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
if kept and not seen_kept:
    problems.append(f"the node kept float, {kept}, is not in the quantized model")

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

make_calibration "$fixtures/act.onnx" cal_act 10
make_calibration "$fixtures/mlp.onnx" cal_mlp 10

if "$edgec" quantize "$fixtures/act.onnx" --calibration cal_act -o act.qdq.onnx --report act.json >act.txt 2>&1; then
  cat act.txt
  check_qdq "$fixtures/act.onnx" act.qdq.onnx cal_act act.json || fail "act: the quantized model"
else
  fail "edgec quantize act.onnx: $(cat act.txt)"
fi
if "$edgec" quantize "$fixtures/mlp.onnx" --calibration cal_mlp -o mlp.qdq.onnx --method percentile=99.9 \
    --report mlp.json >mlp.txt 2>&1; then
  cat mlp.txt
  grep -q "percentile=99.9 calibration" mlp.txt || fail "mlp: the report does not name the percentile method"
  check_qdq "$fixtures/mlp.onnx" mlp.qdq.onnx cal_mlp mlp.json || fail "mlp: the quantized model"
else
  fail "edgec quantize mlp.onnx --method percentile=99.9: $(cat mlp.txt)"
fi

# --keep-float: the first Conv of act stays float32.
conv=$($py -c "import onnx,sys; print(next(n.name for n in onnx.load(sys.argv[1]).graph.node if n.op_type == 'Conv'))" \
  "$fixtures/act.onnx")
if "$edgec" quantize "$fixtures/act.onnx" --calibration cal_act -o kept.onnx --keep-float "$conv" \
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
expect_error 2 60 "--calibration, --method and --keep-float apply with --quantize int8" \
  compile "$fixtures/act.onnx" --calibration cal_act -o x.edgec || true

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

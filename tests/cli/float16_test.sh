#!/usr/bin/env bash
# A float16 model as the float16 converters write one (issue 31): the
# U-Net-like net of models/float16/make.py, exported by PyTorch in float32
# and converted (f16 weights and activations, Casts at the f32 input and
# outputs, Resize kept in f32 between Casts), made at test time into a
# scratch folder, once with the Casts in order and once with the input Cast
# appended at the end of the node list as the converter writes it. Checks:
#   - ONNX Runtime 1.30 runs the f16 file;
#   - edgec compiles and runs it with the default backends, and its outputs
#     match ONNX Runtime's within 1e-3 + 1e-3 |ORT| and PyTorch's float32
#     ones within f16's precision (1e-3 + 1e-3 |PyTorch|);
#   - the f16 program file is at most 0.55 of the f32 model's (its weights
#     stay f16);
#   - edgec inspect shows every convolution, the casts and the resizes in
#     the onednn delegate, nothing on the portable kernels (registered in
#     builds with oneDNN only);
#   - the converter's node order gives the same outputs exactly.
#   float16_test.sh EDGEC NODE_MODULES
set -euo pipefail
edgec=$1 node_modules=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$t"

$py "$root/models/float16/make.py" "$t/m" --width 16 >/dev/null 2>make.txt || { cat make.txt; exit 1; }
$py "$root/models/float16/make.py" "$t/c" --width 16 --converter-order >/dev/null 2>make.txt || { cat make.txt; exit 1; }
cmp -s "$t/m/segnet.inputs.npz" "$t/c/segnet.inputs.npz" || fail "make.py gave other inputs for the converter's order"

# ONNX Runtime 1.30's outputs for the f16 file.
$py - "$t/m" "$node_modules" "$root/models" <<'EOF' || fail "ONNX Runtime 1.30 on the f16 file"
import json, os, sys
import numpy as np
folder, node_modules, models = sys.argv[1:]
sys.path.insert(0, models)
from check_ort import run_ort
with open(os.path.join(node_modules, "onnxruntime-node", "package.json")) as f:
    version = json.load(f)["version"]
if version != "1.30.0":
    sys.exit(f"onnxruntime-node {version} in {node_modules}; this test compares with 1.30.0")
got = run_ort(os.path.join(folder, "segnet.f16.onnx"), dict(np.load(os.path.join(folder, "segnet.inputs.npz"))),
              node_modules)
np.savez(os.path.join(folder, "ort.npz"), **got)
print("ONNX Runtime", version, "ran segnet.f16.onnx:", ", ".join(f"{k} {list(v.shape)}" for k, v in got.items()))
EOF

for order in m c; do
  "$edgec" compile "$t/$order/segnet.f16.onnx" -o "$t/$order/f16.edgec" >compile.txt 2>&1 ||
    { fail "edgec compile of the f16 file ($order): $(cat compile.txt)"; continue; }
  "$edgec" run "$t/$order/f16.edgec" --inputs "$t/$order/segnet.inputs.npz" --outputs "$t/$order/out.npz" >run.txt 2>&1 ||
    fail "edgec run of the f16 file ($order): $(cat run.txt)"
done
"$edgec" compile "$t/m/segnet.onnx" -o "$t/m/f32.edgec" >compile.txt 2>&1 || fail "edgec compile of the f32 file: $(cat compile.txt)"

if [ -f "$t/m/out.npz" ]; then
  [ -f "$t/m/ort.npz" ] && { $py "$compare_npz" "$t/m/out.npz" "$t/m/ort.npz" --atol 1e-3 --rtol 1e-3 --label "f16 vs ONNX Runtime 1.30" ||
    fail "edgec's f16 outputs differ from ONNX Runtime 1.30's"; }
  $py "$compare_npz" "$t/m/out.npz" "$t/m/segnet.outputs.npz" --atol 1e-3 --rtol 1e-3 --label "f16 vs PyTorch f32" ||
    fail "edgec's f16 outputs differ from PyTorch's f32 ones by more than f16's precision"
  [ -f "$t/c/out.npz" ] && { $py "$compare_npz" "$t/c/out.npz" "$t/m/out.npz" --label "converter's node order" ||
    fail "the converter's node order gives other outputs"; }
fi

if [ -f "$t/m/f16.edgec" ] && [ -f "$t/m/f32.edgec" ]; then
  f16=$(stat -c %s "$t/m/f16.edgec") f32=$(stat -c %s "$t/m/f32.edgec")
  echo "program file: f16 $f16 bytes, f32 $f32 bytes"
  [ $((f16 * 100)) -le $((f32 * 55)) ] || fail "the f16 program ($f16 bytes) is more than 0.55 of the f32 one ($f32 bytes)"
  "$edgec" inspect --json "$t/m/f16.edgec" >inspect.json
  $py - <<'EOF' || fail "edgec inspect: the f16 model is not in the onednn delegate"
import json
info = json.load(open("inspect.json"))
ops = {}
for d in info["delegates"]:
    if d["backend"] == "onednn":
        for op in d["operators"]:
            ops[op] = ops.get(op, 0) + 1
print("onednn delegate:", ", ".join(f"{k} x{v}" for k, v in sorted(ops.items())))
print("portable kernels:", ", ".join(f"{k} {v}" for k, v in sorted(info["operators"].items())) or "nothing")
assert ops.get("conv") == 9, f"expected the 9 convolutions in the onednn delegate, found {ops.get('conv')}"
assert ops.get("cast") and ops.get("upsample_bilinear") == 2, ops
assert not info["operators"], f"left on the portable kernels: {info['operators']}"
EOF
fi
report_failures

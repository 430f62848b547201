#!/usr/bin/env bash
# ONNX Runtime's com.microsoft quantized operators (issue 32): the small
# models of models/quantized/ms_ops.py, made at test time with ONNX Runtime
# 1.30's outputs, compiled and run by edgec and compared: integer outputs
# exactly, f32 outputs within 1e-5 relative (1e-5 * |ORT| + 1e-6). Every
# 8-bit pair for QLinearAdd / QLinearMul, every input value for the lookup
# tables, pooling windows of every kind.
#   microsoft_quantized_test.sh EDGEC NODE_MODULES
set -euo pipefail
edgec=$1 node_modules=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$t"

$py "$root/models/quantized/ms_ops.py" "$t/m" --node-modules "$node_modules" || { echo "FAIL: ms_ops.py"; exit 1; }

compared=0
values=0
while read -r name float_output; do
  if ! "$edgec" compile "$t/m/$name.onnx" -o "$t/$name.edgec" >compile.txt 2>&1; then
    fail "edgec compile $name: $(cat compile.txt)"
    continue
  fi
  if ! "$edgec" run "$t/$name.edgec" --inputs "$t/m/$name.inputs.npz" --outputs "$t/$name.out.npz" >run.txt 2>&1; then
    fail "edgec run $name: $(cat run.txt)"
    continue
  fi
  tol=()
  [ "$float_output" = 1 ] && tol=(--atol 1e-6 --rtol 1e-5)
  if ! $py "$compare_npz" "$t/$name.out.npz" "$t/m/$name.ort.npz" "${tol[@]}" --label "$name vs ONNX Runtime 1.30" >cmp.txt 2>&1; then
    fail "$name differs from ONNX Runtime 1.30: $(cat cmp.txt)"
    continue
  fi
  compared=$((compared + 1))
  values=$((values + $($py -c "import numpy as np, sys; print(sum(a.size for a in np.load(sys.argv[1]).values()))" "$t/m/$name.ort.npz")))
done < <($py -c "
import json, sys
for c in json.load(open(sys.argv[1])):
    print(c['name'], int(c['float_output']))" "$t/m/manifest.json")

echo "$compared models match ONNX Runtime 1.30 ($values output values)"
[ "$compared" -gt 0 ] || fail "no model was compared"
report_failures

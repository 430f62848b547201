#!/usr/bin/env bash
# One model of the torchvision zoo (models/zoo, issue 16): exported by torch
# 1.13 at opsets 17, 11 and 12 and rewritten to 18, 20 and 21
# (models/zoo/zoo.py, rewrite.py) into a scratch folder, the rewritten files
# checked in ONNX Runtime 1.30 (models/zoo/ort_check.py), then at every opset
# compiled with the default backends, run, and compared with PyTorch's output
# within 1e-4 + 1e-4 * the output's largest magnitude; inspect must show no
# convolution or matmul left on the portable kernels. The files (hundreds of
# MB for the large models) are removed at the end.
#   zoo_test.sh EDGEC NAME NODE_MODULES
set -euo pipefail
edgec=$1 name=$2 node_modules=$3
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
zoo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../models/zoo" && pwd)

$py "$zoo/zoo.py" "$t" "$name"
$py "$zoo/ort_check.py" "$t" "$name" --node-modules "$node_modules" || fail "ONNX Runtime 1.30 on the rewritten files"

for opset in 17 11 12 18 20 21; do
  model="$t/$name.opset$opset.onnx"
  label="$name opset $opset"
  if ! "$edgec" compile "$model" -o "$t/$name.edgec" >"$t/compile.txt" 2>&1; then
    fail "$label: edgec compile: $(cat "$t/compile.txt")"
    continue
  fi
  if ! "$edgec" run "$t/$name.edgec" --inputs "$t/$name.inputs.npz" --outputs "$t/out.npz" >"$t/run.txt" 2>&1; then
    fail "$label: edgec run: $(cat "$t/run.txt")"
    continue
  fi
  $py "$compare_npz" "$t/out.npz" "$t/$name.outputs.npz" --atol 1e-4 --rtol 1e-4 --form scale --label "$label" ||
    fail "$label: differs from PyTorch"
  "$edgec" inspect --json "$t/$name.edgec" | $py -c "
import json, sys
info = json.load(sys.stdin)
left = {k: v for k, v in info['operators'].items() if k in ('conv', 'conv_transpose', 'matmul')}
delegated = sum(1 for d in info['delegates'] for op in d['operators'] if op in ('conv', 'conv_transpose', 'matmul'))
assert delegated, 'no convolution or matmul in any delegate'
assert not left, f'left on the portable kernels: {left}'
print(f'[$label] {delegated} convolutions and matmuls, all in the delegates; on the portable kernels:',
      ', '.join(f'{k} {v}' for k, v in sorted(info['operators'].items())) or 'nothing')" ||
    fail "$label: inspect"
  rm -f "$t/$name.edgec" "$model"
done
report_failures

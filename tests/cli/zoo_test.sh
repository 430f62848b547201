#!/usr/bin/env bash
# One model of the torchvision zoo (models/zoo, issue 16): exported by torch
# 1.13 at opsets 17, 11 and 12 and rewritten to 18, 20 and 21
# (models/zoo/zoo.py, rewrite.py) into a scratch folder, the rewritten files
# checked in ONNX Runtime 1.30 (models/zoo/ort_check.py), then at every opset
# compiled with the default backends, run, and compared with PyTorch's output
# within 1e-4 + 1e-4 * the output's largest magnitude. inspect must show
# the target's first delegate (EDGEC_DEFAULT_BACKEND: onednn on x86-64,
# xnnpack where oneDNN is not built) took convolutions or matmuls: with
# onednn every one of them; with another delegate, each one left on the
# portable kernels has that delegate's reason. In a build with no
# delegate for the target, the test says so and checks the outputs only.
# The files (hundreds of MB for the large models) are removed at the end.
# EDGEC_ZOO_OPSETS narrows the opsets compiled (the sanitized suite takes
# the oldest and the newest); the default is all six.
#   zoo_test.sh EDGEC NAME NODE_MODULES
set -euo pipefail
edgec=$1 name=$2 node_modules=$3
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
zoo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../models/zoo" && pwd)

$py "$zoo/zoo.py" "$t" "$name"
$py "$zoo/ort_check.py" "$t" "$name" --node-modules "$node_modules" || fail "ONNX Runtime 1.30 on the rewritten files"

opsets=${EDGEC_ZOO_OPSETS:-17 11 12 18 20 21}
for opset in $opsets; do
  case " 17 11 12 18 20 21 " in *" $opset "*) ;; *) fail "EDGEC_ZOO_OPSETS: no file at opset $opset (17 11 12 18 20 21)"; continue ;; esac
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
first = '${EDGEC_DEFAULT_BACKEND:-}'
info = json.load(sys.stdin)
heavy = ('conv', 'conv_transpose', 'matmul')
left = {k: v for k, v in info['operators'].items() if k in heavy}
delegated = sum(1 for d in info['delegates'] for op in d['operators'] if op in heavy)
portable = ', '.join(f'{k} {v}' for k, v in sorted(info['operators'].items())) or 'nothing'
if not first:
    assert not info['delegates'], info['delegates']
    print(f'[$label] no delegate is built for this target: everything on the portable kernels')
    sys.exit(0)
assert delegated, f'no convolution or matmul in the {first} delegate'
if first == 'onednn':
    assert not left, f'left on the portable kernels: {left}'
    print(f'[$label] {delegated} convolutions and matmuls, all in the delegates; on the portable kernels:', portable)
    sys.exit(0)
why = {}
for e in info['instruction_details']:
    if e['op'] in heavy:
        reasons = [r['reason'] for r in e['refusals'] if r['backend'] == first]
        assert reasons, f'instruction {e[\"index\"]} ({e[\"op\"]}) left on the portable kernels without a reason from {first}'
        why.setdefault(reasons[0], 0)
        why[reasons[0]] += 1
print(f'[$label] {delegated} convolutions and matmuls in {first}; on the portable kernels:', portable)
for r, n in sorted(why.items(), key=lambda x: -x[1]):
    print(f'  {n} left: {r}')" ||
    fail "$label: inspect"
  rm -f "$t/$name.edgec" "$model"
done
report_failures

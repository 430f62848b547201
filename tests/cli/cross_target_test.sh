#!/usr/bin/env bash
# --target on x86-64 (issue 30; the aarch64 suite checks the other
# direction under qemu): a program compiled for aarch64 records its
# target, takes no onednn delegate (onednn refuses the target with its
# reason), loads and runs here, matching PyTorch, and inspect says it was
# compiled for another machine. A target edgec does not know is a usage
# error (exit 2) naming the flag.
# Usage: cross_target_test.sh EDGEC FIXTURES
set -euo pipefail
edgec=$1 fixtures=$2
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

"$edgec" compile "$fixtures/act.onnx" -o "$t/arm.edgec" --target aarch64
"$edgec" inspect --json "$t/arm.edgec" | $py -c "
import json, sys
j = json.load(sys.stdin)
assert j['target'] == 'aarch64', j['target']
assert 'loaded on x86-64' in j['target_note'], j.get('target_note')
assert not [d for d in j['delegates'] if d['backend'] == 'onednn'], j['delegates']
print('[x86-64] aarch64 file: delegates', [d['backend'] for d in j['delegates']])"
"$edgec" inspect "$t/arm.edgec" >"$t/inspect.txt"
grep -q "^target: aarch64 (compiled for aarch64, loaded on x86-64" "$t/inspect.txt" ||
  { head -3 "$t/inspect.txt"; echo "inspect does not say the target"; exit 1; }
"$edgec" run "$t/arm.edgec" --inputs "$fixtures/act.inputs.npz" --outputs "$t/out.npz"
$py "$compare_npz" "$t/out.npz" "$fixtures/act.outputs.npz" --atol 1e-4 --rtol 1e-4 --form either --label "act for aarch64"

"$edgec" compile "$fixtures/act.onnx" -o "$t/x86.edgec"
"$edgec" inspect --json "$t/x86.edgec" | $py -c "
import json, sys
j = json.load(sys.stdin)
assert j['target'] == 'x86-64' and 'target_note' not in j, j
print('[x86-64] the default target is x86-64')"

expect_error 2 60 "--target 'riscv64' is not a target" compile "$fixtures/act.onnx" -o "$t/bad.edgec" --target riscv64 ||
  true
if [[ ",${EDGEC_BACKENDS:-}," == *,onednn,* ]]; then
  expect_error 1 60 "backend 'onednn' cannot compile for aarch64" compile "$fixtures/act.onnx" -o "$t/bad.edgec" \
    --target aarch64 --backends onednn || true
fi
[ ! -e "$t/bad.edgec" ] || fail "a refused compile left an output file"
report_failures
echo PASS

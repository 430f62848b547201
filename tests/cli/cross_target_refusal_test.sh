#!/usr/bin/env bash
# A program for one target loaded on the other (issue 30): compiled on
# x86-64 for x86-64 with the onednn delegate, the aarch64 runtime (no
# oneDNN) refuses it with one error naming both targets and --target; the
# same model compiled for aarch64 loads there. The other direction, an
# aarch64 file on x86-64, runs in the x86 suite (cli.cross_target).
# Usage: cross_target_refusal_test.sh HOST_EDGEC EMULATED_EDGEC FIXTURES
set -euo pipefail
host=$1 edgec=$2 fixtures=$3
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

"$host" compile "$fixtures/mlp.onnx" -o "$t/x86.edgec" --target x86-64 --backends onednn
if "$edgec" run "$t/x86.edgec" --inputs "$fixtures/mlp.inputs.npz" --outputs "$t/out.npz" 2>"$t/err.txt"; then
  echo "the aarch64 runtime ran a program with an onednn delegate"; exit 1
fi
cat "$t/err.txt"
[ ! -e "$t/out.npz" ] || { echo "output written"; exit 1; }
[ "$(wc -l <"$t/err.txt")" = 1 ] || { echo "expected one error line"; exit 1; }
for want in "compiled for x86-64" "aarch64 runtime" "--target aarch64" "onednn"; do
  grep -qF -- "$want" "$t/err.txt" || { echo "the error does not say '$want'"; exit 1; }
done
"$host" compile "$fixtures/mlp.onnx" -o "$t/arm.edgec" --target aarch64
"$edgec" run "$t/arm.edgec" --inputs "$fixtures/mlp.inputs.npz" --outputs "$t/out.npz"
$py "$compare_npz" "$t/out.npz" "$fixtures/mlp.outputs.npz" --atol 1e-4 --rtol 1e-4 --form either --label "mlp for aarch64"

#!/usr/bin/env bash
# The stored cases of models/onnx_quantized/ (frontends.OnnxQuantized.*
# compares edgec with them exactly) are ONNX Runtime 1.30's: gen.py writes
# them afresh into a scratch folder with onnxruntime-node 1.30.0 and every
# model, input and output must equal the stored bytes, and no stored case
# may be missing from what gen.py writes.
#   onnx_quantized_ort_test.sh NODE_MODULES
set -euo pipefail
node_modules=$1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$t"
version=$(sed -n 's/.*"version": "\([^"]*\)".*/\1/p' "$node_modules/onnxruntime-node/package.json" | head -1)
[ "$version" = "1.30.0" ] || { fail "onnxruntime-node $version in $node_modules; the cases are ONNX Runtime 1.30.0's"; report_failures; }
$py "$root/models/onnx_quantized/gen.py" "$(dirname "$node_modules")" "$t/cases" >gen.txt 2>&1 ||
  { fail "gen.py: $(cat gen.txt)"; report_failures; }
stored=0
for dir in "$root"/models/onnx_quantized/*/; do
  name=$(basename "$dir")
  stored=$((stored + 1))
  [ -d "$t/cases/$name" ] || { fail "$name is stored but gen.py no longer writes it"; continue; }
  for path in "$dir"model.onnx "$dir"test_data_set_0/*.pb; do
    f=${path#"$dir"}
    cmp -s "$path" "$t/cases/$name/$f" || fail "$name/$f differs from what ONNX Runtime 1.30 gives now"
  done
done
written=$(find "$t/cases" -mindepth 1 -maxdepth 1 -type d | wc -l)
[ "$written" -eq "$stored" ] || fail "gen.py writes $written cases, $stored are stored (run it to store them)"
report_failures
echo "$stored cases equal ONNX Runtime $version's outputs"

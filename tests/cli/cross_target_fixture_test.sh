#!/usr/bin/env bash
# Program files travel (issue 30): one fixture compiled by the build
# machine's edgec (x86-64) with --target aarch64 is run by the aarch64
# edgec under qemu and must match PyTorch's outputs on every input set; the
# aarch64 edgec, under qemu, compiles the same model (its default target)
# into a byte-identical file. A fixture the manifest calls invalid must be
# refused by both, with the same error line.
# Usage: cross_target_fixture_test.sh HOST_EDGEC EMULATED_EDGEC FIXTURES NAME
set -euo pipefail
host=$1 edgec=$2 fixtures=$3 name=$4
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/fixture_lib.sh"

if [ "$valid" = no ]; then
  for cli in "$host" "$edgec"; do
    if "$cli" compile "$fixtures/$name.onnx" -o "$t/out.edgec" --target aarch64 2>"$t/err.txt"; then
      echo "expected $name to be refused by $cli"; exit 1
    fi
    [ ! -e "$t/out.edgec" ] || { echo "partial output left"; exit 1; }
    cat "$t/err.txt" >>"$t/errs.txt"
  done
  [ "$(sort -u "$t/errs.txt" | wc -l)" = 1 ] || { echo "the two edgecs refuse differently:"; cat "$t/errs.txt"; exit 1; }
  cat "$t/err.txt"
  exit 0
fi

"$host" compile "$fixtures/$name.onnx" -o "$t/x86.edgec" $dim_flags --target aarch64
"$edgec" compile "$fixtures/$name.onnx" -o "$t/arm.edgec" $dim_flags
cmp "$t/x86.edgec" "$t/arm.edgec" || { echo "compiled on x86-64 and on aarch64, the files differ"; exit 1; }
"$edgec" inspect --json "$t/x86.edgec" | $py -c "
import json, sys
j = json.load(sys.stdin)
assert j['target'] == 'aarch64' and 'target_note' not in j, j.get('target')
print('[aarch64] delegates:', ', '.join(d['backend'] for d in j['delegates']) or 'none',
      '| portable operators:', ', '.join(sorted(j['operators'])) or 'none')"
run_sets "$edgec" "$t/x86.edgec" "compiled on x86-64 for aarch64, run on aarch64"

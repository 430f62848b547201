#!/usr/bin/env bash
# End to end through the CLI on models/demo.ir: `eval` (interpreter) and
# `compile` + `run` (program file + runtime) both match numpy's result of the
# same formula; `inspect` shows the signature; bad inputs are clean errors
# that leave no output file; compiling twice gives identical bytes.
set -euo pipefail
edgec=$1 src=$2
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$t"

$py - <<'PY'
import numpy as np
x = np.array([[1, 2, 3, 4], [0.5, -1, 2, 0], [3, 3, -3, 1]], np.float32)
np.savez("in.npz", **{"observation.state": x})
inv = np.array([2, 1, .5, 4], np.float32); negm = np.array([.5, 0, -.5, -1], np.float32)
c = x * inv + negm * inv
a = np.sin(c * np.array([1, .5, .25, 2], np.float32) + np.array([0, .1, .2, .3], np.float32))
np.savez("want.npz", action=a, features=np.concatenate([c, a], 1))
np.savez("bad_shape.npz", **{"observation.state": np.zeros((3, 5), np.float32)})
np.savez("bad_dtype.npz", **{"observation.state": np.zeros((3, 4), np.int64)})
np.savez("extra.npz", **{"observation.state": x, "other": x})
np.savez("missing.npz")
PY

compare() {  # within 1e-5 absolute (tests/support/compare_npz.py)
  $py "$src/tests/support/compare_npz.py" "$1" want.npz --atol 1e-5 --label "$1"
}

"$edgec" eval "$src/models/demo.ir" --inputs in.npz --outputs eval.npz
compare eval.npz
"$edgec" compile "$src/models/demo.ir" -o demo.edgec --dim batch=3
"$edgec" compile "$src/models/demo.ir" -o demo2.edgec --dim batch=3
cmp demo.edgec demo2.edgec
"$edgec" run demo.edgec --inputs in.npz --outputs run.npz
compare run.npz
"$edgec" inspect demo.edgec | grep -q "observation.state: f32\[3, 4\]"
"$edgec" inspect demo.edgec --json | $py -c "import json,sys; j=json.load(sys.stdin); assert j['memory_plan_bytes'] > 0 and j['operators']['sin'] == 1, j"

expect_error() {  # expect_error PATTERN CMD...: fails unless CMD fails with PATTERN and no out.npz
  local pattern=$1; shift
  rm -f out.npz
  if "$@" 2>err.txt; then echo "expected failure: $*"; exit 1; fi
  grep -q "^error: .*$pattern" err.txt || { echo "wrong error for $*:"; cat err.txt; exit 1; }
  [ ! -e out.npz ] || { echo "partial output left by: $*"; exit 1; }
  ls | grep -q '\.tmp\.' && { echo "temporary file left by: $*"; exit 1; }
  true
}
expect_error "input 'observation.state': expected f32\[3, 4\], got f32\[3, 5\]" "$edgec" run demo.edgec --inputs bad_shape.npz --outputs out.npz
expect_error "input 'observation.state': expected f32\[3, 4\], got i64\[3, 4\]" "$edgec" run demo.edgec --inputs bad_dtype.npz --outputs out.npz
expect_error "unexpected input 'other'" "$edgec" run demo.edgec --inputs extra.npz --outputs out.npz
expect_error "missing input .observation.state. (f32\[3, 4\])" "$edgec" run demo.edgec --inputs missing.npz --outputs out.npz
head -c 1000 demo.edgec > truncated.edgec
expect_error "invalid program file" "$edgec" run truncated.edgec --inputs in.npz --outputs out.npz
cp demo.edgec flipped.edgec
printf '\xff' | dd of=flipped.edgec bs=1 seek=70 conv=notrunc status=none
expect_error "invalid program file" "$edgec" run flipped.edgec --inputs in.npz --outputs out.npz
expect_error "unbounded symbolic dimension" "$edgec" compile "$src/models/demo.ir" -o out.npz
expect_error "no symbolic dimension 'nope'" "$edgec" compile "$src/models/demo.ir" -o out.npz --dim nope=2
echo "demo CLI: all checks passed"

#!/usr/bin/env bash
# `edgec compile --fix-inputs`: ONNX's own Reshape case feeds the target
# shape as a graph input; fixed at compile time it becomes a constant, the
# program's only input is the data, and the result is numpy's reshape.
# Without the option the compile fails naming the input; a value for a name
# that is not an input fails too, leaving no output file.
set -euo pipefail
edgec=$1
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
model=/usr/share/libonnx-testdata/data/node/test_reshape_reordered_all_dims/model.onnx
cd "$t"

$py - <<'PY'
import numpy as np
x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) * 0.5 - 3
np.savez("in.npz", data=x)
np.savez("fixed.npz", shape=np.array([4, 2, 3], np.int64))
np.savez("misspelled.npz", shap=np.array([4, 2, 3], np.int64))
np.savez("want.npz", reshaped=x.reshape(4, 2, 3))
PY

if "$edgec" compile "$model" -o none.edgec 2>err.txt; then echo "compiled without the shape" >&2; exit 1; fi
grep -q "input 1 'shape', must be known at import time" err.txt || { cat err.txt >&2; exit 1; }
grep -q "from graph input 'shape'; fix it at compile time (edgec compile --fix-inputs FILE.npz with an array named 'shape')" err.txt || { cat err.txt >&2; exit 1; }
if "$edgec" compile "$model" --fix-inputs misspelled.npz -o bad.edgec 2>err.txt; then exit 1; fi
grep -q "'shap', which is not a graph input" err.txt || { cat err.txt >&2; exit 1; }
test ! -e bad.edgec && test ! -e none.edgec

"$edgec" compile "$model" --fix-inputs fixed.npz -o m.edgec
"$edgec" inspect m.edgec --json > inspect.json
"$edgec" run m.edgec --inputs in.npz --outputs out.npz
$py "$compare_npz" out.npz want.npz  # exact
$py - <<'PY'
import json
info = json.load(open("inspect.json"))
names = [i["name"] for i in info["inputs"]]
assert names == ["data"], names
print("fix-inputs: ok")
PY

#!/usr/bin/env bash
# `edgec compile --shape` and `--max-shape`: a convolution whose input has
# two dims with neither a size nor a name (as some exporters write H and
# W). --shape sizes every dim; --max-shape bounds them, and the program then
# runs at two sizes. References are numpy's (a direct convolution).
set -euo pipefail
edgec=$1
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$t"

$py - <<'PY'
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)
w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
b = rng.standard_normal(4).astype(np.float32)
x_info = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, None, None])
for d in x_info.type.tensor_type.shape.dim[2:]:
    d.Clear()  # neither a value nor a name
graph = helper.make_graph(
    [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]), helper.make_node("Relu", ["c"], ["y"])],
    "g", [x_info], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    initializer=[numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.save(model, "m.onnx")

def conv_relu(x):
    n, c, h, wd = x.shape
    p = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    y = np.zeros((n, 4, h, wd), np.float64)
    for i in range(3):
        for j in range(3):
            y += np.einsum("nchw,oc->nohw", p[:, :, i:i + h, j:j + wd], w[:, :, i, j])
    return np.maximum(y + b[None, :, None, None], 0).astype(np.float32)

for name, (h, wd) in {"a": (8, 8), "b": (12, 16)}.items():
    x = rng.standard_normal((1, 3, h, wd)).astype(np.float32)
    np.savez(f"in_{name}.npz", x=x)
    np.savez(f"want_{name}.npz", y=conv_relu(x))
PY

# Unsized, unbounded: the error names the dims and the flags that size them.
if "$edgec" compile m.onnx -o none.edgec 2>err.txt; then fail "compiled with unbounded dims"; fi
grep -q "x_dim2" err.txt || fail "the error does not name x_dim2: $(cat err.txt)"
test ! -e none.edgec || fail "a failed compile left a file"

# --shape sizes the unnamed dims.
"$edgec" compile m.onnx --shape x=1x3x8x8 -o fixed.edgec
"$edgec" run fixed.edgec --inputs in_a.npz --outputs out_a.npz
$py "$compare_npz" out_a.npz want_a.npz --atol 1e-4 --rtol 1e-4 || fail "--shape: outputs differ"

# --max-shape bounds them; the program runs at two sizes.
"$edgec" compile m.onnx --max-shape x=1x3x16x16 -o bounded.edgec
for s in a b; do
  "$edgec" run bounded.edgec --inputs in_$s.npz --outputs out_$s.npz
  $py "$compare_npz" out_$s.npz want_$s.npz --atol 1e-4 --rtol 1e-4 || fail "--max-shape: outputs of set $s differ"
done
"$edgec" inspect bounded.edgec --json | $py -c '
import json, sys
shape = json.load(sys.stdin)["inputs"][0]["type"]
assert "x_dim2<=16" in str(shape) and "x_dim3<=16" in str(shape), shape' || fail "inspect does not show the bounds"

# What the model fixes cannot be changed; a wrong rank or name is refused.
expect_error 1 60 "gives dim 1 of graph input 'x' the size 4, but the model fixes it to 3" \
  compile m.onnx --shape x=1x4x8x8 -o bad.edgec
expect_error 1 60 "gives 3 dims; graph input 'x' has rank 4" compile m.onnx --shape x=1x3x8 -o bad.edgec
expect_error 1 60 "names 'y', which is not a graph input" compile m.onnx --shape y=1 -o bad.edgec
expect_error 2 60 "--shape: expected NAME=D0xD1x..." compile m.onnx --shape x=1x3xAx8 -o bad.edgec
test ! -e bad.edgec || fail "a refused compile left a file"
report_failures

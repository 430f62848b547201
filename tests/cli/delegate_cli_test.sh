#!/usr/bin/env bash
# A hand-written lowered program with a `reference` delegate through the CLI:
# `compile` writes it (the constant read by both programs stored once),
# `run` matches numpy, and `inspect` (text and --json) shows the partition
# and why the reference backend refused the calls left on the portable
# kernels.
set -euo pipefail
edgec=$1
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$t"

cat > lowered.ir <<'IR'
program dialect = "edge"

signature {
  input user_input %x target = "x"
  input constant %w target = "w"
  output user_output %y target = "y"
}

graph {
  %x = placeholder : f32[2, 3]
  %w = placeholder : f32[3]
  %d = call_delegate(%x, delegate = 0) : f32[2, 3]
  %s = edge.sin.default(%d) : f32[2, 3] {refused = ["reference: operator sin is not in the operator set (add, mul)"]}
  %y = edge.sub.Tensor(%s, %w) : f32[2, 3] {refused = ["reference: operator sub is not in the operator set (add, mul)"]}
  output(%y)
}

constants {
  "w" = dense<[0.5, -1.0, 2.0]> : f32[3]
}

delegate 0 backend = "reference" {
program dialect = "edge"

signature {
  input user_input %x target = "x"
  input constant %w target = "w"
  output user_output %m target = "m"
}

graph {
  %x = placeholder : f32[2, 3]
  %w = placeholder : f32[3]
  %a = edge.add.Tensor(%x, %w) : f32[2, 3]
  %m = edge.mul.Tensor(%a, %w) : f32[2, 3]
  output(%m)
}

constants {
  "w" = dense<[0.5, -1.0, 2.0]> : f32[3]
}
}
IR

$py - <<'PY'
import numpy as np
x = np.array([[1, 2, 3], [-0.5, 0.25, 4]], np.float32)
w = np.array([0.5, -1, 2], np.float32)
np.savez("in.npz", x=x)
np.savez("want.npz", y=np.sin((x + w) * w) - w)
PY

"$edgec" compile lowered.ir -o d.edgec --backends none
"$edgec" compile lowered.ir -o d2.edgec --backends none
cmp d.edgec d2.edgec
"$edgec" run d.edgec --inputs in.npz --outputs out.npz
$py "$compare_npz" out.npz want.npz --atol 1e-6
$py - <<'PY'
import numpy as np
# The constant is read by both programs and stored once (docs/semantics.md §6).
data = open("d.edgec", "rb").read()
w = np.array([0.5, -1, 2], np.float32).tobytes()
assert data.count(w) == 1, data.count(w)
print("run matches numpy")
PY

"$edgec" inspect d.edgec > inspect.txt
cat inspect.txt
grep -qF "delegate 0: backend reference, operators add, mul, constants w (12 bytes)" inspect.txt
grep -qF "instruction 1 (sin): reference: operator sin is not in the operator set (add, mul)" inspect.txt
grep -qF "instruction 2 (sub): reference: operator sub is not in the operator set (add, mul)" inspect.txt
"$edgec" inspect d.edgec --json > inspect.json
$py - <<'PY'
import json
j = json.load(open("inspect.json"))
d = j["delegates"]
assert len(d) == 1, d
assert d[0]["index"] == 0 and d[0]["backend"] == "reference", d
assert d[0]["operators"] == ["add", "mul"], d
assert d[0]["constants"] == [{"name": "w", "bytes": 12}], d
assert d[0]["payload_bytes"] > 0, d
ins = j["instruction_details"]
assert [i["backend"] for i in ins] == ["reference", "portable", "portable"], ins
assert ins[0]["refusals"] == [] and ins[0]["delegate"] == 0, ins
assert ins[1]["refusals"] == [{"backend": "reference", "reason": "operator sin is not in the operator set (add, mul)"}], ins
assert ins[2]["refusals"] == [{"backend": "reference", "reason": "operator sub is not in the operator set (add, mul)"}], ins
# The existing keys still describe the owning program.
assert j["operators"] == {"sin": 1, "sub": 1}, j["operators"]
assert j["instructions"] == 3 and [c["name"] for c in j["constants"]] == ["w"], j
print("inspect ok")
PY

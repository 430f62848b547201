#!/usr/bin/env bash
# `edgec compile` on hostile models (the importer's unit tests cover each
# case; this checks what a user sees): external data leading outside the
# model's folder, a file past protobuf's 2 GiB, a graph with a cycle. Each
# exits non-zero with one "error: " message naming the problem, writes no
# output file and leaves an existing one untouched. A model whose external
# data is inside its folder compiles and runs; EDGEC_MEMORY_LIMIT that is
# not a size draws a warning.
set -euo pipefail
edgec=$1
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
mkdir -p "$t/model" "$t/outside"

$py - "$t" <<'EOF'
import sys
import numpy as np
from onnx import TensorProto, helper
t = sys.argv[1]
w = np.arange(6, dtype=np.float32).reshape(2, 3)
open(f"{t}/model/weights.bin", "wb").write(b"\xff" * 64 + w.tobytes())
open(f"{t}/outside/weights.bin", "wb").write(w.tobytes())

def save(nodes, path, initializers=()):
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])], list(initializers))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    # Written as bytes: onnx.save would try to manage the external data itself.
    open(path, "wb").write(m.SerializeToString())

def external(location, offset):
    init = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2, 3], data_location=TensorProto.EXTERNAL)
    for key, value in (("location", location), ("offset", str(offset)), ("length", "24")):
        init.external_data.add(key=key, value=value)
    return init

add = [helper.make_node("Add", ["x", "w"], ["y"])]
save(add, f"{t}/model/good.onnx", [external("weights.bin", 64)])
save(add, f"{t}/model/outside.onnx", [external("../outside/weights.bin", 0)])
save([helper.make_node("Add", ["x", "b"], ["a"], name="A"), helper.make_node("Relu", ["a"], ["b"], name="B"),
      helper.make_node("Identity", ["b"], ["y"])], f"{t}/model/cycle.onnx")
np.savez(f"{t}/x.npz", x=np.ones((2, 3), np.float32))
EOF

# refused MODEL TEXT...: compile fails, prints every TEXT in its error, and
# neither creates nor touches the output.
refused() {
  local model=$1
  shift
  rm -f "$t/new.edgec"
  echo "previous" >"$t/old.edgec"
  cp "$t/old.edgec" "$t/old.copy"
  for out in new old; do
    if "$edgec" compile "$model" -o "$t/$out.edgec" 2>"$t/err.txt"; then
      echo "FAIL: $model compiled"
      exit 1
    fi
    grep -q "^error: " "$t/err.txt" || { echo "FAIL: no error line for $model:"; cat "$t/err.txt"; exit 1; }
    for text in "$@"; do
      grep -qF -- "$text" "$t/err.txt" || { echo "FAIL: '$text' not in:"; cat "$t/err.txt"; exit 1; }
    done
  done
  [ ! -e "$t/new.edgec" ] || { echo "FAIL: $model left an output file"; exit 1; }
  cmp -s "$t/old.edgec" "$t/old.copy" || { echo "FAIL: $model changed an existing output file"; exit 1; }
  ls "$t"/*.tmp* >/dev/null 2>&1 && { echo "FAIL: $model left a temporary file"; exit 1; }
  cat "$t/err.txt"
}

refused "$t/model/outside.onnx" "initializer 'w'" "external file '../outside/weights.bin'" "outside.onnx"
refused "$t/model/cycle.onnx" "the graph has a cycle: node 'A' (#0) -> 'a' -> node 'B' (#1) -> 'b' -> node 'A' (#0)"
truncate -s 2147483649 "$t/model/huge.onnx"  # sparse: takes no disk
refused "$t/model/huge.onnx" "huge.onnx: the file has 2147483649 bytes, more than the 2 GiB"

# External data inside the folder: y = x + w (on the portable kernels: the
# test is about the import).
"$edgec" compile "$t/model/good.onnx" -o "$t/good.edgec" --backends none
"$edgec" run "$t/good.edgec" --inputs "$t/x.npz" --outputs "$t/y.npz"
$py -c "
import numpy as np
np.savez('$t/want.npz', y=np.arange(6, dtype=np.float32).reshape(2, 3) + 1)"
$py "$compare_npz" "$t/y.npz" "$t/want.npz"  # exact

# A memory limit that is not a size is reported, not silently dropped; one
# with a suffix is taken (and inputs or a plan over it refused: at 16 bytes
# the inputs' archive is refused first).
EDGEC_MEMORY_LIMIT=lots "$edgec" run "$t/good.edgec" --inputs "$t/x.npz" --outputs "$t/y2.npz" 2>"$t/err.txt"
grep -q "warning: EDGEC_MEMORY_LIMIT='lots' is not a size" "$t/err.txt" || { cat "$t/err.txt"; exit 1; }
EDGEC_MEMORY_LIMIT=1MiB "$edgec" run "$t/good.edgec" --inputs "$t/x.npz" --outputs "$t/y3.npz" 2>"$t/err.txt"
if grep -q "warning" "$t/err.txt"; then cat "$t/err.txt"; exit 1; fi
if EDGEC_MEMORY_LIMIT=16 "$edgec" run "$t/good.edgec" --inputs "$t/x.npz" --outputs "$t/y4.npz" 2>"$t/err.txt"; then
  echo "expected a 16-byte limit to refuse the run"; exit 1
fi
grep -q "the memory limit of 16 bytes (set EDGEC_MEMORY_LIMIT" "$t/err.txt" || { cat "$t/err.txt"; exit 1; }
echo "ok"

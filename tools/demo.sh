#!/usr/bin/env bash
# `make demo`: compiles the bundled ACT-style policy, runs it on the bundled
# observation, and prints the actions and their largest difference from
# PyTorch's output for the same observation.
set -euo pipefail
edgec=${1:-build/bin/edgec}
fixtures=models/fixtures
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== edgec compile $fixtures/act.onnx -o act.edgec"
"$edgec" compile "$fixtures/act.onnx" -o "$out/act.edgec"
echo "== edgec inspect act.edgec"
"$edgec" inspect "$out/act.edgec" | sed -n '1,/^constants/p' | sed '$d'
echo "== edgec run act.edgec --inputs act.inputs.npz --outputs actions.npz"
"$edgec" run "$out/act.edgec" --inputs "$fixtures/act.inputs.npz" --outputs "$out/actions.npz"
/usr/bin/python3 - "$out/actions.npz" "$fixtures/act.outputs.npz" <<'PY'
import sys, numpy as np
got, want = np.load(sys.argv[1]), np.load(sys.argv[2])
np.set_printoptions(precision=4, suppress=True, linewidth=100)
for k in want.files:
    g, w = got[k], want[k]
    print(f"{k}: shape {g.shape} (first 5 steps of the chunk)")
    print(g.reshape(-1, g.shape[-1])[:5])
    print(f"max |edgec - PyTorch| = {np.abs(g.astype(np.float64) - w).max():.3g}")
PY

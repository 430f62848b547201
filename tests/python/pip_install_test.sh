#!/usr/bin/env bash
# `pip install --no-build-isolation .` into a fresh venv (Debian's python3
# with its system packages: numpy, setuptools), offline, with the build
# folder the test runs from (EDGEC_BUILD_DIR: setup.py builds the module
# there with CMake, a no-op when it is up to date, and packages it). The
# installed package then imports from outside the source tree and runs a
# fixture.
set -euo pipefail
src=$1 build=$2
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
/usr/bin/python3 -m venv --system-site-packages "$t/venv"
cd "$src"
EDGEC_BUILD_DIR="$build" PIP_NO_INDEX=1 "$t/venv/bin/pip" install -q --no-build-isolation \
  --no-cache-dir . >"$t/pip.log" 2>&1 || { cat "$t/pip.log"; exit 1; }
cd "$t"
"$t/venv/bin/python" - "$src/models/fixtures" <<'PY'
import sys
import numpy as np
import edgec
assert "/venv/" in edgec.__file__, edgec.__file__
fixtures = sys.argv[1]
program = edgec.compile(f"{fixtures}/mlp.onnx")
with np.load(f"{fixtures}/mlp.inputs.npz") as i, np.load(f"{fixtures}/mlp.outputs.npz") as o:
    y = program.method().run({"x": i["x"]})["y"]
    np.testing.assert_allclose(y, o["y"], rtol=1e-4, atol=1e-4)
print("installed edgec from", edgec.__file__, "runs mlp")
PY

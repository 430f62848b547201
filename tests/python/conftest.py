"""Shared set-up of the Python module's tests (tests/python/).

ctest runs them with PYTHONPATH=<build>/python (the package the build
makes) and EDGEC_BIN=<build>/bin/edgec (the CLI, for the checks that the
module says and computes what the CLI does).
"""
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "models" / "fixtures"
sys.path.insert(0, str(ROOT / "tests" / "support"))

import compare_npz  # noqa: E402  (tests/support: the scripts' one comparison)


def manifest_entry(name):
    manifest = json.loads((FIXTURES / "manifest.json").read_text())
    entries = [f for f in manifest["fixtures"] if f["name"] == name]
    return entries[0] if entries else {}


def fixture_options(name):
    """edgec.compile's options for fixture NAME, as tests/cli/fixture_test.sh
    gives the CLI: a symbolic input dim is bounded by twice the largest size
    any input set gives it; NAME.fixed.npz fixes inputs."""
    entry = manifest_entry(name)
    size = {}
    for inputs in [entry.get("inputs", [])] + [c["inputs"] for c in entry.get("cases", [])]:
        for i in inputs:
            for d, s in zip(i.get("onnx_shape", []), i["shape"]):
                if isinstance(d, str):
                    size[d] = max(size.get(d, 0), s)
    options = {}
    if size:
        options["max_dims"] = {d: 2 * s for d, s in size.items()}
    fixed = FIXTURES / f"{name}.fixed.npz"
    if fixed.exists():
        with np.load(fixed) as z:
            options["fix_inputs"] = {k: z[k] for k in z.files}
    return options


def input_sets(name):
    """(label, inputs, reference outputs) of every set fixture NAME has."""
    entry = manifest_entry(name)
    labels = [("main", f"{name}.inputs.npz", f"{name}.outputs.npz")]
    labels += [(f"case-{c['label']}", f"{name}.case-{c['label']}.inputs.npz", f"{name}.case-{c['label']}.outputs.npz")
               for c in entry.get("cases", [])]
    sets = []
    for label, inputs, outputs in labels:
        with np.load(FIXTURES / inputs) as i, np.load(FIXTURES / outputs) as o:
            sets.append((label, {k: i[k] for k in i.files}, {k: o[k] for k in o.files}))
    return sets


def check_outputs(got, want, label):
    """Every output within 1e-4 absolute or relative (integers and booleans
    exact, NaN only where the reference has NaN)."""
    assert sorted(got) == sorted(want), f"{label}: outputs {sorted(got)}, expected {sorted(want)}"
    problems = [compare_npz.compare(f"{label}: {k}", got[k], want[k], atol=1e-4, rtol=1e-4, form="either")
                for k in want]
    problems = [p for p in problems if p]
    assert not problems, "\n".join(problems)


@pytest.fixture(scope="session")
def edgec_bin():
    path = os.environ.get("EDGEC_BIN")
    if not path or not Path(path).exists():
        pytest.skip("EDGEC_BIN (the edgec CLI) not set")
    return path


@pytest.fixture(scope="session")
def mlp():
    import edgec
    return edgec.compile(FIXTURES / "mlp.onnx")


@pytest.fixture(scope="session")
def mlp_inputs():
    with np.load(FIXTURES / "mlp.inputs.npz") as z:
        return {k: z[k] for k in z.files}

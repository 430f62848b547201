#!/usr/bin/python3
"""Turns tests/kernels/cases/<family>.py into OUTDIR/<family>.json + .npz.

usage: /usr/bin/python3 gen_cases.py OUTDIR [--strict] [cases/MODULE.py ...]

Every cases/*.py except common.py (and files starting with '_', for shared
helpers) is a family; its `cases()` returns a list of common.case(...).
Module paths after OUTDIR (CMake passes its glob) are used instead of
scanning cases/; they may lie elsewhere (a scratch case file to try the
driver) and still `from common import case`.
For each family this writes
  <family>.json  a list of {name, op, attrs, inputs: [{array, perm}],
                 outputs: [array names], out_specs: [{dtype, shape, capacity}], error,
                 atol, rtol}
  <family>.npz   the arrays, named "<case>.in<i>" and "<case>.out<i>".
Attributes are written as {"kind": "int"|"float"|"bool"|"str"|"ints"|
"floats"|"dtype", "value": ...} so that 1 and 1.0 stay distinct; a float
that is not finite is written as the string "nan", "inf" or "-inf".

A family whose module fails to import, or whose cases are invalid, gets a
<family>.error file holding the reason instead: kernel_cases_test reports it
as that family's failure, so one broken case file does not stop everyone
else's build. With --strict such a family makes this script exit 1.
"""
import importlib.util
import json
import math
import os
import sys
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CASES_DIR = os.path.join(HERE, "cases")
sys.path.append(CASES_DIR)  # appended: a family named like a stdlib module must not shadow it

import common  # noqa: E402


def encode_float(x):
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def encode_attr(value):
    if isinstance(value, common.DTypeAttr):
        return {"kind": "dtype", "value": value.name}
    if isinstance(value, bool):
        return {"kind": "bool", "value": value}
    if isinstance(value, int):
        return {"kind": "int", "value": value}
    if isinstance(value, float):
        return {"kind": "float", "value": encode_float(value)}
    if isinstance(value, str):
        return {"kind": "str", "value": value}
    if all(isinstance(v, int) for v in value):
        return {"kind": "ints", "value": list(value)}
    return {"kind": "floats", "value": [encode_float(v) for v in value]}


def c_order(x):
    # Not np.ascontiguousarray: it turns 0-d arrays into shape (1,).
    return np.array(x, order="C", copy=True)


def load_family(family, path):
    spec = importlib.util.spec_from_file_location("edgec_kernel_cases_" + family, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not hasattr(module, "cases"):
        raise common.CaseError("%s defines no cases() function" % path)
    cases = list(module.cases())
    if not cases:
        raise common.CaseError("%s: cases() returned no cases" % path)
    seen = set()
    for c in cases:
        if not isinstance(c, common.Case):
            raise common.CaseError("cases() returned %r, not a case(...)" % (c,))
        if c.name in seen:
            raise common.CaseError("case name %r is used twice" % c.name)
        seen.add(c.name)
    return cases


def encode_family(cases):
    entries, arrays = [], {}
    for c in cases:
        inputs = []
        for i, (x, perm) in enumerate(zip(c.inputs, c.perms)):
            key = "%s.in%d" % (c.name, i)
            arrays[key] = c_order(x)
            inputs.append({"array": key, "perm": perm})
        outputs = []
        for i, y in enumerate(c.outputs):
            key = "%s.out%d" % (c.name, i)
            arrays[key] = c_order(y)
            outputs.append(key)
        entries.append({
            "name": c.name,
            "op": c.op,
            "attrs": {k: encode_attr(v) for k, v in sorted(c.attrs.items())},
            "inputs": inputs,
            "outputs": outputs,
            "out_specs": [{"dtype": d, "shape": s, "capacity": n} for d, s, n in c.out_specs],
            "error": c.error,
            "atol": c.atol,
            "rtol": c.rtol,
        })
    return entries, arrays


def write_replacing(path, mode, write):
    """Writes through a temporary so a reader never sees half a file."""
    temp = path + ".tmp"
    with open(temp, mode) as f:
        write(f)
    os.replace(temp, path)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    strict = "--strict" in argv[1:]
    if not args:
        sys.stderr.write(__doc__)
        return 2
    outdir = args[0]
    os.makedirs(outdir, exist_ok=True)

    paths = args[1:] or [os.path.join(CASES_DIR, f) for f in os.listdir(CASES_DIR)]
    modules = {}  # family -> path
    for path in paths:
        base = os.path.basename(path)
        if base.endswith(".py") and base != "common.py" and not base.startswith("_"):
            modules[base[:-3]] = path
    families = sorted(modules)
    written, broken = set(), []
    for family in families:
        try:
            entries, arrays = encode_family(load_family(family, modules[family]))
        except Exception:  # any failure in a case module is that family's test failure
            reason = traceback.format_exc()
            last = reason.strip().splitlines()[-1]
            sys.stderr.write("gen_cases: family %s is broken (its test will fail): %s\n" % (family, last))
            broken.append(family)
            write_replacing(os.path.join(outdir, family + ".error"), "w", lambda f: f.write(reason))
            written.add(family + ".error")
            continue
        write_replacing(os.path.join(outdir, family + ".json"), "w",
                        lambda f: json.dump(entries, f, indent=1, allow_nan=False))
        # A file object, because np.savez appends .npz to a name lacking it.
        write_replacing(os.path.join(outdir, family + ".npz"), "wb", lambda f: np.savez(f, **arrays))
        written.update({family + ".json", family + ".npz"})

    # Families that were removed or repaired must not leave stale files behind.
    for f in os.listdir(outdir):
        if f.endswith((".json", ".npz", ".error")) and f not in written:
            os.remove(os.path.join(outdir, f))
    return 1 if strict and broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

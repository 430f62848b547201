#!/usr/bin/python3
"""compare_npz.py cannot let a wrong result pass: each check writes a
reference and a crafted result (.npz) that differ in one way the comparison
must catch, or one way it must accept, runs the command line the shell tests
run, and checks its exit status and report. Exits 1 if any check is wrong."""
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "compare_npz.py")
NAN, INF = float("nan"), float("inf")

failures = []


def check(what, got, want, flags, passes, expect_in=()):
    """Saves the dicts of arrays `got` and `want`, runs the tool with `flags`;
    it must pass (exit 0) or fail (exit 1) as `passes` says, its output
    holding each of `expect_in`."""
    with tempfile.TemporaryDirectory() as t:
        np.savez(os.path.join(t, "got.npz"), **got)
        np.savez(os.path.join(t, "want.npz"), **want)
        r = subprocess.run([sys.executable, TOOL, os.path.join(t, "got.npz"), os.path.join(t, "want.npz")] + flags,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    ok = r.returncode == (0 if passes else 1) and all(s in r.stdout for s in expect_in)
    print(("ok   " if ok else "WRONG") + f" {what}: exit {r.returncode}")
    for line in r.stdout.splitlines():
        print("       " + line)
    if not ok:
        failures.append(what)


f32 = np.float32
loose = ["--atol", "1e-3", "--rtol", "1e-3"]
base = np.array([1, 2, 3], f32)

check("equal floats match", {"y": base}, {"y": base.copy()}, [], True, ["y: float32[3] matches"])
check("an injected NaN in the result fails", {"y": np.array([1, NAN, 3], f32)}, {"y": base}, loose, False,
      ["y: 1 of 3 elements differ (|got - expected| <= 0.001 + 0.001 * |expected|)",
       "at [1] (flat 1): got nan, expected 2"])
check("a NaN in the result fails under any tolerance", {"y": np.array([1, NAN, 3], f32)}, {"y": base},
      ["--atol", "inf", "--rtol", "inf", "--form", "either"], False, ["got nan"])
check("NaN in both at the same place matches", {"y": np.array([1, NAN, 3], f32)}, {"y": np.array([1, -NAN, 3], f32)},
      [], True)
check("NaN in the reference only fails", {"y": base}, {"y": np.array([1, NAN, 3], f32)}, loose, False,
      ["at [1] (flat 1): got 2, expected nan"])
check("NaN at another place fails", {"y": np.array([NAN, 2], f32)}, {"y": np.array([1, NAN], f32)}, loose, False,
      ["2 of 2 elements differ"])
check("the same infinities match", {"y": np.array([INF, -INF], f32)}, {"y": np.array([INF, -INF], f32)}, [], True)
check("the other infinity fails", {"y": np.array([-INF], f32)}, {"y": np.array([INF], f32)},
      ["--atol", "inf"], False, ["got -inf, expected inf"])
check("a finite value for an infinity fails", {"y": np.array([3e38], f32)}, {"y": np.array([INF], f32)},
      ["--atol", "inf", "--rtol", "inf"], False, ["got 3.00000001e+38, expected inf"])
check("an off-by-one int64 fails", {"i": np.array([1000, 7], np.int64)}, {"i": np.array([1001, 7], np.int64)},
      ["--atol", "1e-4", "--rtol", "1e-3", "--form", "either"], False,
      ["i: 1 of 2 elements differ (int64: exact)", "at [0] (flat 0): got 1000, expected 1001"])
check("an off-by-one int64 beyond 2**53 fails", {"i": np.array([2**53 + 1], np.int64)},
      {"i": np.array([2**53], np.int64)}, [], False, ["got 9007199254740993, expected 9007199254740992"])
check("an off-by-one int32 fails", {"i": np.array([[5, 100001]], np.int32)}, {"i": np.array([[5, 100000]], np.int32)},
      loose, False, ["i: 1 of 2 elements differ (int32: exact)", "at [0, 1] (flat 1): got 100001, expected 100000"])
check("equal integers match", {"i": np.array([-3, 2**40], np.int64)}, {"i": np.array([-3, 2**40], np.int64)}, [], True)
check("a bool flip fails", {"m": np.array([True, True])}, {"m": np.array([True, False])}, loose, False,
      ["m: 1 of 2 elements differ (bool: exact)", "at [1] (flat 1): got true, expected false"])
check("a shape mismatch fails", {"y": base.reshape(1, 3)}, {"y": base}, loose, False,
      ["y: shape [1, 3], expected [3]"])
check("a dtype mismatch fails", {"y": base.astype(np.float64)}, {"y": base}, loose, False,
      ["y: dtype float64, expected float32"])
check("int32 for int64 fails", {"i": np.array([1], np.int32)}, {"i": np.array([1], np.int64)}, [], False,
      ["i: dtype int32, expected int64"])
check("a missing array fails", {"a": base}, {"a": base, "b": base}, [], False, ["(missing ['b'])"])
check("an unexpected array fails", {"a": base, "b": base}, {"a": base}, [], False, ["(unexpected ['b'])"])
# sum: |g - w| <= atol + rtol * |w|; at 100: 1e-3 + 1e-3 * 100 = 0.101.
check("sum form, just inside", {"y": np.array([100.1, 99.9], f32)}, {"y": np.array([100, 100], f32)}, loose, True)
check("sum form, just outside", {"y": np.array([100.102], f32)}, {"y": np.array([100], f32)}, loose, False,
      ["got 100.101997, expected 100"])
# either: |g - w| <= max(atol, rtol * |w|).
either = ["--atol", "1e-4", "--rtol", "1e-3", "--form", "either"]
check("either form, just inside (atol)", {"y": np.array([0.01009], f32)}, {"y": np.array([0.01], f32)}, either, True)
check("either form, just outside (atol)", {"y": np.array([0.01011], f32)}, {"y": np.array([0.01], f32)}, either,
      False, ["(|got - expected| <= max(0.0001, 0.001 * |expected|))"])
check("either form, just inside (rtol)", {"y": np.array([100.099], f32)}, {"y": np.array([100], f32)}, either, True)
check("either form, just outside (rtol; the sum form would take it)", {"y": np.array([100.10005], f32)},
      {"y": np.array([100], f32)}, either, False)
# scale: |g - w| <= atol + rtol * max |w| over the array; max |w| = 100:
# 1e-4 + 1e-4 * 100 = 0.0101 for every element, the small ones too.
scale = ["--atol", "1e-4", "--rtol", "1e-4", "--form", "scale"]
check("scale form, just inside (a small element within the array's scale)", {"y": np.array([100, 0.01], f32)},
      {"y": np.array([100, 0.0001], f32)}, scale, True)
check("scale form, just outside", {"y": np.array([100, 0.0103], f32)}, {"y": np.array([100, 0.0001], f32)}, scale,
      False, ["(|got - expected| <= 0.0001 + 0.0001 * max |expected|)"])
check("scale form: NaN still fails", {"y": np.array([100, NAN], f32)}, {"y": np.array([100, 1], f32)}, scale, False)
check("absolute, just inside", {"y": np.array([0.5 + 0.9e-5], f32)}, {"y": np.array([0.5], f32)}, ["--atol", "1e-5"],
      True)
check("absolute, just outside", {"y": np.array([0.5 + 1.1e-5], f32)}, {"y": np.array([0.5], f32)},
      ["--atol", "1e-5"], False, ["(|got - expected| <= 1e-05)"])
check("exact floats, one step off", {"y": np.array([np.nextafter(f32(1), f32(2))], f32)}, {"y": np.array([1], f32)},
      [], False, ["(|got - expected| <= 0)"])
check("float16 NaN fails", {"h": np.array([1, NAN], np.float16)}, {"h": np.array([1, 2], np.float16)}, loose, False)
check("thousands of mismatches: the first five and the count", {"y": np.full((2, 1000), 2, f32)},
      {"y": np.full((2, 1000), 1, f32)}, loose, False,
      ["y: 2000 of 2000 elements differ", "at [0, 4] (flat 4): got 2, expected 1", "  ..."])
check("the label names the run", {"y": base}, {"y": base}, ["--label", "onednn"], True, ["[onednn] y: float32[3]"])
check("empty arrays match", {"y": np.zeros((0, 3), f32)}, {"y": np.zeros((0, 3), f32)}, [], True)

# The report lists five elements, not thousands.
with tempfile.TemporaryDirectory() as t:
    np.savez(os.path.join(t, "got.npz"), y=np.full(5000, 2, f32))
    np.savez(os.path.join(t, "want.npz"), y=np.full(5000, 1, f32))
    out = subprocess.run([sys.executable, TOOL, os.path.join(t, "got.npz"), os.path.join(t, "want.npz")],
                         stdout=subprocess.PIPE, text=True).stdout
    if out.count(" at [") != 5:
        print(f"WRONG the report lists {out.count(' at [')} mismatches, expected 5")
        failures.append("report length")

if failures:
    print(f"{len(failures)} check(s) wrong: {failures}")
    sys.exit(1)
print("compare_npz: all checks passed")
